//! The `net` kind (`truebench net --connect`): TCP throughput one way in each direction and
//! full duplex, with the CPU load it cost on this side — per core, split into softirq/irq and
//! process time — and the verdict "CPU-bound" when one core was saturated (the Arndale
//! low-level measurements on an Exynos 5250: full-duplex TCP lost its speed to one busy core). Each test of
//! each repeat is one phase of the envelope, so its clocks, temperatures and findings are
//! that phase's.

use serde::{Deserialize, Serialize};

use crate::sweep::{sweep_kind, Sweep, TestRun, TestSummary};

/// Body of a `net` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetBody {
    /// The address tested against (`host:port`).
    pub peer: String,
    /// `truebench` (a `truebench net --server`), `truebench (in-process)` (`--loopback`) or
    /// `iperf3` (an iperf3 server, driven through `iperf3 -J`).
    pub peer_kind: String,
    /// Parallel TCP streams per test, started together.
    pub streams: u32,
    /// Data sent with sendfile(2), not copied from user space (`--zerocopy`, iperf3 `-Z`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zerocopy: bool,
    /// How the tests ran: their length, repeats, the settings swept, the verdicts.
    #[serde(flatten)]
    pub sweep: Sweep,
    /// One row per test and repeat, in the order they ran.
    pub rows: Vec<NetRow>,
    /// Per test and setting: the median over the repeats and the spread.
    pub tests: Vec<NetTestSummary>,
}

/// One test (direction) of one repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetRow {
    /// Which test (`upload`: this side sends, `download`: this side receives, `duplex`: both
    /// at once), repeat and setting; per-core load, CPU-bound verdict, clock reached.
    #[serde(flatten)]
    pub run: TestRun,
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
    /// Findings about this test's phase (`throttling` …).
    pub marks: Vec<String>,
    /// Why its figures are not valid: the critical findings of its phase (`throttling`,
    /// `swapping` …); None when none happened while it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
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

/// A test's figures over its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetTestSummary {
    /// Which test and setting; runs, spread, CPU-bound runs.
    #[serde(flatten)]
    pub summary: TestSummary,
    /// Median of sent + received over those repeats, Mbit/s; None without one.
    pub median_mbit_s: Option<f64>,
}

sweep_kind!(NetBody, NetRow, NetTestSummary, |r| r.total_mbit_s(), median_mbit_s);
