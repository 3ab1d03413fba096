//! The `clocks` kind: measured vs advertised clock for every OPP of every cluster (sbc-bench's
//! "Checking cpufreq OPP"), and optionally every CPU at once idle and under load.

use serde::{Deserialize, Serialize};

use crate::evidence::{is_phase, words};

/// The phase of a `clocks` measurement: the walk over every cluster's OPPs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClocksPhase {
    Walk,
}
words!(ClocksPhase, "clocks phase", {
    Walk => "clocks",
});
is_phase!(ClocksPhase);

/// Body of a `clocks` document. The walk's findings, notes and tuning are in the envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClocksBody {
    /// Highest OPP measured, kHz (sbc-bench's `MaxKHz`); None: no limit.
    pub max_khz: Option<u64>,
    /// Lowest OPP measured, kHz (`MinKHz`).
    pub min_khz: Option<u64>,
    /// The OPPs were walked (settings could be changed); false: each cluster at its current clock.
    pub walked: bool,
    pub clusters: Vec<ClusterClocks>,
    /// `--all-cores`: every CPU at once, idle and under load.
    pub all_cores: Option<AllCores>,
}

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusterClocks {
    pub id: usize,
    pub cpus: Vec<u32>,
    pub cpu_range: String,
    pub core_type: Option<String>,
    pub driver: Option<String>,
    /// The CPU the measurements ran on (the cluster's first online one).
    pub measured_cpu: Option<u32>,
    pub mode: WalkMode,
    /// Whether the measured clock follows scaling_max_freq; `None` when not testable (fewer
    /// than two OPPs walked, or no walk).
    pub enforced: Option<bool>,
    pub points: Vec<ClockPoint>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockPoint {
    /// The OPP set as scaling_max_freq (MHz, rounded down like sbc-bench); null without a walk.
    pub opp_mhz: Option<u32>,
    pub opp_khz: Option<u64>,
    /// What cpufreq reported as current clock right after the measurement.
    pub reported_mhz: Option<u32>,
    /// Raspberry Pi firmware's `measure_clock arm`.
    pub firmware_mhz: Option<f64>,
    pub measured_mhz: Option<f64>,
    pub samples_mhz: Vec<f64>,
    /// What a plain timed loop would have seen (disturbances included).
    pub effective_mhz: Option<f64>,
    /// (measured − OPP) / OPP in %.
    pub deviation_pct: Option<f64>,
    /// Samples thrown away as disturbed; None where not recorded (imported logs).
    pub rejected: Option<u32>,
    /// None where not recorded (imported logs, documents before version 4's run).
    pub duration_ms: Option<f64>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AllCores {
    pub idle: Vec<CoreClock>,
    pub load: Vec<CoreClock>,
    /// Seconds of load before the loaded readings; None where not recorded.
    pub load_heat_s: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CoreClock {
    pub cpu: u32,
    pub measured_mhz: Option<f64>,
    pub samples_mhz: Vec<f64>,
    pub reported_mhz: Option<u32>,
    pub error: Option<String>,
}

impl ClockPoint {
    /// A point measured at `opp_mhz` from its samples (their median is the measured clock),
    /// with the deviation computed; no error, nothing rejected.
    pub fn at_opp(opp_mhz: u32, samples_mhz: Vec<f64>, duration_ms: f64) -> ClockPoint {
        let mut sorted = samples_mhz.clone();
        sorted.sort_by(f64::total_cmp);
        let measured = sorted.get(sorted.len() / 2).copied();
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
