//! The `interactivity` kind (`truebench interactivity`, interbench rebuilt): simulated
//! interactive tasks, each alone and under background loads, measured for wake-up latency,
//! jitter, maximum latency, % of the desired CPU and % of deadlines met. One table per
//! benchmark, one cell per load; each cell is one phase of the envelope, so its evidence
//! (clocks, temperatures, other processes, swapping) is that phase's.

use serde::{Deserialize, Serialize};

use crate::evidence::{phase_id, words, NotOne, RowEvidence};

words! {
    /// How much work a periodic task does per period.
    pub enum WorkModel("work model") {
        /// A fixed number of loops: a slower clock misses deadlines.
        Loops => "loops",
        /// A fixed wall time.
        Wall => "wall",
    }
}

words! {
    /// Where the loops per millisecond came from.
    pub enum CalibrationSource("calibration source") {
        /// Measured now.
        Measured => "measured",
        /// Measured earlier on this machine.
        Cached => "cached",
        /// `--loops-per-ms`.
        Given => "given",
    }
}

words! {
    /// A benchmarked task (interbench's).
    pub enum Benchmark("benchmark") {
        /// 5 % of a CPU every 50 ms.
        Audio => "audio",
        /// 40 % of a CPU at 60 Hz.
        Video => "video",
        /// A window system: 0 to 100 % of 100 ms frames.
        X => "x",
        /// All the CPU it gets, no deadlines: frames per second.
        Gaming => "gaming",
        /// `--custom-cpu` every `--custom-interval`.
        Custom => "custom",
    }
}

words! {
    /// A background load (interbench's).
    pub enum Load("load") {
        /// No load.
        None => "none",
        /// The Video task as a load.
        Video => "video",
        /// The X task as a load.
        X => "x",
        /// Threads burning CPU.
        Burn => "burn",
        /// Writing a scratch file.
        Write => "write",
        /// Reading a scratch file.
        Read => "read",
        /// Burn, Write and Read at once, as a compile does.
        Compile => "compile",
        /// Allocating more than the free memory: swapping is its purpose.
        Memload => "memload",
        /// A storm of small messages between thread pairs (hackbench).
        Hack => "hack",
        /// The Custom task as a load.
        Custom => "custom",
    }
}

/// The phase of one cell: a benchmark under a load (`audio/burn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellPhase {
    /// The benchmarked task.
    pub bench: Benchmark,
    /// The load it ran under.
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
    /// How many loops make a millisecond of work here (the unit of `loops` work).
    /// Boxed: keeps the body (and so every `Body`) small.
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
    /// Nice value of the benchmarked task.
    pub bench_nice: i32,
    /// Nice value of the background loads.
    pub load_nice: i32,
    /// Threads of the Burn load (`--burn-threads`, else the online CPUs).
    pub burn_threads: u32,
    /// Where Write and Read put their scratch files; None where not recorded.
    pub scratch_dir: Option<String>,
    /// One table per benchmarked task, in the order they ran.
    pub benchmarks: Vec<BenchmarkTable>,
}

/// How many loops make a millisecond of work on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoopCalibration {
    /// Loops of the work loop per millisecond.
    pub loops_per_ms: u64,
    /// `measured`, `cached` (measured earlier on this machine) or `given` (`--loops-per-ms`).
    pub source: CalibrationSource,
    /// The CPU it was measured on (first online CPU of the fastest cluster); None when
    /// given.
    pub cpu: Option<u32>,
    /// Each check's loops per ms; empty when given.
    pub checks: Vec<u64>,
    /// Largest difference between checks, %; over 1 % it was redone; None when given.
    pub drift_pct: Option<f64>,
    /// Measurements it took; None when given or cached.
    pub attempts: Option<u32>,
    /// Whether the clock was pinned to its maximum while calibrating.
    pub clock_pinned: bool,
    /// Where a cached value came from, or a warning that it drifted; None otherwise.
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
    /// One cell per load, in the order they ran.
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
    /// What the load did (`4 threads burning CPU`); None when it did not start.
    pub load_description: Option<String>,
    /// The cell's figures; None when the task did not run (skipped, failed, interrupted).
    pub latency: Option<CellLatency>,
    /// The class the task ran in when the one asked for was refused, and why; None when
    /// it got its class.
    pub policy_refused: Option<String>,
    /// The deepest idle state a CPU entered during the cell (its cpuidle `usage` grew), with
    /// its exit latency: what a wake-up could cost; None without cpuidle, when none was
    /// entered, or in documents written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deepest_idle: Option<crate::residency::DeepestIdle>,
}

/// A cell's figures: the task's wake-up latency, µs, and how much of its work it got done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CellLatency {
    /// Latency samples (wake-ups) taken.
    pub samples: u64,
    /// Mean latency, µs.
    pub mean_us: f64,
    /// Sample standard deviation (interbench prints ≈ the RMS instead, see `interbench_sd_us`).
    pub sd_us: f64,
    /// interbench's "SD" (≈ the RMS), µs, for comparison with its tables.
    pub interbench_sd_us: f64,
    /// Largest latency, µs.
    pub max_us: f64,
    /// Median latency, µs.
    pub p50_us: f64,
    /// 99th percentile latency, µs.
    pub p99_us: f64,
    /// 99.9th percentile latency, µs.
    pub p999_us: f64,
    /// interbench's "% desired CPU": periods whose work was done, of all periods.
    pub desired_cpu_pct: f64,
    /// Deadlines met, % of all; None for a task without deadlines (Gaming).
    pub deadlines_met_pct: Option<f64>,
    /// Periods that ended before their deadline.
    pub deadlines_met: u64,
    /// Whole deadlines missed.
    pub deadlines_missed: u64,
    /// Periods whose work was done.
    pub work_done: u64,
    /// Periods dropped without doing their work.
    pub work_dropped: u64,
    /// Mean time left before the deadline in the periods that met it, µs.
    pub mean_slack_us: f64,
    /// Gaming: frames (work chunks) per second; None for other tasks.
    pub frames_per_s: Option<f64>,
    /// CPU the engine itself used per period (time keeping), µs.
    pub engine_overhead_us: f64,
}

impl crate::FailedRows for InteractivityBody {
    fn failed_rows(&self) -> bool {
        self.benchmarks
            .iter()
            .flat_map(|t| &t.cells)
            .any(|c| crate::outcome::failed(c.evidence.status))
    }
}
