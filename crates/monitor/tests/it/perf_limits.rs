//! Driver limits while measuring, on the i7-1165G7 laptop of util-linux's Linux 6.2 dump
//! (intel_pstate with HWP, eight policies): the snapshots read intel_pstate's limits and each
//! policy's energy preference, and the detectors name a limit that held — the recorded
//! laptop's own `balance_power` preference, and `max_perf_pct`/`no_turbo` set midway — and
//! the phases it held in.

use std::fs;
use std::path::Path;
use truebench_host::{Host, Inventory};
use truebench_model::finding::{FindingKind, Severity};
use truebench_model::timeline::Timeline;
use truebench_monitor::capture::{snapshot_with, SnapshotOptions};
use truebench_monitor_core::detect::phases::{attribute, marks, PhaseEvidence};
use truebench_monitor_core::detect::{detect_all, render_findings};
use truebench_monitor_core::evidence::Snapshot;
use truebench_monitor_core::kmsg::KernelLog;

const NAME: &str = "x86_64-64cpu-linux6.2";

fn set(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    let _ = fs::remove_file(&p);
    fs::write(&p, text).unwrap();
}

fn snap(host: &Host, inv: &Inventory) -> Snapshot {
    let o = SnapshotOptions {
        skip_processes: true,
        ..Default::default()
    };
    snapshot_with(host, inv, &o)
}

fn epp_all(root: &Path, value: &str) {
    for n in 0..8 {
        let f = format!("sys/devices/system/cpu/cpufreq/policy{n}/energy_performance_preference");
        set(root, &f, value);
    }
}

#[test]
fn the_snapshot_reads_the_limits() {
    let d = truebench_fixtures::sysfs_dump(NAME);
    let host = Host::new(d.path().join(NAME));
    let inv = Inventory::probe(&host);
    let l = snap(&host, &inv)
        .perf_limits
        .expect("intel_pstate is there");
    assert_eq!(
        (l.max_perf_pct, l.min_perf_pct, l.no_turbo),
        (Some(100), Some(8), Some(false))
    );
    assert_eq!(l.epp.len(), 8);
    assert!(l.epp.iter().all(|(_, e)| e == "balance_power"));
    // An acpi-cpufreq machine has none, and reads none of these files.
    let d = truebench_fixtures::sysfs_dump("x86_64-dell_e4310");
    let host = Host::new(d.path().join("x86_64-dell_e4310"));
    assert_eq!(snap(&host, &Inventory::probe(&host)).perf_limits, None);
}

#[test]
fn the_recorded_laptops_balance_power_preference_is_a_finding() {
    let d = truebench_fixtures::sysfs_dump(NAME);
    let root = d.path().join(NAME);
    let host = Host::new(&root);
    let inv = Inventory::probe(&host);
    let s = snap(&host, &inv);
    let f = detect_all(
        &inv,
        &s,
        &s,
        &Timeline::default(),
        &KernelLog::Lines(vec![]),
    );
    let perf: Vec<_> = f
        .iter()
        .filter(|x| x.kind == FindingKind::PerfLimit)
        .collect();
    assert_eq!(perf.len(), 1, "{}", render_findings(&f));
    assert_eq!(perf[0].severity, Severity::Warning);
    assert!(
        perf[0].message.contains("(balance_power) held on 8 of 8"),
        "{}",
        perf[0].message
    );
    assert_eq!(
        perf[0].evidence,
        ["energy_performance_preference of policy0-7: balance_power"]
    );
    // The performance governor's preference: nothing to say.
    epp_all(&root, "performance\n");
    let s = snap(&host, &inv);
    let f = detect_all(
        &inv,
        &s,
        &s,
        &Timeline::default(),
        &KernelLog::Lines(vec![]),
    );
    assert!(
        !f.iter().any(|x| x.kind == FindingKind::PerfLimit),
        "{}",
        render_findings(&f)
    );
}

#[test]
fn a_limit_set_in_the_second_phase_marks_that_phase_only() {
    let d = truebench_fixtures::sysfs_dump(NAME);
    let root = d.path().join(NAME);
    epp_all(&root, "performance\n");
    let host = Host::new(&root);
    let inv = Inventory::probe(&host);
    let s0 = snap(&host, &inv);
    let s1 = snap(&host, &inv);
    set(
        &root,
        "sys/devices/system/cpu/intel_pstate/max_perf_pct",
        "60\n",
    );
    set(&root, "sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
    let s2 = snap(&host, &inv);
    let tl = Timeline::default();
    let log = KernelLog::Lines(vec![]);
    let mut f = detect_all(&inv, &s0, &s2, &tl, &log);
    let perf: Vec<_> = f
        .iter()
        .filter(|x| x.kind == FindingKind::PerfLimit)
        .collect();
    assert_eq!(perf.len(), 2, "{}", render_findings(&f));
    assert!(
        perf[0].message.contains("max_perf_pct was 60 %"),
        "{}",
        perf[0].message
    );
    assert!(perf[0].message.contains("Write 100 to"), "says what to do");
    assert_eq!(
        perf[0].evidence,
        ["sys/devices/system/cpu/intel_pstate/max_perf_pct: 100 % at the start, 60 % at the end"]
    );
    assert!(
        perf[1].message.contains("no_turbo was set"),
        "{}",
        perf[1].message
    );
    let phases = [
        PhaseEvidence {
            name: "memory",
            start: 0.0,
            end: 10.0,
            before: &s0,
            after: &s1,
            log: &[],
        },
        PhaseEvidence {
            name: "7-zip",
            start: 10.0,
            end: 20.0,
            before: &s1,
            after: &s2,
            log: &[],
        },
    ];
    attribute(&inv, &tl, &phases, &mut f);
    assert!(marks(&f, "memory").is_empty(), "{:?}", marks(&f, "memory"));
    assert_eq!(marks(&f, "7-zip"), ["perf_limit"]);
}
