//! The energy a result shows: one power source chosen best first, the machine's idle power,
//! and per phase the energy, mean power and power above idle.
//!
//! Best first: an external meter (the whole device at the wall or the USB cable), else an
//! hwmon sensor (a board or SoC rail: INA2xx, INA3221, PMIC), else RAPL (the CPU package:
//! `psys` when the platform zone exists, else the package zones added up). The other sources
//! stay in `Timeline::energy` per phase; the report names them.

use serde::{Deserialize, Serialize};

use super::extra::{PowerKind, PowerSource};
use super::{Phase, Timeline};

/// Score per watt of one phase (`7-zip all cores 9875 MIPS → 1234 MIPS/W`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PerWatt {
    /// What was scored (`7-zip, all cores`).
    pub what: String,
    /// The score, in `score_unit`.
    pub score: f64,
    /// The score's unit (`MIPS`, `MB/s`).
    pub score_unit: String,
    /// score / mean watts (`MIPS/W`; MB/s per W is `MB/J`).
    pub value: f64,
    /// Unit of `value` and `above_idle` (`MIPS/W`, `MB/J`).
    pub unit: String,
    /// score / watts above idle: what the work itself cost; None without idle power or
    /// under 0.05 W above it.
    pub above_idle: Option<f64>,
}

/// One phase with the chosen source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseEnergyRow {
    /// The phase's name.
    pub phase: String,
    /// Position in `Timeline::phases`.
    pub index: usize,
    /// Integrated over the phase (not one reading), J.
    pub joules: f64,
    /// joules / seconds, W.
    pub mean_watts: f64,
    /// Seconds with a known power.
    pub seconds: f64,
    /// mean_watts − idle watts, W; None without idle power.
    pub above_idle_watts: Option<f64>,
    /// (mean_watts − idle watts) × seconds, J; None without idle power.
    pub above_idle_joules: Option<f64>,
    /// The phase's scores per watt (empty when its kind scores none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_watt: Vec<PerWatt>,
}

/// The energy a result shows, from the best power source (see the module).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnergyReport {
    /// The source every figure here comes from (`external meter (--power-cmd …)`,
    /// `ina219 in1×curr1`, `RAPL package-0 + package-1`).
    pub source: String,
    /// How that source is measured.
    pub kind: PowerKind,
    /// `Timeline` power sources added up for it.
    pub parts: Vec<String>,
    /// What that source sees, for a reader of the figures.
    pub covers: String,
    /// Mean power over the last `idle_seconds` of the idle phase, W; None without an idle
    /// phase or enough readings in it (`idle_note` says which).
    pub idle_watts: Option<f64>,
    /// Seconds with a known power in that window (at most the idle window); None as
    /// `idle_watts`.
    pub idle_seconds: Option<f64>,
    /// Why there is no idle power, or what to keep in mind about it; None when nothing.
    pub idle_note: Option<String>,
    /// Every ended phase but the idle one with readings, in the order they ran.
    pub phases: Vec<PhaseEnergyRow>,
    /// The other power sources of the timeline (their joules per phase are in
    /// `Timeline::energy`).
    pub others: Vec<String>,
}

impl EnergyReport {
    /// The first row of phase `phase`.
    pub fn phase(&self, phase: impl crate::PhaseId) -> Option<&PhaseEnergyRow> {
        self.phases.iter().find(|p| phase.is(&p.phase))
    }

    /// The first row of phase `phase`, to change.
    pub fn phase_mut(&mut self, phase: impl crate::PhaseId) -> Option<&mut PhaseEnergyRow> {
        self.phases.iter_mut().find(|p| phase.is(&p.phase))
    }

    /// Add a score per watt to phase `phase` (nothing when the phase has no energy).
    pub fn add_per_watt(
        &mut self,
        phase: impl crate::PhaseId,
        what: &str,
        score: f64,
        score_unit: &str,
    ) {
        let Some(p) = self.phase_mut(phase) else {
            return;
        };
        if !(score.is_finite() && p.mean_watts > 0.0) {
            return;
        }
        let unit = per_watt_unit(score_unit);
        p.per_watt.push(PerWatt {
            what: what.into(),
            score,
            score_unit: score_unit.into(),
            value: score / p.mean_watts,
            unit,
            // Above idle only when the work drew a clear amount over idle (≥ 0.05 W): a
            // difference lost in the meter's noise would give absurd ratios.
            above_idle: p.above_idle_watts.filter(|w| *w >= 0.05).map(|w| score / w),
        });
    }
}

/// The unit of a score per watt: a rate per watt is an amount per joule (MB/s per W = MB/J),
/// anything else is per W (MIPS/W).
pub fn per_watt_unit(score_unit: &str) -> String {
    match score_unit.strip_suffix("/s") {
        Some(amount) => format!("{amount}/J"),
        None => format!("{score_unit}/W"),
    }
}

/// Which timeline sources make the reported one, best first: its name, kind, the indices of
/// the sources summed into it (RAPL packages) and what it covers. The energy report and
/// `power`'s states read the same one.
pub fn best_power_source(power: &[PowerSource]) -> Option<(String, PowerKind, Vec<usize>, String)> {
    let top = |k: &dyn Fn(&PowerSource) -> bool| {
        power
            .iter()
            .enumerate()
            .find(|(_, s)| s.part_of.is_none() && k(s))
    };
    if let Some((i, s)) = top(&|s| s.kind == PowerKind::External) {
        let covers = "everything the external meter measures (the whole device, as wired)";
        return Some((s.name.clone(), s.kind, vec![i], covers.into()));
    }
    let hwmon = |s: &PowerSource| {
        matches!(
            s.kind,
            PowerKind::HwmonPower | PowerKind::HwmonEnergy | PowerKind::HwmonVoltsAmps
        )
    };
    if let Some((i, s)) = top(&hwmon) {
        let covers = "the rail the hwmon sensor measures (a board's input or one supply)";
        return Some((s.name.clone(), s.kind, vec![i], covers.into()));
    }
    if let Some((i, s)) = top(&|s| s.kind == PowerKind::Rapl && s.name.contains("psys")) {
        let covers = "the platform as RAPL estimates it (psys: SoC, memory, chipset)";
        return Some((s.name.clone(), s.kind, vec![i], covers.into()));
    }
    let packages: Vec<usize> = power
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.kind == PowerKind::Rapl && s.part_of.is_none() && !s.name.contains("mmio")
        })
        .map(|(i, _)| i)
        .collect();
    if packages.is_empty() {
        return None;
    }
    let name = packages
        .iter()
        .map(|&i| power[i].name.as_str())
        .collect::<Vec<_>>()
        .join(" + ");
    let covers = "the CPU package(s) as RAPL estimates them: not the board, memory or disks";
    Some((name, PowerKind::Rapl, packages, covers.into()))
}

impl Timeline {
    /// The energy report, or None without any power source. The idle power is the mean
    /// over the last `idle_window_s` of the last ended phase named `idle_phase`.
    pub fn energy_report(
        &self,
        idle_phase: impl crate::PhaseId + std::fmt::Display,
        idle_window_s: f64,
    ) -> Option<EnergyReport> {
        let power = &self.extra_header.power;
        let (source, kind, parts, covers) = best_power_source(power)?;
        let names: Vec<&str> = parts.iter().map(|&i| power[i].name.as_str()).collect();
        // Joules, watts, seconds of the chosen source(s) over `phase`.
        let measure = |phase: &Phase| -> Option<(f64, f64, f64)> {
            let e = self.phase_energy(phase);
            let found: Vec<_> = e
                .iter()
                .filter(|s| names.contains(&s.source.as_str()))
                .collect();
            if found.len() != names.len() {
                return None;
            }
            Some((
                found.iter().map(|s| s.joules).sum(),
                found.iter().map(|s| s.mean_watts).sum(),
                found
                    .iter()
                    .map(|s| s.seconds)
                    .fold(f64::INFINITY, f64::min),
            ))
        };

        let idle = self
            .phases
            .iter()
            .rev()
            .find(|p| idle_phase.is(&p.name) && p.end.is_some());
        let (mut idle_watts, mut idle_seconds, mut idle_note) = (None, None, None);
        match idle {
            None => {
                idle_note = Some(format!(
                    "no idle power: this measurement has no '{idle_phase}' phase"
                ))
            }
            Some(p) => {
                let end = p.end.unwrap_or(p.start);
                let window = Phase {
                    start: p.start.max(end - idle_window_s),
                    ..p.clone()
                };
                // Less than half the window with readings says little about idle power.
                let needed = idle_window_s / 2.0;
                match measure(&window) {
                    Some((_, w, s)) if s >= needed => {
                        idle_watts = Some(w);
                        idle_seconds = Some(s);
                    }
                    Some((_, _, s)) => {
                        idle_note = Some(format!(
                            "no idle power: the idle phase had only {s:.1} s of power readings \
                             ({needed:.1} s needed)"
                        ))
                    }
                    None => {
                        idle_note = Some(format!(
                            "no idle power: {:.1} s idle phase without a power reading",
                            end - p.start
                        ))
                    }
                }
            }
        }

        let mut phases = Vec::new();
        for (index, p) in self.phases.iter().enumerate() {
            if p.end.is_none() || idle_phase.is(&p.name) {
                continue;
            }
            let Some((joules, mean_watts, seconds)) = measure(p) else {
                continue;
            };
            let above = idle_watts.map(|i| mean_watts - i);
            phases.push(PhaseEnergyRow {
                phase: p.name.clone(),
                index,
                joules,
                mean_watts,
                seconds,
                above_idle_watts: above,
                above_idle_joules: above.map(|w| w * seconds),
                per_watt: Vec::new(),
            });
        }
        let others = power
            .iter()
            .filter(|s| !names.contains(&s.name.as_str()))
            .map(|s| match &s.part_of {
                Some(w) => format!("{} (part of {w})", s.name),
                None => s.name.clone(),
            })
            .collect();
        Some(EnergyReport {
            source,
            kind,
            parts: names.iter().map(|s| s.to_string()).collect(),
            covers,
            idle_watts,
            idle_seconds,
            idle_note,
            phases,
            others,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::extra::ExtraSample;
    use super::super::{Sample, TimelineHeader};
    use super::*;

    fn source(name: &str, kind: PowerKind, part_of: Option<&str>) -> PowerSource {
        PowerSource {
            name: name.into(),
            kind,
            files: vec![],
            part_of: part_of.map(str::to_string),
        }
    }

    /// One sample per second for 60 s; every source reads `watts(source, t)`.
    fn timeline(power: Vec<PowerSource>, watts: impl Fn(usize, f64) -> f64) -> Timeline {
        let mut tl = Timeline::new(TimelineHeader::default());
        let n = power.len();
        tl.extra_header.power = power;
        for i in 0..=60 {
            let t = i as f64;
            tl.samples.push(Sample {
                t,
                ..Default::default()
            });
            tl.extra.push(ExtraSample {
                dt_s: 1.0,
                power_w: (0..n).map(|j| (i > 0).then(|| watts(j, t))).collect(),
                ..Default::default()
            });
        }
        tl
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn rapl_packages_are_added_and_idle_comes_from_the_end_of_the_gate() {
        // Two packages (dual socket) with their core zones; idle 0–40 s at 5 W each after a
        // busy start (20 W until 10 s), then 30 W each in 'work' from 40 to 60 s.
        let power = vec![
            source("intel-rapl:0 package-0", PowerKind::Rapl, None),
            source(
                "intel-rapl:0:0 core",
                PowerKind::Rapl,
                Some("intel-rapl:0 package-0"),
            ),
            source("intel-rapl:1 package-1", PowerKind::Rapl, None),
        ];
        let mut tl = timeline(power, |_, t| {
            if t <= 10.0 {
                20.0
            } else if t <= 40.0 {
                5.0
            } else {
                30.0
            }
        });
        tl.begin_phase("idle", 0.0, None);
        tl.begin_phase("work", 40.0, None);
        tl.end_phase(60.0);
        let r = tl.energy_report("idle", 30.0).unwrap();
        assert_eq!(r.source, "intel-rapl:0 package-0 + intel-rapl:1 package-1");
        assert_eq!(r.kind, PowerKind::Rapl);
        assert_eq!(
            r.others,
            vec!["intel-rapl:0:0 core (part of intel-rapl:0 package-0)"]
        );
        // The last 30 s of the gate (10–40 s) only: the busy start is not idle power.
        assert!(close(r.idle_watts.unwrap(), 10.0), "{r:?}");
        assert_eq!(r.phases.len(), 1);
        let w = &r.phases[0];
        assert!(close(w.joules, 2.0 * 30.0 * 20.0) && close(w.mean_watts, 60.0));
        assert!(close(w.above_idle_watts.unwrap(), 50.0));
        assert!(close(w.above_idle_joules.unwrap(), 1000.0));
    }

    #[test]
    fn an_external_meter_wins_and_per_watt_uses_the_mean_and_the_excess() {
        let power = vec![
            source("intel-rapl:0 package-0", PowerKind::Rapl, None),
            source("ina219 in1×curr1", PowerKind::HwmonVoltsAmps, None),
            source("external meter", PowerKind::External, None),
        ];
        let mut tl = timeline(power, |j, t| match (j, t > 30.0) {
            (2, false) => 4.0,
            (2, true) => 8.0,
            _ => 1.0,
        });
        tl.begin_phase("idle", 0.0, None);
        tl.begin_phase("compression-multi", 30.0, None);
        tl.end_phase(60.0);
        let mut r = tl.energy_report("idle", 30.0).unwrap();
        assert_eq!(r.source, "external meter");
        assert_eq!(r.others.len(), 2);
        // Instantaneous readings: the trapezoid between 30 s (4 W) and 31 s (8 W) is in the
        // phase, so its mean is a little under 8 W.
        let p = r.phase("compression-multi").unwrap().clone();
        assert!(close(p.joules, 6.0 + 29.0 * 8.0), "{p:?}");
        assert!(close(r.idle_watts.unwrap(), 4.0));
        r.add_per_watt("compression-multi", "7-zip, all cores", 4000.0, "MIPS");
        r.add_per_watt("compression-multi", "AES-256-CBC 16 KiB", 800.0, "MB/s");
        r.add_per_watt("no such phase", "x", 1.0, "MIPS");
        let pw = &r.phase("compression-multi").unwrap().per_watt;
        assert_eq!(pw.len(), 2);
        assert_eq!(
            (pw[0].unit.as_str(), pw[1].unit.as_str()),
            ("MIPS/W", "MB/J")
        );
        assert!(close(pw[0].value, 4000.0 / p.mean_watts));
        assert!(close(
            pw[0].above_idle.unwrap(),
            4000.0 / (p.mean_watts - 4.0)
        ));
    }

    #[test]
    fn hwmon_beats_rapl_and_a_short_gate_gives_no_idle_power() {
        let power = vec![
            source("intel-rapl:0 package-0", PowerKind::Rapl, None),
            source("intel-rapl:1 psys", PowerKind::Rapl, None),
            source("ina3221 VDD_IN", PowerKind::HwmonPower, None),
        ];
        let mut tl = timeline(power.clone(), |_, _| 3.0);
        tl.begin_phase("idle", 0.0, None);
        tl.begin_phase("work", 1.5, None);
        tl.end_phase(60.0);
        let r = tl.energy_report("idle", 30.0).unwrap();
        assert_eq!(r.source, "ina3221 VDD_IN");
        assert_eq!(r.idle_watts, None);
        assert!(
            r.idle_note.as_deref().unwrap().contains("only 0.5 s"),
            "{r:?}"
        );
        assert_eq!(r.phases[0].above_idle_watts, None);

        // Without hwmon, psys (the platform) beats the package.
        let mut tl = timeline(power[..2].to_vec(), |_, _| 3.0);
        tl.begin_phase("run", 0.0, None);
        tl.end_phase(60.0);
        let r = tl.energy_report("idle", 30.0).unwrap();
        assert_eq!(r.source, "intel-rapl:1 psys");
        assert!(r.idle_note.as_deref().unwrap().contains("no 'idle' phase"));

        // No power source at all: no report.
        let tl = timeline(Vec::new(), |_, _| 0.0);
        assert!(tl.energy_report("idle", 30.0).is_none());
    }
}
