//! The result document of `truebench run`: one versioned serde model, written as
//! `result.json`, rendered as the summary, the detailed log and the Results.md row
//! ([`crate::render`]). Field by field documentation: `docs/schema/run.md`; the JSON Schema:
//! `docs/schema/run.schema.json`.
//!
//! The model depends on the machine model (`truebench_host::Inventory`) and on the monitor's
//! evidence types (`Finding`, `Timeline`), never on the measurement kernels: the suite converts
//! each kernel's result into the typed scores here and keeps the kernel's full result as JSON
//! in [`PhaseResult::details`] for traceability.

use serde::{Deserialize, Serialize};
use truebench_host::Inventory;
use truebench_monitor::{Finding, Timeline};

/// Version of the document. Bump on an incompatible change and teach [`migrate`] the old one.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// A moment: Unix milliseconds and the same as RFC 3339 UTC text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stamp {
    pub unix_ms: i64,
    /// `2026-07-01T12:34:56.789Z`
    pub utc: String,
}

impl Stamp {
    pub fn from_unix_ms(unix_ms: i64) -> Stamp {
        Stamp {
            unix_ms,
            utc: rfc3339_utc(unix_ms),
        }
    }

    pub fn now() -> Stamp {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Stamp::from_unix_ms(ms)
    }
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `2026-07-01T12:34:56.789Z`.
pub fn rfc3339_utc(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1000);
    let ms = unix_ms.rem_euclid(1000);
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// The whole result of one `truebench run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    pub truebench_version: String,
    pub mode: Mode,
    /// False for quick runs: shortened phases give other numbers.
    pub comparable: bool,
    /// False when the run was interrupted (Ctrl-C, SIGTERM) or a phase could not finish.
    pub complete: bool,
    /// Why it is incomplete (`interrupted by SIGINT during 'memory'`).
    pub incomplete_reason: Option<String>,
    /// Complete and no critical finding: the scores can be trusted.
    pub valid: bool,
    pub started: Stamp,
    pub ended: Stamp,
    pub duration_s: f64,
    /// `proc/sys/kernel/hostname`.
    pub hostname: Option<String>,
    /// `UBUNTU_CODENAME`, else `VERSION_CODENAME` of os-release (the Results.md row uses it).
    pub os_codename: Option<String>,
    pub inventory: Inventory,
    pub tuning: TuningRecord,
    pub tools: Vec<Tool>,
    pub phases: Vec<PhaseResult>,
    /// Every detector over the whole run, most severe first.
    pub findings: Vec<Finding>,
    /// Every sample of the run with the phase marks (timeline seconds).
    pub timeline: Timeline,
    pub kernel_log: KernelLogRecord,
    /// sbc-bench's `Throttling statistics (time spent on each cpufreq OPP)` tables over the
    /// benchmark phases, one per cpufreq policy with statistics; empty without them.
    pub throttling: String,
    pub notes: Vec<String>,
}

/// What was done to the machine's settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TuningRecord {
    /// Tuning was wanted (not `--no-tuning`/`NOTUNING`).
    pub requested: bool,
    /// At least one setting was changed.
    pub applied: bool,
    /// Why nothing (or not everything) was changed.
    pub reason: Option<String>,
    /// Every write attempted, in order.
    pub changes: Vec<TuningChange>,
    /// Root-relative paths put back at the end.
    pub restored: Vec<String>,
    pub restore_failed: Vec<RestoreFailure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuningChange {
    /// Root-relative path (`sys/devices/system/cpu/cpufreq/policy0/scaling_governor`).
    pub path: String,
    pub value: String,
    /// None when the write succeeded.
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestoreFailure {
    pub path: String,
    pub reason: String,
}

/// A program or built-in kernel that produced scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// `openssl`, `7-zip`, `stockfish`, `built-in memory`, `built-in aes`, `built-in lzma`,
    /// `built-in stress`, `built-in clock`.
    pub name: String,
    /// As the tool prints it (`OpenSSL 3.0.19 27 Jan 2026 …`, `26.02`, `liblzma 5.8.1`).
    pub version: Option<String>,
    /// Executable path; None for built-ins.
    pub path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KernelLogRecord {
    /// The kernel log could be followed (`dev/kmsg` readable).
    pub available: bool,
    /// Why not.
    pub reason: Option<String>,
    /// Lines logged while the run went on, as dmesg prints them.
    pub lines: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    Ok,
    /// Not run (not in this mode, no tool, nothing to measure): `reason` says why.
    Skipped,
    /// Started and failed: `reason` holds the error.
    Failed,
    /// Stopped by Ctrl-C/SIGTERM; its scores (if any) are partial.
    Interrupted,
}

/// One step of the run: a timeline phase with its scores and the raw output behind them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    /// `idle`, `clocks-cold`, `memory`, `aes`, `compression-single`, `compression-multi`,
    /// `aes-parallel`, `compression-cluster`, `stress`, `clocks-all`, `clocks-hot`.
    pub name: String,
    /// What ran, for humans (`7-zip single-threaded, pinned per cluster`).
    pub title: String,
    /// Timeline seconds (as `Timeline::phases`).
    pub started: f64,
    pub ended: Option<f64>,
    pub started_unix_ms: i64,
    pub ended_unix_ms: Option<i64>,
    /// Threads the phase keeps busy (what background activity is judged against).
    pub threads: Option<u32>,
    /// CPUs it ran on.
    pub cpus: Vec<u32>,
    pub status: PhaseStatus,
    pub reason: Option<String>,
    pub scores: Option<Scores>,
    /// Tool output and built-in kernel text, in order.
    pub raw: Vec<RawOutput>,
    /// The kernels' full results (their own serde form), for traceability.
    #[serde(default)]
    pub details: serde_json::Value,
}

impl PhaseResult {
    pub fn duration_s(&self) -> Option<f64> {
        self.ended.map(|e| e - self.started)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawOutput {
    /// `openssl speed aes-256-cbc on cpu0`.
    pub label: String,
    /// The command line as run (`taskset -c 0 /usr/bin/7zz b -mmt1`), or the built-in kernel
    /// and its settings.
    pub command: String,
    pub text: String,
}

/// Headline numbers of a phase, typed per kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scores {
    Idle(IdleScores),
    Clocks(ClockScores),
    Memory(MemoryScores),
    Aes(AesScores),
    Compression(CompressionScores),
    Stress(StressScores),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BusyProcess {
    pub pid: u32,
    pub comm: String,
    pub cpu_s: f64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClockScores {
    pub clusters: Vec<ClusterClock>,
    pub all_cores: Option<AllCoreClocks>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterClock {
    pub cluster: usize,
    /// `cpu4-cpu7`.
    pub cpus: String,
    pub core_type: Option<String>,
    pub measured_cpu: Option<u32>,
    /// `opp_walk`, `current_clock`, `no_cpufreq`, `offline`, `max_opp` (hot check).
    pub mode: String,
    pub points: Vec<ClockPoint>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockPoint {
    /// The OPP set (MHz); None without cpufreq or a walk.
    pub opp_mhz: Option<u32>,
    /// What cpufreq reported at the moment.
    pub reported_mhz: Option<u32>,
    /// Raspberry Pi firmware's `measure_clock arm`.
    pub firmware_mhz: Option<f64>,
    pub measured_mhz: Option<f64>,
    pub samples_mhz: Vec<f64>,
    /// (measured − OPP) / OPP, %.
    pub deviation_pct: Option<f64>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllCoreClocks {
    pub idle: Vec<CoreClock>,
    pub load: Vec<CoreClock>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoreClock {
    pub cpu: u32,
    pub measured_mhz: Option<f64>,
    pub reported_mhz: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MemoryScores {
    /// One entry per cluster, pinned to its first CPU.
    pub clusters: Vec<MemoryCluster>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryCluster {
    pub cluster: Option<usize>,
    pub cpu: Option<u32>,
    pub core_type: Option<String>,
    pub memcpy: Option<Bandwidth>,
    pub memset: Option<Bandwidth>,
    /// Read-only pass.
    pub read: Option<Bandwidth>,
    pub buffer_bytes: u64,
    /// Dependent random reads from 4 KiB up: the cache sizes show as steps.
    pub latency: Vec<LatencyPoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bandwidth {
    /// Best sample, MB/s (10^6 bytes/s).
    pub mb_s: f64,
    /// Sample standard deviation as % of the best (tinymembench's bracket).
    pub spread_pct: f64,
    pub samples: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyPoint {
    pub bytes: u64,
    pub ns: f64,
    pub ns_hugepages: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AesSourceKind {
    /// `openssl speed -elapsed -evp`: comparable with the sbc-bench corpus.
    Openssl,
    /// truebench's built-in measurement in the same units.
    Builtin,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesTable {
    pub cluster: Option<usize>,
    pub cpus: Vec<u32>,
    pub core_type: Option<String>,
    pub rows: Vec<AesRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompressionTool {
    /// 7-zip's own benchmark (`7zz b`): MIPS.
    SevenZip,
    /// Built-in liblzma benchmark: MB/s of uncompressed data, never MIPS.
    BuiltinLzma,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompressionScores {
    pub tool: CompressionTool,
    /// 7-zip's version (`26.02`; scores differ between versions) or `liblzma 5.8.1`.
    pub version: Option<String>,
    pub program: Option<String>,
    pub runs: Vec<CompressionRun>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// One thread pinned to one CPU (per cluster).
    Single,
    /// All CPUs.
    Multi,
    /// All CPUs of one cluster (extensive).
    Cluster,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressScores {
    /// `stockfish` or `built-in`.
    pub tool: String,
    pub version: Option<String>,
    /// `GFLOP/s` (built-in) or `nodes/s` (stockfish).
    pub unit: String,
    pub intervals: Vec<StressInterval>,
    /// First to last interval, % (negative: the machine slowed down).
    pub change_pct: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressInterval {
    pub start_s: f64,
    pub end_s: f64,
    pub score: f64,
}

impl RunResult {
    pub fn phase(&self, name: &str) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| p.name == name)
    }

    /// Scores of every phase named `name` (`compression-cluster` may repeat).
    pub fn scores<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Scores> + 'a {
        self.phases
            .iter()
            .filter(move |p| p.name == name)
            .filter_map(|p| p.scores.as_ref())
    }
}

/// Why a document could not be read as a [`RunResult`].
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("not a truebench run result: no numeric `schema_version` field")]
    NoVersion,
    #[error(
        "schema_version {0} was written by a newer truebench; this build reads versions up to {SCHEMA_VERSION}: upgrade truebench"
    )]
    Newer(u64),
    #[error("schema_version {0} is not a version truebench ever wrote")]
    Unknown(u64),
    #[error("schema_version {version}: {source}")]
    Invalid {
        version: u64,
        #[source]
        source: serde_json::Error,
    },
}

/// Read a result document of any schema version this build knows, converting older versions
/// to the current model. There is only version 1 so far: older versions get a conversion step
/// here (`1 => …` lifting a v1 value to v2) when the model changes.
pub fn migrate(value: serde_json::Value) -> Result<RunResult, MigrateError> {
    let version = value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
        .ok_or(MigrateError::NoVersion)?;
    match version {
        1 => serde_json::from_value(value)
            .map_err(|source| MigrateError::Invalid { version, source }),
        v if v > SCHEMA_VERSION as u64 => Err(MigrateError::Newer(v)),
        v => Err(MigrateError::Unknown(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_from_unix_ms() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_782_909_296_789), "2026-07-01T12:34:56.789Z");
        assert_eq!(rfc3339_utc(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn migrate_rejects_future_and_missing_versions() {
        let e = migrate(serde_json::json!({"schema_version": 7})).unwrap_err();
        assert!(e.to_string().contains("newer truebench"), "{e}");
        assert!(matches!(
            migrate(serde_json::json!({"mode": "quick"})),
            Err(MigrateError::NoVersion)
        ));
        assert!(matches!(
            migrate(serde_json::json!({"schema_version": 0})),
            Err(MigrateError::Unknown(0))
        ));
        let e = migrate(serde_json::json!({"schema_version": 1})).unwrap_err();
        assert!(matches!(e, MigrateError::Invalid { version: 1, .. }), "{e}");
    }

    #[test]
    fn scores_are_tagged_by_kind() {
        let s = Scores::Stress(StressScores {
            tool: "built-in".into(),
            version: None,
            unit: "GFLOP/s".into(),
            intervals: vec![],
            change_pct: None,
        });
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["kind"], "stress");
        assert_eq!(serde_json::from_value::<Scores>(v).unwrap(), s);
    }
}
