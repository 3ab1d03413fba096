//! The reader on the live machine and on a hand-built root whose files change between samples.

use std::fs;
use std::path::Path;
use std::time::Duration;
use truebench_host::{Host, Inventory};
use truebench_monitor::reader::SampleReader;

#[test]
fn live_machine_first_sample_is_a_real_delta() {
    let host = Host::live();
    let inv = Inventory::probe(&host);
    let mut r = SampleReader::new(&host, &inv, Duration::from_millis(200));
    // Burn one core for a while so %cpu cannot be zero.
    let end = std::time::Instant::now() + Duration::from_millis(300);
    let mut x = 0u64;
    while std::time::Instant::now() < end {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
    }
    std::hint::black_box(x);
    let s = r.sample();
    let cpu = s.cpu.expect("a /proc/stat delta");
    let n = inv.online_cpus().count().max(1) as f64;
    // One busy core out of n: at least most of 100/n percent, never above 100.
    assert!(cpu.cpu >= 0.5 * 100.0 / n && cpu.cpu <= 100.0, "{cpu:?}");
    assert!(
        (cpu.usr + cpu.sys + cpu.nice + cpu.irq + cpu.steal - cpu.cpu).abs() < 1.0,
        "{cpu:?}"
    );
    assert!(s.load1.is_some());
    assert_eq!(s.cpus_online, Some(inv.online_cpus().count() as u32));
    assert!(s.swap_used_kb.is_some());
    assert!(s.t > 0.0 && s.unix_ms > 1_600_000_000_000);
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// A two-cluster ARM board in the pattern of a Rockchip RK3399 (policy0 = cpu0-3 A53,
/// policy4 = cpu4-5 A72), one thermal zone, a hwmon INA219-style power monitor and RAPL-style
/// powercap files.
fn board(root: &Path) {
    let c = "sys/devices/system/cpu";
    write(root, &format!("{c}/present"), "0-5\n");
    write(root, &format!("{c}/online"), "0-5\n");
    for (p, cpus, cur) in [
        ("policy0", "0 1 2 3", "1416000"),
        ("policy4", "4 5", "1800000"),
    ] {
        write(
            root,
            &format!("{c}/cpufreq/{p}/related_cpus"),
            &format!("{cpus}\n"),
        );
        write(
            root,
            &format!("{c}/cpufreq/{p}/scaling_cur_freq"),
            &format!("{cur}\n"),
        );
        write(
            root,
            &format!("{c}/cpufreq/{p}/cpuinfo_max_freq"),
            &format!("{cur}\n"),
        );
        write(
            root,
            &format!("{c}/cpufreq/{p}/scaling_driver"),
            "cpufreq-dt\n",
        );
    }
    write(root, "proc/stat", "cpu  100 0 50 1000 0 0 0 0 0 0\n");
    write(root, "proc/loadavg", "0.50 0.40 0.30 1/100 42\n");
    write(
        root,
        "proc/meminfo",
        "MemTotal: 4000000 kB\nSwapTotal: 1000 kB\nSwapFree: 1000 kB\n",
    );
    write(
        root,
        "sys/class/thermal/thermal_zone0/type",
        "soc-thermal\n",
    );
    write(root, "sys/class/thermal/thermal_zone0/temp", "45000\n");
    write(root, "sys/class/hwmon/hwmon0/name", "ina219\n");
    write(root, "sys/class/hwmon/hwmon0/in1_input", "5120\n");
    write(root, "sys/class/hwmon/hwmon0/curr1_input", "850\n");
    write(root, "sys/class/hwmon/hwmon0/power1_input", "4352000\n");
    write(
        root,
        "sys/class/powercap/intel-rapl:0/energy_uj",
        "1000000\n",
    );
    write(
        root,
        "sys/class/powercap/intel-rapl:0/max_energy_range_uj",
        "262143328850\n",
    );
    write(root, "sys/class/powercap/intel-rapl:0:0/energy_uj", "5\n");
}

#[test]
fn recorded_root_values_follow_the_files() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    board(root);
    let host = Host::new(root);
    let inv = Inventory::probe(&host);
    assert_eq!(inv.clusters.len(), 2);
    let mut r = SampleReader::new(&host, &inv, Duration::from_millis(100));
    let h = r.header().clone();
    assert_eq!(h.temp_sensors, ["soc-thermal"]);
    assert_eq!(h.soc_sensor.as_deref(), Some("soc-thermal"));
    assert_eq!(h.electrical.len(), 3);
    assert!(
        h.measured_clock_source.starts_with("none: "),
        "{}",
        h.measured_clock_source
    );

    // The machine moves on: 100 more ticks, 50 of them user, temperature up, swap used,
    // the big cluster throttled, cpu5 offline, 2 J used.
    write(root, "proc/stat", "cpu  150 0 60 1040 0 0 0 0 0 0\n");
    write(root, "sys/class/thermal/thermal_zone0/temp", "71500\n");
    write(
        root,
        "proc/meminfo",
        "MemTotal: 4000000 kB\nSwapTotal: 1000 kB\nSwapFree: 400 kB\n",
    );
    write(
        root,
        "sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq",
        "1008000\n",
    );
    write(root, "sys/devices/system/cpu/online", "0-4\n");
    write(
        root,
        "sys/class/powercap/intel-rapl:0/energy_uj",
        "3000000\n",
    );
    std::thread::sleep(Duration::from_millis(20));
    let s = r.sample();
    let cpu = s.cpu.unwrap();
    assert!(
        (cpu.usr - 50.0).abs() < 1e-9
            && (cpu.sys - 10.0).abs() < 1e-9
            && (cpu.cpu - 60.0).abs() < 1e-9,
        "{cpu:?}"
    );
    assert_eq!(s.cluster_mhz, [Some(1416), Some(1008)]);
    assert_eq!(s.soc_temp_c, Some(71.5));
    assert_eq!(s.swap_used_kb, Some(600));
    assert_eq!(s.cpus_online, Some(5));
    assert_eq!(s.load1, Some(0.5));
    let e: Vec<f64> = s.electrical.iter().map(|v| v.unwrap()).collect();
    assert!(
        e.contains(&5.12) && e.contains(&0.85) && e.contains(&4.352),
        "{e:?}"
    );
    // 2 J over the time since the baseline (20 ms or a little more).
    let w = s.rapl_watts.unwrap();
    assert!(w > 1.0 && w <= 100.0, "{w}");
    assert!(s.rpi.is_none());

    // Garbage and vanished files give None, never a panic.
    write(root, "sys/class/thermal/thermal_zone0/temp", "garbage\n");
    fs::remove_file(root.join("proc/loadavg")).unwrap();
    let s = r.sample();
    assert_eq!(s.soc_temp_c, None);
    // The handle stays open on the unlinked file: the last content is still there.
    assert_eq!(s.load1, Some(0.5));
    // No time passed in /proc/stat: no percentage rather than a division by zero.
    assert!(s.cpu.is_none());
}

#[test]
fn empty_root_gives_nulls() {
    let d = tempfile::tempdir().unwrap();
    let host = Host::new(d.path());
    let inv = Inventory::probe(&host);
    let mut r = SampleReader::new(&host, &inv, Duration::from_millis(100));
    let s = r.sample();
    assert!(s.cpu.is_none() && s.load1.is_none() && s.soc_temp_c.is_none());
    assert!(s.cluster_mhz.is_empty() && s.temps_c.is_empty());
    assert!(s.rapl_watts.is_none() && s.cpus_online.is_none());
}
