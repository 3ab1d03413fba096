//! Small matchers over dmesg-format lines, shared by the kernel-log detectors.
//!
//! Lines may carry vendor prefixes before the message (`c0 1098 (kworker/u8:2) CPU2:
//! shutdown` on Samsung kernels, `hwmon hwmon1: …`), so patterns are searched anywhere in the
//! line rather than anchored after the timestamp.

/// Case-insensitive substring test (kernel message wording varies in capitalisation
/// between versions: "Critical temperature reached" / "critical temperature reached").
pub fn contains_ci(line: &str, pat: &str) -> bool {
    let l = line.as_bytes();
    let p = pat.as_bytes();
    if p.is_empty() {
        return true;
    }
    l.windows(p.len()).any(|w| w.eq_ignore_ascii_case(p))
}

/// Lines containing any of `pats` (case-insensitive).
pub fn matching<'a>(lines: &'a [String], pats: &[&str]) -> Vec<&'a String> {
    lines
        .iter()
        .filter(|l| pats.iter().any(|p| contains_ci(l, p)))
        .collect()
}

/// The number right after `prefix` and followed by `suffix`, anywhere in the line:
/// `cpu_after(line, "CPU", ": shutdown")` finds 3 in `[ 1.0] CPU3: shutdown`.
pub fn number_between(line: &str, prefix: &str, suffix: &str) -> Option<u32> {
    let mut from = 0;
    while let Some(i) = line[from..].find(prefix) {
        let start = from + i + prefix.len();
        let digits = line[start..]
            .bytes()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits > 0 && line[start + digits..].starts_with(suffix) {
            return line[start..start + digits].parse().ok();
        }
        from = start;
    }
    None
}

/// The `[ 2877.094811]` timestamp, seconds since boot.
pub fn timestamp(line: &str) -> Option<f64> {
    let rest = line.trim_start().strip_prefix('[')?;
    let end = rest.find(']')?;
    rest[..end].trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_timestamps() {
        let l = "[  566.894532] c0 1098 (kworker/u8:2) CPU2: shutdown";
        assert_eq!(number_between(l, "CPU", ": shutdown"), Some(2));
        assert_eq!(
            number_between(
                "[ 2877.116885] psci: CPU13 killed (polled 0 ms)",
                "psci: CPU",
                " killed"
            ),
            Some(13)
        );
        assert_eq!(
            number_between("CPU: 2 PID: 7519", "CPU", ": shutdown"),
            None
        );
        assert_eq!(
            number_between("CPU1: Booted CPU3: shutdown", "CPU", ": shutdown"),
            Some(3)
        );
        assert_eq!(timestamp(l), Some(566.894532));
        assert_eq!(timestamp("no stamp"), None);
        assert!(contains_ci(
            "Critical temperature reached",
            "critical TEMPERATURE"
        ));
        assert!(!contains_ci("x", "xy"));
    }
}
