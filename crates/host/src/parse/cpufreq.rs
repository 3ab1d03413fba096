//! cpufreq sysfs files: frequency lists and `stats/time_in_state`.

/// `408000 600000 816000 ` (kHz) → sorted ascending, de-duplicated. Non-numbers skipped.
pub fn freq_list_khz(text: &str) -> Vec<u64> {
    let mut v: Vec<u64> = text
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .filter(|&f| f > 0)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// `stats/time_in_state`: lines `<kHz> <time>`; time is in units of 10 ms (USER_HZ ticks as
/// the kernel documents it), *not* milliseconds.
pub fn time_in_state(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let f = it.next()?.parse().ok()?;
            let t = it.next()?.parse().ok()?;
            Some((f, t))
        })
        .collect()
}

/// kHz → MHz as sbc-bench prints it (rounded to the nearest MHz). Saturates: a garbage value
/// near u64::MAX in a sysfs file must not overflow (a panic in debug builds).
pub fn khz_to_mhz(khz: u64) -> u32 {
    u32::try_from(khz.saturating_add(500) / 1000).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(
            freq_list_khz("816000 408000 600000 \n"),
            [408000, 600000, 816000]
        );
        assert_eq!(freq_list_khz("<unsupported>"), Vec::<u64>::new());
    }

    #[test]
    fn tis() {
        assert_eq!(
            time_in_state("408000 100\n1800000 2345\nbad\n"),
            [(408000, 100), (1800000, 2345)]
        );
    }

    #[test]
    fn mhz_rounding() {
        assert_eq!(khz_to_mhz(2803200), 2803);
        assert_eq!(khz_to_mhz(1459500), 1460);
        assert_eq!(khz_to_mhz(1008000), 1008);
        assert_eq!(khz_to_mhz(u64::MAX), u32::MAX);
        assert_eq!(khz_to_mhz(u64::MAX - 499), u32::MAX);
    }
}
