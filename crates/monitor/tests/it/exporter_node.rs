//! The exporter's node_exporter families: names, labels and values on procfs' own fixtures
//! (Prometheus' test data, Apache-2.0, tests/data/prometheus), the families a sensorless
//! machine still exports, and `promtool check metrics` on whole scrapes (parsed without
//! error; its only lint complaints are node_exporter's own camelCase meminfo names).

use truebench_host::{Host, Inventory};
use truebench_monitor::exporter::Exporter;

fn scrape(host: &Host, om: bool) -> String {
    let inv = Inventory::probe(host);
    Exporter::new(host, &inv).scrape(om)
}

/// The value of the sample line that starts with `prefix ` (name and labels).
fn value(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn node_exporter_families_on_procfs_fixtures() {
    let dir = truebench_fixtures::prometheus_procfs();
    let host = Host::new(dir.path().join("fixtures"));
    let t = scrape(&host, false);
    // proc/stat: cpu0 44490 19 21045 1087069 220 1 3410 0 0 0 (USER_HZ = 100).
    assert_eq!(
        value(&t, r#"node_cpu_seconds_total{cpu="0",mode="user"}"#),
        Some(444.9)
    );
    assert_eq!(
        value(&t, r#"node_cpu_seconds_total{cpu="0",mode="idle"}"#),
        Some(10870.69)
    );
    assert_eq!(
        value(&t, r#"node_cpu_seconds_total{cpu="1",mode="iowait"}"#),
        Some(5.91)
    );
    assert!(t.contains("# TYPE node_cpu_seconds_total counter\n"));
    // proc/loadavg: 0.02 0.04 0.05.
    assert_eq!(value(&t, "node_load1"), Some(0.02));
    assert_eq!(value(&t, "node_load5"), Some(0.04));
    assert_eq!(value(&t, "node_load15"), Some(0.05));
    // proc/meminfo: MemTotal 15666184 kB.
    assert_eq!(
        value(&t, "node_memory_MemTotal_bytes"),
        Some(15666184.0 * 1024.0)
    );
    assert!(
        t.contains("# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.\n")
    );
    // proc/pressure/io: some total=15, full total=25 (µs).
    assert_eq!(
        value(&t, "node_pressure_io_waiting_seconds_total"),
        Some(15e-6)
    );
    assert_eq!(
        value(&t, "node_pressure_io_stalled_seconds_total"),
        Some(25e-6)
    );
    // OpenMetrics: counter families lose `_total`, samples keep it, and it ends in # EOF.
    let om = scrape(&host, true);
    assert!(om.contains("# TYPE node_cpu_seconds counter\n"));
    assert!(om.ends_with("# EOF\n"));
    promtool(&t, "procfs fixtures");
}

#[test]
fn a_sensorless_machine_still_exports_what_node_exporter_users_expect() {
    let t = scrape(&Host::live(), false);
    for family in [
        "node_cpu_seconds_total",
        "node_load1",
        "node_load5",
        "node_load15",
        "node_memory_MemTotal_bytes",
        "node_memory_MemAvailable_bytes",
        "node_memory_SwapTotal_bytes",
    ] {
        assert!(
            t.contains(&format!("# TYPE {family} ")),
            "{family} missing:\n{t}"
        );
    }
    let families = t.lines().filter(|l| l.starts_with("# TYPE ")).count();
    assert!(families >= 20, "{families} families:\n{t}");
    promtool(&t, "this machine");
}

/// `promtool check metrics` on a scrape (the check is shared: `truebench_fixtures::farm`).
fn promtool(text: &str, what: &str) {
    truebench_fixtures::farm::promtool_check(text, what);
}

/// A machine whose /proc/stat is longer than 64 KiB (1200 CPUs up a year: about 75 bytes a
/// line): every CPU's counters come out whole. The exporter's buffer was a fixed 64 KiB, which
/// cut the file inside a CPU line: the CPUs past it were missing and the cut one's idle time
/// read as a few digits of it.
#[test]
fn a_stat_file_longer_than_64_kib_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let n: usize = 1200;
    let line = |name: &str, k: u64| {
        format!(
            "{name} {} 123456 {} {} 1234567 0 2345678 0 0 0\n",
            2_000_000_000 + k,
            300_000_000 + k,
            1_000_000_000 + k
        )
    };
    let mut stat = line("cpu ", 0);
    for i in 0..n {
        stat.push_str(&line(&format!("cpu{i}"), i as u64));
    }
    stat.push_str("intr 0\nctxt 1\nbtime 1\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n");
    assert!(stat.len() > 80 * 1024);
    std::fs::create_dir_all(dir.path().join("proc")).unwrap();
    std::fs::write(dir.path().join("proc/stat"), &stat).unwrap();
    let cpu = dir.path().join("sys/devices/system/cpu");
    std::fs::create_dir_all(&cpu).unwrap();
    std::fs::write(cpu.join("present"), format!("0-{}\n", n - 1)).unwrap();
    std::fs::write(cpu.join("online"), format!("0-{}\n", n - 1)).unwrap();
    let t = scrape(&Host::new(dir.path()), false);
    let last = n - 1;
    assert_eq!(
        value(
            &t,
            &format!("node_cpu_seconds_total{{cpu=\"{last}\",mode=\"idle\"}}")
        ),
        Some((1_000_000_000 + last as u64) as f64 / 100.0)
    );
    assert_eq!(t.matches("mode=\"idle\"}").count(), n);
}
