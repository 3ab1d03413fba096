//! The `efficiency` kind (`truebench efficiency`, sbc-bench's `-g` done right): for each
//! cluster, with the other clusters held at their lowest clock, every OPP is set, its real
//! clock measured, the SoC cooled to the same start temperature, and the same work run N
//! times with its energy integrated over each run. Score per watt per OPP shows where the
//! cluster is most efficient.

use serde::{Deserialize, Serialize};

use crate::evidence::{phase_id, words, NotOne, RowEvidence};

words! {
    /// The work run at each OPP.
    pub enum WorkSource("work source") {
        /// 7-zip's benchmark on the cluster (MIPS).
        SevenZip => "7zip",
        /// The built-in LZMA kernel (MB/s).
        Lzma => "lzma",
    }
}

words! {
    /// How an OPP was set.
    pub enum OppMethod("OPP method") {
        /// The userspace governor's scaling_setspeed.
        Userspace => "userspace",
        /// scaling_min_freq = scaling_max_freq, where there is no userspace governor.
        MinMax => "min=max",
    }
}

/// The phase of one run at one OPP of one cluster: `c0-1800mhz-run2`, `c0-current-run1`
/// when OPPs could not be set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OppRunPhase {
    /// The cluster's id (as `EfficiencyCluster::cluster`).
    pub cluster: usize,
    /// None: the current clock.
    pub opp_mhz: Option<u32>,
    /// 1-based.
    pub run: u32,
}
phase_id!(OppRunPhase, "`cCLUSTER-MHZmhz-runN`, `cCLUSTER-current-runN`");

impl std::fmt::Display for OppRunPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "c{}-", self.cluster)?;
        match self.opp_mhz {
            Some(m) => write!(f, "{m}mhz")?,
            None => f.write_str("current")?,
        }
        write!(f, "-run{}", self.run)
    }
}

impl std::str::FromStr for OppRunPhase {
    type Err = NotOne;
    fn from_str(s: &str) -> Result<OppRunPhase, NotOne> {
        let not = || NotOne::new("efficiency phase", s);
        let rest = s.strip_prefix('c').ok_or_else(not)?;
        let (cluster, rest) = rest.split_once('-').ok_or_else(not)?;
        let (opp, run) = rest.split_once("-run").ok_or_else(not)?;
        let opp_mhz = match opp {
            "current" => None,
            m => Some(
                m.strip_suffix("mhz")
                    .and_then(|m| m.parse().ok())
                    .ok_or_else(not)?,
            ),
        };
        Ok(OppRunPhase {
            cluster: cluster.parse().map_err(|_| not())?,
            opp_mhz,
            run: run.parse().map_err(|_| not())?,
        })
    }
}

/// Body of an `efficiency` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EfficiencyBody {
    /// What ran at each OPP (`7zz b -mmt4 -md22, pinned to the cluster`, `built-in LZMA`).
    pub work: String,
    /// Which work that was; None before schema version 5 and when nothing ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<WorkSource>,
    /// Unit of the scores (`MIPS`, `MB/s`).
    pub unit: String,
    /// Runs of the work at each OPP.
    pub runs_per_opp: u32,
    /// How an OPP was set: `userspace` (governor userspace, scaling_setspeed) or `min=max`
    /// (scaling_min_freq = scaling_max_freq, where there is no userspace governor); None
    /// when no OPP was set.
    pub method: Option<OppMethod>,
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
    /// Its phase (its timeline, energy and findings), how it ended, the findings of its time
    /// (`throttling` …): any throttling makes it invalid.
    #[serde(flatten)]
    pub evidence: RowEvidence<OppRunPhase>,
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
}

impl crate::FailedRows for EfficiencyBody {
    fn failed_rows(&self) -> bool {
        self.clusters
            .iter()
            .flat_map(|c| &c.points)
            .any(|p| crate::outcome::failed(p.status))
    }
}
