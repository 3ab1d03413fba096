//! The inventory's x86/ACPI performance control as `info` text: intel_pstate's and
//! amd-pstate's global settings once, and per cluster its policies' energy preferences,
//! base and boost clocks, CPPC levels and preferred-core ranking.

use std::fmt::Write;
use truebench_host::inventory::{Cluster, Inventory, PolicyPerf};
use truebench_host::parse::cpulist;

fn flag(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "1",
        Some(false) => "0",
        None => "?",
    }
}

fn num<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("?".into(), |v| v.to_string())
}

/// intel_pstate's and amd-pstate's global settings; empty without them.
pub fn global(inv: &Inventory) -> String {
    let mut o = String::new();
    let Some(pc) = &inv.perf_control else {
        return o;
    };
    if let Some(ip) = &pc.intel_pstate {
        let hwp = pc.policies.iter().any(|p| p.hwp == Some(true));
        let mode = ip
            .status
            .clone()
            .or_else(|| pc.policies.iter().find_map(|p| p.mode.clone()))
            .unwrap_or_else(|| "mode unknown".into());
        let _ = write!(
            o,
            "intel_pstate: {mode}{}, max_perf_pct {} %, min_perf_pct {} %, no_turbo {}",
            if hwp { " with HWP" } else { "" },
            num(ip.max_perf_pct),
            num(ip.min_perf_pct),
            flag(ip.no_turbo),
        );
        if ip.hwp_dynamic_boost.is_some() {
            let _ = write!(o, ", hwp_dynamic_boost {}", flag(ip.hwp_dynamic_boost));
        }
        if let (Some(n), Some(t)) = (ip.num_pstates, ip.turbo_pct) {
            let _ = write!(o, ", {n} P-states ({t} % turbo)");
        }
        let _ = writeln!(o);
    }
    if let Some(ap) = &pc.amd_pstate {
        let _ = writeln!(
            o,
            "amd-pstate: {}, preferred cores {}",
            ap.status.as_deref().unwrap_or("mode unknown"),
            ap.prefcore.as_deref().unwrap_or("unknown")
        );
    }
    o
}

/// Values shared by the cluster's policies, or their range: `balance_power` or
/// `performance (policy0) / power (policy3)`.
fn shared<T: PartialEq + Clone>(
    ps: &[&PolicyPerf],
    f: impl Fn(&PolicyPerf) -> Option<T>,
    show: impl Fn(&T) -> String,
) -> Option<String> {
    let mut groups: Vec<(T, Vec<u32>)> = Vec::new();
    for p in ps {
        let Some(v) = f(p) else { continue };
        match groups.iter_mut().find(|g| g.0 == v) {
            Some(g) => g.1.push(p.policy),
            None => groups.push((v, vec![p.policy])),
        }
    }
    match groups.len() {
        0 => None,
        1 => Some(show(&groups[0].0)),
        _ => Some(
            groups
                .iter()
                .map(|(v, ids)| format!("{} (policy{})", show(v), cpulist::format(ids)))
                .collect::<Vec<_>>()
                .join(" / "),
        ),
    }
}

/// The lines of one cluster (indented like its cpufreq lines); empty without a record.
pub fn cluster(inv: &Inventory, cl: &Cluster) -> String {
    let mut o = String::new();
    let Some(pc) = &inv.perf_control else {
        return o;
    };
    let ps: Vec<&PolicyPerf> = pc
        .policies
        .iter()
        .filter(|p| cl.policies.contains(&p.policy))
        .collect();
    let Some(first) = ps.first() else {
        return o;
    };
    if let Some(e) = shared(&ps, |p| p.epp.clone(), |e| e.clone()) {
        let _ = writeln!(
            o,
            "  energy preference: {e} (available: {})",
            if first.epps.is_empty() {
                "not listed".into()
            } else {
                first.epps.join(" ")
            }
        );
    }
    let mhz = |k: &u64| format!("{} MHz", k / 1000);
    let base = shared(&ps, |p| p.nominal_khz, mhz);
    let boost = shared(&ps, |p| p.boost_khz, mhz);
    if base.is_some() || boost.is_some() {
        let _ = writeln!(
            o,
            "  base clock {}, boost clock {} ({})",
            base.as_deref().unwrap_or("unknown"),
            boost.as_deref().unwrap_or("unknown"),
            first.clocks_from.as_deref().unwrap_or("")
        );
    }
    if let Some(c) = &first.cppc {
        let freq = |v: Option<u64>| v.map_or("0 (not given)".into(), |m| format!("{m} MHz"));
        let _ = writeln!(
            o,
            "  ACPI CPPC (cpu{}): highest_perf {}, nominal_perf {}, lowest_nonlinear_perf {}, \
             lowest_perf {}, nominal_freq {}",
            c.cpu,
            num(c.highest_perf),
            num(c.nominal_perf),
            num(c.lowest_nonlinear_perf),
            num(c.lowest_perf),
            freq(c.nominal_mhz),
        );
    }
    if let Some(r) = shared(&ps, |p| p.prefcore_ranking, |r| r.to_string()) {
        let _ = writeln!(o, "  preferred-core ranking: {r}");
    }
    if let Some(h) = first.amd_highest_perf {
        let _ = writeln!(
            o,
            "  amd-pstate: highest_perf {h}, max {}, lowest non-linear {}",
            first.amd_max_khz.map_or("?".into(), |k| mhz(&k)),
            first
                .amd_lowest_nonlinear_khz
                .map_or("?".into(), |k| mhz(&k)),
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use std::fs;
    use truebench_host::{Host, Inventory};

    fn info_of(root: &std::path::Path) -> String {
        crate::info::render(&Inventory::probe(&Host::new(root)))
    }

    /// The i7-1165G7 laptop of util-linux's Linux 6.2 dump, as recorded and with one of its
    /// eight policies set to `power`.
    #[test]
    fn intel_pstate_laptop_as_info_shows_it() {
        let d = truebench_fixtures::sysfs_dump("x86_64-64cpu-linux6.2");
        let root = d.path().join("x86_64-64cpu-linux6.2");
        let text = info_of(&root);
        for line in [
            "  energy preference: balance_power (available: default performance balance_performance balance_power power)\n",
            "  base clock 1200 MHz, boost clock 4700 MHz (intel_pstate base_frequency;",
            "  ACPI CPPC (cpu0): highest_perf 47, nominal_perf 28, lowest_nonlinear_perf 13, lowest_perf 1, nominal_freq 0 (not given)\n",
            "\nintel_pstate: active with HWP, max_perf_pct 100 %, min_perf_pct 8 %, no_turbo 0, hwp_dynamic_boost 0, 44 P-states (80 % turbo)\n",
        ] {
            assert!(text.contains(line), "no {line:?} in\n{text}");
        }
        let f = root.join("sys/devices/system/cpu/cpufreq/policy3/energy_performance_preference");
        fs::remove_file(&f).unwrap();
        fs::write(&f, "power\n").unwrap();
        let text = info_of(&root);
        assert!(
            text.contains("  energy preference: balance_power (policy0-2,4-7) / power (policy3)"),
            "{text}"
        );
    }

    #[test]
    fn acpi_cpufreq_machine_has_no_lines() {
        let d = truebench_fixtures::sysfs_dump("x86_64-dell_e4310");
        let text = info_of(&d.path().join("x86_64-dell_e4310"));
        assert!(
            !text.contains("intel_pstate:") && !text.contains("base clock"),
            "{text}"
        );
    }
}
