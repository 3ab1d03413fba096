//! `truebench interactivity`: interbench rebuilt on the periodic-task engine. Each benchmarked
//! task (Audio, Video, X, Gaming, Custom) runs alone and under each background load, one
//! cell per (task, load), each cell a phase of the Session — monitored and judged like every
//! other measurement, its findings marked on the cell.

pub mod calibration;
pub mod tasks;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_model::finding::FindingKind;
use truebench_model::interactivity::{
    BenchmarkTable, CalibrationSource, Cell, CellLatency, CellPhase, InteractivityBody, Load,
    LoopCalibration,
};
use truebench_model::{InteractivityResult, PhaseStatus, RowEvidence};
use truebench_workloads::loads::{self, LoadKind, LoadOptions};
use truebench_workloads::periodic::{self, Pattern, TaskOutcome, WorkKind};

use crate::progress::Event;
use crate::session::{self, Finish, Outcome, Session, SessionOptions};
pub use tasks::{Bench, CustomTask};

/// How the work per period is given: calibrated loops, a fixed amount of work (interbench's
/// model; the default), or a fixed wall time.
pub use truebench_model::interactivity::WorkModel as Work;

#[derive(Debug, Clone)]
pub struct InteractivityOptions {
    pub benchmarks: Vec<Bench>,
    pub loads: Vec<LoadKind>,
    /// Per cell.
    pub duration: Duration,
    pub realtime: bool,
    pub bench_nice: i32,
    pub load_nice: i32,
    pub custom: Option<CustomTask>,
    /// Burn threads; None = online CPUs.
    pub burn_threads: Option<u32>,
    pub work: Work,
    /// `--loops-per-ms`.
    pub loops_per_ms: Option<u64>,
    pub recalibrate: bool,
    /// Where the calibration is cached (None: not cached).
    pub cache: Option<PathBuf>,
    pub scratch_dir: PathBuf,
    /// Pin the clock to its maximum while calibrating (needs root).
    pub tune: bool,
    pub sample_interval: Duration,
    pub truebench_version: String,
    /// An external power meter (`--power-cmd`, `--power-file`): one more power source.
    pub meter: Option<std::sync::Arc<crate::meter::Meter>>,
}

/// The calibration's result as progress: `52341 loops per ms (measured)`.
pub(crate) fn calibrated(c: &LoopCalibration) -> Event {
    Event::note(format!("{} loops per ms ({})", c.loops_per_ms, c.source))
}

#[derive(Debug, thiserror::Error)]
pub enum InteractivityError {
    #[error("{0}")]
    Tuning(#[from] truebench_tuning::TuningError),
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error("--benchmarks includes custom but --custom-cpu and --custom-interval are missing")]
    NoCustom,
}

/// Size of Write's file: RAM-sized like interbench, but at most half the free space (less
/// 1 GiB) and what a fast disk writes in the cell's time; None when under 64 MiB.
pub fn write_file_bytes(mem_total: Option<u64>, free: Option<u64>, cell: Duration) -> Option<u64> {
    let ram = mem_total.unwrap_or(1 << 30);
    let space = free.map_or(u64::MAX, |f| f.saturating_sub(1 << 30) / 2);
    let in_time = (cell.as_secs_f64().max(1.0) * 500e6) as u64;
    let b = ram.min(space).min(in_time);
    (b >= 64 << 20).then_some(b)
}

fn cell_latency(o: &TaskOutcome, pattern: &Pattern) -> CellLatency {
    let s = o.stats.summary();
    let frames = matches!(pattern, Pattern::Continuous { .. })
        .then(|| o.periods as f64 / (o.wall_ns.max(1) as f64 / 1e9));
    CellLatency {
        samples: s.samples,
        mean_us: s.mean_us,
        sd_us: s.sd_us,
        interbench_sd_us: s.interbench_sd_us,
        max_us: s.max_us,
        p50_us: s.p50_us,
        p99_us: s.p99_us,
        p999_us: s.p999_us,
        desired_cpu_pct: s.desired_cpu_pct,
        deadlines_met_pct: s.deadlines_met_pct,
        deadlines_met: s.deadlines_met,
        deadlines_missed: s.deadlines_missed,
        work_done: s.work_done,
        work_dropped: s.work_dropped,
        mean_slack_us: s.mean_slack_us,
        frames_per_s: frames,
        engine_overhead_us: o.overhead_ns_per_period() / 1000.0,
    }
}

/// Threads a cell keeps busy, for the background- and kernel-activity checks: the task and
/// the load's CPU-bound threads. Loads whose work is kernel time by design (I/O, memory
/// pressure, the socket storm) are not judged for it: None.
fn busy_threads(load: LoadKind, burn: u32) -> Option<u32> {
    match load {
        LoadKind::None => Some(1),
        LoadKind::Video | LoadKind::X | LoadKind::Custom => Some(2),
        LoadKind::Burn => Some(burn + 1),
        LoadKind::Write
        | LoadKind::Read
        | LoadKind::Compile
        | LoadKind::Memload
        | LoadKind::Hack => None,
    }
}

/// How long a started load runs before a cell measures under it (at most).
const LOAD_SETTLE: Duration = Duration::from_millis(500);

/// Run the benchmark. `Err` only when it could not start.
pub fn run(
    host: &Host,
    inv: &Inventory,
    opts: &InteractivityOptions,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<InteractivityResult, InteractivityError> {
    if opts.benchmarks.contains(&Bench::Custom) && opts.custom.is_none() {
        return Err(InteractivityError::NoCustom);
    }
    for d in loads::remove_stale_scratch(&opts.scratch_dir) {
        events(Event::Note(format!(
            "removed {}, left by an interrupted run",
            d.display()
        )));
    }
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
    let wants_tuning = opts.tune && opts.loops_per_ms.is_none();
    s.begin_tuning(
        wants_tuning,
        Some(if opts.loops_per_ms.is_some() {
            "--loops-per-ms given: no calibration, nothing to pin".into()
        } else {
            "tuning switched off".into()
        }),
    )?;
    let wanted = Calibrate {
        given: opts.loops_per_ms,
        recalibrate: opts.recalibrate,
        cache: opts.cache.clone(),
    };
    let calibration = calibrate(&mut s, inv, &wanted, events);
    // The cells run with the machine's own settings: interactivity is judged as configured.
    s.restore_now();
    events(calibrated(&calibration));
    let work = match opts.work {
        Work::Loops => WorkKind::Loops {
            loops_per_ms: calibration.loops_per_ms,
        },
        Work::Wall => WorkKind::Wall,
    };
    // As cyclictest: keep CPUs out of deep idle states while real-time tasks are measured
    // (a request that ends with the process; nothing to restore).
    let _pm_qos = opts
        .realtime
        .then(periodic::sched::hold_low_latency)
        .and_then(|r| match r {
            Ok(f) => Some(f),
            Err(e) => {
                s.note(format!("cannot hold /dev/cpu_dma_latency at 0 µs ({e}): wake-ups from deep idle states add to the latencies"));
                None
            }
        });
    let memory_locked = opts.realtime.then(|| {
        let ok = periodic::sched::lock_memory().is_ok();
        if !ok {
            s.note("mlockall refused (needs root or a higher RLIMIT_MEMLOCK): page faults may delay wake-ups");
        }
        ok
    });
    let n_online = inv.online_cpus().count().max(1) as u32;
    let burn = opts.burn_threads.unwrap_or(n_online).max(1);
    let meminfo = host.meminfo().ok();
    let kb = |v: Option<u64>| v.map(|k| k * 1024);
    let space = host.filesystem_space(&opts.scratch_dir);
    if space.is_some_and(|f| f.in_memory) {
        s.note(format!(
            "{} is in memory (tmpfs): Write and Read never reach a device there; give --scratch-dir on a disk",
            opts.scratch_dir.display()
        ));
    }
    let file_bytes = write_file_bytes(
        kb(meminfo.as_ref().and_then(|m| m.mem_total_kb)),
        space.map(|f| f.free_bytes),
        opts.duration,
    );
    let swap = kb(meminfo.as_ref().and_then(|m| m.swap_total_kb)).unwrap_or(0);
    let memload_bytes = (swap > 0)
        .then(|| kb(meminfo.as_ref().and_then(|m| m.mem_available_kb)))
        .flatten()
        .map(|a| a / 10 * 11);
    let cells: Vec<(Bench, LoadKind)> = opts
        .benchmarks
        .iter()
        .flat_map(|&b| {
            opts.loads
                .iter()
                // interbench does not measure a task against itself as load.
                .filter(move |&&l| l.name() != b.name())
                .map(move |&l| (b, l))
        })
        .collect();
    let mut tables: Vec<BenchmarkTable> = Vec::new();
    for (i, &(bench, load)) in cells.iter().enumerate() {
        let spec = bench
            .spec(opts.custom, work, opts.realtime, opts.bench_nice)
            .expect("custom checked above");
        if tables.last().is_none_or(|t| t.name != bench.model()) {
            tables.push(BenchmarkTable {
                name: bench.model(),
                label: bench.label().into(),
                description: Bench::describe(&spec.pattern),
                policy: spec.policy.to_string(),
                has_deadlines: spec.pattern.has_deadlines(),
                cells: Vec::new(),
            });
        }
        let phase = CellPhase {
            bench: bench.model(),
            load: tasks::load(load),
        };
        if s.stopped() {
            tables.last_mut().expect("pushed").cells.push(Cell {
                load: tasks::load(load),
                load_label: load.label().into(),
                evidence: RowEvidence::new(phase, PhaseStatus::Interrupted)
                    .because("not started: interrupted before"),
                load_description: None,
                latency: None,
                policy_refused: None,
                deepest_idle: None,
            });
            continue;
        }
        events(Event::step(
            i + 1,
            cells.len(),
            format!("{} under {}", bench.label(), load.label()),
            Some(opts.duration.as_secs_f64()),
        ));
        let load_task = match load {
            LoadKind::Video => Bench::Video.spec(None, work, false, opts.load_nice),
            LoadKind::X => Bench::X.spec(None, work, false, opts.load_nice),
            LoadKind::Custom => Bench::Custom.spec(opts.custom, work, false, opts.load_nice),
            _ => None,
        };
        let lopts = LoadOptions {
            burn_threads: burn,
            scratch_dir: opts.scratch_dir.clone(),
            file_bytes: file_bytes.unwrap_or(0),
            memload_bytes,
            task: load_task,
            nice: opts.load_nice,
        };
        let mut cell = Cell {
            load: tasks::load(load),
            load_label: load.label().into(),
            evidence: RowEvidence::new(phase, PhaseStatus::Ok),
            load_description: None,
            latency: None,
            policy_refused: None,
            deepest_idle: None,
        };
        let title = format!("{} under the {} load", bench.label(), load.label());
        let stop2 = stop.clone();
        let p = s.phase(phase, &title, busy_threads(load, burn), Vec::new(), |_| {
            if matches!(load, LoadKind::Write | LoadKind::Read | LoadKind::Compile)
                && file_bytes.is_none()
            {
                return Outcome::skipped(format!(
                    "not enough free space in {} for a scratch file",
                    opts.scratch_dir.display()
                ));
            }
            let running = match loads::start(load, &lopts) {
                Ok(r) => r,
                Err(loads::LoadError::Skipped(why)) => return Outcome::skipped(why),
                Err(e) => return Outcome::failed(e.to_string()),
            };
            cell.load_description = Some(running.description.clone());
            // Let the load reach its steady state before measuring: half a second, or a
            // tenth of a shorter cell, so that settling never dominates the cell.
            if load != LoadKind::None {
                std::thread::sleep(LOAD_SETTLE.min(opts.duration / 10));
            }
            // Interrupted while the load was starting (a scratch file can
            // take seconds): nothing was measured, so report no latency
            // rather than a measurement of zero periods.
            if stop2.load(Ordering::SeqCst) {
                running.stop();
                return Outcome::default();
            }
            let spec2 = spec.clone();
            let dur = opts.duration;
            let st = stop2.clone();
            // Named so that `top -H` (and the tests) can tell the measured
            // task from the load's threads.
            let outcome = std::thread::Builder::new()
                .name("tb-measured".into())
                .spawn(move || periodic::run_task(&spec2, dur, &st, None))
                .map(|t| t.join());
            running.stop();
            match outcome {
                Err(e) => Outcome::failed(format!("cannot start the task's thread: {e}")),
                Ok(Ok(o)) => {
                    cell.policy_refused = o.policy_refused.clone();
                    cell.latency = Some(cell_latency(&o, &spec.pattern));
                    Outcome::default()
                }
                Ok(Err(_)) => Outcome::failed("the task's thread panicked"),
            }
        });
        cell.evidence.status = p.status;
        cell.evidence.reason = p.reason.clone();
        cell.deepest_idle = p.residency.as_ref().and_then(|r| r.deepest().cloned());
        events(Event::status(
            cell.evidence.status,
            cell.evidence.reason.as_deref(),
        ));
        tables.last_mut().expect("pushed").cells.push(cell);
    }
    if memory_locked == Some(true) {
        periodic::sched::unlock_memory();
    }
    let refused: Vec<String> = tables
        .iter()
        .flat_map(|t| t.cells.iter())
        .filter_map(|c| c.policy_refused.clone())
        .collect();
    if let Some(r) = refused.first() {
        s.note(format!("The benchmarked tasks ran as ordinary tasks: {r}"));
    }
    let body = InteractivityBody {
        calibration: Box::new(calibration),
        work: opts.work,
        work_description: work.describe(),
        realtime: opts.realtime,
        memory_locked,
        duration_s: opts.duration.as_secs_f64(),
        bench_nice: opts.bench_nice,
        load_nice: opts.load_nice,
        burn_threads: burn,
        scratch_dir: Some(opts.scratch_dir.display().to_string()),
        benchmarks: tables,
    };
    let mut result = s.finish(body, Finish { comparable: true });
    mark_cells(&mut result);
    Ok(result)
}

/// Each cell gets the kinds of the findings of its phase, and is invalid when a critical
/// one happened meanwhile — except swapping under Memload, whose purpose it is.
fn mark_cells(r: &mut InteractivityResult) {
    let findings = r.envelope.findings.clone();
    for t in &mut r.body.benchmarks {
        for c in &mut t.cells {
            let exempt: &[FindingKind] = if c.load == Load::Memload {
                &[FindingKind::Swapping]
            } else {
                &[]
            };
            session::mark(&mut c.evidence, &findings, &[], exempt);
        }
    }
}

/// What the caller wants of the calibration.
pub(crate) struct Calibrate {
    /// `--loops-per-ms`.
    pub given: Option<u64>,
    pub recalibrate: bool,
    pub cache: Option<PathBuf>,
}

/// Loops per ms: given, cached for this machine, or measured now (pinned to the first CPU
/// of the fastest cluster, its governor at `performance` while Tuning may).
pub(crate) fn calibrate(
    s: &mut Session<'_>,
    inv: &Inventory,
    opts: &Calibrate,
    events: &mut dyn FnMut(Event),
) -> LoopCalibration {
    if let Some(n) = opts.given {
        return LoopCalibration {
            loops_per_ms: n,
            source: CalibrationSource::Given,
            cpu: None,
            checks: Vec::new(),
            drift_pct: None,
            attempts: None,
            clock_pinned: false,
            note: None,
        };
    }
    let id = calibration::identity(inv);
    let (mut cache, warn) = opts
        .cache
        .as_deref()
        .map(calibration::Cache::load)
        .unwrap_or_default();
    if let Some(w) = warn {
        events(Event::Note(w));
    }
    if !opts.recalibrate {
        if let Some(e) = cache.find(&id) {
            return LoopCalibration {
                loops_per_ms: e.loops_per_ms,
                source: CalibrationSource::Cached,
                cpu: e.cpu,
                checks: e.checks.clone(),
                drift_pct: Some(e.drift_pct),
                attempts: None,
                clock_pinned: e.clock_pinned,
                note: opts.cache.as_ref().map(|p| {
                    format!(
                        "Calibration from {} (--recalibrate measures again).",
                        p.display()
                    )
                }),
            };
        }
    }
    events(Event::waiting("calibrating loops per ms (a few seconds)"));
    let fastest = inv
        .clusters
        .iter()
        .max_by_key(|c| c.max_mhz.unwrap_or(0))
        .cloned();
    let cpu = fastest
        .as_ref()
        .and_then(|c| {
            c.cpus
                .iter()
                .copied()
                .find(|&x| inv.online_cpus().any(|o| o.id == x))
        })
        .or_else(|| inv.online_cpus().next().map(|c| c.id));
    let mut pinned = false;
    if let Some(c) = fastest.as_ref().filter(|c| c.policy_dir.is_some()) {
        if s.tuned() {
            pinned = s.set_governor(c, "performance").is_ok();
        }
    }
    let cal = truebench_workloads::pin::run_pinned(cpu, || {
        periodic::calibrate(cpu, Duration::from_secs(1))
    })
    .unwrap_or_else(|_| periodic::calibrate(None, Duration::from_secs(1)));
    let note = (!cal.stable).then(|| {
        format!(
            "The calibration drifted {:.1} % between checks in {} attempts (over 1 %): the machine's clock or load changed while calibrating; fixed-work results carry that uncertainty.",
            cal.drift_pct, cal.attempts
        )
    });
    if let Some(path) = &opts.cache {
        if cal.stable {
            if let Err(e) = cache.store(
                calibration::Entry {
                    identity: id,
                    loops_per_ms: cal.loops_per_ms,
                    cpu,
                    checks: cal.checks.clone(),
                    drift_pct: cal.drift_pct,
                    clock_pinned: pinned,
                },
                path,
            ) {
                events(Event::Note(format!(
                    "cannot cache the calibration in {}: {e}",
                    path.display()
                )));
            }
        }
    }
    LoopCalibration {
        loops_per_ms: cal.loops_per_ms,
        source: CalibrationSource::Measured,
        cpu,
        checks: cal.checks,
        drift_pct: Some(cal.drift_pct),
        attempts: Some(cal.attempts),
        clock_pinned: pinned,
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_file_bounded_by_ram_space_and_time() {
        let g = 1u64 << 30;
        let d = Duration::from_secs(30);
        // RAM 8 GiB, 100 GiB free, 30 s: RAM-sized.
        assert_eq!(write_file_bytes(Some(8 * g), Some(100 * g), d), Some(8 * g));
        // 5 GiB free: half of 4 GiB.
        assert_eq!(write_file_bytes(Some(8 * g), Some(5 * g), d), Some(2 * g));
        // A 2 s cell: 1 GB.
        assert_eq!(
            write_file_bytes(Some(8 * g), Some(100 * g), Duration::from_secs(2)),
            Some(1_000_000_000)
        );
        // Hardly any space: none.
        assert_eq!(write_file_bytes(Some(8 * g), Some(g), d), None);
    }
}
