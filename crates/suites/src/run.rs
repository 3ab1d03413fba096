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

use truebench_host::{Host, Inventory};
use truebench_monitor::detect::activity;
use truebench_monitor::{Finding, FindingKind, Severity};
use truebench_results::model::{self as m, Mode, PhaseStatus, RunResult, Scores};
use truebench_tuning::{Tuning, TuningError};
use truebench_workloads::aes::{self, AesOptions, BuiltinAesResult, Cipher};
use truebench_workloads::lzma::{self, LzmaBenchOptions, LzmaBenchResult};
use truebench_workloads::memory::{self, BandwidthTest, MemoryOptions, MemoryResult};
use truebench_workloads::openssl::{self, OpensslOptions, OpensslResult};
use truebench_workloads::sevenzip::{self, SevenZipOptions, SevenZipRun};
use truebench_workloads::stress::{
    self, StockfishOptions, StockfishResult, StressOptions, StressResult,
};

use crate::clocks::{self, ClockProbe, ClocksOptions, ClocksReport, KernelProbe, WalkMode};
use crate::idle::{self, IdleConfig, Verdict};
use crate::session::{Finish, Outcome, Session, SessionOptions};

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
        }
    }
}

/// What the orchestration tells its caller (progress bars, phase lines).
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Every phase planned, with its estimated duration (for an ETA over the whole run).
    Plan(Vec<(String, Duration)>),
    /// The idle gate's latest verdict while it waits.
    Waiting(String),
    PhaseStart {
        index: usize,
        total: usize,
        name: String,
        title: String,
        estimate: Duration,
    },
    PhaseEnd {
        name: String,
        status: PhaseStatus,
        reason: Option<String>,
        seconds: f64,
    },
    Note(String),
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
    plan: Vec<&'static str>,
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
            kernel_log: None,
            truebench_version: opts.truebench_version.clone(),
        },
        stop.clone(),
    )
    .expect("the kernel log is followed from dev/kmsg, which never fails to open");
    let groups = groups(inv);
    let mut plan = vec![
        "idle",
        "clocks-cold",
        "memory",
        "aes",
        "compression-single",
        "compression-multi",
    ];
    if opts.mode == Mode::Extensive {
        plan.extend([
            "aes-parallel",
            "compression-cluster",
            "stress",
            "clocks-all",
        ]);
    }
    plan.push("clocks-hot");
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
    };
    let plan: Vec<(String, Duration)> = r
        .plan
        .iter()
        .map(|p| (p.to_string(), r.estimate(p)))
        .collect();
    r.emit(Event::Plan(plan));
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

    fn estimate(&self, name: &str) -> Duration {
        let o = self.opts;
        let n = self.groups.len() as f64;
        let quick = o.mode == Mode::Quick;
        let sevenzip = sevenzip::find().is_some();
        // Measured on a 2-core x86 VM: `7zz b` takes ~40 s, `b 1 -md22` ~10 s; the all-core
        // runs take about as long again plus a fifth.
        let zip_single = if quick { 10.0 } else { 40.0 };
        let lzma_one = 2.0 * o.lzma.seconds + 0.5;
        let s = match name {
            "idle" => 1.0,
            "clocks-cold" => {
                let opps: usize = self
                    .inv
                    .clusters
                    .iter()
                    .map(|c| c.opps_khz.len().max(1))
                    .sum();
                0.15 * opps.max(1) as f64 + 0.2 * n
            }
            "memory" => n * if quick { 4.0 } else { 30.0 },
            "aes" | "aes-parallel" => {
                let per = if openssl::find().is_some() {
                    (o.aes_ciphers.len() * 6) as f64 * o.openssl_seconds as f64
                } else {
                    (o.aes_ciphers.len() * 6) as f64 * o.builtin_aes_seconds
                };
                if name == "aes" {
                    per * n
                } else {
                    per
                }
            }
            "compression-single" => n * if sevenzip { zip_single } else { lzma_one },
            "compression-multi" => {
                o.multi_runs as f64 * if sevenzip { zip_single * 1.2 } else { lzma_one }
            }
            "compression-cluster" => {
                if n > 1.0 {
                    n * if sevenzip { zip_single * 1.2 } else { lzma_one }
                } else {
                    0.0
                }
            }
            "stress" => o.stress_seconds,
            "clocks-all" => 7.0,
            "clocks-hot" => n * (o.hot_settle.as_secs_f64() + 0.3),
            _ => 1.0,
        };
        Duration::from_secs_f64(s)
    }

    /// Run one phase: mark it on the timeline, snapshot its boundaries, record the outcome.
    fn phase(
        &mut self,
        name: &str,
        title: &str,
        threads: Option<u32>,
        cpus: Vec<u32>,
        body: impl FnOnce(&mut Self) -> Outcome,
    ) {
        let index = self.plan.iter().position(|p| *p == name).unwrap_or(0) + 1;
        let estimate = self.estimate(name);
        self.emit(Event::PhaseStart {
            index,
            total: self.plan.len(),
            name: name.into(),
            title: title.into(),
            estimate,
        });
        let open = self.s.begin_phase(name, title, threads, cpus);
        let out = body(self);
        let p = self.s.end_phase(open, out);
        let (status, reason, seconds) = (p.status, p.reason.clone(), p.duration_s().unwrap_or(0.0));
        self.emit(Event::PhaseEnd {
            name: name.into(),
            status,
            reason,
            seconds,
        });
    }

    // ---------------------------------------------------------------------------------
    // idle

    fn phase_idle(&mut self) -> Result<(), RunError> {
        let mut report = None;
        let cfg = self.opts.idle.clone();
        self.phase("idle", "the idle gate", None, Vec::new(), |r| {
            let stop = r.stop.clone();
            let mut last = String::new();
            let events = &mut r.events;
            let rep =
                idle::wait_until_idle_or_stop(r.host, r.inv, &cfg, &[], &stop, &mut |_, v| {
                    if let Verdict::Wait(why) = v {
                        if *why != last {
                            last = why.clone();
                            (events)(Event::Waiting(why.clone()));
                        }
                    }
                });
            let out = Outcome {
                status: Some(if rep.idle || r.opts.force {
                    PhaseStatus::Ok
                } else {
                    PhaseStatus::Failed
                }),
                reason: (!rep.idle).then(|| rep.reason.clone()),
                scores: Some(Scores::Idle(m::IdleScores {
                    idle: rep.idle,
                    forced: !rep.idle && r.opts.force,
                    reason: rep.reason.clone(),
                    waited_s: rep.waited.as_secs_f64(),
                    load1: rep.last.and_then(|l| l.load1),
                    busy_pct: rep
                        .last
                        .and_then(|l| l.busy_cores)
                        .map(|b| 100.0 * b / r.inv.online_cpus().count().max(1) as f64),
                    temp_c: rep.last.and_then(|l| l.temp_c),
                    busy_processes: rep
                        .busy_processes
                        .iter()
                        .map(|p| m::BusyProcess {
                            pid: p.pid,
                            comm: p.comm.clone(),
                            cpu_s: p.total_s(),
                        })
                        .collect(),
                })),
                ..Default::default()
            };
            report = Some(rep);
            out
        });
        let rep = report.expect("the idle phase ran");
        if rep.idle {
            return Ok(());
        }
        if self.stopped() {
            return Err(RunError::InterruptedWhileWaiting);
        }
        let busy: Vec<String> = rep
            .busy_processes
            .iter()
            .take(5)
            .map(|p| format!("{} (pid {}) {:.1} s", p.comm, p.pid, p.total_s()))
            .collect();
        if !self.opts.force {
            return Err(RunError::NotIdle {
                reason: rep.reason,
                waited_s: rep.waited.as_secs_f64(),
                busy: if busy.is_empty() {
                    String::new()
                } else {
                    format!("; busiest: {}", busy.join(", "))
                },
            });
        }
        // --force: say so in the result, with the evidence of the idle phase.
        let tl = self.s.sampler.snapshot();
        let phase = tl.phase("idle").cloned();
        let samples = phase.as_ref().map(|p| tl.samples_in(p)).unwrap_or(&[]);
        let (a, b) = phase
            .as_ref()
            .map_or((0.0, 0.0), |p| (p.start, p.end.unwrap_or(p.start)));
        let f =
            activity::not_idle(samples, Some((a, b, &rep.busy_processes))).unwrap_or_else(|| {
                Finding::new(
                    FindingKind::NotIdle,
                    Severity::Warning,
                    format!(
                        "The run was started with --force although the idle gate said: {}.",
                        rep.reason
                    ),
                )
                .with_evidence(busy.clone())
            });
        self.s.finding(f);
        self.emit(Event::Note(format!(
            "not idle ({}); going on because of --force",
            rep.reason
        )));
        Ok(())
    }

    // ---------------------------------------------------------------------------------
    // tuning

    fn begin_tuning(&mut self) -> Result<(), RunError> {
        let why_not = (!self.opts.tune).then(|| {
            self.opts
                .no_tuning_reason
                .clone()
                .unwrap_or_else(|| "tuning switched off".into())
        });
        self.s
            .begin_tuning(self.opts.tune, why_not)
            .map_err(RunError::Tuning)?;
        if self.opts.tune && !self.s.tuned() {
            let why = self.s.record.reason.clone().unwrap_or_default();
            self.emit(Event::Note(why));
        }
        Ok(())
    }

    fn write(&mut self, path: String, value: &str) -> bool {
        self.s.write(path, value)
    }

    /// Performance governor on every cpufreq policy and devfreq device, ASPM `performance`,
    /// MaxKHz/MinKHz as limits.
    fn apply_tuning(&mut self) {
        if !self.s.tuned() {
            return;
        }
        let host = self.host;
        for c in &self.inv.clusters {
            let Ok(dirs) = Tuning::policy_dirs(host, c) else {
                continue;
            };
            for d in dirs {
                if c.governors.iter().any(|g| g == "performance")
                    && host
                        .read_trimmed(format!("{d}/scaling_governor"))
                        .as_deref()
                        != Some("performance")
                {
                    self.write(format!("{d}/scaling_governor"), "performance");
                }
                let (Some(lo), Some(hi)) = (
                    host.read_u64(format!("{d}/cpuinfo_min_freq")),
                    host.read_u64(format!("{d}/cpuinfo_max_freq")),
                ) else {
                    continue;
                };
                // MaxKHz caps the whole run at the highest OPP not above it (sbc-bench).
                if let Some(max) = self.opts.max_khz {
                    let cap = c
                        .opps_khz
                        .iter()
                        .copied()
                        .filter(|&k| k <= max)
                        .max()
                        .unwrap_or(max)
                        .max(lo);
                    if cap < hi {
                        self.write(format!("{d}/scaling_max_freq"), &cap.to_string());
                    }
                }
                if let Some(min) = self.opts.min_khz {
                    let floor = min.clamp(lo, hi);
                    self.write(format!("{d}/scaling_min_freq"), &floor.to_string());
                }
            }
        }
        for dev in host.list("sys/class/devfreq") {
            let base = format!("sys/class/devfreq/{dev}");
            let available = host
                .read_trimmed(format!("{base}/available_governors"))
                .unwrap_or_default();
            if available.split_whitespace().any(|g| g == "performance")
                && host.read_trimmed(format!("{base}/governor")).as_deref() != Some("performance")
            {
                self.write(format!("{base}/governor"), "performance");
            }
        }
        let aspm = "sys/module/pcie_aspm/parameters/policy";
        if let Some(p) = host.read_trimmed(aspm) {
            if truebench_host::parse::bracketed_choice(&p) != Some("performance") {
                self.write(aspm.into(), "performance");
            }
        }
        self.s.settle_tuning_record();
    }

    // ---------------------------------------------------------------------------------
    // phases

    fn phases_after_idle(&mut self) {
        let steps: Vec<&'static str> = self.plan[1..].to_vec();
        for name in steps {
            if self.stopped() {
                self.s.interrupted(format!("before '{name}'"));
                break;
            }
            match name {
                "clocks-cold" => {
                    self.phase_clocks_cold();
                    // The walk's limits go back; then the run's own settings.
                    self.s.restore_now();
                    self.apply_tuning();
                    // Verdicts cover the benchmarks, not the walk through low OPPs.
                    self.s.mark_baseline();
                }
                "memory" => self.phase_memory(),
                "aes" => self.phase_aes(),
                "compression-single" => self.phase_compression_single(),
                "compression-multi" => self.phase_compression_multi(),
                "aes-parallel" => self.phase_aes_parallel(),
                "compression-cluster" => self.phase_compression_cluster(),
                "stress" => self.phase_stress(),
                "clocks-all" => self.phase_clocks_all(),
                "clocks-hot" => self.phase_clocks_hot(),
                _ => {}
            }
        }
    }

    fn clock_options(&self) -> ClocksOptions {
        ClocksOptions {
            max_khz: self.opts.max_khz,
            min_khz: self.opts.min_khz,
            all_cores: false,
            load_heat: Duration::from_secs(if self.opts.mode == Mode::Quick { 1 } else { 5 }),
            tune: self.s.tuned(),
        }
    }

    fn phase_clocks_cold(&mut self) {
        let first: Vec<u32> = self.groups.iter().map(|g| g.first).collect();
        self.phase(
            "clocks-cold",
            "clock check, idle and cold (measured vs advertised for every OPP)",
            Some(1),
            first,
            |r| {
                let opts = r.clock_options();
                let reason =
                    r.s.record
                        .reason
                        .clone()
                        .or_else(|| (!r.opts.tune).then(|| "tuning switched off".to_string()));
                let mut tuning = r.s.take_tuning();
                let report =
                    clocks::run_with(r.host, r.inv, &opts, r.m.clock_probe(), &mut tuning, reason);
                r.s.give_back_tuning(tuning);
                r.s.tool(
                    "built-in clock",
                    Some(format!("truebench {}", r.opts.truebench_version)),
                    None,
                );
                for f in &report.findings {
                    r.s.finding(f.clone());
                }
                r.s.notes.extend(report.notes.iter().cloned());
                clocks_outcome(&report, "OPP walk from the highest OPP")
            },
        );
    }

    fn phase_memory(&mut self) {
        let groups = self.groups.clone();
        let cpus = groups.iter().map(|g| g.first).collect();
        self.phase(
            "memory",
            "memory bandwidth and latency, pinned to the first CPU of each cluster",
            Some(1),
            cpus,
            |r| {
                let mut scores = m::MemoryScores::default();
                let mut out = Outcome::default();
                let mut details = Vec::new();
                for g in &groups {
                    let opts = r.opts.memory.clone().on_cpu(g.first);
                    match r.m.memory(r.host, &opts, &r.stop) {
                        Ok(res) => {
                            out.raw.push(m::RawOutput {
                                label: format!("memory on cpu{}{}", g.first, core(&g.core_type)),
                                command: format!(
                                    "built-in memory kernel, pinned to cpu{}, {} MiB buffer ({})",
                                    g.first,
                                    res.buffer.bytes >> 20,
                                    res.buffer.reason
                                ),
                                text: res.text(),
                            });
                            scores.clusters.push(memory_cluster(g, &res));
                            if let Some(b) = res.bandwidth.first() {
                                r.s.tool("built-in memory", Some(b.implementation.clone()), None);
                            }
                            details.push(to_json(&res));
                        }
                        Err(KernelError::Interrupted) => break,
                        Err(e) => {
                            out.fail(format!("cpu{}: {e}", g.first));
                        }
                    }
                }
                if !scores.clusters.is_empty() {
                    out.scores = Some(Scores::Memory(scores));
                }
                out.details = serde_json::Value::Array(details);
                out
            },
        );
    }

    fn aes_capability(&self, cpu: u32) -> (Option<bool>, Option<String>) {
        let c = aes::cpu_aes_capability(self.host, cpu);
        (c.cpu_has_aes, c.kind)
    }

    fn phase_aes(&mut self) {
        let groups = self.groups.clone();
        let cpus = groups.iter().map(|g| g.first).collect();
        self.phase(
            "aes",
            "AES (openssl speed -elapsed -evp), pinned to the first CPU of each cluster",
            Some(1),
            cpus,
            |r| {
                let mut out = Outcome::default();
                let (has, kind) = r.aes_capability(groups[0].first);
                let mut scores = m::AesScores {
                    source: m::AesSourceKind::Openssl,
                    version: None,
                    has_aes_instructions: has,
                    aes_instructions: kind,
                    parallel: false,
                    sizes: Vec::new(),
                    tables: Vec::new(),
                };
                let mut details = Vec::new();
                let mut use_builtin = false;
                for g in &groups {
                    if use_builtin {
                        break;
                    }
                    let opts = OpensslOptions {
                        seconds: Some(r.opts.openssl_seconds),
                        ciphers: r.opts.aes_ciphers.clone(),
                        ..OpensslOptions::standard()
                    }
                    .on_cpu(g.first);
                    match r.m.openssl(&opts, &r.stop) {
                        Ok(res) => {
                            r.s.tool(
                                "openssl",
                                Some(res.version_line.clone()),
                                Some(res.program.clone()),
                            );
                            scores.version = Some(res.version_line.clone());
                            push_openssl(&mut scores, &mut out.raw, g, &res);
                            details.push(to_json(&res));
                        }
                        Err(KernelError::NotInstalled(why)) => {
                            r.s.notes.push(format!(
                                "{why}: AES measured with the built-in kernel (not comparable with sbc-bench's OpenSSL scores)"
                            ));
                            use_builtin = true;
                        }
                        Err(KernelError::Interrupted) => break,
                        Err(e) => {
                            out.fail(format!("cpu{}: {e}", g.first));
                        }
                    }
                }
                if use_builtin {
                    scores.source = m::AesSourceKind::Builtin;
                    let opts = AesOptions {
                        seconds: r.opts.builtin_aes_seconds,
                        ciphers: r.opts.aes_ciphers.clone(),
                        ..AesOptions::standard()
                    };
                    for g in &groups {
                        match r.m.builtin_aes(&opts, &[g.first], &r.stop) {
                            Ok(res) => {
                                for one in &res {
                                    r.s.tool("built-in aes", Some(one.implementation.clone()), None);
                                    scores.version = Some(one.implementation.clone());
                                    push_builtin(&mut scores, &mut out.raw, g, one);
                                    details.push(to_json(one));
                                }
                            }
                            Err(KernelError::Interrupted) => break,
                            Err(e) => {
                                out.fail(format!("cpu{}: {e}", g.first));
                            }
                        }
                    }
                }
                if !scores.tables.is_empty() {
                    out.scores = Some(Scores::Aes(scores));
                }
                out.details = serde_json::Value::Array(details);
                out
            },
        );
    }

    fn mem_available(&self) -> Option<u64> {
        self.host
            .read("proc/meminfo")
            .ok()
            .and_then(|t| {
                truebench_host::parse::meminfo::parse(&t)
                    .get("MemAvailable")
                    .copied()
            })
            .map(|kb| kb * 1024)
    }

    /// One 7-zip run, or None when 7-zip is missing (`missing` is then set).
    fn sevenzip_once(
        &mut self,
        opts: SevenZipOptions,
        label: String,
        out: &mut Outcome,
        missing: &mut bool,
    ) -> Option<SevenZipRun> {
        let mut opts = opts;
        opts.iterations = self.opts.sevenzip_iterations;
        if opts.dict_log2.is_none() {
            opts.dict_log2 = self.opts.sevenzip_dict_log2;
        }
        let allowed = all_cpus(&self.groups).len() as u32;
        let avail = self.mem_available();
        match self.m.sevenzip(&opts, avail, allowed, &self.stop) {
            Ok(run) => {
                let version = run.bench.as_ref().and_then(|b| b.version.clone());
                self.s.tool("7-zip", version, Some(run.program.clone()));
                out.raw.push(m::RawOutput {
                    label: format!("{label} (dictionary: {})", run.dictionary.reason),
                    command: run.output.command_line(),
                    text: format!("{}{}", run.output.stdout, run.output.stderr),
                });
                if run.bench.is_none() && !run.output.stopped {
                    out.fail(format!(
                        "`{}` printed no result (exit {:?}{})",
                        run.output.command_line(),
                        run.output.exit_code,
                        if run.output.timed_out {
                            ", timed out"
                        } else {
                            ""
                        }
                    ));
                }
                Some(run)
            }
            Err(KernelError::NotInstalled(why)) => {
                *missing = true;
                if !self.s.notes.iter().any(|n| n.starts_with(&why)) {
                    self.s.notes.push(format!(
                        "{why}: the built-in LZMA benchmark ran instead; its MB/s are not 7-zip MIPS"
                    ));
                }
                None
            }
            Err(KernelError::Interrupted) => None,
            Err(e) => {
                out.fail(e.to_string());
                None
            }
        }
    }

    fn lzma_once(
        &mut self,
        cpus: Vec<u32>,
        kind: m::RunKind,
        cluster: Option<usize>,
        label: String,
        out: &mut Outcome,
    ) -> Option<m::CompressionRun> {
        let opts = LzmaBenchOptions {
            cpus: Some(cpus.clone()),
            ..self.opts.lzma.clone()
        };
        match self.m.lzma(&opts, &self.stop) {
            Ok(res) => {
                self.s
                    .tool("built-in lzma", Some(res.implementation.clone()), None);
                out.raw.push(m::RawOutput {
                    label,
                    command: format!(
                        "built-in LZMA benchmark: {} MiB of generated data, dictionary 2^{}, preset {}, {} s each way, CPUs {:?}",
                        opts.data_bytes >> 20,
                        opts.dict_log2,
                        opts.preset,
                        opts.seconds,
                        cpus
                    ),
                    text: res.summary_line(),
                });
                if let serde_json::Value::Array(a) = &mut out.details {
                    a.push(to_json(&res));
                }
                Some(m::CompressionRun {
                    kind,
                    cluster,
                    threads: cpus.len() as u32,
                    cpus,
                    dict_log2: Some(opts.dict_log2),
                    dictionary_reason: None,
                    compress_mips: None,
                    decompress_mips: None,
                    total_mips: None,
                    compress_mb_s: Some(res.compress_mb_s),
                    decompress_mb_s: Some(res.decompress_mb_s),
                    ratio: Some(res.ratio),
                })
            }
            Err(KernelError::Interrupted) => None,
            Err(e) => {
                out.fail(e.to_string());
                None
            }
        }
    }

    /// Runs of one compression phase: 7-zip when installed, the built-in LZMA otherwise.
    fn compression(&mut self, jobs: Vec<(m::RunKind, Option<usize>, Vec<u32>, String)>) -> Outcome {
        let mut out = Outcome {
            details: serde_json::Value::Array(Vec::new()),
            ..Default::default()
        };
        let mut runs = Vec::new();
        let mut missing = false;
        let mut version = None;
        let mut program = None;
        for (kind, cluster, cpus, label) in jobs.clone() {
            if self.stopped() {
                break;
            }
            let opts = match kind {
                m::RunKind::Single => SevenZipOptions::single(cpus[0]),
                m::RunKind::Multi => SevenZipOptions::all(),
                m::RunKind::Cluster => SevenZipOptions::cluster(cpus.clone()),
            };
            let Some(run) = self.sevenzip_once(opts, label, &mut out, &mut missing) else {
                if missing {
                    break;
                }
                continue;
            };
            version = run
                .bench
                .as_ref()
                .and_then(|b| b.version.clone())
                .or(version);
            program = Some(run.program.clone());
            if let serde_json::Value::Array(a) = &mut out.details {
                a.push(to_json(&run));
            }
            let b = run.bench.as_ref();
            runs.push(m::CompressionRun {
                kind,
                cluster,
                threads: b.and_then(|b| b.threads).unwrap_or(run.dictionary.threads),
                cpus,
                dict_log2: Some(run.dictionary.dict_log2),
                dictionary_reason: Some(run.dictionary.reason.clone()),
                compress_mips: b.and_then(|b| b.compress_mips()),
                decompress_mips: b.and_then(|b| b.decompress_mips()),
                total_mips: b.and_then(|b| b.total_mips()),
                compress_mb_s: None,
                decompress_mb_s: None,
                ratio: None,
            });
        }
        let tool = if missing {
            for (kind, cluster, cpus, label) in jobs {
                if self.stopped() {
                    break;
                }
                if let Some(run) = self.lzma_once(cpus, kind, cluster, label, &mut out) {
                    runs.push(run);
                }
            }
            version = Some(lzma::liblzma_version());
            program = None;
            m::CompressionTool::BuiltinLzma
        } else {
            m::CompressionTool::SevenZip
        };
        if !runs.is_empty() {
            out.scores = Some(Scores::Compression(m::CompressionScores {
                tool,
                version,
                program,
                runs,
            }));
        }
        out
    }

    fn phase_compression_single(&mut self) {
        let groups = self.groups.clone();
        let cpus = groups.iter().map(|g| g.first).collect();
        self.phase(
            "compression-single",
            "7-zip single-threaded, pinned to the first CPU of each cluster",
            Some(1),
            cpus,
            |r| {
                let jobs = groups
                    .iter()
                    .map(|g| {
                        (
                            m::RunKind::Single,
                            g.cluster,
                            vec![g.first],
                            format!("single-threaded on cpu{}{}", g.first, core(&g.core_type)),
                        )
                    })
                    .collect();
                r.compression(jobs)
            },
        );
    }

    fn phase_compression_multi(&mut self) {
        let cpus = all_cpus(&self.groups);
        let n = cpus.len() as u32;
        let runs = self.opts.multi_runs.max(1);
        self.phase(
            "compression-multi",
            &format!("7-zip on all cores, {runs} consecutive run(s)"),
            Some(n),
            cpus.clone(),
            |r| {
                let jobs = (1..=runs)
                    .map(|i| {
                        (
                            m::RunKind::Multi,
                            None,
                            cpus.clone(),
                            format!("all cores, run {i} of {runs}"),
                        )
                    })
                    .collect();
                r.compression(jobs)
            },
        );
    }

    fn phase_aes_parallel(&mut self) {
        let cpus = all_cpus(&self.groups);
        let n = cpus.len() as u32;
        self.phase(
            "aes-parallel",
            "AES on all cores in parallel (openssl speed -multi)",
            Some(n),
            cpus.clone(),
            |r| {
                let mut out = Outcome::default();
                let (has, kind) = r.aes_capability(cpus[0]);
                let mut scores = m::AesScores {
                    source: m::AesSourceKind::Openssl,
                    version: None,
                    has_aes_instructions: has,
                    aes_instructions: kind,
                    parallel: true,
                    sizes: Vec::new(),
                    tables: Vec::new(),
                };
                let all = Group {
                    cluster: None,
                    cpus: cpus.clone(),
                    first: cpus[0],
                    core_type: None,
                    policy_dir: None,
                };
                let opts = OpensslOptions {
                    seconds: Some(r.opts.openssl_seconds),
                    ciphers: r.opts.aes_ciphers.clone(),
                    multi: Some(n),
                    cpus: Some(cpus.clone()),
                    ..OpensslOptions::standard()
                };
                match r.m.openssl(&opts, &r.stop) {
                    Ok(res) => {
                        scores.version = Some(res.version_line.clone());
                        push_openssl(&mut scores, &mut out.raw, &all, &res);
                        out.details = to_json(&res);
                    }
                    Err(KernelError::NotInstalled(_)) => {
                        scores.source = m::AesSourceKind::Builtin;
                        let opts = AesOptions {
                            seconds: r.opts.builtin_aes_seconds,
                            ciphers: r.opts.aes_ciphers.clone(),
                            ..AesOptions::standard()
                        };
                        match r.m.builtin_aes(&opts, &cpus, &r.stop) {
                            Ok(res) if !res.is_empty() => {
                                let sum = sum_tables(&res);
                                scores.version = Some(res[0].implementation.clone());
                                push_builtin(&mut scores, &mut out.raw, &all, &sum);
                                out.details = to_json(&res);
                            }
                            Ok(_) | Err(KernelError::Interrupted) => {}
                            Err(e) => return Outcome::failed(e.to_string()),
                        }
                    }
                    Err(KernelError::Interrupted) => {}
                    Err(e) => return Outcome::failed(e.to_string()),
                }
                if !scores.tables.is_empty() {
                    out.scores = Some(Scores::Aes(scores));
                }
                out
            },
        );
    }

    fn phase_compression_cluster(&mut self) {
        let groups = self.groups.clone();
        if groups.len() < 2 {
            self.phase(
                "compression-cluster",
                "7-zip per cluster with all its cores",
                None,
                Vec::new(),
                |_| Outcome::skipped("one cluster: the all-core run already covers it"),
            );
            return;
        }
        for g in groups {
            let title = format!(
                "7-zip on the cores of cluster {}{}",
                g.cluster.map_or("?".into(), |c| c.to_string()),
                core(&g.core_type)
            );
            let n = g.cpus.len() as u32;
            self.phase(
                "compression-cluster",
                &title,
                Some(n),
                g.cpus.clone(),
                |r| {
                    r.compression(vec![(
                        m::RunKind::Cluster,
                        g.cluster,
                        g.cpus.clone(),
                        format!("cluster {} (cpus {:?})", g.cluster.unwrap_or(0), g.cpus),
                    )])
                },
            );
            if self.stopped() {
                return;
            }
        }
    }

    fn phase_stress(&mut self) {
        let cpus = all_cpus(&self.groups);
        let n = cpus.len() as u32;
        let seconds = self.opts.stress_seconds;
        let interval = self.opts.stress_interval;
        self.phase(
            "stress",
            &format!("stress on all cores for {seconds:.0} s, a score every {interval:.0} s"),
            Some(n),
            cpus.clone(),
            |r| match r.m.stress(&cpus, seconds, interval, &r.stop) {
                Ok(StressOutcome::Builtin(s)) => {
                    r.s.tool("built-in stress", Some(s.implementation.clone()), None);
                    Outcome {
                        raw: vec![m::RawOutput {
                            label: "built-in SIMD load, score per interval".into(),
                            command: format!(
                                "built-in stress ({}) on CPUs {cpus:?}, {seconds} s, {interval} s intervals",
                                s.implementation
                            ),
                            text: s.series_text(),
                        }],
                        scores: Some(Scores::Stress(m::StressScores {
                            tool: "built-in".into(),
                            version: Some(s.implementation.clone()),
                            unit: s.unit.clone(),
                            intervals: s
                                .intervals
                                .iter()
                                .map(|i| m::StressInterval {
                                    start_s: i.start_s,
                                    end_s: i.end_s,
                                    score: i.score,
                                })
                                .collect(),
                            change_pct: s.change_pct(),
                        })),
                        details: to_json(&s),
                        ..Default::default()
                    }
                }
                Ok(StressOutcome::Stockfish(s)) => {
                    r.s.tool("stockfish", s.version_line.clone(), Some(s.program.clone()));
                    let mut t = 0.0;
                    let intervals: Vec<m::StressInterval> = s
                        .runs
                        .iter()
                        .filter_map(|run| {
                            let start = t;
                            t += run.output.seconds;
                            Some(m::StressInterval {
                                start_s: start,
                                end_s: t,
                                score: run.bench?.nodes_per_second as f64,
                            })
                        })
                        .collect();
                    let change = match (intervals.first(), intervals.last()) {
                        (Some(a), Some(b)) if intervals.len() > 1 && a.score > 0.0 => {
                            Some((b.score - a.score) / a.score * 100.0)
                        }
                        _ => None,
                    };
                    Outcome {
                        raw: s
                            .runs
                            .iter()
                            .enumerate()
                            .map(|(i, run)| m::RawOutput {
                                label: format!("stockfish bench, run {}", i + 1),
                                command: run.output.command_line(),
                                text: format!("{}{}", run.output.stdout, run.output.stderr),
                            })
                            .collect(),
                        scores: Some(Scores::Stress(m::StressScores {
                            tool: "stockfish".into(),
                            version: s.version_line.clone(),
                            unit: "nodes/s".into(),
                            intervals,
                            change_pct: change,
                        })),
                        details: to_json(&s),
                        ..Default::default()
                    }
                }
                Err(KernelError::Interrupted) => Outcome::default(),
                Err(e) => Outcome::failed(e.to_string()),
            },
        );
    }

    fn phase_clocks_all(&mut self) {
        let cpus = all_cpus(&self.groups);
        let n = cpus.len() as u32;
        self.phase(
            "clocks-all",
            "clock of every CPU at once, idle and under load",
            Some(n),
            cpus,
            |r| {
                let opts = r.clock_options();
                let mut tuning = r.s.take_tuning();
                let a = clocks::all_cores(r.host, r.inv, &opts, r.m.clock_probe(), &mut tuning);
                r.s.give_back_tuning(tuning);
                let conv = |v: &[clocks::CoreClock]| -> Vec<m::CoreClock> {
                    v.iter()
                        .map(|c| m::CoreClock {
                            cpu: c.cpu,
                            measured_mhz: c.measured_mhz,
                            reported_mhz: c.reported_mhz,
                        })
                        .collect()
                };
                let text = |what: &str, v: &[clocks::CoreClock]| -> String {
                    let mut s = format!("Measuring clockspeeds for all cores in parallel ({what}):\n");
                    for c in v {
                        s.push_str(&format!(
                            "cpu{}: {}\n",
                            c.cpu,
                            c.measured_mhz
                                .map_or("failed".into(), |m| format!("{m:.0} MHz"))
                        ));
                    }
                    s
                };
                Outcome {
                    raw: vec![m::RawOutput {
                        label: "all cores".into(),
                        command: format!(
                            "built-in clock measurement on every CPU, idle, then after {} s of load",
                            a.load_heat_s
                        ),
                        text: format!("{}\n{}", text("idle", &a.idle), text("full load", &a.load)),
                    }],
                    scores: Some(Scores::Clocks(m::ClockScores {
                        clusters: Vec::new(),
                        all_cores: Some(m::AllCoreClocks {
                            idle: conv(&a.idle),
                            load: conv(&a.load),
                        }),
                    })),
                    details: to_json(&a),
                    ..Default::default()
                }
            },
        );
    }

    /// The highest allowed OPP of every cluster again, right after the heaviest phases, with
    /// a load on every other CPU so the SoC stays hot.
    fn phase_clocks_hot(&mut self) {
        let groups = self.groups.clone();
        let all = all_cpus(&groups);
        let n = all.len() as u32;
        self.phase(
            "clocks-hot",
            "clock check at the highest OPP, hot and under load on the other CPUs",
            Some(n),
            all.clone(),
            |r| {
                let mut scores = m::ClockScores::default();
                let mut text = String::new();
                for g in &groups {
                    let others: Vec<u32> = all.iter().copied().filter(|&c| c != g.first).collect();
                    let probe = r.m.clock_probe();
                    let load = probe.start_load(&others);
                    std::thread::sleep(r.opts.hot_settle);
                    let measured = probe.measure(r.host, g.first);
                    let firmware = probe.firmware_mhz(r.host);
                    drop(load);
                    let cluster = g.cluster.and_then(|c| r.inv.clusters.get(c));
                    let reported = cluster
                        .and_then(|c| c.cur_freq_file.as_ref())
                        .and_then(|f| r.host.read_u64(f))
                        .map(|k| (k / 1000) as u32);
                    // With the performance governor the clock is the policy's maximum.
                    let opp = g
                        .policy_dir
                        .as_ref()
                        .filter(|_| r.s.record.applied)
                        .and_then(|d| r.host.read_u64(format!("{d}/scaling_max_freq")))
                        .map(|k| (k / 1000) as u32);
                    let point = match measured {
                        Ok(mm) => m::ClockPoint {
                            opp_mhz: opp,
                            reported_mhz: reported,
                            firmware_mhz: firmware,
                            measured_mhz: Some(mm.mhz),
                            deviation_pct: opp
                                .filter(|&o| o > 0)
                                .map(|o| (mm.mhz - o as f64) / o as f64 * 100.0),
                            samples_mhz: mm.samples_mhz,
                            error: None,
                        },
                        Err(e) => m::ClockPoint {
                            opp_mhz: opp,
                            reported_mhz: reported,
                            firmware_mhz: firmware,
                            measured_mhz: None,
                            samples_mhz: Vec::new(),
                            deviation_pct: None,
                            error: Some(e.to_string()),
                        },
                    };
                    if let (Some(o), Some(mhz)) = (point.opp_mhz, point.measured_mhz) {
                        if let Some(mut f) =
                            truebench_monitor::detect::clocks::clock_deviation(o as f64, mhz)
                        {
                            f.message = format!(
                                "{} under load, hot: {}",
                                cluster.map_or("CPU".into(), |c| c.cpu_range()),
                                f.message
                            );
                            r.s.finding(f);
                        }
                    }
                    text.push_str(&format!(
                        "Checking cpufreq OPP for {}{} (hot, load on {} other CPU(s)):\n{}\n\n",
                        cluster.map_or(format!("cpu{}", g.first), |c| c.cpu_range()),
                        core(&g.core_type),
                        others.len(),
                        hot_line(&point)
                    ));
                    scores.clusters.push(m::ClusterClock {
                        cluster: g.cluster.unwrap_or(0),
                        cpus: cluster.map_or(format!("cpu{}", g.first), |c| c.cpu_range()),
                        core_type: g.core_type.clone(),
                        measured_cpu: Some(g.first),
                        mode: "max_opp".into(),
                        points: vec![point],
                        notes: Vec::new(),
                    });
                    if r.stopped() {
                        break;
                    }
                }
                Outcome {
                    raw: vec![m::RawOutput {
                        label: "clocks, hot".into(),
                        command: "built-in clock measurement at the highest allowed OPP".into(),
                        text,
                    }],
                    scores: Some(Scores::Clocks(scores)),
                    ..Default::default()
                }
            },
        );
    }

    // ---------------------------------------------------------------------------------
    // verdicts and the result

    fn finish(self) -> RunResult {
        let comparable = self.opts.mode != Mode::Quick;
        self.s.finish(
            m::RunBody {
                mode: self.opts.mode,
            },
            Finish {
                comparable,
                ..Default::default()
            },
        )
    }
}

fn core(t: &Option<String>) -> String {
    t.as_ref().map(|t| format!(" ({t})")).unwrap_or_default()
}

fn hot_line(p: &m::ClockPoint) -> String {
    let measured = match p.measured_mhz {
        Some(v) => format!(
            "{v:.0} ({})",
            p.samples_mhz
                .iter()
                .map(|s| format!("{s:.3}"))
                .collect::<Vec<_>>()
                .join("/")
        ),
        None => format!("failed ({})", p.error.as_deref().unwrap_or("?")),
    };
    match p.opp_mhz {
        Some(o) => format!(
            "Cpufreq OPP: {o:>4}    Measured: {measured}{}",
            crate::clocks::deviation_column(p.deviation_pct)
        ),
        None => format!("Measured: {measured}"),
    }
}

fn clocks_outcome(report: &ClocksReport, what: &str) -> Outcome {
    let clusters = report
        .clusters
        .iter()
        .map(|c| m::ClusterClock {
            cluster: c.id,
            cpus: c.cpu_range.clone(),
            core_type: c.core_type.clone(),
            measured_cpu: c.measured_cpu,
            mode: match c.mode {
                WalkMode::OppWalk => "opp_walk",
                WalkMode::CurrentClock => "current_clock",
                WalkMode::NoCpufreq => "no_cpufreq",
                WalkMode::Offline => "offline",
            }
            .into(),
            points: c
                .points
                .iter()
                .map(|p| m::ClockPoint {
                    opp_mhz: p.opp_mhz,
                    reported_mhz: p.reported_mhz,
                    firmware_mhz: p.firmware_mhz,
                    measured_mhz: p.measured_mhz,
                    samples_mhz: p.samples_mhz.clone(),
                    deviation_pct: p.deviation_pct,
                    error: p.error.clone(),
                })
                .collect(),
            notes: c.notes.clone(),
        })
        .collect();
    let measured = report
        .clusters
        .iter()
        .flat_map(|c| &c.points)
        .any(|p| p.measured_mhz.is_some());
    Outcome {
        status: (!measured).then_some(PhaseStatus::Failed),
        reason: (!measured).then(|| "no clock could be measured".into()),
        raw: vec![m::RawOutput {
            label: "clocks".into(),
            command: format!("built-in clock measurement ({what})"),
            text: clocks::render_text(report),
        }],
        scores: Some(Scores::Clocks(m::ClockScores {
            clusters,
            all_cores: None,
        })),
        details: to_json(report),
    }
}

fn bandwidth(res: &MemoryResult, t: BandwidthTest) -> Option<m::Bandwidth> {
    res.get(t).map(|b| m::Bandwidth {
        mb_s: b.mb_s,
        spread_pct: b.spread_pct,
        samples: b.samples_mb_s.len() as u32,
    })
}

fn memory_cluster(g: &Group, res: &MemoryResult) -> m::MemoryCluster {
    m::MemoryCluster {
        cluster: g.cluster,
        cpu: Some(g.first),
        core_type: g.core_type.clone(),
        memcpy: bandwidth(res, BandwidthTest::Memcpy),
        memset: bandwidth(res, BandwidthTest::Memset),
        read: bandwidth(res, BandwidthTest::Read),
        buffer_bytes: res.buffer.bytes,
        latency: res
            .latency
            .as_ref()
            .map(|l| {
                l.points
                    .iter()
                    .map(|p| m::LatencyPoint {
                        bytes: p.bytes,
                        ns: p.ns,
                        ns_hugepages: p.ns_hugepages,
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn table_rows(t: &aes::AesTable) -> Vec<m::AesRow> {
    t.rows
        .iter()
        .map(|r| m::AesRow {
            cipher: r.cipher.map_or(r.name.clone(), |c| c.name().to_string()),
            k: r.k.clone(),
        })
        .collect()
}

fn push_openssl(
    scores: &mut m::AesScores,
    raw: &mut Vec<m::RawOutput>,
    g: &Group,
    res: &OpensslResult,
) {
    if scores.sizes.is_empty() {
        scores.sizes = res.table.sizes.iter().map(|&s| s as u32).collect();
    }
    for run in &res.runs {
        raw.push(m::RawOutput {
            label: format!("openssl speed {} on cpu{}", run.cipher.name(), g.first),
            command: run.output.command_line(),
            text: format!("{}{}", run.output.stdout, run.output.stderr),
        });
    }
    scores.tables.push(m::AesTable {
        cluster: g.cluster,
        cpus: if g.cluster.is_none() {
            g.cpus.clone()
        } else {
            vec![g.first]
        },
        core_type: g.core_type.clone(),
        rows: table_rows(&res.table),
    });
}

fn push_builtin(
    scores: &mut m::AesScores,
    raw: &mut Vec<m::RawOutput>,
    g: &Group,
    res: &BuiltinAesResult,
) {
    if scores.sizes.is_empty() {
        scores.sizes = res.table.sizes.iter().map(|&s| s as u32).collect();
    }
    raw.push(m::RawOutput {
        label: format!("built-in AES on cpu{}", g.first),
        command: format!(
            "{} (AES instructions used: {})",
            res.implementation,
            if res.uses_aes_instructions {
                "yes"
            } else {
                "no"
            }
        ),
        text: res.table.text(),
    });
    scores.tables.push(m::AesTable {
        cluster: g.cluster,
        cpus: if g.cluster.is_none() {
            g.cpus.clone()
        } else {
            vec![g.first]
        },
        core_type: g.core_type.clone(),
        rows: table_rows(&res.table),
    });
}

/// Built-in results measured at the same time on several CPUs, summed (the all-cores figure).
fn sum_tables(res: &[BuiltinAesResult]) -> BuiltinAesResult {
    let mut sum = res[0].clone();
    for other in &res[1..] {
        for (row, orow) in sum.table.rows.iter_mut().zip(&other.table.rows) {
            for (v, o) in row.k.iter_mut().zip(&orow.k) {
                *v += o;
            }
        }
    }
    sum
}

// -------------------------------------------------------------------------------------
// the real measurements

/// The real kernels and tools. On a recorded root (`--root DIR`) the machine's CPU numbers
/// are mapped onto the CPUs this process may run on.
pub struct LiveMeasurements {
    probe: KernelProbe,
    live: bool,
    allowed: Vec<u32>,
}

impl LiveMeasurements {
    pub fn new(host: &Host) -> LiveMeasurements {
        LiveMeasurements {
            probe: KernelProbe::new(Default::default()),
            live: host.is_live(),
            allowed: truebench_workloads::pin::current_affinity(),
        }
    }

    fn cpu(&self, cpu: u32) -> u32 {
        if self.live || self.allowed.is_empty() {
            cpu
        } else {
            self.allowed[cpu as usize % self.allowed.len()]
        }
    }

    fn cpus(&self, cpus: &[u32]) -> Vec<u32> {
        let mut v: Vec<u32> = cpus.iter().map(|&c| self.cpu(c)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Run `f` on its own thread and wait for it — or, when `stop` is set first, leave it behind
/// (kernels without a stop flag: the process is about to end anyway).
fn detached<T: Send + 'static>(
    stop: &AtomicBool,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, KernelError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("truebench-kernel".into())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| KernelError::Failed(format!("cannot start a thread: {e}")))?;
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(v) => return Ok(v),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if stop.load(Ordering::SeqCst) {
                    return Err(KernelError::Interrupted);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(KernelError::Failed(
                    "the measurement thread panicked".into(),
                ))
            }
        }
    }
}

impl Measurements for LiveMeasurements {
    fn clock_probe(&mut self) -> &mut dyn ClockProbe {
        &mut self.probe
    }

    fn memory(
        &mut self,
        host: &Host,
        opts: &MemoryOptions,
        stop: &AtomicBool,
    ) -> Result<MemoryResult, KernelError> {
        let mut o = opts.clone();
        o.cpu = o.cpu.map(|c| self.cpu(c));
        let h = host.clone();
        let mut res = detached(stop, move || memory::measure(&h, &o))?
            .map_err(|e| KernelError::Failed(e.to_string()))?;
        res.cpu = opts.cpu;
        Ok(res)
    }

    fn openssl(
        &mut self,
        opts: &OpensslOptions,
        stop: &AtomicBool,
    ) -> Result<OpensslResult, KernelError> {
        let mut o = opts.clone();
        o.cpu = o.cpu.map(|c| self.cpu(c));
        o.cpus = o.cpus.as_deref().map(|c| self.cpus(c));
        if let (Some(m), Some(c)) = (o.multi, &o.cpus) {
            o.multi = Some(m.min(c.len() as u32).max(1));
        }
        match openssl::measure(&o, Some(stop)) {
            Ok(r) if stop.load(Ordering::SeqCst) && r.table.rows.is_empty() => {
                Err(KernelError::Interrupted)
            }
            Ok(r) => Ok(r),
            Err(openssl::OpensslError::NotInstalled) => {
                Err(KernelError::NotInstalled("openssl is not installed".into()))
            }
            Err(e) => Err(KernelError::Failed(e.to_string())),
        }
    }

    fn builtin_aes(
        &mut self,
        opts: &AesOptions,
        cpus: &[u32],
        stop: &AtomicBool,
    ) -> Result<Vec<BuiltinAesResult>, KernelError> {
        let jobs: Vec<AesOptions> = cpus
            .iter()
            .map(|&c| opts.clone().on_cpu(self.cpu(c)))
            .collect();
        let res = detached(stop, move || {
            std::thread::scope(|s| {
                let hs: Vec<_> = jobs
                    .iter()
                    .map(|o| s.spawn(move || aes::measure_builtin(o)))
                    .collect();
                hs.into_iter()
                    .map(|h| {
                        h.join()
                            .map_err(|_| "panicked".to_string())
                            .and_then(|r| r.map_err(|e| e.to_string()))
                    })
                    .collect::<Result<Vec<_>, String>>()
            })
        })?
        .map_err(KernelError::Failed)?;
        Ok(res
            .into_iter()
            .zip(cpus)
            .map(|(mut r, &c)| {
                r.cpu = Some(c);
                r
            })
            .collect())
    }

    fn sevenzip(
        &mut self,
        opts: &SevenZipOptions,
        mem_available_bytes: Option<u64>,
        allowed_cpus: u32,
        stop: &AtomicBool,
    ) -> Result<SevenZipRun, KernelError> {
        let mut o = opts.clone();
        o.cpus = o.cpus.as_deref().map(|c| self.cpus(c));
        if !self.live {
            if let (Some(t), Some(c)) = (o.threads, &o.cpus) {
                o.threads = Some(t.min(c.len() as u32));
            }
        }
        let allowed = if self.live {
            allowed_cpus
        } else {
            self.allowed.len().max(1) as u32
        };
        match sevenzip::run(&o, mem_available_bytes, allowed, Some(stop)) {
            Ok(r) if r.output.stopped => Err(KernelError::Interrupted),
            Ok(r) => Ok(r),
            Err(sevenzip::SevenZipError::NotInstalled) => Err(KernelError::NotInstalled(
                "7-zip is not installed (`apt install 7zip` adds 7zz)".into(),
            )),
            Err(e) => Err(KernelError::Failed(e.to_string())),
        }
    }

    fn lzma(
        &mut self,
        opts: &LzmaBenchOptions,
        stop: &AtomicBool,
    ) -> Result<LzmaBenchResult, KernelError> {
        let mut o = opts.clone();
        o.cpus = o.cpus.as_deref().map(|c| self.cpus(c));
        match lzma::measure(&o, Some(stop)) {
            Ok(r) if r.stopped => Err(KernelError::Interrupted),
            Ok(r) => Ok(r),
            Err(e) => Err(KernelError::Failed(e.to_string())),
        }
    }

    fn stress(
        &mut self,
        cpus: &[u32],
        seconds: f64,
        interval: f64,
        stop: &AtomicBool,
    ) -> Result<StressOutcome, KernelError> {
        let real = self.cpus(cpus);
        if let Some(p) = stress::find_stockfish() {
            let opts = StockfishOptions {
                threads: real.len() as u32,
                cpus: Some(real),
                seconds,
                ..StockfishOptions::standard(1)
            };
            return stress::run_stockfish_with(&p, &opts, Some(stop))
                .map(StressOutcome::Stockfish)
                .map_err(|e| KernelError::Failed(e.to_string()));
        }
        let opts = StressOptions {
            cpus: real,
            seconds,
            interval_seconds: interval,
        };
        stress::run_builtin(&opts, Some(stop), |_| {})
            .map(StressOutcome::Builtin)
            .map_err(|e| KernelError::Failed(e.to_string()))
    }
}
