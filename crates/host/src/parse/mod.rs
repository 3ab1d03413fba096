//! Pure parsers: text in, typed value out. Nothing here touches the file system, and nothing
//! panics on odd input: what cannot be understood becomes `None` or is skipped.

pub mod bytes;
pub mod cpufreq;
pub mod cpuinfo;
pub mod cpulist;
pub mod cursor;
pub mod diskstats;
pub mod meminfo;
pub mod netdev;
pub mod os_release;
pub mod pressure;
pub mod softirqs;
pub mod stat;
pub mod swaps;

/// `1.23 0.45 0.67 2/345 6789` → the 1, 5 and 15 minute load averages; `None` unless all
/// three are finite and not negative (`0.1e30821` parses to infinity: found by fuzzing).
pub fn loadavg(text: &str) -> Option<[f64; 3]> {
    let mut it = text
        .split_whitespace()
        .map(|t| t.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0));
    Some([it.next()??, it.next()??, it.next()??])
}

/// The active choice in a sysfs list like `lzo [lz4] zstd` or `[always] madvise never`.
pub fn bracketed_choice(text: &str) -> Option<&str> {
    let start = text.find('[')?;
    let end = text[start..].find(']')? + start;
    let s = text[start + 1..end].trim();
    (!s.is_empty()).then_some(s)
}

/// Device-tree strings are NUL-separated (and NUL-terminated).
pub fn nul_separated(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|&b| b == 0)
        .map(|s| String::from_utf8_lossy(s).trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    /// Found by fuzzing: `0.1e30821` parses to infinity; a load average is finite and not
    /// negative, or unknown.
    #[test]
    fn a_load_average_that_is_no_number_is_unknown() {
        assert_eq!(super::loadavg("0.12 0.1e30821 0.12 1/227 42"), None);
        assert_eq!(super::loadavg("-1 0 0 1/2 3"), None);
        assert_eq!(super::loadavg("NaN 0 0 1/2 3"), None);
        assert_eq!(
            super::loadavg("0.50 0.25 0.10 1/2 3"),
            Some([0.5, 0.25, 0.1])
        );
    }

    use super::*;

    #[test]
    fn loadavg_parses_and_rejects_garbage() {
        assert_eq!(loadavg("0.10 0.20 0.30 1/100 42\n"), Some([0.1, 0.2, 0.3]));
        assert_eq!(loadavg("0.10 x"), None);
        assert_eq!(loadavg(""), None);
    }

    #[test]
    fn bracketed() {
        assert_eq!(bracketed_choice("lzo lzo-rle [zstd] lz4\n"), Some("zstd"));
        assert_eq!(bracketed_choice("lz4"), None);
        assert_eq!(bracketed_choice("[]"), None);
    }

    #[test]
    fn nul_lists() {
        assert_eq!(
            nul_separated(b"radxa,rock-5b\0rockchip,rk3588\0"),
            ["radxa,rock-5b", "rockchip,rk3588"]
        );
        assert!(nul_separated(b"").is_empty());
    }
}
