//! x86 and ACPI performance control: what the intel_pstate, amd-pstate and ACPI CPPC
//! interfaces say about a machine whose cpufreq driver has no frequency table.
//!
//! Files and meanings are those of Linux `Documentation/admin-guide/pm/intel_pstate.rst`,
//! `Documentation/admin-guide/pm/amd-pstate.rst` and
//! `Documentation/ABI/testing/sysfs-devices-system-cpu` (`cpuX/acpi_cppc/`):
//!
//! - `cpu/intel_pstate/{status,max_perf_pct,min_perf_pct,no_turbo,hwp_dynamic_boost,
//!   num_pstates,turbo_pct}`: global limits of intel_pstate, in percent of the highest
//!   (turbo) P-state;
//! - `cpu/amd_pstate/{status,prefcore}`: amd-pstate's mode and preferred-core handling;
//! - per policy: `energy_performance_preference` and `…_available_preferences` (HWP or
//!   amd-pstate's active mode), intel_pstate's `base_frequency` (HWP: "any frequency above
//!   this will be in the turbo frequency range"), amd-pstate's `amd_pstate_highest_perf`,
//!   `amd_pstate_max_freq`, `amd_pstate_lowest_nonlinear_freq`,
//!   `amd_pstate_prefcore_ranking`, `amd_pstate_hw_prefcore`;
//! - per CPU: `acpi_cppc/{highest,nominal,lowest_nonlinear,lowest,reference,guaranteed}_perf`
//!   (abstract units) and `nominal_freq`/`lowest_freq` (MHz; 0 when the firmware gives none).
//!
//! The nominal and boost clocks a clock verdict needs where there is no frequency table:
//! with CPPC's `nominal_freq`, boost = nominal_freq × highest_perf / nominal_perf (the linear
//! relation amd-pstate and cppc_cpufreq map performance to frequency with), or amd-pstate's
//! own `amd_pstate_max_freq`; under intel_pstate, whose CPPC units have no documented
//! frequency (its firmware leaves `nominal_freq` 0), the base is `base_frequency` and the
//! boost `cpuinfo_max_freq` (the highest turbo P-state, whatever `no_turbo` says).
//!
//! A missing file is `None` (older kernels, other modes); an unparsable one too, and listed in
//! the inventory's `missing`.

use super::{note, Cluster, Missing};
use crate::parse::cpulist;
use crate::Host;
use serde::{Deserialize, Serialize};

const CPU_DIR: &str = "sys/devices/system/cpu";
/// intel_pstate's global attributes.
pub const INTEL_PSTATE_DIR: &str = "sys/devices/system/cpu/intel_pstate";
/// amd-pstate's global attributes.
pub const AMD_PSTATE_DIR: &str = "sys/devices/system/cpu/amd_pstate";

/// The machine's x86/ACPI performance control: global driver settings and one record per
/// cpufreq policy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PerfControl {
    /// `sys/devices/system/cpu/intel_pstate/`; None when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intel_pstate: Option<IntelPstate>,
    /// `sys/devices/system/cpu/amd_pstate/`; None when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amd_pstate: Option<AmdPstate>,
    /// One record per cpufreq policy that has any of these files, in policy order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<PolicyPerf>,
}

/// intel_pstate's global attributes (`sys/devices/system/cpu/intel_pstate/`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IntelPstate {
    /// `status`: `active`, `passive` or `off`; None on kernels without the file.
    pub status: Option<String>,
    /// `max_perf_pct`: the highest P-state allowed, % of the highest turbo P-state.
    pub max_perf_pct: Option<u32>,
    /// `min_perf_pct`: the lowest P-state allowed, % of the highest turbo P-state.
    pub min_perf_pct: Option<u32>,
    /// `no_turbo`: true when turbo P-states are forbidden.
    pub no_turbo: Option<bool>,
    /// `hwp_dynamic_boost` (present only in active mode with HWP).
    pub hwp_dynamic_boost: Option<bool>,
    /// `num_pstates`: P-states the processor supports, turbo included.
    pub num_pstates: Option<u32>,
    /// `turbo_pct`: the turbo range's share of all P-states, %.
    pub turbo_pct: Option<u32>,
}

/// amd-pstate's global attributes (`sys/devices/system/cpu/amd_pstate/`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AmdPstate {
    /// `status`: `active`, `passive`, `guided` or `disable`.
    pub status: Option<String>,
    /// `prefcore`: `enabled` or `disabled` (preferred-core scheduling).
    pub prefcore: Option<String>,
}

/// ACPI CPPC capabilities of one CPU (`cpuN/acpi_cppc/`). Performance values are abstract
/// units; frequencies are MHz.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cppc {
    /// The CPU these were read from.
    pub cpu: u32,
    /// `highest_perf`: the most the CPU may reach (boost).
    pub highest_perf: Option<u64>,
    /// `nominal_perf`: the highest sustained level.
    pub nominal_perf: Option<u64>,
    /// `lowest_nonlinear_perf`: the lowest level with non-linear power savings.
    pub lowest_nonlinear_perf: Option<u64>,
    /// `lowest_perf`: the absolute lowest level.
    pub lowest_perf: Option<u64>,
    /// `reference_perf`: the level the reference counter runs at.
    pub reference_perf: Option<u64>,
    /// `guaranteed_perf` (newer kernels): the level sustainable under current limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guaranteed_perf: Option<u64>,
    /// `nominal_freq`, MHz; None when the firmware gives 0.
    pub nominal_mhz: Option<u64>,
    /// `lowest_freq`, MHz; None when the firmware gives 0.
    pub lowest_mhz: Option<u64>,
}

/// One cpufreq policy's performance control.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PolicyPerf {
    /// `policyN`'s N.
    pub policy: u32,
    /// The policy's directory, relative to the root (`cpuN/cpufreq` on kernels before
    /// policyN directories).
    pub dir: String,
    /// Its CPUs (`related_cpus`).
    pub cpus: Vec<u32>,
    /// `scaling_driver`.
    pub driver: Option<String>,
    /// The driver's mode: `active`/`passive`/`guided`, from its `status` file or its name
    /// (`intel_cpufreq` is intel_pstate's passive mode, `amd-pstate-epp` amd-pstate's active
    /// one).
    pub mode: Option<String>,
    /// Hardware-managed P-states (intel_pstate: HWP, seen by its `base_frequency` or energy
    /// preference files); None for other drivers.
    pub hwp: Option<bool>,
    /// `energy_performance_preference`.
    pub epp: Option<String>,
    /// `energy_performance_available_preferences`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub epps: Vec<String>,
    /// intel_pstate's `base_frequency`, kHz.
    pub base_khz: Option<u64>,
    /// `amd_pstate_highest_perf`.
    pub amd_highest_perf: Option<u64>,
    /// `amd_pstate_max_freq`, kHz.
    pub amd_max_khz: Option<u64>,
    /// `amd_pstate_lowest_nonlinear_freq`, kHz.
    pub amd_lowest_nonlinear_khz: Option<u64>,
    /// `amd_pstate_prefcore_ranking`: the higher, the more the scheduler prefers the core.
    pub prefcore_ranking: Option<u64>,
    /// `amd_pstate_hw_prefcore`: the hardware ranks cores.
    pub hw_prefcore: Option<bool>,
    /// The policy's own `boost` (amd-pstate, cppc_cpufreq on newer kernels).
    pub boost: Option<bool>,
    /// `cpuinfo_max_freq`, kHz.
    pub cpuinfo_max_khz: Option<u64>,
    /// CPPC capabilities of the policy's first CPU.
    pub cppc: Option<Cppc>,
    /// The nominal (base, sustained) clock, kHz; None when nothing documented gives it.
    pub nominal_khz: Option<u64>,
    /// The boost (highest) clock, kHz; None when nothing documented gives it.
    pub boost_khz: Option<u64>,
    /// Where `nominal_khz` and `boost_khz` came from.
    pub clocks_from: Option<String>,
}

impl PerfControl {
    /// Whether the CPU has turbo P-states at all: not when intel_pstate's `turbo_pct` is 0
    /// or every base clock is the highest clock (a Celeron without turbo, whose `no_turbo`
    /// reads 1 and forbids nothing); None when nothing says.
    pub fn has_turbo(&self) -> Option<bool> {
        if let Some(t) = self.intel_pstate.as_ref().and_then(|i| i.turbo_pct) {
            return Some(t > 0);
        }
        let pairs: Vec<(u64, u64)> = self
            .policies
            .iter()
            .filter_map(|p| Some((p.nominal_khz?, p.boost_khz?)))
            .collect();
        (!pairs.is_empty()).then(|| pairs.iter().any(|(n, b)| b > n))
    }
}

impl PolicyPerf {
    /// Whether its energy preference favours saving energy over speed: `power`,
    /// `balance_power`, or a raw value above 128 (`balance_performance` on Intel and AMD;
    /// 0 is `performance`, 255 `power`).
    pub fn epp_saves_power(&self) -> bool {
        self.epp.as_deref().is_some_and(epp_saves_power)
    }
}

/// Whether an `energy_performance_preference` value favours saving energy over speed.
pub fn epp_saves_power(epp: &str) -> bool {
    match epp.trim() {
        "power" | "balance_power" => true,
        v => v.parse::<u32>().is_ok_and(|n| n > 128),
    }
}

/// The settings a run watches for (`Snapshot::perf_limits`): cheap to read at each phase
/// boundary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PerfLimits {
    /// intel_pstate's `max_perf_pct`.
    pub max_perf_pct: Option<u32>,
    /// intel_pstate's `min_perf_pct`.
    pub min_perf_pct: Option<u32>,
    /// intel_pstate's `no_turbo`.
    pub no_turbo: Option<bool>,
    /// `(policy, energy_performance_preference)` of each policy that has one.
    pub epp: Vec<(u32, String)>,
}

impl PerfLimits {
    /// True when nothing was read (no intel_pstate, no energy preference).
    pub fn is_empty(&self) -> bool {
        self.max_perf_pct.is_none()
            && self.min_perf_pct.is_none()
            && self.no_turbo.is_none()
            && self.epp.is_empty()
    }
}

/// A number file: unknown when absent, noted and unknown when it holds no number of type `T`.
fn read_parsed<T: std::str::FromStr>(
    host: &Host,
    path: &str,
    missing: &mut Vec<Missing>,
) -> Option<T> {
    let text = host.read_trimmed(path)?;
    match text.parse::<T>() {
        Ok(v) => Some(v),
        Err(_) => {
            note(
                missing,
                "perf_control",
                format!("{path}: not a number: {text:?}"),
            );
            None
        }
    }
}

fn read_u32(host: &Host, path: &str, missing: &mut Vec<Missing>) -> Option<u32> {
    read_parsed(host, path, missing)
}

fn read_num(host: &Host, path: &str, missing: &mut Vec<Missing>) -> Option<u64> {
    read_parsed(host, path, missing)
}

/// `0`/`1` → bool; anything else is noted and unknown.
fn read_flag(host: &Host, path: &str, missing: &mut Vec<Missing>) -> Option<bool> {
    let text = host.read_trimmed(path)?;
    match text.as_str() {
        "0" | "disabled" => Some(false),
        "1" | "enabled" => Some(true),
        _ => {
            note(
                missing,
                "perf_control",
                format!("{path}: not 0 or 1: {text:?}"),
            );
            None
        }
    }
}

fn read_word(host: &Host, path: &str) -> Option<String> {
    host.read_trimmed(path).filter(|s| !s.is_empty())
}

/// intel_pstate's global limits, or None when the directory is absent.
fn intel_pstate(host: &Host, missing: &mut Vec<Missing>) -> Option<IntelPstate> {
    if !host.is_dir(INTEL_PSTATE_DIR) {
        return None;
    }
    let f = |n: &str| format!("{INTEL_PSTATE_DIR}/{n}");
    Some(IntelPstate {
        status: read_word(host, &f("status")),
        max_perf_pct: read_u32(host, &f("max_perf_pct"), missing),
        min_perf_pct: read_u32(host, &f("min_perf_pct"), missing),
        no_turbo: read_flag(host, &f("no_turbo"), missing),
        hwp_dynamic_boost: read_flag(host, &f("hwp_dynamic_boost"), missing),
        num_pstates: read_u32(host, &f("num_pstates"), missing),
        turbo_pct: read_u32(host, &f("turbo_pct"), missing),
    })
}

fn amd_pstate(host: &Host) -> Option<AmdPstate> {
    if !host.is_dir(AMD_PSTATE_DIR) {
        return None;
    }
    Some(AmdPstate {
        status: read_word(host, &format!("{AMD_PSTATE_DIR}/status")),
        prefcore: read_word(host, &format!("{AMD_PSTATE_DIR}/prefcore")),
    })
}

fn cppc(host: &Host, cpu: u32, missing: &mut Vec<Missing>) -> Option<Cppc> {
    let dir = format!("{CPU_DIR}/cpu{cpu}/acpi_cppc");
    if !host.is_dir(&dir) {
        return None;
    }
    let mut n = |f: &str| read_num(host, &format!("{dir}/{f}"), missing);
    Some(Cppc {
        cpu,
        highest_perf: n("highest_perf"),
        nominal_perf: n("nominal_perf"),
        lowest_nonlinear_perf: n("lowest_nonlinear_perf"),
        lowest_perf: n("lowest_perf"),
        reference_perf: n("reference_perf"),
        guaranteed_perf: n("guaranteed_perf"),
        nominal_mhz: n("nominal_freq").filter(|&v| v > 0),
        lowest_mhz: n("lowest_freq").filter(|&v| v > 0),
    })
}

fn is_intel(driver: Option<&str>) -> bool {
    matches!(driver, Some("intel_pstate" | "intel_cpufreq"))
}

fn is_amd(driver: Option<&str>) -> bool {
    driver.is_some_and(|d| d.starts_with("amd-pstate") || d.starts_with("amd_pstate"))
}

/// The driver's mode: its global `status` where it has one, else what its name says.
fn mode_of(
    driver: Option<&str>,
    intel: Option<&IntelPstate>,
    amd: Option<&AmdPstate>,
) -> Option<String> {
    if is_intel(driver) {
        if let Some(s) = intel.and_then(|i| i.status.clone()) {
            return Some(s);
        }
        return Some(
            if driver == Some("intel_cpufreq") {
                "passive"
            } else {
                "active"
            }
            .into(),
        );
    }
    if is_amd(driver) {
        if let Some(s) = amd.and_then(|a| a.status.clone()) {
            return Some(s);
        }
        let d = driver.unwrap_or_default();
        return (d.ends_with("epp")).then(|| "active".to_string());
    }
    None
}

/// Nominal and boost clocks, kHz, and where they came from (see the module's documentation).
fn clocks(p: &PolicyPerf) -> (Option<u64>, Option<u64>, Option<String>) {
    let cppc = p.cppc.as_ref();
    if let Some(c) = cppc {
        if let (Some(nf), Some(np), Some(hp)) = (c.nominal_mhz, c.nominal_perf, c.highest_perf) {
            if np > 0 && hp > 0 {
                let nominal = nf * 1000;
                if let Some(max) = p.amd_max_khz.filter(|&m| m > 0) {
                    return (
                        Some(nominal),
                        Some(max),
                        Some("acpi_cppc/nominal_freq; amd_pstate_max_freq".into()),
                    );
                }
                let boost = nominal * hp / np;
                return (
                    Some(nominal),
                    Some(boost),
                    Some(
                        "acpi_cppc/nominal_freq; boost = nominal_freq × highest_perf / nominal_perf"
                            .into(),
                    ),
                );
            }
        }
    }
    if is_intel(p.driver.as_deref()) {
        if let Some(base) = p.base_khz.filter(|&b| b > 0) {
            return (
                Some(base),
                p.cpuinfo_max_khz,
                Some(
                    "intel_pstate base_frequency; boost = cpuinfo_max_freq (the highest turbo \
                     P-state)"
                        .into(),
                ),
            );
        }
    }
    if let Some(max) = p.amd_max_khz.filter(|&m| m > 0) {
        return (None, Some(max), Some("amd_pstate_max_freq".into()));
    }
    (None, None, None)
}

/// Read one policy; None when it has none of these files.
fn policy(
    host: &Host,
    id: u32,
    dir: &str,
    cpus: Vec<u32>,
    g: &PerfControl,
    missing: &mut Vec<Missing>,
) -> Option<PolicyPerf> {
    let f = |n: &str| format!("{dir}/{n}");
    let driver = read_word(host, &f("scaling_driver"));
    let epp = read_word(host, &f("energy_performance_preference"));
    let epps: Vec<String> = read_word(host, &f("energy_performance_available_preferences"))
        .map(|t| t.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let base_khz = read_num(host, &f("base_frequency"), missing);
    let first = cpus.first().copied().unwrap_or(id);
    let mut p = PolicyPerf {
        policy: id,
        dir: dir.to_string(),
        mode: mode_of(
            driver.as_deref(),
            g.intel_pstate.as_ref(),
            g.amd_pstate.as_ref(),
        ),
        hwp: is_intel(driver.as_deref()).then_some(base_khz.is_some() || epp.is_some()),
        driver,
        epp,
        epps,
        base_khz,
        amd_highest_perf: read_num(host, &f("amd_pstate_highest_perf"), missing),
        amd_max_khz: read_num(host, &f("amd_pstate_max_freq"), missing),
        amd_lowest_nonlinear_khz: read_num(host, &f("amd_pstate_lowest_nonlinear_freq"), missing),
        prefcore_ranking: read_num(host, &f("amd_pstate_prefcore_ranking"), missing),
        hw_prefcore: read_flag(host, &f("amd_pstate_hw_prefcore"), missing),
        boost: read_flag(host, &f("boost"), missing),
        cpuinfo_max_khz: read_num(host, &f("cpuinfo_max_freq"), missing),
        cppc: cppc(host, first, missing),
        cpus,
        ..Default::default()
    };
    let relevant = p.mode.is_some()
        || p.epp.is_some()
        || p.base_khz.is_some()
        || p.amd_max_khz.is_some()
        || p.cppc.is_some();
    if !relevant {
        return None;
    }
    (p.nominal_khz, p.boost_khz, p.clocks_from) = clocks(&p);
    Some(p)
}

/// The machine's performance control, or None when it has none of these interfaces.
pub(super) fn probe(
    host: &Host,
    clusters: &[Cluster],
    missing: &mut Vec<Missing>,
) -> Option<PerfControl> {
    let mut g = PerfControl {
        intel_pstate: intel_pstate(host, missing),
        amd_pstate: amd_pstate(host),
        policies: Vec::new(),
    };
    for cl in clusters {
        for &id in &cl.policies {
            let dir = match (&cl.policy_dir, cl.policy) {
                (Some(d), Some(p)) if p == id => d.clone(),
                _ => format!("{CPU_DIR}/cpufreq/policy{id}"),
            };
            let cpus = host
                .read(format!("{dir}/related_cpus"))
                .map(|t| cpulist::parse(&t))
                .ok()
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| vec![id]);
            if let Some(p) = policy(host, id, &dir, cpus, &g, missing) {
                g.policies.push(p);
            }
        }
    }
    g.policies.sort_by_key(|p| p.policy);
    let any = g.intel_pstate.is_some() || g.amd_pstate.is_some() || !g.policies.is_empty();
    any.then_some(g)
}

/// The limits a run watches, read now: intel_pstate's global limits and every listed
/// policy's energy preference. `policies` are `(policy, directory)` pairs.
pub fn limits(host: &Host, policies: &[(u32, String)]) -> PerfLimits {
    let mut ignored = Vec::new();
    let f = |n: &str| format!("{INTEL_PSTATE_DIR}/{n}");
    PerfLimits {
        max_perf_pct: read_u32(host, &f("max_perf_pct"), &mut ignored),
        min_perf_pct: read_u32(host, &f("min_perf_pct"), &mut ignored),
        no_turbo: read_flag(host, &f("no_turbo"), &mut ignored),
        epp: policies
            .iter()
            .filter_map(|(id, dir)| {
                read_word(host, &format!("{dir}/energy_performance_preference")).map(|e| (*id, e))
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_saving_preferences() {
        for e in ["power", "balance_power", "192", "255", " power\n"] {
            assert!(epp_saves_power(e), "{e}");
        }
        for e in [
            "performance",
            "balance_performance",
            "default",
            "0",
            "128",
            "x",
        ] {
            assert!(!epp_saves_power(e), "{e}");
        }
    }

    /// The relation amd-pstate and cppc_cpufreq use, on a real ARM server's CPPC values
    /// (highest 300, nominal 280 at 2800 MHz, `lscpu` max 3000 MHz; linux-acpi list, 2021).
    #[test]
    fn boost_from_cppc_nominal_freq() {
        let p = PolicyPerf {
            driver: Some("cppc_cpufreq".into()),
            cppc: Some(Cppc {
                highest_perf: Some(300),
                nominal_perf: Some(280),
                nominal_mhz: Some(2800),
                ..Default::default()
            }),
            ..Default::default()
        };
        let (n, b, from) = clocks(&p);
        assert_eq!((n, b), (Some(2_800_000), Some(3_000_000)));
        assert!(from.unwrap().contains("highest_perf / nominal_perf"));
        // nominal_freq 0 (Intel's firmware, some ARM servers): no frequency to derive from.
        let mut q = p.clone();
        q.cppc.as_mut().unwrap().nominal_mhz = None;
        assert_eq!(clocks(&q), (None, None, None));
    }
}
