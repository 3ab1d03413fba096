//! Energy per phase: joules and mean watts of every power source over a phase's span.
//!
//! A timeline with `power_readings` integrates each source over all of its own readings
//! (see `series`: exactly the phase's span, whatever the sampling interval). Documents
//! written before those readings were kept fall back to the samples' readings, as follows.
//! Counter sources (RAPL, hwmon `energy*`) store each interval's mean power, so a phase gets
//! the counters' difference: whole intervals inside it, and the overlapping share of the two
//! intervals its start and end fall into (the counter is only read at samples; within an
//! interval the power is taken as constant). Instantaneous sources (hwmon `power*`, V×A) are
//! integrated with the trapezoid rule between consecutive readings, cut at the phase's edges
//! by linear interpolation. Time without a reading on both sides of it counts for neither
//! joules nor seconds, so `mean_watts` stays the mean over what was measured.

use super::extra::{PhaseEnergy, SourceEnergy};
use super::{Phase, PowerSeries, Timeline};

/// Length of `[x0, x1] ∩ [a, b]`.
fn overlap(x0: f64, x1: f64, a: f64, b: f64) -> f64 {
    (x1.min(b) - x0.max(a)).max(0.0)
}

impl Timeline {
    /// Joules and mean watts of each power source over `phase` (sources with no reading in
    /// it are left out). An open phase ends at the last sample (or reading).
    pub fn phase_energy(&self, phase: &Phase) -> Vec<SourceEnergy> {
        let n = self.samples.len().min(self.extra.len());
        let last_reading = self
            .power_readings
            .iter()
            .filter_map(|s| s.t.last().copied())
            .fold(f64::NEG_INFINITY, f64::max);
        let last_t = self.samples[..n].last().map_or(last_reading, |s| s.t);
        if n == 0 && self.power_readings.iter().all(PowerSeries::is_empty) {
            return Vec::new();
        }
        let a = phase.start;
        let b = phase.end.unwrap_or(last_t);
        // NaN bounds (a corrupt document) or an empty span: nothing to integrate.
        if a.is_nan() || b.is_nan() || b <= a {
            return Vec::new();
        }
        let t = |i: usize| self.samples[i].t;
        let mut out = Vec::new();
        for (j, src) in self.extra_header.power.iter().enumerate() {
            if let Some(series) = self.power_readings.get(j).filter(|s| !s.is_empty()) {
                if let Some((joules, seconds)) = series.energy(a, b, src.kind.is_counter()) {
                    out.push(SourceEnergy {
                        source: src.name.clone(),
                        joules,
                        mean_watts: joules / seconds,
                        seconds,
                    });
                }
                continue;
            }
            let p = |i: usize| self.extra[i].power_w.get(j).copied().flatten();
            let (mut joules, mut seconds) = (0.0, 0.0);
            let first = self.samples[..n].partition_point(|s| s.t <= a);
            if src.kind.is_counter() {
                // Interval i is (t_i - dt_i, t_i]; the first one ending after `a` may start
                // before it.
                for i in first..n {
                    let start = t(i) - self.extra[i].dt_s;
                    if start >= b {
                        break;
                    }
                    if let Some(w) = p(i) {
                        let ov = overlap(start, t(i), a, b);
                        joules += w * ov;
                        seconds += ov;
                    }
                }
            } else {
                for i in first.max(1)..n {
                    let (t0, t1) = (t(i - 1), t(i));
                    if t0 >= b {
                        break;
                    }
                    let (Some(p0), Some(p1)) = (p(i - 1), p(i)) else {
                        continue;
                    };
                    let (x, y) = (t0.max(a), t1.min(b));
                    if y <= x || t1 <= t0 {
                        continue;
                    }
                    let at = |x: f64| p0 + (p1 - p0) * (x - t0) / (t1 - t0);
                    joules += (at(x) + at(y)) / 2.0 * (y - x);
                    seconds += y - x;
                }
            }
            if seconds > 0.0 && joules.is_finite() {
                out.push(SourceEnergy {
                    source: src.name.clone(),
                    joules,
                    mean_watts: joules / seconds,
                    seconds,
                });
            }
        }
        out
    }

    /// Compute `energy` for every phase that has ended (done when sampling stops).
    pub fn fill_energy(&mut self) {
        self.energy = self
            .phases
            .iter()
            .enumerate()
            .filter(|(_, p)| p.end.is_some())
            .map(|(index, p)| PhaseEnergy {
                phase: p.name.clone(),
                index,
                sources: self.phase_energy(p),
            })
            .filter(|e| !e.sources.is_empty())
            .collect();
    }

    /// The energy of the phase at `index` of `phases`, once `fill_energy` ran.
    pub fn energy_of(&self, index: usize) -> Option<&PhaseEnergy> {
        self.energy.iter().find(|e| e.index == index)
    }
}

#[cfg(test)]
mod tests {
    use super::super::extra::{ExtraSample, PowerKind, PowerSource};
    use super::super::{Sample, TimelineHeader};
    use super::*;

    fn source(name: &str, kind: PowerKind) -> PowerSource {
        PowerSource {
            name: name.into(),
            kind,
            files: vec![],
            part_of: None,
        }
    }

    /// Samples at t = 0, 1, …, 10 s; `rapl` a counter at 10 W (interval means), `ina` an
    /// instantaneous reading ramping as t W, with one missing reading at t = 8.
    fn timeline() -> Timeline {
        let mut tl = Timeline::new(TimelineHeader::default());
        tl.extra_header.power = vec![
            source("rapl", PowerKind::Rapl),
            source("ina", PowerKind::HwmonPower),
        ];
        for i in 0..=10 {
            let t = i as f64;
            tl.samples.push(Sample {
                t,
                ..Default::default()
            });
            tl.extra.push(ExtraSample {
                dt_s: 1.0,
                power_w: vec![(i > 0).then_some(10.0), (i != 8).then_some(t)],
                ..Default::default()
            });
        }
        tl
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn counters_and_trapezoids_cut_at_the_phase_edges() {
        let mut tl = timeline();
        tl.begin_phase("a", 2.5, None);
        tl.begin_phase("b", 6.0, None);
        tl.end_phase(9.5);
        let a = tl.phase_energy(&tl.phases[0].clone());
        // Counter: 10 W over [2.5, 6] = 35 J; ramp: ∫ t dt from 2.5 to 6 = (36 - 6.25) / 2.
        assert!(
            close(a[0].joules, 35.0) && close(a[0].seconds, 3.5),
            "{a:?}"
        );
        assert!(close(a[0].mean_watts, 10.0));
        assert!(close(a[1].joules, (36.0 - 6.25) / 2.0), "{a:?}");
        // Phase b: the ramp misses t = 8, so [7, 9] is unknown: [6, 7] and [9, 9.5] remain.
        let b = tl.phase_energy(&tl.phases[1].clone());
        assert!(close(b[0].joules, 35.0));
        assert!(close(b[1].seconds, 1.5), "{b:?}");
        // ∫ t dt over [6, 7] and [9, 9.5].
        assert!(close(b[1].joules, 6.5 + 4.625), "{b:?}");
        tl.fill_energy();
        assert_eq!(tl.energy.len(), 2);
        assert_eq!(tl.energy_of(1).unwrap().phase, "b");
    }

    #[test]
    fn phases_outside_the_samples_or_without_power_have_none() {
        let mut tl = timeline();
        tl.begin_phase("later", 20.0, None);
        tl.end_phase(30.0);
        assert!(tl.phase_energy(&tl.phases[0].clone()).is_empty());
        // Before the first sample, the counter's first interval (−1, 0] had no reading.
        tl.begin_phase("before", -5.0, None);
        tl.end_phase(0.0);
        assert!(tl.phase_energy(&tl.phases[1].clone()).is_empty());
        let empty = Timeline::new(TimelineHeader::default());
        assert!(empty.phase_energy(&tl.phases[0].clone()).is_empty());
        tl.fill_energy();
        assert!(tl.energy.is_empty());
    }
}
