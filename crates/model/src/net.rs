//! The `net` kind (`truebench net --connect`): TCP throughput one way in each direction and
//! full duplex, with the CPU load it cost on this side — per core, split into softirq/irq and
//! process time — and the verdict "CPU-bound" when one core was saturated (the Arndale
//! low-level measurements on an Exynos 5250: full-duplex TCP lost its speed to one busy core). Each test of
//! each repeat is one phase of the envelope, so its clocks, temperatures and findings are
//! that phase's.

use serde::{Deserialize, Serialize};

/// Body of a `net` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetBody {
    /// The address tested against (`host:port`).
    pub peer: String,
    /// `truebench` (a `truebench net --server`), `truebench (in-process)` (`--loopback`) or
    /// `iperf3` (an iperf3 server, driven through `iperf3 -J`).
    pub peer_kind: String,
    /// Seconds each test moves data.
    pub duration_s: f64,
    /// Parallel TCP streams per test, started together.
    pub streams: u32,
    /// Data sent with sendfile(2), not copied from user space (`--zerocopy`, iperf3 `-Z`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zerocopy: bool,
    /// Runs of each test per setting (`--repeat`).
    pub repeat: u32,
    /// A core at or above this busy share during a test is the limit (`CPU-bound`), %.
    pub cpu_bound_pct: f64,
    /// One row per test and repeat, in the order they ran.
    pub rows: Vec<NetRow>,
    /// Per test and setting: the median over the repeats and the spread.
    pub tests: Vec<NetTestSummary>,
    /// The settings swept (`as is`, `max`, `governor:ondemand`, `opp:1800 MHz`…); `as is`
    /// alone without `--sweep`.
    #[serde(default)]
    pub settings: Vec<String>,
    /// Why the sweep did not run (no cpufreq, no right to change settings); None when it
    /// ran or was not asked for.
    #[serde(default)]
    pub sweep_note: Option<String>,
    /// Conclusions across settings ("The governor does not raise the clock for I/O" …).
    #[serde(default)]
    pub verdicts: Vec<String>,
}

/// One test (direction) of one repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetRow {
    /// `upload` (this side sends), `download` (this side receives) or `duplex` (both at once).
    pub test: String,
    /// The machine setting it ran under (`as is`; the sweep's `max`, `governor:ondemand`…).
    pub setting: String,
    /// 1-based.
    pub repeat: u32,
    /// The phase of the envelope holding this test's evidence.
    pub phase: String,
    /// How the test ended.
    pub status: crate::PhaseStatus,
    /// Why it failed or was interrupted; None when there is nothing to say.
    pub reason: Option<String>,
    /// Seconds the data flowed.
    pub seconds: f64,
    /// Mbit/s this side sent and received (10^6 bits, as iperf3); None for a direction the
    /// test does not use.
    pub sent_mbit_s: Option<f64>,
    /// Mbit/s this side received; None for a direction the test does not use.
    pub received_mbit_s: Option<f64>,
    /// Per-core load on this side during the transfer.
    pub cores: Vec<CoreLoad>,
    /// The saturated core, when one was.
    pub cpu_bound: Option<CpuBound>,
    /// Findings about this test's phase (`throttling` …).
    pub marks: Vec<String>,
    /// Why its figures are not valid: the critical findings of its phase (`throttling`,
    /// `swapping` …); None when none happened while it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// The clock reached per policy while it ran: `(policy, MHz)`, time-weighted mean of
    /// the time_in_state deltas (empty without cpufreq statistics).
    #[serde(default)]
    pub reached_mhz: Vec<(String, f64)>,
}

impl NetRow {
    /// Sent plus received (both directions of a duplex test).
    pub fn total_mbit_s(&self) -> Option<f64> {
        match (self.sent_mbit_s, self.received_mbit_s) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        }
    }
}

/// One CPU's time during a test, % of the wall time (from `/proc/stat`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CoreLoad {
    /// The CPU.
    pub cpu: u32,
    /// Everything but idle, iowait and steal.
    pub busy_pct: f64,
    /// softirq + hardirq: the network stack's receive and transmit work.
    pub softirq_pct: f64,
    /// user + nice + system: the processes (the transfer's own threads and anything else).
    pub process_pct: f64,
}

/// The verdict "CPU-bound": a core at or above `NetBody::cpu_bound_pct`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuBound {
    /// The busiest CPU.
    pub cpu: u32,
    /// Its busy share, % of the wall time.
    pub busy_pct: f64,
    /// `softirq` when softirq + irq time is the larger share of the busy time, else `process`.
    pub by: String,
}

/// A test's figures over its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetTestSummary {
    /// `upload`, `download` or `duplex`.
    pub test: String,
    /// The machine setting (as `NetRow::setting`).
    pub setting: String,
    /// Repeats that completed and are valid: what the median is of.
    pub runs: u32,
    /// Median of sent + received over those repeats, Mbit/s; None without one.
    pub median_mbit_s: Option<f64>,
    /// (max − min) / median of those repeats, %; None with fewer than two.
    pub spread_pct: Option<f64>,
    /// Repeats whose test was CPU-bound.
    pub cpu_bound_runs: u32,
}
