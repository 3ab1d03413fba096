//! The review checks the fixture roots do not reach, each on a small root with the values a
//! real board shows (the source of each value is named).

use std::path::Path;
use truebench_host::review::{self, Setting, Severity};
use truebench_host::{Host, Inventory};

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn link(root: &Path, rel: &str, target: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, p).unwrap();
}

fn review_of(root: &Path) -> Vec<Setting> {
    let host = Host::new(root);
    review::review(&host, &Inventory::probe(&host))
}

fn one<'a>(s: &'a [Setting], name: &str) -> &'a Setting {
    s.iter()
        .find(|x| x.name == name)
        .unwrap_or_else(|| panic!("no {name} in {s:#?}"))
}

/// A Pi 3B+ keeps its firmware default temp_soft_limit=60 (Raspberry Pi documentation,
/// config.txt overclocking options); over_voltage with force_turbo sets the warranty bit.
#[test]
fn pi_3b_plus_soft_limit_and_force_turbo() {
    let d = tempfile::tempdir().unwrap();
    put(
        d.path(),
        "boot/config.txt",
        "[pi3+]\ntemp_soft_limit=60\n[all]\nforce_turbo=1\nover_voltage=6\n",
    );
    put(
        d.path(),
        "sys/devices/platform/soc/soc:firmware/get_throttled",
        "50005\n",
    );
    let s = review_of(d.path());
    let t = one(&s, "temp_soft_limit");
    assert_eq!(
        (t.value.as_str(), t.severity, t.subject.as_str()),
        ("60 °C", Severity::Warn, "config.txt [pi3+]")
    );
    let o = one(&s, "over_voltage");
    assert_eq!(o.severity, Severity::Warn);
    assert!(o.why.as_deref().unwrap().contains("warranty bit"));
    // 0x50005: under-voltage now and since boot, throttled since boot (the classic weak PSU).
    let g = one(&s, "get_throttled");
    assert_eq!(g.severity, Severity::Warn);
    let why = g.why.as_deref().unwrap();
    assert!(
        why.contains("under-voltage detected") && why.contains("throttling has occurred"),
        "{why}"
    );
}

/// sbc-bench's README: "In case zswap is configured on top of zram … the kernel will compress
/// memory pages twice." THP never / defrag always as some images ship them.
#[test]
fn zswap_on_zram_and_thp() {
    let d = tempfile::tempdir().unwrap();
    put(
        d.path(),
        "proc/swaps",
        "Filename\tType\tSize\tUsed\tPriority\n/dev/zram0\tpartition\t1953764\t0\t5\n",
    );
    put(
        d.path(),
        "sys/block/zram0/comp_algorithm",
        "lzo [lzo-rle] lz4 zstd\n",
    );
    put(d.path(), "sys/module/zswap/parameters/enabled", "Y\n");
    put(d.path(), "sys/module/zswap/parameters/compressor", "lz4\n");
    put(
        d.path(),
        "sys/kernel/mm/transparent_hugepage/enabled",
        "always madvise [never]\n",
    );
    put(
        d.path(),
        "sys/kernel/mm/transparent_hugepage/defrag",
        "[always] defer defer+madvise madvise never\n",
    );
    let s = review_of(d.path());
    let z = s.iter().find(|x| x.subject == "zswap").unwrap();
    assert_eq!(z.severity, Severity::Warn);
    assert!(z.why.as_deref().unwrap().contains("twice"));
    assert_eq!(one(&s, "enabled").value, "yes, lz4");
    let thp: Vec<(&str, Severity)> = s
        .iter()
        .filter(|x| x.subject == "transparent huge pages")
        .map(|x| (x.value.as_str(), x.severity))
        .collect();
    assert_eq!(thp, [("never", Severity::Info), ("always", Severity::Warn)]);
}

/// An NVMe SSD (PCIe 3 x4) behind a Raspberry Pi 5's x1 connector, trained at the Pi's default
/// PCIe 2 speed; and a PCIe 3 device on a PCIe 2 port (the slot is the limit, not a fault).
#[test]
fn pcie_links_narrower_or_limited_by_the_slot() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let port = "sys/devices/platform/axi/1000110000.pcie/pci0001:00/0001:00:00.0";
    put(r, &format!("{port}/class"), "0x060400\n");
    put(r, &format!("{port}/max_link_speed"), "5.0 GT/s PCIe\n");
    let dev = format!("{port}/0001:01:00.0");
    for (f, v) in [
        ("class", "0x010802"),
        ("vendor", "0x144d"),
        ("device", "0xa80a"),
        ("current_link_speed", "5.0 GT/s PCIe"),
        ("current_link_width", "1"),
        ("max_link_speed", "8.0 GT/s PCIe"),
        ("max_link_width", "4"),
    ] {
        put(r, &format!("{dev}/{f}"), &format!("{v}\n"));
    }
    link(
        r,
        "sys/bus/pci/devices/0001:01:00.0",
        &format!("../../../{}", dev.trim_start_matches("sys/")),
    );
    link(
        r,
        "sys/bus/pci/devices/0001:00:00.0",
        &format!("../../../{}", port.trim_start_matches("sys/")),
    );
    let s = review_of(r);
    let l = one(&s, "link");
    assert_eq!(
        (l.value.as_str(), l.severity),
        ("5.0 GT/s PCIe x1", Severity::Warn)
    );
    assert!(
        l.why.as_deref().unwrap().contains("negotiated x1 of x4"),
        "{l:?}"
    );
    // Full width, but the port's own maximum is the ceiling.
    put(r, &format!("{dev}/current_link_width"), "4\n");
    let s = review_of(r);
    let l = one(&s, "link");
    assert_eq!(l.severity, Severity::Info);
    assert!(
        l.why.as_deref().unwrap().contains("the slot's port cannot"),
        "{l:?}"
    );
}

/// A Fast Ethernet link negotiated half duplex (an old hub or a duplex mismatch).
#[test]
fn half_duplex_network() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let dev = "sys/devices/platform/soc/1c30000.ethernet";
    put(r, &format!("{dev}/net/eth0/operstate"), "up\n");
    put(r, &format!("{dev}/net/eth0/speed"), "100\n");
    put(r, &format!("{dev}/net/eth0/duplex"), "half\n");
    link(
        r,
        &format!("{dev}/net/eth0/device"),
        "../../../1c30000.ethernet",
    );
    link(
        r,
        "sys/class/net/eth0",
        "../../devices/platform/soc/1c30000.ethernet/net/eth0",
    );
    let s = review_of(r);
    let l = one(&s, "link");
    assert_eq!(
        (l.value.as_str(), l.severity),
        ("up, 100 Mbit/s half duplex", Severity::Warn)
    );
}

fn edit(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    assert!(
        p.exists() || p.parent().unwrap().exists(),
        "{}",
        p.display()
    );
    let _ = std::fs::remove_file(&p);
    std::fs::write(p, text).unwrap();
}

fn find<'a>(s: &'a [Setting], subject: &str, name: &str) -> &'a Setting {
    s.iter()
        .find(|x| x.subject.starts_with(subject) && x.name == name)
        .unwrap_or_else(|| panic!("no {subject}/{name} in {s:#?}"))
}

/// The other branches, on the recorded ROCK 5B and Ryzen desktop changed the way boards are
/// found in the wild (values from the sbc-bench logs named).
#[test]
fn governors_limits_and_disks_changed_on_recorded_boards() {
    let dir = truebench_fixtures::root("rk3588-rock5b");
    let r = dir.path();
    let p0 = "sys/devices/system/cpu/cpufreq/policy0";
    let p4 = "sys/devices/system/cpu/cpufreq/policy4";
    // powersave on the little cluster, userspace on a big one; a 1416 MHz cap as thermal
    // daemons set (sbc-bench's 'capped maximum clock' warnings).
    edit(r, &format!("{p0}/scaling_governor"), "powersave\n");
    edit(r, &format!("{p0}/scaling_max_freq"), "1416000\n");
    edit(r, &format!("{p4}/scaling_governor"), "userspace\n");
    edit(r, &format!("{p4}/scaling_min_freq"), "1008000\n");
    std::fs::remove_dir_all(r.join(format!("{p4}/stats"))).unwrap();
    edit(r, "sys/class/devfreq/dmc/governor", "performance\n");
    edit(
        r,
        "sys/block/nvme0n1/queue/scheduler",
        "mq-deadline kyber [bfq] none\n",
    );
    edit(r, "sys/block/mmcblk1/queue/read_ahead_kb", "64\n");
    edit(
        r,
        "proc/mounts",
        "/dev/mmcblk1p1 / ext4 rw 0 0\n/dev/sda1 /mnt/usb ntfs3 rw,relatime 0 0\n",
    );
    let s = review_of(r);
    assert_eq!(find(&s, "policy0", "governor").severity, Severity::Warn);
    // The cap is warned about once: by the OPP limit, which names the OPPs it holds down and
    // who lowered it; the setting's own line says so instead of warning again.
    let cap = find(&s, "policy0", "scaling_max_freq");
    assert_eq!(
        (cap.value.as_str(), cap.severity),
        ("1416 MHz", Severity::Info)
    );
    assert!(cap.why.as_deref().unwrap().contains("1800 MHz"));
    assert!(cap.why.as_deref().unwrap().contains("OPP limit"));
    let limit = find(&s, "policy0", "OPP limit: scaling_max_freq");
    assert_eq!(limit.severity, Severity::Warn);
    assert!(
        limit.why.as_deref().unwrap().contains("1416 MHz"),
        "{:?}",
        limit.why
    );
    let u = find(&s, "policy4", "governor");
    assert_eq!(u.severity, Severity::Info);
    assert!(u.why.as_deref().unwrap().starts_with("userspace"));
    assert_eq!(find(&s, "policy4", "scaling_min_freq").value, "1008 MHz");
    assert_eq!(
        find(&s, "policy4", "stats/time_in_state").severity,
        Severity::Warn
    );
    assert_eq!(find(&s, "dmc", "governor").severity, Severity::Ok);
    assert!(find(&s, "nvme0n1", "I/O scheduler")
        .why
        .as_deref()
        .unwrap()
        .contains("bfq"));
    assert!(find(&s, "mmcblk1", "read-ahead").why.is_some());
    assert_eq!(find(&s, "/mnt/usb", "type").severity, Severity::Ok);

    // The Ryzen desktop with boost off and its HDD without a scheduler.
    let dir = truebench_fixtures::root("x86-amd-desktop");
    let r = dir.path();
    edit(r, "sys/devices/system/cpu/cpufreq/boost", "0\n");
    edit(r, "sys/block/sda/queue/scheduler", "mq-deadline [none]\n");
    let s = review_of(r);
    assert_eq!(find(&s, "all CPUs", "boost").severity, Severity::Warn);
    assert!(find(&s, "sda", "I/O scheduler")
        .why
        .as_deref()
        .unwrap()
        .contains("spinning"));
    assert_eq!(find(&s, "/dev/sda2", "swap").severity, Severity::Warn);
}

/// arm_boost=0 on a Pi 4 (firmware before 2021 behaved so) and an energy-saving EPP.
#[test]
fn pi_arm_boost_off_and_epp_power() {
    let d = tempfile::tempdir().unwrap();
    put(d.path(), "boot/firmware/config.txt", "[pi4]\narm_boost=0\n");
    let s = review_of(d.path());
    assert_eq!(one(&s, "arm_boost").severity, Severity::Warn);
    let dir = truebench_fixtures::root("x86-intel-laptop");
    for c in 0..2 {
        edit(
            dir.path(),
            &format!("sys/devices/system/cpu/cpufreq/policy{c}/energy_performance_preference"),
            "power\n",
        );
    }
    let s = review_of(dir.path());
    assert_eq!(
        one(&s, "energy_performance_preference").severity,
        Severity::Warn
    );
}
