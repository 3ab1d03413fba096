//! Order statistics: median, nearest-rank percentiles, range and spread.

use std::cmp::Ordering;

/// A value the order statistics work on: `f64` (NaN is no value; ordered by
/// `f64::total_cmp`) and `u64` (nanoseconds, loop counts).
pub trait Value: Copy {
    /// False for what is no value (NaN): left out.
    fn is_value(&self) -> bool;
    /// The order the values are sorted in.
    fn order(&self, other: &Self) -> Ordering;
    /// The average of `a` ≤ `b` as the type holds it: exact for `f64`, rounded down for
    /// integers.
    fn midpoint(a: Self, b: Self) -> Self;
}

impl Value for f64 {
    fn is_value(&self) -> bool {
        !self.is_nan()
    }
    fn order(&self, other: &Self) -> Ordering {
        self.total_cmp(other)
    }
    fn midpoint(a: Self, b: Self) -> Self {
        (a + b) / 2.0
    }
}

impl Value for u64 {
    fn is_value(&self) -> bool {
        true
    }
    fn order(&self, other: &Self) -> Ordering {
        self.cmp(other)
    }
    fn midpoint(a: Self, b: Self) -> Self {
        // a ≤ b: a + (b − a)/2 cannot overflow, and rounds down.
        a + (b - a) / 2
    }
}

/// The values without NaN, in ascending order. Sort once, then read as many order
/// statistics as needed (a latency list's p50, p99 and max).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sorted<T = f64>(Vec<T>);

impl<T: Value> Sorted<T> {
    /// Sort `values`, leaving out NaN.
    pub fn new(values: impl IntoIterator<Item = T>) -> Sorted<T> {
        let mut v: Vec<T> = values.into_iter().filter(T::is_value).collect();
        v.sort_by(T::order);
        Sorted(v)
    }

    /// How many values (NaN not counted).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No values.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values, ascending.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }

    /// The smallest value.
    pub fn min(&self) -> Option<T> {
        self.0.first().copied()
    }

    /// The largest value.
    pub fn max(&self) -> Option<T> {
        self.0.last().copied()
    }

    /// The nearest-rank percentile `p` (0…100, clamped): the ⌈p·n/100⌉-th smallest value.
    pub fn percentile(&self, p: f64) -> Option<T> {
        let rank = nearest_rank(self.0.len() as u64, p)?;
        Some(self.0[rank as usize - 1])
    }
}

/// The middle of sorted values: the middle value, for an even count the midpoint of the two
/// middle values.
fn middle<T: Value>(sorted: &[T]) -> Option<T> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some(T::midpoint(sorted[n / 2 - 1], sorted[n / 2])),
    }
}

/// The median of `values` (NaN ignored): the middle value, for an even count the average of
/// the two middle values (integers: rounded down); None when there is none.
pub fn median<T: Value>(values: &[T]) -> Option<T> {
    middle(Sorted::new(values.iter().copied()).as_slice())
}

/// The nearest-rank percentile `p` (0…100, clamped) of `values` (NaN ignored): the smallest
/// value with at least `p` % of the values at or below it. None without values or for a NaN
/// `p`.
pub fn percentile<T: Value>(values: &[T], p: f64) -> Option<T> {
    Sorted::new(values.iter().copied()).percentile(p)
}

/// The 1-based rank of percentile `p` (0…100, clamped) among `n` values: ⌈p·n/100⌉, and
/// at least the first. None for no values or a NaN `p`. For code that keeps counts rather
/// than lists (two histograms read as one).
pub fn nearest_rank(n: u64, p: f64) -> Option<u64> {
    if n == 0 || p.is_nan() {
        return None;
    }
    let x = p.clamp(0.0, 100.0) * n as f64 / 100.0;
    // p·n/100 meant as a whole number must not become the next rank through rounding
    // error (7 % of 100 values is the 7th, not the 8th).
    let k = x.round();
    let rank = if (x - k).abs() <= 1e-9 * x.max(1.0) {
        k
    } else {
        x.ceil()
    };
    Some((rank as u64).clamp(1, n))
}

/// The nearest-rank percentile `p` (0…100, clamped) of `(value, weight)` pairs: the smallest
/// value with at least `p` % of the total weight at or below it (a clock held for seconds:
/// the clock the CPU ran at or below for `p` % of the time). Pairs with a NaN value or a
/// weight that is not positive count for nothing. With every weight 1 this is
/// [`percentile`]. None without weight or for a NaN `p`.
pub fn weighted_percentile(pairs: &[(f64, f64)], p: f64) -> Option<f64> {
    if p.is_nan() {
        return None;
    }
    let mut v: Vec<(f64, f64)> = pairs
        .iter()
        .copied()
        .filter(|(x, w)| !x.is_nan() && *w > 0.0)
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|(_, w)| w).sum();
    if total <= 0.0 || v.is_empty() {
        return None;
    }
    let target = p.clamp(0.0, 100.0) / 100.0 * total;
    // Summing weights drifts by a few ulps: a cumulative weight that equals the target up to
    // that drift has reached it.
    let slack = 1e-9 * total;
    let mut acc = 0.0;
    for (x, w) in &v {
        acc += w;
        if acc >= target - slack {
            return Some(*x);
        }
    }
    v.last().map(|(x, _)| *x)
}

/// Largest − smallest of `values` (NaN ignored); None below two values.
pub fn range(values: &[f64]) -> Option<f64> {
    let s = Sorted::new(values.iter().copied());
    (s.len() > 1).then(|| s.0[s.len() - 1] - s.0[0])
}

/// The spread of repeated measurements: (largest − smallest) / median, % (NaN ignored);
/// None below two values or when the median is not positive (a percentage of nothing).
pub fn spread_pct(values: &[f64]) -> Option<f64> {
    let m = median(values).filter(|m| *m > 0.0)?;
    range(values).map(|r| r / m * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_is_the_middle_or_the_average_of_the_two_middle_values() {
        assert_eq!(median::<f64>(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[1.0, 3.0]), Some(2.0));
        assert_eq!(median(&[5.0]), Some(5.0));
    }

    #[test]
    fn nan_is_ignored_and_infinities_are_values() {
        assert_eq!(median(&[f64::NAN]), None);
        assert_eq!(median(&[f64::NAN, 1.0, 3.0]), Some(2.0));
        assert_eq!(median(&[1.0, f64::NAN, 2.0, 9.0, f64::NAN]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, f64::INFINITY]), Some(2.0));
        assert_eq!(percentile(&[f64::NAN, 4.0], 100.0), Some(4.0));
        assert_eq!(range(&[f64::NAN, 4.0]), None);
        assert_eq!(spread_pct(&[f64::NAN, f64::NAN]), None);
    }

    #[test]
    fn integer_median_rounds_the_average_down() {
        assert_eq!(median::<u64>(&[]), None);
        assert_eq!(median(&[7u64, 1, 4]), Some(4));
        assert_eq!(median(&[1u64, 2, 4, 9]), Some(3));
        assert_eq!(median(&[1u64, 2]), Some(1));
        assert_eq!(median(&[u64::MAX, u64::MAX - 1]), Some(u64::MAX - 1));
        assert_eq!(percentile(&[3u64, 1, 2], 50.0), Some(2));
    }

    #[test]
    fn percentiles_are_nearest_ranks() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(percentile(&v, 10.0), Some(1.0));
        assert_eq!(percentile(&v, 10.1), Some(2.0));
        // The lower middle value, not the median (5.5).
        assert_eq!(percentile(&v, 50.0), Some(5.0));
        assert_eq!(percentile(&v, 99.0), Some(10.0));
        assert_eq!(percentile(&v, 100.0), Some(10.0));
        assert_eq!(percentile(&v, 250.0), Some(10.0));
        assert_eq!(percentile(&v, -1.0), Some(1.0));
        assert_eq!(percentile(&v, f64::NAN), None);
        assert_eq!(percentile::<f64>(&[], 50.0), None);
    }

    #[test]
    fn ranks_meant_whole_stay_whole() {
        assert_eq!(nearest_rank(0, 50.0), None);
        assert_eq!(nearest_rank(100, 7.0), Some(7));
        assert_eq!(nearest_rank(100, 57.0), Some(57));
        assert_eq!(nearest_rank(1000, 99.9), Some(999));
        assert_eq!(nearest_rank(200, 50.5), Some(101));
        assert_eq!(nearest_rank(3, 0.0), Some(1));
        for n in 1..=300u64 {
            for p in 0..=100u32 {
                let want = ((u64::from(p) * n).div_ceil(100)).max(1);
                assert_eq!(nearest_rank(n, f64::from(p)), Some(want), "{n} {p}");
            }
        }
    }

    #[test]
    fn weighted_percentiles_weigh_each_value() {
        // 1 s at 408, 3 s at 1800: a quarter of the time at or below 408.
        let r = [(1800.0, 3.0), (408.0, 1.0)];
        assert_eq!(weighted_percentile(&r, 10.0), Some(408.0));
        assert_eq!(weighted_percentile(&r, 25.0), Some(408.0));
        assert_eq!(weighted_percentile(&r, 25.1), Some(1800.0));
        assert_eq!(weighted_percentile(&r, 0.0), Some(408.0));
        assert_eq!(weighted_percentile(&[(1.0, 0.0)], 50.0), None);
        assert_eq!(weighted_percentile(&[], 50.0), None);
        // Tenths of a second add up to a little less than the half they make.
        let tenths: Vec<(f64, f64)> = (1..=10).map(|i| (f64::from(i), 0.1)).collect();
        assert_eq!(weighted_percentile(&tenths, 50.0), Some(5.0));
    }

    #[test]
    fn range_and_spread_from_two_values() {
        assert_eq!(range(&[5.0]), None);
        assert_eq!(range(&[5.0, 2.0, 3.0]), Some(3.0));
        let s = spread_pct(&[1000.0, 900.0, 950.0]).unwrap();
        assert!((s - 100.0 / 950.0 * 100.0).abs() < 1e-12, "{s}");
        assert_eq!(spread_pct(&[500.0]), None);
        assert_eq!(spread_pct(&[-1.0, 0.0, 1.0]), None);
        let s = Sorted::new([3.0, f64::NAN, 1.0, 2.0]);
        assert_eq!(s.as_slice(), &[1.0, 2.0, 3.0]);
        assert_eq!((s.min(), s.max(), s.len()), (Some(1.0), Some(3.0), 3));
    }
}
