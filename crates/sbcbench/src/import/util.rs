//! Small text helpers shared by the section parsers.

/// A number as sbc-bench logs print it: `1793.531`, `+36.0`, `52,5` (comma locale), `1.2k`
/// is not accepted. Returns `None` for anything else (`---`, `n/a`, empty).
pub fn number(s: &str) -> Option<f64> {
    let s = s.trim().trim_start_matches('+');
    if s.is_empty() {
        return None;
    }
    let v: f64 = if s.contains(',') && !s.contains('.') {
        s.replacen(',', ".", 1).parse().ok()?
    } else {
        s.parse().ok()?
    };
    v.is_finite().then_some(v)
}

pub fn int(s: &str) -> Option<u64> {
    s.trim().parse().ok()
}

/// `#####…` separator lines between sbc-bench's sections.
pub fn is_separator(line: &str) -> bool {
    line.starts_with("##########")
}

/// Splits `cpu4 (Cortex-A72)` / `cpu4` / `cpu0-cpu3 (Cortex-A55)` into the CPU part and the
/// label in parentheses.
pub fn split_label(s: &str) -> (String, Option<String>) {
    let s = s.trim().trim_end_matches(':').trim();
    match s.find(" (") {
        Some(i) if s.ends_with(')') => (
            s[..i].trim().to_string(),
            Some(s[i + 2..s.len() - 1].trim().to_string()),
        ),
        _ => (s.to_string(), None),
    }
}

/// `cpu4` → 4.
pub fn cpu_number(s: &str) -> Option<u32> {
    s.trim().strip_prefix("cpu")?.parse().ok()
}

/// The three `mhz` samples `1793.551/1793.033/1793.531`.
pub fn samples(s: &str) -> Vec<f64> {
    s.split('/').filter_map(number).collect()
}

/// sbc-bench's `RoundedSpeed`: the sum of the samples in thousandths, divided by 3000 with
/// integer division (i.e. the truncated mean of three samples).
pub fn truncated_mean(samples: &[f64]) -> Option<u32> {
    if samples.is_empty() {
        return None;
    }
    let sum: f64 = samples.iter().map(|s| (s * 1000.0).round()).sum();
    let v = sum / (samples.len() as f64 * 1000.0);
    (v >= 0.0 && v < u32::MAX as f64).then(|| v.trunc() as u32)
}

/// `awk '{printf ("%0.0f", $1)}'`: round half to even on the binary value, as C's printf does.
pub fn printf_round(v: f64) -> f64 {
    let r = v.round();
    if (v - v.trunc()).abs() == 0.5 {
        // ties: printf rounds to even
        let t = v.trunc();
        if t % 2.0 == 0.0 {
            t
        } else {
            t + v.signum()
        }
    } else {
        r
    }
}

/// sbc-bench's rounding to tens: `$(( $(awk '{printf ("%0.0f",$1/10); }' <<<X) * 10 ))`.
/// `None` for a figure that is no number or does not fit (an edited log's 10^30 MIPS: found
/// by fuzzing), never a wrapped one.
pub fn round10(v: f64) -> Option<u64> {
    let r = printf_round(v / 10.0);
    if !r.is_finite() {
        None
    } else if r <= 0.0 {
        Some(0)
    } else if r >= (u64::MAX / 10) as f64 {
        None
    } else {
        Some(r as u64 * 10)
    }
}

/// Size strings of `free -h`/`free`: `976M`, `1.7Gi`, `0B`, `5.8M`, `488`, `2,0G`. Bytes.
pub fn human_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n = number(n)?;
    let mult: f64 = match unit.trim_end_matches('i').trim_end_matches('B') {
        "" if unit.is_empty() => 1024.0, // plain `free` prints KiB
        "" => 1.0,                       // `0B`
        "K" | "k" => 1024.0,
        "M" => 1024.0 * 1024.0,
        "G" => 1024.0 * 1024.0 * 1024.0,
        "T" => 1024.0_f64.powi(4),
        _ => return None,
    };
    Some((n * mult).round() as u64)
}

/// Seconds since midnight of `HH:MM:SS`.
pub fn clock_seconds(s: &str) -> Option<u32> {
    let mut it = s.split(':');
    let h: u32 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok()?;
    let sec: u32 = it.next()?.parse().ok()?;
    (h < 24 && m < 60 && sec < 61).then_some(h * 3600 + m * 60 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(number("+36.0"), Some(36.0));
        assert_eq!(number("52,5"), Some(52.5));
        assert_eq!(number("---"), None);
        assert_eq!(number(""), None);
    }

    #[test]
    fn rounding_like_awk() {
        // 2068 → 2070, 2065 → 206.5 → 206 (ties to even) → 2060, 2075 → 208 → 2080
        assert_eq!(round10(2068.0), Some(2070));
        assert_eq!(round10(2065.0), Some(2060));
        assert_eq!(round10(2075.0), Some(2080));
        assert_eq!(round10(17951.9), Some(17950));
        assert_eq!(round10(1e30), None);
        assert_eq!(round10(f64::NAN), None);
        assert_eq!(printf_round(0.5), 0.0);
        assert_eq!(printf_round(1.5), 2.0);
    }

    #[test]
    fn truncated_mean_matches_sbc_bench() {
        // "Cpufreq OPP:  800    Measured:  798    (798.991/798.971/798.941)"
        assert_eq!(
            truncated_mean(&samples("798.991/798.971/798.941")),
            Some(798)
        );
        assert_eq!(truncated_mean(&[]), None);
    }

    #[test]
    fn sizes() {
        assert_eq!(human_size("0B"), Some(0));
        assert_eq!(human_size("976M"), Some(976 * 1024 * 1024));
        assert_eq!(
            human_size("1.7Gi"),
            Some((1.7 * 1024.0 * 1024.0 * 1024.0_f64).round() as u64)
        );
        assert_eq!(human_size("125020"), Some(125020 * 1024));
        assert_eq!(human_size("x"), None);
    }

    #[test]
    fn labels() {
        assert_eq!(
            split_label("cpu4 (Cortex-A72):"),
            ("cpu4".into(), Some("Cortex-A72".into()))
        );
        assert_eq!(split_label("cpu4"), ("cpu4".into(), None));
        assert_eq!(cpu_number("cpu12"), Some(12));
        assert_eq!(clock_seconds("23:46:41"), Some(85601));
        assert_eq!(clock_seconds("25:00:00"), None);
    }
}
