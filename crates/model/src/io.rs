//! The `io` kind (`truebench io`): storage read throughput — cached, sequential O_DIRECT and
//! 4 KiB random O_DIRECT reads — with the CPU they cost on each core and the clock reached,
//! optionally swept over cpufreq settings (the Arndale low-level measurements: the governor does not count I/O as load,
//! so eMMC reads went from 29 to 44 MB/s with the CPU forced to its top clock). Each test of
//! each repeat is one phase of the envelope.

use serde::{Deserialize, Serialize};

use crate::evidence::{words, RowEvidence};
use crate::net::{CoreLoad, CpuBound, SweepTest, TestPhase};
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
    /// Seconds each test reads.
    pub duration_s: f64,
    /// Runs of each test per setting (`--repeat`).
    pub repeat: u32,
    /// A core at or above this busy share during a test is the limit (`CPU-bound`), %.
    pub cpu_bound_pct: f64,
    /// Warnings about what the figures can mean (a file the page cache holds…).
    pub warnings: Vec<String>,
    /// The settings swept (`as is`, `max`, `governor:ondemand`, `opp:1800 MHz`…); `as is`
    /// alone without `--sweep`.
    pub settings: Vec<String>,
    /// Why the sweep did not run (no cpufreq, no right to change settings); None when it
    /// ran or was not asked for.
    pub sweep_note: Option<String>,
    /// Conclusions across settings ("The governor does not raise the clock for I/O" …).
    pub verdicts: Vec<String>,
    /// One row per test, setting and repeat, in the order they ran.
    pub rows: Vec<IoRow>,
    /// Per test and setting: the median over the repeats and the spread.
    pub tests: Vec<IoTestSummary>,
}

/// One test of one repeat under one setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IoRow {
    /// `cached`, `sequential`, `random`.
    pub test: IoTest,
    /// The machine setting it ran under (`as is`; the sweep's `max`, `governor:ondemand`…).
    pub setting: String,
    /// 1-based repeat number.
    pub repeat: u32,
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
    /// Per-core load during the test (empty when `/proc/stat` was unreadable).
    pub cores: Vec<CoreLoad>,
    /// The saturated core, when one was.
    pub cpu_bound: Option<CpuBound>,
    /// The clock reached per policy while it ran: `(policy, MHz)`, time-weighted mean of
    /// the time_in_state deltas (empty without cpufreq statistics).
    pub reached_mhz: Vec<(String, f64)>,
}

/// A test's figures over its repeats, per setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IoTestSummary {
    /// `cached`, `sequential`, `random`.
    pub test: IoTest,
    /// The machine setting (as `IoRow::setting`).
    pub setting: String,
    /// Repeats that completed and are valid: what the medians are of.
    pub runs: u32,
    /// Median MB/s of those repeats; None without one.
    pub median_mb_s: Option<f64>,
    /// Median reads per second of those repeats; None without one.
    pub median_iops: Option<f64>,
    /// (max − min) / median of the MB/s of those repeats, %; None with fewer than two.
    pub spread_pct: Option<f64>,
    /// Repeats whose test was CPU-bound.
    pub cpu_bound_runs: u32,
}
