//! One walk over a procfs text: prefixes, tokens and numbers taken where the walk stands, a
//! line's end found as the walk reaches it. The sampler parses /proc/stat and /proc/meminfo
//! every tick; splitting them into lines first and then each line into tokens walked every
//! byte twice. Same results as the `lines`/`tokens`/`u64_of` helpers, a test holds them equal.

use super::bytes::{newline, u64_of};

/// A position in a text; never past its end. "The line" is the one the cursor is on: it ends
/// at the next newline or at the end of the text.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

fn blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// How many of the eight bytes of `w` (the first in its lowest byte) are ASCII digits before
/// the first that is not. Below that byte every byte is a digit, so the subtraction borrows
/// from none of them and the addition carries into none: each is tested exactly.
#[inline(always)]
fn leading_digits(w: u64) -> usize {
    let t = w.wrapping_sub(0x3030_3030_3030_3030);
    // A byte's top bit: its value minus '0' is 10 or more, or it was below '0'.
    let not_digit = (t.wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080;
    (not_digit.trailing_zeros() / 8) as usize
}

/// The number the first `n` (1 to 8) bytes of `w` spell, all digits: moved to the top of the
/// word (the bytes shifted in are leading zeros), then pairs, fours and eights of digits
/// combined by three multiplications.
#[inline(always)]
fn digits_value(w: u64, n: usize) -> u64 {
    let d = (w.wrapping_sub(0x3030_3030_3030_3030) << (8 * (8 - n))) & 0x0F0F_0F0F_0F0F_0F0F;
    let d = d.wrapping_mul(10 * 256 + 1) >> 8;
    let d = (d & 0x00FF_00FF_00FF_00FF).wrapping_mul(100 * 65_536 + 1) >> 16;
    (d & 0x0000_FFFF_0000_FFFF).wrapping_mul(10_000 * (1 << 32) + 1) >> 32
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8]) -> Cursor<'a> {
        Cursor { b, i: 0 }
    }

    /// Take `prefix` when the rest of the text starts with it.
    pub fn eat(&mut self, prefix: &[u8]) -> bool {
        let hit = self.b[self.i..].starts_with(prefix);
        if hit {
            self.i += prefix.len();
        }
        hit
    }

    /// The next byte, not taken.
    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// The ASCII digits from here (possibly none), taken.
    pub fn digits(&mut self) -> &'a [u8] {
        let start = self.i;
        while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        &self.b[start..self.i]
    }

    /// The next token of this line (spaces and tabs separate them), taken; None at the line's
    /// end. As `tokens(rest_of_line).next()`.
    pub fn token(&mut self) -> Option<&'a [u8]> {
        while self.i < self.b.len() && blank(self.b[self.i]) {
            self.i += 1;
        }
        let start = self.i;
        while self.i < self.b.len() && !blank(self.b[self.i]) && self.b[self.i] != b'\n' {
            self.i += 1;
        }
        (self.i > start).then(|| &self.b[start..self.i])
    }

    /// The next token of this line as an unsigned decimal, taken; None at the line's end, for
    /// a token that is not all digits, or on overflow.
    ///
    /// One pass over the token, digits taken as they come (the sampler parses ten figures
    /// of /proc/stat a tick this way; finding the token and then reading it walked it twice).
    /// Up to 19 digits cannot overflow 64 bits, so the loop does not check; a longer token is
    /// read again with the checks.
    #[link_section = "truebench_tick"]
    pub fn u64_token(&mut self) -> Option<u64> {
        let b = self.b;
        let mut i = self.i;
        while i < b.len() && blank(b[i]) {
            i += 1;
        }
        let start = i;
        let mut v: u64 = 0;
        // Eight bytes a turn while eight remain: a /proc/stat line is ten such numbers per
        // CPU, and a digit at a time was most of a tick's parsing.
        while let Some(w) = b.get(i..i + 8) {
            let w = u64::from_le_bytes(w.try_into().expect("eight bytes"));
            let n = leading_digits(w);
            if n == 0 {
                break;
            }
            // A power of ten computed here, not a table: read-only data is one more page the
            // sampler would touch cold.
            v = v
                .wrapping_mul(10u64.pow(n as u32))
                .wrapping_add(digits_value(w, n));
            i += n;
            if n < 8 {
                break;
            }
        }
        while i < b.len() {
            let d = b[i].wrapping_sub(b'0');
            if d >= 10 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        let all_digits = i == b.len() || blank(b[i]) || b[i] == b'\n';
        if !all_digits {
            while i < b.len() && !blank(b[i]) && b[i] != b'\n' {
                i += 1;
            }
        }
        self.i = i;
        match i - start {
            0 => None,
            _ if !all_digits => None,
            1..=19 => Some(v),
            _ => u64_of(&b[start..i]),
        }
    }

    /// Move to the start of the next line; false when this was the last one.
    #[link_section = "truebench_tick"]
    pub fn next_line(&mut self) -> bool {
        match newline(&self.b[self.i..]) {
            Some(k) => {
                self.i += k + 1;
                true
            }
            None => {
                self.i = self.b.len();
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::bytes::{lines, tokens, u64_of};
    use super::*;
    use proptest::prelude::*;

    /// Texts made of the bytes that matter to the walk: separators, digits, colons, others.
    fn text() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(
            prop::sample::select(b" \t\n:0123456789aZ-\xff".to_vec()),
            0..120,
        )
    }

    /// Texts where most bytes are spaces: long runs of them (as /proc/meminfo pads its
    /// figures), ending at every offset.
    fn padded_text() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(
            prop_oneof![
                3 => Just(b' '),
                1 => prop::sample::select(b"\t\n:0123456789aZ\xff".to_vec()),
            ],
            0..200,
        )
    }

    /// Texts of numbers of 1 to 24 digits (as /proc/stat's), some with a stray byte, between
    /// separators (among them `/` and `:`, the bytes either side of the digits, and 0 and
    /// 0x80): every length a word of eight bytes can split, at every offset.
    fn number_text() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(
            (
                prop::collection::vec(prop::sample::select(b"0123456789".to_vec()), 1..25),
                prop::sample::select(b" \t\n:x/\0\x80".to_vec()),
            ),
            0..40,
        )
        .prop_map(|v| {
            v.into_iter()
                .flat_map(|(mut n, sep)| {
                    n.push(sep);
                    n
                })
                .collect()
        })
    }

    /// Token by token and number by number, every line gives what `lines` and `tokens`
    /// give.
    fn walk_equals_helpers(t: &[u8], numbers: bool) -> Result<(), TestCaseError> {
        let mut c = Cursor::new(t);
        for line in lines(t) {
            for want in tokens(line) {
                if numbers {
                    prop_assert_eq!(c.u64_token(), u64_of(want));
                } else {
                    prop_assert_eq!(c.token(), Some(want));
                }
            }
            prop_assert_eq!(c.token(), None);
            prop_assert_eq!(c.u64_token(), None);
            if !c.next_line() {
                break;
            }
        }
        prop_assert_eq!(c.peek(), None);
        Ok(())
    }

    proptest! {
        #[test]
        fn equals_the_line_and_token_helpers(t in text(), numbers in any::<bool>()) {
            walk_equals_helpers(&t, numbers)?;
        }

        #[test]
        fn runs_of_digits_equal_the_helpers(t in number_text()) {
            walk_equals_helpers(&t, true)?;
        }

        #[test]
        fn long_runs_of_spaces_equal_the_helpers(t in padded_text(), numbers in any::<bool>()) {
            walk_equals_helpers(&t, numbers)?;
        }
    }

    #[test]
    fn prefixes_digits_and_overflow() {
        let mut c = Cursor::new(b"cpu12 18446744073709551616 7x 18446744073709551615\nz");
        assert!(!c.eat(b"cpux"));
        assert!(c.eat(b"cpu"));
        assert_eq!(c.digits(), b"12");
        assert_eq!(c.peek(), Some(b' '));
        assert_eq!(c.u64_token(), None);
        assert_eq!(c.u64_token(), None);
        assert_eq!(c.u64_token(), Some(u64::MAX));
        assert_eq!(c.token(), None);
        assert!(c.next_line());
        assert_eq!(c.digits(), b"");
        assert_eq!(c.token(), Some(&b"z"[..]));
        assert!(!c.next_line());
        // 19 digits take the loop without checks; 20 and more are read again with them.
        let mut c = Cursor::new(
            b"9999999999999999999 99999999999999999999 00000000000000000000001 12a4 5\t6",
        );
        assert_eq!(c.u64_token(), Some(9_999_999_999_999_999_999));
        assert_eq!(c.u64_token(), None);
        assert_eq!(c.u64_token(), Some(1));
        assert_eq!(c.u64_token(), None);
        assert_eq!(c.u64_token(), Some(5));
        assert_eq!(c.u64_token(), Some(6));
        assert_eq!(c.u64_token(), None);
    }
}
