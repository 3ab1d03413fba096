//! The `power` kind (`truebench power`): what the machine draws idle, as it is and in each
//! low-power setting — the cpufreq governor, devfreq devices, PCIe ASPM, each alone and
//! together, cores offline — each state measured until the mean's 95 % interval is narrow
//! enough, after a settling time that is itself measured, with the difference to the
//! machine as it was.

use serde::{Deserialize, Serialize};

use crate::evidence::{is_phase, words, RowEvidence};

words! {
    /// One state the machine is measured in (also its phase's name).
    pub enum PowerState("power state") {
        /// The machine as it was configured.
        AsIs => "as-is",
        /// `powersave` (else the lowest OPP) on every cpufreq policy.
        Governor => "governor",
        /// Every devfreq device (memory controller, GPU, NPU) at its minimum.
        Devfreq => "devfreq",
        /// PCIe ASPM `powersupersave`, else `powersave`.
        Aspm => "aspm",
        /// The governor, devfreq and ASPM steps together.
        Tuned => "tuned",
        /// The fastest cores offline (never CPU 0).
        BigOffline => "big-offline",
        /// Every CPU but CPU 0 offline.
        OneCpu => "one-cpu",
        /// As configured again at the end: the drift since the first state.
        AsIsAgain => "as-is-again",
    }
}
is_phase!(PowerState);

impl PowerState {
    /// What the state is, in words (`cores offline: the big cluster`).
    pub fn title(self) -> &'static str {
        match self {
            PowerState::AsIs => "as configured",
            PowerState::Governor => "cpufreq governor powersave",
            PowerState::Devfreq => "devfreq devices at their minimum",
            PowerState::Aspm => "PCIe ASPM powersave",
            PowerState::Tuned => "tuned for idle (governor, devfreq, ASPM)",
            PowerState::BigOffline => "the big cores offline",
            PowerState::OneCpu => "all CPUs but CPU 0 offline",
            PowerState::AsIsAgain => "as configured, again",
        }
    }

    /// The state changes a setting (all but the two `as is`).
    pub fn changes_settings(self) -> bool {
        !matches!(self, PowerState::AsIs | PowerState::AsIsAgain)
    }

    /// Could cut a remote session (ASPM on a PCIe network card; hotplug moving the network
    /// interrupts): skipped by `--only-safe`.
    pub fn risky(self) -> bool {
        matches!(
            self,
            PowerState::Aspm | PowerState::BigOffline | PowerState::OneCpu
        )
    }
}

/// Body of a `power` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PowerBody {
    /// The power source the states were measured with (`power-cmd: …`, an hwmon sensor,
    /// RAPL), the best the machine has.
    pub source: String,
    /// What that source covers (the whole device as wired, one rail, the CPU package).
    pub covers: String,
    /// Seconds between the source's readings.
    pub interval_s: f64,
    /// How often its value changed, seconds (a meter read faster than it updates repeats
    /// itself); None when it never changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_s: Option<f64>,
    /// The smallest step between two different readings, W: the meter's resolution as seen;
    /// None when the readings never differed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution_w: Option<f64>,
    /// Each state lasts until its mean's 95 % interval is within ± this percentage.
    pub precision_pct: f64,
    /// … or until this many seconds (settling included).
    pub max_seconds: f64,
    /// Only states that cannot cut a remote session (`--only-safe`).
    pub only_safe: bool,
    /// Why no setting could be changed (no root, `--no-tuning`); None when they could.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untuned: Option<String>,
    /// Every state, in the order measured.
    pub states: Vec<PowerRow>,
}

/// One state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PowerRow {
    /// Its phase, how it ended (skipped: why), the findings of its time.
    #[serde(flatten)]
    pub evidence: RowEvidence<PowerState>,
    /// The settings written for it (`policy4 scaling_governor = powersave`).
    #[serde(default)]
    pub changes: Vec<String>,
    /// Seconds from the settings to a flat power trend; None when it never flattened.
    pub settle_s: Option<f64>,
    /// Seconds measured after settling.
    pub seconds: f64,
    /// Readings in the mean.
    pub readings: u32,
    /// Mean power, W.
    pub mean_w: Option<f64>,
    /// Half-width of the mean's 95 % interval, W.
    pub ci_w: Option<f64>,
    /// The interval narrowed to the precision asked for; when false the mean is not a
    /// figure to use.
    pub narrowed: bool,
    /// Lowest reading, W.
    pub min_w: Option<f64>,
    /// Highest reading, W.
    pub max_w: Option<f64>,
    /// Energy per day at the mean power, Wh (per hour: the mean in W).
    pub wh_per_day: Option<f64>,
    /// CPU time busy while measured, percent of all online CPUs.
    pub busy_pct: Option<f64>,
    /// Mean current clock of each cluster while measured, MHz (index = cluster id).
    #[serde(default)]
    pub cluster_mhz: Vec<Option<f64>>,
    /// CPUs online while measured.
    pub cpus_online: Option<u32>,
    /// Mean power minus the first state's (`as-is`), W.
    pub delta_w: Option<f64>,
    /// Half-width of that difference's 95 % interval, W.
    pub delta_ci_w: Option<f64>,
    /// The difference in percent of the first state's power.
    pub delta_pct: Option<f64>,
}

impl PowerRow {
    /// A state not measured yet: its phase, ok, no readings.
    pub fn new(state: PowerState) -> PowerRow {
        PowerRow {
            evidence: RowEvidence::new(state, crate::PhaseStatus::Ok),
            changes: Vec::new(),
            settle_s: None,
            seconds: 0.0,
            readings: 0,
            mean_w: None,
            ci_w: None,
            narrowed: false,
            min_w: None,
            max_w: None,
            wh_per_day: None,
            busy_pct: None,
            cluster_mhz: Vec::new(),
            cpus_online: None,
            delta_w: None,
            delta_ci_w: None,
            delta_pct: None,
        }
    }

    /// The mean as a figure: only when its interval narrowed and the state was measured.
    pub fn figure(&self) -> Option<f64> {
        self.mean_w
            .filter(|_| self.narrowed && self.evidence.status == crate::PhaseStatus::Ok)
    }
}

impl crate::FailedRows for PowerBody {
    fn failed_rows(&self) -> bool {
        self.states
            .iter()
            .any(|r| crate::outcome::failed(r.evidence.status))
    }
}
