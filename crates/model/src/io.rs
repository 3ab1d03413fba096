//! The `io` kind (`truebench io`): storage read throughput — cached, sequential O_DIRECT and
//! 4 KiB random O_DIRECT reads — with the CPU they cost on each core and the clock reached,
//! optionally swept over cpufreq settings (the Arndale low-level measurements: the governor does not count I/O as load,
//! so eMMC reads went from 29 to 44 MB/s with the CPU forced to its top clock). Each test of
//! each repeat is one phase of the envelope.

use serde::{Deserialize, Serialize};

use crate::evidence::{words, RowEvidence};
use crate::net::{CoreLoad, CpuBound, SweepTest, TestPhase};

/// A test of `io`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IoTest {
    /// Reads the page cache holds.
    Cached,
    /// Sequential O_DIRECT reads.
    Sequential,
    /// 4 KiB random O_DIRECT reads.
    Random,
}
words!(IoTest, "io test", {
    Cached => "cached",
    Sequential => "sequential",
    Random => "random",
});

impl SweepTest for IoTest {
    const PREFIX: &'static str = "io";
}

/// The phase of an `io` test (`io-sequential-1`).
pub type IoPhase = TestPhase<IoTest>;

/// What was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetKind {
    File,
    BlockDevice,
    /// Written by truebench, removed afterwards.
    ScratchFile,
}
words!(TargetKind, "target kind", {
    File => "file",
    BlockDevice => "block device",
    ScratchFile => "scratch file",
});
use truebench_host::inventory::StorageInfo;

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
    pub duration_s: f64,
    pub repeat: u32,
    pub cpu_bound_pct: f64,
    /// Warnings about what the figures can mean (a file the page cache holds…).
    pub warnings: Vec<String>,
    pub settings: Vec<String>,
    pub sweep_note: Option<String>,
    pub verdicts: Vec<String>,
    pub rows: Vec<IoRow>,
    pub tests: Vec<IoTestSummary>,
}

/// One test of one repeat under one setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IoRow {
    /// `cached`, `sequential`, `random`.
    pub test: IoTest,
    pub setting: String,
    pub repeat: u32,
    /// Its phase, how it ended, the findings of its time.
    #[serde(flatten)]
    pub evidence: RowEvidence<IoPhase>,
    /// O_DIRECT was in effect.
    pub direct: bool,
    pub block_bytes: u64,
    pub mb_s: Option<f64>,
    pub iops: Option<f64>,
    /// CPU time of the reading thread per I/O, µs.
    pub cpu_us_per_io: Option<f64>,
    pub latency_p50_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    pub cores: Vec<CoreLoad>,
    pub cpu_bound: Option<CpuBound>,
    pub reached_mhz: Vec<(String, f64)>,
}

/// A test's figures over its repeats, per setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IoTestSummary {
    pub test: IoTest,
    pub setting: String,
    pub runs: u32,
    pub median_mb_s: Option<f64>,
    pub median_iops: Option<f64>,
    /// (max − min) / median of the MB/s of the completed repeats, %.
    pub spread_pct: Option<f64>,
    pub cpu_bound_runs: u32,
}
