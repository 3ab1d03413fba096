//! The definitions held over generated lists: what each statistic must be whatever the data.

use proptest::prelude::*;
use truebench_stats::{
    mean, median, nearest_rank, percentile, range, rank_correlation, sample_sd, spread_pct,
    weighted_percentile, Moments, Sorted,
};

/// Finite values of every sign and size, with repeats likely (ties are where definitions
/// differ).
fn values() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![
            3 => -1e6f64..1e6,
            1 => (-5i32..5).prop_map(f64::from),
        ],
        0..60,
    )
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(*x), b.max(*x))
        })
}

proptest! {
    #[test]
    fn median_lies_between_min_and_max(v in values()) {
        match median(&v) {
            None => prop_assert!(v.is_empty()),
            Some(m) => {
                let (lo, hi) = min_max(&v);
                prop_assert!(lo <= m && m <= hi, "{m} outside {lo}..{hi}");
            }
        }
    }

    #[test]
    fn median_ignores_order_and_nan(v in values(), at in any::<prop::sample::Index>()) {
        let mut r = v.clone();
        r.reverse();
        prop_assert_eq!(median(&r), median(&v));
        let mut with_nan = v.clone();
        with_nan.insert(at.index(v.len() + 1), f64::NAN);
        prop_assert_eq!(median(&with_nan), median(&v));
    }

    #[test]
    fn median_splits_the_values_in_halves(v in values()) {
        if let Some(m) = median(&v) {
            let below = v.iter().filter(|x| **x < m).count();
            let above = v.iter().filter(|x| **x > m).count();
            prop_assert!(below <= v.len() / 2 && above <= v.len() / 2);
        }
    }

    #[test]
    fn integer_median_is_the_real_median_rounded_down(v in prop::collection::vec(0u64..1 << 40, 0..40)) {
        let real = median(&v.iter().map(|x| *x as f64).collect::<Vec<_>>());
        prop_assert_eq!(median(&v), real.map(|m| m.floor() as u64));
    }

    #[test]
    fn percentile_is_monotone_in_p_and_a_measured_value(v in values(), p in 0.0f64..100.0, q in 0.0f64..100.0) {
        let (lo, hi) = if p <= q { (p, q) } else { (q, p) };
        match (percentile(&v, lo), percentile(&v, hi)) {
            (Some(a), Some(b)) => {
                prop_assert!(a <= b, "p{lo} = {a} > p{hi} = {b}");
                prop_assert!(v.contains(&a) && v.contains(&b));
            }
            (None, None) => prop_assert!(v.is_empty()),
            other => prop_assert!(false, "{other:?}"),
        }
    }

    #[test]
    fn percentile_is_the_nearest_rank(v in values(), p in 0.0f64..=100.0) {
        if let Some(x) = percentile(&v, p) {
            let n = v.len() as f64;
            // At least p % at or below it, fewer below it (else a smaller value would do).
            let at_or_below = v.iter().filter(|y| **y <= x).count() as f64;
            let below = v.iter().filter(|y| **y < x).count() as f64;
            prop_assert!(at_or_below >= p / 100.0 * n - 1e-9);
            prop_assert!(below == 0.0 || below < p / 100.0 * n - 1e-9);
            let (lo, hi) = min_max(&v);
            prop_assert_eq!(percentile(&v, 0.0), Some(lo));
            prop_assert_eq!(percentile(&v, 100.0), Some(hi));
            let rank = nearest_rank(v.len() as u64, p).unwrap() as usize;
            prop_assert_eq!(Sorted::new(v.iter().copied()).as_slice()[rank - 1], x);
        }
    }

    #[test]
    fn unit_weights_give_the_plain_percentile(v in values(), p in 0.0f64..=100.0) {
        let pairs: Vec<(f64, f64)> = v.iter().map(|x| (*x, 1.0)).collect();
        prop_assert_eq!(weighted_percentile(&pairs, p), percentile(&v, p));
        // Doubling every weight changes no share.
        let doubled: Vec<(f64, f64)> = v.iter().map(|x| (*x, 2.0)).collect();
        prop_assert_eq!(weighted_percentile(&doubled, p), percentile(&v, p));
    }

    #[test]
    fn range_and_spread_agree(v in values()) {
        match range(&v) {
            None => prop_assert!(v.len() < 2),
            Some(r) => {
                let (lo, hi) = min_max(&v);
                prop_assert_eq!(r, hi - lo);
                match spread_pct(&v) {
                    Some(s) => prop_assert!((s - r / median(&v).unwrap() * 100.0).abs() <= 1e-9 * s.abs()),
                    None => prop_assert!(median(&v).unwrap() <= 0.0),
                }
            }
        }
    }

    #[test]
    fn sd_is_shift_invariant_and_running_equals_the_list(v in values(), shift in -1e3f64..1e3) {
        let Some(sd) = sample_sd(&v) else {
            prop_assert!(v.len() < 2);
            return Ok(());
        };
        prop_assert!(sd >= 0.0);
        let shifted: Vec<f64> = v.iter().map(|x| x + shift).collect();
        let tol = 1e-6 * (1.0 + sd);
        prop_assert!((sample_sd(&shifted).unwrap() - sd).abs() <= tol);
        // The running update against the two-pass textbook formula.
        let n = v.len() as f64;
        let mu = v.iter().sum::<f64>() / n;
        let two_pass = (v.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>() / (n - 1.0)).sqrt();
        prop_assert!((sd - two_pass).abs() <= tol, "{sd} vs {two_pass}");
        let mut m = Moments::default();
        v.iter().for_each(|x| m.push(*x));
        prop_assert_eq!(m.count(), v.len() as u64);
        let (lo, hi) = min_max(&v);
        let mu = mean(v.iter().copied()).unwrap();
        prop_assert!(lo - 1e-6 <= mu && mu <= hi + 1e-6);
    }

    #[test]
    fn rank_correlation_is_bounded_and_symmetric(
        pairs in prop::collection::vec((-100i32..100, -100i32..100), 0..30)
    ) {
        let p: Vec<(f64, f64)> = pairs.iter().map(|(a, b)| (f64::from(*a), f64::from(*b))).collect();
        let swapped: Vec<(f64, f64)> = p.iter().map(|(a, b)| (*b, *a)).collect();
        let r = rank_correlation(&p);
        if let Some(r) = r {
            prop_assert!((-1.0 - 1e-9..=1.0 + 1e-9).contains(&r), "{r}");
        }
        prop_assert_eq!(r, rank_correlation(&swapped));
    }
}
