//! The `net` kind (`truebench net --connect`): TCP throughput one way in each direction and
//! full duplex, with the CPU load it cost on this side — per core, split into softirq/irq and
//! process time — and the verdict "CPU-bound" when one core was saturated (the Arndale
//! low-level measurements on an Exynos 5250: full-duplex TCP lost its speed to one busy core). Each test of
//! each repeat is one phase of the envelope, so its clocks, temperatures and findings are
//! that phase's.

use serde::{Deserialize, Serialize};

use crate::evidence::{words, RowEvidence};
use crate::sweep::{sweep_kind, Sweep, SweepTest, TestPhase, TestRun, TestSummary};

words! {
    /// A test of `net`: the direction data flows.
    pub enum NetTest("net test") {
        /// This side sends.
        Upload => "upload",
        /// This side receives.
        Download => "download",
        /// Both at once.
        Duplex => "duplex",
    }
}

words! {
    /// What answered on the other side.
    pub enum PeerKind("peer kind") {
        /// A `truebench net --server`.
        Truebench => "truebench",
        /// truebench's own server in this process (`--loopback`).
        Loopback => "truebench (in-process)",
        /// An iperf3 server, driven through `iperf3 -J`.
        Iperf3 => "iperf3",
    }
}

impl SweepTest for NetTest {
    const PREFIX: &'static str = "net";
}

/// The phase of a `net` test.
pub type NetPhase = TestPhase<NetTest>;

/// Body of a `net` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetBody {
    /// The address tested against (`host:port`).
    pub peer: String,
    /// `truebench` (a `truebench net --server`), `truebench (in-process)` (`--loopback`) or
    /// `iperf3` (an iperf3 server, driven through `iperf3 -J`).
    pub peer_kind: PeerKind,
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
    pub run: TestRun<NetTest>,
    /// Its phase, how it ended, the findings of its time.
    #[serde(flatten)]
    pub evidence: RowEvidence<NetPhase>,
    /// Seconds the data flowed.
    pub seconds: f64,
    /// Mbit/s this side sent and received (10^6 bits, as iperf3); None for a direction the
    /// test does not use.
    pub sent_mbit_s: Option<f64>,
    /// Mbit/s this side received; None for a direction the test does not use.
    pub received_mbit_s: Option<f64>,
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
    pub summary: TestSummary<NetTest>,
    /// Median of sent + received over those repeats, Mbit/s; None without one.
    pub median_mbit_s: Option<f64>,
}

sweep_kind!(
    NetBody,
    NetRow,
    NetTestSummary,
    NetTest,
    |r| r.total_mbit_s(),
    median_mbit_s
);

impl crate::FailedRows for NetBody {
    fn failed_rows(&self) -> bool {
        self.rows
            .iter()
            .any(|r| crate::outcome::failed(r.evidence.status))
    }
}
