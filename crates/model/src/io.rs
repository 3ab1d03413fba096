//! The `io` kind (`truebench io`): storage read throughput — cached, sequential O_DIRECT and
//! 4 KiB random O_DIRECT reads — with the CPU they cost on each core and the clock reached,
//! optionally swept over cpufreq settings (the Arndale low-level measurements: the governor does not count I/O as load,
//! so eMMC reads went from 29 to 44 MB/s with the CPU forced to its top clock). Each test of
//! each repeat is one phase of the envelope.

use serde::{Deserialize, Serialize};

use crate::evidence::{words, RowEvidence};
use crate::sweep::{sweep_kind, Sweep, SweepTest, TestPhase, TestRun, TestSummary};
use truebench_host::inventory::StorageInfo;

words! {
    /// A test of `io`.
    pub enum IoTest("io test") {
        /// Reads the page cache holds.
        Cached => "cached",
        /// Sequential O_DIRECT reads.
        Sequential => "sequential",
        /// 4 KiB random O_DIRECT reads.
        Random => "random",
    }
}

impl SweepTest for IoTest {
    const PREFIX: &'static str = "io";
}

/// The phase of an `io` test (`io-sequential-1`).
pub type IoPhase = TestPhase<IoTest>;

words! {
    /// What was read.
    pub enum TargetKind("target kind") {
        /// An existing file.
        File => "file",
        /// A block device (`/dev/mmcblk0`).
        BlockDevice => "block device",
        /// Written by truebench, removed afterwards.
        ScratchFile => "scratch file",
    }
}

/// Body of an `io` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IoBody {
    /// The file or block device read.
    pub target: String,
    /// `file`, `block device` or `scratch file` (written by truebench, removed afterwards).
    pub target_kind: TargetKind,
    /// Bytes read from (the first `size_bytes` of the target).
    pub size_bytes: u64,
    /// What holds it; None on tmpfs or network filesystems. Boxed: keeps every `Body` small.
    pub storage: Option<Box<StorageInfo>>,
    /// Warnings about what the figures can mean (a file the page cache holds…).
    pub warnings: Vec<String>,
    /// How the tests ran: their length, repeats, the settings swept, the verdicts.
    #[serde(flatten)]
    pub sweep: Sweep,
    /// One row per test, setting and repeat, in the order they ran.
    pub rows: Vec<IoRow>,
    /// Per test and setting: the median over the repeats and the spread.
    pub tests: Vec<IoTestSummary>,
}

/// One test of one repeat under one setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IoRow {
    /// Which test, repeat and setting; per-core load, CPU-bound verdict, clock reached.
    #[serde(flatten)]
    pub run: TestRun<IoTest>,
    /// Its phase, how it ended, the findings of its time.
    #[serde(flatten)]
    pub evidence: RowEvidence<IoPhase>,
    /// O_DIRECT was in effect (false for `cached`, and where the filesystem refused it).
    pub direct: bool,
    /// Bytes per read.
    pub block_bytes: u64,
    /// Throughput, MB/s (10^6 bytes/s); None when the test failed or was interrupted.
    pub mb_s: Option<f64>,
    /// Reads per second; None as `mb_s`.
    pub iops: Option<f64>,
    /// CPU time of the reading thread per I/O, µs; None when not measured.
    pub cpu_us_per_io: Option<f64>,
    /// Median latency per read, µs (random test only; None otherwise).
    pub latency_p50_us: Option<f64>,
    /// 99th percentile latency per read, µs (random test only; None otherwise).
    pub latency_p99_us: Option<f64>,
}

/// A test's figures over its repeats, per setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IoTestSummary {
    /// Which test and setting; runs, spread, CPU-bound runs.
    #[serde(flatten)]
    pub summary: TestSummary<IoTest>,
    /// Median MB/s of those repeats; None without one.
    pub median_mb_s: Option<f64>,
    /// Median reads per second of those repeats; None without one.
    pub median_iops: Option<f64>,
}

sweep_kind!(IoBody, IoRow, IoTestSummary, IoTest, |r| r.mb_s, median_mb_s);

impl crate::FailedRows for IoBody {
    fn failed_rows(&self) -> bool {
        self.rows
            .iter()
            .any(|r| crate::outcome::failed(r.evidence.status))
    }
}
