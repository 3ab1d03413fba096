//! The Session: the shared core of every measurement.
//!
//! start the sampler and the kernel-log reader → (tune through [`Tuning`], every write
//! recorded) → phases, each marked on the timeline with the threads it keeps busy and an
//! evidence snapshot at both boundaries → restore → run the detectors once, through one
//! pipeline with each phase's context → assemble the envelope of the result document.
//!
//! Ctrl-C/SIGTERM set the `stop` flag: the running phase is marked interrupted, later phases
//! are not started, settings are restored and the result says where it stopped
//! (`complete: false`). Suites (run, clocks, monitor -- CMD…) are plans of phases on a Session.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use truebench_model::phase;

use truebench_host::inventory::Cluster;
use truebench_host::parse::os_release;
use truebench_host::{Host, Inventory};
use truebench_model::finding::{Finding, FindingKind};
use truebench_model::{self as m, BodyKind, PhaseId, PhaseStatus, RowEvidence, Stamp, Typed};
use truebench_monitor::capture::{self, SnapshotOptions};
use truebench_monitor::kmsg::KernelLogReader;
use truebench_monitor::sampler::{Sampler, SamplerConfig};
use truebench_monitor::Sources;
use truebench_monitor_core::detect::phases::PhaseEvidence;
use truebench_monitor_core::detect::{self, throttling, Context};
use truebench_monitor_core::evidence::Snapshot;
use truebench_monitor_core::kmsg::KernelLog;
use truebench_tuning::{Tuning, TuningError};

/// How a session samples and where it reads the kernel log.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    pub sample_interval: Duration,
    /// Read kernel-log lines from this file instead of `dev/kmsg` (`--kernel-log`).
    pub kernel_log: Option<std::path::PathBuf>,
    /// Readings beyond the standard set (power per source, pressure, disks, network…).
    pub sources: Sources,
    pub truebench_version: String,
    /// An external power meter (`--power-cmd`, `--power-file`), one more power source.
    pub meter: Option<Arc<crate::meter::Meter>>,
    /// How much of the end of the `idle` phase is the machine's idle power (see
    /// `IDLE_PHASE`); the idle gate keeps sampling that long when there is a power source.
    pub idle_power: Duration,
    /// Called with each sample as it is taken (see [`EachSample`]).
    pub each_sample: Option<EachSample>,
}

/// Called on the sampler's thread with each sample as it is taken, before it joins the
/// timeline (`monitor --json-lines -- CMD` prints it then, not when the command ended). Keep
/// it short: the next sample waits for it. The closing sample taken when the session ends is
/// not passed: it is the timeline's last.
#[derive(Clone)]
pub struct EachSample(pub Arc<SampleFn>);

/// What [`EachSample`] calls.
pub type SampleFn = dyn Fn(&truebench_model::timeline::Sample, &truebench_model::timeline::ExtraSample)
    + Send
    + Sync;

impl std::fmt::Debug for EachSample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EachSample")
    }
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            sample_interval: Duration::from_secs(1),
            kernel_log: None,
            sources: Sources::default(),
            truebench_version: env!("CARGO_PKG_VERSION").to_string(),
            meter: None,
            idle_power: Duration::from_secs_f64(IDLE_POWER_S),
            each_sample: None,
        }
    }
}

/// What one phase produced, before it is placed on the timeline.
#[derive(Default)]
pub struct Outcome {
    pub status: Option<PhaseStatus>,
    pub reason: Option<String>,
    /// Typed scores (`run`'s phases): collected for the body, see [`Session::take_scores`].
    pub scores: Option<m::Scores>,
    pub raw: Vec<m::RawOutput>,
    pub details: serde_json::Value,
}

impl Outcome {
    /// Mark the phase failed; the last failure's reason is the one reported.
    pub fn fail(&mut self, reason: impl Into<String>) {
        self.status = Some(PhaseStatus::Failed);
        self.reason = Some(reason.into());
    }

    pub fn skipped(reason: impl Into<String>) -> Outcome {
        Outcome {
            status: Some(PhaseStatus::Skipped),
            reason: Some(reason.into()),
            ..Default::default()
        }
    }

    pub fn failed(reason: impl Into<String>) -> Outcome {
        Outcome {
            status: Some(PhaseStatus::Failed),
            reason: Some(reason.into()),
            ..Default::default()
        }
    }
}

/// What a phase's body gives back: its outcome alone, or the outcome and a value for the
/// caller (`(Outcome, T)`), which [`Session::phase`] returns beside the recorded phase.
pub trait PhaseBody<T> {
    fn into_parts(self) -> (Outcome, T);
}

impl PhaseBody<()> for Outcome {
    fn into_parts(self) -> (Outcome, ()) {
        (self, ())
    }
}

impl<T> PhaseBody<T> for (Outcome, T) {
    fn into_parts(self) -> (Outcome, T) {
        self
    }
}

/// A phase as recorded (its status and reason through `Deref`) and what its body returned.
pub struct Ran<'s, T> {
    pub recorded: &'s m::PhaseResult,
    pub value: T,
}

impl<T> std::ops::Deref for Ran<'_, T> {
    type Target = m::PhaseResult;
    fn deref(&self) -> &m::PhaseResult {
        self.recorded
    }
}

/// Options of [`Session::finish`].
#[derive(Debug, Clone, Default)]
pub struct Finish {
    /// False when the figures are not comparable with full measurements (`--quick`).
    pub comparable: bool,
}

/// A phase begun with [`Session::begin_phase`].
#[derive(Debug)]
pub struct OpenPhase {
    name: String,
    title: String,
    threads: Option<u32>,
    cpus: Vec<u32>,
    started: f64,
    started_unix_ms: i64,
    /// Index of the snapshot at its start, and the kernel-log lines read before it.
    snapshot: usize,
    log_from: usize,
}

/// Where a phase's own evidence is: the detectors tie findings to it from there.
#[derive(Debug, Clone)]
struct Span {
    name: String,
    start: f64,
    end: f64,
    snapshots: (usize, usize),
    log: (usize, usize),
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("--kernel-log {}: {source}", path.display())]
    KernelLog {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

pub struct Session<'a> {
    host: &'a Host,
    inv: &'a Inventory,
    stop: Arc<AtomicBool>,
    sampler: Sampler,
    klog: KernelLogReader,
    started: Stamp,
    t0: Instant,
    version: String,
    idle_power: Duration,
    phases: Vec<m::PhaseResult>,
    /// The typed scores phases gave (only `run`'s do), for the kind's body.
    scores: Vec<m::PhaseScores>,
    spans: Vec<Span>,
    snapshots: Vec<Snapshot>,
    /// Index into `snapshots` of the "before" of the verdicts (after tuning, by default the
    /// first snapshot).
    baseline: Option<usize>,
    tuning: Option<Tuning>,
    record: m::TuningRecord,
    tools: Vec<m::Tool>,
    findings: Vec<Finding>,
    notes: Vec<String>,
    interrupted_in: Option<String>,
    /// Processes outside truebench's tree that are part of the measurement (see
    /// [`Session::part_of_measurement`]).
    peers: Vec<u32>,
}

impl<'a> Session<'a> {
    /// Start sampling and following the kernel log. Fails only when `--kernel-log FILE`
    /// cannot be read.
    pub fn start(
        host: &'a Host,
        inv: &'a Inventory,
        opts: &SessionOptions,
        stop: Arc<AtomicBool>,
    ) -> Result<Session<'a>, SessionError> {
        let klog = match &opts.kernel_log {
            Some(p) => KernelLogReader::from_file(p).map_err(|source| SessionError::KernelLog {
                path: p.clone(),
                source,
            })?,
            None => KernelLogReader::start(host),
        };
        let sampler = Sampler::start(
            host,
            inv,
            SamplerConfig {
                interval: opts.sample_interval,
                sources: opts.sources,
                meter: opts
                    .meter
                    .clone()
                    .map(|m| m as Arc<dyn truebench_monitor::reader::ExternalPower>),
                ..Default::default()
            },
            opts.each_sample.clone().map(|f| {
                Box::new(move |s: &truebench_model::timeline::Sample, x: &_| {
                    (f.0)(s, x);
                    std::ops::ControlFlow::Continue(())
                }) as truebench_monitor::sampler::OnSample
            }),
        );
        Ok(Session {
            host,
            inv,
            stop,
            sampler,
            klog,
            started: Stamp::now(),
            t0: Instant::now(),
            version: opts.truebench_version.clone(),
            idle_power: opts.idle_power,
            phases: Vec::new(),
            scores: Vec::new(),
            spans: Vec::new(),
            snapshots: Vec::new(),
            baseline: None,
            tuning: None,
            record: m::TuningRecord::default(),
            tools: Vec::new(),
            findings: Vec::new(),
            notes: Vec::new(),
            interrupted_in: None,
            peers: Vec::new(),
        })
    }

    /// The machine the session reads.
    pub fn host(&self) -> &'a Host {
        self.host
    }

    pub fn inv(&self) -> &'a Inventory {
        self.inv
    }

    /// The stop flag (Ctrl-C, SIGTERM), for work that must look at it itself.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// The open phase does its work in the kernel (network, storage): `%sys` is expected.
    pub fn mark_kernel_work(&self) {
        self.sampler.mark_kernel_work();
    }

    /// Files the sampler stopped reading because a read hung.
    pub fn sampler_disabled(&self) -> Vec<String> {
        self.sampler.disabled()
    }

    /// A copy of the timeline so far (the idle gate judges it).
    pub fn timeline(&self) -> truebench_model::timeline::Timeline {
        self.sampler.snapshot()
    }

    /// The readings of the power sources `parts` so far, without copying the timeline.
    pub fn power_readings(&self, parts: &[usize]) -> Vec<truebench_model::timeline::PowerSeries> {
        self.sampler.power_readings(parts)
    }

    /// The latest sample, without copying the timeline.
    pub fn last_sample(&self) -> Option<truebench_model::timeline::Sample> {
        self.sampler.last_sample()
    }

    /// What tuning did so far.
    pub fn tuning_record(&self) -> &m::TuningRecord {
        &self.record
    }

    /// Why settings are not (all) changed, in the record.
    pub fn set_tuning_reason(&mut self, why: &str) {
        self.record.reason = Some(why.to_string());
    }

    /// Whether settings were changed, for work that tuned with a lent Tuning (the OPP walk).
    pub fn set_tuning_applied(&mut self, applied: bool) {
        self.record.applied = applied;
    }

    /// The notes so far.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The kernel-log lines logged since the session started (read now).
    pub fn kernel_log_lines(&mut self) -> Vec<String> {
        self.klog.collect().lines().to_vec()
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Seconds on the timeline's clock.
    pub fn now(&self) -> f64 {
        self.sampler.now()
    }

    /// An evidence snapshot (process table included) at this moment of the timeline.
    pub fn snapshot(&mut self) {
        let rpi = self
            .sampler
            .last_sample()
            .and_then(|s| s.rpi)
            .and_then(|r| r.throttled);
        let s = capture::snapshot_with(
            self.host,
            self.inv,
            &SnapshotOptions {
                t: Some(self.sampler.now()),
                rpi_throttled: rpi,
                exclude_pids: self.peers.clone(),
                ..Default::default()
            },
        );
        self.snapshots.push(s);
    }

    /// Take a snapshot now and judge everything after it: what came before (an OPP walk
    /// through low clocks, the idle wait) is not held against the measurement.
    pub fn mark_baseline(&mut self) {
        self.snapshot();
        self.baseline = Some(self.snapshots.len() - 1);
    }

    /// Record a program or built-in kernel that produced figures (once per name).
    pub fn tool(&mut self, name: &str, version: Option<String>, path: Option<String>) {
        if !self.tools.iter().any(|t| t.name == name) {
            self.tools.push(m::Tool {
                name: name.into(),
                version,
                path,
            });
        }
    }

    /// A finding a phase established itself (clock deviation, forced start…).
    pub fn finding(&mut self, f: Finding) {
        self.findings.push(f);
    }

    /// Count process `pid` and its descendants as part of the measurement, as truebench's own
    /// tree is: a peer the measurement drives on this machine (a `net --server` here), whose
    /// CPU time is then not another process's load. Said in the notes (`why`); for the
    /// phases begun from now on.
    pub fn part_of_measurement(&mut self, pid: u32, why: impl Into<String>) {
        if !self.peers.contains(&pid) {
            self.peers.push(pid);
            self.notes.push(why.into());
        }
    }

    pub fn note(&mut self, n: impl Into<String>) {
        self.notes.push(n.into());
    }

    /// Mark the measurement interrupted `where_` (`before 'memory'`) unless it already is.
    pub fn interrupted(&mut self, where_: impl Into<String>) {
        self.interrupted_in.get_or_insert_with(|| where_.into());
    }

    /// Run one phase: mark it on the timeline, snapshot its boundaries, record the outcome.
    /// `name` is the kind's phase identity; its string is the envelope's phase name. Returns
    /// the phase as recorded.
    pub fn phase<T, B: PhaseBody<T>>(
        &mut self,
        name: impl std::fmt::Display,
        title: &str,
        threads: Option<u32>,
        cpus: Vec<u32>,
        body: impl FnOnce(&mut Self) -> B,
    ) -> Ran<'_, T> {
        let open = self.begin_phase(name, title, threads, cpus);
        let (out, value) = body(self).into_parts();
        Ran {
            recorded: self.end_phase(open, out),
            value,
        }
    }

    /// The first half of [`Session::phase`], for suites whose phase bodies need more than the
    /// session: snapshot, mark the phase on the timeline.
    pub fn begin_phase(
        &mut self,
        name: impl std::fmt::Display,
        title: &str,
        threads: Option<u32>,
        cpus: Vec<u32>,
    ) -> OpenPhase {
        let name = name.to_string();
        self.snapshot();
        let snapshot = self.snapshots.len() - 1;
        let log_from = self.klog.poll();
        let started = self.sampler.now();
        let started_unix_ms = Stamp::now().unix_ms;
        self.sampler.mark_phase(&name, threads);
        OpenPhase {
            name,
            title: title.into(),
            threads,
            cpus,
            started,
            started_unix_ms,
            snapshot,
            log_from,
        }
    }

    /// The second half: end the mark, snapshot, record the outcome (interrupted when the stop
    /// flag was raised meanwhile).
    pub fn end_phase(&mut self, open: OpenPhase, mut out: Outcome) -> &m::PhaseResult {
        self.sampler.end_phase();
        let ended = self.sampler.now();
        self.snapshot();
        self.spans.push(Span {
            name: open.name.clone(),
            start: open.started,
            end: ended,
            snapshots: (open.snapshot, self.snapshots.len() - 1),
            log: (open.log_from, self.klog.poll()),
        });
        let mut status = out.status.unwrap_or(PhaseStatus::Ok);
        if self.stopped() && status != PhaseStatus::Skipped {
            status = PhaseStatus::Interrupted;
            out.reason
                .get_or_insert_with(|| "interrupted (Ctrl-C or SIGTERM)".into());
            self.interrupted(open.name.clone());
        }
        if let Some(scores) = out.scores {
            self.scores.push(m::PhaseScores {
                phase: open.name.clone(),
                scores,
            });
        }
        let residency = truebench_monitor_core::residency::phase_residency(
            self.inv,
            &self.snapshots[open.snapshot],
            &self.snapshots[self.snapshots.len() - 1],
            &open.cpus,
        );
        self.phases.push(m::PhaseResult {
            name: open.name,
            title: open.title,
            started: open.started,
            ended: Some(ended),
            started_unix_ms: open.started_unix_ms,
            ended_unix_ms: Some(Stamp::now().unix_ms),
            threads: open.threads,
            cpus: open.cpus,
            status,
            reason: out.reason,
            raw: out.raw,
            details: out.details,
            marks: Vec::new(),
            invalid: None,
            residency,
        });
        self.phases.last().expect("just pushed")
    }

    /// The typed scores the phases gave so far, in their order (for the body; they are not
    /// kept in the envelope).
    pub fn take_scores(&mut self) -> Vec<m::PhaseScores> {
        std::mem::take(&mut self.scores)
    }

    /// The phases recorded so far.
    pub fn phases(&self) -> &[m::PhaseResult] {
        &self.phases
    }

    // ---------------------------------------------------------------------------------
    // tuning

    /// Start changing settings (journaled first by [`Tuning`]). Without the right to, the
    /// measurement goes on untuned and the record says why; only another run tuning this
    /// root stops it (`Err`).
    pub fn begin_tuning(
        &mut self,
        wanted: bool,
        why_not: Option<String>,
    ) -> Result<Option<TuningError>, TuningError> {
        self.record.requested = wanted;
        if !wanted {
            self.record.reason = Some(why_not.unwrap_or_else(|| "tuning switched off".into()));
            return Ok(None);
        }
        match Tuning::begin(self.host) {
            Ok(t) => self.tuning = Some(t),
            Err(e @ TuningError::Busy { .. }) => return Err(e),
            Err(e) => {
                let needs_root = match &e {
                    TuningError::PermissionDenied { .. } | TuningError::ReadOnly { .. } => true,
                    TuningError::Journal { source, .. } => {
                        source.kind() == std::io::ErrorKind::PermissionDenied
                    }
                    _ => false,
                };
                self.record.reason = Some(if needs_root {
                    format!("changing settings needs root ({e}); the measurement goes on untuned")
                } else {
                    format!("settings could not be changed ({e}); the measurement goes on untuned")
                });
                return Ok(Some(e));
            }
        }
        Ok(None)
    }

    pub fn tuned(&self) -> bool {
        self.tuning.is_some()
    }

    /// Why the session is not tuned, as recorded.
    pub fn tuning_reason(&self) -> Option<&str> {
        self.record.reason.as_deref()
    }

    /// Change settings with one of Tuning's typed setters, every write recorded; the error
    /// (with the file) when untuned or a write failed.
    fn tune(
        &mut self,
        set: impl FnOnce(&mut Tuning) -> Result<(), TuningError>,
    ) -> Result<(), String> {
        let Some(t) = self.tuning.as_mut() else {
            return Err(self
                .record
                .reason
                .clone()
                .unwrap_or_else(|| "settings are not tuned".into()));
        };
        let res = set(t);
        for w in t.take_written() {
            self.record.applied |= w.error.is_none();
            self.record.changes.push(m::TuningChange {
                path: w.path,
                value: w.value,
                error: w.error,
            });
        }
        res.map_err(|e| e.to_string())
    }

    /// The cpufreq governor of every policy of `cluster`.
    pub fn set_governor(&mut self, cluster: &Cluster, governor: &str) -> Result<(), String> {
        self.tune(|t| t.set_governor(cluster, governor))
    }

    /// `scaling_setspeed` of every policy of `cluster` (under the userspace governor).
    pub fn set_setspeed_khz(&mut self, cluster: &Cluster, khz: u64) -> Result<(), String> {
        self.tune(|t| t.set_setspeed_khz(cluster, khz))
    }

    /// `[min, max]` of every policy of `cluster`, written in the order that keeps min ≤ max.
    pub fn set_range_khz(&mut self, cluster: &Cluster, min: u64, max: u64) -> Result<(), String> {
        self.tune(|t| t.set_range_khz(cluster, min, max))
    }

    /// A cap on the clock of every policy of `cluster`.
    pub fn set_max_khz(&mut self, cluster: &Cluster, khz: u64) -> Result<(), String> {
        self.tune(|t| t.set_max_khz(cluster, khz))
    }

    /// A floor under the clock of every policy of `cluster`.
    pub fn set_min_khz(&mut self, cluster: &Cluster, khz: u64) -> Result<(), String> {
        self.tune(|t| t.set_min_khz(cluster, khz))
    }

    pub fn set_cpu_online(&mut self, cpu: u32, online: bool) -> Result<(), String> {
        self.tune(|t| t.set_cpu_online(cpu, online))
    }

    /// The governor of a devfreq device (`dmc`, `fb000000.gpu`).
    pub fn set_devfreq_governor(&mut self, device: &str, governor: &str) -> Result<(), String> {
        self.tune(|t| t.set_devfreq_governor(device, governor))
    }

    pub fn set_pcie_aspm_policy(&mut self, policy: &str) -> Result<(), String> {
        self.tune(|t| t.set_pcie_aspm_policy(policy))
    }

    /// Lend the Tuning to code that changes settings itself (the OPP walk); give it back
    /// with [`Session::give_back_tuning`].
    pub fn take_tuning(&mut self) -> Option<Tuning> {
        self.tuning.take()
    }

    pub fn give_back_tuning(&mut self, t: Option<Tuning>) {
        self.tuning = t;
    }

    /// Put every setting changed so far back now (the session stays tuned for more writes).
    pub fn restore_now(&mut self) {
        if let Some(t) = self.tuning.as_mut() {
            match t.restore() {
                Ok(rep) => {
                    self.record.restored.extend(rep.restored);
                    self.record.restore_failed.extend(
                        rep.failed
                            .into_iter()
                            .map(|(path, reason)| m::RestoreFailure { path, reason }),
                    );
                }
                Err(e) => self.notes.push(format!("restoring settings failed: {e}")),
            }
        }
    }

    /// Summarise the writes in the record: applied, or why not (or not all).
    pub fn settle_tuning_record(&mut self) {
        let ok = self
            .record
            .changes
            .iter()
            .filter(|c| c.error.is_none())
            .count();
        let failed = self.record.changes.len() - ok;
        self.record.applied |= ok > 0;
        if self.record.changes.is_empty() {
            self.record.reason = Some(
                "nothing to tune: no cpufreq policy, devfreq device or ASPM policy that is not already at performance"
                    .into(),
            );
        } else if failed > 0 {
            // Which and why, on the page and in the text (the JSON has every change).
            let mut which: Vec<String> = self
                .record
                .changes
                .iter()
                .filter_map(|c| {
                    let e = c.error.as_ref()?;
                    Some(format!("{} → {} ({e})", c.path, c.value))
                })
                .take(3)
                .collect();
            if failed > 3 {
                which.push(format!("and {} more", failed - 3));
            }
            self.record.reason = Some(format!(
                "{failed} of {} setting(s) could not be changed: {}",
                self.record.changes.len(),
                which.join("; ")
            ));
        }
    }

    // ---------------------------------------------------------------------------------
    // the result

    /// Restore, stop sampling, run the detectors once over the whole session, and assemble
    /// the document of kind `B`.
    /// Seconds of idle power wanted at the end of the `idle` phase.
    pub fn idle_power(&self) -> Duration {
        self.idle_power
    }

    /// The timeline has a power source (so idle power is worth waiting for).
    pub fn has_power_source(&self) -> bool {
        self.sampler.has_power_source()
    }

    pub fn finish<B: BodyKind>(mut self, body: B, opts: Finish) -> Typed<B> {
        // Restore first: nothing after this point needs the tuned machine.
        if self.tuning.is_some() {
            self.restore_now();
            self.tuning = None;
        }
        let timeline = self.sampler.stop();
        let log = self.klog.collect();
        if self.snapshots.is_empty() {
            self.snapshots.push(capture::snapshot(self.host, self.inv));
        }
        let before_i = self.baseline.unwrap_or(0).min(self.snapshots.len() - 1);
        let refs: Vec<&Snapshot> = self.snapshots.iter().collect();
        let mut findings = detect::run(&Context {
            inv: self.inv,
            before: refs[before_i],
            after: refs[refs.len() - 1],
            boundaries: &refs,
            timeline: &timeline,
            log: &log,
        });
        findings.append(&mut self.findings);
        let lines = log.lines();
        // What came before the baseline (an OPP walk through low clocks, the idle wait) is
        // not held against the measurement: its phases are not judged on their own either.
        let evidence: Vec<PhaseEvidence> = self
            .spans
            .iter()
            .filter(|sp| sp.snapshots.0 >= before_i)
            .map(|sp| PhaseEvidence {
                name: &sp.name,
                start: sp.start,
                end: sp.end,
                before: &self.snapshots[sp.snapshots.0],
                after: &self.snapshots[sp.snapshots.1],
                log: lines
                    .get(sp.log.0..sp.log.1.min(lines.len()))
                    .unwrap_or(&[]),
            })
            .collect();
        detect::phases::attribute(self.inv, &timeline, &evidence, &mut findings);
        drop(evidence);
        for p in &mut self.phases {
            (p.marks, p.invalid) = marks_of(&findings, p.name.as_str(), &[], &[]);
        }

        let before = refs[before_i];
        let after = refs[refs.len() - 1];
        let mut throttling = Vec::new();
        for a in &after.policies {
            let Some(b) = before.policies.iter().find(|p| p.policy == a.policy) else {
                continue;
            };
            if let Some(t) = throttling::opp_table(self.inv, b, a) {
                if t.below_ticks() > 0 {
                    throttling.push(throttling_table(self.inv, &t));
                }
            }
        }

        let complete = self.interrupted_in.is_none()
            && self
                .phases
                .iter()
                .all(|p| p.status != PhaseStatus::Interrupted);
        let incomplete_reason = self.interrupted_in.as_ref().map(|p| {
            if p.starts_with("before") {
                format!("interrupted (Ctrl-C or SIGTERM) {p}")
            } else {
                format!("interrupted (Ctrl-C or SIGTERM) during '{p}'")
            }
        });
        let valid = complete && truebench_model::finding::is_valid(&findings);
        let kernel_log = match log {
            KernelLog::Lines(lines) => m::KernelLogRecord {
                available: true,
                reason: None,
                lines,
            },
            KernelLog::Unavailable(why) => m::KernelLogRecord {
                available: false,
                reason: Some(why),
                lines: Vec::new(),
            },
        };
        if !self.host.is_live()
            && !self
                .notes
                .iter()
                .any(|n| n.contains("is a recorded machine"))
        {
            self.notes.push(format!(
                "{} is a recorded machine: its files were read and tuned, but every measurement ran on this machine's CPUs",
                self.host.root().display()
            ));
        }
        Typed {
            body,
            envelope: m::Envelope {
                truebench_version: self.version,
                comparable: opts.comparable,
                complete,
                incomplete_reason,
                valid,
                ended: Stamp::now(),
                duration_s: self.t0.elapsed().as_secs_f64(),
                started: self.started,
                hostname: self.host.hostname(),
                os_codename: os_codename(self.host),
                inventory: self.inv.clone(),
                tuning: self.record,
                tools: self.tools,
                phases: self.phases,
                findings,
                energy: timeline.energy_report(IDLE_PHASE, self.idle_power.as_secs_f64()),
                timeline,
                kernel_log,
                throttling,
                notes: self.notes,
            },
        }
    }
}

/// An OPP table as the document keeps it: the policy's CPUs and core type on a machine with
/// several clusters (as sbc-bench labels it), MHz as sbc-bench truncates them, seconds.
fn throttling_table(inv: &Inventory, t: &throttling::OppTable) -> m::throttling::ThrottlingTable {
    let cluster = t
        .cluster
        .and_then(|c| inv.clusters.get(c))
        .filter(|_| inv.clusters.len() > 1);
    m::throttling::ThrottlingTable {
        cpus: cluster.map(|c| truebench_host::parse::cpulist::format(&c.cpus)),
        core_type: cluster.and_then(|c| c.core_type.clone()),
        time_in_state: t
            .rows
            .iter()
            .map(|&(khz, ticks)| ((khz / 1000) as u32, ticks as f64 / 100.0))
            .collect(),
    }
}

/// The phase whose power is the machine's idle power (the idle gate of `run`, the cool-down
/// of `thermal` and `efficiency`).
pub const IDLE_PHASE: m::RunPhase = phase::IDLE;
/// Mark a row from the findings of its phase: every kind of finding in it (`marks`) and,
/// as `invalid`, the critical ones and the warnings of a kind in `strict`; a kind in `exempt`
/// never makes it invalid (swapping under a load whose purpose it is).
pub fn mark<P: PhaseId>(
    row: &mut RowEvidence<P>,
    findings: &[Finding],
    strict: &[FindingKind],
    exempt: &[FindingKind],
) {
    (row.marks, row.invalid) = marks_of(findings, &row.phase, strict, exempt);
}

/// [`mark`]'s two figures for phase `phase`.
fn marks_of(
    findings: &[Finding],
    phase: impl PhaseId,
    strict: &[FindingKind],
    exempt: &[FindingKind],
) -> (Vec<String>, Option<String>) {
    let marks = detect::phases::marks(findings, &phase);
    let invalid = if exempt.is_empty() {
        detect::phases::invalid_by(findings, &phase, strict)
    } else {
        let judged: Vec<Finding> = findings
            .iter()
            .filter(|f| !exempt.contains(&f.kind))
            .cloned()
            .collect();
        detect::phases::invalid_by(&judged, &phase, strict)
    };
    (marks, invalid)
}

/// Seconds of idle power measured at its end by default (`SessionOptions::idle_power`).
pub const IDLE_POWER_S: f64 = 10.0;

/// `UBUNTU_CODENAME`, else `VERSION_CODENAME` of the root's os-release.
fn os_codename(host: &Host) -> Option<String> {
    host.read("etc/os-release")
        .or_else(|_| host.read("usr/lib/os-release"))
        .ok()
        .and_then(|t| {
            let kv = os_release::parse(&t);
            kv.get("UBUNTU_CODENAME")
                .or_else(|| kv.get("VERSION_CODENAME"))
                .cloned()
        })
        .filter(|c| !c.is_empty())
}

/// What `run` and `review -R` tune (sbc-bench's performance settings), through the Session's
/// journaled Tuning: the performance governor on every cpufreq policy and devfreq device, ASPM
/// `performance`, and `max_khz`/`min_khz` (sbc-bench's MaxKHz/MinKHz) as limits.
pub fn tune_for_performance(
    s: &mut Session,
    host: &Host,
    inv: &Inventory,
    max_khz: Option<u64>,
    min_khz: Option<u64>,
) {
    if !s.tuned() {
        return;
    }
    for c in &inv.clusters {
        let Ok(dirs) = Tuning::policy_dirs(host, c) else {
            continue;
        };
        let governor = |d: &String| host.read_trimmed(format!("{d}/scaling_governor"));
        if c.governors.iter().any(|g| g == "performance")
            && dirs
                .iter()
                .any(|d| governor(d).as_deref() != Some("performance"))
        {
            let _ = s.set_governor(c, "performance");
        }
        let range = |d: &String| {
            Some((
                host.read_u64(format!("{d}/cpuinfo_min_freq"))?,
                host.read_u64(format!("{d}/cpuinfo_max_freq"))?,
            ))
        };
        let Some((lo, hi)) = dirs.first().and_then(range) else {
            continue;
        };
        // MaxKHz caps the whole run at the highest OPP not above it (sbc-bench).
        if let Some(max) = max_khz {
            let cap = c
                .opps_khz
                .iter()
                .copied()
                .filter(|&k| k <= max)
                .max()
                .unwrap_or(max)
                .max(lo);
            if cap < hi {
                let _ = s.set_max_khz(c, cap);
            }
        }
        if let Some(min) = min_khz {
            let _ = s.set_min_khz(c, min.clamp(lo, hi));
        }
    }
    for d in host.devfreq() {
        if d.can_switch_to_performance() {
            let _ = s.set_devfreq_governor(&d.name, "performance");
        }
    }
    if let Some(p) = host.pcie_aspm() {
        if p.active.as_deref() != Some("performance") {
            let _ = s.set_pcie_aspm_policy("performance");
        }
    }
    s.settle_tuning_record();
}
