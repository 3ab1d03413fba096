//! The `run` kind: sbc-bench's standard benchmark. Its body is the mode and the typed
//! [`Scores`] of each phase, by the phase's name (the phase's evidence is in the envelope).
//! Field by field documentation: `docs/schema/run.md`.

use serde::{Deserialize, Serialize};

use crate::evidence::PhaseId;

/// The phases of `run`, in the order they run: the one place their names are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunPhase {
    /// The idle gate (also the idle power of `thermal` and `efficiency`).
    Idle,
    ClocksCold,
    Memory,
    Aes,
    CompressionSingle,
    CompressionMulti,
    AesParallel,
    CompressionCluster,
    Stress,
    ClocksAll,
    ClocksHot,
}

crate::evidence::words!(RunPhase, "run phase", {
    Idle => "idle",
    ClocksCold => "clocks-cold",
    Memory => "memory",
    Aes => "aes",
    CompressionSingle => "compression-single",
    CompressionMulti => "compression-multi",
    AesParallel => "aes-parallel",
    CompressionCluster => "compression-cluster",
    Stress => "stress",
    ClocksAll => "clocks-all",
    ClocksHot => "clocks-hot",
});
crate::evidence::is_phase!(RunPhase);

/// `run`'s phases by name: the suite plans them, the sbc-bench import maps its tables to
/// them, renderers and the history look scores up by them.
pub mod phase {
    use super::RunPhase;

    /// The idle gate (also the idle power of `thermal` and `efficiency`).
    pub const IDLE: RunPhase = RunPhase::Idle;
    pub const CLOCKS_COLD: RunPhase = RunPhase::ClocksCold;
    pub const MEMORY: RunPhase = RunPhase::Memory;
    pub const AES: RunPhase = RunPhase::Aes;
    pub const COMPRESSION_SINGLE: RunPhase = RunPhase::CompressionSingle;
    pub const COMPRESSION_MULTI: RunPhase = RunPhase::CompressionMulti;
    pub const AES_PARALLEL: RunPhase = RunPhase::AesParallel;
    pub const COMPRESSION_CLUSTER: RunPhase = RunPhase::CompressionCluster;
    pub const STRESS: RunPhase = RunPhase::Stress;
    pub const CLOCKS_ALL: RunPhase = RunPhase::ClocksAll;
    pub const CLOCKS_HOT: RunPhase = RunPhase::ClocksHot;
}

/// Body of a `run` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunBody {
    pub mode: Mode,
    /// The figures of each phase that has some, in the order the phases ran.
    #[serde(default)]
    pub scores: Vec<PhaseScores>,
}

/// The figures of one phase (`phase` is the envelope's phase of the same name: a
/// [`RunPhase`] in a `run`, the walk in a `clocks` document).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseScores {
    pub phase: String,
    pub scores: Scores,
}

impl RunBody {
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

    pub fn memory(&self) -> Option<&MemoryScores> {
        self.scores(phase::MEMORY).find_map(|s| match s {
            Scores::Memory(m) => Some(m),
            _ => None,
        })
    }

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Standard,
    /// Every phase shortened (about a minute): not comparable with other results.
    Quick,
    /// Standard plus AES on all cores, 7-zip per cluster, a stress phase and all-core clocks.
    Extensive,
}

impl Mode {
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
    Idle(IdleScores),
    Clocks(ClockScores),
    Memory(MemoryScores),
    Aes(AesScores),
    Compression(CompressionScores),
    Stress(StressScores),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleScores {
    pub idle: bool,
    /// Not idle, started anyway (`--force`).
    pub forced: bool,
    /// The gate's last verdict (`1-minute load 0.05 < 0.10`).
    pub reason: String,
    pub waited_s: f64,
    pub load1: Option<f64>,
    /// Busy CPUs as % of all, over the last interval.
    pub busy_pct: Option<f64>,
    pub temp_c: Option<f64>,
    pub busy_processes: Vec<BusyProcess>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BusyProcess {
    pub pid: u32,
    pub comm: String,
    pub cpu_s: f64,
}

/// A clock walk inside a run: the same types as the `clocks` kind's.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockScores {
    pub clusters: Vec<crate::clocks::ClusterClocks>,
    pub all_cores: Option<crate::clocks::AllCores>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemoryScores {
    /// One entry per cluster, pinned to its first CPU.
    pub clusters: Vec<MemoryCluster>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemoryCluster {
    pub cluster: Option<usize>,
    pub cpu: Option<u32>,
    pub core_type: Option<String>,
    /// truebench's best method (libc whole or in blocks, or non-temporal stores) at
    /// `buffer_bytes`: what this machine can copy. Not sbc-bench's measure.
    pub memcpy: Option<Bandwidth>,
    pub memset: Option<Bandwidth>,
    /// Read-only pass.
    pub read: Option<Bandwidth>,
    /// tinymembench's `standard memcpy`/`standard memset` (libc over 32 MiB, its sampling):
    /// the measure sbc-bench's Results.md rows and the corpus ranking use. None in results
    /// from before truebench took it; such results have no memcpy/memset in their row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_memcpy: Option<Bandwidth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_memset: Option<Bandwidth>,
    pub buffer_bytes: u64,
    /// Dependent random reads from 4 KiB up: the cache sizes show as steps.
    pub latency: Vec<LatencyPoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Bandwidth {
    /// Best sample, MB/s (10^6 bytes/s).
    pub mb_s: f64,
    /// Sample standard deviation as % of the best (tinymembench's bracket).
    pub spread_pct: f64,
    pub samples: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencyPoint {
    pub bytes: u64,
    pub ns: f64,
    pub ns_hugepages: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AesSourceKind {
    /// `openssl speed -elapsed -evp`: comparable with the sbc-bench corpus.
    Openssl,
    /// truebench's built-in measurement in the same units.
    Builtin,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AesScores {
    pub source: AesSourceKind,
    /// OpenSSL's version line, or the built-in implementation.
    pub version: Option<String>,
    /// The CPU has AES instructions (ARMv8 Crypto Extensions, AES-NI); None: unknown.
    pub has_aes_instructions: Option<bool>,
    /// `AES-NI`, `ARMv8 Crypto Extensions`, … (what the flag means on this architecture).
    pub aes_instructions: Option<String>,
    /// All CPUs in parallel (`openssl speed -multi`, extensive mode).
    pub parallel: bool,
    /// Chunk sizes, bytes (columns of every row).
    pub sizes: Vec<u32>,
    pub tables: Vec<AesTable>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AesTable {
    pub cluster: Option<usize>,
    pub cpus: Vec<u32>,
    pub core_type: Option<String>,
    pub rows: Vec<AesRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AesRow {
    /// `aes-256-cbc`.
    pub cipher: String,
    /// 1000s of bytes per second per chunk size (OpenSSL's `k`).
    pub k: Vec<f64>,
}

impl AesTable {
    pub fn get(&self, sizes: &[u32], cipher: &str, size: u32) -> Option<f64> {
        let col = sizes.iter().position(|&s| s == size)?;
        self.rows
            .iter()
            .find(|r| r.cipher == cipher)
            .and_then(|r| r.k.get(col).copied())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompressionTool {
    /// 7-zip's own benchmark (`7zz b`): MIPS.
    SevenZip,
    /// Built-in liblzma benchmark: MB/s of uncompressed data, never MIPS.
    BuiltinLzma,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CompressionScores {
    pub tool: CompressionTool,
    /// 7-zip's version (`26.02`; scores differ between versions) or `liblzma 5.8.1`.
    pub version: Option<String>,
    pub program: Option<String>,
    pub runs: Vec<CompressionRun>,
}

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CompressionRun {
    pub kind: RunKind,
    pub cluster: Option<usize>,
    pub cpus: Vec<u32>,
    pub threads: u32,
    /// log2 of the dictionary (`-mdN` or 7-zip's default).
    pub dict_log2: Option<u32>,
    /// Why this dictionary (low memory shrinks it).
    pub dictionary_reason: Option<String>,
    /// 7-zip: `Avr:` compression and decompression rating and `Tot:` rating, MIPS.
    pub compress_mips: Option<u64>,
    pub decompress_mips: Option<u64>,
    pub total_mips: Option<u64>,
    /// Built-in LZMA: MB/s of uncompressed data (not MIPS).
    pub compress_mb_s: Option<f64>,
    pub decompress_mb_s: Option<f64>,
    pub ratio: Option<f64>,
}

/// What loaded the machine in the stress phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StressTool {
    /// truebench's SIMD kernel (GFLOP/s).
    Builtin,
    /// Stockfish's bench (nodes/s).
    Stockfish,
    /// cpuminer (kH/s), in imported sbc-bench logs.
    Cpuminer,
}
crate::evidence::words!(StressTool, "stress tool", {
    Builtin => "built-in",
    Stockfish => "stockfish",
    Cpuminer => "cpuminer",
});

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StressScores {
    /// `stockfish`, `built-in` or, imported, `cpuminer`.
    pub tool: StressTool,
    pub version: Option<String>,
    /// `GFLOP/s` (built-in) or `nodes/s` (stockfish).
    pub unit: String,
    pub intervals: Vec<StressInterval>,
    /// First to last interval, % (negative: the machine slowed down).
    pub change_pct: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StressInterval {
    pub start_s: f64,
    pub end_s: f64,
    pub score: f64,
}
