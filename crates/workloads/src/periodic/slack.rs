//! Signed slack per period, as rt-app and the governor study count it: slack = deadline − end
//! of the period's work (the study's T2 − T1). A negative slack is a miss; the miss ratio is
//! negative slacks / all slacks. Both signs go into their own high-resolution histogram (one
//! histogram over an offset would lose the resolution of small slacks).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Largest slack or lateness held exactly, ns (100 s); larger ones are clamped.
const MAX_NS: u64 = 100_000_000_000;

#[derive(Debug, Clone)]
pub struct SlackStats {
    /// Slack of periods that ended in time (≥ 0), ns.
    early: Histogram<u64>,
    /// Lateness of periods that ended after their deadline (> 0), ns.
    late: Histogram<u64>,
    sum_ns: f64,
    min_ns: i64,
}

impl Default for SlackStats {
    fn default() -> Self {
        let h = || Histogram::new_with_bounds(1, MAX_NS, 3).expect("valid histogram bounds");
        SlackStats {
            early: h(),
            late: h(),
            sum_ns: 0.0,
            min_ns: i64::MAX,
        }
    }
}

impl SlackStats {
    /// One period's slack, ns (negative: late).
    pub fn record(&mut self, slack_ns: i64) {
        let mag = slack_ns.unsigned_abs().clamp(1, MAX_NS);
        // Within bounds by construction: cannot fail.
        let _ = if slack_ns < 0 {
            self.late.record(mag)
        } else {
            self.early.record(mag)
        };
        self.sum_ns += slack_ns as f64;
        self.min_ns = self.min_ns.min(slack_ns);
    }

    /// Merge another task's slacks (a task set's figure).
    pub fn add(&mut self, o: &SlackStats) {
        // Same bounds on both sides: cannot fail.
        let _ = self.early.add(&o.early);
        let _ = self.late.add(&o.late);
        self.sum_ns += o.sum_ns;
        self.min_ns = self.min_ns.min(o.min_ns);
    }

    pub fn count(&self) -> u64 {
        self.early.len() + self.late.len()
    }

    pub fn negative(&self) -> u64 {
        self.late.len()
    }

    /// Negative slacks / all slacks (the study's miss ratio); None without periods.
    pub fn miss_ratio(&self) -> Option<f64> {
        let n = self.count();
        (n > 0).then(|| self.negative() as f64 / n as f64)
    }

    /// The slack at quantile `q` (0…100) over both signs, ns (nearest rank, as
    /// `truebench_stats::percentile`); None without periods.
    pub fn percentile_ns(&self, q: f64) -> Option<i64> {
        // Rank from the most negative: the late histogram read backwards, then the early one.
        let rank = truebench_stats::nearest_rank(self.count(), q)?;
        let late = self.late.len();
        if rank <= late {
            // The rank-th most negative is the (late − rank + 1)-th smallest lateness.
            let q_late = (late - rank + 1) as f64 / late as f64;
            Some(-(self.late.value_at_quantile(q_late) as i64))
        } else {
            let early = self.early.len();
            let q_early = (rank - late) as f64 / early as f64;
            Some(self.early.value_at_quantile(q_early) as i64)
        }
    }

    pub fn summary(&self) -> SlackSummary {
        let us = |ns: i64| ns as f64 / 1000.0;
        let p = |q| self.percentile_ns(q).map(us);
        SlackSummary {
            periods: self.count(),
            negative: self.negative(),
            miss_ratio: self.miss_ratio(),
            mean_us: (self.count() > 0).then(|| self.sum_ns / self.count() as f64 / 1000.0),
            min_us: (self.count() > 0).then(|| us(self.min_ns)),
            p1_us: p(1.0),
            p50_us: p(50.0),
            p99_us: p(99.0),
        }
    }
}

/// A task's or a task set's slacks, µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlackSummary {
    pub periods: u64,
    pub negative: u64,
    pub miss_ratio: Option<f64>,
    pub mean_us: Option<f64>,
    /// The most negative slack (the worst lateness).
    pub min_us: Option<f64>,
    pub p1_us: Option<f64>,
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn miss_ratio_is_negative_slacks_over_all() {
        let mut s = SlackStats::default();
        assert_eq!(s.miss_ratio(), None);
        for v in [5_000, 3_000, -2_000, 0, -7_000] {
            s.record(v);
        }
        assert_eq!((s.count(), s.negative()), (5, 2));
        assert_eq!(s.miss_ratio(), Some(0.4));
        let m = s.summary();
        assert_eq!(m.min_us, Some(-7.0));
        assert!((m.mean_us.unwrap() - (-0.2)).abs() < 1e-9);
    }

    #[test]
    fn percentiles_run_across_both_signs_in_order() {
        let mut s = SlackStats::default();
        // −100 … −1 µs and 1 … 100 µs: 200 values.
        for v in 1..=100i64 {
            s.record(-v * 1000);
            s.record(v * 1000);
        }
        let near = |got: Option<i64>, want: i64| {
            let g = got.unwrap();
            assert!((g - want).abs() <= want.abs() / 500 + 1, "{g} vs {want}");
        };
        near(s.percentile_ns(0.5), -100_000);
        near(s.percentile_ns(25.0), -51_000);
        near(s.percentile_ns(50.0), -1_000);
        near(s.percentile_ns(50.5), 1_000);
        near(s.percentile_ns(100.0), 100_000);
    }

    #[test]
    fn merged_sets_count_every_task() {
        let mut a = SlackStats::default();
        let mut b = SlackStats::default();
        a.record(1_000);
        b.record(-1_000);
        b.record(-3_000);
        a.add(&b);
        assert_eq!((a.count(), a.negative()), (3, 2));
        assert_eq!(a.summary().min_us, Some(-3.0));
    }
}
