//! Per-task statistics of the periodic engine: wake-up latencies in a high-resolution
//! histogram plus exact running moments, deadlines met and missed, work done and dropped.
//!
//! The standard deviation is the sample standard deviation (`truebench_stats::Moments`:
//! Welford's running update, exact for any number of samples). interbench computes `(Σx² − mean²/n) / (n − 1)`, which is
//! ≈ Σx²/(n−1): the root mean square, not the spread; [`PeriodStats::interbench_sd_ns`]
//! reproduces it for side-by-side comparisons.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use truebench_stats::Moments;

/// Largest latency the histogram holds exactly, ns (100 s); larger ones are clamped to it and
/// counted in `clamped`.
const MAX_NS: u64 = 100_000_000_000;

/// What one task saw over a run. Recording allocates nothing.
#[derive(Debug, Clone)]
pub struct PeriodStats {
    hist: Histogram<u64>,
    moments: Moments,
    sum_sq: f64,
    max_ns: u64,
    clamped: u64,
    pub deadlines_met: u64,
    pub deadlines_missed: u64,
    /// Periods whose work was done, and periods dropped (whole intervals missed).
    pub work_done: u64,
    pub work_dropped: u64,
    /// Σ slack of the periods that met their deadline, ns (for the mean slack).
    slack_sum_ns: f64,
}

impl Default for PeriodStats {
    fn default() -> Self {
        PeriodStats {
            // 3 significant digits from 1 ns to 100 s.
            hist: Histogram::new_with_bounds(1, MAX_NS, 3).expect("valid histogram bounds"),
            moments: Moments::default(),
            sum_sq: 0.0,
            max_ns: 0,
            clamped: 0,
            deadlines_met: 0,
            deadlines_missed: 0,
            work_done: 0,
            work_dropped: 0,
            slack_sum_ns: 0.0,
        }
    }
}

impl PeriodStats {
    /// One latency sample, ns.
    pub fn latency(&mut self, ns: u64) {
        let v = ns.clamp(1, MAX_NS);
        if ns > MAX_NS {
            self.clamped += 1;
        }
        // Within bounds by construction: cannot fail.
        let _ = self.hist.record(v);
        let x = ns as f64;
        self.moments.push(x);
        self.sum_sq += x * x;
        self.max_ns = self.max_ns.max(ns);
    }

    /// A period that ended `slack_ns` before its deadline.
    pub fn met(&mut self, slack_ns: u64) {
        self.deadlines_met += 1;
        self.slack_sum_ns += slack_ns as f64;
    }

    /// `intervals` whole deadlines missed; `dropped` of them without doing the work.
    pub fn missed(&mut self, intervals: u64, dropped: u64) {
        self.deadlines_missed += intervals;
        self.work_dropped += dropped;
    }

    pub fn samples(&self) -> u64 {
        self.moments.count()
    }
    /// Mean latency, ns; 0 without samples.
    pub fn mean_ns(&self) -> f64 {
        self.moments.mean().unwrap_or(0.0)
    }
    /// Sample standard deviation (n − 1), ns; 0 below two samples.
    pub fn sd_ns(&self) -> f64 {
        self.moments.sample_sd().unwrap_or(0.0)
    }
    /// interbench's figure: `sqrt((Σx² − mean²/n) / (n − 1))`, ≈ the root mean square.
    pub fn interbench_sd_ns(&self) -> f64 {
        let n = self.samples();
        if n < 2 {
            return 0.0;
        }
        let (n, mean) = (n as f64, self.mean_ns());
        ((self.sum_sq - mean * mean / n) / (n - 1.0))
            .max(0.0)
            .sqrt()
    }
    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }
    /// The latency at `q` (0…100), ns; 0 without samples. Nearest rank (hdrhistogram's
    /// definition, the same as `truebench_stats::percentile`), read as the highest value of
    /// its bucket (3 significant digits).
    pub fn percentile_ns(&self, q: f64) -> u64 {
        if self.samples() == 0 {
            0
        } else {
            self.hist.value_at_quantile(q / 100.0)
        }
    }
    /// Samples above the histogram's 100 s range (recorded as 100 s).
    pub fn clamped(&self) -> u64 {
        self.clamped
    }
    /// interbench's "% desired CPU": work done of the work wanted.
    pub fn desired_cpu_pct(&self) -> f64 {
        let all = self.work_done + self.work_dropped;
        if all == 0 {
            0.0
        } else {
            self.work_done as f64 / all as f64 * 100.0
        }
    }
    /// "% deadlines met".
    pub fn deadlines_met_pct(&self) -> f64 {
        let all = self.deadlines_met + self.deadlines_missed;
        if all == 0 {
            0.0
        } else {
            self.deadlines_met as f64 / all as f64 * 100.0
        }
    }
    pub fn mean_slack_ns(&self) -> f64 {
        if self.deadlines_met == 0 {
            0.0
        } else {
            self.slack_sum_ns / self.deadlines_met as f64
        }
    }

    /// The figures a result keeps.
    pub fn summary(&self) -> LatencySummary {
        let us = |ns: f64| ns / 1000.0;
        LatencySummary {
            samples: self.samples(),
            mean_us: us(self.mean_ns()),
            sd_us: us(self.sd_ns()),
            interbench_sd_us: us(self.interbench_sd_ns()),
            max_us: us(self.max_ns as f64),
            p50_us: us(self.percentile_ns(50.0) as f64),
            p99_us: us(self.percentile_ns(99.0) as f64),
            p999_us: us(self.percentile_ns(99.9) as f64),
            desired_cpu_pct: self.desired_cpu_pct(),
            deadlines_met_pct: (self.deadlines_met + self.deadlines_missed > 0)
                .then(|| self.deadlines_met_pct()),
            deadlines_met: self.deadlines_met,
            deadlines_missed: self.deadlines_missed,
            work_done: self.work_done,
            work_dropped: self.work_dropped,
            mean_slack_us: us(self.mean_slack_ns()),
        }
    }
}

/// One task's figures, µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub samples: u64,
    pub mean_us: f64,
    /// Sample standard deviation.
    pub sd_us: f64,
    /// interbench's "SD" (≈ RMS), for comparison with its tables.
    pub interbench_sd_us: f64,
    pub max_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub desired_cpu_pct: f64,
    /// None for a task without deadlines (Gaming).
    pub deadlines_met_pct: Option<f64>,
    pub deadlines_met: u64,
    pub deadlines_missed: u64,
    pub work_done: u64,
    pub work_dropped: u64,
    pub mean_slack_us: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream from a known distribution.
    struct Lcg(u64);
    impl Lcg {
        fn next_f64(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn constant_latency_has_no_spread_but_interbench_reports_its_size() {
        let mut s = PeriodStats::default();
        for _ in 0..1000 {
            s.latency(500_000);
        }
        assert_eq!(s.mean_ns(), 500_000.0);
        assert!(s.sd_ns() < 1e-6, "{}", s.sd_ns());
        // interbench's table shows "0.5 +/- 0.5" for such a task.
        let ib = s.interbench_sd_ns();
        assert!((ib - 500_250.0).abs() < 1_000.0, "{ib}");
        assert_eq!(s.max_ns(), 500_000);
        assert_eq!(s.percentile_ns(50.0), s.percentile_ns(99.9));
    }

    #[test]
    fn uniform_distribution_moments_and_percentiles() {
        // U(0, 1 ms): mean 500 µs, SD 1000/sqrt(12) = 288.7 µs, p99 990 µs.
        let mut r = Lcg(7);
        let mut s = PeriodStats::default();
        for _ in 0..200_000 {
            s.latency((r.next_f64() * 1_000_000.0) as u64);
        }
        assert!((s.mean_ns() - 500_000.0).abs() < 3_000.0, "{}", s.mean_ns());
        assert!((s.sd_ns() - 288_675.0).abs() < 2_000.0, "{}", s.sd_ns());
        let p99 = s.percentile_ns(99.0) as f64;
        assert!((p99 - 990_000.0).abs() < 2_000.0, "{p99}");
        let p50 = s.percentile_ns(50.0) as f64;
        assert!((p50 - 500_000.0).abs() < 3_000.0, "{p50}");
    }

    #[test]
    fn exponential_distribution_tail() {
        // Exp(mean 100 µs): SD = mean, p99 = 100·ln(100) = 460.5 µs, p99.9 = 690.8 µs.
        let mut r = Lcg(11);
        let mut s = PeriodStats::default();
        for _ in 0..400_000 {
            let u = r.next_f64().max(1e-12);
            s.latency((-u.ln() * 100_000.0) as u64);
        }
        assert!((s.mean_ns() - 100_000.0).abs() < 1_500.0, "{}", s.mean_ns());
        assert!((s.sd_ns() - 100_000.0).abs() < 2_000.0, "{}", s.sd_ns());
        let p99 = s.percentile_ns(99.0) as f64;
        assert!((p99 - 460_517.0).abs() < 10_000.0, "{p99}");
        let p999 = s.percentile_ns(99.9) as f64;
        assert!((p999 - 690_776.0).abs() < 30_000.0, "{p999}");
    }

    #[test]
    fn deadlines_and_work_shares() {
        let mut s = PeriodStats::default();
        for _ in 0..96 {
            s.met(10_000);
            s.work_done += 1;
        }
        // Two late completions (work done, deadline missed) and two whole intervals
        // dropped before the work could start.
        s.work_done += 2;
        s.missed(2, 0);
        s.missed(2, 2);
        assert_eq!(s.deadlines_met_pct(), 96.0);
        assert!((s.desired_cpu_pct() - 98.0).abs() < 1e-9);
        assert_eq!(s.mean_slack_ns(), 10_000.0);
        let sum = s.summary();
        assert_eq!(sum.deadlines_met_pct, Some(96.0));
        assert_eq!(sum.work_dropped, 2);
    }

    #[test]
    fn huge_latencies_are_clamped_and_counted_not_lost() {
        let mut s = PeriodStats::default();
        s.latency(200_000_000_000);
        s.latency(0);
        assert_eq!(s.samples(), 2);
        assert_eq!(s.clamped(), 1);
        assert_eq!(s.max_ns(), 200_000_000_000);
    }
}
