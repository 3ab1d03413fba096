//! The envelope: what every result document carries whatever it measured — when, on what
//! machine, with which settings and tools, the phases with their evidence, the findings, the
//! timeline and the kernel log, and whether the figures can be trusted.

use crate::finding::Finding;
use crate::timeline::{EnergyReport, Timeline};
use serde::{Deserialize, Serialize};
use truebench_host::Inventory;

use super::time::Stamp;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Envelope {
    pub truebench_version: String,
    pub started: Stamp,
    pub ended: Stamp,
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
    /// `proc/sys/kernel/hostname`.
    pub hostname: Option<String>,
    /// `UBUNTU_CODENAME`, else `VERSION_CODENAME` of os-release (the Results.md row uses it).
    pub os_codename: Option<String>,
    pub inventory: Inventory,
    pub tuning: TuningRecord,
    pub tools: Vec<Tool>,
    pub phases: Vec<PhaseResult>,
    /// Every detector over the whole measurement, most severe first.
    pub findings: Vec<Finding>,
    /// Every sample with the phase marks (timeline seconds).
    pub timeline: Timeline,
    /// Energy per phase from the best power source, idle power, score per watt; absent
    /// without a power source (why: `timeline.extra_header.missing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<EnergyReport>,
    pub kernel_log: KernelLogRecord,
    /// The time spent at each OPP over the measured phases, one table per cpufreq policy that
    /// left its top OPP (sbc-bench's throttling statistics; the renderers print its layout);
    /// empty without statistics or time below the top.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttling: Vec<crate::throttling::ThrottlingTable>,
    pub notes: Vec<String>,
}

impl Envelope {
    /// The phase `phase` (the first of that name).
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
    pub restore_failed: Vec<RestoreFailure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TuningChange {
    /// Root-relative path (`sys/devices/system/cpu/cpufreq/policy0/scaling_governor`).
    pub path: String,
    pub value: String,
    /// None when the write succeeded.
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RestoreFailure {
    pub path: String,
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

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelLogRecord {
    /// The kernel log could be followed (`dev/kmsg` readable).
    pub available: bool,
    /// Why not.
    pub reason: Option<String>,
    /// Lines logged while the run went on, as dmesg prints them.
    pub lines: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
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
    pub ended: Option<f64>,
    pub started_unix_ms: i64,
    pub ended_unix_ms: Option<i64>,
    /// Threads the phase keeps busy (what background activity is judged against).
    pub threads: Option<u32>,
    /// CPUs it ran on.
    pub cpus: Vec<u32>,
    pub status: PhaseStatus,
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
}

impl PhaseResult {
    pub fn duration_s(&self) -> Option<f64> {
        self.ended.map(|e| e - self.started)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RawOutput {
    /// `openssl speed aes-256-cbc on cpu0`.
    pub label: String,
    /// The command line as run (`taskset -c 0 /usr/bin/7zz b -mmt1`), or the built-in kernel
    /// and its settings.
    pub command: String,
    pub text: String,
}
