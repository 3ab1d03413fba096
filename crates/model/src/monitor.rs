//! The `monitor` kind: a command run under the monitor (`truebench monitor -- CMD`,
//! sbc-bench's `ExecuteCommand`). Its verdicts are the envelope's findings; the body is what
//! ran and how it ended.

use serde::{Deserialize, Serialize};

use crate::evidence::{phase_id, NotOne};

/// The phases of a `monitor` measurement: the command, or with `--per-cluster` its run on
/// each type of core (`cluster0`, `cluster1` …, in the order of the runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MonitorPhase {
    /// The command, once.
    Command,
    /// Its run on the n-th type of core (`clusterN`).
    Cluster(usize),
}
phase_id!(MonitorPhase, "`command`, `clusterN`");

impl std::fmt::Display for MonitorPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MonitorPhase::Command => f.write_str("command"),
            MonitorPhase::Cluster(i) => write!(f, "cluster{i}"),
        }
    }
}

impl std::str::FromStr for MonitorPhase {
    type Err = NotOne;
    fn from_str(s: &str) -> Result<MonitorPhase, NotOne> {
        if s == "command" {
            return Ok(MonitorPhase::Command);
        }
        s.strip_prefix("cluster")
            .filter(|i| i.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|i| i.parse().ok())
            .map(MonitorPhase::Cluster)
            .ok_or_else(|| NotOne::new("monitor phase", s))
    }
}

/// Body of a `monitor` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MonitorBody {
    /// The command line as run (`["sh", "-c", "…"]` for ExecuteCommand).
    pub command: Vec<String>,
    /// The command's exit code; None when it was killed by a signal or could not start.
    pub exit_code: Option<i32>,
    /// The signal that ended it (`9`); None when it exited by itself or did not start.
    pub signal: Option<i32>,
    /// Why it could not start (`No such file or directory`); None when it started.
    pub error: Option<String>,
    /// What kind of failure kept it from starting (the exit code follows a shell's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_failure: Option<crate::StartFailure>,
    /// Wall time of the command, seconds.
    pub duration_s: f64,
    /// Seconds between samples.
    pub interval_s: f64,
    /// Threads the command was said to keep busy (`--threads`): background activity is judged
    /// against it; None: not judged.
    pub threads: Option<u32>,
    /// `--per-cluster` (sbc-bench -G): one run per CPU type, pinned to it (and with the other
    /// CPUs offline with `--offline`); empty for a single run.
    #[serde(default)]
    pub clusters: Vec<ClusterRun>,
    /// With `--per-cluster`, when at least two core types gave a score in the same unit:
    /// the highest score / the lowest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_ratio: Option<f64>,
}

/// One run of the command on one type of CPU core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusterRun {
    /// `Cortex-A76 (cpu4-cpu7)`.
    pub label: String,
    /// The CPUs the command was pinned to.
    pub cpus: Vec<u32>,
    /// The CPUs taken offline meanwhile (restored afterwards).
    pub offline: Vec<u32>,
    /// The envelope phase holding its evidence.
    pub phase: MonitorPhase,
    /// The command's exit code; None when it was killed by a signal or could not start.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// Why it could not start; None when it started.
    pub error: Option<String>,
    /// What kind of failure kept it from starting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_failure: Option<crate::StartFailure>,
    /// Wall time of this run, seconds.
    pub duration_s: f64,
    /// The score the command printed on these CPUs (`--score REGEX`, or a known format:
    /// 7-zip, openssl speed, sysbench, stress-ng); absent when none was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<CommandScore>,
}

/// A score read from a command's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommandScore {
    /// The number, in `unit`.
    pub value: f64,
    /// `MIPS`, `kB/s`, `events/s`, `bogo ops/s`, or empty for a `--score` capture.
    pub unit: String,
    /// Where it came from: `7-zip Tot: rating`, `--score REGEX`…
    pub source: String,
}

impl crate::FailedRows for MonitorBody {
    fn failed_rows(&self) -> bool {
        // A monitored command's end is its own exit code, not a row.
        false
    }
}
