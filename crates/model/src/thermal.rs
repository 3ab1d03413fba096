//! The `thermal` kind (`truebench thermal`, sbc-bench's `-t`/`-T`): start at a known
//! temperature (cooled idle, or heated with the load), then run a load for N minutes while
//! monitoring. A falling score is throttling; the temperature at which each cluster first
//! lost clock says where the cooling gives up.

use serde::{Deserialize, Serialize};

use crate::evidence::{is_phase, words};
use crate::governors::PolicyTimeInState;

/// The phases of a `thermal` measurement: the idle gate, the heating (`--heat-to`), the
/// load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThermalPhase {
    Idle,
    Heat,
    Load,
}
words!(ThermalPhase, "thermal phase", {
    Idle => "idle",
    Heat => "heat",
    Load => "load",
});
is_phase!(ThermalPhase);

/// What loaded the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThermalLoad {
    /// The built-in stress kernel (GFLOP/s).
    Stress,
    /// 7-zip's benchmark (MIPS).
    SevenZip,
    /// A command of the user's, run again and again (runs/min).
    Command,
}
words!(ThermalLoad, "thermal load", {
    Stress => "stress",
    SevenZip => "7zip",
    Command => "command",
});

/// How the load started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StartMode {
    /// Cooled to `--cool-to` first.
    Cool,
    /// Heated to `--heat-to` with the load itself first.
    Heat,
    /// After the idle gate only.
    Idle,
}
words!(StartMode, "start mode", {
    Cool => "cool",
    Heat => "heat",
    Idle => "idle",
});

/// Body of a `thermal` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThermalBody {
    /// `stress`, `7zip` or `command`.
    pub load: ThermalLoad,
    /// What ran (`built-in stress (avx2+fma) on CPUs 0-3`, `7zz b -mmt4`, `sh -c '…'`).
    pub load_detail: String,
    /// Unit of `scores` (`GFLOP/s`, `MIPS`, `runs/min`).
    pub unit: Option<String>,
    /// Minutes of load asked for.
    pub minutes: f64,
    pub start: ThermalStart,
    /// Score over time, seconds from the start of the load.
    pub scores: Vec<ScorePoint>,
    /// Last score against the first, % (negative: the machine slowed down).
    pub change_pct: Option<f64>,
    /// SoC temperature at the start of the load, its maximum and at the end, °C.
    pub temp_start_c: Option<f64>,
    pub temp_max_c: Option<f64>,
    pub temp_end_c: Option<f64>,
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
    pub target_c: Option<f64>,
    /// The target was reached (always true for `idle` when the machine was idle).
    pub reached: bool,
    pub waited_s: f64,
    /// Why the wait ended (`SoC at 44.9 °C`, `gave up after 900 s at 51.2 °C`).
    pub reason: String,
}

/// One interval of the load's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScorePoint {
    pub start_s: f64,
    pub end_s: f64,
    pub score: f64,
}

/// One cluster over the load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThermalCluster {
    pub cluster: usize,
    pub cpus: String,
    pub core_type: Option<String>,
    /// The top the cluster may run at (policy `scaling_max_freq` during the load), MHz.
    pub max_mhz: Option<f64>,
    /// Reported clock: mean of the first and of the last minute, and the lowest sample, MHz.
    pub first_minute_mhz: Option<f64>,
    pub last_minute_mhz: Option<f64>,
    pub min_mhz: Option<f64>,
    /// Mean measured (cycle counter) clock over the load, where the machine has one.
    pub measured_mhz: Option<f64>,
    /// The first sample below the top clock: when, at what temperature, to what clock.
    pub first_loss: Option<ClockLoss>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockLoss {
    /// Seconds from the start of the load.
    pub t_s: f64,
    pub temp_c: Option<f64>,
    pub from_mhz: f64,
    pub to_mhz: f64,
}
