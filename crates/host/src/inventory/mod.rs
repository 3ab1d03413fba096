//! `Inventory`: the typed picture of one machine that every command starts from.
//!
//! `Inventory::probe` reads through a [`Host`] and never fails: whatever is missing or
//! malformed becomes `None`/empty and is listed in `missing` with the path and the reason.

mod cpus;
mod memory;
mod perf_control;
mod placement;
mod storage;
mod system;
mod thermal;

pub use cpus::{clean_x86_model, Cluster, Cpu};
pub use memory::{Memory, Swap, SwapDevice, Zswap};
pub use perf_control::{
    epp_saves_power, limits as perf_limits, AmdPstate, Cppc, IntelPstate, PerfControl, PerfLimits,
    PolicyPerf, AMD_PSTATE_DIR, INTEL_PSTATE_DIR,
};
pub use placement::CoreLayout;
pub use storage::{storage_under, StorageInfo};
#[cfg(test)]
pub(crate) use system::machine_line;
pub use system::{Arch, Kernel, VirtLayer, Virtualization};
pub use thermal::{ChosenSensor, HwmonChip, HwmonSensor, Thermal, ThermalZone, TripPoint};

use crate::soc::SocGuess;
use crate::Host;
use serde::{Deserialize, Serialize};

/// Version of the JSON document `truebench info --json` prints. Bump on incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Something truebench could not find out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Missing {
    /// What is unknown: "cpufreq", "thermal", "device", …
    pub what: String,
    /// Why: the path and the error, or what was absent.
    pub reason: String,
}

/// The machine as `truebench info --json` prints it (docs/schema/info.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Inventory {
    /// [`SCHEMA_VERSION`] of this document.
    pub schema_version: u32,
    /// The root this picture was read from (`/` for the live machine).
    pub root: String,
    /// Device-tree model, else DMI vendor and product.
    pub device: Option<String>,
    /// The device tree's root `compatible` list, most specific first (board, SoC, family);
    /// empty without a device tree. Farm engines key boards by it (KernelCI's
    /// `environment.compatible`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compatible: Vec<String>,
    /// The SoC guessed and the rule that matched (on x86 the CPU model); None when unknown.
    pub soc: Option<SocGuess>,
    /// Kernel release and version line.
    pub kernel: Kernel,
    /// Kernel and userland architecture.
    pub arch: Arch,
    /// `PRETTY_NAME` of os-release; None when unreadable.
    pub distro: Option<String>,
    /// The VM, container or WSL layers it runs in.
    pub virtualization: Virtualization,
    /// One entry per present CPU, in CPU order.
    pub cpus: Vec<Cpu>,
    /// CPUs of one core type sharing a cpufreq policy, ordered by first CPU.
    pub clusters: Vec<Cluster>,
    /// The identified chip's core layout where cpuinfo did not give every CPU's type: placed
    /// on CPUs only where the machine shows which is which, else counts alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_layout: Option<CoreLayout>,
    /// Thermal zones, hwmon chips and the chosen SoC temperature.
    pub thermal: Thermal,
    /// RAM and page size.
    pub memory: Memory,
    /// Swap devices and zswap.
    pub swap: Swap,
    /// The idle states of the online CPUs, their driver and governor; None without cpuidle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpuidle: Option<crate::cpuidle::CpuIdle>,
    /// intel_pstate, amd-pstate and ACPI CPPC: limits, energy preferences, nominal and boost
    /// clocks; None when the machine has none of them (and in documents before it was read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perf_control: Option<PerfControl>,
    /// Everything that could not be read, and why.
    pub missing: Vec<Missing>,
}

impl Inventory {
    /// Read everything this module knows about from `host`. Never fails.
    pub fn probe(host: &Host) -> Inventory {
        let mut missing = Vec::new();
        let mut cpu_part = cpus::probe(host, &mut missing);
        let sys = system::probe(host, &cpu_part, &mut missing);
        let core_layout = sys
            .soc
            .as_ref()
            .and_then(|soc| cpus::fill_core_types_from_soc(host, &mut cpu_part, soc));
        crate::opp::read::fill(host, &mut cpu_part.clusters);
        let thermal = thermal::probe(host, &mut missing);
        let (memory, swap) = memory::probe(host, &mut missing);
        let online: Vec<u32> = cpu_part
            .cpus
            .iter()
            .filter(|c| c.online)
            .map(|c| c.id)
            .collect();
        let cpuidle = crate::cpuidle::probe(host, &online);
        let perf_control = perf_control::probe(host, &cpu_part.clusters, &mut missing);
        Inventory {
            schema_version: SCHEMA_VERSION,
            root: host.root().display().to_string(),
            device: sys.device,
            compatible: sys.compatible,
            soc: sys.soc,
            kernel: sys.kernel,
            arch: sys.arch,
            distro: sys.distro,
            virtualization: sys.virtualization,
            cpus: cpu_part.cpus,
            clusters: cpu_part.clusters,
            core_layout,
            thermal,
            memory,
            swap,
            cpuidle,
            perf_control,
            missing,
        }
    }

    pub fn online_cpus(&self) -> impl Iterator<Item = &Cpu> {
        self.cpus.iter().filter(|c| c.online)
    }

    /// The cluster a CPU belongs to.
    pub fn cluster_of(&self, cpu: u32) -> Option<&Cluster> {
        let c = self.cpus.iter().find(|c| c.id == cpu)?.cluster?;
        self.clusters.get(c)
    }

    /// True when any cluster has a cpufreq driver.
    pub fn has_cpufreq(&self) -> bool {
        self.clusters.iter().any(|c| c.driver.is_some())
    }

    /// The performance control of the policy a cluster's first CPU belongs to.
    pub fn perf_of(&self, cluster: &Cluster) -> Option<&PolicyPerf> {
        let p = cluster.policy?;
        self.perf_control
            .as_ref()?
            .policies
            .iter()
            .find(|x| x.policy == p)
    }
}

pub(crate) fn note(missing: &mut Vec<Missing>, what: &str, reason: impl Into<String>) {
    missing.push(Missing {
        what: what.to_string(),
        reason: reason.into(),
    });
}
