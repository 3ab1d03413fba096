//! Spearman's rank correlation.

/// Spearman's rank correlation of paired values (ties share their mean rank; pairs with a
/// NaN ignored); None below three pairs or without variation on either side.
pub fn rank_correlation(pairs: &[(f64, f64)]) -> Option<f64> {
    let pairs: Vec<(f64, f64)> = pairs
        .iter()
        .copied()
        .filter(|(x, y)| !x.is_nan() && !y.is_nan())
        .collect();
    if pairs.len() < 3 {
        return None;
    }
    let a = ranks(pairs.iter().map(|p| p.0).collect());
    let b = ranks(pairs.iter().map(|p| p.1).collect());
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(&b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    if va == 0.0 || vb == 0.0 {
        return None;
    }
    Some(cov / (va * vb).sqrt())
}

/// Each value's 1-based rank; equal values share the mean of their ranks.
fn ranks(v: Vec<f64>) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|a, b| v[*a].total_cmp(&v[*b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for k in &idx[i..=j] {
            r[*k] = mean;
        }
        i = j + 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_correlations() {
        let up = [(1.0, 10.0), (2.0, 20.0), (3.0, 25.0), (4.0, 100.0)];
        assert!((rank_correlation(&up).unwrap() - 1.0).abs() < 1e-9);
        let down = [(1.0, 4.0), (2.0, 3.0), (3.0, 2.0)];
        assert!((rank_correlation(&down).unwrap() + 1.0).abs() < 1e-9);
        // Ties share their rank; no variation: nothing to say.
        assert_eq!(
            rank_correlation(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]),
            None
        );
        assert_eq!(rank_correlation(&[(1.0, 1.0), (2.0, 2.0)]), None);
        assert_eq!(
            rank_correlation(&[(1.0, 1.0), (2.0, 2.0), (f64::NAN, 3.0)]),
            None
        );
        assert_eq!(ranks(vec![5.0, 1.0, 5.0]), vec![2.5, 1.0, 2.5]);
    }
}
