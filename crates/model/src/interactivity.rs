//! The `interactivity` kind (`truebench interactivity`, interbench rebuilt): simulated
//! interactive tasks, each alone and under background loads, measured for wake-up latency,
//! jitter, maximum latency, % of the desired CPU and % of deadlines met. One table per
//! benchmark, one cell per load; each cell is one phase of the envelope, so its evidence
//! (clocks, temperatures, other processes, swapping) is that phase's.

use serde::{Deserialize, Serialize};

use crate::evidence::{phase_id, words, NotOne, RowEvidence};

/// How much work a periodic task does per period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkModel {
    /// A fixed number of loops: a slower clock misses deadlines.
    Loops,
    /// A fixed wall time.
    Wall,
}
words!(WorkModel, "work model", {
    Loops => "loops",
    Wall => "wall",
});

/// Where the loops per millisecond came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CalibrationSource {
    Measured,
    /// Measured earlier on this machine.
    Cached,
    /// `--loops-per-ms`.
    Given,
}
words!(CalibrationSource, "calibration source", {
    Measured => "measured",
    Cached => "cached",
    Given => "given",
});

/// A benchmarked task (interbench's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Benchmark {
    Audio,
    Video,
    X,
    Gaming,
    Custom,
}
words!(Benchmark, "benchmark", {
    Audio => "audio",
    Video => "video",
    X => "x",
    Gaming => "gaming",
    Custom => "custom",
});

/// A background load (interbench's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Load {
    None,
    Video,
    X,
    Burn,
    Write,
    Read,
    Compile,
    Memload,
    Hack,
    Custom,
}
words!(Load, "load", {
    None => "none",
    Video => "video",
    X => "x",
    Burn => "burn",
    Write => "write",
    Read => "read",
    Compile => "compile",
    Memload => "memload",
    Hack => "hack",
    Custom => "custom",
});

/// The phase of one cell: a benchmark under a load (`audio/burn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellPhase {
    pub bench: Benchmark,
    pub load: Load,
}
phase_id!(CellPhase, "`BENCHMARK/LOAD`");

impl std::fmt::Display for CellPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.bench, self.load)
    }
}

impl std::str::FromStr for CellPhase {
    type Err = NotOne;
    fn from_str(s: &str) -> Result<CellPhase, NotOne> {
        let not = || NotOne::new("interactivity phase", s);
        let (bench, load) = s.split_once('/').ok_or_else(not)?;
        Ok(CellPhase {
            bench: bench.parse().map_err(|_| not())?,
            load: load.parse().map_err(|_| not())?,
        })
    }
}

/// Body of an `interactivity` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InteractivityBody {
    // Boxed: keeps the body (and so every `Body`) small.
    pub calibration: Box<LoopCalibration>,
    /// `loops` (a fixed amount of work per period: a slower clock misses deadlines) or
    /// `wall` (a fixed wall time).
    pub work: WorkModel,
    /// What `work` means, in words, as the output names it.
    pub work_description: String,
    /// Benchmarked tasks asked for real-time scheduling (`--realtime`); latencies in µs.
    pub realtime: bool,
    /// Memory locked with mlockall; None when not asked for.
    pub memory_locked: Option<bool>,
    /// Seconds per cell.
    pub duration_s: f64,
    pub bench_nice: i32,
    pub load_nice: i32,
    pub burn_threads: u32,
    /// Where Write and Read put their scratch files.
    pub scratch_dir: Option<String>,
    pub benchmarks: Vec<BenchmarkTable>,
}

/// How many loops make a millisecond of work on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoopCalibration {
    pub loops_per_ms: u64,
    /// `measured`, `cached` (measured earlier on this machine) or `given` (`--loops-per-ms`).
    pub source: CalibrationSource,
    pub cpu: Option<u32>,
    /// Each check's loops per ms.
    pub checks: Vec<u64>,
    /// Largest difference between checks, %; over 1 % it was redone.
    pub drift_pct: Option<f64>,
    pub attempts: Option<u32>,
    /// Whether the clock was pinned to its maximum while calibrating.
    pub clock_pinned: bool,
    pub note: Option<String>,
}

/// One simulated task against every load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BenchmarkTable {
    /// `audio`, `video`, `x`, `gaming`, `custom`.
    pub name: Benchmark,
    /// `Audio`.
    pub label: String,
    /// `2.5 ms of work every 50 ms`.
    pub description: String,
    /// The scheduling class asked for (`SCHED_FIFO 80`, `SCHED_OTHER nice 0`).
    pub policy: String,
    /// False for Gaming: no deadlines, a frame rate instead.
    pub has_deadlines: bool,
    pub cells: Vec<Cell>,
}

/// One benchmark under one load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cell {
    /// `none`, `burn`, …
    pub load: Load,
    /// `None`, `Burn`, …
    pub load_label: String,
    /// Its phase (`audio/burn`), how it ended, the findings of its time.
    #[serde(flatten)]
    pub evidence: RowEvidence<CellPhase>,
    /// What the load did (`4 threads burning CPU`).
    pub load_description: Option<String>,
    pub latency: Option<CellLatency>,
    /// The class the task ran in when the one asked for was refused, and why.
    pub policy_refused: Option<String>,
}

/// A cell's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CellLatency {
    pub samples: u64,
    pub mean_us: f64,
    /// Sample standard deviation (interbench prints ≈ the RMS instead, see `interbench_sd_us`).
    pub sd_us: f64,
    pub interbench_sd_us: f64,
    pub max_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub desired_cpu_pct: f64,
    /// None for a task without deadlines (Gaming).
    pub deadlines_met_pct: Option<f64>,
    pub deadlines_met: u64,
    pub deadlines_missed: u64,
    pub work_done: u64,
    pub work_dropped: u64,
    pub mean_slack_us: f64,
    /// Gaming: frames (work chunks) per second.
    pub frames_per_s: Option<f64>,
    /// CPU the engine itself used per period (time keeping), µs.
    pub engine_overhead_us: f64,
}
