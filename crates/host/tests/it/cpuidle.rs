//! cpuidle on the util-linux dumps of real machines: the states read (names, exit latencies,
//! target residencies, groups of CPUs), and what `review` lists and flags. The scenarios
//! that real dumps lack (a disabled deep state, a driver that offers only WFI) are the same
//! dumps with one file changed.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use truebench_host::cpuidle::IdleState;
use truebench_host::review::{self, Setting, Severity};
use truebench_host::{Host, Inventory};

const PHONE: &str = "arm-A510-A710-A715-X3";

fn review_of(root: &Path) -> (Inventory, Vec<Setting>) {
    let host = Host::new(root);
    let inv = Inventory::probe(&host);
    let s = review::review(&host, &inv);
    (inv, s)
}

fn idle(s: &[Setting]) -> Vec<&Setting> {
    s.iter().filter(|x| x.area == "cpuidle").collect()
}

fn find<'a>(s: &'a [Setting], subject: &str, name: &str) -> &'a Setting {
    s.iter()
        .find(|x| x.area == "cpuidle" && x.subject == subject && x.name == name)
        .unwrap_or_else(|| panic!("no cpuidle {subject} {name} in {:#?}", idle(s)))
}

/// Overwrite a file of a dump (stored read-only).
fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
    fs::write(&p, text).unwrap();
}

fn names(states: &[IdleState]) -> Vec<(&str, Option<u64>, Option<u64>)> {
    states
        .iter()
        .map(|s| (s.name.as_str(), s.exit_latency_us, s.target_residency_us))
        .collect()
}

/// The Snapdragon phone: psci_idle with Qualcomm's governor; WFI and one power-collapse state
/// per cluster, with the cluster's own latencies.
#[test]
fn phone_states_are_grouped_per_cluster() {
    let dir = truebench_fixtures::sysfs_dump(PHONE);
    let (inv, s) = review_of(&dir.path().join(PHONE));
    let ci = inv.cpuidle.expect("the phone has cpuidle");
    assert_eq!(ci.driver.as_deref(), Some("psci_idle"));
    assert_eq!(ci.governor.as_deref(), Some("qcom-cpu-lpm"));
    let groups: Vec<_> = ci.groups.iter().map(|g| g.cpus.clone()).collect();
    assert_eq!(groups, [vec![0, 1, 2], vec![3, 4, 5, 6], vec![7]]);
    assert_eq!(ci.groups[0].driver.as_deref(), Some("psci_idle"));
    assert_eq!(
        names(&ci.groups[1].states),
        [
            ("WFI", Some(1), Some(1)),
            ("gold-c4", Some(1900), Some(8136))
        ]
    );
    assert_eq!(ci.groups[2].states[1].desc.as_deref(), Some("rail-pc"));
    assert!(ci.groups[2].states[1].is_deep() && !ci.groups[2].states[0].is_deep());

    let st = find(&s, "cpu0-2", "state1 silver-c4");
    assert_eq!(st.value, "exit 1300 µs, residency 6700 µs");
    assert_eq!(st.severity, Severity::Info);
    assert_eq!(
        find(&s, "all CPUs", "driver").value,
        "psci_idle",
        "the driver is listed"
    );
    // Every CPU has a power-down state, none is disabled: nothing is flagged.
    assert!(
        idle(&s).iter().all(|x| x.severity != Severity::Warn),
        "{:#?}",
        idle(&s)
    );
    assert_eq!(idle(&s).len(), 2 + 6);
}

/// The Exynos 4 board: cpu0 offers C1 (ARM power down), cpu1 only WFI; cpu0 has never
/// entered C1 since boot.
#[test]
fn exynos_cpu_without_the_power_down_state_is_flagged() {
    let dir = truebench_fixtures::sysfs_dump("armv7");
    let (inv, s) = review_of(&dir.path().join("armv7"));
    let ci = inv.cpuidle.unwrap();
    assert_eq!(ci.driver.as_deref(), Some("exynos4_idle"));
    assert_eq!(ci.governor.as_deref(), Some("menu"));
    // No residency file on this kernel: unknown, not 0.
    assert_eq!(
        names(&ci.groups[0].states),
        [("WFI", Some(1), None), ("C1", Some(300), None)]
    );
    let deep = find(&s, "cpu1", "deep idle state");
    assert_eq!(deep.severity, Severity::Warn);
    let why = deep.why.as_deref().unwrap();
    assert!(why.contains("only WFI offered"), "{why}");
    assert!(why.contains("while cpu0 offers C1 (300 µs)"), "{why}");
    let c1 = find(&s, "cpu0", "state1 C1");
    assert_eq!(c1.value, "exit 300 µs, usage 0 since boot");
    assert!(c1
        .why
        .as_deref()
        .unwrap()
        .contains("not entered since boot"));
    assert!(!idle(&s)
        .iter()
        .any(|x| x.subject == "cpu0" && x.name == "deep idle state"));
}

/// intel_idle on a Core i5 laptop: POLL, C1, C3, C6 on every CPU, one group; the 64-CPU
/// Nehalem server's poll state is named `C0`.
#[test]
fn intel_idle_machines_list_their_c_states() {
    let dir = truebench_fixtures::sysfs_dump("x86_64-dell_e4310");
    let (inv, s) = review_of(&dir.path().join("x86_64-dell_e4310"));
    let ci = inv.cpuidle.unwrap();
    assert_eq!(ci.groups.len(), 1);
    assert_eq!(ci.groups[0].cpus, [0, 1, 2, 3]);
    let st: Vec<_> = ci.groups[0].states.iter().map(|s| &s.name).collect();
    assert_eq!(st, ["POLL", "NHM-C1", "NHM-C3", "NHM-C6"]);
    assert!(ci.groups[0].states[0].is_poll());
    assert_eq!(find(&s, "cpu0-3", "state3 NHM-C6").value, "exit 200 µs");

    let dir = truebench_fixtures::sysfs_dump("x86_64-64cpu");
    let inv = Inventory::probe(&Host::new(dir.path().join("x86_64-64cpu")));
    let ci = inv.cpuidle.unwrap();
    assert_eq!(ci.groups.len(), 1);
    assert_eq!(ci.groups[0].cpus.len(), 64);
    assert!(ci.groups[0].states[0].is_poll(), "C0 is the poll state");
    assert_eq!(
        ci.summary(),
        "intel_idle/menu: cpu0-63: 3 states, deepest NHM-C3 (20 µs)"
    );
}

/// The phone with `gold-c4` disabled on cpu3-6 by user space: those CPUs split into their own
/// group and the state is flagged; disabled by the driver's default, it is only said.
#[test]
fn a_disabled_deep_state_is_flagged() {
    let dir = truebench_fixtures::sysfs_dump(PHONE);
    let root = dir.path().join(PHONE);
    for c in 3..=6 {
        put(
            &root,
            &format!("sys/devices/system/cpu/cpu{c}/cpuidle/state1/disable"),
            "1\n",
        );
    }
    let (inv, s) = review_of(&root);
    assert_eq!(
        inv.cpuidle.unwrap().groups[1].states[1].disabled,
        Some(true)
    );
    let st = find(&s, "cpu3-6", "state1 gold-c4");
    assert_eq!(st.severity, Severity::Warn);
    assert_eq!(st.value, "exit 1900 µs, residency 8136 µs, disabled");
    assert!(st.source.ends_with("cpu3/cpuidle/state1/disable"));
    assert!(st.why.as_deref().unwrap().contains("never enter it"));

    for c in 3..=6 {
        put(
            &root,
            &format!("sys/devices/system/cpu/cpu{c}/cpuidle/state1/default_status"),
            "disabled\n",
        );
    }
    let (_, s) = review_of(&root);
    let st = find(&s, "cpu3-6", "state1 gold-c4");
    assert_eq!(st.severity, Severity::Info);
    assert!(st.why.as_deref().unwrap().contains("by default"));
}

/// The phone with its power-collapse states gone (a device tree without idle-states): psci_idle
/// offers only WFI, which is flagged on every cluster.
#[test]
fn psci_idle_with_only_wfi_is_flagged() {
    let dir = truebench_fixtures::sysfs_dump(PHONE);
    let root = dir.path().join(PHONE);
    for c in 0..8 {
        let d = root.join(format!("sys/devices/system/cpu/cpu{c}/cpuidle/state1"));
        fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
        fs::remove_dir_all(&d).unwrap();
    }
    let (_, s) = review_of(&root);
    // Every CPU now offers the same WFI: one group.
    let d = find(&s, "cpu0-7", "deep idle state");
    assert_eq!(d.severity, Severity::Warn);
    assert!(
        d.why
            .as_deref()
            .unwrap()
            .contains("psci_idle describes none deeper"),
        "{:?}",
        d.why
    );
}

/// Machines without cpuidle, or with cpuidle and no driver (the VisionFive 2's `none`): said
/// once, not flagged as a loss, never an all-clear list of states.
#[test]
fn no_cpuidle_is_said() {
    let dir = truebench_fixtures::sysfs_dump("rv64-milkvpioneer");
    let (inv, s) = review_of(&dir.path().join("rv64-milkvpioneer"));
    assert!(inv.cpuidle.is_none());
    let d = find(&s, "all CPUs", "driver");
    assert_eq!((d.value.as_str(), d.severity), ("none", Severity::Info));
    assert!(d.why.as_deref().unwrap().contains("No cpuidle"));

    let dir = truebench_fixtures::sysfs_dump("rv64-visionfive2");
    let (inv, s) = review_of(&dir.path().join("rv64-visionfive2"));
    let ci = inv.cpuidle.unwrap();
    assert_eq!(ci.driver.as_deref(), Some("none"));
    assert!(ci.groups.is_empty());
    assert_eq!(ci.cpus_without, [0, 1, 2, 3]);
    let d = find(&s, "all CPUs", "driver");
    assert_eq!(d.value, "none");
    assert!(d.why.as_deref().unwrap().contains("no CPU has idle states"));
    assert_eq!(
        idle(&s).len(),
        2,
        "driver and governor only: {:#?}",
        idle(&s)
    );
}

/// The phone's policy3 spans the Cortex-A715 and Cortex-A710 clusters: its real
/// scaling_max_freq cap is reviewed once, not once per cluster.
#[test]
fn a_policy_spanning_two_core_types_has_its_opp_limit_said_once() {
    let d = truebench_fixtures::sysfs_dump(PHONE);
    let (inv, s) = review_of(&d.path().join(PHONE));
    let shared = inv
        .clusters
        .iter()
        .filter(|c| {
            c.policy_dir
                .as_deref()
                .is_some_and(|p| p.ends_with("policy3"))
        })
        .count();
    assert_eq!(shared, 2, "policy3 is two clusters");
    let caps: Vec<&Setting> = s
        .iter()
        .filter(|x| x.name == "OPP limit: scaling_max_freq")
        .collect();
    assert_eq!(caps.len(), 3, "policy0, policy3 and policy7: {caps:#?}");
}
