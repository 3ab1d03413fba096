//! A mean with its 95 % interval when consecutive values are not independent (readings of a
//! meter that repeats itself, a slow drift), and a least-squares trend.

/// Student's t for a two-sided 95 % interval with `df` degrees of freedom (the normal
/// 1.96 from 31 on, where the table's values are within 4 % of it).
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    T.get(df.wrapping_sub(1)).copied().unwrap_or(1.96)
}

/// A mean and the half-width of its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    /// Values in the mean.
    pub n: usize,
    pub mean: f64,
    pub half_width: f64,
}

/// The mean of `values` (in their order) with its 95 % interval by batch means: the values
/// cut into up to `max_batches` consecutive batches of at least `min_batch` each, the
/// interval from the batch means' spread with Student's t. Batches longer than the values'
/// correlation make their means nearly independent, where the values are not. None under
/// two batches. NaN is ignored.
pub fn batch_mean_interval(
    values: &[f64],
    min_batch: usize,
    max_batches: usize,
) -> Option<MeanInterval> {
    let v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    let n = v.len();
    let k = (n / min_batch.max(1)).min(max_batches);
    if k < 2 {
        return None;
    }
    let size = n / k;
    let means: Vec<f64> = (0..k)
        .map(|i| {
            let end = if i == k - 1 { n } else { (i + 1) * size };
            crate::mean(v[i * size..end].iter().copied()).unwrap_or(0.0)
        })
        .collect();
    Some(MeanInterval {
        n,
        mean: crate::mean(v.iter().copied())?,
        half_width: t95(k - 1) * crate::sample_sd(&means).unwrap_or(0.0) / (k as f64).sqrt(),
    })
}

/// The least-squares slope of `points` (x, y) and its standard error; None under three
/// points or when every x is the same. Points with a NaN are ignored.
pub fn slope(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let p: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(x, y)| !x.is_nan() && !y.is_nan())
        .collect();
    if p.len() < 3 {
        return None;
    }
    let n = p.len() as f64;
    let mx = p.iter().map(|q| q.0).sum::<f64>() / n;
    let my = p.iter().map(|q| q.1).sum::<f64>() / n;
    let sxx: f64 = p.iter().map(|q| (q.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let b = p.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum::<f64>() / sxx;
    let resid: f64 = p.iter().map(|q| (q.1 - my - b * (q.0 - mx)).powi(2)).sum();
    Some((b, (resid / (n - 2.0) / sxx).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_means_see_a_drift_that_single_values_hide() {
        // Alternating values: every batch has the same mean, the interval is 0.
        let alt: Vec<f64> = (0..100)
            .map(|i| if i % 2 == 0 { 4.9 } else { 5.1 })
            .collect();
        let m = batch_mean_interval(&alt, 2, 10).unwrap();
        assert!(
            (m.mean - 5.0).abs() < 1e-12 && m.half_width < 1e-12,
            "{m:?}"
        );
        // A drift: the batch means differ.
        let d: Vec<f64> = (0..100).map(|i| 5.0 + i as f64 * 0.01).collect();
        let m = batch_mean_interval(&d, 2, 10).unwrap();
        // Batch means 5.045 + 0.1·i: sd 0.3028, t(9) 2.262, √10.
        assert!(
            (m.half_width - 2.262 * 0.302_765 / 10f64.sqrt()).abs() < 1e-4,
            "{m:?}"
        );
        assert_eq!(batch_mean_interval(&d[..3], 2, 10), None);
        assert_eq!(batch_mean_interval(&[f64::NAN; 40], 2, 10), None);
        assert_eq!(
            (t95(1), t95(9), t95(30), t95(31)),
            (12.706, 2.262, 2.042, 1.96)
        );
    }

    #[test]
    fn slope_and_its_error() {
        let line: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 2.0 * i as f64 + 1.0)).collect();
        assert_eq!(slope(&line), Some((2.0, 0.0)));
        let flat = [(0.0, 1.0), (1.0, 3.0), (2.0, 1.0), (3.0, 3.0)];
        let (b, se) = slope(&flat).unwrap();
        assert!(b.abs() <= 2.0 * se, "{b} ± {se}");
        assert_eq!(slope(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]), None);
        assert_eq!(slope(&line[..2]), None);
    }
}
