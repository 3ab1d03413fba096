//! `review::review` on the fixture roots of real boards: every check with a real board's value.

use truebench_host::review::{self, Setting, Severity};
use truebench_host::{Host, Inventory};

fn settings(name: &str) -> Vec<Setting> {
    let dir = truebench_fixtures::root(name);
    let host = Host::new(dir.path());
    review::review(&host, &Inventory::probe(&host))
}

fn find<'a>(s: &'a [Setting], area: &str, subject: &str, name: &str) -> &'a Setting {
    s.iter()
        .find(|x| x.area == area && x.subject.starts_with(subject) && x.name == name)
        .unwrap_or_else(|| panic!("no {area}/{subject}/{name} in {s:#?}"))
}

fn sev(s: &[Setting], area: &str, subject: &str, name: &str) -> (String, Severity) {
    let x = find(s, area, subject, name);
    (x.value.clone(), x.severity)
}

/// ROCK 5B with the RK3588 BSP: devfreq and GPU policies of the log, NVMe and 2.5GbE links,
/// a USB disk whose bridge Armbian's quirk forces to usb-storage, eth0's IRQ on a little core.
#[test]
fn rk3588_board_with_nvme_and_usb_storage() {
    let s = settings("rk3588-rock5b");
    assert_eq!(
        sev(&s, "devfreq", "dmc", "governor"),
        (
            "dmc_ondemand / 528 MHz (max 2112 MHz)".into(),
            Severity::Info
        )
    );
    assert_eq!(
        sev(&s, "gpu", "fb000000.gpu", "power_policy").0,
        "coarse_demand"
    );
    assert_eq!(sev(&s, "pcie", "all links", "ASPM policy").0, "default");
    assert_eq!(
        sev(&s, "pcie", "0000:01:00.0", "link"),
        ("8.0 GT/s PCIe x4".into(), Severity::Ok)
    );
    let usb = find(&s, "storage", "sda", "device");
    assert_eq!(
        (usb.value.as_str(), usb.severity),
        ("USB storage, usb-storage, NS1066", Severity::Warn)
    );
    assert!(usb.why.as_deref().unwrap().contains("instead of UAS"));
    assert_eq!(
        sev(&s, "storage", "nvme0n1", "device").0,
        "NVMe SSD, nvme, Samsung SSD 970 EVO Plus 500GB"
    );
    let irq = find(&s, "network", "eth0", "interrupts");
    assert_eq!(
        (irq.value.as_str(), irq.severity),
        ("IRQ 95: cpu0 Cortex-A55 100 %", Severity::Warn)
    );
    assert_eq!(sev(&s, "memory", "vm", "swappiness").0, "100");
    // Areas come in report order.
    let areas: Vec<&str> = s.iter().map(|x| x.area.as_str()).collect();
    let mut sorted = areas.clone();
    sorted.sort_by_key(|a| review::AREAS.iter().position(|x| x == a));
    assert_eq!(areas, sorted);
}

/// The overclocked Pi 4 of 3L37 (config.txt verbatim) and the Pi 5 of 1ULtUe.
#[test]
fn raspberry_pi_firmware_settings() {
    let s = settings("rpi4b");
    let ov = find(&s, "firmware", "config.txt [pi4]", "over_voltage");
    assert_eq!((ov.value.as_str(), ov.severity), ("15", Severity::Info));
    assert!(ov.why.as_deref().unwrap().contains("earlier throttling"));
    assert_eq!(
        sev(&s, "firmware", "config.txt [pi4]", "arm_freq").0,
        "2300"
    );
    assert_eq!(sev(&s, "firmware", "config.txt [pi4]", "gpu_mem").0, "128");
    assert_eq!(
        sev(&s, "firmware", "Raspberry Pi", "get_throttled"),
        ("0x0".into(), Severity::Ok)
    );
    let cid = find(&s, "storage", "mmcblk0", "CID");
    assert_eq!(
        (cid.value.as_str(), cid.severity),
        (
            "SanDisk \"SC32G\" SD, date 08/2021, manfid/oemid 0x000003/0x5344",
            Severity::Ok
        )
    );
    assert_eq!(sev(&s, "memory", "/var/swap", "swap").1, Severity::Warn);
    let s = settings("rpi5");
    assert_eq!(
        sev(&s, "firmware", "config.txt [all]", "arm_boost"),
        ("1".into(), Severity::Ok)
    );
    assert_eq!(
        sev(&s, "pcie", "0002:01:00.0", "link").0,
        "5.0 GT/s PCIe x4"
    );
}

/// The X96 Max+ TV box of 3QOj: ondemand without io_is_busy on an eMMC, a USB 3 disk on a
/// USB 2 port, NTFS through FUSE.
#[test]
fn amlogic_tv_box_with_emmc() {
    let s = settings("s905x3-x96maxplus");
    let io = find(&s, "cpufreq", "policy0", "ondemand io_is_busy");
    assert_eq!((io.value.as_str(), io.severity), ("0", Severity::Warn));
    assert_eq!(
        sev(&s, "cpufreq", "policy0", "ondemand up_threshold").0,
        "80 %"
    );
    assert_eq!(
        sev(&s, "storage", "mmcblk2", "CID"),
        (
            "Samsung \"BJTD4R\" MMC, date 11/2020, manfid/oemid 0x000015/0x0100".into(),
            Severity::Ok
        )
    );
    assert_eq!(
        sev(&s, "storage", "sda", "USB speed"),
        ("480 Mbit/s".into(), Severity::Warn)
    );
    assert_eq!(
        sev(&s, "usb", "1-1", "speed"),
        ("480 Mbit/s, USB 3.20".into(), Severity::Warn)
    );
    assert_eq!(sev(&s, "storage", "sda", "device").0, "USB HDD, uas");
    assert_eq!(
        sev(&s, "filesystem", "/mnt/media", "type").1,
        Severity::Warn
    );
    // The boot partitions of the eMMC are not disks of their own.
    assert!(!s.iter().any(|x| x.subject.contains("boot0")));
}

/// intel_pstate's powersave is not a warning; TLP's powersupersave ASPM is.
#[test]
fn x86_laptop() {
    let s = settings("x86-intel-laptop");
    assert_eq!(
        sev(&s, "cpufreq", "policy0", "governor"),
        ("powersave".into(), Severity::Info)
    );
    assert_eq!(
        sev(&s, "cpufreq", "policy0", "stats/time_in_state").1,
        Severity::Info
    );
    assert_eq!(
        sev(&s, "cpufreq", "policy0", "energy_performance_preference"),
        ("balance_performance".into(), Severity::Ok)
    );
    assert_eq!(
        sev(&s, "pcie", "all links", "ASPM policy"),
        ("powersupersave".into(), Severity::Warn)
    );
    assert_eq!(sev(&s, "network", "wlp0s20f3", "link").0, "up");
    assert!(find(&s, "network", "wlp0s20f3", "link")
        .subject
        .contains("wireless"));
    assert_eq!(
        sev(&s, "filesystem", "/media/user/Backup", "type").1,
        Severity::Warn
    );
}

/// Nothing to read is nothing reported, never a panic; no cpufreq is said.
#[test]
fn empty_roots() {
    for name in ["empty", "cpuinfo-only"] {
        let s = settings(name);
        assert_eq!(sev(&s, "cpufreq", "all CPUs", "driver").0, "none", "{name}");
        assert!(
            s.iter().all(|x| x.severity != Severity::Warn),
            "{name}: {s:?}"
        );
    }
}

/// What tuning or a renegotiation changes is found by area, subject and name.
#[test]
fn changes_between_two_readings() {
    let before = settings("rk3588-rock5b");
    let mut after = before.clone();
    after
        .iter_mut()
        .find(|x| x.name == "governor" && x.area == "devfreq")
        .unwrap()
        .value = "performance / 2112 MHz (max 2112 MHz)".into();
    after.retain(|x| x.area != "usb");
    let c = review::changes(&before, &after);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(
        c[0].1.as_ref().unwrap().value,
        "performance / 2112 MHz (max 2112 MHz)"
    );
    assert!(c[1].1.is_none());
}

/// Which CPU takes a device's interrupts, for `--sweep opps` (the ROCK 5B root's NVMe queue
/// and eth0 interrupts are on cpu0).
#[test]
fn interrupts_of_a_disk_and_an_interface() {
    use truebench_host::irq;
    let dir = truebench_fixtures::root("rk3588-rock5b");
    let host = Host::new(dir.path());
    let names = irq::disk_irq_names(&host, "nvme0n1");
    assert!(names.contains(&"nvme0q".to_string()), "{names:?}");
    assert_eq!(
        irq::busiest_cpu(&host, &names),
        Some((0, vec!["96".to_string()]))
    );
    let names = irq::iface_irq_names(&host, "eth0");
    assert_eq!(
        irq::busiest_cpu(&host, &names),
        Some((0, vec!["95".to_string()]))
    );
    let sd = irq::disk_irq_names(&host, "sda");
    assert!(
        sd.contains(&"usb8".to_string()) && sd.contains(&"xhci-hcd.3.auto".to_string()),
        "{sd:?}"
    );
    // The TV box root records no /proc/interrupts: not known, not guessed.
    let dir = truebench_fixtures::root("s905x3-x96maxplus");
    let host = Host::new(dir.path());
    assert_eq!(
        irq::busiest_cpu(&host, &irq::disk_irq_names(&host, "mmcblk2")),
        None
    );
    assert!(irq::disk_irq_names(&host, "mmcblk2").contains(&"mmc2".to_string()));
}
