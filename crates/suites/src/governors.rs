//! `truebench governors`: the Linux governor-efficiency study (deadline miss ratio of periodic task sets) rebuilt on the periodic
//! engine, with its flaws fixed. Batches of task sets (UUniFast-discard, log-uniform periods,
//! seeded) run under every cpufreq governor, each governor's run one phase of the Session.
//! Tasks do a fixed amount of work (calibrated loops, once per machine at the highest clock),
//! so a slow clock shows as misses; governors and sets run in a seeded shuffled order, with a
//! wait for the starting temperature between governors; `--repeat` gives the spread.
//! Governors are switched per policy through the Session's Tuning (journaled, restored at
//! the end, after Ctrl-C, and after kill -9 at the next start).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use truebench_host::inventory::Cluster;
use truebench_host::{Host, Inventory};
use truebench_model::finding::FindingKind;
use truebench_model::governors::{
    ClusterClock, GovernorPhase, GovernorRow, GovernorSummary, GovernorsBody, LevelFigures,
    PolicyTimeInState,
};
use truebench_model::{GovernorsResult, PhaseStatus};
use truebench_monitor::freq::{FreqLog, FreqSampler};
use truebench_stats::{median, range, spread_pct, weighted_percentile};
use truebench_workloads::periodic::taskset::{self, TaskSet, TaskSetError, TaskSetOptions};
use truebench_workloads::periodic::{Policy, SlackStats, WorkKind};
use truebench_workloads::progress::Progress;

use crate::interactivity::{self as ia, Calibrate, Work};
use crate::progress::Event;
use crate::session::{self, Finish, Outcome, Session, SessionOptions};

#[derive(Debug, Clone)]
pub struct GovernorsOptions {
    /// Only these (`userspace` means both `userspace@max` and `userspace@mid`); None: all.
    pub governors: Option<Vec<String>>,
    pub utilisations: Vec<f64>,
    pub tasks: usize,
    pub sets: u32,
    pub set_duration: Duration,
    pub period_ms: (f64, f64),
    pub seed: u64,
    pub repeat: u32,
    pub work: Work,
    pub loops_per_ms: Option<u64>,
    pub recalibrate: bool,
    pub cache: Option<PathBuf>,
    /// Wait for this temperature between governors (else the starting temperature + 1 °C).
    pub cool_to: Option<f64>,
    pub cool_timeout: Duration,
    pub tune: bool,
    pub sample_interval: Duration,
    pub truebench_version: String,
    /// An external power meter (`--power-cmd`, `--power-file`): one more power source.
    pub meter: Option<std::sync::Arc<crate::meter::Meter>>,
}

#[derive(Debug, thiserror::Error)]
pub enum GovernorsError {
    #[error("{0}")]
    Tuning(#[from] truebench_tuning::TuningError),
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error("--governors {asked}: none of these is available here (available: {available})")]
    NoGovernor { asked: String, available: String },
}

/// At least 10 tasks, and enough that UUniFast-discard finds sets at utilisation `u`: its
/// largest share is about u·(ln n + 0.58)/n, which must stay near one CPU or nearly every
/// draw is discarded (the default of `--tasks`).
pub fn default_tasks(u: f64) -> usize {
    if !(u.is_finite() && u > 0.0) {
        return 10;
    }
    (10..100_000)
        .find(|&n| u * ((n as f64).ln() + 0.58) / n as f64 <= 1.2)
        .unwrap_or(100_000)
}

/// The study's task sets for these options (seeded: the same on every machine).
pub fn task_sets(opts: &GovernorsOptions) -> Result<Vec<TaskSet>, TaskSetError> {
    taskset::generate(
        &TaskSetOptions {
            tasks: opts.tasks,
            period_ms: opts.period_ms,
            seed: opts.seed,
        },
        &opts.utilisations,
        opts.sets,
    )
}

/// One governor to run: its label and what to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub label: String,
    /// None: leave the policy as it is (no cpufreq, or no right to switch).
    pub governor: Option<String>,
    /// userspace: the clock to pin, per cluster.
    pub setspeed: Setspeed,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Setspeed {
    None,
    Max,
    Mid,
}

/// Governors every cpufreq cluster can be switched to (in the first cluster's order), with
/// userspace pinned at the top OPP and at a middle one; filtered by `wanted`.
pub fn plans(inv: &Inventory, wanted: Option<&[String]>) -> Result<Vec<Plan>, GovernorsError> {
    let clusters: Vec<&Cluster> = inv
        .clusters
        .iter()
        .filter(|c| c.policy_dir.is_some())
        .collect();
    let mut all: Vec<String> = Vec::new();
    for c in &clusters {
        for g in &c.governors {
            if !all.contains(g) {
                all.push(g.clone());
            }
        }
    }
    let mut out = Vec::new();
    for g in &all {
        if g == "userspace" {
            for (label, sp) in [
                ("userspace@max", Setspeed::Max),
                ("userspace@mid", Setspeed::Mid),
            ] {
                out.push(Plan {
                    label: label.into(),
                    governor: Some(g.clone()),
                    setspeed: sp,
                });
            }
        } else {
            out.push(Plan {
                label: g.clone(),
                governor: Some(g.clone()),
                setspeed: Setspeed::None,
            });
        }
    }
    if let Some(w) = wanted {
        let keep = |p: &Plan| {
            w.iter()
                .any(|x| *x == p.label || Some(x) == p.governor.as_ref())
        };
        out.retain(keep);
        if out.is_empty() && !all.is_empty() {
            return Err(GovernorsError::NoGovernor {
                asked: w.join(","),
                available: all.join(", "),
            });
        }
    }
    Ok(out)
}

fn current_plan() -> Plan {
    Plan {
        label: "current".into(),
        governor: None,
        setspeed: Setspeed::None,
    }
}

/// Write `plan` to every policy of every cluster that offers its governor; the changes go
/// through the Session's Tuning (journaled). Err: what could not be set.
fn apply(s: &mut Session<'_>, host: &Host, inv: &Inventory, plan: &Plan) -> Result<(), String> {
    let Some(g) = &plan.governor else {
        return Ok(());
    };
    let mut failed = Vec::new();
    for c in &inv.clusters {
        if !c.governors.contains(g) {
            continue;
        }
        truebench_tuning::Tuning::policy_dirs(host, c).map_err(|e| e.to_string())?;
        let khz = match plan.setspeed {
            Setspeed::None => None,
            Setspeed::Max => c.opps_khz.last().copied(),
            Setspeed::Mid => c.opps_khz.get(c.opps_khz.len() / 2).copied(),
        };
        if let Err(e) = s.set_governor(c, g) {
            failed.push(e);
        } else if let Some(k) = khz {
            if let Err(e) = s.set_setspeed_khz(c, k) {
                failed.push(e);
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// Seconds per kHz of every policy with `stats/time_in_state` (10 ms ticks).
pub(crate) fn time_in_state(host: &Host, inv: &Inventory) -> Vec<(String, Vec<(u64, u64)>)> {
    inv.clusters
        .iter()
        .filter(|c| c.time_in_state)
        .filter_map(|c| {
            let d = c.policy_dir.as_ref()?;
            let text = host.read(format!("{d}/stats/time_in_state")).ok()?;
            let name = d.rsplit('/').next().unwrap_or(d).to_string();
            Some((name, truebench_host::parse::cpufreq::time_in_state(&text)))
        })
        .collect()
}

pub(crate) fn tis_delta(
    before: &[(String, Vec<(u64, u64)>)],
    after: &[(String, Vec<(u64, u64)>)],
) -> Vec<PolicyTimeInState> {
    after
        .iter()
        .map(|(p, rows)| {
            let prev = before.iter().find(|(q, _)| q == p).map(|(_, r)| r);
            let mut seconds: Vec<(u64, f64)> = rows
                .iter()
                .map(|&(khz, ticks)| {
                    let was = prev
                        .and_then(|r| r.iter().find(|x| x.0 == khz))
                        .map_or(0, |x| x.1);
                    (khz, ticks.saturating_sub(was) as f64 / 100.0)
                })
                .filter(|x| x.1 > 0.0)
                .collect();
            seconds.sort_by_key(|x| x.0);
            PolicyTimeInState {
                policy: p.clone(),
                seconds,
            }
        })
        .collect()
}

/// Wait until the SoC is at `target` °C or below (stop-aware, bounded). Returns what happened.
fn cool_down(host: &Host, path: &str, target: f64, timeout: Duration, stop: &AtomicBool) -> String {
    let t0 = Instant::now();
    let read = || host.read_i64(path).map(|m| m as f64 / 1000.0);
    loop {
        let now = read();
        match now {
            Some(t) if t <= target => {
                return format!(
                    "cooled to {t:.1} °C (≤ {target:.1} °C) in {:.0} s",
                    t0.elapsed().as_secs_f64()
                )
            }
            None => return "temperature unreadable: did not wait".into(),
            Some(t) if t0.elapsed() >= timeout || stop.load(Ordering::SeqCst) => {
                return format!(
                    "still {t:.1} °C after {:.0} s (wanted ≤ {target:.1} °C): went on",
                    t0.elapsed().as_secs_f64()
                )
            }
            _ => std::thread::sleep(Duration::from_millis(500)),
        }
    }
}

/// Figures of one governor's run over its sets.
struct RunFigures {
    total: SlackStats,
    per_level: Vec<SlackStats>,
    cpu_ns: f64,
    wanted_ns: f64,
    refused: Option<String>,
}

fn run_sets(
    sets: &[TaskSet],
    order: &[usize],
    levels: &[f64],
    work: WorkKind,
    dur: Duration,
    stop: &AtomicBool,
    progress: &Progress,
) -> RunFigures {
    let mut f = RunFigures {
        total: SlackStats::default(),
        per_level: levels.iter().map(|_| SlackStats::default()).collect(),
        cpu_ns: 0.0,
        wanted_ns: 0.0,
        refused: None,
    };
    for (n, &i) in order.iter().enumerate() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        progress.step(
            n as u32,
            order.len() as u32,
            format!("task set {} of {}", n + 1, order.len()),
        );
        let set = &sets[i];
        let specs = set.specs(work, Policy::default());
        let outs = taskset::run_set(&specs, dur, stop);
        let level = levels.iter().position(|&u| u == set.utilisation);
        for (o, t) in outs.iter().zip(&set.tasks) {
            if let Some(sl) = &o.slack {
                f.total.add(sl);
                if let Some(l) = level {
                    f.per_level[l].add(sl);
                }
            }
            // The work's CPU time against what it takes at the calibration clock.
            f.cpu_ns += o.cpu_ns as f64;
            f.wanted_ns += (o.stats.work_done * t.run_us * 1000) as f64;
            if f.refused.is_none() {
                f.refused = o.policy_refused.clone();
            }
        }
    }
    f
}

/// The fast frequency log (20 Hz, every policy) over the whole study, and when each
/// governor run began and ended on its clock (seconds): the study's frequency log.
#[derive(Debug, Clone, Default)]
pub struct FreqTrace {
    pub log: FreqLog,
    /// (phase, start, end).
    pub spans: Vec<(GovernorPhase, f64, f64)>,
}

impl FreqTrace {
    /// CSV: `t_s,governor,policyN_khz…`, one line per reading inside a governor's run.
    pub fn csv(&self) -> String {
        let mut o = String::from("t_s,governor");
        for p in &self.log.policies {
            o.push_str(&format!(",policy{p}_khz"));
        }
        o.push('\n');
        for i in 0..self.log.len() {
            let t = self.log.t[i];
            let Some((g, ..)) = self.spans.iter().find(|(_, a, b)| t >= *a && t < *b) else {
                continue;
            };
            o.push_str(&format!("{t:.3},{}", g.label()));
            for v in self.log.row(i) {
                o.push(',');
                if let Some(k) = v {
                    o.push_str(&k.to_string());
                }
            }
            o.push('\n');
        }
        o
    }
}

/// Time-weighted mean and percentiles (nearest rank over the time at each clock) of a
/// policy's clock within `[a, b)`, from the fast log.
fn policy_clock(log: &FreqLog, p: usize, a: f64, b: f64) -> ClusterClock {
    let r: Vec<(f64, f64)> = log
        .residency(p, a, b)
        .into_iter()
        .map(|(khz, s)| (f64::from(khz), s))
        .collect();
    let q = |pct: f64| weighted_percentile(&r, pct).map(|k| k / 1000.0);
    ClusterClock {
        cluster: 0,
        samples: log.t.iter().filter(|&&t| t >= a && t < b).count() as u64,
        mean_mhz: log.mean_khz(p, a, b).map(|k| k / 1000.0),
        p10_mhz: q(10.0),
        p50_mhz: q(50.0),
        p90_mhz: q(90.0),
    }
}

/// Each row's clock per cluster from the fast log (the cluster's first policy).
fn fill_clocks(r: &mut GovernorsResult, inv: &Inventory, trace: &FreqTrace) {
    for row in &mut r.body.rows {
        let Some((_, a, b)) = trace.spans.iter().find(|(p, ..)| *p == row.evidence.phase) else {
            continue;
        };
        let clocks: Vec<ClusterClock> = inv
            .clusters
            .iter()
            .filter_map(|c| {
                let p = trace
                    .log
                    .policies
                    .iter()
                    .position(|&x| Some(x) == c.policy)?;
                let mut k = policy_clock(&trace.log, p, *a, *b);
                k.cluster = c.id as u32;
                (k.samples > 0).then_some(k)
            })
            .collect();
        row.clocks = clocks;
    }
}

/// Temperature, energy and marks of each row, from the finished envelope (the clocks come
/// from the fast frequency log: [`fill_clocks`]).
fn fill_from_envelope(r: &mut GovernorsResult) {
    let env = r.envelope.clone();
    for row in &mut r.body.rows {
        let Some(p) = env.phase(&row.evidence.phase) else {
            continue;
        };
        let (a, b) = (p.started, p.ended.unwrap_or(f64::INFINITY));
        let inside: Vec<_> = env
            .timeline
            .samples
            .iter()
            .filter(|s| s.t >= a && s.t <= b)
            .collect();
        row.max_temp_c = inside.iter().filter_map(|s| s.soc_temp_c).reduce(f64::max);
        row.energy_j = env
            .energy
            .as_ref()
            .and_then(|e| e.phase(&row.evidence.phase))
            .map(|e| e.joules);
        row.work_ms_per_j = row
            .work_ms
            .zip(row.energy_j)
            .filter(|(_, j)| *j > 0.0)
            .map(|(w, j)| w / j);
        // The study's rule: a run during which the machine throttled is not comparable.
        session::mark(
            &mut row.evidence,
            &env.findings,
            &[FindingKind::Throttling],
            &[],
        );
    }
    // rt-app's efficiency from the first powersave and performance rows that completed.
    let ratio = |g: &str| {
        r.body
            .rows
            .iter()
            .find(|x| {
                x.governor == g
                    && x.evidence.status == PhaseStatus::Ok
                    && x.evidence.invalid.is_none()
            })
            .and_then(|x| x.work_time_ratio)
    };
    if let (Some(ps), Some(perf)) = (ratio("powersave"), ratio("performance")) {
        // Only when the two differ by more than run-to-run noise (a few %): otherwise the
        // quotient is noise over noise (a board whose powersave is its top clock, a VM).
        if ps - perf > 0.05 * perf {
            for row in &mut r.body.rows {
                row.efficiency = row.work_time_ratio.map(|t| (ps - t) / (ps - perf));
            }
        }
    }
}

/// Run the study on `sets` (drawn by the caller with [`task_sets`]). `Err` only when it
/// could not start.
pub fn run(
    host: &Host,
    inv: &Inventory,
    opts: &GovernorsOptions,
    sets: &[TaskSet],
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<(GovernorsResult, FreqTrace), GovernorsError> {
    let mut plans = plans(inv, opts.governors.as_deref())?;
    let mut s = Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.sample_interval,
            truebench_version: opts.truebench_version.clone(),
            meter: opts.meter.clone(),
            ..Default::default()
        },
        stop.clone(),
    )?;
    let has_cpufreq = !plans.is_empty();
    s.begin_tuning(
        opts.tune && (has_cpufreq || opts.loops_per_ms.is_none()),
        Some("tuning switched off (--no-tune)".into()),
    )?;
    let switch_note = if !has_cpufreq {
        Some("This machine has no cpufreq governors to switch: one run under the current policy (the hypervisor or firmware sets the clock).".to_string())
    } else if !s.tuned() {
        Some(format!(
            "Governors could not be switched ({}): one run under the current policy.",
            s.tuning_reason().unwrap_or("no right to change settings")
        ))
    } else {
        None
    };
    if switch_note.is_some() {
        plans = vec![current_plan()];
    }
    let calibration = ia::calibrate(
        &mut s,
        inv,
        &Calibrate {
            given: opts.loops_per_ms,
            recalibrate: opts.recalibrate,
            cache: opts.cache.clone(),
        },
        events,
    );
    s.restore_now();
    events(ia::calibrated(&calibration));
    let work = match opts.work {
        Work::Loops => WorkKind::Loops {
            loops_per_ms: calibration.loops_per_ms,
        },
        Work::Wall => WorkKind::Wall,
    };
    taskset::shuffle(&mut plans, opts.seed, 0);
    let sensor = inv.thermal.chosen.clone();
    let start_temp = sensor
        .as_ref()
        .and_then(|c| host.read_i64(&c.path))
        .map(|m| m as f64 / 1000.0);
    let cool_target = opts.cool_to.or(start_temp.map(|t| t + 1.0));
    let cooling = match (&sensor, cool_target) {
        (Some(_), Some(t)) => Some(format!(
            "Between governors: waited for the SoC to cool to {t:.1} °C (up to {:.0} s).",
            opts.cool_timeout.as_secs_f64()
        )),
        _ => Some(
            "No temperature sensor: governors ran back to back, without waiting for the SoC to cool."
                .into(),
        ),
    };
    let busy = opts.utilisations.iter().copied().fold(0.0, f64::max).ceil() as u32;
    let per_run = opts.set_duration.as_secs_f64() * sets.len() as f64;
    let total = plans.len() * opts.repeat as usize;
    let mut rows = Vec::new();
    let mut k = 0usize;
    // 20 Hz, every policy, on its own thread: fast enough to see a governor react.
    let f0 = Instant::now();
    let freq = FreqSampler::start(host, inv, Duration::from_millis(50), f0);
    let mut spans = Vec::new();
    for rep in 1..=opts.repeat {
        for plan in &plans {
            k += 1;
            let phase = GovernorPhase::new(&plan.label, (opts.repeat > 1).then_some(rep));
            let mut row =
                GovernorRow::new(&plan.label, rep, phase.clone(), PhaseStatus::Interrupted);
            row.evidence.reason = Some("not started: interrupted before".into());
            if s.stopped() {
                rows.push(row);
                continue;
            }
            if k > 1 {
                if let (Some(c), Some(t)) = (&sensor, cool_target) {
                    let what = cool_down(host, &c.path, t, opts.cool_timeout, &stop);
                    events(Event::waiting(what));
                }
            }
            // A governor's run is one step: its sets, too many to say each, move its share.
            let progress = Progress::default();
            events(Event::Step {
                index: k,
                total,
                what: plan.label.clone(),
                title: None,
                estimate: Some(Duration::from_secs_f64(per_run)),
                progress: Some(progress.clone()),
            });
            let applied = apply(&mut s, host, inv, plan);
            let mut order: Vec<usize> = (0..sets.len()).collect();
            taskset::shuffle(&mut order, opts.seed, k as u64);
            let before = time_in_state(host, inv);
            let mut figures = None;
            let title = format!("task sets under the {} governor", plan.label);
            let started = f0.elapsed().as_secs_f64();
            let p = s.phase(&phase, &title, Some(busy), Vec::new(), |_| {
                if let Err(e) = &applied {
                    return Outcome::failed(e.clone());
                }
                figures = Some(run_sets(
                    sets,
                    &order,
                    &opts.utilisations,
                    work,
                    opts.set_duration,
                    &stop,
                    &progress,
                ));
                Outcome::default()
            });
            row.evidence.status = p.status;
            row.evidence.reason = p.reason.clone();
            row.deepest_idle = p.residency.as_ref().and_then(|r| r.deepest().cloned());
            spans.push((phase, started, f0.elapsed().as_secs_f64()));
            row.time_in_state = tis_delta(&before, &time_in_state(host, inv));
            if let Some(f) = figures {
                let sum = f.total.summary();
                row.negative = sum.negative;
                row.periods = sum.periods;
                row.miss_ratio = sum.miss_ratio;
                row.slack_p1_us = sum.p1_us;
                row.slack_p50_us = sum.p50_us;
                row.slack_min_us = sum.min_us;
                row.per_level = opts
                    .utilisations
                    .iter()
                    .zip(&f.per_level)
                    .map(|(&u, l)| LevelFigures {
                        utilisation: u,
                        negative: l.negative(),
                        periods: l.count(),
                        miss_ratio: l.miss_ratio(),
                    })
                    .collect();
                row.work_time_ratio =
                    (opts.work == Work::Loops && f.wanted_ns > 0.0).then(|| f.cpu_ns / f.wanted_ns);
                row.work_ms =
                    (opts.work == Work::Loops && f.wanted_ns > 0.0).then(|| f.wanted_ns / 1e6);
                row.policy_refused = f.refused;
            }
            events(Event::score(format!(
                "{}{}",
                row.evidence.status,
                row.miss_ratio
                    .map(|m| format!(", miss ratio {:.2} %", m * 100.0))
                    .unwrap_or_default()
            )));
            rows.push(row);
        }
    }
    let body = GovernorsBody {
        calibration: Box::new(calibration),
        work: opts.work,
        seed: opts.seed,
        split: "UUniFast-discard".into(),
        tasks_per_set: opts.tasks as u32,
        sets_per_level: opts.sets,
        utilisations: opts.utilisations.clone(),
        period_ms: [opts.period_ms.0, opts.period_ms.1],
        set_duration_s: opts.set_duration.as_secs_f64(),
        repeat: opts.repeat,
        switched: switch_note.is_none(),
        switch_note,
        cooling,
        rows,
        summary: Vec::new(),
    };
    let trace = FreqTrace {
        log: freq.stop(),
        spans,
    };
    let mut result = s.finish(body, Finish { comparable: true });
    fill_from_envelope(&mut result);
    fill_clocks(&mut result, inv, &trace);
    result.body.summary = summarise(&result.body.rows);
    Ok((result, trace))
}

/// Per governor, in the order governors first ran: medians and spread of its repeats that
/// completed and are valid.
pub fn summarise(rows: &[GovernorRow]) -> Vec<GovernorSummary> {
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.governor.as_str()) {
            names.push(&r.governor);
        }
    }
    names
        .into_iter()
        .map(|g| {
            let mine: Vec<&GovernorRow> = rows.iter().filter(|r| r.governor == g).collect();
            let done: Vec<&GovernorRow> = mine
                .iter()
                .copied()
                .filter(|r| r.evidence.status == PhaseStatus::Ok && r.evidence.invalid.is_none())
                .collect();
            let of = |f: &dyn Fn(&GovernorRow) -> Option<f64>| -> Vec<f64> {
                done.iter().filter_map(|r| f(r)).collect()
            };
            let miss = of(&|r| r.miss_ratio);
            let work_time = of(&|r| r.work_time_ratio);
            GovernorSummary {
                governor: g.to_string(),
                runs: done.len() as u32,
                invalid_runs: mine
                    .iter()
                    .filter(|r| {
                        r.evidence.status == PhaseStatus::Ok && r.evidence.invalid.is_some()
                    })
                    .count() as u32,
                median_miss_ratio: median(&miss),
                // A ratio's spread in percentage points: max − min.
                miss_ratio_spread: range(&miss),
                median_work_time_ratio: median(&work_time),
                work_time_ratio_spread_pct: spread_pct(&work_time),
                median_work_ms_per_j: median(&of(&|r| r.work_ms_per_j)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(g: &str, repeat: u32, miss: f64, wtr: f64, invalid: bool) -> GovernorRow {
        let mut r = GovernorRow::new(
            g,
            repeat,
            GovernorPhase::new(g, Some(repeat)),
            PhaseStatus::Ok,
        );
        r.periods = 100;
        r.miss_ratio = Some(miss);
        r.work_time_ratio = Some(wtr);
        r.evidence.invalid = invalid.then(|| "throttling".into());
        r
    }

    #[test]
    fn repeats_give_the_median_and_spread_of_the_valid_runs() {
        let mut interrupted = row("powersave", 4, 0.9, 3.0, false);
        interrupted.evidence.status = PhaseStatus::Interrupted;
        let rows = [
            row("schedutil", 1, 0.02, 1.10, false),
            row("powersave", 1, 0.30, 2.00, false),
            row("schedutil", 2, 0.04, 1.00, false),
            row("powersave", 2, 0.50, 2.20, true),
            row("schedutil", 3, 0.03, 1.05, false),
            row("powersave", 3, 0.40, 2.10, false),
            interrupted,
        ];
        let s = summarise(&rows);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].governor.as_str(), s[0].runs), ("schedutil", 3));
        assert!((s[0].median_miss_ratio.unwrap() - 0.03).abs() < 1e-12);
        assert!((s[0].miss_ratio_spread.unwrap() - 0.02).abs() < 1e-12);
        assert!((s[0].median_work_time_ratio.unwrap() - 1.05).abs() < 1e-12);
        assert!((s[0].work_time_ratio_spread_pct.unwrap() - 0.10 / 1.05 * 100.0).abs() < 1e-9);
        // powersave: the throttled repeat and the interrupted one are left out.
        assert_eq!((s[1].runs, s[1].invalid_runs), (2, 1));
        assert!((s[1].median_miss_ratio.unwrap() - 0.35).abs() < 1e-12);
        assert!((s[1].miss_ratio_spread.unwrap() - 0.10).abs() < 1e-12);
        assert_eq!(s[1].median_work_ms_per_j, None);
    }

    #[test]
    fn a_policy_s_clock_percentiles_weigh_the_time_at_each_clock() {
        // 0.1 s at 408 MHz, then 0.3 s at 1800 MHz: a quarter of the time at the bottom.
        let log = FreqLog {
            policies: vec![0],
            interval_s: 0.1,
            t: vec![0.0, 0.1, 0.2, 0.3],
            khz: vec![
                Some(408_000),
                Some(1_800_000),
                Some(1_800_000),
                Some(1_800_000),
            ],
        };
        let c = policy_clock(&log, 0, 0.0, 1.0);
        assert_eq!(c.samples, 4);
        assert_eq!(
            (c.p10_mhz, c.p50_mhz, c.p90_mhz),
            (Some(408.0), Some(1800.0), Some(1800.0))
        );
        let m = c.mean_mhz.unwrap();
        assert!((m - (408.0 + 3.0 * 1800.0) / 4.0).abs() < 1e-9, "{m}");
        // Nothing within the window: no clock.
        let none = policy_clock(&log, 0, 5.0, 6.0);
        assert_eq!((none.samples, none.p50_mhz), (0, None));
    }
}
