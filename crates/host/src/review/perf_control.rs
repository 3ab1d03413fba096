//! x86 and ACPI performance control (intel_pstate, amd-pstate, ACPI CPPC): the limits that
//! cap a CPU without a frequency table, and the nominal and boost clocks the clock checks
//! judge by. What the files mean: Linux `Documentation/admin-guide/pm/intel_pstate.rst` and
//! `amd-pstate.rst`.

use super::Setting;
use crate::inventory::{epp_saves_power, PolicyPerf, AMD_PSTATE_DIR, INTEL_PSTATE_DIR};
use crate::parse::cpulist;
use crate::Inventory;

pub fn review(inv: &Inventory, out: &mut Vec<Setting>) {
    let Some(pc) = &inv.perf_control else { return };
    // The highest turbo P-state the percentages are of.
    let top_khz = pc.policies.iter().filter_map(|p| p.cpuinfo_max_khz).max();
    if let Some(ip) = &pc.intel_pstate {
        let f = |n: &str| format!("{INTEL_PSTATE_DIR}/{n}");
        let hwp = pc.policies.iter().any(|p| p.hwp == Some(true));
        let mode = ip
            .status
            .clone()
            .or_else(|| pc.policies.iter().find_map(|p| p.mode.clone()));
        if let Some(m) = mode {
            let value = if hwp { format!("{m}, HWP") } else { m.clone() };
            let s = Setting::new("cpufreq", "all CPUs", "intel_pstate", value).from(f("status"));
            out.push(match m.as_str() {
                "off" => s.because(
                    "intel_pstate is switched off: another driver (or none) scales the clock",
                ),
                "passive" => s.because(
                    "passive mode (intel_cpufreq): the generic governors choose the P-state",
                ),
                _ if hwp => s.because(
                    "active mode with hardware P-states: the CPU picks its clock within the \
                     limits below, guided by the energy preference",
                ),
                _ => s.because("active mode: intel_pstate's own algorithm picks the P-state"),
            });
        }
        if let Some(pct) = ip.max_perf_pct {
            let s = Setting::new("cpufreq", "all CPUs", "max_perf_pct", format!("{pct} %"))
                .from(f("max_perf_pct"));
            out.push(if pct < 100 {
                let cap = top_khz
                    .map(|k| {
                        format!(
                            " (about {} MHz of {} MHz)",
                            k * pct as u64 / 100 / 1000,
                            k / 1000
                        )
                    })
                    .unwrap_or_default();
                s.warn(format!(
                    "intel_pstate may not set a P-state above {pct} % of the highest turbo \
                     one{cap}: every benchmark runs capped. Restore it with `echo 100 > \
                     /sys/devices/system/cpu/intel_pstate/max_perf_pct` and find what lowered \
                     it (TLP's CPU_MAX_PERF_ON_AC/BAT, thermald, a power profile daemon)"
                ))
            } else {
                s.ok()
            });
        }
        if let Some(pct) = ip.min_perf_pct {
            out.push(
                Setting::new("cpufreq", "all CPUs", "min_perf_pct", format!("{pct} %"))
                    .from(f("min_perf_pct"))
                    .because("the lowest P-state allowed, % of the highest turbo one"),
            );
        }
        if let Some(nt) = ip.no_turbo {
            let s = Setting::new(
                "cpufreq",
                "all CPUs",
                "no_turbo",
                if nt { "1" } else { "0" },
            )
            .from(f("no_turbo"));
            out.push(if nt && pc.has_turbo() == Some(false) {
                s.because("this CPU has no turbo P-states (turbo_pct 0): nothing is forbidden")
            } else if nt {
                s.warn(
                    "turbo P-states are forbidden: the CPU stays at or below its base clock. \
                     Allow them with `echo 0 > /sys/devices/system/cpu/intel_pstate/no_turbo` \
                     (or measure without turbo on purpose and say so)",
                )
            } else {
                s.ok()
            });
        }
        if let Some(b) = ip.hwp_dynamic_boost {
            out.push(
                Setting::new(
                    "cpufreq",
                    "all CPUs",
                    "hwp_dynamic_boost",
                    if b { "1" } else { "0" },
                )
                .from(f("hwp_dynamic_boost"))
                .because("1 raises the minimum P-state for a while after a task waited for I/O"),
            );
        }
    }
    if let Some(ap) = &pc.amd_pstate {
        if let Some(st) = &ap.status {
            let s = Setting::new("cpufreq", "all CPUs", "amd_pstate", st)
                .from(format!("{AMD_PSTATE_DIR}/status"));
            out.push(match st.as_str() {
                "active" => s.because(
                    "active mode (amd-pstate-epp): the CPU picks its clock, guided by the \
                     energy preference",
                ),
                "disable" => {
                    s.because("amd-pstate is disabled: acpi-cpufreq's few P-states instead")
                }
                _ => s.because("the governor asks for a performance level and the CPU follows"),
            });
        }
        if let Some(p) = &ap.prefcore {
            out.push(
                Setting::new("cpufreq", "all CPUs", "prefcore", p)
                    .from(format!("{AMD_PSTATE_DIR}/prefcore"))
                    .because(
                        "the scheduler puts work on the cores the firmware ranks fastest first",
                    ),
            );
        }
    }
    preferences(&pc.policies, out);
    clocks(&pc.policies, out);
    ranking(&pc.policies, out);
}

/// Each policy's energy preference, one line per distinct value (a per-CPU driver's policies
/// are merged into one cluster, but each may hold its own preference).
fn preferences(policies: &[PolicyPerf], out: &mut Vec<Setting>) {
    let mut groups: Vec<(&str, Vec<&PolicyPerf>)> = Vec::new();
    for p in policies {
        let Some(e) = p.epp.as_deref() else { continue };
        match groups.iter_mut().find(|g| g.0 == e) {
            Some(g) => g.1.push(p),
            None => groups.push((e, vec![p])),
        }
    }
    for (e, ps) in groups {
        let file = format!("{}/energy_performance_preference", ps[0].dir);
        let s =
            Setting::new("cpufreq", subject(&ps), "energy_performance_preference", e).from(&file);
        out.push(if epp_saves_power(e) {
            s.warn(format!(
                "{e}: the hardware favours saving energy over speed when raising the clock, so \
                 benchmarks run slower; write `performance` (or `balance_performance`) to \
                 energy_performance_preference, or set the performance governor, which does \
                 it under intel_pstate"
            ))
        } else {
            s.ok()
        });
    }
}

/// Nominal and boost clocks, one line per distinct pair (eight identical policies are one).
fn clocks(policies: &[PolicyPerf], out: &mut Vec<Setting>) {
    // (nominal, boost) kHz → the policies with them.
    type Clocks = (Option<u64>, Option<u64>);
    let mut groups: Vec<(Clocks, Vec<&PolicyPerf>)> = Vec::new();
    for p in policies
        .iter()
        .filter(|p| p.boost_khz.is_some() || p.nominal_khz.is_some())
    {
        let key = (p.nominal_khz, p.boost_khz);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(p),
            None => groups.push((key, vec![p])),
        }
    }
    for ((nominal, boost), ps) in groups {
        let mhz = |k: Option<u64>| k.map_or("?".to_string(), |k| (k / 1000).to_string());
        let first = ps[0];
        let value = format!("{} MHz base, {} MHz boost", mhz(nominal), mhz(boost));
        out.push(
            Setting::new("cpufreq", subject(&ps), "base and boost clock", value)
                .from(match &first.cppc {
                    Some(c)
                        if first
                            .clocks_from
                            .as_deref()
                            .is_some_and(|f| f.contains("acpi_cppc")) =>
                    {
                        format!("sys/devices/system/cpu/cpu{}/acpi_cppc", c.cpu)
                    }
                    _ => first.dir.clone(),
                })
                .because(format!(
                    "no frequency table: clock checks expect at least the base clock under load \
                     and at most the boost clock ({})",
                    first.clocks_from.as_deref().unwrap_or("")
                )),
        );
    }
}

/// `policy0-7 (cpu0-cpu7)`.
fn subject(ps: &[&PolicyPerf]) -> String {
    let ids: Vec<u32> = ps.iter().map(|p| p.policy).collect();
    let cpus: Vec<u32> = ps.iter().flat_map(|p| p.cpus.iter().copied()).collect();
    format!(
        "policy{} (cpu{})",
        cpulist::format(&ids),
        cpulist::format(&cpus)
    )
}

/// amd-pstate's preferred-core ranking: which CPUs the scheduler fills first.
fn ranking(policies: &[PolicyPerf], out: &mut Vec<Setting>) {
    let ranked: Vec<&PolicyPerf> = policies
        .iter()
        .filter(|p| p.prefcore_ranking.is_some())
        .collect();
    let Some(top) = ranked.iter().filter_map(|p| p.prefcore_ranking).max() else {
        return;
    };
    let low = ranked
        .iter()
        .filter_map(|p| p.prefcore_ranking)
        .min()
        .unwrap_or(top);
    let best: Vec<&PolicyPerf> = ranked
        .iter()
        .copied()
        .filter(|p| p.prefcore_ranking == Some(top))
        .collect();
    let cpus: Vec<u32> = best.iter().flat_map(|p| p.cpus.iter().copied()).collect();
    out.push(
        Setting::new(
            "cpufreq",
            "all CPUs",
            "preferred cores",
            format!("cpu{} rank {top} (lowest {low})", cpulist::format(&cpus)),
        )
        .from(format!("{}/amd_pstate_prefcore_ranking", best[0].dir))
        .because(
            "amd_pstate_prefcore_ranking: the scheduler fills the highest-ranked cores first; \
             a single-thread result is from one of them",
        ),
    );
}
