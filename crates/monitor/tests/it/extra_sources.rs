//! The sources beyond sbc-bench's monitoring line — power per source, disks, network,
//! softirqs, pressure, memory detail — on fixture roots whose files change between samples.
//! This VM has no RAPL, hwmon or cpufreq, so every power path is proven here on roots
//! modelled on real machines (each named below).

use std::time::Duration;
use truebench_host::{Host, Inventory};
use truebench_model::timeline::PowerKind;
use truebench_monitor::reader::{SampleReader, Sources};
use truebench_monitor::sampler::{Sampler, SamplerConfig};

use crate::common;
use common::{io_board, net, power_board, softirqs, write};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

const RAPL: &str = "sys/class/powercap";

/// The x86 laptop root (an Intel Comet Lake-U laptop: intel-rapl:0 package-0 with core and
/// uncore sub-zones, intel-rapl:1 psys, max_energy_range_uj 262143328850).
#[test]
fn rapl_zones_each_and_packages_summed_without_psys() {
    let root = truebench_fixtures::root("x86-intel-laptop");
    let r = root.path();
    let host = Host::new(r);
    let inv = Inventory::probe(&host);
    let unprivileged = unsafe { libc::geteuid() } != 0;
    let mut reader = SampleReader::new(&host, &inv, Duration::from_millis(100));
    let xh = reader.extra_header().clone();
    if unprivileged {
        // energy_uj is mode 0400 in this root, as on kernels since 5.10: said, not skipped.
        assert!(xh.power.iter().all(|p| p.kind != PowerKind::Rapl));
        assert!(
            xh.missing
                .iter()
                .any(|m| m.what.contains("package-0") && m.reason.contains("root only")),
            "{:?}",
            xh.missing
        );
        return;
    }
    let names: Vec<&str> = xh.power.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "intel-rapl:0 package-0",
            "intel-rapl:0:0 core",
            "intel-rapl:0:1 uncore",
            "intel-rapl:1 psys"
        ]
    );
    assert_eq!(
        xh.power[1].part_of.as_deref(),
        Some("intel-rapl:0 package-0")
    );
    assert!(xh.power.iter().all(|p| p.kind.is_counter()));

    // +3 J package, +2 J core, +0.5 J uncore, +6 J psys; the package counter wraps.
    let max = 262_143_328_850u64;
    let set =
        |zone: &str, uj: u64| write(r, &format!("{RAPL}/{zone}/energy_uj"), &format!("{uj}\n"));
    set("intel-rapl:0", max - 1_000_000);
    reader.sample();
    set("intel-rapl:0", 2_000_000);
    set("intel-rapl:0:0", 21_872_011_373 + 2_000_000);
    set("intel-rapl:0:1", 801_224_630 + 500_000);
    set("intel-rapl:1", 117_330_211_892 + 6_000_000);
    std::thread::sleep(Duration::from_millis(30));
    let s = reader.sample();
    let x = reader.extra();
    let w: Vec<f64> = x.power_w.iter().map(|w| w.unwrap()).collect();
    assert!(close(w[0] * x.dt_s, 3.0), "{w:?} over {}", x.dt_s);
    assert!(
        close(w[1] * x.dt_s, 2.0) && close(w[2] * x.dt_s, 0.5),
        "{w:?}"
    );
    assert!(close(w[3] * x.dt_s, 6.0), "{w:?}");
    // The package total is package-0 alone: psys already contains it.
    assert!(close(s.rapl_watts.unwrap(), w[0]));

    // A counter that cannot be read gives no power for that interval and the next.
    write(r, &format!("{RAPL}/intel-rapl:0/energy_uj"), "garbage\n");
    reader.sample();
    assert_eq!(reader.extra().power_w[0], None);
    set("intel-rapl:0", 5_000_000);
    reader.sample();
    assert_eq!(reader.extra().power_w[0], None);
    set("intel-rapl:0", 6_000_000);
    reader.sample();
    assert!(reader.extra().power_w[0].unwrap() > 0.0);
}

#[test]
fn hwmon_power_energy_and_volts_times_amps() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    power_board(r);
    let host = Host::new(r);
    let inv = Inventory::probe(&host);
    let mut reader = SampleReader::new(&host, &inv, Duration::from_millis(100));
    let xh = reader.extra_header().clone();
    let got: Vec<(&str, PowerKind)> = xh.power.iter().map(|p| (p.name.as_str(), p.kind)).collect();
    assert_eq!(
        got,
        [
            ("ina3221 POM_5V_IN", PowerKind::HwmonVoltsAmps),
            ("ina3221 POM_5V_GPU", PowerKind::HwmonVoltsAmps),
            ("ina3221 POM_5V_CPU", PowerKind::HwmonVoltsAmps),
            ("ina226 power1", PowerKind::HwmonPower),
            ("amd_energy Esocket0", PowerKind::HwmonEnergy),
        ]
    );
    assert_eq!(
        xh.power[0].files,
        [
            "sys/class/hwmon/hwmon0/in1_input",
            "sys/class/hwmon/hwmon0/curr1_input"
        ]
    );
    assert!(xh.missing.is_empty(), "{:?}", xh.missing);

    write(r, "sys/class/hwmon/hwmon2/energy17_input", "3500000\n");
    write(r, "sys/class/hwmon/hwmon0/curr1_input", "2000\n");
    std::thread::sleep(Duration::from_millis(30));
    let s = reader.sample();
    let x = reader.extra();
    let w: Vec<f64> = x.power_w.iter().map(|w| w.unwrap()).collect();
    assert!(close(w[0], 5.072 * 2.0), "{w:?}");
    assert!(
        close(w[1], 5.072 * 0.04) && close(w[2], 5.072 * 0.32),
        "{w:?}"
    );
    assert!(close(w[3], 4.352), "{w:?}");
    assert!(close(w[4] * x.dt_s, 2.5), "{w:?} over {}", x.dt_s);
    // No RAPL: no package total.
    assert_eq!(s.rapl_watts, None);
    // The hwmon files are shared with the electrical readings, not read twice.
    assert!(s.electrical.iter().flatten().any(|v| close(*v, 4.352)));
}

/// Energy per phase end to end: a sampler on the INA226 board, power stepped from 4.352 W to
/// 8 W between two phases (the readings are instantaneous: trapezoids).
#[test]
fn phases_carry_joules_and_mean_watts() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    power_board(r);
    let host = Host::new(r);
    let inv = Inventory::probe(&host);
    let sampler = Sampler::start(
        &host,
        &inv,
        SamplerConfig {
            interval: Duration::from_millis(20),
            nice: false,
            ..Default::default()
        },
        None,
    );
    std::thread::sleep(Duration::from_millis(50));
    sampler.mark_phase("low", Some(1));
    std::thread::sleep(Duration::from_millis(200));
    sampler.end_phase();
    std::thread::sleep(Duration::from_millis(30));
    write(r, "sys/class/hwmon/hwmon1/power1_input", "8000000\n");
    std::thread::sleep(Duration::from_millis(100));
    sampler.mark_phase("high", Some(4));
    std::thread::sleep(Duration::from_millis(200));
    sampler.end_phase();
    std::thread::sleep(Duration::from_millis(60));
    let tl = sampler.stop();
    assert_eq!(tl.extra.len(), tl.samples.len());
    assert!(tl.samples.len() >= 20, "{} samples", tl.samples.len());
    let ina = |i: usize| {
        tl.energy_of(i)
            .unwrap()
            .sources
            .iter()
            .find(|e| e.source == "ina226 power1")
            .unwrap()
            .clone()
    };
    let (low, high) = (ina(0), ina(1));
    assert!(close(low.mean_watts, 4.352), "{low:?}");
    assert!(close(high.mean_watts, 8.0), "{high:?}");
    let dur = |i: usize| tl.phases[i].end.unwrap() - tl.phases[i].start;
    assert!(
        low.seconds > 0.5 * dur(0) && low.seconds <= dur(0) + 1e-9,
        "{low:?}"
    );
    assert!(close(high.joules, high.mean_watts * high.seconds));
    // The counter source is there too, with its own figures.
    assert!(tl
        .energy_of(1)
        .unwrap()
        .sources
        .iter()
        .any(|e| e.source == "amd_energy Esocket0"));
}

#[test]
fn disks_network_softirqs_pressure_and_memory_as_interval_deltas() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    io_board(r);
    let host = Host::new(r);
    let inv = Inventory::probe(&host);
    let mut reader =
        SampleReader::with_sources(&host, &inv, Duration::from_millis(100), Sources::ALL);
    let xh = reader.extra_header().clone();
    assert_eq!(xh.disks, ["sda", "nvme0n1"]);
    assert_eq!(xh.net, ["lo", "eth0"]);
    assert_eq!(xh.softirq_cpus, [0, 1]);
    // No /proc/pressure/memory in this root: said why.
    assert!(
        xh.missing
            .iter()
            .any(|m| m.what == "pressure: proc/pressure/memory"),
        "{:?}",
        xh.missing
    );

    // sda: +100 reads, +800 sectors read, +50 ms busy; eth0: +1500 bytes in 2 packets; cpu1
    // ran 25 more NET_RX and spent 5 of its 195 ticks in softirq; io stalled 20 ms.
    write(
        r,
        "proc/diskstats",
        "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0\n   8       0 sda 25354737 34367663 1003346926 18492372 28444756 11134226 505697032 63877960 0 9653702 82621804\n 259       0 nvme0n1 47114 4 4643973 21650 1078320 43950 39451633 1011053 0 222766 1032546\n",
    );
    net(r, 874354587 + 1500, 1036395 + 2);
    softirqs(r, 55919, 28694 + 25);
    write(
        r,
        "proc/stat",
        "cpu  260 0 130 2100 0 0 15 0 0 0\ncpu0 100 0 50 1000 0 0 5 0 0 0\ncpu1 160 0 80 1100 0 0 10 0 0 0\n",
    );
    write(
        r,
        "proc/pressure/io",
        "some avg10=0.10 avg60=2.00 avg300=3.85 total=20015\nfull avg10=0.20 avg60=3.00 avg300=4.95 total=25\n",
    );
    std::thread::sleep(Duration::from_millis(20));
    reader.sample();
    let x = reader.extra().clone();
    let sda = x.disks[0].unwrap();
    assert_eq!((sda.reads, sda.read_bytes, sda.io_ms), (100, 800 * 512, 50));
    assert_eq!((sda.writes, sda.write_bytes), (0, 0));
    assert_eq!(x.disks[1].unwrap().reads, 0);
    let eth0 = x.net[1].unwrap();
    assert_eq!(
        (eth0.rx_bytes, eth0.rx_packets, eth0.tx_bytes),
        (1500, 2, 0)
    );
    let si = x.softirq.as_ref().unwrap();
    assert_eq!(si.cpus[1].net_rx, Some(25));
    assert_eq!(si.cpus[0].net_rx, Some(0));
    // cpu1: 60 user + 30 system + 100 idle + 5 softirq ticks: 2.564… %, to 0.001 %.
    assert_eq!(si.cpus[1].pct, Some(2.564), "{si:?}");
    assert_eq!(si.cpus[0].pct, None); // cpu0's line did not move: no time passed for it
                                      // All of it on cpu1: the same share of the aggregate line.
    assert_eq!(si.pct, Some(2.564), "{si:?}");
    let p = x.pressure.unwrap();
    assert!(close(p.io_some.unwrap(), 0.02 / x.dt_s * 100.0), "{p:?}");
    assert_eq!(p.io_full, Some(0.0));
    assert_eq!(p.memory_some, None);
    let m = x.memory.unwrap();
    assert_eq!((m.available_kb, m.dirty_kb), (Some(3000000), Some(768)));

    // A disk gone from diskstats and a garbled interface line: None for them, not a panic.
    write(
        r,
        "proc/diskstats",
        "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n",
    );
    write(r, "proc/net/dev", "garbage\n");
    reader.sample();
    let x = reader.extra();
    assert_eq!(x.disks[1], None);
    assert_eq!(x.net, [None, None]);
    // sda's counters went back (a replaced device under the same name): unknown.
    assert_eq!(x.disks[0], None);

    // An unreadable /proc/stat: no aggregate softirq share, not one from the readings before
    // (which had time between them: 10 more softirq ticks of 190, 5.263 %).
    write(
        r,
        "proc/stat",
        "cpu  360 0 180 2130 0 0 25 0 0 0\ncpu0 100 0 50 1000 0 0 5 0 0 0\ncpu1 260 0 130 1130 0 0 20 0 0 0\n",
    );
    reader.sample();
    assert_eq!(reader.extra().softirq.as_ref().unwrap().pct, Some(5.263));
    write(r, "proc/stat", "garbage\n");
    reader.sample();
    assert_eq!(reader.extra().softirq.as_ref().unwrap().pct, None);
}

/// The optional sources stay off unless asked for.
#[test]
fn optional_sources_are_off_by_default() {
    let d = tempfile::tempdir().unwrap();
    io_board(d.path());
    let host = Host::new(d.path());
    let inv = Inventory::probe(&host);
    let mut reader = SampleReader::new(&host, &inv, Duration::from_millis(100));
    reader.sample();
    let x = reader.extra();
    assert!(x.disks.is_empty() && x.net.is_empty() && x.softirq.is_none() && x.pressure.is_none());
    assert!(x.memory.is_some());
}

/// Phases far shorter than the sampling interval (2 s: no sample falls in them): every
/// source is read at each phase boundary, so a phase's energy is its own — exact for the
/// energy counter, and a step in power never leaks into the phase before it.
#[test]
fn short_phases_get_their_own_energy_whatever_the_interval() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    power_board(r);
    let power = "sys/class/hwmon/hwmon1/power1_input";
    let counter = "sys/class/hwmon/hwmon2/energy17_input";
    let host = Host::new(r);
    let inv = Inventory::probe(&host);
    let sampler = Sampler::start(
        &host,
        &inv,
        SamplerConfig {
            interval: Duration::from_secs(2),
            nice: false,
            ..Default::default()
        },
        None,
    );
    let ms = |n| std::thread::sleep(Duration::from_millis(n));
    write(r, power, "3000000\n");
    sampler.mark_phase("a", Some(1));
    ms(60);
    write(r, counter, "1300000\n"); // 0.3 J counted in a
    sampler.end_phase();
    // Between the phases the power steps to 9 W and 5 J are counted: neither phase has it.
    write(r, power, "9000000\n");
    write(r, counter, "6300000\n");
    ms(30);
    sampler.mark_phase("b", Some(1));
    ms(60);
    write(
        r, counter, "7200000
",
    ); // 0.9 J in b
       // c starts right after b; its work then draws 5 W.
    sampler.mark_phase("c", Some(1));
    write(r, power, "5000000\n");
    ms(60);
    let tl = sampler.stop();
    assert!(tl.samples.len() <= 1, "{} samples", tl.samples.len());
    let get = |i: usize, name: &str| {
        tl.energy_of(i)
            .unwrap_or_else(|| panic!("no energy for phase {i}: {:?}", tl.energy))
            .sources
            .iter()
            .find(|e| e.source == name)
            .unwrap_or_else(|| panic!("no {name} in phase {i}"))
            .clone()
    };
    let dur = |i: usize| tl.phases[i].end.unwrap() - tl.phases[i].start;
    let (a, b, c) = (
        get(0, "ina226 power1"),
        get(1, "ina226 power1"),
        get(2, "ina226 power1"),
    );
    assert!(
        close(a.mean_watts, 3.0) && close(a.seconds, dur(0)),
        "{a:?}"
    );
    assert!(
        close(b.mean_watts, 9.0) && close(b.seconds, dur(1)),
        "{b:?}"
    );
    // c's own step is inside c: between the 9 W read at its start and 5 W at its end.
    assert!(c.mean_watts < 9.0 && c.mean_watts >= 5.0, "{c:?}");
    assert!(close(c.seconds, dur(2)), "{c:?}");
    assert!(close(get(0, "amd_energy Esocket0").joules, 0.3));
    assert!(close(get(1, "amd_energy Esocket0").joules, 0.9));
    assert!(close(get(2, "amd_energy Esocket0").joules, 0.0));
}
