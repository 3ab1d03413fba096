//! Readings of the sources added after the first timeline format: memory detail, pressure
//! stall, power per source, disk and network I/O, softirqs.
//!
//! They are kept beside `Sample` (`Timeline::extra[i]` belongs to `Timeline::samples[i]`)
//! rather than inside it because `Sample`, `TimelineHeader` and `Phase` are built field by
//! field elsewhere (imported sbc-bench logs), so a new field there breaks those builders.
//! Everything here is `#[serde(default)]`: documents written before it still load.
//!
//! Counters are stored as deltas over the sample's interval (`dt_s` seconds ending at the
//! sample's `t`), so a phase's total is an exact sum and a rate is delta / `dt_s`.

use serde::{Deserialize, Serialize};
use truebench_host::inventory::Missing;

/// What the vectors of `ExtraSample` mean; fixed for the life of a timeline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ExtraHeader {
    /// Power sources, matching `ExtraSample::power_w`.
    pub power: Vec<PowerSource>,
    /// Whole disks, matching `ExtraSample::disks`.
    pub disks: Vec<String>,
    /// Network interfaces, matching `ExtraSample::net`.
    pub net: Vec<String>,
    /// CPU numbers, matching `SoftirqSample::cpus`.
    pub softirq_cpus: Vec<u32>,
    /// Groups of CPUs with the same idle states, matching `ExtraSample::idle`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub idle: Vec<IdleGroupHeader>,
    /// Sources asked for that could not be read, and why (RAPL as non-root, no PSI…).
    pub missing: Vec<Missing>,
}

impl ExtraHeader {
    /// True when nothing extra was read or missed (documents before these sources).
    pub fn is_empty(&self) -> bool {
        self == &ExtraHeader::default()
    }
}

/// How a power source is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PowerKind {
    /// powercap `energy_uj` counter (RAPL), µJ.
    Rapl,
    /// hwmon `power*_input`, µW: an instantaneous (or chip-averaged) reading.
    HwmonPower,
    /// hwmon `energy*_input`, µJ counter.
    HwmonEnergy,
    /// hwmon `in*_input` (mV) × `curr*_input` (mA) of the same channel.
    HwmonVoltsAmps,
    /// An external meter the user named (`--power-cmd`, `--power-file`), W: its latest
    /// reading at the sample's time.
    External,
}

impl PowerKind {
    /// True when the source is an energy counter: its `power_w` is the mean over the
    /// interval; otherwise it is the reading at the sample's time.
    pub fn is_counter(self) -> bool {
        matches!(self, PowerKind::Rapl | PowerKind::HwmonEnergy)
    }
}

/// One source of power readings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PowerSource {
    /// `intel-rapl:0 package-0`, `ina219 in1×curr1`, `ina3221 VDD_IN`…
    pub name: String,
    /// How it is measured.
    pub kind: PowerKind,
    /// Root-relative files read for it.
    pub files: Vec<String>,
    /// A source whose energy is already part of this one (a RAPL sub-zone of its package):
    /// do not add the two. None for a top-level source.
    pub part_of: Option<String>,
}

/// Memory detail from /proc/meminfo, kB (swap in use is `Sample::swap_used_kb`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct MemorySample {
    /// `MemAvailable`, kB.
    pub available_kb: Option<u64>,
    /// `MemFree`, kB.
    pub free_kb: Option<u64>,
    /// `Cached`, kB.
    pub cached_kb: Option<u64>,
    /// `Dirty`, kB.
    pub dirty_kb: Option<u64>,
    /// `Writeback`, kB.
    pub writeback_kb: Option<u64>,
}

/// Share of the interval tasks stalled on a resource, percent (PSI `total` deltas, exact over
/// the interval where the kernel's avg10 is a running average).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct PressureSample {
    /// Some task waited for a CPU, %.
    pub cpu_some: Option<f64>,
    /// Some task stalled on memory, %.
    pub memory_some: Option<f64>,
    /// Every non-idle task stalled on memory at once, %.
    pub memory_full: Option<f64>,
    /// Some task stalled on I/O, %.
    pub io_some: Option<f64>,
    /// Every non-idle task stalled on I/O at once, %.
    pub io_full: Option<f64>,
}

/// One disk over the interval (/proc/diskstats deltas).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default)]
pub struct DiskDelta {
    /// Read requests completed.
    pub reads: u64,
    /// Write requests completed.
    pub writes: u64,
    /// Bytes read (sectors × 512).
    pub read_bytes: u64,
    /// Bytes written (sectors × 512).
    pub write_bytes: u64,
    /// Time with I/O in flight, ms (io_ms / (dt_s × 1000) = utilisation).
    pub io_ms: u64,
}

/// One interface over the interval (/proc/net/dev deltas).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default)]
pub struct NetDelta {
    /// Bytes received.
    pub rx_bytes: u64,
    /// Bytes sent.
    pub tx_bytes: u64,
    /// Packets received.
    pub rx_packets: u64,
    /// Packets sent.
    pub tx_packets: u64,
}

/// One CPU's softirq work over the interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct CpuSoftirq {
    /// Time in softirq context, percent of the CPU's time (/proc/stat `softirq` column).
    pub pct: Option<f64>,
    /// `NET_RX` softirqs run (/proc/softirqs counts).
    pub net_rx: Option<u64>,
    /// `NET_TX` softirqs run.
    pub net_tx: Option<u64>,
    /// `BLOCK` softirqs run.
    pub block: Option<u64>,
}

/// Softirq work over the interval: all CPUs, and each CPU.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct SoftirqSample {
    /// Time in softirq context over all CPUs, percent (100 = every CPU).
    pub pct: Option<f64>,
    /// Index = `ExtraHeader::softirq_cpus`.
    pub cpus: Vec<CpuSoftirq>,
}

/// The extra readings of one sample. Vectors follow `ExtraHeader`; `None` = not readable in
/// this interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ExtraSample {
    /// Seconds covered by the deltas and interval means, ending at the sample's `t`.
    pub dt_s: f64,
    /// Memory detail; absent when not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemorySample>,
    /// Pressure stall shares; absent without PSI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pressure: Option<PressureSample>,
    /// Watts per `ExtraHeader::power` source: the interval's mean for counters, the reading
    /// for instantaneous sources.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub power_w: Vec<Option<f64>>,
    /// Per `ExtraHeader::disks` disk.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<Option<DiskDelta>>,
    /// Per `ExtraHeader::net` interface.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub net: Vec<Option<NetDelta>>,
    /// Softirq work; absent when not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub softirq: Option<SoftirqSample>,
    /// Idle-state entries and time per `ExtraHeader::idle` group; empty without cpuidle.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub idle: Vec<IdleDelta>,
}

/// CPUs offering the same idle states (cpuidle), the columns of their `IdleDelta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct IdleGroupHeader {
    /// The CPUs, ascending.
    pub cpus: Vec<u32>,
    /// State names, shallowest first (`WFI`, `gold-c4`).
    pub states: Vec<String>,
    /// Exit latency of each state, µs; None when unknown.
    pub exit_latency_us: Vec<Option<u64>>,
}

/// One group's idle states over the interval, summed over its CPUs (cpuidle `usage` and
/// `time` deltas). Index = `IdleGroupHeader::states`; None when no CPU's counter could be
/// read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct IdleDelta {
    /// Entries into each state.
    pub entries: Vec<Option<u64>>,
    /// µs in each state (CPU-µs: up to the interval × the group's CPUs).
    pub time_us: Vec<Option<u64>>,
}

/// Energy of one power source over one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SourceEnergy {
    /// `PowerSource::name`.
    pub source: String,
    /// Energy over the phase's seconds with a known power, J.
    pub joules: f64,
    /// joules / seconds, W.
    pub mean_watts: f64,
    /// Seconds of the phase with a known power (less than the phase when readings failed or
    /// the phase started before the first sample).
    pub seconds: f64,
}

/// Energy per power source of one phase (`Timeline::energy`, filled when sampling stops).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseEnergy {
    /// `Phase::name`; `index` tells repeated names apart.
    pub phase: String,
    /// Position in `Timeline::phases`.
    pub index: usize,
    /// One entry per power source with readings in the phase.
    pub sources: Vec<SourceEnergy>,
}
