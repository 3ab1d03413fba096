//! `truebench efficiency` (sbc-bench's `-g`, Efficiency_Graphing, with its flaws fixed): for
//! each cluster — the others held at their lowest clock — every OPP from the lowest up: set
//! it (the userspace governor, or scaling_min_freq = scaling_max_freq where there is none,
//! e.g. intel_pstate), measure the real clock, and for each of N runs cool the SoC to the
//! same start temperature first, then run the same work with its energy integrated over the
//! run (each run is its own phase, so its energy is the integral of every reading in it, not
//! one sample taken after it). Any CPU or policy number works (sbc-bench's single digits
//! broke above 9). Every setting goes back at the end, also after Ctrl-C or a kill.

pub mod kernels;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use truebench_host::inventory::Cluster;
use truebench_host::{Host, Inventory};
use truebench_model::efficiency::{EfficiencyCluster, OppMethod, OppPoint, OppRun, OppRunPhase};
use truebench_model::finding::FindingKind;
use truebench_model::{EfficiencyBody, EfficiencyResult, PhaseStatus, RowEvidence};
use truebench_stats::median;

use crate::idle::{self, IdleConfig};
use crate::progress::Event;
use crate::session::{self, Finish, Outcome, Session, SessionOptions};
pub use kernels::{EfficiencyKernels, LiveKernels, WorkScore};

#[derive(Debug, Clone)]
pub struct EfficiencyOptions {
    /// Cluster ids to walk (None: every cluster with OPPs).
    pub clusters: Option<Vec<usize>>,
    pub runs: u32,
    /// Start every run at or below this (None: the temperature after the idle gate + 2 °C).
    pub cool_to: Option<f64>,
    /// Longest wait for cooling before one run.
    pub cool_timeout: Duration,
    /// OPPs outside are skipped.
    pub max_khz: Option<u64>,
    pub min_khz: Option<u64>,
    /// Set OPPs (off: one point per cluster at its current clock).
    pub tune: bool,
    pub idle: IdleConfig,
    /// Start after one look at the machine, idle or not (the verdict says so).
    pub force: bool,
    pub sample_interval: Duration,
    pub idle_power: Duration,
    pub meter: Option<Arc<crate::meter::Meter>>,
    pub truebench_version: String,
}

impl Default for EfficiencyOptions {
    fn default() -> Self {
        EfficiencyOptions {
            clusters: None,
            runs: 3,
            cool_to: None,
            cool_timeout: Duration::from_secs(300),
            max_khz: None,
            min_khz: None,
            tune: true,
            idle: IdleConfig::default(),
            force: false,
            sample_interval: Duration::from_secs(1),
            idle_power: Duration::from_secs(10),
            meter: None,
            truebench_version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// Options the machine or each other cannot satisfy, refused before anything starts.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum OptionsError {
    #[error("--min-khz {min} is above --max-khz {max}")]
    EmptyRange { min: u64, max: u64 },
    #[error("--clusters {id}: no such cluster (this machine has {have})")]
    NoCluster { id: usize, have: String },
}

impl EfficiencyOptions {
    /// The clock range is not empty and every cluster asked for exists on `inv`.
    pub fn check(&self, inv: &Inventory) -> Result<(), OptionsError> {
        if let (Some(min), Some(max)) = (self.min_khz, self.max_khz) {
            if min > max {
                return Err(OptionsError::EmptyRange { min, max });
            }
        }
        for &id in self.clusters.iter().flatten() {
            if !inv.clusters.iter().any(|c| c.id == id) {
                let have: Vec<String> = inv.clusters.iter().map(|c| c.id.to_string()).collect();
                let have = if have.is_empty() {
                    "no cpufreq clusters".to_string()
                } else {
                    have.join(", ")
                };
                return Err(OptionsError::NoCluster { id, have });
            }
        }
        Ok(())
    }
}

/// Wait until the SoC is at or below `target` (or `timeout`); what happened, for the log.
fn cool(
    host: &Host,
    inv: &Inventory,
    target: f64,
    timeout: Duration,
    stop: &AtomicBool,
) -> Option<String> {
    let t0 = Instant::now();
    loop {
        let t = idle::soc_temp(host, inv)?;
        if t <= target {
            return None;
        }
        if t0.elapsed() >= timeout {
            return Some(format!(
                "still {t:.1} °C after {:.0} s (wanted ≤ {target:.1} °C): ran anyway",
                timeout.as_secs_f64()
            ));
        }
        if !idle::pause(Duration::from_millis(250), stop) {
            return None;
        }
    }
}

/// Hold a cluster at `khz` through the session's Tuning: userspace + setspeed, or
/// scaling_min_freq = scaling_max_freq (written in the order that never has min > max).
fn set_opp(s: &mut Session, c: &Cluster, khz: u64, userspace: bool) -> Result<(), String> {
    if userspace {
        s.set_governor(c, "userspace")?;
        s.set_setspeed_khz(c, khz)
    } else {
        s.set_range_khz(c, khz, khz)
    }
}

/// The other clusters at their lowest clock (scaling_max_freq = lowest OPP), so their heat
/// and power stay out of this cluster's figures.
fn others_to_lowest(s: &mut Session, inv: &Inventory, c: &Cluster) {
    for o in inv.clusters.iter().filter(|o| o.id != c.id) {
        let Some(low) = o.opps_khz.iter().copied().min() else {
            continue;
        };
        // Best effort: a cluster that cannot be capped still lets this one be measured (the
        // record says which write failed).
        let _ = s.set_max_khz(o, low);
    }
}

/// Steps for a cluster without a frequency table (intel_pstate, amd-pstate, CPPC).
const STEPS: u64 = 8;

/// The cluster's OPPs (kHz); without a frequency table, `STEPS` clocks from its lowest to
/// its highest, rounded to 100 MHz.
fn opps_of(c: &Cluster) -> Vec<u64> {
    if !c.opps_khz.is_empty() {
        return c.opps_khz.clone();
    }
    let (Some(lo), Some(hi)) = (c.min_mhz, c.max_mhz) else {
        return Vec::new();
    };
    let (lo, hi) = (u64::from(lo) * 1000, u64::from(hi) * 1000);
    if hi <= lo {
        return vec![hi];
    }
    let mut v: Vec<u64> = (0..STEPS)
        .map(|i| lo + (hi - lo) * i / (STEPS - 1))
        .map(|k| (k + 50_000) / 100_000 * 100_000)
        .map(|k| k.clamp(lo, hi))
        .collect();
    v.dedup();
    v
}

/// Run the walk. `kernels` measure the clock and run the work (`LiveKernels` for real).
pub fn run(
    host: &Host,
    inv: &Inventory,
    opts: &EfficiencyOptions,
    kernels: &mut dyn EfficiencyKernels,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<EfficiencyResult, crate::session::SessionError> {
    let mut s = Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.sample_interval,
            truebench_version: opts.truebench_version.clone(),
            meter: opts.meter.clone(),
            idle_power: opts.idle_power,
            ..Default::default()
        },
        stop.clone(),
    )?;
    idle::gate(&mut s, &opts.idle, opts.force, "efficiency walk", events);
    let cool_to = opts
        .cool_to
        .or_else(|| idle::soc_temp(host, inv).map(|t| (t + 2.0).round()));
    if cool_to.is_none() {
        let n = "no SoC temperature sensor: runs could not start at the same temperature";
        s.note(n);
        events(Event::Note(n.into()));
    }

    let chosen: Vec<&Cluster> = inv
        .clusters
        .iter()
        .filter(|c| opts.clusters.as_ref().is_none_or(|l| l.contains(&c.id)))
        .collect();
    let has_opps = chosen.iter().any(|c| !opps_of(c).is_empty());
    let mut switch_note = None;
    if opts.tune && has_opps {
        if let Err(e) = s.begin_tuning(true, None) {
            switch_note = Some(format!("OPPs could not be set: {e}"));
        } else if !s.tuned() {
            switch_note = Some(format!(
                "OPPs could not be set ({}): one point per cluster at its current clock",
                s.tuning_reason().unwrap_or("no right to change settings")
            ));
        }
    } else if !opts.tune {
        switch_note = Some("--no-tune: one point per cluster at its current clock".into());
    } else {
        switch_note = Some(
            "no cpufreq OPPs (no cpufreq driver, or the hypervisor sets the clock): one point per cluster at its current clock"
                .into(),
        );
    }
    let switched = switch_note.is_none();
    let mut method = None;
    let mut work_detail = None;
    let mut clusters_out = Vec::new();
    // A machine without cpufreq clusters still has CPUs: one pseudo-cluster of them all.
    let all = crate::clocks::clusters_of(inv);
    let walk: Vec<&Cluster> = if chosen.is_empty() && opts.clusters.is_none() {
        all.iter().collect()
    } else {
        chosen
    };
    for c in walk {
        if s.stopped() {
            break;
        }
        let userspace = c.governors.iter().any(|g| g == "userspace");
        let opps: Vec<Option<u64>> = if switched {
            let mut v: Vec<u64> = opps_of(c)
                .into_iter()
                .filter(|&k| opts.max_khz.is_none_or(|m| k <= m))
                .filter(|&k| opts.min_khz.is_none_or(|m| k >= m))
                .collect();
            v.sort_unstable();
            v.dedup();
            v.into_iter().map(Some).collect()
        } else {
            vec![None]
        };
        let mut notes = Vec::new();
        if opps.is_empty() {
            notes.push(if opps_of(c).is_empty() {
                "this cluster lists no cpufreq OPPs and no clock range".to_string()
            } else {
                "no OPP within --min-khz/--max-khz".to_string()
            });
        }
        if switched && !opps.is_empty() {
            method.get_or_insert(if userspace {
                OppMethod::Userspace
            } else {
                OppMethod::MinMax
            });
            others_to_lowest(&mut s, inv, c);
        }
        let cpu = c.cpus.first().copied().unwrap_or(0);
        let mut points = Vec::new();
        for (i, opp) in opps.iter().enumerate() {
            if s.stopped() {
                break;
            }
            let mhz = opp.map(|k| (k / 1000) as u32);
            events(Event::step(
                i + 1,
                opps.len(),
                format!(
                    "cluster {} at {}",
                    c.id,
                    mhz.map_or("its current clock".into(), |m| format!("{m} MHz"))
                ),
                None,
            ));
            let mut point = OppPoint {
                opp_mhz: mhz,
                measured_mhz: None,
                runs: Vec::new(),
                score: None,
                watts: None,
                per_watt: None,
                per_watt_above_idle: None,
                temp_max_c: None,
                status: PhaseStatus::Ok,
                invalid: None,
                reason: None,
            };
            if let Some(k) = opp {
                if let Err(e) = set_opp(&mut s, c, *k, userspace) {
                    point.status = PhaseStatus::Failed;
                    point.reason = Some(e);
                    events(Event::status(point.status, point.reason.as_deref()));
                    points.push(point);
                    continue;
                }
            }
            point.measured_mhz = kernels.clock(host, cpu);
            for k in 1..=opts.runs {
                if let Some(t) = cool_to {
                    events(Event::waiting(format!("cooling to {t:.1} °C")));
                    if let Some(w) = cool(host, inv, t, opts.cool_timeout, &stop) {
                        point.reason.get_or_insert(w);
                    }
                }
                if s.stopped() {
                    break;
                }
                let phase = OppRunPhase {
                    cluster: c.id,
                    opp_mhz: mhz,
                    run: k,
                };
                let title = format!(
                    "cluster {} at {}, run {k} of {}",
                    c.id,
                    mhz.map_or("its current clock".into(), |m| format!("{m} MHz")),
                    opts.runs
                );
                let t0 = Instant::now();
                let p = s.phase(
                    phase,
                    &title,
                    Some(c.cpus.len() as u32),
                    c.cpus.clone(),
                    |_| match kernels.work(host, &c.cpus, &stop) {
                        Ok(w) => (Outcome::default(), Some(w)),
                        Err(e) => (Outcome::failed(e), None),
                    },
                );
                let (status, reason) = (p.status, p.reason.clone());
                let got = p.value;
                let seconds = t0.elapsed().as_secs_f64();
                match got {
                    Some(w) if status == PhaseStatus::Ok => {
                        events(Event::Partial(format!(
                            "{:.1} {} in {seconds:.1} s",
                            w.score, w.unit
                        )));
                        work_detail
                            .get_or_insert_with(|| (w.detail.clone(), w.unit.clone(), w.source));
                        s.tool(&w.tool.0, w.tool.1.clone(), w.tool.2.clone());
                        point.runs.push(OppRun {
                            evidence: RowEvidence::new(phase, PhaseStatus::Ok),
                            score: w.score,
                            seconds,
                            joules: None,
                            watts: None,
                            temp_start_c: None,
                            temp_max_c: None,
                        });
                    }
                    _ => {
                        point.status = match status {
                            PhaseStatus::Interrupted => PhaseStatus::Interrupted,
                            _ => PhaseStatus::Failed,
                        };
                        point.reason = reason;
                        break;
                    }
                }
            }
            events(Event::status(point.status, point.reason.as_deref()));
            points.push(point);
        }
        // A clock that does not follow the OPPs set makes every point the same clock: the
        // walk measured nothing it claims to (a VM, a recorded tree, firmware that ignores
        // cpufreq).
        let mut walked: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|p| Some((f64::from(p.opp_mhz?), p.measured_mhz?)))
            .collect();
        walked.sort_by(|a, b| b.0.total_cmp(&a.0));
        if crate::clocks::follows_opps(&walked) == Some(false) {
            let (lo, hi) = (walked.last().map_or(0.0, |p| p.0), walked[0].0);
            s.finding(
                truebench_model::finding::Finding::new(
                    truebench_model::finding::FindingKind::ClockDeviation,
                    truebench_model::finding::Severity::Critical,
                    format!(
                        "{}: the measured clock did not follow the OPPs set ({:.0} MHz measured at every OPP from {lo:.0} to {hi:.0} MHz) — a virtual machine, a recorded tree or firmware that ignores cpufreq: the per-OPP figures are one clock, not a walk.",
                        c.cpu_range(),
                        walked[0].1
                    ),
                )
                .with_evidence(
                    walked
                        .iter()
                        .map(|(o, m)| format!("OPP {o:.0} MHz: measured {m:.0} MHz"))
                        .collect::<Vec<String>>(),
                ),
            );
        }
        clusters_out.push(EfficiencyCluster {
            cluster: c.id,
            cpus: c.cpu_range(),
            core_type: c.core_type.clone(),
            points,
            best_mhz: None,
            notes,
        });
        // This cluster's OPP and the others' limits go back before the next cluster.
        s.restore_now();
    }
    if s.stopped() {
        // Stopped between runs (while cooling or setting an OPP): no phase saw it.
        s.interrupted("before the walk ended");
    }
    let (work, unit, source) = match work_detail {
        Some((w, u, s)) => (w, u, Some(s)),
        None => ("nothing ran".into(), String::new(), None),
    };
    let body = EfficiencyBody {
        work,
        source,
        unit,
        runs_per_opp: opts.runs,
        method,
        cool_to_c: cool_to,
        switched,
        switch_note,
        clusters: clusters_out,
    };
    let mut r = s.finish(body, Finish { comparable: true });
    fill(&mut r);
    Ok(r)
}

/// Energy, power and temperatures of each run from the finished envelope; medians, score
/// per watt and the best OPP per cluster.
fn fill(r: &mut EfficiencyResult) {
    let env = &r.envelope;
    let idle = env.energy.as_ref().and_then(|e| e.idle_watts);
    for c in &mut r.body.clusters {
        for p in &mut c.points {
            for run in &mut p.runs {
                let phase = run.evidence.phase;
                if let Some(e) = env.energy.as_ref().and_then(|e| e.phase(phase)) {
                    run.joules = Some(e.joules);
                    run.watts = Some(e.mean_watts);
                }
                if let Some(ph) = env.timeline.phase(phase) {
                    let temps: Vec<f64> = env
                        .timeline
                        .samples_in(ph)
                        .iter()
                        .filter_map(|s| s.soc_temp_c)
                        .collect();
                    run.temp_start_c = temps.first().copied();
                    run.temp_max_c = temps.iter().copied().reduce(f64::max);
                }
                // A run measured while the machine throttled (or worse) is not valid.
                session::mark(
                    &mut run.evidence,
                    &env.findings,
                    &[FindingKind::Throttling],
                    &[],
                );
            }
            // An invalid run makes the point invalid, and an invalid point is never the best.
            let invalid: Vec<String> = p
                .runs
                .iter()
                .filter_map(|r| {
                    let why = r.evidence.invalid.as_ref()?;
                    Some(format!("{}: {why}", r.evidence.phase))
                })
                .collect();
            p.invalid = (!invalid.is_empty()).then(|| invalid.join("; "));
            let scores: Vec<f64> = p.runs.iter().map(|r| r.score).collect();
            let watts: Vec<f64> = p.runs.iter().filter_map(|r| r.watts).collect();
            p.score = median(&scores);
            p.watts = median(&watts);
            p.temp_max_c = p.runs.iter().filter_map(|r| r.temp_max_c).reduce(f64::max);
            if let (Some(sc), Some(w)) = (p.score, p.watts) {
                p.per_watt = (w > 0.0).then(|| sc / w);
                p.per_watt_above_idle = idle.map(|i| w - i).filter(|x| *x >= 0.05).map(|x| sc / x);
            }
        }
        let key = |p: &OppPoint| p.per_watt_above_idle.or(p.per_watt);
        c.best_mhz = c
            .points
            .iter()
            .filter(|p| key(p).is_some() && p.invalid.is_none())
            .max_by(|a, b| key(a).unwrap_or(0.0).total_cmp(&key(b).unwrap_or(0.0)))
            .and_then(|p| p.opp_mhz);
    }
}

#[cfg(test)]
mod tests {
    use super::opps_of;
    use truebench_host::inventory::Cluster;
    use truebench_stats::median;

    #[test]
    fn without_a_table_eight_clocks_span_the_range() {
        // An i7-1165G7 under intel_pstate: 400–4700 MHz, no frequency table.
        let c = Cluster {
            min_mhz: Some(400),
            max_mhz: Some(4700),
            ..Default::default()
        };
        let v = opps_of(&c);
        assert_eq!(v.len(), 8);
        assert_eq!((v[0], v[7]), (400_000, 4_700_000));
        assert!(v.windows(2).all(|w| w[0] < w[1]), "{v:?}");
        assert!(v.iter().all(|k| k % 100_000 == 0), "{v:?}");
        let table = Cluster {
            opps_khz: vec![408_000, 1_800_000],
            ..c
        };
        assert_eq!(opps_of(&table), vec![408_000, 1_800_000]);
        assert!(opps_of(&Cluster::default()).is_empty());
    }

    #[test]
    fn medians() {
        assert_eq!(median::<f64>(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }
}
