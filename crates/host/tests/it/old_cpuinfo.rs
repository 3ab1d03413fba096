//! Old-format ARM cpuinfo (3.x big.LITTLE kernels, e.g. Exynos 5422 in the corpus's ODROID-XU4
//! logs): `CPU part` printed once, outside the processor blocks, for the boot CPU — or all
//! parts in one line. Roots built in that pattern: two clock domains (cpu0-3 up to 1.4 GHz,
//! cpu4-7 up to 2.0 GHz).

use std::fs;
use std::path::Path;
use truebench_host::{Host, Inventory};

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn root(part_line: &str, hardware: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let mut ci = String::new();
    for n in 0..8 {
        ci += &format!("processor\t: {n}\nBogoMIPS\t: 84.00\n\n");
    }
    ci += &format!(
        "Features\t: swp half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt\n\
         CPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0\n\
         CPU part\t: {part_line}\nCPU revision\t: 3\n\nHardware\t: {hardware}\n"
    );
    put(d.path(), "proc/cpuinfo", &ci);
    put(d.path(), "sys/devices/system/cpu/present", "0-7\n");
    put(d.path(), "sys/devices/system/cpu/online", "0-7\n");
    for (pol, cpus, max) in [(0, "0 1 2 3", "1400000"), (4, "4 5 6 7", "2000000")] {
        let dir = format!("sys/devices/system/cpu/cpufreq/policy{pol}");
        put(
            d.path(),
            &format!("{dir}/related_cpus"),
            &format!("{cpus}\n"),
        );
        put(
            d.path(),
            &format!("{dir}/affected_cpus"),
            &format!("{cpus}\n"),
        );
        put(
            d.path(),
            &format!("{dir}/cpuinfo_max_freq"),
            &format!("{max}\n"),
        );
        put(d.path(), &format!("{dir}/cpuinfo_min_freq"), "200000\n");
    }
    d
}

fn types_on(line: &str, hardware: &str) -> Vec<Option<String>> {
    let d = root(line, hardware);
    let inv = Inventory::probe(&Host::new(d.path()));
    inv.cpus.iter().map(|c| c.core_type.clone()).collect()
}

fn types(line: &str) -> Vec<Option<String>> {
    types_on(line, "ODROID-XU3")
}

/// The one part an old kernel prints is the reading CPU's, which may be any of them: with two
/// clock domains and no chip the table knows, no CPU gets a type, and the note says why.
#[test]
fn one_part_is_given_to_no_cpu_of_several_clock_domains() {
    let d = root("0xc07", "Generic DT based system");
    let inv = Inventory::probe(&Host::new(d.path()));
    let t: Vec<_> = inv.cpus.iter().map(|c| c.core_type.clone()).collect();
    assert!(t.iter().all(Option::is_none), "{t:?}");
    assert!(inv.cpus.iter().all(|c| c.stepping.is_none()));
    let note = inv.missing.iter().find(|m| m.what == "core types").unwrap();
    assert!(note.reason.contains("Cortex-A7"), "{note:?}");
    assert!(inv.core_layout.is_none());
}

/// The Hardware line names the board, so the SoC (Exynos 5422, 4×A7 + 4×A15) is known, and
/// the clusters' maximum clocks (1.4 and 2.0 GHz) show which cluster is big: both types are
/// placed, said to come from the table, not from cpuinfo.
#[test]
fn the_clocks_place_the_identified_socs_layout() {
    let d = root("0xc07", "ODROID-XU3");
    let inv = Inventory::probe(&Host::new(d.path()));
    assert_eq!(inv.soc.as_ref().unwrap().name, "Samsung Exynos 5422");
    let t: Vec<_> = inv.cpus.iter().map(|c| c.core_type.clone()).collect();
    assert!(
        t[..4]
            .iter()
            .all(|x| x.as_deref() == Some("Cortex-A7 (from the SoC table)")),
        "{t:?}"
    );
    assert!(
        t[4..]
            .iter()
            .all(|x| x.as_deref() == Some("Cortex-A15 (from the SoC table)")),
        "{t:?}"
    );
    let big = &inv.clusters[inv.cpus[4].cluster.unwrap()];
    assert_eq!(
        big.core_type.as_deref(),
        Some("Cortex-A15 (from the SoC table)")
    );
    let layout = inv.core_layout.as_ref().unwrap();
    assert!(layout.placed, "{layout:?}");
    assert!(layout.basis.contains("maximum clocks"), "{layout:?}");
    // A part that contradicts the layout (an A53 where the table says A7) places nothing.
    let t = types_on("0xd03", "ODROID-XU3");
    assert!(t.iter().all(Option::is_none), "{t:?}");
}

/// The table lists a chip's cores in one order, vendors number their clusters in either: a
/// board whose big cluster comes first gets its big cores where its clocks say, not where
/// the table's order would put them.
#[test]
fn the_big_cluster_first_gets_the_big_cores() {
    let d = root("0xc07", "ODROID-XU3");
    for (pol, max) in [(0, "2000000"), (4, "1400000")] {
        put(
            d.path(),
            &format!("sys/devices/system/cpu/cpufreq/policy{pol}/cpuinfo_max_freq"),
            &format!("{max}\n"),
        );
    }
    let inv = Inventory::probe(&Host::new(d.path()));
    let t: Vec<_> = inv.cpus.iter().map(|c| c.core_type.clone()).collect();
    assert_eq!(t[0].as_deref(), Some("Cortex-A15 (from the SoC table)"));
    assert_eq!(t[7].as_deref(), Some("Cortex-A7 (from the SoC table)"));
}

/// Nothing tells the clusters apart (equal maximum clocks, no capacity): the layout is given
/// as counts, which CPUs unknown, and no CPU gets a type.
#[test]
fn clusters_nothing_tells_apart_keep_the_layout_as_counts() {
    let d = root("0xc07", "ODROID-XU3");
    put(
        d.path(),
        "sys/devices/system/cpu/cpufreq/policy4/cpuinfo_max_freq",
        "1400000\n",
    );
    let inv = Inventory::probe(&Host::new(d.path()));
    assert!(inv.cpus.iter().all(|c| c.core_type.is_none()));
    let layout = inv.core_layout.as_ref().unwrap();
    assert!(!layout.placed);
    assert_eq!(layout.counts(), "4 × Cortex-A7 + 4 × Cortex-A15");
    assert!(layout.basis.contains("which CPUs unknown"), "{layout:?}");
    // cpu_capacity, where the kernel has it, tells them apart.
    for n in 0..8 {
        let cap = if n < 4 { "448" } else { "1024" };
        put(
            d.path(),
            &format!("sys/devices/system/cpu/cpu{n}/cpu_capacity"),
            &format!("{cap}\n"),
        );
    }
    let inv = Inventory::probe(&Host::new(d.path()));
    assert_eq!(
        inv.cpus[5].core_type.as_deref(),
        Some("Cortex-A15 (from the SoC table)")
    );
    assert!(inv.core_layout.unwrap().basis.contains("cpu_capacity"));
}

/// One clock domain for all CPUs (or none): the one printed part was extended to every CPU,
/// which a chip of two core types refutes — the types are withdrawn, the layout kept as counts.
#[test]
fn one_part_on_one_domain_is_withdrawn_where_the_chip_has_two_core_types() {
    let d = root("0xc07", "ODROID-XU3");
    std::fs::remove_dir_all(d.path().join("sys/devices/system/cpu/cpufreq")).unwrap();
    let inv = Inventory::probe(&Host::new(d.path()));
    assert!(
        inv.cpus.iter().all(|c| c.core_type.is_none()),
        "{:?}",
        inv.cpus
    );
    assert!(!inv.core_layout.unwrap().placed);
    // A chip of one core type (MT6589: 4 × Cortex-A7): the part holds for every CPU.
    let d = root("0xc07", "MT6589");
    std::fs::remove_dir_all(d.path().join("sys/devices/system/cpu/cpufreq")).unwrap();
    put(d.path(), "sys/devices/system/cpu/present", "0-3\n");
    put(d.path(), "sys/devices/system/cpu/online", "0-3\n");
    let inv = Inventory::probe(&Host::new(d.path()));
    assert_eq!(
        inv.soc.as_ref().unwrap().name,
        "MediaTek MT6589",
        "{:?}",
        inv.soc
    );
    assert!(inv
        .cpus
        .iter()
        .all(|c| c.core_type.as_deref() == Some("Cortex-A7")));
}

#[test]
fn several_parts_go_to_the_domains_in_cpu_order() {
    let t = types("0xc07 & 0xc0f");
    assert!(
        t[..4].iter().all(|x| x.as_deref() == Some("Cortex-A7")),
        "{t:?}"
    );
    assert!(
        t[4..].iter().all(|x| x.as_deref() == Some("Cortex-A15")),
        "{t:?}"
    );
}

/// A big.LITTLE board without cpufreq whose cpu5 is offline: no topology directory and no
/// cpuinfo block for it, only its siblings' lists name its cluster.
#[test]
fn an_offline_cpu_joins_the_cluster_its_siblings_name() {
    let d = tempfile::tempdir().unwrap();
    let mut ci = String::new();
    for n in [0, 1, 2, 3, 4, 6, 7] {
        let part = if n < 4 { "0xd05" } else { "0xd0b" };
        ci += &format!(
            "processor\t: {n}\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x2\n\
             CPU part\t: {part}\nCPU revision\t: 0\n\n"
        );
    }
    put(d.path(), "proc/cpuinfo", &ci);
    put(d.path(), "sys/devices/system/cpu/present", "0-7\n");
    put(d.path(), "sys/devices/system/cpu/online", "0-4,6-7\n");
    for n in [0, 1, 2, 3, 4, 6, 7] {
        let t = format!("sys/devices/system/cpu/cpu{n}/topology");
        let (cluster, list) = if n < 4 { ("0", "0-3") } else { ("1", "4-7") };
        put(d.path(), &format!("{t}/physical_package_id"), "0\n");
        put(
            d.path(),
            &format!("{t}/cluster_id"),
            &format!("{cluster}\n"),
        );
        put(
            d.path(),
            &format!("{t}/cluster_cpus_list"),
            &format!("{list}\n"),
        );
        // arm64: the whole package.
        put(d.path(), &format!("{t}/core_siblings_list"), "0-7\n");
    }
    let inv = Inventory::probe(&Host::new(d.path()));
    let c5 = inv.cpus.iter().find(|c| c.id == 5).unwrap();
    assert!(!c5.online);
    assert_eq!(c5.core_type.as_deref(), Some("Cortex-A76"));
    let big = &inv.clusters[c5.cluster.unwrap()];
    assert_eq!(big.cpus, [4, 5, 6, 7]);
    assert_eq!(inv.clusters.len(), 2);
}

/// No device tree at hand (a container, a recorded tree without it): the kernel log's boot
/// line names the machine, which settles what the cores alone leave open (four Cortex-A72
/// r0p3: a BCM2711 or an AWS Graviton).
#[test]
fn the_kernel_logs_machine_line_settles_a_shared_core_signature() {
    let d = tempfile::tempdir().unwrap();
    let mut ci = String::new();
    for n in 0..4 {
        ci += &format!(
            "processor\t: {n}\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n\
             CPU part\t: 0xd08\nCPU revision\t: 3\n\n"
        );
    }
    put(d.path(), "proc/cpuinfo", &ci);
    put(d.path(), "sys/devices/system/cpu/present", "0-3\n");
    put(d.path(), "sys/devices/system/cpu/online", "0-3\n");
    let hedged = Inventory::probe(&Host::new(d.path())).soc.unwrap();
    assert!(hedged.candidates.len() > 1, "{hedged:?}");
    put(
        d.path(),
        "dev/kmsg",
        "6,0,0,-;Booting Linux on physical CPU 0x0000000000 [0x410fd083]\n\
         6,1,0,-;Machine model: Raspberry Pi 4 Model B Rev 1.4\n",
    );
    let soc = Inventory::probe(&Host::new(d.path())).soc.unwrap();
    assert_eq!(soc.name, "BCM2711", "{soc:?}");
    assert!(soc.evidence.starts_with("kernel log machine"), "{soc:?}");
}
