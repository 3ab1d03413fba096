//! Clock drops in the timeline: thermal throttling, or a power limit, a turbo budget or a
//! reported clock that jitters.
//!
//! A *drop*: within a phase, under a load that did not fall, the clock fell ≥ 5 % below the
//! highest seen so far in that phase (comparing with the phase's own peak, not the nominal
//! maximum, keeps x86 turbo — which depends on how many cores are busy — out of it).
//!
//! A drop is blamed on **heat** only with evidence that fits thermal throttling:
//! * the SoC was hot: at or above the hot threshold — the zone's lowest passive/hot trip
//!   minus 10 °C; on x86 without a trip 80 °C (15 below AMD's 95 °C, the lowest common x86
//!   limit; Intel's TjMax is ~100 °C); elsewhere 60 °C (the Pi 3B+ soft limit, the lowest in
//!   use) — and
//! * it got hotter than at the peak by at least [`MIN_RISE_C`] (a 1–2 °C rise is sensor
//!   noise), or sat within 5 °C of a known trip (a governor holds the temperature there), and
//! * the clock does not dip as deep when cool: drops of the same depth below the hot
//!   threshold mean the reported clock jitters at any temperature (intel_pstate's `cur_freq`
//!   is an average of what the hardware chose), so a hot dip proves nothing.
//!
//! Drops without that evidence are named as what they are — a power limit or turbo budget
//! (PL1/PL2, boost timers, firmware) or jitter — as information: the scores show the clock the
//! machine sustains, and cooling would not change it.

use truebench_host::Inventory;

use super::{capped, cluster_label, fmt_sample};
use truebench_model::finding::{Basis, Finding, FindingKind, Severity};
use truebench_model::timeline::{Sample, Timeline};

/// Smallest temperature rise since the clock's peak that counts as "got hotter", °C.
pub const MIN_RISE_C: f64 = 3.0;
/// A drop is this deep at least: the clock at ≤ 95 % of the phase's peak.
const DROP: f64 = 0.95;

/// The temperature the SoC is throttled at, when known, and where that came from.
fn thermal_limit(inv: &Inventory) -> Option<(f64, String)> {
    let chosen = inv.thermal.chosen.as_ref()?;
    let zone = inv
        .thermal
        .zones
        .iter()
        .find(|z| chosen.path.starts_with(&z.path))?;
    zone.trips
        .iter()
        .filter(|t| matches!(t.kind.as_deref(), Some("passive") | Some("hot")))
        .filter_map(|t| t.temp_c)
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.min(t))))
        .map(|t| (t, format!("{}'s lowest passive/hot trip", zone.name)))
}

pub(crate) fn is_x86(inv: &Inventory) -> bool {
    inv.arch.kernel.as_deref().is_some_and(|a| {
        a.starts_with("x86")
            || a == "amd64"
            || (a.len() == 4 && a.starts_with('i') && a.ends_with("86"))
    })
}

/// Temperature from which a drop may be heat, °C, and how it was chosen.
fn hot_threshold(inv: &Inventory, limit: Option<&(f64, String)>) -> (f64, String) {
    match limit {
        Some((t, src)) => (
            (t - 10.0).max(60.0),
            format!("10 °C below {src} ({t:.0} °C)"),
        ),
        None if is_x86(inv) => (
            80.0,
            "no trip point known; 15 °C below the lowest common x86 limit (95 °C)".into(),
        ),
        None => (
            60.0,
            "no trip point known; the lowest soft limit in use (Pi 3B+)".into(),
        ),
    }
}

struct Drop<'a> {
    s: &'a Sample,
    ratio: f64,
    peak_mhz: f64,
    temp: f64,
    peak_temp: f64,
}

/// Drops of one cluster's clock, per phase.
fn drops<'a>(
    segments: &[&'a [Sample]],
    clock: &dyn Fn(&Sample) -> Option<f64>,
    ncpus: f64,
) -> Vec<Drop<'a>> {
    let mut out = Vec::new();
    for seg in segments {
        let mut peak: Option<(f64, f64, f64)> = None; // clock, temp, cpu%
        for s in seg.iter().skip(1) {
            let (Some(f), Some(temp), Some(cpu)) = (clock(s), s.soc_temp_c, s.cpu.map(|c| c.cpu))
            else {
                continue;
            };
            // A Pi capping its clock for under-voltage (bits 0/1) is not heat: the
            // firmware-bit detector reports it.
            if s.rpi
                .and_then(|r| r.throttled)
                .is_some_and(|v| v & 0b11 != 0)
            {
                continue;
            }
            match peak {
                Some((pf, pt, pc)) => {
                    if f <= DROP * pf && cpu >= 0.9 * pc && cpu >= 90.0 / ncpus {
                        out.push(Drop {
                            s,
                            ratio: f / pf,
                            peak_mhz: pf,
                            temp,
                            peak_temp: pt,
                        });
                    }
                    if f > pf {
                        peak = Some((f, temp, cpu));
                    }
                }
                None => peak = Some((f, temp, cpu)),
            }
        }
    }
    out
}

fn line(d: &Drop<'_>) -> String {
    format!(
        "{} — {:.0} MHz vs {:.0} MHz at {:.1}°C earlier",
        fmt_sample(d.s),
        d.ratio * d.peak_mhz,
        d.peak_mhz,
        d.peak_temp
    )
}

/// Timeline drops judged per cluster: thermal throttling (warning, critical when repeated)
/// or a power/turbo limit or jitter (information).
pub fn hot_clock_drops(inv: &Inventory, tl: &Timeline) -> Vec<Finding> {
    let limit = thermal_limit(inv);
    let (hot, hot_why) = hot_threshold(inv, limit.as_ref());
    // The inventory's CPUs, else what the samples saw online (an import without topology).
    let ncpus = match inv.online_cpus().count() {
        0 => tl
            .samples
            .iter()
            .filter_map(|s| s.cpus_online)
            .max()
            .unwrap_or(1),
        n => n as u32,
    }
    .max(1) as f64;
    let segments: Vec<&[Sample]> = if tl.phases.is_empty() {
        vec![&tl.samples[..]]
    } else {
        tl.phases.iter().map(|p| tl.samples_in(p)).collect()
    };
    let nclusters = tl
        .samples
        .iter()
        .map(|s| s.cluster_mhz.len().max(s.measured_mhz.len()))
        .max()
        .unwrap_or(0)
        .max(usize::from(
            tl.samples
                .iter()
                .any(|s| s.rpi.and_then(|r| r.arm_mhz).is_some()),
        ));
    let mut out = Vec::new();
    for c in 0..nclusters {
        let clock = |s: &Sample| -> Option<f64> {
            // The Pi firmware knows the real clock; the kernel's value is what it asked for.
            if c == 0 {
                if let Some(r) = s.rpi.and_then(|r| r.arm_mhz) {
                    return Some(r);
                }
            }
            s.measured_mhz
                .get(c)
                .copied()
                .flatten()
                .or_else(|| s.cluster_mhz.get(c).copied().flatten().map(f64::from))
        };
        let all = drops(&segments, &clock, ncpus);
        if all.is_empty() {
            continue;
        }
        // The deepest dip seen while cool: the clock's own jitter under this load.
        let cool_worst = all
            .iter()
            .filter(|d| d.temp < hot)
            .map(|d| d.ratio)
            .fold(1.0f64, f64::min);
        let thermal: Vec<&Drop> = all
            .iter()
            .filter(|d| d.temp >= hot)
            .filter(|d| {
                d.temp - d.peak_temp >= MIN_RISE_C
                    || limit.as_ref().is_some_and(|(l, _)| d.temp >= l - 5.0)
            })
            .filter(|d| d.ratio < cool_worst - 0.05)
            .collect();
        let who = if inv.clusters.is_empty() {
            format!("cluster {c}")
        } else {
            cluster_label(inv, c)
        };
        if !thermal.is_empty() {
            let worst = thermal.iter().map(|d| d.ratio).fold(1.0f64, f64::min);
            let sev = if thermal.len() >= 2 {
                Severity::Critical
            } else {
                Severity::Warning
            };
            let mut ev = vec![format!("hot threshold {hot:.0} °C: {hot_why}")];
            if cool_worst < 1.0 {
                ev.push(format!(
                    "while cool the clock dipped to {:.0} % at most; these dips are deeper",
                    cool_worst * 100.0
                ));
            }
            ev.extend(capped(thermal.iter().map(|d| line(d)).collect(), 12));
            let mut f = Finding::new(
                FindingKind::Throttling,
                sev,
                format!(
                    "The clock of {who} fell to {:.0} % of its earlier value under the same load while the SoC got hotter (≥ {hot:.0}°C): thermal throttling; improve cooling and run again.",
                    worst * 100.0
                ),
            )
            .with_evidence(ev);
            // Its sample lines show the firmware's clock (a Pi's real one) when there was one.
            if thermal
                .iter()
                .any(|d| d.s.rpi.and_then(|r| r.arm_mhz).is_some())
            {
                f = f.on(Basis::FirmwareClock);
            }
            out.push(f);
            continue;
        }
        let worst = all.iter().map(|d| d.ratio).fold(1.0f64, f64::min);
        let hottest = all.iter().map(|d| d.temp).fold(f64::MIN, f64::max);
        let jitter = all.iter().any(|d| d.temp < hot) && all.iter().any(|d| d.temp >= hot);
        let what = if jitter {
            "the reported clock dips as deep when cool as when hot: it jitters (a power manager's choice or an averaged reading), it is not heat"
        } else {
            "a power limit or turbo budget (or firmware), not heat"
        };
        let mut ev = vec![format!(
            "hottest at a drop {hottest:.1} °C; hot threshold {hot:.0} °C: {hot_why}"
        )];
        ev.extend(capped(all.iter().map(line).collect(), 12));
        out.push(
            Finding::new(
                FindingKind::PowerLimit,
                Severity::Info,
                format!(
                    "The clock of {who} fell to {:.0} % of its peak under the same load at up to {hottest:.0} °C, below the {hot:.0} °C where heat would explain it: {what}. The scores show the clock this machine sustains.",
                    worst * 100.0
                ),
            )
            .with_evidence(ev),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_model::timeline::{CpuPct, TimelineHeader};

    fn inv(arch: &str) -> Inventory {
        let mut inv = Inventory::probe(&truebench_host::Host::new("/nonexistent-root"));
        inv.arch.kernel = Some(arch.into());
        inv
    }

    /// One phase of (MHz, °C) samples at full load on one of four CPUs.
    fn tl(points: &[(u32, f64)]) -> Timeline {
        let mut tl = Timeline::new(TimelineHeader::default());
        for (i, &(mhz, temp)) in points.iter().enumerate() {
            tl.samples.push(Sample {
                t: i as f64 * 5.0 + 1.0,
                cluster_mhz: vec![Some(mhz)],
                soc_temp_c: Some(temp),
                cpu: Some(CpuPct {
                    cpu: 25.0,
                    usr: 25.0,
                    ..Default::default()
                }),
                cpus_online: Some(4),
                ..Default::default()
            });
        }
        tl.begin_phase("7-zip single core benchmark", 0.0, Some(1));
        tl.end_phase(points.len() as f64 * 5.0 + 1.0);
        tl
    }

    #[test]
    fn arm_clock_falling_as_it_heats_is_thermal_throttling() {
        // The Tinkerboard pattern: 1800 MHz at 70 °C, then 1200–1416 MHz at 80+ °C.
        let t = tl(&[
            (1800, 65.0),
            (1800, 70.0),
            (1800, 74.0),
            (1416, 80.0),
            (1200, 84.0),
        ]);
        let f = hot_clock_drops(&inv("armv7l"), &t);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].kind, FindingKind::Throttling);
        assert_eq!(f[0].severity, Severity::Critical);
    }

    #[test]
    fn x86_dip_with_a_small_rise_far_below_the_limit_is_a_power_limit() {
        // i3-N305 pattern: 2600 → 1939 MHz at 69 → 70 °C under all-core load.
        let t = tl(&[
            (3000, 60.0),
            (2600, 69.0),
            (2598, 69.0),
            (1939, 70.0),
            (2036, 70.0),
        ]);
        let f = hot_clock_drops(&inv("x86_64"), &t);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].kind, FindingKind::PowerLimit);
        assert_eq!(f[0].severity, Severity::Info);
        // The same on an ARM board, hot enough and clearly hotter, is heat.
        let t = tl(&[
            (3000, 60.0),
            (2600, 66.0),
            (2598, 66.0),
            (1939, 70.0),
            (2036, 70.0),
        ]);
        let f = hot_clock_drops(&inv("aarch64"), &t);
        assert_eq!(f[0].kind, FindingKind::Throttling, "{f:#?}");
    }

    #[test]
    fn a_one_or_two_degree_rise_is_not_evidence_of_heat() {
        let t = tl(&[(2000, 70.0), (2000, 71.0), (1800, 72.0), (1800, 72.5)]);
        let f = hot_clock_drops(&inv("aarch64"), &t);
        assert!(
            f.iter().all(|f| f.kind == FindingKind::PowerLimit),
            "{f:#?}"
        );
    }

    #[test]
    fn a_clock_that_jitters_as_deep_when_cool_is_not_throttled_when_hot() {
        // intel_pstate's averaged cur_freq: the same 10 % dips at 50 °C and at 92 °C.
        let t = tl(&[
            (3000, 48.0),
            (2700, 50.0),
            (3000, 52.0),
            (2700, 54.0),
            (3000, 86.0),
            (2700, 92.0),
        ]);
        let f = hot_clock_drops(&inv("x86_64"), &t);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].kind, FindingKind::PowerLimit);
        assert!(f[0].message.contains("jitters"), "{}", f[0].message);
    }

    #[test]
    fn x86_at_its_limit_is_thermal_throttling() {
        let t = tl(&[(3000, 70.0), (3000, 84.0), (2500, 95.0), (2300, 99.0)]);
        let f = hot_clock_drops(&inv("x86_64"), &t);
        assert_eq!(f[0].kind, FindingKind::Throttling, "{f:#?}");
    }
}
