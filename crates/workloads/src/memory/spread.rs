//! tinymembench's spread of repeated samples: the sample standard deviation as a percentage
//! of the best sample, shown in brackets from 0.1 %.

use truebench_stats::sample_sd;

/// Largest value (NaN-free input assumed); 0 for none.
pub fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}

/// tinymembench's spread: sample standard deviation as a percentage of the best value; 0
/// below two values or without a positive best.
pub fn spread_pct_of_best(values: &[f64]) -> f64 {
    let best = max(values);
    if best > 0.0 {
        sample_sd(values).unwrap_or(0.0) / best * 100.0
    } else {
        0.0
    }
}

/// tinymembench's end of sampling: the sample standard deviation below a thousandth of the
/// best.
pub fn agree(values: &[f64]) -> bool {
    sample_sd(values).unwrap_or(0.0) < max(values) / 1000.0
}

/// tinymembench's bracket: ` (0.8%)` when the spread reaches 0.1 %, else nothing.
pub fn spread_suffix(pct: f64) -> String {
    if pct >= 0.1 {
        format!(" ({pct:.1}%)")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_follows_tinymembench() {
        assert_eq!(spread_suffix(0.05), "");
        assert_eq!(spread_suffix(0.1), " (0.1%)");
        assert_eq!(spread_suffix(0.84), " (0.8%)");
        let pct = spread_pct_of_best(&[100.0, 99.0, 98.0]);
        assert!((pct - 1.0).abs() < 1e-9, "{pct}");
        assert_eq!(spread_pct_of_best(&[100.0]), 0.0);
    }

    #[test]
    fn samples_agree_within_a_thousandth_of_the_best() {
        assert!(agree(&[1000.0, 999.9, 1000.1]));
        assert!(!agree(&[1000.0, 990.0, 1000.0]));
    }
}
