//! The `governors` kind (`truebench governors`, the governor-efficiency study rebuilt):
//! batches of periodic task sets (runtime R, period T; utilisation U from about one CPU to
//! twice the CPUs) run under each cpufreq governor with a fixed amount of work per period. A
//! governor's miss ratio is negative slacks / all slacks; its efficiency is rt-app's
//! `(T_powersave − T_gov) / (T_powersave − T_performance)` on the same work. Each governor's
//! run is one phase of the envelope, so its clocks, temperatures and findings are that phase's.

use serde::{Deserialize, Serialize};

use crate::evidence::{phase_id, NotOne, RowEvidence};
use crate::interactivity::{LoopCalibration, WorkModel};

/// The phase of one governor's run: `governor/schedutil#2` (`#repeat` when the study
/// repeats), `governor/current` without switching.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GovernorPhase {
    /// The governor as its row names it (`schedutil`, `userspace@max`, `current`).
    pub governor: String,
    /// 1-based; None when every governor ran once.
    pub repeat: Option<u32>,
}
phase_id!(GovernorPhase, "`governor/NAME`, `governor/NAME#REPEAT`");

impl GovernorPhase {
    /// The run of `governor`, its repeat when the study repeats.
    pub fn new(governor: &str, repeat: Option<u32>) -> GovernorPhase {
        GovernorPhase {
            governor: governor.into(),
            repeat,
        }
    }

    /// The run as a chart's band names it: `schedutil#2`.
    pub fn label(&self) -> String {
        match self.repeat {
            Some(r) => format!("{}#{r}", self.governor),
            None => self.governor.clone(),
        }
    }
}

impl std::fmt::Display for GovernorPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "governor/{}", self.label())
    }
}

impl std::str::FromStr for GovernorPhase {
    type Err = NotOne;
    fn from_str(s: &str) -> Result<GovernorPhase, NotOne> {
        let not = || NotOne::new("governors phase", s);
        let g = s.strip_prefix("governor/").ok_or_else(not)?;
        let (governor, repeat) = match g.rsplit_once('#') {
            Some((g, r)) => (g, Some(r.parse().map_err(|_| not())?)),
            None => (g, None),
        };
        if governor.is_empty() {
            return Err(not());
        }
        Ok(GovernorPhase::new(governor, repeat))
    }
}

/// Body of a `governors` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GovernorsBody {
    /// How many loops make a millisecond of work here (the unit of the fixed work).
    /// Boxed: keeps the body (and so every `Body`) small.
    pub calibration: Box<LoopCalibration>,
    /// `loops` (fixed work: a slow clock misses deadlines) or `wall` (fixed wall time, the
    /// original study's model).
    pub work: WorkModel,
    /// Seed of the task sets and of the run order (`--seed`).
    pub seed: u64,
    /// How utilisations are split among a set's tasks (`UUniFast-discard`).
    pub split: String,
    /// Periodic tasks in each set.
    pub tasks_per_set: u32,
    /// Task sets per utilisation level.
    pub sets_per_level: u32,
    /// The utilisation levels, in CPUs' worth of work (1.0 = one CPU busy).
    pub utilisations: Vec<f64>,
    /// Shortest and longest period, ms (log-uniform between).
    pub period_ms: [f64; 2],
    /// Seconds each set runs.
    pub set_duration_s: f64,
    /// Runs per governor (`--repeat`).
    pub repeat: u32,
    /// Whether governors were switched; when not, why (no cpufreq, no right to), and the
    /// single row is the current policy's.
    pub switched: bool,
    /// Why governors were not switched; None when they were.
    pub switch_note: Option<String>,
    /// How governors were separated: the wait for the starting temperature + 1 °C (or
    /// `--cool-to`), or back to back without a sensor.
    pub cooling: Option<String>,
    /// Governors in the order they ran (shuffled by the seed), one row each per repeat.
    pub rows: Vec<GovernorRow>,
    /// Per governor over its repeats: the median and spread of the runs that completed and
    /// are valid (in the order governors first ran).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<GovernorSummary>,
}

/// One governor over its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GovernorSummary {
    /// The governor (as `GovernorRow::governor`).
    pub governor: String,
    /// Runs that completed and are valid: what the medians are of.
    pub runs: u32,
    /// Runs left out because something invalidating happened meanwhile (`invalid`).
    pub invalid_runs: u32,
    /// Median miss ratio of those runs; None without one.
    pub median_miss_ratio: Option<f64>,
    /// Largest minus smallest miss ratio of those runs (a fraction, like the ratio); None
    /// with fewer than two.
    pub miss_ratio_spread: Option<f64>,
    /// Median work-time ratio of those runs; None without one (`wall` work).
    pub median_work_time_ratio: Option<f64>,
    /// (largest − smallest) / median of the work-time ratio, %; None with fewer than two.
    pub work_time_ratio_spread_pct: Option<f64>,
    /// Median calibrated ms of work per joule of those runs; None without energy.
    pub median_work_ms_per_j: Option<f64>,
}

/// One governor's run over every task set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GovernorRow {
    /// `schedutil`, `userspace@max`, `userspace@mid`, or `current` without switching.
    pub governor: String,
    /// 1-based repeat number.
    pub repeat: u32,
    /// Its phase, how it ended, the findings of its time: a throttled row is not
    /// comparable (any throttling makes it invalid).
    #[serde(flatten)]
    pub evidence: RowEvidence<GovernorPhase>,
    /// Periods with a negative slack (deadline missed) over every set.
    pub negative: u64,
    /// Periods (slacks) over every set.
    pub periods: u64,
    /// negative / periods; None without periods.
    pub miss_ratio: Option<f64>,
    /// The same per utilisation level, in `GovernorsBody::utilisations` order.
    pub per_level: Vec<LevelFigures>,
    /// CPU time the work took / the time it takes at the calibration clock (1.0 = as fast
    /// as calibrated; 2.0 = half the speed); None for `wall` work or no run.
    pub work_time_ratio: Option<f64>,
    /// rt-app's efficiency (powersave 0, performance 1); None unless both of those ran,
    /// valid, more than 5 % apart.
    pub efficiency: Option<f64>,
    /// 1st percentile of the slack over every period, µs (negative: late); None without
    /// periods.
    pub slack_p1_us: Option<f64>,
    /// Median slack, µs; None without periods.
    pub slack_p50_us: Option<f64>,
    /// Smallest slack, µs (the latest deadline); None without periods.
    pub slack_min_us: Option<f64>,
    /// Measured clock per cluster while it ran (from the sampler).
    pub clocks: Vec<ClusterClock>,
    /// Seconds per frequency (kHz) from time_in_state, per policy, over the run.
    pub time_in_state: Vec<PolicyTimeInState>,
    /// Highest SoC temperature while it ran, °C; None without a sensor.
    pub max_temp_c: Option<f64>,
    /// Energy of the run from the result's power source (`Envelope::energy`), J; None
    /// without a power source.
    pub energy_j: Option<f64>,
    /// The work the task sets asked for, ms at the calibration clock (the same for every
    /// governor: fixed work, not fixed time); None for `wall` work.
    #[serde(default)]
    pub work_ms: Option<f64>,
    /// work_ms / energy_j: calibrated ms of work per joule (higher = more efficient); None
    /// without either.
    #[serde(default)]
    pub work_ms_per_j: Option<f64>,
    /// The class a task got when the one it asked for was refused, and why; None when
    /// every task got its class.
    pub policy_refused: Option<String>,
    /// The deepest idle state a CPU entered during the run (its cpuidle `usage` grew), with
    /// its exit latency; None without cpuidle, when none was entered, or in documents
    /// written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deepest_idle: Option<crate::residency::DeepestIdle>,
}

impl GovernorRow {
    /// A row before its run: no figures yet, `status` as given.
    pub fn new(
        governor: &str,
        repeat: u32,
        phase: GovernorPhase,
        status: crate::PhaseStatus,
    ) -> Self {
        GovernorRow {
            governor: governor.into(),
            repeat,
            evidence: RowEvidence::new(phase, status),
            negative: 0,
            periods: 0,
            miss_ratio: None,
            per_level: Vec::new(),
            work_time_ratio: None,
            efficiency: None,
            slack_p1_us: None,
            slack_p50_us: None,
            slack_min_us: None,
            clocks: Vec::new(),
            time_in_state: Vec::new(),
            max_temp_c: None,
            energy_j: None,
            work_ms: None,
            work_ms_per_j: None,
            policy_refused: None,
            deepest_idle: None,
        }
    }
}

/// Miss ratio at one utilisation level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LevelFigures {
    /// The level, in CPUs' worth of work.
    pub utilisation: f64,
    /// Periods with a negative slack at this level.
    pub negative: u64,
    /// Periods at this level.
    pub periods: u64,
    /// negative / periods; None without periods.
    pub miss_ratio: Option<f64>,
}

/// A cluster's clock during a governor's run, MHz, from a 20 Hz log of its first policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusterClock {
    /// Cluster id.
    pub cluster: u32,
    /// Readings of the clock log within the run.
    pub samples: u64,
    /// Time-weighted mean clock, MHz; None without readings.
    pub mean_mhz: Option<f64>,
    /// Clock the cluster was at or below for 10 % of the time, MHz; None without readings.
    pub p10_mhz: Option<f64>,
    /// Median clock over time, MHz; None without readings.
    pub p50_mhz: Option<f64>,
    /// Clock the cluster was at or below for 90 % of the time, MHz; None without readings.
    pub p90_mhz: Option<f64>,
}

/// Time spent at each frequency by one cpufreq policy (`stats/time_in_state` deltas).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PolicyTimeInState {
    /// `policy0`.
    pub policy: String,
    /// (kHz, seconds) pairs, ascending clock.
    pub seconds: Vec<(u64, f64)>,
}

impl crate::FailedRows for GovernorsBody {
    fn failed_rows(&self) -> bool {
        self.rows
            .iter()
            .any(|r| crate::outcome::failed(r.evidence.status))
    }
}
