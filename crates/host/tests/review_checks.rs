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
