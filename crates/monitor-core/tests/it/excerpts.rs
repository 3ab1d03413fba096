//! Detectors on real excerpts of sbc-bench logs and its README (tests/data/excerpts, see the
//! README there for sources and licence).

use std::path::PathBuf;

use truebench_host::{Host, Inventory};
use truebench_model::finding::{FindingKind, Severity};
use truebench_model::timeline::{CpuPct, RpiSample, Sample, Timeline, TimelineHeader};
use truebench_monitor_core::detect::{
    activity, cores, kernel_log, memory, power, rpi, thermal, throttling,
};
use truebench_monitor_core::evidence::PolicyStats;

fn excerpt(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/excerpts")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn lines(name: &str) -> Vec<String> {
    excerpt(name).lines().map(str::to_string).collect()
}

fn inventory(root: &str) -> (tempfile::TempDir, Inventory) {
    let d = truebench_fixtures::root(root);
    let inv = Inventory::probe(&Host::new(d.path()));
    (d, inv)
}

/// sbc-bench's "Throttling statistics" table → `(MHz, seconds)` rows and its header.
fn parse_table(text: &str) -> Vec<(String, Vec<(u64, f64)>)> {
    let mut out: Vec<(String, Vec<(u64, f64)>)> = Vec::new();
    for l in text.lines() {
        if l.starts_with("Throttling statistics") {
            out.push((l.to_string(), Vec::new()));
        } else if let Some((mhz, rest)) = l.split_once(" MHz:") {
            let secs = rest.trim().trim_end_matches(" sec").trim();
            out.last_mut()
                .unwrap()
                .1
                .push((mhz.trim().parse().unwrap(), secs.parse().unwrap()));
        }
    }
    out
}

/// Policy statistics whose difference is exactly the table (ticks = seconds × 100).
fn policies_for(rows: &[(u64, f64)], policy: u32, cluster: usize) -> (PolicyStats, PolicyStats) {
    let max_khz = rows.iter().map(|r| r.0 * 1000).max().unwrap();
    let mk = |tis: Vec<(u64, u64)>| PolicyStats {
        policy,
        cluster: Some(cluster),
        dir: format!("sys/devices/system/cpu/cpufreq/policy{policy}"),
        governor: Some("performance".into()),
        scaling_max_khz: Some(max_khz),
        cpuinfo_max_khz: Some(max_khz),
        time_in_state: tis,
        total_trans: None,
    };
    let before = mk(rows.iter().map(|r| (r.0 * 1000, 1000)).collect());
    let after = mk(rows
        .iter()
        .map(|r| (r.0 * 1000, 1000 + (r.1 * 100.0).round() as u64))
        .collect());
    (before, after)
}

#[test]
fn throttling_tables_render_exactly_like_sbc_bench_rock5b() {
    let text = excerpt("throttling-41BH-rock5b.txt");
    let (_d, inv) = inventory("rk3588-rock5b");
    let tables = parse_table(&text);
    assert_eq!(tables.len(), 3);
    let mut rendered = Vec::new();
    for (i, (policy, cluster)) in [(0u32, 0usize), (4, 1), (6, 2)].into_iter().enumerate() {
        let (b, a) = policies_for(&tables[i].1, policy, cluster);
        let t = throttling::opp_table(&inv, &b, &a).unwrap();
        assert_eq!(t.render()[0], tables[i].0);
        rendered.extend(t.render());
        rendered.push(String::new());
    }
    assert_eq!(
        rendered.join("\n"),
        text.trim_end_matches('\n').to_string() + "\n"
    );
}

#[test]
fn single_cluster_table_has_no_label_and_is_throttling_with_performance_governor() {
    let text = excerpt("throttling-1Rnj-single-cluster.txt");
    let tables = parse_table(&text);
    let (_d, inv) = inventory("rpi4b"); // one cluster: no "for CPUs" label
    let (b, a) = policies_for(&tables[0].1, 0, 0);
    let t = throttling::opp_table(&inv, &b, &a).unwrap();
    assert_eq!(t.render().join("\n"), text.trim_end());
    assert_eq!(t.reference_khz, 2091000);
    assert_eq!(t.below_ticks(), 97003);
    // 970 s at 1785 of 2091 MHz: 14.6 % of the clock lost.
    assert!((t.lost_fraction() - (1.0 - 1785.0 / 2091.0)).abs() < 1e-6);
}

#[test]
fn killed_cores_in_samsung_prefixed_log() {
    let l = lines("dmesg-46hs-pxa1908-killed-cores.txt");
    let (cpus, ev) = cores::killed_in_log(&l);
    assert_eq!(cpus, [2]);
    assert_eq!(ev.len(), 9, "{ev:?}");
    assert!(ev[0].ends_with("CPU2: shutdown"));
    let snap = truebench_monitor_core::evidence::Snapshot::default();
    let f = cores::killed_cores(&snap, &snap, &l);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, FindingKind::KilledCores);
    assert_eq!(f[0].severity, Severity::Critical);
    assert!(f[0].message.contains("CPU core(s) 2"), "{}", f[0].message);
}

#[test]
fn vim3_killed_cores_and_trip() {
    let l = lines("dmesg-readme-vim3-killed-cores.txt");
    let (cpus, _) = cores::killed_in_log(&l);
    assert_eq!(cpus, [1, 3]);
    let t = thermal::thermal_trip(&l);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].kind, FindingKind::ThermalTrip);
    // A trip crossing, not a critical temperature.
    assert_eq!(t[0].severity, Severity::Warning);
    assert!(t[0].message.contains("1 time"), "{}", t[0].message);
    assert!(t[0]
        .evidence
        .iter()
        .any(|e| e.contains("trip_temp:90000, hot:1")));
    assert!(t[0].evidence.iter().any(|e| e.contains("decrease")));
    assert!(power::undervoltage_log(&l).is_empty());
    assert!(memory::oom_kill(&l).is_empty());
}

#[test]
fn oom_killer_three_invocations_and_no_other_alarm() {
    let l = lines("dmesg-44Lq-imx8mm-oom.txt");
    let f = memory::oom_kill(&l);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, FindingKind::OomKill);
    assert!(
        f[0].message.contains("invoked 3 time(s)"),
        "{}",
        f[0].message
    );
    assert!(f[0]
        .evidence
        .iter()
        .any(|e| e.contains("Killed process 7412 (7za)")));
    // Backtraces and task dumps stay out of the evidence.
    assert!(!f[0].evidence.iter().any(|e| e.contains("dump_backtrace")));
    // "CPU: 2 PID: 7519 Comm: 7za" is not a killed core.
    assert!(cores::killed_in_log(&l).0.is_empty());
    assert!(thermal::thermal_trip(&l).is_empty());
    assert!(power::undervoltage_log(&l).is_empty());
}

#[test]
fn fan_trip_is_not_a_thermal_zone_trip() {
    let l = lines("dmesg-3OKN-jetson-fan-trip.txt");
    assert!(thermal::thermal_trip(&l).is_empty());
}

#[test]
fn rpi4_undervoltage_events() {
    let l = lines("dmesg-readme-rpi4-undervoltage.txt");
    let f = power::undervoltage_log(&l);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, FindingKind::Undervoltage);
    assert!(
        f[0].message.contains("11 under-voltage"),
        "{}",
        f[0].message
    );
    assert_eq!(f[0].evidence.len(), 22);
    assert!(kernel_log::contains_ci(
        &f[0].evidence[1],
        "Voltage normalised"
    ));
}

#[test]
fn rpi_binary_value_from_sbc_bench_log() {
    let text = excerpt("rpi-3Llk-throttled.txt");
    let value = text
        .lines()
        .find_map(rpi::parse_binary)
        .expect("binary value in the excerpt");
    assert_eq!(value, 0xE0000);
    assert_eq!(
        rpi::decode(value),
        [
            "arm frequency capping has occurred",
            "throttling has occurred",
            "soft temperature limit has occurred"
        ]
    );
    // sbc-bench's old legend puts "currently throttled" on bit 1 and "arm frequency
    // capped" on bit 2 (for a 19-digit value) — officially the other way round.
    let legend_col = |label: &str| -> usize {
        let l = text.lines().find(|l| l.ends_with(label)).unwrap();
        l.rfind('|').unwrap()
    };
    let bit_under_19_digits = |col: usize| 18 - col as u32;
    assert_eq!(bit_under_19_digits(legend_col("_ under-voltage")), 0);
    assert_eq!(bit_under_19_digits(legend_col("_ currently throttled")), 1);
    assert_eq!(bit_under_19_digits(legend_col("_ arm frequency capped")), 2);
    assert_eq!(rpi::BITS[1].text, "arm frequency capped");
    assert_eq!(rpi::BITS[2].text, "currently throttled");
}

/// Parse sbc-bench monitoring tables into a timeline: one phase per "System health while
/// running X:" block, `threads(X)` giving its parallelism.
fn parse_monitoring(text: &str, threads: impl Fn(&str) -> Option<u32>) -> Timeline {
    let mut tl = Timeline::new(TimelineHeader::default());
    let mut pending: Option<(String, Option<u32>)> = None;
    let mut fake_real = false;
    let mut day = 0.0;
    let mut last = -1.0;
    for l in text.lines() {
        if let Some(name) = l
            .strip_prefix("System health while running ")
            .and_then(|r| r.strip_suffix(':'))
        {
            pending = Some((name.to_string(), threads(name)));
            continue;
        }
        if l.starts_with("Time") {
            fake_real = l.contains("fake/real");
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 10 || !f[0].ends_with(':') || f[0].len() != 9 {
            continue;
        }
        let hms: Vec<f64> = f[0]
            .trim_end_matches(':')
            .split(':')
            .map(|x| x.parse().unwrap())
            .collect();
        let mut t = hms[0] * 3600.0 + hms[1] * 60.0 + hms[2] + day;
        if t < last {
            day += 86400.0;
            t += 86400.0;
        }
        last = t;
        let clocks: Vec<u32> = f[1]
            .trim_end_matches("MHz")
            .split('/')
            .map(|c| c.parse().unwrap())
            .collect();
        let pct = |i: usize| f[i].trim_end_matches('%').parse::<f64>().unwrap();
        let mut s = Sample {
            t,
            load1: f[2].parse().ok(),
            cpu: Some(CpuPct {
                cpu: pct(3),
                sys: pct(4),
                usr: pct(5),
                nice: pct(6),
                io: pct(7),
                irq: pct(8),
                steal: 0.0,
            }),
            soc_temp_c: f[9].trim_end_matches("°C").parse().ok(),
            ..Default::default()
        };
        if fake_real {
            s.cluster_mhz = vec![Some(clocks[0])];
            s.rpi = Some(RpiSample {
                arm_mhz: Some(clocks[1] as f64),
                core_volts: f.get(10).and_then(|v| v.trim_end_matches('V').parse().ok()),
                ..Default::default()
            });
        } else {
            s.cluster_mhz = clocks.into_iter().map(Some).collect();
        }
        if let Some((name, th)) = pending.take() {
            tl.begin_phase(&name, t, th);
        }
        tl.samples.push(s);
    }
    let end = last + 1.0;
    tl.end_phase(end);
    tl
}

fn sbc_bench_threads(ncpus: u32) -> impl Fn(&str) -> Option<u32> {
    move |name| match name {
        "tinymembench" | "ramlat" | "OpenSSL benchmark" | "7-zip single core benchmark" => Some(1),
        "7-zip multi core benchmark" | "cpuminer" => Some(ncpus),
        _ => None,
    }
}

#[test]
fn background_activity_on_opi_zero2w() {
    let (_d, inv) = inventory("h616-opizero2"); // H616/H618, 4 cores like the Zero2w
    assert_eq!(inv.online_cpus().count(), 4);
    let tl = parse_monitoring(&excerpt("monitor-4MLz-opizero2w.txt"), sbc_bench_threads(4));
    assert_eq!(tl.phases.len(), 6);
    let all = activity::background_activity(&inv, &tl, &[]);
    // Floored readings near the tolerance are said to be undecidable (info); the flags:
    let f: Vec<_> = all.into_iter().filter(|f| !f.undecidable).collect();
    let phases: Vec<&str> = f
        .iter()
        .map(|f| f.message.split('\'').nth(1).unwrap())
        .collect();
    // sbc-bench: "Too much other background activity: 3% avg, 28% max": the ramlat burst.
    assert_eq!(phases, ["ramlat"], "{f:#?}");
    assert_eq!(f[0].severity, Severity::Critical);
    assert!(f[0]
        .evidence
        .iter()
        .any(|e| e.contains("cpu 52%") && e.contains("nice 23%")));
    // sbc-bench: "Too much background activity (%system): 1% avg, 30% max" — the 7-zip
    // peak. The ramlat burst's %sys (0 0 0 0 1 1 3 7 0 1, whole percent) is 0.7 % on time
    // average without its 7 % spike, 0.7–1.7 as floored readings: the tolerance (1.5 for one
    // of four CPUs) lies inside, so undecidable, not flagged; the burst itself is the
    // background finding above.
    let s: Vec<_> = activity::system_activity(&tl, &[])
        .into_iter()
        .filter(|f| !f.undecidable)
        .collect();
    let sys_phases: Vec<&str> = s
        .iter()
        .map(|f| f.message.split('\'').nth(1).unwrap())
        .collect();
    assert_eq!(sys_phases, ["7-zip multi core benchmark"], "{s:#?}");
    assert!(s[0].message.contains("up to 30.0 %"), "{}", s[0].message);
}

#[test]
fn background_activity_on_helios64() {
    // No fixture root has the Helios64's six cores: without an inventory the detector takes
    // the CPU count from the samples.
    let empty = Inventory::probe(&Host::new("/nonexistent-root"));
    let mut tl = parse_monitoring(&excerpt("monitor-4LtI-helios64.txt"), sbc_bench_threads(6));
    for s in &mut tl.samples {
        s.cpus_online = Some(6);
    }
    let f: Vec<_> = activity::background_activity(&empty, &tl, &[])
        .into_iter()
        .filter(|f| !f.undecidable)
        .collect();
    let phases: Vec<&str> = f
        .iter()
        .map(|f| f.message.split('\'').nth(1).unwrap())
        .collect();
    // sbc-bench: "Too much other background activity: 29% avg, 83% max".
    assert_eq!(
        phases,
        ["tinymembench", "7-zip single core benchmark"],
        "{f:#?}"
    );
    assert!(f.iter().all(|f| f.severity == Severity::Critical));
    assert!(f[0].message.contains("up to 82 %"), "{}", f[0].message);
}

#[test]
fn tinkerboard_clock_falls_while_hot() {
    let (_d, inv) = inventory("rpi4b"); // four cores, one cluster, like the Tinkerboard
    let tl = parse_monitoring(
        &excerpt("monitor-readme-tinkerboard-throttling.txt"),
        sbc_bench_threads(4),
    );
    assert_eq!(tl.phases.len(), 5);
    let f = throttling::hot_clock_drops(&inv, &tl);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].kind, FindingKind::Throttling);
    assert_eq!(f[0].severity, Severity::Critical);
    assert!(f[0]
        .evidence
        .iter()
        .any(|e| e.contains("1200MHz") && e.contains("75.8°C")));
}

#[test]
fn rpi3b_firmware_clock_falls_while_kernel_clock_stays() {
    let (_d, inv) = inventory("rpi4b");
    let tl = parse_monitoring(
        &excerpt("monitor-readme-rpi3b-fake-real.txt"),
        sbc_bench_threads(4),
    );
    let f = throttling::hot_clock_drops(&inv, &tl);
    assert_eq!(f.len(), 1, "{f:#?}");
    // The first line says where "hot" starts; the drops follow.
    assert!(f[0].evidence[0].starts_with("hot threshold 60 °C"));
    assert!(
        f[0].evidence[1].contains("1034 MHz vs 1200 MHz")
            && f[0].evidence[1].contains("(firmware 1034MHz)"),
        "{:?}",
        f[0].evidence
    );
}

#[test]
fn quiet_tables_raise_nothing() {
    // Single-threaded phases without background must stay silent: the 4MLz tinymembench and
    // OpenSSL blocks alone.
    let text = excerpt("monitor-4MLz-opizero2w.txt");
    let quiet: String = text
        .split("System health while running ")
        .filter(|b| b.starts_with("tinymembench:") || b.starts_with("OpenSSL benchmark:"))
        .map(|b| format!("System health while running {b}"))
        .collect();
    let (_d, inv) = inventory("h616-opizero2");
    let tl = parse_monitoring(&quiet, sbc_bench_threads(4));
    assert_eq!(tl.phases.len(), 2);
    // Nothing flagged; what the floored readings cannot decide is said as such (info).
    let f = activity::background_activity(&inv, &tl, &[]);
    assert!(
        f.iter()
            .all(|f| f.undecidable && f.severity == Severity::Info),
        "{f:#?}"
    );
    let s = activity::system_activity(&tl, &[]);
    assert!(
        s.iter()
            .all(|f| f.undecidable && f.severity == Severity::Info),
        "{s:#?}"
    );
    assert!(throttling::hot_clock_drops(&inv, &tl).is_empty());
}
