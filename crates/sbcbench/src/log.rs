//! The typed model of one sbc-bench result log (v0.4 … v0.9.72).
//!
//! Everything keeps the numbers as numbers (MHz, MB/s, kB/s, °C, seconds) so that detectors can
//! later run on imported evidence; strings are kept only where the log has free text (labels,
//! versions, kernel-log lines). A section that is absent or cannot be read is `None`/empty and
//! explained in `missing`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SbcBenchLog {
    pub header: Header,
    pub system: System,
    /// `CPU sysfs topology` table (v0.7+).
    pub topology: Vec<TopologyCpu>,
    /// Every `Checking cpufreq OPP` block, in log order (before and after the benchmarks).
    pub opp_blocks: Vec<OppBlock>,
    /// `No cpufreq support … Measured …` lines (machines without cpufreq).
    pub no_cpufreq: Vec<NoCpufreqMeasurement>,
    /// `Measuring highest clockspeeds for all cores in parallel` blocks (extensive mode).
    pub parallel_clocks: Vec<ParallelClocks>,
    pub tinymembench: Vec<TinymembenchRun>,
    pub ramlat: Vec<RamlatRun>,
    pub openssl: Option<OpenSsl>,
    pub sevenzip: Option<SevenZip>,
    pub cpuminer: Option<Cpuminer>,
    pub stockfish: Option<Stockfish>,
    /// Every `System health while running X:` table, plus the one-line `System health now:`
    /// tables printed before the clocks are checked again.
    pub monitoring: Vec<MonitorTable>,
    pub throttling: Vec<ThrottlingTable>,
    /// Lines of the `dmesg output while running the benchmarks:` section.
    pub dmesg: Option<Vec<String>>,
    /// `free` outputs in log order: the first is taken before, the last after the benchmarks.
    pub memory: Vec<FreeSnapshot>,
    /// `swapon -s` tables in log order.
    pub swap_devices: Vec<Vec<SwapDevice>>,
    pub thermal_source: Option<ThermalSource>,
    /// `Hardware sensors:` blocks (lm-sensors and drive temperatures), in log order.
    pub sensors: Vec<Vec<SensorChip>>,
    /// The log's own `Results validation:` bullets (v0.9.35+), text after `  * `.
    pub validation: Vec<String>,
    /// Warnings sbc-bench wrote outside `Results validation:` (`Throttling occured…`,
    /// `WARNING: ZSWAP ON TOP OF ZRAM…`): the only verdicts logs before v0.9.35 carry.
    pub warnings: Vec<String>,
    /// The Markdown row sbc-bench appended to the log itself (v0.8.4+), if present.
    pub embedded_row: Option<EmbeddedRow>,
    /// The regulators and device-tree OPP tables sbc-bench printed (v0.9.x), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dt_opp: Option<DtOppSection>,
    /// The `cpufreq-policyN: governor / MHz (governors / OPPs)` lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<PolicyLine>,
    /// Sections that are absent or could not be parsed, with the reason.
    pub missing: Vec<Missing>,
}

/// The regulators and OPP tables of sbc-bench's device-tree section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DtOppSection {
    pub regulators: Vec<LogRegulator>,
    pub tables: Vec<LogOppTable>,
}

/// `vdd_cpu_b: 1300 mV (1500 mV max)`: the regulator's `microvolts` and `max_microvolts`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogRegulator {
    pub name: String,
    pub mv: u32,
    /// None when not printed; 0 when the kernel shows no maximum.
    pub max_mv: Option<u32>,
}

/// One OPP table node as printed (`cluster1-opp-table:`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogOppTable {
    pub name: String,
    pub rows: Vec<LogOppRow>,
}

/// One OPP row: MHz, the `opp-microvolt` voltage(s) in mV (one per speed bin when the table has
/// `opp-microvolt-speedN`; none for `-`), and `opp-supported-hw` cells.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogOppRow {
    pub mhz: u32,
    pub mv: Vec<f64>,
    pub supported_hw: Vec<u32>,
}

/// A `cpufreq-policyN:` status line: the policy and the OPPs it offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyLine {
    pub policy: u32,
    pub offered_mhz: Vec<u32>,
}

/// First line: `sbc-bench v0.9.72 DEVICE [MODE] (DATE)` or, in v0.4/v0.5, `sbc-bench v0.4 -- DATE`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// `0.9.72`; `None` for the few early logs that start with the distro block.
    pub version: Option<String>,
    /// Device name as sbc-bench determined it (`DeviceName`), without the " / " separator
    /// a missing board name leaves in front of the CPU.
    pub device: Option<String>,
    /// The device name exactly as printed (sbc-bench's Results.md row uses it so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_as_printed: Option<String>,
    /// `extensive`, `unattended`… when sbc-bench appended the mode to the device name.
    pub mode: Option<String>,
    /// Date as written (RFC 2822).
    pub date: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct System {
    /// `lsb_release -a` lines.
    pub distributor_id: Option<String>,
    pub description: Option<String>,
    pub release: Option<String>,
    pub codename: Option<String>,
    /// `Architecture:` line of the distro block (dpkg architecture, old logs).
    pub architecture: Option<String>,
    /// `uname -r`, from `Kernel: X/arch` or the iostat `Linux X (host)` line.
    pub kernel: Option<String>,
    /// `uname -m` (`aarch64`, `armv7l`, `x86_64`…).
    pub kernel_arch: Option<String>,
    /// Userland architecture (`Userland: arm64`, else the distro block's `Architecture:`).
    pub userland: Option<String>,
    pub hostname: Option<String>,
    /// CPU count from the iostat line `(4 CPU)`.
    pub cpus: Option<u32>,
    /// `SoC guess:` (v0.8+).
    pub soc_guess: Option<String>,
    /// `DT compat:` and its continuation lines (v0.9+): /proc/device-tree/compatible,
    /// board first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dt_compat: Vec<String>,
    /// lscpu's `Model name:` (the processor, on x86 the chip itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// Load averages of the first `Uptime:` line.
    pub load_avg: Option<[f64; 3]>,
    /// Compiler line (`/usr/bin/gcc (…) 12.2.0`).
    pub compiler: Option<String>,
    /// Operating system as sbc-bench printed it under `### Software versions:` (v0.9.x).
    pub os_pretty: Option<String>,
    /// lscpu's `CPU max MHz:` values (one per core-type section in newer lscpu): the only
    /// place with `cpuinfo_max_freq` at kHz precision.
    pub lscpu_max_mhz: Vec<f64>,
}

/// One row of `CPU sysfs topology (clusters, cpufreq members, clockspeeds)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TopologyCpu {
    pub cpu: u32,
    /// Package/cluster id as printed (`-1` on some RISC-V kernels).
    pub cluster: Option<i64>,
    pub policy: Option<u32>,
    pub min_mhz: Option<u32>,
    pub max_mhz: Option<u32>,
    /// `Cortex-A76`, `Neoverse-N1`, `sifive,u74-mc`…
    pub core_type: Option<String>,
    /// `r4p0`.
    pub stepping: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Round {
    /// Before the benchmarks (idle, cold).
    #[default]
    Before,
    /// `Testing clockspeeds again` / `Testing maximum cpufreq again, still under full load`.
    After,
}

/// `Checking cpufreq OPP[ for cpu0-cpu3][ (Cortex-A55)]:` and its points.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OppBlock {
    pub round: Round,
    /// `cpu0-cpu3` (v0.6+ on multi-cluster machines).
    pub cpus: Option<String>,
    pub core_type: Option<String>,
    pub points: Vec<OppPoint>,
}

/// `Cpufreq OPP: 1800    Measured: 1793 (1793.551/1793.033/1793.531)     (-0.4%)` and the
/// Raspberry Pi variant `Cpufreq OPP: 1500  ThreadX: 1500  Measured: 1498 @ 0.8600V`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OppPoint {
    pub opp_mhz: u32,
    /// What the Raspberry Pi firmware (ThreadX) reported for the same moment.
    pub threadx_mhz: Option<u32>,
    /// The integer sbc-bench printed (truncated mean of the samples); for old logs that only
    /// printed the samples, the same truncated mean computed from them.
    pub measured_mhz: Option<u32>,
    /// Whether `measured_mhz` was printed by sbc-bench (false: computed here from samples).
    pub measured_printed: bool,
    /// The three `mhz` samples, MHz.
    pub samples: Vec<f64>,
    /// Raspberry Pi core voltage(s) after `@` (firmware, then PMIC ADC on the Pi 5).
    pub volts: Vec<f64>,
    /// sbc-bench's own deviation annotation `(-0.4%)`, percent.
    pub deviation_pct: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NoCpufreqMeasurement {
    pub round: Round,
    pub cpu: Option<u32>,
    pub measured_mhz: Option<u32>,
    pub samples: Vec<f64>,
    /// Which wording: `available` (v0.6…v0.9.x `No cpufreq support available. Measured on cpuN:`)
    /// or `short` (`No cpufreq support.  Measured:`).
    pub wording: String,
}

/// `Measuring highest clockspeeds for all cores in parallel (idle|full load):`
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ParallelClocks {
    /// `idle` or `full load`.
    pub condition: String,
    pub cpus: Vec<ParallelClock>,
}

/// `cpu0: 2991/2999 MHz (2991.997/2991.789/2991.720)`
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ParallelClock {
    pub cpu: u32,
    pub measured_mhz: Option<u32>,
    pub max_mhz: Option<u32>,
    pub samples: Vec<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TinymembenchRun {
    /// The CPU it was pinned to (`Executing benchmark on cpu4 (Cortex-A72):`).
    pub cpu: Option<u32>,
    /// Core type from the same line, or `little`/`big` in v0.6 (`on a big core`).
    pub label: Option<String>,
    /// `v0.4.9`, `v0.4.9-nuumio`.
    pub version: Option<String>,
    /// Every `name : value MB/s [(n, sd%)]` line, bandwidth and framebuffer tests.
    pub results: Vec<TinymembenchResult>,
    pub latency: Vec<LatencyTable>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TinymembenchResult {
    pub name: String,
    pub mb_per_s: f64,
    /// Number of repeats (nuumio fork: `(3, 0.5%)` or `(2)`).
    pub repeats: Option<u32>,
    /// Sample standard deviation in percent when above 0.1 %.
    pub sd_pct: Option<f64>,
    /// True for the `(from framebuffer)` tests.
    pub framebuffer: bool,
}

/// `block size : single random read / dual random read[, [MADV_NOHUGEPAGE]]`
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyTable {
    /// `MADV_NOHUGEPAGE` / `MADV_HUGEPAGE` when printed.
    pub variant: Option<String>,
    pub rows: Vec<LatencyRow>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyRow {
    pub block_bytes: u64,
    pub single_ns: f64,
    pub dual_ns: Option<f64>,
}

/// `Executing ramlat on cpu0 (Cortex-A55), results in ns:` and its table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RamlatRun {
    pub cpu: Option<u32>,
    pub label: Option<String>,
    /// `1x32 2x32 1x64 2x64 1xPTR 2xPTR 4xPTR 8xPTR`
    pub columns: Vec<String>,
    pub rows: Vec<RamlatRow>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RamlatRow {
    pub size_kib: u64,
    /// ns per column; `None` where the cell is not a number.
    pub ns: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpenSsl {
    /// The version line as printed (`OpenSSL 3.0.17, built on 1 Jul 2025 (Library: …)`).
    pub version_line: Option<String>,
    /// `1.1.1n`, `3.0.17`.
    pub version: Option<String>,
    /// `Executing benchmark twice on cluster 0 (Cortex-A53)` → `twice`; `… on each cluster
    /// individually` → `per_cluster`; absent in old logs.
    pub mode: Option<String>,
    /// Block sizes of the `type` header, bytes (`16 64 256 1024 8192 16384`).
    pub block_sizes: Vec<u32>,
    pub rows: Vec<OpenSslRow>,
}

/// `aes-256-cbc     848212.30k  1326481.54k … (Cortex-A720)`
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpenSslRow {
    pub algorithm: String,
    /// The suffix in parentheses: core type of the cluster, or `fully parallel`.
    pub label: Option<String>,
    /// Throughput per block size, in 1000 bytes/s (OpenSSL's `k`), same order as `block_sizes`.
    pub kbytes_per_s: Vec<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SevenZip {
    /// `16.02`, `23.01`.
    pub version: Option<String>,
    /// The banner line (`7-Zip (a) [64] 16.02 : Copyright …`).
    pub banner: Option<String>,
    pub runs: Vec<SevenZipRun>,
    /// sbc-bench's `Compression:`/`Decompression:`/`Total:` summary of the multi-threaded runs.
    pub summary: Option<SevenZipSummary>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SevenZipKind {
    /// Pinned to one CPU (`Executing benchmark single-threaded on cpuN`), or, in logs without
    /// markers, the runs before the multi-threaded block.
    #[default]
    Single,
    /// All cores (`Executing benchmark 3 times multi-threaded`).
    Multi,
    /// Extensive mode: all cores of one cluster.
    Cluster,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SevenZipRun {
    pub kind: SevenZipKind,
    pub cpu: Option<u32>,
    /// Core type or CPU list from the marker line.
    pub label: Option<String>,
    /// `# Benchmark threads:`.
    pub threads: Option<u32>,
    pub ram_usage_mb: Option<u64>,
    /// `Avr:` line: compression usage %, R/U MIPS, rating MIPS; decompression the same.
    pub avr: Option<[u64; 6]>,
    /// `Tot:` line: usage %, R/U MIPS, rating MIPS. `None` when the run was cut short.
    pub tot: Option<[u64; 3]>,
}

impl SevenZipRun {
    pub fn rating(&self) -> Option<u64> {
        self.tot.map(|t| t[2])
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SevenZipSummary {
    pub compression: Vec<u64>,
    pub decompression: Vec<u64>,
    pub total: Vec<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cpuminer {
    /// `cpuminer-multi 1.3.7`.
    pub version: Option<String>,
    /// Every `Total: X kH/s` line in order (the 5-minute series).
    pub totals_khs: Vec<f64>,
    /// sbc-bench's `Total Scores:` line as printed (sorted, de-duplicated), kept as text
    /// because the Results.md row copies one of them verbatim.
    pub total_scores: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stockfish {
    /// `Executing Stockfish 15 using nn-6877cd24400e.nnue 3 times in a row:`
    pub heading: String,
    pub runs: Vec<StockfishRun>,
    pub total_scores: Vec<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StockfishRun {
    pub total_time_ms: Option<u64>,
    pub nodes: Option<u64>,
    pub nodes_per_second: Option<u64>,
}

/// A monitoring table. Column meaning follows `columns` (the header tokens).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MonitorTable {
    /// `tinymembench`, `7-zip multi core benchmark`, `cpuminer`…; `now` for the one-line
    /// `System health now:` table.
    pub running: String,
    /// Header tokens: `Time`, clock label(s), `load`, `%cpu` … `Temp`, extras (`VCore`, `PMIC`,
    /// `DC(V)`, `mW`).
    pub columns: Vec<String>,
    /// What each value of `MonitorSample::clocks_mhz` is: `cpu0`, `cpu4` (from `cpu0/cpu4`),
    /// `big`, `little` (from `big.LITTLE`), `cpufreq` (from `fake/real`), `CPU`.
    pub clock_labels: Vec<String>,
    pub samples: Vec<MonitorSample>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MonitorSample {
    /// `HH:MM:SS` as printed.
    pub time: String,
    /// Seconds since midnight of `time`.
    pub seconds: Option<u32>,
    /// Clock per `MonitorTable::clock_labels`, MHz; `None` for `---`/`n/a`/blank.
    pub clocks_mhz: Vec<Option<u32>>,
    /// Raspberry Pi `fake/real`: the real clock the firmware runs, MHz.
    pub real_mhz: Option<u32>,
    pub load: Option<f64>,
    pub cpu_pct: Option<f64>,
    pub sys_pct: Option<f64>,
    pub usr_pct: Option<f64>,
    pub nice_pct: Option<f64>,
    pub io_pct: Option<f64>,
    pub irq_pct: Option<f64>,
    pub temp_c: Option<f64>,
    pub vcore_v: Option<f64>,
    pub pmic_w: Option<f64>,
    pub dc_v: Option<f64>,
    pub power_mw: Option<f64>,
}

/// `Throttling statistics (time spent on each cpufreq OPP)[ for CPUs 4-7[ (Cortex-A76)]]:` or,
/// in v0.4, `Throttling occured. Cpufreq statistics (time in milliseconds):` — the type result
/// documents keep too.
pub use truebench_model::throttling::ThrottlingTable;

/// `free` output: the `Mem:` and `Swap:` lines, sizes in bytes (from `976M`, `1.7Gi`, `0B`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FreeSnapshot {
    pub mem_total: Option<u64>,
    pub mem_used: Option<u64>,
    pub mem_available: Option<u64>,
    pub swap_total: Option<u64>,
    pub swap_used: Option<u64>,
}

/// A `swapon -s` row.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SwapDevice {
    pub filename: String,
    pub kind: String,
    pub size_kb: Option<u64>,
    pub used_kb: Option<u64>,
    pub priority: Option<i64>,
}

/// `Thermal source: /sys/devices/virtual/thermal/thermal_zone0/ (cpu-thermal)`
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThermalSource {
    pub path: String,
    pub name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SensorChip {
    /// `acpitz-acpi-0`, or the device (`/dev/nvme0`) for drive temperatures.
    pub name: String,
    pub readings: Vec<SensorReading>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SensorReading {
    pub label: String,
    /// The number (°C, V, A, W, RPM — see `unit`).
    pub value: Option<f64>,
    pub unit: Option<String>,
}

/// The Markdown row sbc-bench wrote into the log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedRow {
    pub line: String,
    /// Cells between the pipes, trimmed.
    pub cells: Vec<String>,
    /// `aes128`: v0.8.4…v0.9.9 layout `| zip | AES-128 16 B | AES-256 16 KiB |…`;
    /// `single`: later layout `| zip | 7-zip single | AES-256 16 KiB |…`.
    pub layout: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missing {
    pub what: String,
    pub reason: String,
}

impl MonitorTable {
    /// Seconds since the table's first sample, for each sample; a run past midnight keeps
    /// counting up (`23:59:50` → `00:00:10` is 20 s later). `None` where the time is unreadable.
    pub fn elapsed(&self) -> Vec<Option<u32>> {
        let mut out = Vec::with_capacity(self.samples.len());
        let mut first: Option<u32> = None;
        let mut days = 0u32;
        let mut prev: Option<u32> = None;
        for s in &self.samples {
            let Some(t) = s.seconds else {
                out.push(None);
                continue;
            };
            if prev.is_some_and(|p| t < p && p - t > 12 * 3600) {
                days += 1;
            }
            prev = Some(t);
            let abs = t + days * 86_400;
            let f = *first.get_or_insert(abs);
            out.push(Some(abs.saturating_sub(f)));
        }
        out
    }
}

/// A version as comparable numbers: `0.9.72` → `[0, 9, 72]`.
pub fn version_key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

impl SbcBenchLog {
    /// `version_key` of the header version; empty when unknown (oldest logs).
    pub fn version_key(&self) -> Vec<u32> {
        self.header
            .version
            .as_deref()
            .map(version_key)
            .unwrap_or_default()
    }

    /// Whether the log was written by `v` or later (unknown versions count as older than all).
    pub fn at_least(&self, v: &str) -> bool {
        self.header.version.is_some() && self.version_key() >= version_key(v)
    }

    /// `(year, month, day)` of the header date (`Sun, 29 Jul 2018 12:34:58 +0000`).
    pub fn date_ymd(&self) -> Option<(u32, u32, u32)> {
        let d = self.header.date.as_deref()?;
        let d = d.split_once(", ").map_or(d, |(_, rest)| rest);
        let mut it = d.split_whitespace();
        let day: u32 = it.next()?.parse().ok()?;
        let month = match it.next()? {
            "Jan" => 1,
            "Feb" => 2,
            "Mar" => 3,
            "Apr" => 4,
            "May" => 5,
            "Jun" => 6,
            "Jul" => 7,
            "Aug" => 8,
            "Sep" => 9,
            "Oct" => 10,
            "Nov" => 11,
            "Dec" => 12,
            _ => return None,
        };
        let year: u32 = it.next()?.parse().ok()?;
        Some((year, month, day))
    }

    pub fn is_missing(&self, what: &str) -> bool {
        self.missing.iter().any(|m| m.what == what)
    }

    /// Swap in use before the benchmarks (first `free`) and after (last), bytes.
    pub fn swap_before_after(&self) -> (Option<u64>, Option<u64>) {
        let before = self.memory.first().and_then(|m| m.swap_used);
        let after = if self.memory.len() > 1 {
            self.memory.last().and_then(|m| m.swap_used)
        } else {
            None
        };
        (before, after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_across_midnight() {
        let at = |t: &str| MonitorSample {
            time: t.into(),
            seconds: crate::import::util::clock_seconds(t),
            ..Default::default()
        };
        let table = MonitorTable {
            samples: vec![at("23:59:50"), at("00:00:10"), at("x"), at("00:01:00")],
            ..Default::default()
        };
        assert_eq!(table.elapsed(), vec![Some(0), Some(20), None, Some(70)]);
    }

    #[test]
    fn versions_and_dates() {
        let mut log = SbcBenchLog::default();
        assert!(!log.at_least("0.4"));
        log.header.version = Some("0.9.9".into());
        assert!(log.at_least("0.9.9") && log.at_least("0.9.4") && !log.at_least("0.9.10"));
        log.header.date = Some("Sun, 29 Jul 2018 12:34:58 +0000".into());
        assert_eq!(log.date_ymd(), Some((2018, 7, 29)));
    }
}
