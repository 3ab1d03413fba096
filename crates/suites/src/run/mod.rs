//! `truebench run`: sbc-bench's standard benchmark with every score backed by evidence.
//!
//! idle gate → tune → clocks (cold) → memory per cluster → AES per cluster → compression
//! (single pinned per cluster, then all cores) → [extensive: AES on all cores, compression
//! per cluster, stress, all-core clocks] → clocks (hot, under load) → verdicts → restore.
//!
//! The sampler runs throughout and every step is a timeline phase with the parallelism it
//! uses, so background activity is judged per phase; a snapshot (with the process table) is
//! taken at every phase boundary. The measurements are a [`Measurements`] so the orchestration
//! is tested on fixture roots with scripted kernels; [`LiveMeasurements`] runs the real ones.
//!
//! Ctrl-C (the `stop` flag): the running kernel is abandoned or killed, settings are restored,
//! and the partial result is returned marked `complete: false`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use truebench_model::phase;

use truebench_host::{Host, Inventory};
use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::{self as m, Mode, PhaseStatus, RunPhase, RunResult, Scores};
use truebench_monitor_core::detect::activity;
use truebench_tuning::TuningError;
use truebench_workloads::aes::{self, AesOptions, BuiltinAesResult, Cipher};
use truebench_workloads::lzma::{self, LzmaBenchOptions, LzmaBenchResult};
use truebench_workloads::memory::{self, BandwidthTest, MemoryOptions, MemoryResult};
use truebench_workloads::openssl::{self, OpensslOptions, OpensslResult};
use truebench_workloads::sevenzip::{self, SevenZipOptions, SevenZipRun};
use truebench_workloads::stress::{
    self, StockfishOptions, StockfishResult, StressOptions, StressResult,
};

use crate::clocks::{self, ClockProbe, ClocksOptions, KernelProbe};
use crate::idle::{self, IdleConfig, Verdict};
use crate::progress::Event;
use crate::session::{Finish, Outcome, Session, SessionOptions};

mod aes_phases;
mod clock_phases;
mod compression_phases;
mod energy;
mod idle_gate;
mod live;
mod memory_phase;
mod stress_phase;
mod tune;

pub use live::LiveMeasurements;

/// How each phase is sized.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub mode: Mode,
    /// Change settings (performance governors, devfreq, ASPM) for the run.
    pub tune: bool,
    /// Why not, when `tune` is false (`--no-tuning`, `NOTUNING`).
    pub no_tuning_reason: Option<String>,
    /// Start even when the machine is not idle (the result gets a `not_idle` finding).
    pub force: bool,
    pub idle: IdleConfig,
    /// With a power source, the idle gate samples this long once the machine is idle: the
    /// idle power every phase's "above idle" is measured against.
    pub idle_power: Duration,
    /// sbc-bench's MaxKHz/MinKHz: OPPs outside are skipped, and the run is capped at MaxKHz.
    pub max_khz: Option<u64>,
    pub min_khz: Option<u64>,
    pub sample_interval: Duration,
    pub memory: MemoryOptions,
    /// `openssl speed -seconds` per chunk size.
    pub openssl_seconds: u32,
    pub aes_ciphers: Vec<Cipher>,
    /// Built-in AES: seconds per cipher and chunk size.
    pub builtin_aes_seconds: f64,
    /// `7z b N`; None: 7-zip's default.
    pub sevenzip_iterations: Option<u32>,
    /// `-mdN` forced (quick mode); None: chosen from MemAvailable.
    pub sevenzip_dict_log2: Option<u32>,
    /// All-core 7-zip runs (sbc-bench: 3).
    pub multi_runs: u32,
    pub lzma: LzmaBenchOptions,
    pub stress_seconds: f64,
    pub stress_interval: f64,
    /// Load on the other CPUs before the hot clock check.
    pub hot_settle: Duration,
    pub truebench_version: String,
    /// An external power meter (`--power-cmd`, `--power-file`): one more power source.
    pub meter: Option<std::sync::Arc<crate::meter::Meter>>,
}

impl RunOptions {
    pub fn new(mode: Mode) -> RunOptions {
        let quick = mode == Mode::Quick;
        RunOptions {
            mode,
            tune: true,
            no_tuning_reason: None,
            force: false,
            idle: if quick {
                IdleConfig {
                    window: Duration::from_secs(5),
                    poll: Duration::from_millis(500),
                    ..IdleConfig::default()
                }
            } else {
                IdleConfig::default()
            },
            idle_power: Duration::from_secs(if quick { 5 } else { 10 }),
            max_khz: None,
            min_khz: None,
            sample_interval: if quick {
                Duration::from_millis(500)
            } else {
                Duration::from_secs(1)
            },
            memory: if quick {
                MemoryOptions::quick()
            } else {
                MemoryOptions::standard()
            },
            openssl_seconds: 1,
            // Quick: the cipher the Results.md row uses, 6 s instead of 24 s per cluster.
            aes_ciphers: if quick {
                vec![Cipher::Aes256Cbc]
            } else {
                Cipher::ALL.to_vec()
            },
            builtin_aes_seconds: if quick { 0.1 } else { 1.0 },
            sevenzip_iterations: quick.then_some(1),
            sevenzip_dict_log2: quick.then_some(22),
            multi_runs: if quick { 1 } else { 3 },
            lzma: if quick {
                LzmaBenchOptions::quick()
            } else {
                LzmaBenchOptions::standard()
            },
            stress_seconds: 300.0,
            stress_interval: 10.0,
            hot_settle: if quick {
                Duration::from_millis(500)
            } else {
                Duration::from_secs(2)
            },
            truebench_version: env!("CARGO_PKG_VERSION").to_string(),
            meter: None,
        }
    }
}

/// Why a kernel produced no result.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelError {
    /// The external tool is not installed (the built-in replacement is used).
    NotInstalled(String),
    /// Stopped by the stop flag.
    Interrupted,
    Failed(String),
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelError::NotInstalled(s) | KernelError::Failed(s) => f.write_str(s),
            KernelError::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// The stress load's series, from whichever tool ran.
#[derive(Debug, Clone, PartialEq)]
pub enum StressOutcome {
    Builtin(StressResult),
    Stockfish(StockfishResult),
}

/// The measurements a run needs. CPU numbers are the machine's (the inventory's); an
/// implementation for a recorded root maps them to CPUs it can run on.
pub trait Measurements {
    fn clock_probe(&mut self) -> &mut dyn ClockProbe;
    fn memory(
        &mut self,
        host: &Host,
        opts: &MemoryOptions,
        stop: &AtomicBool,
    ) -> Result<MemoryResult, KernelError>;
    /// `openssl speed`; `NotInstalled` makes the run use [`Measurements::builtin_aes`].
    fn openssl(
        &mut self,
        opts: &OpensslOptions,
        stop: &AtomicBool,
    ) -> Result<OpensslResult, KernelError>;
    /// The built-in AES table, one result per CPU of `cpus`, all measured at the same time.
    fn builtin_aes(
        &mut self,
        opts: &AesOptions,
        cpus: &[u32],
        stop: &AtomicBool,
    ) -> Result<Vec<BuiltinAesResult>, KernelError>;
    /// 7-zip's benchmark; `NotInstalled` makes the run use [`Measurements::lzma`].
    fn sevenzip(
        &mut self,
        opts: &SevenZipOptions,
        mem_available_bytes: Option<u64>,
        allowed_cpus: u32,
        stop: &AtomicBool,
    ) -> Result<SevenZipRun, KernelError>;
    fn lzma(
        &mut self,
        opts: &LzmaBenchOptions,
        stop: &AtomicBool,
    ) -> Result<LzmaBenchResult, KernelError>;
    /// stockfish when installed, else the built-in SIMD load.
    fn stress(
        &mut self,
        cpus: &[u32],
        seconds: f64,
        interval: f64,
        stop: &AtomicBool,
    ) -> Result<StressOutcome, KernelError>;
}

/// Why a run did not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("the system is not idle after {waited_s:.0} s ({reason}){busy}; stop what is running, raise --idle-timeout, or start anyway with --force (the result is then marked not_idle)")]
    NotIdle {
        reason: String,
        waited_s: f64,
        busy: String,
    },
    #[error("interrupted while waiting for the system to become idle; nothing was measured")]
    InterruptedWhileWaiting,
    #[error(transparent)]
    Tuning(TuningError),
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
}

/// A cluster as the run uses it: its online CPUs and the one single-threaded work is pinned to.
#[derive(Debug, Clone)]
struct Group {
    cluster: Option<usize>,
    cpus: Vec<u32>,
    first: u32,
    core_type: Option<String>,
    policy_dir: Option<String>,
}

fn groups(inv: &Inventory) -> Vec<Group> {
    let online = |id: u32| {
        inv.cpus
            .iter()
            .find(|c| c.id == id)
            .is_none_or(|c| c.online)
    };
    let mut out: Vec<Group> = inv
        .clusters
        .iter()
        .filter_map(|c| {
            let cpus: Vec<u32> = c.cpus.iter().copied().filter(|&id| online(id)).collect();
            Some(Group {
                cluster: Some(c.id),
                first: *cpus.first()?,
                cpus,
                core_type: c.core_type.clone(),
                policy_dir: c.policy_dir.clone(),
            })
        })
        .collect();
    if out.is_empty() {
        // No topology at all: one group of whatever CPUs are known (at least cpu0).
        let mut cpus: Vec<u32> = inv.online_cpus().map(|c| c.id).collect();
        if cpus.is_empty() {
            cpus.push(0);
        }
        out.push(Group {
            cluster: None,
            first: cpus[0],
            cpus,
            core_type: inv.cpus.first().and_then(|c| c.core_type.clone()),
            policy_dir: None,
        });
    }
    out
}

fn all_cpus(groups: &[Group]) -> Vec<u32> {
    let mut v: Vec<u32> = groups.iter().flat_map(|g| g.cpus.clone()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn to_json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// A phase's result as progress: `ok`, `FAILED` (why in brackets); a phase that went on with
/// a reservation says it instead of "ok" (`not idle (forced): load 3.50`).
pub fn phase_end(status: PhaseStatus, reason: Option<String>, seconds: f64) -> Event {
    let (text, reason) = match (status, reason) {
        (PhaseStatus::Ok, Some(r)) => (r, None),
        (s, r) => (
            match s {
                PhaseStatus::Ok => "ok",
                PhaseStatus::Skipped => "skipped",
                PhaseStatus::Failed => "FAILED",
                PhaseStatus::Interrupted => "interrupted",
            }
            .to_string(),
            r,
        ),
    };
    Event::Score {
        text,
        reason,
        seconds: Some(seconds),
    }
}

struct Run<'a, M: Measurements + ?Sized> {
    host: &'a Host,
    inv: &'a Inventory,
    opts: &'a RunOptions,
    m: &'a mut M,
    stop: Arc<AtomicBool>,
    events: &'a mut dyn FnMut(Event),
    /// The shared core: sampler, snapshots, tuning, findings, the envelope.
    s: Session<'a>,
    groups: Vec<Group>,
    plan: Vec<RunPhase>,
    /// The cold check's highest-OPP measurement per cluster (by its first CPU): the hot
    /// check is judged against it.
    cold_clocks: Vec<(u32, truebench_monitor_core::detect::clocks::ClockCheck)>,
    /// The running phase's progress (a new one per phase).
    progress: truebench_workloads::progress::Progress,
}

/// Run the benchmark. `Err` only when it could not start (not idle without `--force`,
/// another run tuning this root); everything later — interruption included — ends in a
/// result, with settings restored.
pub fn run<M: Measurements + ?Sized>(
    host: &Host,
    inv: &Inventory,
    opts: &RunOptions,
    m: &mut M,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<RunResult, RunError> {
    let session = Session::start(
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
    let groups = groups(inv);
    let mut plan = vec![
        phase::IDLE,
        phase::CLOCKS_COLD,
        phase::MEMORY,
        phase::AES,
        phase::COMPRESSION_SINGLE,
        phase::COMPRESSION_MULTI,
    ];
    if opts.mode == Mode::Extensive {
        plan.extend([
            phase::AES_PARALLEL,
            phase::COMPRESSION_CLUSTER,
            phase::STRESS,
            phase::CLOCKS_ALL,
        ]);
    }
    plan.push(phase::CLOCKS_HOT);
    let mut r = Run {
        host,
        inv,
        opts,
        m,
        stop,
        events,
        s: session,
        groups,
        plan,
        cold_clocks: Vec::new(),
        progress: Default::default(),
    };
    let plan: Vec<(String, Duration)> = r
        .plan
        .iter()
        .map(|&p| (p.to_string(), r.estimate(p)))
        .collect();
    let total: Duration = plan.iter().map(|p| p.1).sum();
    r.emit(Event::Plan {
        headline: format!(
            "{} phases, about {} (plus waiting for an idle system)",
            plan.len(),
            crate::progress::mmss(total)
        ),
        steps: plan,
    });
    r.phase_idle()?;
    r.begin_tuning()?;
    r.phases_after_idle();
    Ok(r.finish())
}

impl<M: Measurements + ?Sized> Run<'_, M> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn emit(&mut self, e: Event) {
        (self.events)(e);
    }

    fn estimate(&self, name: RunPhase) -> Duration {
        let o = self.opts;
        let n = self.groups.len() as f64;
        let quick = o.mode == Mode::Quick;
        let sevenzip = sevenzip::find().is_some();
        // Measured on a 2-core x86 VM: `7zz b` takes ~40 s, `b 1 -md22` ~10 s; the all-core
        // runs take about as long again plus a fifth.
        let zip_single = if quick { 10.0 } else { 40.0 };
        let lzma_one = 2.0 * o.lzma.seconds + 0.5;
        let s = match name {
            // Without --force the gate judges %cpu over its window unless the load is low
            // already: the window is the honest estimate ("about 1 s" took 76 s).
            phase::IDLE if o.force => 1.0,
            phase::IDLE => o.idle.window.as_secs_f64(),
            phase::CLOCKS_COLD => {
                let opps: usize = self
                    .inv
                    .clusters
                    .iter()
                    .map(|c| c.opps_khz.len().max(1))
                    .sum();
                0.15 * opps.max(1) as f64 + 0.2 * n
            }
            phase::MEMORY => n * if quick { 4.0 } else { 30.0 },
            phase::AES | phase::AES_PARALLEL => {
                let per = if openssl::find().is_some() {
                    (o.aes_ciphers.len() * 6) as f64 * o.openssl_seconds as f64
                } else {
                    (o.aes_ciphers.len() * 6) as f64 * o.builtin_aes_seconds
                };
                // One cluster after another, or all at once.
                match name {
                    phase::AES => per * n,
                    _ => per,
                }
            }
            phase::COMPRESSION_SINGLE => n * if sevenzip { zip_single } else { lzma_one },
            phase::COMPRESSION_MULTI => {
                o.multi_runs as f64 * if sevenzip { zip_single * 1.2 } else { lzma_one }
            }
            phase::COMPRESSION_CLUSTER => {
                if n > 1.0 {
                    n * if sevenzip { zip_single * 1.2 } else { lzma_one }
                } else {
                    0.0
                }
            }
            phase::STRESS => o.stress_seconds,
            phase::CLOCKS_ALL => 7.0,
            phase::CLOCKS_HOT => n * (o.hot_settle.as_secs_f64() + 0.3),
        };
        Duration::from_secs_f64(s)
    }

    /// Run one phase: mark it on the timeline, snapshot its boundaries, record the outcome.
    fn phase(
        &mut self,
        name: RunPhase,
        title: &str,
        threads: Option<u32>,
        cpus: Vec<u32>,
        body: impl FnOnce(&mut Self) -> Outcome,
    ) {
        let index = self.plan.iter().position(|p| *p == name).unwrap_or(0) + 1;
        let estimate = self.estimate(name);
        self.progress = Default::default();
        self.emit(Event::Step {
            index,
            total: self.plan.len(),
            what: name.to_string(),
            title: Some(title.into()),
            estimate: Some(estimate),
            progress: Some(self.progress.clone()),
        });
        let open = self.s.begin_phase(name, title, threads, cpus);
        let out = body(self);
        let p = self.s.end_phase(open, out);
        let (status, reason, seconds) = (p.status, p.reason.clone(), p.duration_s().unwrap_or(0.0));
        self.emit(phase_end(status, reason, seconds));
    }

    // ---------------------------------------------------------------------------------
    // phases (each in its own file: idle_gate.rs, tune.rs, clock_phases.rs, memory_phase.rs,
    // aes_phases.rs, compression_phases.rs, stress_phase.rs; live.rs runs the real kernels)

    fn phases_after_idle(&mut self) {
        let steps: Vec<RunPhase> = self.plan[1..].to_vec();
        for name in steps {
            if self.stopped() {
                self.s.interrupted(format!("before '{name}'"));
                break;
            }
            match name {
                phase::CLOCKS_COLD => {
                    self.phase_clocks_cold();
                    // The walk's limits go back; then the run's own settings.
                    self.s.restore_now();
                    self.apply_tuning();
                    // Verdicts cover the benchmarks, not the walk through low OPPs.
                    self.s.mark_baseline();
                }
                phase::MEMORY => self.phase_memory(),
                phase::AES => self.phase_aes(),
                phase::COMPRESSION_SINGLE => self.phase_compression_single(),
                phase::COMPRESSION_MULTI => self.phase_compression_multi(),
                phase::AES_PARALLEL => self.phase_aes_parallel(),
                phase::COMPRESSION_CLUSTER => self.phase_compression_cluster(),
                phase::STRESS => self.phase_stress(),
                phase::CLOCKS_ALL => self.phase_clocks_all(),
                phase::CLOCKS_HOT => self.phase_clocks_hot(),
                _ => {}
            }
        }
    }

    // ---------------------------------------------------------------------------------
    // verdicts and the result

    fn finish(mut self) -> RunResult {
        let comparable = self.opts.mode != Mode::Quick;
        let scores = self.s.take_scores();
        let mut r = self.s.finish(
            m::RunBody {
                mode: self.opts.mode,
                scores,
            },
            Finish { comparable },
        );
        energy::per_watt(&mut r);
        r
    }
}

/// ` (Cortex-A76)` after a CPU name, or nothing.
fn core(t: &Option<String>) -> String {
    t.as_ref().map(|t| format!(" ({t})")).unwrap_or_default()
}
