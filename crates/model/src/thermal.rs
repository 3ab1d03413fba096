//! The `thermal` kind (`truebench thermal`, sbc-bench's `-t`/`-T`): start at a known
//! temperature (cooled idle, or heated with the load), then run a load for N minutes while
//! monitoring. A falling score is throttling; the temperature at which each cluster first
//! lost clock says where the cooling gives up.

use serde::{Deserialize, Serialize};

use crate::evidence::{is_phase, words};
use crate::governors::PolicyTimeInState;

words! {
    /// The phases of a `thermal` measurement: the idle gate, the heating (`--heat-to`), the
    /// load.
    pub enum ThermalPhase("thermal phase") {
        /// The idle gate (cooling to `--cool-to`).
        Idle => "idle",
        /// Heating to `--heat-to` with the load.
        Heat => "heat",
        /// The load, for `--minutes`.
        Load => "load",
    }
}
is_phase!(ThermalPhase);

words! {
    /// What loaded the machine.
    pub enum ThermalLoad("thermal load") {
        /// The built-in stress kernel (GFLOP/s).
        Stress => "stress",
        /// 7-zip's benchmark (MIPS).
        SevenZip => "7zip",
        /// A command of the user's, run again and again (runs/min).
        Command => "command",
    }
}

words! {
    /// How the load started.
    pub enum StartMode("start mode") {
        /// Cooled to `--cool-to` first.
        Cool => "cool",
        /// Heated to `--heat-to` with the load itself first.
        Heat => "heat",
        /// After the idle gate only.
        Idle => "idle",
    }
}

/// Body of a `thermal` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThermalBody {
    /// `stress`, `7zip` or `command`.
    pub load: ThermalLoad,
    /// What ran (`built-in stress (avx2+fma) on CPUs 0-3`, `7zz b -mmt4`, `sh -c '…'`).
    pub load_detail: String,
    /// Unit of `scores` (`GFLOP/s`, `MIPS`, `runs/min`); None when the load gave no score.
    pub unit: Option<String>,
    /// Minutes of load asked for.
    pub minutes: f64,
    /// How the load started: cooled, heated or as found.
    pub start: ThermalStart,
    /// Score over time, seconds from the start of the load.
    pub scores: Vec<ScorePoint>,
    /// Last score against the first, % (negative: the machine slowed down); None with
    /// fewer than two scores or a first score of 0.
    pub change_pct: Option<f64>,
    /// SoC temperature at the start of the load, °C; None without a sensor.
    pub temp_start_c: Option<f64>,
    /// Highest SoC temperature during the load, °C; None without a sensor.
    pub temp_max_c: Option<f64>,
    /// SoC temperature at the end of the load, °C; None without a sensor.
    pub temp_end_c: Option<f64>,
    /// Each cluster's clock over the load.
    pub clusters: Vec<ThermalCluster>,
    /// Seconds per frequency over the load, per policy (time_in_state deltas).
    pub time_in_state: Vec<PolicyTimeInState>,
    /// Why temperatures or clocks are missing (no sensor, no cpufreq).
    pub notes: Vec<String>,
}

/// How the load started: cooled down, heated up, or as found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThermalStart {
    /// `cool` (`--cool-to`), `heat` (`--heat-to`) or `idle` (the idle gate only).
    pub mode: StartMode,
    /// The temperature waited for, °C; None for `idle` without `--cool-to`.
    pub target_c: Option<f64>,
    /// The target was reached (always true for `idle` when the machine was idle).
    pub reached: bool,
    /// Seconds waited before the load.
    pub waited_s: f64,
    /// Why the wait ended (`SoC at 44.9 °C`, `gave up after 900 s at 51.2 °C`).
    pub reason: String,
}

/// One interval of the load's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScorePoint {
    /// Start, seconds from the start of the load.
    pub start_s: f64,
    /// End, seconds from the start of the load.
    pub end_s: f64,
    /// Score over the interval, in `ThermalBody::unit`.
    pub score: f64,
}

/// One cluster over the load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThermalCluster {
    /// Cluster id.
    pub cluster: usize,
    /// Its CPUs as text (`cpu4-cpu7`).
    pub cpus: String,
    /// Core type (`Cortex-A76`); None when unknown.
    pub core_type: Option<String>,
    /// The top the cluster may run at (policy `scaling_max_freq`, else `cpuinfo_max_freq`),
    /// MHz; None without cpufreq.
    pub max_mhz: Option<f64>,
    /// Mean reported clock over the load's first minute, MHz; None without readings.
    pub first_minute_mhz: Option<f64>,
    /// Mean reported clock over the load's last minute, MHz; None without readings.
    pub last_minute_mhz: Option<f64>,
    /// Lowest reported clock of any sample, MHz; None without readings.
    pub min_mhz: Option<f64>,
    /// Mean measured (cycle counter) clock over the load; None where the machine has none.
    pub measured_mhz: Option<f64>,
    /// The first sample below the top clock: when, at what temperature, to what clock; None
    /// when the clock never fell.
    pub first_loss: Option<ClockLoss>,
}

/// The first time a cluster's clock fell more than 2 % below the top it started at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockLoss {
    /// Seconds from the start of the load.
    pub t_s: f64,
    /// SoC temperature at that sample, °C; None without a sensor.
    pub temp_c: Option<f64>,
    /// The top clock: the highest in the first 5 s (or tenth, if longer) of the load, MHz.
    pub from_mhz: f64,
    /// The clock it fell to, MHz.
    pub to_mhz: f64,
}

impl crate::FailedRows for ThermalBody {
    fn failed_rows(&self) -> bool {
        // Its phases are the envelope's; scores are points in time, not rows.
        false
    }
}
