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
    // Boxed: keeps the body (and so every `Body`) small.
    pub calibration: Box<LoopCalibration>,
    /// `loops` (fixed work: a slow clock misses deadlines) or `wall` (fixed wall time, the
    /// original study's model).
    pub work: WorkModel,
    /// Seed of the task sets and of the run order (`--seed`).
    pub seed: u64,
    /// How utilisations are split among a set's tasks (`UUniFast-discard`).
    pub split: String,
    pub tasks_per_set: u32,
    pub sets_per_level: u32,
    pub utilisations: Vec<f64>,
    /// Shortest and longest period, ms (log-uniform between).
    pub period_ms: [f64; 2],
    /// Seconds each set runs.
    pub set_duration_s: f64,
    pub repeat: u32,
    /// Whether governors were switched; when not, why (no cpufreq, no right to), and the
    /// single row is the current policy's.
    pub switched: bool,
    pub switch_note: Option<String>,
    /// Waiting between governors for the starting temperature (or `--cool-to`).
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
    pub governor: String,
    /// Runs that completed and are valid: what the medians are of.
    pub runs: u32,
    /// Runs left out because something invalidating happened meanwhile (`invalid`).
    pub invalid_runs: u32,
    pub median_miss_ratio: Option<f64>,
    /// Largest minus smallest miss ratio of those runs (a fraction, like the ratio).
    pub miss_ratio_spread: Option<f64>,
    pub median_work_time_ratio: Option<f64>,
    /// (largest − smallest) / median of the work-time ratio, %.
    pub work_time_ratio_spread_pct: Option<f64>,
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
    /// Negative slacks and all slacks over every set.
    pub negative: u64,
    pub periods: u64,
    pub miss_ratio: Option<f64>,
    pub per_level: Vec<LevelFigures>,
    /// Wall time the work took / the time it takes at the calibration clock (1.0 = as fast
    /// as calibrated; 2.0 = half the speed).
    pub work_time_ratio: Option<f64>,
    /// rt-app's efficiency (powersave 0, performance 1) when both of those ran.
    pub efficiency: Option<f64>,
    /// Slack percentiles over every period, µs (negative: late).
    pub slack_p1_us: Option<f64>,
    pub slack_p50_us: Option<f64>,
    pub slack_min_us: Option<f64>,
    /// Measured clock per cluster while it ran (from the sampler).
    pub clocks: Vec<ClusterClock>,
    /// Seconds per frequency (kHz) from time_in_state, per policy, over the run.
    pub time_in_state: Vec<PolicyTimeInState>,
    pub max_temp_c: Option<f64>,
    /// Energy of the run from the result's power source (`Envelope::energy`).
    pub energy_j: Option<f64>,
    /// The work the task sets asked for, ms at the calibration clock (the same for every
    /// governor: fixed work, not fixed time).
    #[serde(default)]
    pub work_ms: Option<f64>,
    /// work_ms / energy_j: calibrated ms of work per joule (higher = more efficient).
    #[serde(default)]
    pub work_ms_per_j: Option<f64>,
    /// Tasks that asked for a class and got another.
    pub policy_refused: Option<String>,
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
        }
    }
}

/// Miss ratio at one utilisation level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LevelFigures {
    pub utilisation: f64,
    pub negative: u64,
    pub periods: u64,
    pub miss_ratio: Option<f64>,
}

/// A cluster's clock during a governor's run, MHz.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusterClock {
    pub cluster: u32,
    pub samples: u64,
    pub mean_mhz: Option<f64>,
    pub p10_mhz: Option<f64>,
    pub p50_mhz: Option<f64>,
    pub p90_mhz: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PolicyTimeInState {
    /// `policy0`.
    pub policy: String,
    /// (kHz, seconds) pairs, ascending clock.
    pub seconds: Vec<(u64, f64)>,
}
