//! cpuidle: the idle states each CPU offers (`cpuN/cpuidle/stateK/`), the driver and governor
//! choosing among them (`cpu/cpuidle/`), and the counters of how often and how long each
//! state was entered. Semantics from Linux Documentation/admin-guide/pm/cpuidle.rst and
//! Documentation/ABI/testing/sysfs-devices-system-cpu: `latency` is the exit latency in µs,
//! `residency` the target residency in µs, `usage` the entries, `time` the µs spent in the
//! state, `disable` 1 when user space turned it off, `default_status` the driver's own
//! choice (kernels since 5.6).
//!
//! States are numbered from the shallowest: a higher index never exits faster (the kernel
//! orders them so), so the deepest state a CPU entered is the highest index whose `usage`
//! grew.

use crate::parse::cpulist;
use crate::Host;
use serde::{Deserialize, Serialize};

/// `sys/devices/system/cpu`.
pub const CPU_DIR: &str = "sys/devices/system/cpu";
/// The machine-wide cpuidle directory (driver and governor).
pub const CPUIDLE_DIR: &str = "sys/devices/system/cpu/cpuidle";

/// An exit latency from this many µs up is a power-down state (ARM core or cluster power
/// down, x86 C1E and deeper); below it a state only stops the core's clock (ARM WFI, x86
/// HLT and MWAIT C1 at 0–3 µs) or polls.
pub const DEEP_EXIT_US: u64 = 10;

/// Root-relative directory of state `k` of CPU `cpu`.
pub fn state_dir(cpu: u32, k: usize) -> String {
    format!("{CPU_DIR}/cpu{cpu}/cpuidle/state{k}")
}

/// One idle state as its CPU offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleState {
    /// K of `stateK`.
    pub index: u32,
    /// `name`: `WFI`, `C6`, `gold-c4`, `POLL`.
    pub name: String,
    /// `desc`: `ARM WFI`, `MWAIT 0x20`, `rail-pc`; None when absent, empty or `<null>`.
    pub desc: Option<String>,
    /// `latency`: worst-case time to leave the state, µs; None when unreadable.
    pub exit_latency_us: Option<u64>,
    /// `residency`: the least time worth spending in it, µs; None when absent (kernels
    /// before 3.x) or unreadable.
    pub target_residency_us: Option<u64>,
    /// `disable` is 1 (the state is never entered); None when the file is absent.
    pub disabled: Option<bool>,
    /// `default_status` is `disabled`: the driver turned it off itself; None when absent.
    pub disabled_by_default: Option<bool>,
}

impl IdleState {
    /// A state that polls or only stops the clock (see [`DEEP_EXIT_US`]); unknown latency
    /// counts as not deep only for a polling state.
    pub fn is_deep(&self) -> bool {
        !self.is_poll() && self.exit_latency_us.is_some_and(|l| l >= DEEP_EXIT_US)
    }

    /// The kernel's polling loop (`POLL`, "CPUIDLE CORE POLL IDLE").
    pub fn is_poll(&self) -> bool {
        self.name.eq_ignore_ascii_case("poll")
            || self
                .desc
                .as_deref()
                .is_some_and(|d| d.contains("POLL IDLE"))
    }
}

/// CPUs offering the same states (same driver, names, latencies and switches).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleGroup {
    /// The CPUs, ascending.
    pub cpus: Vec<u32>,
    /// `cpuN/cpuidle/driver/name` where the kernel has one driver per CPU; else None.
    pub driver: Option<String>,
    /// The states from the shallowest.
    pub states: Vec<IdleState>,
}

impl IdleGroup {
    /// The deepest state offered and not disabled.
    pub fn deepest_enabled(&self) -> Option<&IdleState> {
        self.states.iter().rev().find(|s| s.disabled != Some(true))
    }
}

/// The machine's cpuidle: driver, governor and the states of every CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuIdle {
    /// `cpuidle/current_driver` (`psci_idle`, `intel_idle`, `acpi_idle`, `none`).
    pub driver: Option<String>,
    /// `cpuidle/current_governor_ro`, else `current_governor` (`menu`, `teo`, `ladder`).
    pub governor: Option<String>,
    /// CPUs grouped by identical states, ordered by first CPU.
    pub groups: Vec<IdleGroup>,
    /// Online CPUs without a `cpuidle` directory (or without states).
    pub cpus_without: Vec<u32>,
}

impl CpuIdle {
    /// The group of `cpu`.
    pub fn group_of(&self, cpu: u32) -> Option<&IdleGroup> {
        self.groups.iter().find(|g| g.cpus.contains(&cpu))
    }

    /// `psci_idle/menu, 2 states (WFI … gold-c4 1900 µs)`: one line for `info`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{}/{}",
            self.driver.as_deref().unwrap_or("?"),
            self.governor.as_deref().unwrap_or("?")
        );
        let deepest: Vec<String> = self
            .groups
            .iter()
            .filter_map(|g| {
                let d = g.states.last()?;
                let lat = d
                    .exit_latency_us
                    .map_or_else(|| "?".to_string(), |l| l.to_string());
                Some(format!(
                    "cpu{}: {} states, deepest {} ({lat} µs)",
                    cpulist::format(&g.cpus),
                    g.states.len(),
                    d.name
                ))
            })
            .collect();
        if deepest.is_empty() {
            s.push_str(", no idle states");
        } else {
            s.push_str(": ");
            s.push_str(&deepest.join("; "));
        }
        s
    }
}

fn text(host: &Host, path: String) -> Option<String> {
    host.read_trimmed(path).filter(|t| t != "<null>")
}

/// `0`/`1` → bool; anything else is unknown.
fn flag(host: &Host, path: String) -> Option<bool> {
    match host.read_trimmed(path)?.as_str() {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

/// The states of `cpu`, in index order; stops at the first `stateK` missing (the kernel
/// numbers them without gaps).
pub fn states_of(host: &Host, cpu: u32) -> Vec<IdleState> {
    let mut out = Vec::new();
    for k in 0.. {
        let dir = state_dir(cpu, k);
        if !host.is_dir(&dir) {
            break;
        }
        out.push(IdleState {
            index: k as u32,
            name: text(host, format!("{dir}/name")).unwrap_or_else(|| format!("state{k}")),
            desc: text(host, format!("{dir}/desc")),
            exit_latency_us: host.read_u64(format!("{dir}/latency")),
            target_residency_us: host.read_u64(format!("{dir}/residency")),
            disabled: flag(host, format!("{dir}/disable")),
            disabled_by_default: host
                .read_trimmed(format!("{dir}/default_status"))
                .and_then(|v| match v.as_str() {
                    "disabled" => Some(true),
                    "enabled" => Some(false),
                    _ => None,
                }),
        });
    }
    out
}

/// The cpuidle of the CPUs `cpus` (the online ones); None when the machine has no cpuidle
/// at all (no `cpu/cpuidle` directory and no CPU with states).
pub fn probe(host: &Host, cpus: &[u32]) -> Option<CpuIdle> {
    let mut groups: Vec<IdleGroup> = Vec::new();
    let mut without = Vec::new();
    for &cpu in cpus {
        let states = states_of(host, cpu);
        if states.is_empty() {
            without.push(cpu);
            continue;
        }
        let driver = text(host, format!("{CPU_DIR}/cpu{cpu}/cpuidle/driver/name"));
        match groups
            .iter_mut()
            .find(|g| g.driver == driver && g.states == states)
        {
            Some(g) => g.cpus.push(cpu),
            None => groups.push(IdleGroup {
                cpus: vec![cpu],
                driver,
                states,
            }),
        }
    }
    if groups.is_empty() && !host.is_dir(CPUIDLE_DIR) {
        return None;
    }
    Some(CpuIdle {
        driver: text(host, format!("{CPUIDLE_DIR}/current_driver")),
        governor: text(host, format!("{CPUIDLE_DIR}/current_governor_ro"))
            .or_else(|| text(host, format!("{CPUIDLE_DIR}/current_governor"))),
        groups,
        cpus_without: without,
    })
}

/// Entries and µs of each state of one CPU since boot, read once (the evidence snapshots);
/// the sampler keeps the same files open instead.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleCounters {
    /// The CPU.
    pub cpu: u32,
    /// `usage` of each state, index = state; None when unreadable.
    pub usage: Vec<Option<u64>>,
    /// `time` of each state, µs; None when unreadable.
    pub time_us: Vec<Option<u64>>,
}

/// The counters of `cpu`'s first `n` states.
pub fn counters(host: &Host, cpu: u32, n: usize) -> IdleCounters {
    IdleCounters {
        cpu,
        usage: (0..n)
            .map(|k| host.read_u64(format!("{}/usage", state_dir(cpu, k))))
            .collect(),
        time_us: (0..n)
            .map(|k| host.read_u64(format!("{}/time", state_dir(cpu, k))))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(name: &str, lat: Option<u64>) -> IdleState {
        IdleState {
            index: 0,
            name: name.into(),
            desc: None,
            exit_latency_us: lat,
            target_residency_us: None,
            disabled: None,
            disabled_by_default: None,
        }
    }

    #[test]
    fn deep_means_a_power_down_exit_latency() {
        assert!(!state("WFI", Some(1)).is_deep());
        assert!(!state("C1", Some(3)).is_deep());
        assert!(!state("POLL", Some(0)).is_deep());
        assert!(!state("C6", None).is_deep());
        assert!(state("C1E", Some(10)).is_deep());
        assert!(state("gold-c4", Some(1900)).is_deep());
        let mut p = state("C0", Some(0));
        p.desc = Some("CPUIDLE CORE POLL IDLE".into());
        assert!(p.is_poll());
    }
}
