//! The `run` kind: sbc-bench's standard benchmark. Its body is the mode and the typed
//! [`Scores`] of each phase, by the phase's name (the phase's evidence is in the envelope).
//! Field by field documentation: `docs/schema/run.md`.

use serde::{Deserialize, Serialize};

use crate::evidence::PhaseId;

crate::evidence::words! {
    /// The phases of `run`, in the order they run: the one place their names are spelled.
    pub enum RunPhase("run phase") {
        /// The idle gate (also the idle power of `thermal` and `efficiency`).
        Idle => "idle",
        /// The OPP walk, idle and cold: measured against advertised clock at every OPP.
        ClocksCold => "clocks-cold",
        /// Memory bandwidth and latency, pinned to the first CPU of each cluster.
        Memory => "memory",
        /// AES per cluster, pinned to its first CPU.
        Aes => "aes",
        /// 7-zip single-threaded, pinned to the first CPU of each cluster.
        CompressionSingle => "compression-single",
        /// 7-zip on all cores.
        CompressionMulti => "compression-multi",
        /// AES on all cores at once (extensive mode).
        AesParallel => "aes-parallel",
        /// 7-zip on the cores of one cluster, one phase per cluster (extensive mode).
        CompressionCluster => "compression-cluster",
        /// A sustained load scored per interval (extensive mode).
        Stress => "stress",
        /// Every CPU's clock at once, idle and under load (extensive mode).
        ClocksAll => "clocks-all",
        /// The highest OPP measured hot, under load on the other CPUs, after the benchmarks.
        ClocksHot => "clocks-hot",
    }
}
crate::evidence::is_phase!(RunPhase);

/// `run`'s phases by name: the suite plans them, the sbc-bench import maps its tables to
/// them, renderers and the history look scores up by them.
pub mod phase {
    use super::RunPhase;

    /// The idle gate (also the idle power of `thermal` and `efficiency`).
    pub const IDLE: RunPhase = RunPhase::Idle;
    /// The OPP walk, idle and cold: measured against advertised clock at every OPP.
    pub const CLOCKS_COLD: RunPhase = RunPhase::ClocksCold;
    /// Memory bandwidth and latency, pinned to the first CPU of each cluster.
    pub const MEMORY: RunPhase = RunPhase::Memory;
    /// AES per cluster, pinned to its first CPU.
    pub const AES: RunPhase = RunPhase::Aes;
    /// 7-zip single-threaded, pinned to the first CPU of each cluster.
    pub const COMPRESSION_SINGLE: RunPhase = RunPhase::CompressionSingle;
    /// 7-zip on all cores.
    pub const COMPRESSION_MULTI: RunPhase = RunPhase::CompressionMulti;
    /// AES on all cores at once (extensive mode).
    pub const AES_PARALLEL: RunPhase = RunPhase::AesParallel;
    /// 7-zip on the cores of one cluster, one phase per cluster (extensive mode).
    pub const COMPRESSION_CLUSTER: RunPhase = RunPhase::CompressionCluster;
    /// A sustained load scored per interval (extensive mode).
    pub const STRESS: RunPhase = RunPhase::Stress;
    /// Every CPU's clock at once, idle and under load (extensive mode).
    pub const CLOCKS_ALL: RunPhase = RunPhase::ClocksAll;
    /// The highest OPP measured hot, under load on the other CPUs, after the benchmarks.
    pub const CLOCKS_HOT: RunPhase = RunPhase::ClocksHot;
}

/// Body of a `run` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunBody {
    /// How much was run.
    pub mode: Mode,
    /// The figures of each phase that has some, in the order the phases ran.
    #[serde(default)]
    pub scores: Vec<PhaseScores>,
}

/// The figures of one phase (`phase` is the envelope's phase of the same name: a
/// [`RunPhase`] in a `run`, the walk in a `clocks` document).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseScores {
    /// Name of the envelope's phase whose evidence the figures stand on.
    pub phase: String,
    /// The figures, tagged by their `kind`.
    pub scores: Scores,
}

impl RunBody {
    /// A body of `mode` with no scores yet.
    pub fn new(mode: Mode) -> RunBody {
        RunBody {
            mode,
            scores: Vec::new(),
        }
    }

    /// Scores of every phase `phase` (`compression-cluster` may repeat).
    pub fn scores<'a>(&'a self, phase: impl PhaseId + 'a) -> impl Iterator<Item = &'a Scores> + 'a {
        self.scores
            .iter()
            .filter(move |p| phase.is(&p.phase))
            .map(|p| &p.scores)
    }

    /// The clock walk of phase `phase` (`clocks-cold`, `clocks-all`, `clocks-hot`).
    pub fn clocks(&self, phase: impl PhaseId) -> Option<&ClockScores> {
        self.scores
            .iter()
            .filter(|p| phase.is(&p.phase))
            .find_map(|p| match &p.scores {
                Scores::Clocks(c) => Some(c),
                _ => None,
            })
    }

    /// The memory phase's figures.
    pub fn memory(&self) -> Option<&MemoryScores> {
        self.scores(phase::MEMORY).find_map(|s| match s {
            Scores::Memory(m) => Some(m),
            _ => None,
        })
    }

    /// The stress phase's figures.
    pub fn stress(&self) -> Option<&StressScores> {
        self.scores(phase::STRESS).find_map(|s| match s {
            Scores::Stress(m) => Some(m),
            _ => None,
        })
    }

    /// The AES table of phase `phase` (`aes`, `aes-parallel`).
    pub fn aes(&self, phase: impl PhaseId) -> Option<&AesScores> {
        self.scores
            .iter()
            .filter(|p| phase.is(&p.phase))
            .find_map(|p| match &p.scores {
                Scores::Aes(a) => Some(a),
                _ => None,
            })
    }

    /// The 7-zip (or liblzma) runs of phase `phase`.
    pub fn compression<'a>(
        &'a self,
        phase: impl PhaseId + 'a,
    ) -> impl Iterator<Item = &'a CompressionScores> + 'a {
        self.scores(phase).filter_map(|s| match s {
            Scores::Compression(c) => Some(c),
            _ => None,
        })
    }
}

/// How much `truebench run` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// sbc-bench's standard phases at full length.
    Standard,
    /// Every phase shortened (about a minute): not comparable with other results.
    Quick,
    /// Standard plus AES on all cores, 7-zip per cluster, a stress phase and all-core clocks.
    Extensive,
}

impl Mode {
    /// The JSON name (`standard`, `quick`, `extensive`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Standard => "standard",
            Mode::Quick => "quick",
            Mode::Extensive => "extensive",
        }
    }
}

/// Headline numbers of a phase, typed per kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scores {
    /// The idle gate (`idle`).
    Idle(IdleScores),
    /// A clock walk (`clocks-cold`, `clocks-all`, `clocks-hot`).
    Clocks(ClockScores),
    /// Memory bandwidth and latency (`memory`).
    Memory(MemoryScores),
    /// AES throughput (`aes`, `aes-parallel`).
    Aes(AesScores),
    /// 7-zip or built-in LZMA (`compression-single`, `compression-multi`, `compression-cluster`).
    Compression(CompressionScores),
    /// A sustained load's score over time (`stress`).
    Stress(StressScores),
}

/// The idle gate's outcome: whether the machine was idle before the benchmarks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleScores {
    /// The gate passed: the machine was idle.
    pub idle: bool,
    /// Not idle, started anyway (`--force`).
    pub forced: bool,
    /// The gate's last verdict (`1-minute load 0.05 < 0.10`).
    pub reason: String,
    /// Seconds the gate waited.
    pub waited_s: f64,
    /// The 1-minute load average at the last reading; None when unreadable.
    pub load1: Option<f64>,
    /// Busy CPUs as % of all, over the last interval; None before two readings of
    /// `/proc/stat`.
    pub busy_pct: Option<f64>,
    /// SoC temperature at the last reading, °C; None without a sensor.
    pub temp_c: Option<f64>,
    /// The processes that used CPU while the gate waited (empty when idle).
    pub busy_processes: Vec<BusyProcess>,
}

/// A process that kept the machine from being idle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BusyProcess {
    /// Process id.
    pub pid: u32,
    /// Its command name (`/proc/PID/comm`).
    pub comm: String,
    /// CPU seconds it (and its waited-for children) used while the gate watched.
    pub cpu_s: f64,
}

/// A clock walk inside a run: the same types as the `clocks` kind's.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockScores {
    /// The walk of each cluster (`clocks-cold`, `clocks-hot`).
    pub clusters: Vec<crate::clocks::ClusterClocks>,
    /// Every CPU at once, idle and under load (`clocks-all` only); None otherwise.
    pub all_cores: Option<crate::clocks::AllCores>,
}

/// Memory bandwidth and latency per cluster.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemoryScores {
    /// One entry per cluster, pinned to its first CPU.
    pub clusters: Vec<MemoryCluster>,
}

/// Memory figures measured from one CPU of a cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemoryCluster {
    /// Cluster id (`Inventory::clusters`); None when the machine's topology is unknown.
    pub cluster: Option<usize>,
    /// The CPU it was pinned to; None where not recorded.
    pub cpu: Option<u32>,
    /// Core type (`Cortex-A76`); None when unknown.
    pub core_type: Option<String>,
    /// truebench's best method (libc whole or in blocks, or non-temporal stores) at
    /// `buffer_bytes`: what this machine can copy. Not sbc-bench's measure.
    pub memcpy: Option<Bandwidth>,
    /// truebench's best memset at `buffer_bytes`; None when not measured.
    pub memset: Option<Bandwidth>,
    /// Read-only pass; None when not measured.
    pub read: Option<Bandwidth>,
    /// tinymembench's `standard memcpy`/`standard memset` (libc over 32 MiB, its sampling):
    /// the measure sbc-bench's Results.md rows and the corpus ranking use. None in results
    /// from before truebench took it; such results have no memcpy/memset in their row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_memcpy: Option<Bandwidth>,
    /// tinymembench's `standard memset`, as `standard_memcpy` (None in the same results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_memset: Option<Bandwidth>,
    /// Size of the buffer the bandwidths were measured over, bytes.
    pub buffer_bytes: u64,
    /// Dependent random reads from 4 KiB up: the cache sizes show as steps.
    pub latency: Vec<LatencyPoint>,
}

/// One bandwidth test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Bandwidth {
    /// Best sample, MB/s (10^6 bytes/s).
    pub mb_s: f64,
    /// Sample standard deviation as % of the best (tinymembench's bracket).
    pub spread_pct: f64,
    /// Samples taken.
    pub samples: u32,
}

/// Memory latency at one block size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencyPoint {
    /// Block size the random reads range over, bytes.
    pub bytes: u64,
    /// Nanoseconds per dependent random read, huge pages refused.
    pub ns: f64,
    /// Nanoseconds per read with `MADV_HUGEPAGE`; None when not measured.
    pub ns_hugepages: Option<f64>,
}

/// What measured the AES figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AesSourceKind {
    /// `openssl speed -elapsed -evp`: comparable with the sbc-bench corpus.
    Openssl,
    /// truebench's built-in measurement in the same units.
    Builtin,
}

/// AES throughput per chunk size, one table per cluster (or one over all CPUs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AesScores {
    /// openssl or the built-in kernel.
    pub source: AesSourceKind,
    /// OpenSSL's version line, or the built-in implementation; None when unknown.
    pub version: Option<String>,
    /// The CPU has AES instructions (ARMv8 Crypto Extensions, AES-NI); None: unknown.
    pub has_aes_instructions: Option<bool>,
    /// `AES-NI`, `ARMv8 Crypto Extensions`, … (what the flag means on this architecture);
    /// None when unknown.
    pub aes_instructions: Option<String>,
    /// All CPUs in parallel (`openssl speed -multi`, extensive mode).
    pub parallel: bool,
    /// Chunk sizes, bytes (columns of every row).
    pub sizes: Vec<u32>,
    /// One table per cluster, or one summed over all CPUs when `parallel`.
    pub tables: Vec<AesTable>,
}

/// AES figures of one cluster (or of all CPUs together).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AesTable {
    /// Cluster id; None for all CPUs together or an unknown topology.
    pub cluster: Option<usize>,
    /// The CPUs measured: the cluster's first CPU, or all of them.
    pub cpus: Vec<u32>,
    /// Core type (`Cortex-A76`); None when unknown or several.
    pub core_type: Option<String>,
    /// One row per cipher.
    pub rows: Vec<AesRow>,
}

/// One cipher's throughput at every chunk size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AesRow {
    /// `aes-256-cbc`.
    pub cipher: String,
    /// 1000s of bytes per second per chunk size (OpenSSL's `k`).
    pub k: Vec<f64>,
}

impl AesTable {
    /// The `k` of `cipher` at chunk `size` (bytes), given the scores' `sizes`.
    pub fn get(&self, sizes: &[u32], cipher: &str, size: u32) -> Option<f64> {
        let col = sizes.iter().position(|&s| s == size)?;
        self.rows
            .iter()
            .find(|r| r.cipher == cipher)
            .and_then(|r| r.k.get(col).copied())
    }
}

/// What measured the compression figures (their units differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompressionTool {
    /// 7-zip's own benchmark (`7zz b`): MIPS.
    SevenZip,
    /// Built-in liblzma benchmark: MB/s of uncompressed data, never MIPS.
    BuiltinLzma,
}

/// The compression runs of one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CompressionScores {
    /// 7-zip or the built-in LZMA.
    pub tool: CompressionTool,
    /// 7-zip's version (`26.02`; scores differ between versions) or `liblzma 5.8.1`; None
    /// when 7-zip did not print it.
    pub version: Option<String>,
    /// The 7-zip executable run (its banner line in imported sbc-bench logs); None for the
    /// built-in LZMA.
    pub program: Option<String>,
    /// One entry per run, in the order they ran.
    pub runs: Vec<CompressionRun>,
}

/// Which CPUs a compression run used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// One thread pinned to one CPU (per cluster).
    Single,
    /// All CPUs.
    Multi,
    /// All CPUs of one cluster (extensive).
    Cluster,
}

/// One compression benchmark run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CompressionRun {
    /// Single CPU, all CPUs or one cluster.
    pub kind: RunKind,
    /// Cluster id; None for all CPUs or an unknown topology.
    pub cluster: Option<usize>,
    /// The CPUs it was pinned to.
    pub cpus: Vec<u32>,
    /// Threads it ran.
    pub threads: u32,
    /// log2 of the dictionary (`-mdN` or 7-zip's default); None where not recorded.
    pub dict_log2: Option<u32>,
    /// Why this dictionary (low memory shrinks it); None for the built-in LZMA.
    pub dictionary_reason: Option<String>,
    /// 7-zip's `Avr:` compression rating, MIPS; None for the built-in LZMA or no result.
    pub compress_mips: Option<u64>,
    /// 7-zip's `Avr:` decompression rating, MIPS; None as `compress_mips`.
    pub decompress_mips: Option<u64>,
    /// 7-zip's `Tot:` rating, MIPS (sbc-bench's 7-zip score); None as `compress_mips`.
    pub total_mips: Option<u64>,
    /// Built-in LZMA compression, MB/s of uncompressed data (not MIPS); None for 7-zip.
    pub compress_mb_s: Option<f64>,
    /// Built-in LZMA decompression, MB/s of uncompressed data; None for 7-zip.
    pub decompress_mb_s: Option<f64>,
    /// Built-in LZMA: uncompressed / compressed size; None for 7-zip.
    pub ratio: Option<f64>,
}

crate::evidence::words! {
    /// What loaded the machine in the stress phase.
    pub enum StressTool("stress tool") {
        /// truebench's SIMD kernel (GFLOP/s).
        Builtin => "built-in",
        /// Stockfish's bench (nodes/s).
        Stockfish => "stockfish",
        /// cpuminer (kH/s), in imported sbc-bench logs.
        Cpuminer => "cpuminer",
    }
}

/// A sustained load scored interval by interval: a falling series is throttling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StressScores {
    /// `stockfish`, `built-in` or, imported, `cpuminer`.
    pub tool: StressTool,
    /// stockfish's version line or the built-in kernel's implementation; None when unknown.
    pub version: Option<String>,
    /// `GFLOP/s` (built-in) or `nodes/s` (stockfish).
    pub unit: String,
    /// The score of each interval, in order.
    pub intervals: Vec<StressInterval>,
    /// First to last interval, % (negative: the machine slowed down); None with fewer
    /// than two intervals or a first score of 0.
    pub change_pct: Option<f64>,
}

/// The score of one interval of the stress load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StressInterval {
    /// Start, seconds from the start of the load.
    pub start_s: f64,
    /// End, seconds from the start of the load.
    pub end_s: f64,
    /// Score over the interval, in `unit`.
    pub score: f64,
}

impl crate::FailedRows for RunBody {
    fn failed_rows(&self) -> bool {
        // Its phases are the envelope's, which the outcome reads.
        false
    }
}
