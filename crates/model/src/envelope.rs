//! The envelope: what every result document carries whatever it measured — when, on what
//! machine, with which settings and tools, the phases with their evidence, the findings, the
//! timeline and the kernel log, and whether the figures can be trusted.

use crate::finding::Finding;
use crate::timeline::{EnergyReport, Timeline};
use serde::{Deserialize, Serialize};
use truebench_host::Inventory;

use super::time::Stamp;

/// What every result document carries, whatever its kind measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Envelope {
    /// Version of the truebench binary that measured (`0.1.0`).
    pub truebench_version: String,
    /// When the measurement started.
    pub started: Stamp,
    /// When the document was assembled, after the last phase and the restore.
    pub ended: Stamp,
    /// Wall time from start to end, seconds (waits such as the idle gate included).
    pub duration_s: f64,
    /// False when the measurement was interrupted (Ctrl-C, SIGTERM) or a phase could not finish.
    pub complete: bool,
    /// Why it is incomplete (`interrupted by SIGINT during 'memory'`).
    pub incomplete_reason: Option<String>,
    /// Complete and no critical finding: the figures can be trusted.
    pub valid: bool,
    /// False when the figures are not comparable with full measurements of the same kind
    /// (shortened phases, `--quick`).
    pub comparable: bool,
    /// `proc/sys/kernel/hostname`; None when unreadable.
    pub hostname: Option<String>,
    /// `UBUNTU_CODENAME`, else `VERSION_CODENAME` of os-release (the Results.md row uses it);
    /// None when os-release has neither.
    pub os_codename: Option<String>,
    /// The machine as probed at the start (what `truebench info --json` prints).
    pub inventory: Inventory,
    /// What was done to the machine's settings, and what was put back.
    pub tuning: TuningRecord,
    /// Every external tool and built-in kernel that produced a score, once each.
    pub tools: Vec<Tool>,
    /// The steps of the measurement in the order they ran.
    pub phases: Vec<PhaseResult>,
    /// Every detector over the whole measurement, most severe first.
    pub findings: Vec<Finding>,
    /// Every sample with the phase marks (timeline seconds).
    pub timeline: Timeline,
    /// Energy per phase from the best power source, idle power, score per watt; absent
    /// without a power source (why: `timeline.extra_header.missing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<EnergyReport>,
    /// The kernel log written while the measurement ran.
    pub kernel_log: KernelLogRecord,
    /// The time spent at each OPP over the measured phases, one table per cpufreq policy that
    /// left its top OPP (sbc-bench's throttling statistics; the renderers print its layout);
    /// empty without statistics or time below the top.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttling: Vec<crate::throttling::ThrottlingTable>,
    /// What a reader must know about the figures (built-in AES for a missing openssl, a
    /// recorded root, a setting that could not be restored).
    pub notes: Vec<String>,
}

impl Envelope {
    /// The first phase that is `phase`.
    pub fn phase(&self, phase: impl crate::PhaseId) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| phase.is(&p.name))
    }
}

/// What was done to the machine's settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TuningRecord {
    /// Tuning was wanted (not `--no-tuning`/`NOTUNING`).
    pub requested: bool,
    /// At least one setting was changed.
    pub applied: bool,
    /// Why nothing (or not everything) was changed.
    pub reason: Option<String>,
    /// Every write attempted, in order.
    pub changes: Vec<TuningChange>,
    /// Root-relative paths put back at the end.
    pub restored: Vec<String>,
    /// Settings that could not be put back (should stay empty).
    pub restore_failed: Vec<RestoreFailure>,
}

/// One write to a setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TuningChange {
    /// Root-relative path (`sys/devices/system/cpu/cpufreq/policy0/scaling_governor`).
    pub path: String,
    /// The value written (`performance`).
    pub value: String,
    /// None when the write succeeded.
    pub error: Option<String>,
}

/// A setting whose original value could not be written back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RestoreFailure {
    /// Root-relative path of the setting.
    pub path: String,
    /// The error of the restoring write.
    pub reason: String,
}

/// A program or built-in kernel that produced scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Tool {
    /// `openssl`, `7-zip`, `stockfish`, `built-in memory`, `built-in aes`, `built-in lzma`,
    /// `built-in stress`, `built-in clock`.
    pub name: String,
    /// As the tool prints it (`OpenSSL 3.0.19 27 Jan 2026 …`, `26.02`, `liblzma 5.8.1`).
    pub version: Option<String>,
    /// Executable path; None for built-ins.
    pub path: Option<String>,
}

/// The kernel log of the measurement's time.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelLogRecord {
    /// The kernel log could be followed (`dev/kmsg` readable).
    pub available: bool,
    /// Why not; None when it was available.
    pub reason: Option<String>,
    /// Lines logged while the run went on, as dmesg prints them.
    pub lines: Vec<String>,
}

/// How a phase (or a row measured in one) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    /// Ran to its end.
    Ok,
    /// Not run (not in this mode, no tool, nothing to measure): `reason` says why.
    Skipped,
    /// Started and failed: `reason` holds the error.
    Failed,
    /// Stopped by Ctrl-C/SIGTERM; its scores (if any) are partial.
    Interrupted,
}

impl PhaseStatus {
    /// The JSON name (`ok`, `skipped`, `failed`, `interrupted`).
    pub fn as_str(self) -> &'static str {
        match self {
            PhaseStatus::Ok => "ok",
            PhaseStatus::Skipped => "skipped",
            PhaseStatus::Failed => "failed",
            PhaseStatus::Interrupted => "interrupted",
        }
    }

    /// A row's status as shown: `invalid` when it ran but something invalidating happened
    /// meanwhile (`invalid` holds what), else the status.
    pub fn shown(self, invalid: Option<&str>) -> &'static str {
        match (self, invalid) {
            (PhaseStatus::Ok, Some(_)) => "invalid",
            _ => self.as_str(),
        }
    }
}

impl std::fmt::Display for PhaseStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of a measurement: a timeline phase with its status, evidence marks and the raw
/// output behind its figures (the figures are in the kind's body).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseResult {
    /// `idle`, `clocks-cold`, `memory`, `aes`, `compression-single`, `compression-multi`,
    /// `aes-parallel`, `compression-cluster`, `stress`, `clocks-all`, `clocks-hot`.
    pub name: String,
    /// What ran, for humans (`7-zip single-threaded, pinned per cluster`).
    pub title: String,
    /// Timeline seconds (as `Timeline::phases`).
    pub started: f64,
    /// Timeline seconds at its end; None when it had not ended.
    pub ended: Option<f64>,
    /// Wall clock at its start, Unix milliseconds.
    pub started_unix_ms: i64,
    /// Wall clock at its end, Unix milliseconds; None when it had not ended.
    pub ended_unix_ms: Option<i64>,
    /// Threads the phase keeps busy (what background activity is judged against); None:
    /// not judged (the idle gate).
    pub threads: Option<u32>,
    /// CPUs it ran on.
    pub cpus: Vec<u32>,
    /// How it ended.
    pub status: PhaseStatus,
    /// Why it was skipped, failed or interrupted, or why a gate did not pass; None when
    /// there is nothing to say.
    pub reason: Option<String>,
    /// Tool output and built-in kernel text, in order.
    pub raw: Vec<RawOutput>,
    /// The kernels' full results (their own serde form), for traceability.
    #[serde(default)]
    pub details: serde_json::Value,
    /// The kinds of the findings of this phase's own time (`throttling` …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<String>,
    /// Why its figures are not valid: the critical findings of its time; None when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// Seconds at each clock and time in each idle state per cluster over the phase (read
    /// at its boundaries); None where neither cpufreq statistics nor cpuidle exist, and in
    /// documents written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residency: Option<crate::residency::PhaseResidency>,
}

impl PhaseResult {
    /// Seconds from start to end; None while it has not ended.
    pub fn duration_s(&self) -> Option<f64> {
        self.ended.map(|e| e - self.started)
    }
}

/// The output of one tool run or built-in kernel, as it printed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RawOutput {
    /// `openssl speed aes-256-cbc on cpu0`.
    pub label: String,
    /// The command line as run (`taskset -c 0 /usr/bin/7zz b -mmt1`), or the built-in kernel
    /// and its settings.
    pub command: String,
    /// Its complete output (stdout then stderr), or the kernel's text.
    pub text: String,
}
