//! Frequency × idle residency of one phase, per cluster: the seconds at each clock (cpufreq
//! `time_in_state` deltas) and the entries and CPU-seconds in each idle state (cpuidle `usage`
//! and `time` deltas), read at the phase's two boundaries — the table LISA's residency
//! analysis and workload-automation's cpustates report give. It says how busy the CPUs were
//! at which clock, how deeply they slept between, and so which wake-up costs applied.

use serde::{Deserialize, Serialize};

/// A phase's residency, one entry per cluster with any statistics.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseResidency {
    /// In cluster order.
    pub clusters: Vec<ClusterResidency>,
}

impl PhaseResidency {
    /// The deepest idle state any of the clusters' CPUs entered (highest exit latency;
    /// unknown latencies count below known ones).
    pub fn deepest(&self) -> Option<&DeepestIdle> {
        self.clusters
            .iter()
            .filter_map(|c| c.deepest.as_ref())
            .max_by_key(|d| d.exit_latency_us.map_or(0, |l| l + 1))
    }
}

/// One cluster over one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusterResidency {
    /// The cluster's CPUs that the figures cover (the phase's, when it named CPUs).
    pub cpus: Vec<u32>,
    /// Core type (`Cortex-A715`); None when unknown.
    pub core_type: Option<String>,
    /// Seconds at each clock, `(MHz, s)` ascending, from the policy's `time_in_state`
    /// (wall seconds of the policy, not per CPU); empty without cpufreq statistics.
    pub opp_s: Vec<(u32, f64)>,
    /// Each idle state, shallowest first, summed over `cpus`; empty without cpuidle.
    pub idle: Vec<IdleResidency>,
    /// The deepest state any of `cpus` entered in the phase (its `usage` grew); None when
    /// none was entered or nothing could be read.
    pub deepest: Option<DeepestIdle>,
}

/// One idle state over one phase, summed over a cluster's CPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleResidency {
    /// `WFI`, `C6`, `gold-c4`.
    pub state: String,
    /// Its exit latency, µs; None when unknown.
    pub exit_latency_us: Option<u64>,
    /// Entries (`usage` delta).
    pub entries: u64,
    /// CPU-seconds spent in it (`time` delta): up to the phase's length × CPUs.
    pub cpu_s: f64,
}

/// The deepest idle state some CPU entered, and what leaving it costs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeepestIdle {
    /// The state's name.
    pub state: String,
    /// Its exit latency, µs; None when unknown.
    pub exit_latency_us: Option<u64>,
    /// The CPUs that entered it.
    pub cpus: Vec<u32>,
}
