//! The `clocks` kind: measured vs advertised clock for every OPP of every cluster (sbc-bench's
//! "Checking cpufreq OPP"), and optionally every CPU at once idle and under load.

use serde::{Deserialize, Serialize};

use crate::evidence::{is_phase, words};

words! {
    /// The phase of a `clocks` measurement: the walk over every cluster's OPPs.
    pub enum ClocksPhase("clocks phase") {
        /// The walk (`clocks`).
        Walk => "clocks",
    }
}
is_phase!(ClocksPhase);

/// Body of a `clocks` document. The walk's findings, notes and tuning are in the envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClocksBody {
    /// Highest OPP measured, kHz (sbc-bench's `MaxKHz`); None: no limit.
    pub max_khz: Option<u64>,
    /// Lowest OPP measured, kHz (`MinKHz`); None: no limit.
    pub min_khz: Option<u64>,
    /// The OPPs were walked (settings could be changed); false: each cluster at its current clock.
    pub walked: bool,
    /// The walk of each cluster, in cluster-id order.
    pub clusters: Vec<ClusterClocks>,
    /// `--all-cores`: every CPU at once, idle and under load; None without it.
    pub all_cores: Option<AllCores>,
}

/// How a cluster's clock was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WalkMode {
    /// Every OPP set and measured.
    OppWalk,
    /// cpufreq exists but could not be changed (no root): measured at the current clock.
    CurrentClock,
    /// No cpufreq policy: measured at whatever clock the hardware runs.
    NoCpufreq,
    /// Every CPU of the cluster is offline.
    Offline,
    /// The run's hot check: only the highest OPP, after the benchmarks.
    MaxOpp,
}

impl WalkMode {
    /// The JSON name (`opp_walk`, `current_clock`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            WalkMode::OppWalk => "opp_walk",
            WalkMode::CurrentClock => "current_clock",
            WalkMode::NoCpufreq => "no_cpufreq",
            WalkMode::Offline => "offline",
            WalkMode::MaxOpp => "max_opp",
        }
    }
}

/// The clock walk of one cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusterClocks {
    /// Cluster id (`Inventory::clusters`).
    pub id: usize,
    /// The cluster's CPUs.
    pub cpus: Vec<u32>,
    /// The same as text (`cpu4-cpu7`).
    pub cpu_range: String,
    /// Core type (`Cortex-A76`); None when unknown.
    pub core_type: Option<String>,
    /// cpufreq's `scaling_driver` (`cpufreq-dt`, `intel_pstate`); None without cpufreq.
    pub driver: Option<String>,
    /// The CPU the measurements ran on (the cluster's first online one); None when every
    /// CPU of it is offline.
    pub measured_cpu: Option<u32>,
    /// How the cluster was measured.
    pub mode: WalkMode,
    /// Whether the measured clock follows scaling_max_freq; `None` when not testable (fewer
    /// than two OPPs walked, or no walk).
    pub enforced: Option<bool>,
    /// One point per OPP walked, highest first (one without a walk, none when offline).
    pub points: Vec<ClockPoint>,
    /// What the reader must know about this cluster's walk (a driver that treats the
    /// limit as a request, no root, every CPU offline).
    pub notes: Vec<String>,
    /// Where the driver has no frequency table (intel_pstate, amd-pstate, CPPC): the base
    /// and boost clocks its highest limit is judged by; None otherwise and in documents
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turbo: Option<TurboClocks>,
}

/// The base and boost clocks of a cluster without a frequency table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TurboClocks {
    /// The nominal (base) clock, MHz: sustained with every core busy.
    pub base_mhz: u32,
    /// The boost clock, MHz: the most one core may reach, when power and heat allow.
    pub boost_mhz: u32,
    /// Where they came from (`intel_pstate base_frequency; …`, `acpi_cppc/nominal_freq; …`).
    pub from: String,
}

/// The clock measured at one OPP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockPoint {
    /// The OPP set as scaling_max_freq (MHz, rounded down like sbc-bench); null without a walk.
    pub opp_mhz: Option<u32>,
    /// The same OPP in kHz, as the kernel lists it; null without a walk.
    pub opp_khz: Option<u64>,
    /// What cpufreq reported as current clock right after the measurement, MHz; None
    /// without cpufreq.
    pub reported_mhz: Option<u32>,
    /// Raspberry Pi firmware's `measure_clock arm`, MHz; None on other machines.
    pub firmware_mhz: Option<f64>,
    /// The median of `samples_mhz`; None when the measurement failed (`error`).
    pub measured_mhz: Option<f64>,
    /// Each repetition's clock, MHz, highest first; empty when the measurement failed.
    pub samples_mhz: Vec<f64>,
    /// What a plain timed loop would have seen (disturbances included), MHz; None when
    /// failed or not recorded (imported logs).
    pub effective_mhz: Option<f64>,
    /// (measured − OPP) / OPP in %; None without an OPP or a measured clock.
    pub deviation_pct: Option<f64>,
    /// Samples thrown away as disturbed; None where not recorded (imported logs).
    pub rejected: Option<u32>,
    /// Wall time of the measurement, calibration included, ms; None where not recorded
    /// (imported logs, documents before version 4's run) or failed.
    pub duration_ms: Option<f64>,
    /// Why the measurement failed; None when it succeeded.
    pub error: Option<String>,
}

/// Every CPU's clock measured at once, idle and then under load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AllCores {
    /// Each CPU's clock with no load started.
    pub idle: Vec<CoreClock>,
    /// Each CPU's clock under a load on every measured CPU, after `load_heat_s` of it.
    pub load: Vec<CoreClock>,
    /// Seconds of load before the loaded readings; None where not recorded.
    pub load_heat_s: Option<f64>,
}

/// One CPU's clock in the all-cores check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CoreClock {
    /// The CPU.
    pub cpu: u32,
    /// The median of `samples_mhz`; None when the measurement failed (`error`).
    pub measured_mhz: Option<f64>,
    /// Each repetition's clock, MHz; empty when the measurement failed.
    pub samples_mhz: Vec<f64>,
    /// cpufreq's current clock of its cluster, MHz; None without cpufreq.
    pub reported_mhz: Option<u32>,
    /// Why the measurement failed; None when it succeeded.
    pub error: Option<String>,
}

impl ClockPoint {
    /// A point measured at `opp_mhz` from its samples (their median is the measured clock),
    /// with the deviation computed; no error, nothing rejected.
    pub fn at_opp(opp_mhz: u32, samples_mhz: Vec<f64>, duration_ms: f64) -> ClockPoint {
        let measured = truebench_stats::median(&samples_mhz);
        ClockPoint {
            opp_mhz: Some(opp_mhz),
            opp_khz: Some(opp_mhz as u64 * 1000),
            reported_mhz: None,
            firmware_mhz: None,
            measured_mhz: measured,
            samples_mhz,
            effective_mhz: None,
            deviation_pct: measured.map(|m| (m - opp_mhz as f64) / opp_mhz as f64 * 100.0),
            rejected: Some(0),
            duration_ms: Some(duration_ms),
            error: None,
        }
    }
}

impl crate::FailedRows for ClocksBody {
    fn failed_rows(&self) -> bool {
        // The walk is one phase, failed when nothing was measured.
        false
    }
}
