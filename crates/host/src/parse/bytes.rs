//! Byte-level helpers for parsers that must not allocate (the sampler re-parses procfs files
//! many times a second into buffers it owns). Odd input gives `None`, never a panic.

/// Whitespace-separated tokens of a line (spaces and tabs; empty tokens skipped).
pub fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|c| *c == b' ' || *c == b'\t')
        .filter(|t| !t.is_empty())
}

/// Lines of a text, without the newline.
pub fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|c| *c == b'\n')
}

/// An unsigned decimal token; `None` for anything but digits or on overflow.
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
pub fn f64_of(tok: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(tok).ok()?;
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(v)
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
