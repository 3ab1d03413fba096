//! Every reading of a power source, with its own time: what a phase's energy is integrated
//! from, however often the sampler samples.
//!
//! The model (also in docs/architecture.md): a reading is a point in time.
//! - An instantaneous source (a meter, hwmon `power*`, volts × amps) gives the power at
//!   that instant; between two readings the power is taken as linear (the trapezoid rule).
//! - A counter (RAPL `energy_uj`, hwmon `energy*`) gives the energy counted up to that
//!   instant (kept as joules since the first reading, wrap-around already handled); between
//!   two readings the counter is taken as linear, i.e. the interval's mean power.
//!
//! A phase's energy is the integral over exactly `[start, end]`, cut at both edges by
//! interpolating between the readings around them. The sampler reads its sources at every
//! phase boundary too, so a step in power at a boundary falls on the right side of it.
//! Before the first and after the last reading of a run of readings, the nearest reading
//! is held for up to one reading interval (a meter read once a second started a moment
//! after the phase). A failed read, or readings further apart than `GAP` intervals, end a
//! run: the time between two runs counts for neither joules nor seconds.

use serde::{Deserialize, Serialize};

/// Readings further apart than this many intervals leave a gap between them.
const GAP: f64 = 3.0;

/// The readings of one power source (`Timeline::power_readings[j]` belongs to
/// `ExtraHeader::power[j]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PowerSeries {
    /// How often the source is read, seconds: the meter's interval, or the sampler's.
    pub interval_s: f64,
    /// Time of each reading, seconds on the timeline's clock, ascending.
    pub t: Vec<f64>,
    /// Watts (instantaneous sources) or joules counted since the first reading (counters);
    /// `None`: the read failed.
    pub value: Vec<Option<f64>>,
}

impl PowerSeries {
    /// No readings yet, read every `interval_s` seconds.
    pub fn new(interval_s: f64) -> PowerSeries {
        PowerSeries {
            interval_s,
            ..Default::default()
        }
    }

    /// Add a reading; one older than the last is dropped (the series stays in time order).
    pub fn push(&mut self, t: f64, value: Option<f64>) {
        if !t.is_finite() || self.t.last().is_some_and(|&l| t < l) {
            return;
        }
        self.t.push(t);
        self.value.push(value.filter(|v| v.is_finite()));
    }

    /// True without a reading.
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// The runs of readings: knots `(t, value)` with the hold at each end added.
    fn runs(&self, counter: bool) -> Vec<Vec<(f64, f64)>> {
        let n = self.t.len().min(self.value.len());
        let h = if self.interval_s.is_finite() && self.interval_s > 0.0 {
            self.interval_s
        } else {
            0.0
        };
        let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut current: Vec<(f64, f64)> = Vec::new();
        let mut lo = f64::NEG_INFINITY;
        let mut close = |run: &mut Vec<(f64, f64)>, lo: f64, hi: f64| {
            if !run.is_empty() {
                runs.push(hold(std::mem::take(run), lo, hi, h, counter));
            }
        };
        for i in 0..n {
            let t = self.t[i];
            match self.value[i] {
                None => {
                    close(&mut current, lo, t);
                    lo = t;
                }
                Some(v) => {
                    if let Some(&(last, _)) = current.last() {
                        if h > 0.0 && t - last > GAP * h {
                            close(&mut current, lo, f64::INFINITY);
                            lo = f64::NEG_INFINITY;
                        }
                    }
                    current.push((t, v));
                }
            }
        }
        close(&mut current, lo, f64::INFINITY);
        runs
    }

    /// Joules and the seconds with a known power in `[a, b]` (None when no reading covers
    /// any of it).
    pub fn energy(&self, a: f64, b: f64, counter: bool) -> Option<(f64, f64)> {
        if !(a.is_finite() && b.is_finite() && b > a) {
            return None;
        }
        let (mut joules, mut seconds) = (0.0, 0.0);
        for run in self.runs(counter) {
            let (x, y) = (run[0].0.max(a), run[run.len() - 1].0.min(b));
            if y <= x {
                continue;
            }
            seconds += y - x;
            joules += if counter {
                at(&run, y) - at(&run, x)
            } else {
                trapezoid(&run, x, y)
            };
        }
        (seconds > 0.0 && joules.is_finite()).then_some((joules, seconds))
    }
}

/// Extend a run by up to `h` on each side (not past `lo`/`hi`, where the neighbouring
/// failed read or gap is): power held, a counter continued at its edge interval's rate (a
/// counter read once says nothing about a rate, so it gets no hold).
fn hold(mut run: Vec<(f64, f64)>, lo: f64, hi: f64, h: f64, counter: bool) -> Vec<(f64, f64)> {
    let (t0, v0) = run[0];
    let (tn, vn) = run[run.len() - 1];
    let slope = |p: (f64, f64), q: (f64, f64)| (q.1 - p.1) / (q.0 - p.0);
    let before = (t0 - h).max(lo);
    let after = (tn + h).min(hi);
    if counter {
        if run.len() < 2 {
            return run;
        }
        let (s0, sn) = (
            slope(run[0], run[1]),
            slope(run[run.len() - 2], run[run.len() - 1]),
        );
        if before < t0 && s0.is_finite() {
            run.insert(0, (before, v0 - s0 * (t0 - before)));
        }
        if after > tn && sn.is_finite() {
            run.push((after, vn + sn * (after - tn)));
        }
    } else {
        if before < t0 {
            run.insert(0, (before, v0));
        }
        if after > tn {
            run.push((after, vn));
        }
    }
    run
}

/// The run's value at `x` (linear between knots; `x` within the run).
fn at(run: &[(f64, f64)], x: f64) -> f64 {
    let i = run.partition_point(|k| k.0 <= x);
    if i == 0 {
        return run[0].1;
    }
    if i >= run.len() {
        return run[run.len() - 1].1;
    }
    let ((t0, v0), (t1, v1)) = (run[i - 1], run[i]);
    if t1 <= t0 {
        return v1;
    }
    v0 + (v1 - v0) * (x - t0) / (t1 - t0)
}

/// ∫ of the run's linear pieces over `[x, y]`.
fn trapezoid(run: &[(f64, f64)], x: f64, y: f64) -> f64 {
    let mut sum = 0.0;
    for w in run.windows(2) {
        let (p, q) = (w[0].0.max(x), w[1].0.min(y));
        if q > p {
            sum += (at(run, p) + at(run, q)) / 2.0 * (q - p);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// A 5 W meter read once a second, starting 0.3 s into the run.
    fn constant_meter() -> PowerSeries {
        let mut s = PowerSeries::new(1.0);
        for i in 0..12 {
            s.push(0.3 + i as f64, Some(5.0));
        }
        s
    }

    #[test]
    fn a_constant_meter_gives_watts_times_duration_for_every_phase_of_two_seconds() {
        let s = constant_meter();
        // Phases of 2 s or more anywhere, including before the first reading (held).
        for (a, b) in [
            (0.0, 2.0),
            (0.05, 2.1),
            (1.5, 3.5),
            (2.0, 10.0),
            (9.4, 11.6),
        ] {
            let (j, secs) = s.energy(a, b, false).unwrap();
            assert!(
                close(j, 5.0 * (b - a), 0.02 * 5.0 * (b - a)),
                "{a}–{b}: {j}"
            );
            assert!(close(secs, b - a, 1e-9), "{a}–{b}: {secs}");
        }
        // Past the hold after the last reading (11.3 s) nothing is known.
        let (_, secs) = s.energy(10.0, 20.0, false).unwrap();
        assert!(close(secs, 2.3, 1e-9), "{secs}");
        assert!(s.energy(13.0, 20.0, false).is_none());
    }

    #[test]
    fn a_step_at_a_boundary_read_there_stays_on_its_side() {
        // 2 W until 10 s (read at the boundary, 10.0), 9 W from then on; readings every 4 s.
        let mut s = PowerSeries::new(4.0);
        for t in [0.0, 4.0, 8.0, 10.0] {
            s.push(t, Some(2.0));
        }
        for t in [10.001, 14.0, 18.0] {
            s.push(t, Some(9.0));
        }
        let (j, secs) = s.energy(8.5, 10.0, false).unwrap();
        assert!(close(j / secs, 2.0, 1e-9), "{j}");
        let (j, secs) = s.energy(10.0, 18.0, false).unwrap();
        assert!(close(j / secs, 9.0, 0.01), "{j}");
    }

    #[test]
    fn counters_difference_at_the_edges_and_extend_at_their_rate() {
        // 10 W counted, read every 2 s from 1 s: joules since the first reading.
        let mut s = PowerSeries::new(2.0);
        for i in 0..6 {
            s.push(1.0 + 2.0 * i as f64, Some(20.0 * i as f64));
        }
        let (j, secs) = s.energy(2.5, 6.0, true).unwrap();
        assert!(close(j, 35.0, 1e-9) && close(secs, 3.5, 1e-9), "{j} {secs}");
        // Held one interval back from 1 s: 0–1 s known at the first interval's rate.
        let (j, secs) = s.energy(0.0, 3.0, true).unwrap();
        assert!(close(j, 30.0, 1e-9) && close(secs, 3.0, 1e-9), "{j} {secs}");
        // One reading alone says nothing about a counter.
        let mut one = PowerSeries::new(1.0);
        one.push(1.0, Some(5.0));
        assert!(one.energy(0.0, 2.0, true).is_none());
    }

    #[test]
    fn failed_reads_and_gaps_are_unknown_time() {
        let mut s = PowerSeries::new(1.0);
        for t in 0..=4 {
            s.push(t as f64, Some(3.0));
        }
        s.push(5.0, None);
        for t in 6..=8 {
            s.push(t as f64, Some(3.0));
        }
        // A gap of 12 s (the meter stalled): held 1 s on each side, the rest unknown.
        for t in 20..=22 {
            s.push(t as f64, Some(3.0));
        }
        let (j, secs) = s.energy(0.0, 22.0, false).unwrap();
        // Known: 0–5 (held on to the failed read at 5), 5–9 (held back to it, on to 9),
        // 19–22 (held back 1 s before 20).
        assert!(close(secs, 5.0 + 4.0 + 3.0, 1e-9), "{secs}");
        assert!(close(j, 3.0 * secs, 1e-9));
        // Out of order, NaN and infinite readings are refused or unknown.
        s.push(1.0, Some(1e300));
        s.push(f64::NAN, Some(1.0));
        s.push(23.0, Some(f64::INFINITY));
        assert_eq!(s.t.len(), 13);
        assert_eq!(s.value[12], None);
        assert!(s.energy(5.0, 5.0, false).is_none());
        assert!(s.energy(f64::NAN, 5.0, false).is_none());
    }
}
