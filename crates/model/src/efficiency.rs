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
    pub runs_per_opp: u32,
    /// How an OPP was set: `userspace` (governor userspace, scaling_setspeed) or `min=max`
    /// (scaling_min_freq = scaling_max_freq, where there is no userspace governor).
    pub method: Option<String>,
    /// Every run starts at or below this SoC temperature, °C (None: no sensor).
    pub cool_to_c: Option<f64>,
    /// OPPs could be set; when not, why (no cpufreq, no right to) and each cluster has one
    /// point at its current clock.
    pub switched: bool,
    pub switch_note: Option<String>,
    pub clusters: Vec<EfficiencyCluster>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EfficiencyCluster {
    pub cluster: usize,
    pub cpus: String,
    pub core_type: Option<String>,
    /// Lowest OPP first.
    pub points: Vec<OppPoint>,
    /// The OPP with the highest score per watt (above idle when idle power is known).
    pub best_mhz: Option<u32>,
    pub notes: Vec<String>,
}

/// One OPP of one cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OppPoint {
    /// The OPP asked for (None: the current clock, OPPs not switchable).
    pub opp_mhz: Option<u32>,
    /// Measured with the clock kernel after setting it.
    pub measured_mhz: Option<f64>,
    pub runs: Vec<OppRun>,
    /// Medians over the runs.
    pub score: Option<f64>,
    pub watts: Option<f64>,
    /// score / watts (MIPS/W; MB/s per W = MB/J).
    pub per_watt: Option<f64>,
    /// score / (watts − idle watts): what the work itself cost.
    pub per_watt_above_idle: Option<f64>,
    pub temp_max_c: Option<f64>,
    pub status: crate::PhaseStatus,
    /// Runs measured while something invalidating happened, by phase: `c0-1800mhz-run2:
    /// throttling`; the point's figures are then not valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OppRun {
    /// The envelope phase of this run (its timeline, energy and findings).
    pub phase: String,
    pub score: f64,
    pub seconds: f64,
    /// Integrated over the run from the result's power source.
    pub joules: Option<f64>,
    pub watts: Option<f64>,
    pub temp_start_c: Option<f64>,
    pub temp_max_c: Option<f64>,
    /// Findings of this run's phase (`throttling` …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<String>,
}
