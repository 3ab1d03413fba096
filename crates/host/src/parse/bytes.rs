//! Byte-level helpers for parsers that must not allocate (the sampler re-parses procfs files
//! many times a second into buffers it owns). Odd input gives `None`, never a panic.

/// Whitespace-separated tokens of a line (spaces and tabs; empty tokens skipped).
pub fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|c| *c == b' ' || *c == b'\t')
        .filter(|t| !t.is_empty())
}

/// Lines of a text, without the newline (a text ending in one yields a last, empty line,
/// as `split` does). The newlines are found by `newline`, eight bytes at a time: the sampler
/// walks /proc files every tick, and a byte-by-byte split was most of their parsing cost.
pub fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        match newline(t) {
            Some(i) => {
                rest = Some(&t[i + 1..]);
                Some(&t[..i])
            }
            None => {
                rest = None;
                Some(t)
            }
        }
    })
}

/// The eight bytes of `b` from `at` as a little-endian word, zeros past its end: one load
/// where eight bytes are there (a copy of a variable length would call `memcpy`).
#[inline]
pub fn word_at(b: &[u8], at: usize) -> u64 {
    match b.get(at..at + 8) {
        Some(w) => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]),
        None => {
            let mut w = 0u64;
            for (i, &c) in b.get(at..).unwrap_or_default().iter().enumerate() {
                w |= (c as u64) << (8 * i);
            }
            w
        }
    }
}

/// Where the first newline of `b` is, eight bytes per step: the sampler skips most of
/// /proc/meminfo's lines every tick, and a byte loop was a third of that parse's instructions.
/// Plain code, not `memchr`: no CPU dispatch and no code or tables on other pages, which the
/// sampler would touch cold after each sleep. The constants are immediates in the code.
#[inline]
pub fn newline(b: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const NLS: u64 = u64::from_ne_bytes([b'\n'; 8]);
    let mut at = 0;
    while b.len() - at >= 8 {
        // Little-endian order whatever the CPU's, so that the lowest flagged bit is the first
        // byte: a zero byte of `x` (a newline of the word) sets its high bit, and the borrow
        // can flag bytes after a real one only, never before it.
        let x = word_at(b, at) ^ NLS;
        let hit = x.wrapping_sub(ONES) & !x & HIGHS;
        if hit != 0 {
            return Some(at + (hit.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    b[at..].iter().position(|&c| c == b'\n').map(|k| at + k)
}

/// The first whitespace-separated token of a line, as `tokens(line).next()`.
pub fn first_token(line: &[u8]) -> Option<&[u8]> {
    let start = line.iter().position(|&c| c != b' ' && c != b'\t')?;
    let t = &line[start..];
    let end = t
        .iter()
        .position(|&c| c == b' ' || c == b'\t')
        .unwrap_or(t.len());
    Some(&t[..end])
}

/// An unsigned decimal token; `None` for anything but digits or on overflow.
#[link_section = "truebench_tick"]
pub fn u64_of(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in tok {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

/// A (optionally signed) decimal integer, surrounding whitespace ignored: one sysfs value.
#[link_section = "truebench_tick"]
pub fn i64_of(b: &[u8]) -> Option<i64> {
    let b = b.trim_ascii();
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        // Accumulate negatively so i64::MIN parses; negation below cannot overflow then.
        v = v.checked_mul(10)?.checked_sub((c - b'0') as i64)?;
    }
    if neg {
        Some(v)
    } else {
        v.checked_neg()
    }
}

/// A decimal number with an optional fraction (`12.34`, PSI averages); `None` when malformed.
#[link_section = "truebench_tick"]
pub fn f64_of(tok: &[u8]) -> Option<f64> {
    if let Some(v) = plain_decimal(tok) {
        return Some(v);
    }
    let s = std::str::from_utf8(tok).ok()?;
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

/// `digits[.digits]` with at most 15 digits in all, the way the kernel prints its averages
/// (`0.06`, `12.34`): the digits as an integer are exact in an f64 and so is the power of
/// ten, so their quotient is the correctly rounded value — the same `str::parse` gives, at a
/// fraction of its cost (the sampler parses the load average every tick). None for anything
/// else, which takes the general path.
#[link_section = "truebench_tick"]
fn plain_decimal(tok: &[u8]) -> Option<f64> {
    let (int, frac) = match tok.iter().position(|&c| c == b'.') {
        Some(i) => (&tok[..i], &tok[i + 1..]),
        None => (tok, &[][..]),
    };
    if int.is_empty() || int.len() + frac.len() > 15 {
        return None;
    }
    let mut m: u64 = 0;
    for &c in int.iter().chain(frac) {
        if !c.is_ascii_digit() {
            return None;
        }
        m = m * 10 + (c - b'0') as u64;
    }
    // Below 10^15, so signed conversions (one instruction each) and a power of ten computed
    // here, not a table: read-only data is one more page the sampler would touch cold.
    let pow = 10i64.pow(frac.len() as u32);
    Some(m as i64 as f64 / f64_at_run_time(pow))
}

/// `v` as a double, converted when the code runs rather than folded into a constant: code
/// the sampler runs every tick divides by such numbers (10^9 ns in a second, 1000), and a
/// folded constant sits in the binary's constant pool, pages away from the code, one more
/// page to touch cold after each sleep.
#[inline(always)]
pub fn f64_at_run_time(v: i64) -> f64 {
    std::hint::black_box(v) as f64
}

/// `bytes` in lower-case hex, as `{:02x}` per byte writes them (a digest as text: the site's
/// hundreds of thousands of input keys, KCIDB's ids), without the formatter's call per byte.
pub fn lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// Growth of a kernel counter between two readings. `unsigned long` counters wrap at 2^32 on
/// 32-bit kernels: a step back between values that fit 32 bits is taken as one wrap when the
/// growth it implies is under half the range; any other step back (a reset, a device replaced
/// under the same name) is unknown.
pub fn counter_delta(before: u64, now: u64) -> Option<u64> {
    if now >= before {
        return Some(now - before);
    }
    let max = u32::MAX as u64;
    if before > max {
        return None;
    }
    let wrapped = (max - before) + now + 1;
    (wrapped <= max / 2).then_some(wrapped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lower_hex_is_the_formatters() {
        let bytes: Vec<u8> = (0..=255).collect();
        let fmt: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(lower_hex(&bytes), fmt);
        assert_eq!(lower_hex(&[]), "");
    }

    proptest! {
        /// The same as the standard parse of an all-digit token (which alone is a number
        /// here: no sign), at every length up to past the 64-bit limit.
        #[test]
        fn u64_of_equals_the_standard_parse(
            tok in prop::collection::vec(prop::sample::select(b"0123456789999+-a ".to_vec()), 0..24),
            nines in 17usize..22,
        ) {
            let want = |t: &[u8]| {
                (!t.is_empty() && t.iter().all(u8::is_ascii_digit))
                    .then(|| std::str::from_utf8(t).ok()?.parse::<u64>().ok())
                    .flatten()
            };
            prop_assert_eq!(u64_of(&tok), want(&tok));
            // Around the 64-bit limit: 17 to 21 nines (19 fit, 20 do not).
            let big = vec![b'9'; nines];
            prop_assert_eq!(u64_of(&big), want(&big));
        }

        /// The word-at-a-time search finds the first newline a byte loop finds, at every
        /// offset and length, among the bytes one bit or one borrow away from a newline.
        #[test]
        fn newline_equals_a_byte_search(
            b in prop::collection::vec(
                prop::sample::select(vec![b'\n', 0x0b, 0x09, 0x8a, 0x0e, 0x00, 0xff, 0x01, b'k']),
                0..40,
            ),
            from in 0usize..9,
        ) {
            let b = &b[from.min(b.len())..];
            prop_assert_eq!(newline(b), b.iter().position(|&c| c == b'\n'));
        }
    }

    /// The fast path gives exactly what `str::parse` gives, on the kernel's formats and on
    /// every digit count it takes; other shapes still parse through the general path.
    #[test]
    fn plain_decimals_equal_the_standard_parse() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            // xorshift: varied digit counts and fraction lengths.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 15 + 1) as usize;
            let frac = (x >> 8) as usize % (digits + 1);
            let m = (x >> 16) % 10u64.pow(digits as u32);
            let mut s = format!("{m:0digits$}");
            if frac > 0 {
                s.insert(digits - frac, '.');
                if frac == digits {
                    s.insert(0, '0');
                }
            }
            let want: f64 = s.parse().unwrap();
            assert_eq!(
                f64_of(s.as_bytes()).map(f64::to_bits),
                Some(want.to_bits()),
                "{s}"
            );
        }
        for (s, want) in [
            ("0.06", Some(0.06)),
            ("1.", Some(1.0)),
            (".5", Some(0.5)),
            ("-2.5", Some(-2.5)),
            ("1e3", Some(1000.0)),
            ("1234567890.1234567", Some(1234567890.1234567)),
            ("1.2.3", None),
            ("", None),
            ("inf", None),
            ("0x10", None),
        ] {
            assert_eq!(f64_of(s.as_bytes()), want, "{s}");
        }
    }

    #[test]
    fn integers() {
        assert_eq!(u64_of(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(u64_of(b"18446744073709551616"), None);
        assert_eq!(u64_of(b"-1"), None);
        assert_eq!(u64_of(b""), None);
        assert_eq!(i64_of(b" -5000\n"), Some(-5000));
        assert_eq!(i64_of(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(i64_of(b"9223372036854775808"), None);
        assert_eq!(i64_of(b"+7"), Some(7));
        assert_eq!(i64_of(b"-"), None);
        assert_eq!(i64_of(b"4x"), None);
        assert_eq!(f64_of(b"12.50"), Some(12.5));
        assert_eq!(f64_of(b"inf"), None);
        assert_eq!(f64_of(b"\xff"), None);
    }

    #[test]
    fn tokens_and_lines() {
        let t: Vec<&[u8]> = tokens(b"  a \tbb  c").collect();
        assert_eq!(t, [&b"a"[..], b"bb", b"c"]);
        assert_eq!(lines(b"x\ny").count(), 2);
        // The same lines `split` gives, empty ones and a trailing one included.
        for text in [&b""[..], b"\n", b"a", b"a\n", b"\n\nb\n\nc", b"x\ny\n"] {
            let want: Vec<&[u8]> = text.split(|c| *c == b'\n').collect();
            assert_eq!(lines(text).collect::<Vec<_>>(), want, "{text:?}");
        }
        for line in [&b""[..], b"  ", b"a", b" \t 12 kB", b"12\tkB", b"x y z"] {
            assert_eq!(first_token(line), tokens(line).next(), "{line:?}");
        }
    }

    #[test]
    fn counters_wrap_at_32_bits_only_from_32_bit_values() {
        assert_eq!(counter_delta(10, 15), Some(5));
        assert_eq!(counter_delta(u32::MAX as u64 - 1, 3), Some(5));
        assert_eq!(counter_delta(1 << 40, 3), None);
        // Back from 25 million to 1: a reset, not 4.27 billion requests in one interval.
        assert_eq!(counter_delta(25_354_737, 1), None);
    }
}
