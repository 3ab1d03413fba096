//! The `efficiency` kind (`truebench efficiency`, sbc-bench's `-g` done right): for each
//! cluster, with the other clusters held at their lowest clock, every OPP is set, its real
//! clock measured, the SoC cooled to the same start temperature, and the same work run N
//! times with its energy integrated over each run. Score per watt per OPP shows where the
//! cluster is most efficient.

use serde::{Deserialize, Serialize};

/// Body of an `efficiency` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EfficiencyBody {
    /// What ran at each OPP (`7zz b -mmt4 -md22, pinned to the cluster`, `built-in LZMA`).
    pub work: String,
    /// Unit of the scores (`MIPS`, `MB/s`).
    pub unit: String,
    /// Runs of the work at each OPP.
    pub runs_per_opp: u32,
    /// How an OPP was set: `userspace` (governor userspace, scaling_setspeed) or `min=max`
    /// (scaling_min_freq = scaling_max_freq, where there is no userspace governor); None
    /// when no OPP was set.
    pub method: Option<String>,
    /// Every run starts at or below this SoC temperature, °C (None: no sensor).
    pub cool_to_c: Option<f64>,
    /// OPPs could be set; when not, why (no cpufreq, no right to) and each cluster has one
    /// point at its current clock.
    pub switched: bool,
    /// Why OPPs could not be set; None when they could.
    pub switch_note: Option<String>,
    /// The walk of each cluster.
    pub clusters: Vec<EfficiencyCluster>,
}

/// One cluster's OPP walk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EfficiencyCluster {
    /// Cluster id.
    pub cluster: usize,
    /// Its CPUs as text (`cpu4-cpu7`).
    pub cpus: String,
    /// Core type (`Cortex-A76`); None when unknown.
    pub core_type: Option<String>,
    /// Lowest OPP first.
    pub points: Vec<OppPoint>,
    /// The OPP with the highest score per watt (above idle when idle power is known); None
    /// without energy or without a valid point.
    pub best_mhz: Option<u32>,
    /// Why a cluster has no points (no OPPs, none within `--min-khz`/`--max-khz`).
    pub notes: Vec<String>,
}

/// One OPP of one cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OppPoint {
    /// The OPP asked for (None: the current clock, OPPs not switchable).
    pub opp_mhz: Option<u32>,
    /// Measured with the clock kernel after setting it, MHz; None when that failed.
    pub measured_mhz: Option<f64>,
    /// Each run at this OPP.
    pub runs: Vec<OppRun>,
    /// Median score over the runs, in `EfficiencyBody::unit`; None without a run.
    pub score: Option<f64>,
    /// Median mean power over the runs, W; None without a power source.
    pub watts: Option<f64>,
    /// score / watts (MIPS/W; MB/s per W = MB/J); None without both.
    pub per_watt: Option<f64>,
    /// score / (watts − idle watts): what the work itself cost; None without idle power
    /// or under 0.05 W above it.
    pub per_watt_above_idle: Option<f64>,
    /// Highest SoC temperature over the runs, °C; None without a sensor.
    pub temp_max_c: Option<f64>,
    /// How the point ended (failed when the OPP could not be set or a run failed).
    pub status: crate::PhaseStatus,
    /// Runs measured while something invalidating happened, by phase: `c0-1800mhz-run2:
    /// throttling`; the point's figures are then not valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// Why it failed, or that a run started above `cool_to_c`; None when nothing to say.
    pub reason: Option<String>,
}

/// One run of the work at one OPP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OppRun {
    /// The envelope phase of this run (its timeline, energy and findings).
    pub phase: String,
    /// The work's score, in `EfficiencyBody::unit`.
    pub score: f64,
    /// Wall time of the run, seconds.
    pub seconds: f64,
    /// Integrated over the run from the result's power source, J; None without one.
    pub joules: Option<f64>,
    /// Mean power over the run, W; None without a power source.
    pub watts: Option<f64>,
    /// SoC temperature at the first sample of the run, °C; None without a sensor.
    pub temp_start_c: Option<f64>,
    /// Highest SoC temperature during the run, °C; None without a sensor.
    pub temp_max_c: Option<f64>,
    /// Findings of this run's phase (`throttling` …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<String>,
}
