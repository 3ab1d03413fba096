//! intel_pstate, amd-pstate and ACPI CPPC read from recordings of real machines (util-linux's
//! sysfs dumps: an i7-1165G7 laptop under intel_pstate with HWP and CPPC on Linux 6.2, a
//! VirtualBox guest under an old intel_pstate, acpi-cpufreq machines), and the review's
//! judgement of them on copies with one file changed.

use std::fs;
use std::path::Path;
use truebench_host::review::{review, Setting, Severity};
use truebench_host::{Host, Inventory};

fn dump(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let d = truebench_fixtures::sysfs_dump(name);
    let root = d.path().join(name);
    (d, root)
}

/// Replace a file of a dump (read-only there) with `text`.
fn set(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    let _ = fs::remove_file(&p);
    fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
}

#[test]
fn intel_pstate_with_hwp_and_cppc_on_linux_6_2() {
    let (_d, root) = dump("x86_64-64cpu-linux6.2");
    let inv = Inventory::probe(&Host::new(&root));
    let pc = inv.perf_control.as_ref().expect("intel_pstate is there");
    let ip = pc.intel_pstate.as_ref().unwrap();
    assert_eq!(ip.status.as_deref(), Some("active"));
    assert_eq!(ip.max_perf_pct, Some(100));
    assert_eq!(ip.min_perf_pct, Some(8));
    assert_eq!(ip.no_turbo, Some(false));
    assert_eq!(ip.hwp_dynamic_boost, Some(false));
    assert_eq!((ip.num_pstates, ip.turbo_pct), (Some(44), Some(80)));
    assert!(pc.amd_pstate.is_none());
    assert_eq!(pc.policies.len(), 8, "one policy per CPU");
    for (i, p) in pc.policies.iter().enumerate() {
        assert_eq!(p.policy, i as u32);
        assert_eq!(p.cpus, [i as u32]);
        assert_eq!(p.driver.as_deref(), Some("intel_pstate"));
        assert_eq!(p.mode.as_deref(), Some("active"));
        assert_eq!(p.hwp, Some(true));
        assert_eq!(p.epp.as_deref(), Some("balance_power"));
        assert!(p.epp_saves_power());
        assert_eq!(
            p.epps,
            [
                "default",
                "performance",
                "balance_performance",
                "balance_power",
                "power"
            ]
        );
        // Intel's firmware gives CPPC no frequency: base and boost come from intel_pstate.
        let c = p.cppc.as_ref().unwrap();
        assert_eq!(c.cpu, i as u32);
        assert_eq!(
            (c.highest_perf, c.nominal_perf, c.lowest_perf),
            (Some(47), Some(28), Some(1))
        );
        assert!(matches!(c.lowest_nonlinear_perf, Some(13..=15)), "{c:?}");
        assert_eq!((c.nominal_mhz, c.lowest_mhz), (None, None));
        assert_eq!(p.base_khz, Some(1_200_000));
        assert_eq!(p.nominal_khz, Some(1_200_000));
        assert_eq!(p.boost_khz, Some(4_700_000));
        assert!(p.clocks_from.as_deref().unwrap().contains("base_frequency"));
    }
    // The cluster finds its policy's record.
    assert_eq!(inv.perf_of(&inv.clusters[0]).unwrap().policy, 0);
}

#[test]
fn old_intel_pstate_in_a_virtual_machine() {
    let (_d, root) = dump("vbox-win");
    let inv = Inventory::probe(&Host::new(&root));
    let pc = inv.perf_control.as_ref().expect("intel_pstate is there");
    let ip = pc.intel_pstate.as_ref().unwrap();
    // A 2014 kernel: no status file, no HWP.
    assert_eq!(ip.status, None);
    assert_eq!((ip.max_perf_pct, ip.min_perf_pct), (Some(100), Some(42)));
    assert_eq!(ip.no_turbo, Some(false));
    assert_eq!(ip.hwp_dynamic_boost, None);
    assert!(!pc.policies.is_empty());
    for p in &pc.policies {
        assert_eq!(p.mode.as_deref(), Some("active"), "from the driver's name");
        assert_eq!(p.hwp, Some(false));
        assert_eq!((p.epp.as_deref(), p.cppc.as_ref()), (None, None));
        assert_eq!(
            (p.nominal_khz, p.boost_khz),
            (None, None),
            "nothing gives them"
        );
    }
}

#[test]
fn acpi_cpufreq_machines_have_no_perf_control() {
    for name in ["x86_64-dell_e4310", "x86_64-epyc_7451", "x86_64-64cpu"] {
        let (_d, root) = dump(name);
        let inv = Inventory::probe(&Host::new(&root));
        assert_eq!(inv.perf_control, None, "{name}");
    }
}

#[test]
fn an_unreadable_value_is_unknown_and_said() {
    let (_d, root) = dump("x86_64-64cpu-linux6.2");
    set(
        &root,
        "sys/devices/system/cpu/intel_pstate/max_perf_pct",
        "1OO\n",
    );
    set(&root, "sys/devices/system/cpu/intel_pstate/no_turbo", "");
    let inv = Inventory::probe(&Host::new(&root));
    let ip = inv
        .perf_control
        .as_ref()
        .unwrap()
        .intel_pstate
        .clone()
        .unwrap();
    assert_eq!((ip.max_perf_pct, ip.no_turbo), (None, None));
    assert!(
        inv.missing.iter().any(|m| m.what == "perf_control"
            && m.reason.contains("max_perf_pct")
            && m.reason.contains("1OO")),
        "{:?}",
        inv.missing
    );
}

fn perf(settings: &[Setting], name: &str) -> Vec<Setting> {
    settings
        .iter()
        .filter(|s| s.name == name)
        .cloned()
        .collect()
}

fn reviewed(root: &Path) -> Vec<Setting> {
    let host = Host::new(root);
    let inv = Inventory::probe(&host);
    review(&host, &inv)
}

#[test]
fn review_of_the_real_tree_states_the_limits_as_found() {
    let (_d, root) = dump("x86_64-64cpu-linux6.2");
    let s = reviewed(&root);
    let max = perf(&s, "max_perf_pct");
    assert_eq!(max.len(), 1, "{s:#?}");
    assert_eq!(max[0].severity, Severity::Ok);
    assert_eq!(max[0].value, "100 %");
    assert_eq!(
        max[0].source,
        "sys/devices/system/cpu/intel_pstate/max_perf_pct"
    );
    assert_eq!(perf(&s, "no_turbo")[0].severity, Severity::Ok);
    let mode = perf(&s, "intel_pstate");
    assert_eq!(mode[0].value, "active, HWP");
    // The laptop's firmware preference is balance_power: a warning that says what to do.
    let epp = perf(&s, "energy_performance_preference");
    assert_eq!(
        epp.len(),
        1,
        "one line for eight identical policies: {epp:#?}"
    );
    assert_eq!(epp[0].subject, "policy0-7 (cpu0-7)");
    assert_eq!(epp[0].severity, Severity::Warn);
    assert!(
        epp[0]
            .why
            .as_deref()
            .unwrap()
            .contains("write `performance`"),
        "{:?}",
        epp[0]
    );
    let clocks = perf(&s, "base and boost clock");
    assert_eq!(
        clocks.len(),
        1,
        "one line for eight identical policies: {clocks:#?}"
    );
    assert_eq!(clocks[0].value, "1200 MHz base, 4700 MHz boost");
}

#[test]
fn review_warns_of_a_lowered_max_perf_pct() {
    let (_d, root) = dump("x86_64-64cpu-linux6.2");
    set(
        &root,
        "sys/devices/system/cpu/intel_pstate/max_perf_pct",
        "60\n",
    );
    let s = reviewed(&root);
    let max = &perf(&s, "max_perf_pct")[0];
    assert_eq!(max.severity, Severity::Warn);
    assert_eq!(max.value, "60 %");
    let why = max.why.as_deref().unwrap();
    assert!(why.contains("2820 MHz"), "60 % of 4700 MHz: {why}");
    assert!(why.contains("echo 100"), "says what to do: {why}");
}

#[test]
fn review_warns_of_no_turbo() {
    let (_d, root) = dump("x86_64-64cpu-linux6.2");
    set(&root, "sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
    let s = reviewed(&root);
    let nt = &perf(&s, "no_turbo")[0];
    assert_eq!(nt.severity, Severity::Warn);
    assert!(nt.why.as_deref().unwrap().contains("echo 0"), "{nt:?}");
}

#[test]
fn review_accepts_performance_preference_and_warns_of_power() {
    let (_d, root) = dump("x86_64-64cpu-linux6.2");
    for n in 0..8 {
        let f = format!("sys/devices/system/cpu/cpufreq/policy{n}/energy_performance_preference");
        set(&root, &f, if n == 3 { "power\n" } else { "performance\n" });
    }
    let s = reviewed(&root);
    let epp = perf(&s, "energy_performance_preference");
    let warned: Vec<&str> = epp
        .iter()
        .filter(|e| e.severity == Severity::Warn)
        .map(|e| e.subject.as_str())
        .collect();
    assert_eq!(warned.len(), 1, "{epp:#?}");
    assert!(warned[0].starts_with("policy3"), "{warned:?}");
}

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// One policy per CPU with the given files (`name value` pairs) and `cpuN/acpi_cppc/` files.
fn per_cpu_root(n: u32, policy: &[(&str, &str)], cppc: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    put(
        r,
        "sys/devices/system/cpu/present",
        &format!("0-{}\n", n - 1),
    );
    put(
        r,
        "sys/devices/system/cpu/online",
        &format!("0-{}\n", n - 1),
    );
    for c in 0..n {
        let p = format!("sys/devices/system/cpu/cpufreq/policy{c}");
        put(r, &format!("{p}/related_cpus"), &format!("{c}\n"));
        put(r, &format!("{p}/affected_cpus"), &format!("{c}\n"));
        for (f, v) in policy {
            put(r, &format!("{p}/{f}"), &format!("{v}\n"));
        }
        for (f, v) in cppc {
            put(
                r,
                &format!("sys/devices/system/cpu/cpu{c}/acpi_cppc/{f}"),
                &format!("{v}\n"),
            );
        }
    }
    d
}

/// amd-pstate in active mode with preferred cores, as a Ryzen 9 5950X's policy0 reads
/// (René Rebe's listing on the linux-acpi list, 2025-11-25); the second policy's ranking is
/// lower, as a second CCD's are.
#[test]
fn amd_pstate_epp_with_preferred_cores() {
    let policy = [
        ("amd_pstate_highest_perf", "166"),
        ("amd_pstate_hw_prefcore", "enabled"),
        ("amd_pstate_lowest_nonlinear_freq", "1748178"),
        ("amd_pstate_max_freq", "5276318"),
        ("boost", "1"),
        ("cpuinfo_max_freq", "5276318"),
        ("cpuinfo_min_freq", "572131"),
        ("cpuinfo_transition_latency", "0"),
        (
            "energy_performance_available_preferences",
            "default performance balance_performance balance_power power",
        ),
        ("energy_performance_preference", "balance_performance"),
        ("scaling_available_governors", "performance powersave"),
        ("scaling_cur_freq", "1748178"),
        ("scaling_driver", "amd-pstate-epp"),
        ("scaling_governor", "powersave"),
        ("scaling_max_freq", "5276318"),
        ("scaling_min_freq", "1748178"),
        ("scaling_setspeed", "<unsupported>"),
    ];
    let d = per_cpu_root(2, &policy, &[]);
    put(
        d.path(),
        "sys/devices/system/cpu/amd_pstate/status",
        "active\n",
    );
    put(
        d.path(),
        "sys/devices/system/cpu/amd_pstate/prefcore",
        "enabled\n",
    );
    put(
        d.path(),
        "sys/devices/system/cpu/cpufreq/policy1/amd_pstate_prefcore_ranking",
        "166\n",
    );
    put(
        d.path(),
        "sys/devices/system/cpu/cpufreq/policy0/amd_pstate_prefcore_ranking",
        "206\n",
    );
    let host = Host::new(d.path());
    let inv = Inventory::probe(&host);
    let pc = inv.perf_control.as_ref().unwrap();
    let ap = pc.amd_pstate.as_ref().unwrap();
    assert_eq!(
        (ap.status.as_deref(), ap.prefcore.as_deref()),
        (Some("active"), Some("enabled"))
    );
    assert!(pc.intel_pstate.is_none());
    let p = &pc.policies[0];
    assert_eq!(p.mode.as_deref(), Some("active"));
    assert_eq!(p.hwp, None, "HWP is Intel's");
    assert_eq!(
        (p.amd_highest_perf, p.amd_max_khz),
        (Some(166), Some(5_276_318))
    );
    assert_eq!(p.amd_lowest_nonlinear_khz, Some(1_748_178));
    assert_eq!(
        (p.prefcore_ranking, p.hw_prefcore, p.boost),
        (Some(206), Some(true), Some(true))
    );
    assert_eq!(pc.policies[1].prefcore_ranking, Some(166));
    // No CPPC frequency: the boost clock is the driver's own, the base unknown.
    assert_eq!((p.nominal_khz, p.boost_khz), (None, Some(5_276_318)));
    let s = review(&host, &inv);
    assert_eq!(perf(&s, "amd_pstate")[0].value, "active");
    assert_eq!(
        perf(&s, "preferred cores")[0].value,
        "cpu0 rank 206 (lowest 166)"
    );
    assert_eq!(
        perf(&s, "energy_performance_preference")[0].severity,
        Severity::Ok
    );
    assert_eq!(
        perf(&s, "base and boost clock")[0].value,
        "? MHz base, 5276 MHz boost"
    );
}

/// cppc_cpufreq on an ARM server: CPPC with a nominal frequency and no frequency table (the
/// "Arm64 server" values posted to the linux-acpi list in 2021: highest 300, nominal 280 at
/// 2800 MHz, lowest 100 at 1000 MHz; lscpu's maximum 3000 MHz).
#[test]
fn cppc_server_gets_base_and_boost_from_nominal_freq() {
    let policy = [
        ("scaling_driver", "cppc_cpufreq"),
        ("scaling_governor", "schedutil"),
        (
            "scaling_available_governors",
            "ondemand userspace performance schedutil",
        ),
        ("cpuinfo_max_freq", "3000000"),
        ("cpuinfo_min_freq", "1000000"),
        ("scaling_max_freq", "3000000"),
        ("scaling_min_freq", "1000000"),
    ];
    let cppc = [
        ("highest_perf", "300"),
        ("nominal_perf", "280"),
        ("lowest_nonlinear_perf", "200"),
        ("lowest_perf", "100"),
        ("reference_perf", "100"),
        ("nominal_freq", "2800"),
        ("lowest_freq", "1000"),
    ];
    let d = per_cpu_root(4, &policy, &cppc);
    let host = Host::new(d.path());
    let inv = Inventory::probe(&host);
    let pc = inv.perf_control.as_ref().unwrap();
    assert_eq!(pc.policies.len(), 4);
    let p = &pc.policies[2];
    assert_eq!(
        (p.mode.as_deref(), p.hwp, p.epp.as_deref()),
        (None, None, None)
    );
    let c = p.cppc.as_ref().unwrap();
    assert_eq!(
        (c.cpu, c.nominal_mhz, c.lowest_mhz),
        (2, Some(2800), Some(1000))
    );
    assert_eq!(
        (p.nominal_khz, p.boost_khz),
        (Some(2_800_000), Some(3_000_000))
    );
    let s = review(&host, &inv);
    let clocks = perf(&s, "base and boost clock");
    assert_eq!(clocks.len(), 1);
    assert_eq!(clocks[0].value, "2800 MHz base, 3000 MHz boost");
    assert_eq!(clocks[0].source, "sys/devices/system/cpu/cpu0/acpi_cppc");
    assert_eq!(clocks[0].subject, "policy0-3 (cpu0-3)");
}

/// The Celeron 5205U laptop root has no turbo (turbo_pct 0, base = highest clock = 1900 MHz):
/// its no_turbo 1 forbids nothing and is no warning.
#[test]
fn no_turbo_on_a_cpu_without_turbo_is_no_warning() {
    let d = truebench_fixtures::root("x86-intel-laptop");
    let host = Host::new(d.path());
    let inv = Inventory::probe(&host);
    assert_eq!(inv.perf_control.as_ref().unwrap().has_turbo(), Some(false));
    let s = review(&host, &inv);
    let nt = &perf(&s, "no_turbo")[0];
    assert_eq!(
        (nt.value.as_str(), nt.severity),
        ("1", Severity::Info),
        "{nt:?}"
    );
    // The real i7-1165G7 has turbo.
    let (_d, root) = dump("x86_64-64cpu-linux6.2");
    let inv = Inventory::probe(&Host::new(&root));
    assert_eq!(inv.perf_control.unwrap().has_turbo(), Some(true));
}
