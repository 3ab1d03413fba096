//! A Tuning session on a fixture root: writes land in the files, the journal holds the
//! originals before anything changes, and every way a session ends puts every file back
//! byte for byte.

mod common;

use std::fs;

use common::*;
use truebench_host::inventory::Cluster;
use truebench_host::{Host, Inventory};
use truebench_tuning::{recover, testing, RestoreReport, Tuning, TuningError};

fn clusters(host: &Host) -> Vec<Cluster> {
    let c = Inventory::probe(host).clusters;
    assert!(
        c.len() >= 2,
        "the fixture has little and big clusters: {c:#?}"
    );
    c
}

/// A cluster spanning policy4 and policy6, as the inventory makes of merged policies.
fn two_policy_cluster(host: &Host) -> Cluster {
    let mut c = clusters(host)
        .into_iter()
        .find(|c| c.policies.contains(&4))
        .unwrap();
    c.policies = vec![4, 6];
    c
}

#[test]
fn writes_land_in_the_files_and_restore_gives_back_every_byte() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let before = snapshot(d.path());
    let mut t = Tuning::begin(&host).unwrap();
    assert!(
        journal(d.path()).exists(),
        "journal exists before any write"
    );
    for c in clusters(&host) {
        t.set_governor(&c, "performance").unwrap();
        t.set_range_khz(&c, 1008000, 1008000).unwrap();
    }
    t.set_pcie_aspm_policy("powersave").unwrap();
    t.set_devfreq_governor("dmc", "performance").unwrap();
    t.write(ODD, "plain").unwrap();

    for p in [P0, P4, P6] {
        assert_eq!(
            read(d.path(), &format!("{p}/scaling_governor")),
            "performance"
        );
        assert_eq!(read(d.path(), &format!("{p}/scaling_max_freq")), "1008000");
        assert_eq!(read(d.path(), &format!("{p}/scaling_min_freq")), "1008000");
    }
    // A choice list on a regular file shows the choice the way the kernel would.
    assert_eq!(
        read(d.path(), ASPM),
        "default performance [powersave] powersupersave \n"
    );
    assert_eq!(read(d.path(), DMC), "performance");
    assert_eq!(changed(&before, &snapshot(d.path())).len(), 3 * 3 + 3);

    let r = t.restore().unwrap();
    assert!(r.failed.is_empty(), "{r:?}");
    assert_eq!(r.restored.len(), 12);
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
    assert!(
        !journal(d.path()).exists(),
        "journal removed after a full restore"
    );
    // Idempotent.
    assert_eq!(t.restore().unwrap().restored, Vec::<String>::new());
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
}

#[test]
fn restore_is_in_reverse_order_and_each_file_is_journaled_once() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let mut t = Tuning::begin(&host).unwrap();
    let g = format!("{P0}/scaling_governor");
    let o = format!("{CPU}/cpu3/online");
    t.write(&g, "performance").unwrap();
    t.write(&o, "0").unwrap();
    t.write(&g, "powersave").unwrap();
    let text = fs::read_to_string(journal(d.path())).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("O ")).count(),
        2,
        "{text}"
    );
    assert!(
        text.contains("=ondemand%0A"),
        "original bytes journaled: {text}"
    );
    let r = t.restore().unwrap();
    assert_eq!(r.restored, vec![o, g.clone()]);
    assert_eq!(read(d.path(), &g), "ondemand\n");
}

#[test]
fn drop_restores() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let before = snapshot(d.path());
    {
        let mut t = Tuning::begin(&host).unwrap();
        t.set_governor(&clusters(&host)[0], "powersave").unwrap();
        t.set_cpu_online(7, false).unwrap();
        assert_ne!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
    }
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
    assert!(!journal(d.path()).exists());
}

#[test]
fn every_policy_of_a_cluster_is_written() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let c = two_policy_cluster(&host);
    let mut t = Tuning::begin(&host).unwrap();
    t.set_governor(&c, "userspace").unwrap();
    t.set_setspeed_khz(&c, 1416000).unwrap();
    for p in [P4, P6] {
        assert_eq!(
            read(d.path(), &format!("{p}/scaling_governor")),
            "userspace"
        );
        assert_eq!(read(d.path(), &format!("{p}/scaling_setspeed")), "1416000");
    }
    assert_eq!(
        read(d.path(), &format!("{P0}/scaling_governor")),
        "ondemand\n"
    );
    drop(t);
    // `<unsupported>` comes back on a fixture (the kernel would show it once the governor
    // is restored).
    assert_eq!(
        read(d.path(), &format!("{P4}/scaling_setspeed")),
        "<unsupported>\n"
    );
}

#[test]
fn setspeed_needs_the_userspace_governor() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let mut t = Tuning::begin(&host).unwrap();
    let e = t
        .set_setspeed_khz(&clusters(&host)[0], 1200000)
        .unwrap_err();
    assert!(matches!(e, TuningError::NotUserspace { ref governor, .. } if governor == "ondemand"));
    assert!(e.to_string().contains("scaling_setspeed"), "{e}");
    assert_eq!(
        read(d.path(), &format!("{P0}/scaling_setspeed")),
        "<unsupported>\n"
    );
}

/// The order of the two writes is checked step by step in the unit test
/// `sysfs::tests::range_writes_never_cross` (a fixture file does not refuse min > max);
/// here: the values land and come back.
#[test]
fn range_changes_land_and_come_back() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let c = clusters(&host)
        .into_iter()
        .find(|c| c.policies == [0])
        .unwrap();
    let min = format!("{P0}/scaling_min_freq");
    let max = format!("{P0}/scaling_max_freq");
    let mut t = Tuning::begin(&host).unwrap();
    for (lo, hi) in [
        (1800000, 1800000),
        (408000, 408000),
        (1200000, 1608000),
        (600000, 816000),
    ] {
        t.set_range_khz(&c, lo, hi).unwrap();
        let (a, b): (u64, u64) = (
            read(d.path(), &min).trim().parse().unwrap(),
            read(d.path(), &max).trim().parse().unwrap(),
        );
        assert_eq!((a, b), (lo, hi));
    }
    let e = t.set_range_khz(&c, 2, 1).unwrap_err();
    assert!(
        e.to_string().contains("min 2 kHz is above max 1 kHz"),
        "{e}"
    );
    drop(t);
    assert_eq!(read(d.path(), &min), "408000\n");
    assert_eq!(read(d.path(), &max), "1800000\n");
}

#[test]
fn only_settings_paths_may_be_written() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let mut t = Tuning::begin(&host).unwrap();
    for bad in ["etc/passwd", "sys/../etc/passwd", "", "proc/stat", "sys//x"] {
        let e = t.write(bad, "x").unwrap_err();
        assert!(matches!(e, TuningError::InvalidPath { .. }), "{bad}: {e}");
    }
    let e = t.write("sys/nope/scaling_governor", "x").unwrap_err();
    assert!(matches!(e, TuningError::NotFound { .. }), "{e}");
    assert!(e.to_string().contains("sys/nope/scaling_governor"), "{e}");
    // Nothing was journaled for refused writes.
    let text = fs::read_to_string(journal(d.path())).unwrap();
    assert!(!text.lines().any(|l| l.starts_with("O ")), "{text}");
}

#[test]
fn a_second_session_on_the_same_root_is_refused_with_the_pid() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let _t = Tuning::begin(&host).unwrap();
    let e = Tuning::begin(&host).err().expect("second begin must fail");
    match &e {
        TuningError::Busy { pid, .. } => assert_eq!(*pid, Some(std::process::id())),
        other => panic!("{other}"),
    }
    assert!(
        e.to_string()
            .contains(&format!("pid {}", std::process::id())),
        "{e}"
    );
    // A different root is independent.
    let d2 = temp_rock5b();
    assert!(Tuning::begin(&Host::new(d2.path())).is_ok());
}

#[test]
fn recover_leaves_a_live_session_alone() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let mut t = Tuning::begin(&host).unwrap();
    let g = format!("{P0}/scaling_governor");
    t.write(&g, "performance").unwrap();
    assert_eq!(recover(&host).unwrap(), None);
    assert_eq!(read(d.path(), &g), "performance");
    assert!(journal(d.path()).exists());
}

#[test]
fn recover_without_a_journal_creates_nothing() {
    let d = temp_rock5b();
    assert_eq!(recover(&Host::new(d.path())).unwrap(), None);
    assert!(!d.path().join("var").exists());
}

fn killed_session(root: &std::path::Path) -> (Host, std::collections::BTreeMap<String, Vec<u8>>) {
    let host = Host::new(root);
    let before = snapshot(root);
    let mut t = Tuning::begin(&host).unwrap();
    for c in clusters(&host) {
        t.set_governor(&c, "userspace").unwrap();
        t.set_range_khz(&c, 408000, 408000).unwrap();
        t.set_setspeed_khz(&c, 408000).unwrap();
    }
    t.set_pcie_aspm_policy("performance").unwrap();
    t.write(ODD, "x").unwrap();
    testing::kill(t);
    assert_eq!(changed(&before, &snapshot(root)).len(), 3 * 4 + 2);
    (host, before)
}

#[test]
fn a_killed_session_is_restored_by_recover() {
    let d = temp_rock5b();
    let (host, before) = killed_session(d.path());
    let r: RestoreReport = recover(&host).unwrap().expect("a stale journal");
    assert_eq!(r.pid, Some(std::process::id()));
    assert_eq!(r.restored.len(), 14, "{r}");
    assert!(r.failed.is_empty() && !r.journal_kept, "{r}");
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
    assert!(!journal(d.path()).exists());
    assert_eq!(
        recover(&host).unwrap(),
        None,
        "nothing left the second time"
    );
}

#[test]
fn a_killed_session_is_restored_by_the_next_begin() {
    let d = temp_rock5b();
    let (host, before) = killed_session(d.path());
    let t = Tuning::begin(&host).unwrap();
    assert_eq!(t.recovered().map(|r| r.restored.len()), Some(14));
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
}

#[test]
fn a_restore_killed_half_way_is_finished_by_recover() {
    for (cut, by_recover) in [(1, false), (3, false), (6, false), (2, true), (5, true)] {
        let d = temp_rock5b();
        let host = Host::new(d.path());
        let before = snapshot(d.path());
        let mut t = Tuning::begin(&host).unwrap();
        for c in clusters(&host) {
            t.set_governor(&c, "performance").unwrap();
            t.set_range_khz(&c, 816000, 816000).unwrap();
        }
        t.write(ODD, "x").unwrap();
        if by_recover {
            // Killed while running, then the recovery itself is killed half way.
            testing::kill(t);
            testing::recover_then_die(&host, cut).unwrap();
        } else {
            // Killed half way through its own restore.
            let r = testing::kill_while_restoring(t, cut);
            assert!(!r.restored.is_empty());
        }
        let mid = changed(&before, &snapshot(d.path())).len();
        assert!(mid > 0, "cut {cut}: something must still be changed");
        assert!(journal(d.path()).exists());
        let r = recover(&host).unwrap().expect("rest of the restore");
        assert!(r.failed.is_empty(), "{r}");
        assert_eq!(
            changed(&before, &snapshot(d.path())),
            Vec::<String>::new(),
            "cut {cut} by_recover {by_recover}"
        );
        assert!(!journal(d.path()).exists());
    }
}

#[test]
fn a_torn_journal_tail_is_ignored() {
    let d = temp_rock5b();
    let (host, before) = killed_session(d.path());
    // A power loss in the middle of appending a record: a line without its newline. The
    // setting it was about to protect was never written.
    let j = journal(d.path());
    let mut data = fs::read(&j).unwrap();
    data.extend_from_slice(b"O 99 =sys/kernel/odd_bytes =garbage 1234");
    fs::write(&j, data).unwrap();
    let r = recover(&host).unwrap().unwrap();
    assert!(r.failed.is_empty(), "{r}");
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
}

#[test]
fn after_a_reboot_nothing_is_written_back() {
    let d = temp_rock5b();
    let boot = "proc/sys/kernel/random/boot_id";
    fs::create_dir_all(d.path().join("proc/sys/kernel/random")).unwrap();
    fs::write(d.path().join(boot), "aaaa\n").unwrap();
    let host = Host::new(d.path());
    let mut t = Tuning::begin(&host).unwrap();
    let g = format!("{P0}/scaling_governor");
    t.write(&g, "performance").unwrap();
    testing::kill(t);
    // The machine rebooted: the kernel reset the setting itself (here: to schedutil).
    fs::write(d.path().join(boot), "bbbb\n").unwrap();
    fs::write(d.path().join(&g), "schedutil\n").unwrap();
    let r = recover(&host).unwrap().unwrap();
    assert_eq!(r.restored, Vec::<String>::new());
    assert_eq!(r.skipped.len(), 1);
    assert!(r.skipped[0].1.contains("rebooted"), "{r}");
    assert_eq!(read(d.path(), &g), "schedutil\n");
    assert!(!journal(d.path()).exists());
}

#[test]
fn a_session_goes_on_after_restore() {
    let d = temp_rock5b();
    let host = Host::new(d.path());
    let before = snapshot(d.path());
    let mut t = Tuning::begin(&host).unwrap();
    let c = &clusters(&host)[0];
    t.set_governor(c, "performance").unwrap();
    t.restore().unwrap();
    assert!(!journal(d.path()).exists());
    t.set_governor(c, "powersave").unwrap();
    assert!(
        journal(d.path()).exists(),
        "a new journal for the new change"
    );
    testing::kill(t);
    recover(&host).unwrap().unwrap();
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
}

#[test]
fn a_panic_restores_through_the_hook_even_without_drop() {
    truebench_tuning::install_handlers();
    let d = temp_rock5b();
    let root = d.path().to_path_buf();
    let before = snapshot(&root);
    let r = std::thread::spawn(move || {
        let host = Host::new(&root);
        let mut t = Tuning::begin(&host).unwrap();
        t.set_governor(&clusters(&host)[1], "performance").unwrap();
        t.set_cpu_online(5, false).unwrap();
        // Leaked: its drop never runs, only the panic hook can restore.
        let _leak: &'static mut Tuning = Box::leak(Box::new(t));
        panic!("deliberate panic in the panic-restore test");
    })
    .join();
    assert!(r.is_err());
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
    assert!(!journal(d.path()).exists());
}

#[test]
fn a_panic_restores_through_unwinding() {
    let d = temp_rock5b();
    let root = d.path().to_path_buf();
    let before = snapshot(&root);
    let r = std::panic::catch_unwind(|| {
        let host = Host::new(&root);
        let mut t = Tuning::begin(&host).unwrap();
        t.set_governor(&clusters(&host)[0], "performance").unwrap();
        panic!("deliberate panic in the unwind-restore test");
    });
    assert!(r.is_err());
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
}
