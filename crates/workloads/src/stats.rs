//! Small statistics shared by the kernels.

/// Sample standard deviation (n − 1); 0 for fewer than two values.
pub fn sample_stddev(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64;
    var.sqrt()
}

/// Largest value (NaN-free input assumed); 0 for none.
pub fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}

/// tinymembench's spread: sample standard deviation as a percentage of the best value.
pub fn spread_pct_of_best(values: &[f64]) -> f64 {
    let best = max(values);
    if best > 0.0 {
        sample_stddev(values) / best * 100.0
    } else {
        0.0
    }
}

/// tinymembench's bracket: ` (0.8%)` when the spread reaches 0.1 %, else nothing.
pub fn spread_suffix(pct: f64) -> String {
    if pct >= 0.1 {
        format!(" ({pct:.1}%)")
    } else {
        String::new()
    }
}

/// A small, fast, seedable generator (SplitMix64): reproducible permutations without a crate.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift (bias negligible for n ≪ 2^64).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stddev_matches_a_hand_computation() {
        // mean 5, squared deviations 9+1+1+9 = 20, /3 → 6.667, sqrt → 2.582
        let s = sample_stddev(&[2.0, 4.0, 6.0, 8.0]);
        assert!((s - 2.5820).abs() < 1e-3, "{s}");
        assert_eq!(sample_stddev(&[1.0]), 0.0);
    }

    #[test]
    fn suffix_follows_tinymembench() {
        assert_eq!(spread_suffix(0.05), "");
        assert_eq!(spread_suffix(0.1), " (0.1%)");
        assert_eq!(spread_suffix(0.84), " (0.8%)");
        let pct = spread_pct_of_best(&[100.0, 99.0, 98.0]);
        assert!((pct - 1.0).abs() < 1e-9, "{pct}");
    }

    #[test]
    fn below_stays_in_range_and_varies() {
        let mut r = SplitMix64::new(1);
        let v: Vec<u64> = (0..1000).map(|_| r.below(7)).collect();
        assert!(v.iter().all(|&x| x < 7));
        for k in 0..7 {
            assert!(v.contains(&k));
        }
    }
}
