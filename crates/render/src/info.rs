//! Human-readable rendering of an `Inventory`: `truebench info`, the header of `monitor`, and
//! the topology section of the run's detailed log.

use std::fmt::Write;
use truebench_host::inventory::{Cluster, Inventory};

fn or_unknown(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("unknown")
}

fn mhz(v: Option<u32>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

/// `408-1800 MHz`, saying which end is unknown instead of `307--`.
fn mhz_range(min: Option<u32>, max: Option<u32>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("{a}-{b} MHz"),
        (Some(a), None) => format!("from {a} MHz, maximum unknown"),
        (None, Some(b)) => format!("up to {b} MHz, minimum unknown"),
        (None, None) => "unknown".into(),
    }
}

fn kib(kb: u64) -> String {
    let b = kb as f64 * 1024.0;
    if b >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} GiB", b / (1024.0 * 1024.0 * 1024.0))
    } else if b >= 1024.0 * 1024.0 {
        format!("{:.0} MiB", b / (1024.0 * 1024.0))
    } else {
        format!("{kb} KiB")
    }
}

/// `Cortex-A76 / r4p0`, as sbc-bench's topology table shows a core.
pub fn core_label(core: &Option<String>, stepping: &Option<String>) -> String {
    match (core, stepping) {
        (Some(c), Some(s)) if s.starts_with('r') => format!("{c} / {s}"),
        (Some(c), _) => c.clone(),
        (None, _) => "unknown".into(),
    }
}

/// Machines up to this many CPUs get sbc-bench's table as it is, a row per CPU; bigger ones
/// a row per run of CPUs that read alike (a 192-CPU server's table is 3 rows, not 192).
const TOPOLOGY_ROW_PER_CPU: usize = 16;

/// sbc-bench's `CPU sysfs topology` table.
pub fn topology_table(inv: &Inventory) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "CPU sysfs topology (clusters, cpufreq members, clockspeeds)"
    );
    let rows: Vec<(u32, [String; 5], bool)> = inv
        .cpus
        .iter()
        .map(|c| {
            let cl: Option<&Cluster> = c.cluster.and_then(|i| inv.clusters.get(i));
            let cells = [
                c.cluster.map_or("-".into(), |v| v.to_string()),
                c.policy.map_or("-".into(), |v| v.to_string()),
                mhz(cl.and_then(|c| c.min_mhz)),
                mhz(cl.and_then(|c| c.max_mhz)),
                core_label(&c.core_type, &c.stepping),
            ];
            (c.id, cells, c.online)
        })
        .collect();
    // Runs of consecutive CPUs whose cells and online state are the same.
    let mut runs: Vec<(u32, u32, &[String; 5], bool)> = Vec::new();
    for (id, cells, online) in &rows {
        match runs.last_mut() {
            Some(r)
                if rows.len() > TOPOLOGY_ROW_PER_CPU
                    && r.1 + 1 == *id
                    && r.2 == cells
                    && r.3 == *online =>
            {
                r.1 = *id
            }
            _ => runs.push((*id, *id, cells, *online)),
        }
    }
    let label = |a: u32, b: u32| {
        if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        }
    };
    // The CPU column as wide as its widest range (`128-191`), sbc-bench's 3 otherwise.
    let w = runs
        .iter()
        .map(|r| label(r.0, r.1).len())
        .max()
        .unwrap_or(0)
        .max(3);
    let pad = " ".repeat(w - 3);
    let _ = writeln!(o, "{pad}                 cpufreq   min    max");
    let _ = writeln!(o, "{pad} CPU    cluster  policy   speed  speed   core type");
    for (a, b, cells, online) in runs {
        let _ = writeln!(
            o,
            "{:>w$}{:>9}{:>9}{:>9}{:>8}   {}{}",
            label(a, b),
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            if online { "" } else { "  (offline)" }
        );
    }
    o
}

/// The SoC answer with how sure it is: named (by what), matched by layout, the vendor only.
pub fn soc_line(s: &truebench_host::soc::SocGuess) -> String {
    use truebench_host::soc::SocBasis;
    let how = match s.basis {
        Some(SocBasis::Named { source }) => format!("named by {}", source.label()),
        Some(SocBasis::Layout) if s.candidates.is_empty() => {
            "matched by its core layout, unique among the known chips".to_string()
        }
        Some(SocBasis::Layout) => format!(
            "core layout only, {} known chip{} fit",
            s.candidates.len(),
            if s.candidates.len() == 1 { "" } else { "s" }
        ),
        Some(SocBasis::Vendor) => "the vendor only".to_string(),
        Some(SocBasis::Reported) => "not confirmed by any evidence".to_string(),
        None => "guessed".to_string(),
    };
    format!("{} ({how}; {})", s.display(), s.evidence)
}

/// The identification lines (device, SoC, kernel, distribution, virtualization), shared by
/// `info` and the header of `monitor`.
pub fn identity(inv: &Inventory) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Device:         {}", or_unknown(&inv.device));
    match &inv.soc {
        Some(s) => {
            let _ = writeln!(o, "SoC:            {}", soc_line(s));
        }
        None => {
            let _ = writeln!(o, "SoC:            unknown");
        }
    }
    let _ = writeln!(
        o,
        "Kernel:         {} / {}, Userland: {}",
        or_unknown(&inv.kernel.release),
        or_unknown(&inv.arch.kernel),
        or_unknown(&inv.arch.userland)
    );
    let _ = writeln!(o, "Distribution:   {}", or_unknown(&inv.distro));
    let v = &inv.virtualization;
    let virt = if v.layers.is_empty() {
        "none (bare metal as far as can be seen)".to_string()
    } else {
        v.layers
            .iter()
            .map(|l| format!("{} ({}, from {})", l.name, l.kind, l.evidence))
            .collect::<Vec<_>>()
            .join(" inside ")
    };
    let _ = writeln!(o, "Virtualization: {virt}");
    o
}

pub fn render(inv: &Inventory) -> String {
    let mut o = identity(inv);
    let _ = writeln!(o);
    o.push_str(&topology_table(inv));
    if let Some(l) = &inv.core_layout {
        // Where the table's layout could not be placed, its counts are all that is known.
        let _ = writeln!(
            o,
            "Core types of the {} from the SoC table: {}, {}",
            l.soc,
            l.counts(),
            l.basis
        );
    }

    let _ = writeln!(o);
    for cl in &inv.clusters {
        let _ = writeln!(
            o,
            "Cluster {}: {} ({})",
            cl.id,
            cl.cpu_range(),
            cl.core_type.as_deref().unwrap_or("unknown core type")
        );
        match &cl.driver {
            None => {
                let _ = writeln!(o, "  cpufreq: none");
            }
            Some(d) => {
                let _ = writeln!(
                    o,
                    "  cpufreq: driver {d}, policy{}, governor {} (available: {})",
                    cl.policies
                        .iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .join("/policy"),
                    or_unknown(&cl.governor),
                    if cl.governors.is_empty() {
                        "unknown".into()
                    } else {
                        cl.governors.join(" ")
                    }
                );
                let _ = writeln!(
                    o,
                    "  clock: {} (limits now {}), time_in_state: {}",
                    mhz_range(cl.min_mhz, cl.max_mhz),
                    mhz_range(cl.scaling_min_mhz, cl.scaling_max_mhz),
                    if cl.time_in_state { "yes" } else { "no" }
                );
                if !cl.opps_mhz.is_empty() {
                    let boost: Vec<u32> = cl
                        .boost_khz
                        .iter()
                        .map(|&k| truebench_host::parse::cpufreq::khz_to_mhz(k))
                        .collect();
                    let list: Vec<String> = cl
                        .opps_mhz
                        .iter()
                        .map(|m| {
                            if boost.contains(m) {
                                format!("{m}(boost)")
                            } else {
                                m.to_string()
                            }
                        })
                        .collect();
                    let _ = writeln!(o, "  OPPs (MHz): {}", list.join(" "));
                }
                o.push_str(&crate::perf_control::cluster(inv, cl));
            }
        }
        // A policy spanning two core types is two clusters: its limits are said under the
        // first.
        let earlier = inv.clusters[..cl.id.min(inv.clusters.len())]
            .iter()
            .any(|x| x.policy_dir.is_some() && x.policy_dir == cl.policy_dir);
        for l in cl.opp_limits.iter().filter(|_| !earlier) {
            let _ = writeln!(o, "  OPP limit: {} ({})", l.reason, l.source);
        }
    }
    let global = crate::perf_control::global(inv);
    if !global.is_empty() {
        let _ = writeln!(o);
        o.push_str(&global);
    }

    let _ = writeln!(
        o,
        "Idle states: {}",
        inv.cpuidle
            .as_ref()
            .map_or_else(|| "no cpuidle".to_string(), |c| c.summary())
    );

    let _ = writeln!(o);
    let t = &inv.thermal;
    match &t.chosen {
        Some(c) => {
            let dir = c.path.rsplit_once('/').map_or(c.path.as_str(), |(d, _)| d);
            let _ = writeln!(
                o,
                "Thermal source: /{dir}/ ({}): {:.1}°C — {}",
                c.name, c.temp_c, c.reason
            );
        }
        None => {
            let _ = writeln!(o, "Thermal source: none found");
        }
    }
    if !t.zones.is_empty() {
        let _ = writeln!(o, "Thermal zones:");
        for z in &t.zones {
            let trips: Vec<String> = z
                .trips
                .iter()
                .filter_map(|tp| {
                    Some(format!(
                        "{} {:.1}°C",
                        tp.kind.as_deref().unwrap_or("?"),
                        tp.temp_c?
                    ))
                })
                .collect();
            let _ = writeln!(
                o,
                "  {:<15} {:<22} {:>8}{}",
                z.name,
                z.kind.as_deref().unwrap_or("?"),
                z.temp_c.map_or("n/a".into(), |t| format!("{t:.1}°C")),
                if trips.is_empty() {
                    String::new()
                } else {
                    format!("  trips: {}", trips.join(", "))
                }
            );
        }
    }
    if !t.hwmon.is_empty() {
        let _ = writeln!(o, "Hardware sensors (hwmon):");
        for h in &t.hwmon {
            let _ = writeln!(
                o,
                "  {} {}{}",
                h.dir,
                h.name.as_deref().unwrap_or("?"),
                h.device
                    .as_ref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            );
            for s in &h.sensors {
                let unit = match s.kind.as_str() {
                    "temp" => "°C",
                    "in" => " V",
                    "curr" => " A",
                    "power" => " W",
                    "energy" => " J",
                    "fan" => " RPM",
                    _ => " %RH",
                };
                let _ = writeln!(
                    o,
                    "    {:<8} {:<20} {}",
                    s.input,
                    s.label.as_deref().unwrap_or(""),
                    s.value.map_or("n/a".into(), |v| if s.kind == "temp" {
                        format!("{v:.1}{unit}")
                    } else {
                        format!("{v:.3}{unit}")
                    })
                );
            }
            for (a, v) in &h.alarms {
                let _ = writeln!(o, "    {a} = {v}");
            }
        }
    }

    let _ = writeln!(o);
    let m = &inv.memory;
    let _ = writeln!(
        o,
        "Memory: {} total, {} available, page size {}",
        m.total_kb.map_or("unknown".into(), kib),
        m.available_kb.map_or("unknown".into(), kib),
        m.page_size
            .map_or("unknown".into(), |p| format!("{} KiB", p / 1024))
    );
    if inv.swap.devices.is_empty() {
        let _ = writeln!(o, "Swap: none");
    }
    for d in &inv.swap.devices {
        let _ = writeln!(
            o,
            "Swap: {} ({}{}{}), {} of {} used, priority {}",
            d.filename,
            d.kind,
            d.algorithm
                .as_ref()
                .map(|a| format!(", {a}"))
                .unwrap_or_default(),
            d.storage
                .as_ref()
                .filter(|_| d.kind != "zram")
                .map(|s| format!(
                    " on {s}{}",
                    d.disk.as_ref().map(|x| format!(" {x}")).unwrap_or_default()
                ))
                .unwrap_or_default(),
            kib(d.used_kb),
            kib(d.size_kb),
            d.priority
        );
    }
    match &inv.swap.zswap {
        Some(z) => {
            let _ = writeln!(
                o,
                "zswap: {}{}",
                if z.enabled { "enabled" } else { "disabled" },
                z.compressor
                    .as_ref()
                    .map(|c| format!(", compressor {c}"))
                    .unwrap_or_default()
            );
        }
        None => {
            let _ = writeln!(o, "zswap: not available");
        }
    }
    if !inv.missing.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "Not available on this machine (or this root):");
        for mi in &inv.missing {
            let _ = writeln!(o, "  - {}: {}", mi.what, mi.reason);
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_limit_is_named_not_dashed() {
        assert_eq!(mhz_range(Some(408), Some(1800)), "408-1800 MHz");
        assert_eq!(mhz_range(Some(307), None), "from 307 MHz, maximum unknown");
        assert_eq!(
            mhz_range(None, Some(1800)),
            "up to 1800 MHz, minimum unknown"
        );
        assert_eq!(mhz_range(None, None), "unknown");
    }

    /// An imported cluster (no cpufreq driver in the document) still shows its OPP limits.
    #[test]
    fn opp_limits_are_listed_under_their_cluster() {
        use truebench_host::inventory::Cluster;
        use truebench_host::opp::{Limit, OppLimit};
        let mut inv = Inventory::probe(&truebench_host::Host::new("/nonexistent"));
        inv.clusters = vec![Cluster {
            cpus: vec![4, 5],
            opp_limits: vec![OppLimit {
                opps_mhz: vec![2400],
                limit: Limit::NotOffered,
                reason: "2400 MHz is in the device tree but not offered".into(),
                source: "sbc-bench log: cpufreq-policy4 line".into(),
            }],
            ..Default::default()
        }];
        let text = render(&inv);
        assert!(
            text.contains("  OPP limit: 2400 MHz is in the device tree but not offered (sbc-bench log: cpufreq-policy4 line)"),
            "{text}"
        );
    }
}
