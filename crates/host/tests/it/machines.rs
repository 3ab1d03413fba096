//! `Inventory::probe` on recordings of real machines: the 22 util-linux sysfs dumps, ~210
//! sbc-bench cpuinfo captures, the hand-built board roots and the Prometheus fixtures.
//!
//! Snapshots live in tests/snapshots/ as insta files (`NAME.snap`). A changed or missing
//! snapshot fails the test; outside CI insta writes `NAME.snap.new` beside it (review with
//! `cargo insta review`, or accept every one with `INSTA_UPDATE=always cargo test`). In CI
//! (`CI` set) nothing is written: the test just fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use truebench_host::{Host, Inventory};

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// Byte for byte: insta's own comparison ignores whitespace at the end of a snapshot.
#[derive(Clone)]
struct Exact;

impl insta::Comparator for Exact {
    fn matches(&self, reference: &insta::Snapshot, test: &insta::Snapshot) -> bool {
        match (reference.contents().as_text(), test.contents().as_text()) {
            (Some(r), Some(t)) => r.matches_fully(t),
            _ => false,
        }
    }

    fn dyn_clone(&self) -> Box<dyn insta::Comparator> {
        Box::new(Exact)
    }
}

/// Compare `actual` with the stored snapshot `name`; collect mismatches instead of stopping at
/// the first so one run shows every changed machine (insta prints the diff of each).
fn check_snapshot(name: &str, actual: &str, failures: &mut Vec<String>) {
    // The file format ends the text with one newline of its own.
    let Some(body) = actual.strip_suffix('\n') else {
        failures.push(format!("{name}: the text does not end with a newline"));
        return;
    };
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshot_dir());
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_comparator(Box::new(Exact));
    let matched = settings.bind(|| {
        std::panic::catch_unwind(|| insta::assert_snapshot!(name.to_string(), body)).is_ok()
    });
    if !matched {
        failures.push(format!(
            "{name}: differs from tests/snapshots/{name}.snap (or is not stored)"
        ));
    }
}

/// JSON of an inventory with the temp-dir root replaced, so snapshots are stable.
fn stable_json(inv: &Inventory, root: &Path) -> String {
    let mut v = serde_json::to_value(inv).unwrap();
    v["root"] = serde_json::Value::String("<root>".into());
    let s = serde_json::to_string_pretty(&v).unwrap() + "\n";
    s.replace(&root.display().to_string(), "<root>")
}

#[test]
fn every_sysfs_dump_probes_and_matches_its_snapshot() {
    let names = truebench_fixtures::sysfs_dump_names();
    assert_eq!(
        names.len(),
        22,
        "expected the 22 util-linux dumps: {names:?}"
    );
    let mut failures = Vec::new();
    for name in &names {
        let dir = truebench_fixtures::sysfs_dump(name);
        let root = dir.path().join(name);
        let inv = Inventory::probe(&Host::new(&root));
        assert!(!inv.cpus.is_empty(), "{name}: no CPUs found");
        assert!(!inv.clusters.is_empty(), "{name}: no clusters");
        for c in &inv.cpus {
            assert!(c.cluster.is_some(), "{name}: cpu{} has no cluster", c.id);
        }
        check_snapshot(
            &format!("dump-{name}.json"),
            &stable_json(&inv, &root),
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Facts about specific real machines, stated independently of the snapshots.
#[test]
fn known_machines_have_the_right_topology() {
    let probe = |name: &str| {
        let dir = truebench_fixtures::sysfs_dump(name);
        Inventory::probe(&Host::new(dir.path().join(name)))
    };

    // Snapdragon phone: policy 3 spans A715 and A710 → two clusters sharing policy 3; boost OPP.
    let inv = probe("arm-A510-A710-A715-X3");
    let types: Vec<_> = inv
        .clusters
        .iter()
        .map(|c| c.core_type.clone().unwrap())
        .collect();
    assert_eq!(
        types,
        ["Cortex-A510", "Cortex-A715", "Cortex-A710", "Cortex-X3"]
    );
    assert_eq!(inv.clusters[1].policy, Some(3));
    assert_eq!(inv.clusters[2].policy, Some(3));
    assert_eq!(inv.clusters[3].boost_khz, [3187200]);
    assert_eq!(inv.clusters[3].opps_mhz.last(), Some(&3187));
    assert!(inv.clusters.iter().all(|c| c.time_in_state));
    assert_eq!(inv.arch.kernel.as_deref(), Some("aarch64"));

    // ARMv7 Exynos5 with the old cpuinfo layout (one shared CPU part block).
    let inv = probe("armv7");
    assert!(inv
        .cpus
        .iter()
        .all(|c| c.core_type.as_deref() == Some("Cortex-A15")));
    assert_eq!(inv.cpus[0].stepping.as_deref(), Some("r0p4"));
    assert_eq!(inv.arch.kernel.as_deref(), Some("armv7l"));

    // 96-CPU EPYC with per-core acpi-cpufreq policies: one cluster per package.
    let inv = probe("x86_64-epyc_7451");
    assert_eq!(inv.cpus.len(), 96);
    assert_eq!(inv.clusters.len(), 2, "two sockets");
    assert!(inv
        .clusters
        .iter()
        .all(|c| c.core_type.as_deref() == Some("AMD EPYC 7451")));
    assert_eq!(inv.soc.as_ref().unwrap().name, "AMD EPYC 7451");

    // VisionFive 2: SiFive U74 from `uarch`.
    let inv = probe("rv64-visionfive2");
    assert!(inv
        .cpus
        .iter()
        .all(|c| c.core_type.as_deref().is_some_and(|t| t.contains("U74"))));
    assert_eq!(inv.arch.kernel.as_deref(), Some("riscv64"));

    // Dell laptop: acpi-cpufreq with time_in_state.
    let inv = probe("x86_64-dell_e4310");
    assert!(inv
        .clusters
        .iter()
        .any(|c| c.time_in_state && c.driver.is_some()));
}

#[test]
fn every_cpuinfo_capture_identifies_its_cores() {
    let captures = truebench_fixtures::cpuinfo_captures();
    assert!(captures.len() > 200, "only {} captures", captures.len());
    let empty = tempfile::tempdir().unwrap();
    let mut table = String::from("# capture\tsoc guess\tkernel arch\tcore types per CPU\n");
    let mut unnamed = Vec::new();
    for f in &captures {
        let host = Host::new(empty.path()).with_cpuinfo(Some(f.clone()));
        // Every real capture is accepted as cpuinfo (`--cpuinfo` refuses what is not).
        let text = host.cpuinfo().unwrap();
        assert_eq!(
            truebench_host::parse::cpuinfo::not_cpuinfo(&text),
            None,
            "{}",
            f.display()
        );
        let inv = Inventory::probe(&host);
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut sig: Vec<String> = Vec::new();
        // An unknown core is right only where the chip's layout is known but the machine
        // does not show which CPU is which (one `CPU part` printed for the boot CPU).
        let unplaced = inv.core_layout.as_ref().is_some_and(|l| !l.placed);
        for c in &inv.cpus {
            let t = c.core_type.clone().unwrap_or_else(|| "?".into());
            if t.contains("part 0x") || (t == "?" && !unplaced) {
                unnamed.push(format!("{name}: cpu{} = {t}", c.id));
            }
            let label = match &c.stepping {
                Some(s) if s.starts_with('r') => format!("{t}/{s}"),
                _ => t,
            };
            match sig.last_mut() {
                Some(last) if last.ends_with(&format!("x{label}")) => {
                    let (n, rest) = last.split_once('x').unwrap();
                    *last = format!("{}x{rest}", n.parse::<u32>().unwrap() + 1);
                }
                _ => sig.push(format!("1x{label}")),
            }
        }
        table.push_str(&format!(
            "{name}\t{}\t{}\t{}\n",
            inv.soc.as_ref().map_or("-", |s| s.name.as_str()),
            inv.arch.kernel.as_deref().unwrap_or("-"),
            sig.join(" + ")
        ));
    }
    assert!(
        unnamed.is_empty(),
        "cores without a name:\n{}",
        unnamed.join("\n")
    );
    let mut failures = Vec::new();
    check_snapshot("cpuinfo-captures.tsv", &table, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// sbc-bench logs print a `CPU sysfs topology` table; for logs paired with a cpuinfo capture
/// of the same SoC (tests/data/topology_pairs.tsv), our core type per CPU must agree.
#[test]
fn core_types_agree_with_sbc_bench_topology_tables() {
    let pairs = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/topology_pairs.tsv"),
    )
    .unwrap();
    let cpuinfo_dir = truebench_fixtures::data_dir().join("cpuinfo");
    let empty = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in pairs
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        let (log, capture, types, revs) = (f[0], f[1], f[2], f.get(3).copied().unwrap_or("-"));
        let host = Host::new(empty.path()).with_cpuinfo(Some(cpuinfo_dir.join(capture)));
        let inv = Inventory::probe(&host);
        let ours: Vec<String> = inv
            .cpus
            .iter()
            .map(|c| c.core_type.clone().unwrap_or_default())
            .collect();
        let expected: Vec<&str> = types.split(',').collect();
        // sbc-bench prints RISC-V cores as the raw `uarch` (or isa) string; ours is the name
        // that string maps to.
        let same = |ours: &str, theirs: &str| {
            ours == theirs
                || truebench_host::knowledge::riscv_by_uarch(theirs) == Some(ours)
                || (theirs.starts_with("rv64") && ours.starts_with("RISC-V"))
        };
        if ours.len() != expected.len() || !ours.iter().zip(&expected).all(|(a, b)| same(a, b)) {
            failures.push(format!(
                "{log} vs {capture}: sbc-bench {expected:?}, truebench {ours:?}"
            ));
        }
        if revs != "-" {
            let ours: Vec<String> = inv
                .cpus
                .iter()
                .map(|c| c.stepping.clone().unwrap_or_default())
                .collect();
            let exp: Vec<&str> = revs.split(',').collect();
            if ours != exp {
                failures.push(format!("{log} vs {capture}: steppings {exp:?} vs {ours:?}"));
            }
        }
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} pairs");
    assert!(
        failures.is_empty(),
        "{} of {checked} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn hand_built_board_roots() {
    struct Expect {
        root: &'static str,
        sensor: &'static str,
        swap: &'static [(&'static str, Option<&'static str>)],
    }
    let cases = [
        Expect {
            root: "rk3588-rock5b",
            sensor: "soc-thermal",
            swap: &[("zram", None)],
        },
        Expect {
            root: "rpi4b",
            sensor: "cpu-thermal",
            swap: &[("file", Some("SD card"))],
        },
        Expect {
            root: "rpi5",
            sensor: "cpu-thermal",
            swap: &[("zram", None)],
        },
        Expect {
            root: "x86-intel-laptop",
            sensor: "x86_pkg_temp",
            swap: &[("partition", Some("NVMe SSD"))],
        },
        Expect {
            root: "x86-amd-desktop",
            sensor: "k10temp Tctl",
            swap: &[("partition", Some("HDD"))],
        },
    ];
    let mut failures = Vec::new();
    for e in cases {
        let dir = truebench_fixtures::root(e.root);
        let inv = Inventory::probe(&Host::new(dir.path()));
        let chosen = inv.thermal.chosen.as_ref().map(|c| c.name.as_str());
        if chosen != Some(e.sensor) {
            failures.push(format!(
                "{}: chose {chosen:?}, expected {}",
                e.root, e.sensor
            ));
        }
        let swap: Vec<(String, Option<String>)> = inv
            .swap
            .devices
            .iter()
            .map(|d| (d.kind.clone(), d.storage.clone()))
            .collect();
        let want: Vec<(String, Option<String>)> = e
            .swap
            .iter()
            .map(|(k, s)| {
                let storage = match (*k, s) {
                    ("zram", _) => Some("zram (compressed RAM)".to_string()),
                    (_, s) => s.map(str::to_string),
                };
                (k.to_string(), storage)
            })
            .collect();
        if swap != want {
            failures.push(format!("{}: swap {swap:?}, expected {want:?}", e.root));
        }
        assert!(inv.device.is_some(), "{}: no device name", e.root);
        assert!(inv.memory.total_kb.is_some(), "{}: no memory", e.root);
        check_snapshot(
            &format!("root-{}.json", e.root),
            &stable_json(&inv, dir.path()),
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The Pi's under-voltage alarm is surfaced; zram reports its compressor.
    let dir = truebench_fixtures::root("rpi4b");
    let inv = Inventory::probe(&Host::new(dir.path()));
    assert!(inv
        .thermal
        .hwmon
        .iter()
        .any(|h| h.name.as_deref() == Some("rpi_volt")
            && h.alarms.iter().any(|(a, _)| a == "in0_lcrit_alarm")));
    let dir = truebench_fixtures::root("rk3588-rock5b");
    let inv = Inventory::probe(&Host::new(dir.path()));
    assert!(inv.swap.devices[0].algorithm.is_some());
    assert_eq!(
        inv.soc.as_ref().map(|s| s.name.as_str()),
        Some("Rockchip RK3588")
    );
}

#[test]
fn empty_and_cpuinfo_only_roots_are_not_errors() {
    for name in ["empty", "cpuinfo-only"] {
        let dir = truebench_fixtures::root(name);
        let inv = Inventory::probe(&Host::new(dir.path()));
        assert!(inv.thermal.chosen.is_none());
        let what: Vec<&str> = inv.missing.iter().map(|m| m.what.as_str()).collect();
        assert!(
            what.contains(&"thermal") && what.contains(&"memory"),
            "{name}: {what:?}"
        );
        if name == "cpuinfo-only" {
            assert!(!inv.cpus.is_empty());
            assert!(inv.cpus.iter().all(|c| c.core_type.is_some()));
        }
    }
}

#[test]
fn prometheus_hwmon_and_thermal_fixtures() {
    // procfs' fixtures carry a zone with a negative temperature (-44 °C), which is a real
    // reading and must survive parsing.
    let dir = truebench_fixtures::prometheus_procfs();
    let inv = Inventory::probe(&Host::new(dir.path().join("fixtures")));
    assert!(
        inv.thermal.zones.iter().any(|z| z.temp_c == Some(-44.0)),
        "{:?}",
        inv.thermal.zones
    );
    assert!(inv.memory.total_kb.is_some());
    assert!(!inv.swap.devices.is_empty());

    // node_exporter's: hwmon chips with labelled temp/in/fan inputs.
    let dir = truebench_fixtures::prometheus_sys();
    let inv = Inventory::probe(&Host::new(dir.path()));
    let chips: BTreeMap<String, usize> = inv
        .thermal
        .hwmon
        .iter()
        .map(|h| (h.name.clone().unwrap_or_default(), h.sensors.len()))
        .collect();
    assert!(chips.keys().any(|k| k.contains("coretemp")), "{chips:?}");
    assert!(chips.values().any(|&n| n >= 5), "{chips:?}");
    assert!(inv.thermal.chosen.is_some());
}

/// Intel hybrid parts: P- and E-cores share one model name; the PMU devices tell them apart.
/// Models an Alder Lake i7-1260P laptop (4 P-cores with SMT = CPUs 0-7, 8 E-cores = 8-15,
/// intel_pstate with one policy per CPU) as Linux 6.x exposes it.
#[test]
fn intel_hybrid_p_and_e_cores() {
    let d = tempfile::tempdir().unwrap();
    let w = |rel: &str, text: &str| {
        let p = d.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let mut cpuinfo = String::new();
    for cpu in 0..16 {
        cpuinfo.push_str(&format!(
            "processor\t: {cpu}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 154\nmodel name\t: 12th Gen Intel(R) Core(TM) i7-1260P\nstepping\t: 3\nflags\t\t: fpu lm aes hybrid\n\n"
        ));
        let base = format!("sys/devices/system/cpu/cpu{cpu}");
        w(&format!("{base}/topology/physical_package_id"), "0\n");
        w(
            &format!("{base}/topology/core_id"),
            &format!("{}\n", if cpu < 8 { cpu / 2 * 4 } else { 8 + cpu }),
        );
        let pol = format!("sys/devices/system/cpu/cpufreq/policy{cpu}");
        w(&format!("{pol}/related_cpus"), &format!("{cpu}\n"));
        w(&format!("{pol}/scaling_driver"), "intel_pstate\n");
        w(&format!("{pol}/scaling_governor"), "powersave\n");
        w(&format!("{pol}/cpuinfo_min_freq"), "400000\n");
        w(
            &format!("{pol}/cpuinfo_max_freq"),
            if cpu < 8 { "4700000\n" } else { "3400000\n" },
        );
    }
    w("proc/cpuinfo", &cpuinfo);
    w("sys/devices/system/cpu/present", "0-15\n");
    w("sys/devices/system/cpu/online", "0-15\n");
    w("sys/devices/cpu_core/cpus", "0-7\n");
    w("sys/devices/cpu_atom/cpus", "8-15\n");

    let inv = Inventory::probe(&Host::new(d.path()));
    assert_eq!(inv.clusters.len(), 2, "{:#?}", inv.clusters);
    assert_eq!(inv.clusters[0].cpus, (0..8).collect::<Vec<u32>>());
    assert_eq!(
        inv.clusters[0].core_type.as_deref(),
        Some("12th Gen Intel Core i7-1260P (P-core)")
    );
    assert_eq!(
        inv.clusters[1].core_type.as_deref(),
        Some("12th Gen Intel Core i7-1260P (E-core)")
    );
    assert_eq!(inv.clusters[0].max_mhz, Some(4700));
    assert_eq!(inv.clusters[1].max_mhz, Some(3400));
    assert_eq!(
        inv.clusters[1].policies.len(),
        8,
        "per-core policies merged"
    );
}

/// Virtualization and container signatures, each as the real systems expose them.
#[test]
fn virtualization_layers() {
    // (files to write, expected kind, expected name)
    type Case = (
        &'static [(&'static str, &'static str)],
        &'static str,
        &'static str,
    );
    let cases: &[Case] = &[
        (
            &[
                ("sys/class/dmi/id/sys_vendor", "VMware, Inc.\n"),
                ("sys/class/dmi/id/product_name", "VMware Virtual Platform\n"),
            ],
            "vm",
            "VMware",
        ),
        (
            &[
                ("sys/class/dmi/id/sys_vendor", "innotek GmbH\n"),
                ("sys/class/dmi/id/product_name", "VirtualBox\n"),
            ],
            "vm",
            "VirtualBox",
        ),
        (
            &[
                ("sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n"),
                ("sys/class/dmi/id/product_name", "Virtual Machine\n"),
            ],
            "vm",
            "Hyper-V",
        ),
        (
            &[
                ("sys/class/dmi/id/sys_vendor", "QEMU\n"),
                (
                    "sys/class/dmi/id/product_name",
                    "Standard PC (Q35 + ICH9, 2009)\n",
                ),
            ],
            "vm",
            "QEMU/KVM",
        ),
        (
            &[
                ("sys/class/dmi/id/sys_vendor", "Apple Inc.\n"),
                (
                    "sys/class/dmi/id/product_name",
                    "Apple Virtualization Generic Platform\n",
                ),
            ],
            "vm",
            "Apple Virtualization",
        ),
        (&[("sys/hypervisor/type", "xen\n")], "vm", "Xen"),
        (
            &[(
                "proc/sys/kernel/osrelease",
                "5.15.153.1-microsoft-standard-WSL2\n",
            )],
            "wsl",
            "WSL",
        ),
        (&[(".dockerenv", "")], "container", "Docker"),
        (
            &[("run/systemd/container", "systemd-nspawn\n")],
            "container",
            "systemd-nspawn",
        ),
        // A Surface laptop is Microsoft hardware, not Hyper-V.
        (
            &[
                ("sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n"),
                ("sys/class/dmi/id/product_name", "Surface Laptop 4\n"),
            ],
            "none",
            "",
        ),
    ];
    for (files, kind, name) in cases {
        let d = tempfile::tempdir().unwrap();
        for (rel, text) in *files {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let v = Inventory::probe(&Host::new(d.path())).virtualization;
        assert_eq!(v.kind, *kind, "{files:?}: {v:?}");
        if *kind != "none" {
            assert_eq!(v.name.as_deref(), Some(*name), "{files:?}: {v:?}");
            assert!(v.evidence.is_some());
        }
    }
}

#[test]
fn a_192_cpu_machine() {
    let dir = truebench_fixtures::synthetic_epyc(192);
    let inv = Inventory::probe(&Host::new(dir.path()));
    assert_eq!(inv.cpus.len(), 192);
    assert!(inv
        .cpus
        .iter()
        .all(|c| c.cluster.is_some() && c.core_type.is_some()));
}

/// Two real phones whose old kernels print one `CPU part`, that of whichever CPU read the
/// file: the table knows each chip's layout (4 × Cortex-A53 + 4 × Cortex-A57), the captures
/// show no clusters — so the layout is given as counts and no CPU is given a type.
#[test]
fn one_printed_part_names_no_cpu_of_a_big_little_chip() {
    let dir = truebench_fixtures::data_dir().join("cpuinfo");
    let empty = tempfile::tempdir().unwrap();
    for capture in [
        "Exynos-7420-3.10.61-5966591.cpuinfo",
        "Qualcomm-MSM8994-3.10.cpuinfo",
    ] {
        let host = Host::new(empty.path()).with_cpuinfo(Some(dir.join(capture)));
        let inv = Inventory::probe(&host);
        assert_eq!(inv.cpus.len(), 8, "{capture}");
        assert!(
            inv.cpus.iter().all(|c| c.core_type.is_none()),
            "{capture}: {:?}",
            inv.cpus
        );
        let layout = inv.core_layout.expect(capture);
        assert!(!layout.placed, "{capture}");
        assert_eq!(layout.counts(), "4 × Cortex-A53 + 4 × Cortex-A57");
    }
}
