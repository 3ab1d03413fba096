//! The thermal test's figures from the timeline of its load phase (pure: tested on built
//! timelines): temperatures, and per cluster the clock at the start and the end, its lowest,
//! and when, at what temperature, it first fell below the clock the load started at.

use truebench_host::Inventory;
use truebench_model::thermal::{ClockLoss, ScorePoint, ThermalCluster};
use truebench_monitor::{Phase, Sample};
use truebench_stats::mean;

/// A sample this far below the starting clock counts as a lost clock (one OPP step on the
/// boards with the finest tables is ~4 %; 2 % keeps reporting jitter out).
const LOSS: f64 = 0.98;
/// The starting clock is the highest in this much of the load's beginning (a governor needs a
/// moment to raise it).
const START_WINDOW_S: f64 = 5.0;

/// (start, max, end) SoC temperature over `samples`.
pub fn temperatures(samples: &[Sample]) -> (Option<f64>, Option<f64>, Option<f64>) {
    let temps = || samples.iter().filter_map(|s| s.soc_temp_c);
    (
        temps().next(),
        temps().reduce(f64::max),
        temps().next_back(),
    )
}

/// Last score against the first, %.
pub fn change_pct(scores: &[ScorePoint]) -> Option<f64> {
    let (a, b) = (scores.first()?, scores.last()?);
    (scores.len() > 1 && a.score > 0.0).then(|| (b.score - a.score) / a.score * 100.0)
}

/// Per cluster over the load phase `p` whose samples are `samples`.
pub fn clusters(inv: &Inventory, p: &Phase, samples: &[Sample]) -> Vec<ThermalCluster> {
    let end = p
        .end
        .unwrap_or_else(|| samples.last().map_or(p.start, |s| s.t));
    inv.clusters
        .iter()
        .map(|c| {
            let mhz = |s: &Sample| s.cluster_mhz.get(c.id).copied().flatten().map(f64::from);
            let within = |a: f64, b: f64| {
                samples
                    .iter()
                    .filter(move |s| s.t >= a && s.t < b)
                    .filter_map(mhz)
            };
            let first_minute_mhz = mean(within(p.start, p.start + 60.0));
            let last_minute_mhz = mean(within(end - 60.0, end + 1e-9));
            let min_mhz = samples.iter().filter_map(mhz).reduce(f64::min);
            let window = START_WINDOW_S.max((end - p.start) * 0.1);
            let top = within(p.start, p.start + window).reduce(f64::max);
            // Only after the clock first reached its top: a governor still raising it at the
            // start of the load is no lost clock.
            let first_loss = top.and_then(|top| {
                let reached = samples
                    .iter()
                    .position(|s| mhz(s).is_some_and(|m| m >= top * LOSS))?;
                samples[reached..]
                    .iter()
                    .find_map(|s| mhz(s).filter(|m| *m < top * LOSS).map(|m| (s, m)))
                    .map(|(s, m)| ClockLoss {
                        t_s: s.t - p.start,
                        temp_c: s.soc_temp_c,
                        from_mhz: top,
                        to_mhz: m,
                    })
            });
            ThermalCluster {
                cluster: c.id,
                cpus: c.cpu_range(),
                core_type: c.core_type.clone(),
                max_mhz: c.scaling_max_mhz.or(c.max_mhz).map(f64::from),
                first_minute_mhz,
                last_minute_mhz,
                min_mhz,
                measured_mhz: mean(
                    samples
                        .iter()
                        .filter_map(|s| s.measured_mhz.get(c.id).copied().flatten()),
                ),
                first_loss,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_host::Host;

    /// A sample every 2 s for 300 s: the big cluster (1) at 2400 MHz until the SoC passes
    /// 80 °C at 120 s, then 2208 and later 1800; the little one (0) stays at 1800.
    fn load() -> (Phase, Vec<Sample>) {
        let samples: Vec<Sample> = (0..=150)
            .map(|i| {
                let t = 100.0 + 2.0 * i as f64;
                let since = t - 100.0;
                let temp = 45.0 + since * (35.0 / 120.0);
                let big = if since < 120.0 {
                    2400
                } else if since < 200.0 {
                    2208
                } else {
                    1800
                };
                Sample {
                    t,
                    soc_temp_c: Some(temp.min(85.0)),
                    cluster_mhz: vec![Some(1800), Some(big)],
                    ..Default::default()
                }
            })
            .collect();
        let p = Phase {
            name: "load".into(),
            start: 100.0,
            end: Some(400.0),
            threads: Some(8),
            kernel_work: false,
        };
        (p, samples)
    }

    #[test]
    fn the_big_cluster_first_loses_clock_where_the_soc_passes_80_degrees() {
        let root = truebench_fixtures::root("rk3588-rock5b");
        let inv = Inventory::probe(&Host::new(root.path()));
        let (p, samples) = load();
        let c = clusters(&inv, &p, &samples);
        assert_eq!(c.len(), 3, "{c:#?}");
        let little = &c[0];
        assert_eq!(little.first_loss, None);
        assert_eq!(little.first_minute_mhz, Some(1800.0));
        let big = &c[1];
        let loss = big.first_loss.as_ref().unwrap();
        assert_eq!(
            (loss.t_s, loss.from_mhz, loss.to_mhz),
            (120.0, 2400.0, 2208.0)
        );
        assert!((loss.temp_c.unwrap() - 80.0).abs() < 1e-9);
        assert_eq!(big.first_minute_mhz, Some(2400.0));
        assert_eq!(big.last_minute_mhz, Some(1800.0));
        assert_eq!(big.min_mhz, Some(1800.0));
        // The third cluster has no clock in these samples: nothing invented.
        assert_eq!(c[2].first_loss, None);
        assert_eq!(c[2].first_minute_mhz, None);

        let (a, m, e) = temperatures(&samples);
        assert_eq!((a, m, e), (Some(45.0), Some(85.0), Some(85.0)));
    }

    #[test]
    fn a_governor_raising_the_clock_at_the_start_is_no_lost_clock() {
        let root = truebench_fixtures::root("rk3588-rock5b");
        let inv = Inventory::probe(&Host::new(root.path()));
        let (p, mut samples) = load();
        // ondemand: the first two samples still at the idle clock.
        for s in &mut samples[..2] {
            s.cluster_mhz[1] = Some(408);
        }
        let c = clusters(&inv, &p, &samples);
        let loss = c[1].first_loss.as_ref().unwrap();
        assert_eq!((loss.t_s, loss.to_mhz), (120.0, 2208.0));
        assert_eq!(c[1].min_mhz, Some(408.0));
    }

    #[test]
    fn scores_change_from_first_to_last() {
        let s = |score| ScorePoint {
            start_s: 0.0,
            end_s: 1.0,
            score,
        };
        assert_eq!(change_pct(&[s(10.0), s(9.0), s(8.0)]), Some(-20.0));
        assert_eq!(change_pct(&[s(10.0)]), None);
        assert_eq!(change_pct(&[]), None);
    }
}
