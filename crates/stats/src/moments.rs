//! Mean and sample standard deviation, of a list or running.

/// The arithmetic mean of `values` (NaN ignored); None when there is none.
pub fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut m = Moments::default();
    values.into_iter().for_each(|x| m.push(x));
    m.mean()
}

/// The sample standard deviation (n − 1) of `values` (NaN ignored); None below two values.
pub fn sample_sd(values: &[f64]) -> Option<f64> {
    let mut m = Moments::default();
    values.iter().for_each(|x| m.push(*x));
    m.sample_sd()
}

/// Running count, mean and sample standard deviation, keeping no values (Welford's update:
/// exact for any number of values, where Σx² − (Σx)²/n loses every digit for values far
/// from zero). Pushing allocates nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    /// One value; NaN is ignored.
    pub fn push(&mut self, x: f64) {
        if x.is_nan() {
            return;
        }
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Values pushed (NaN not counted).
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The mean; None before the first value.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then_some(self.mean)
    }

    /// Sample standard deviation (n − 1); None below two values.
    pub fn sample_sd(&self) -> Option<f64> {
        (self.n > 1).then(|| (self.m2.max(0.0) / (self.n - 1) as f64).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sd_matches_a_hand_computation() {
        // mean 5, squared deviations 9+1+1+9 = 20, /3 → 6.667, sqrt → 2.582
        let s = sample_sd(&[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert!((s - 2.5820).abs() < 1e-3, "{s}");
        assert_eq!(sample_sd(&[1.0]), None);
        assert_eq!(sample_sd(&[]), None);
        assert_eq!(sample_sd(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn means_ignore_nan() {
        assert_eq!(mean([1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(mean([f64::NAN, 4.0]), Some(4.0));
        assert_eq!(mean(std::iter::empty()), None);
    }

    #[test]
    fn running_moments_keep_their_digits_far_from_zero() {
        let mut m = Moments::default();
        for x in [1e9 + 4.0, 1e9 + 7.0, 1e9 + 13.0, 1e9 + 16.0] {
            m.push(x);
        }
        assert_eq!(m.count(), 4);
        assert_eq!(m.mean(), Some(1e9 + 10.0));
        // Squared deviations 36+9+9+36 = 90, /3 = 30.
        assert!((m.sample_sd().unwrap() - 30f64.sqrt()).abs() < 1e-6);
        assert_eq!(Moments::default().mean(), None);
    }
}
