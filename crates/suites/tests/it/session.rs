//! The Session on a recorded ROCK 5B root: phases with their evidence, a setting written
//! through it and restored byte for byte at the end, and Ctrl-C turned into a partial result.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_model::{MonitorBody, PhaseStatus};
use truebench_suites::session::{Finish, Outcome, Session, SessionOptions};

const GOV: &str = "sys/devices/system/cpu/cpufreq/policy4/scaling_governor";

/// A monitor body for sessions that only test the session (shared by the suites' tests).
pub(crate) fn body() -> MonitorBody {
    MonitorBody {
        command: vec!["test".into()],
        exit_code: Some(0),
        signal: None,
        error: None,
        start_failure: None,
        duration_s: 0.0,
        interval_s: 0.05,
        threads: None,
        clusters: Vec::new(),
        score_ratio: None,
    }
}

/// Options sampling every 50 ms (shared by the suites' tests).
pub(crate) fn opts() -> SessionOptions {
    SessionOptions {
        sample_interval: Duration::from_millis(50),
        ..Default::default()
    }
}

#[test]
fn phases_tuning_and_the_envelope() {
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = truebench_fixtures::tree_bytes(root.path(), &["var/lib/truebench", "dev/kmsg"]);
    let host = Host::new(root.path());
    let inv = Inventory::probe(&host);
    let mut s = Session::start(&host, &inv, &opts(), Arc::new(AtomicBool::new(false))).unwrap();
    s.begin_tuning(true, None).unwrap();
    if !s.tuned() {
        // Tuning a fixture root needs write access to it; every CI run is root.
        truebench_fixtures::skip!("this user cannot write the fixture root's journal");
    }
    // Through Tuning's typed setter: the cluster of policy4 (its Cortex-A76 pair).
    let big = inv
        .clusters
        .iter()
        .find(|c| c.policies.contains(&4))
        .unwrap();
    s.set_governor(big, "powersave").unwrap();
    assert_eq!(
        std::fs::read_to_string(root.path().join(GOV))
            .unwrap()
            .trim(),
        "powersave"
    );
    let p = s.phase("first", "a phase that works", Some(1), vec![4], |_| {
        std::thread::sleep(Duration::from_millis(200));
        Outcome::default()
    });
    assert_eq!(p.status, PhaseStatus::Ok);
    let p = s.phase("second", "a phase that fails", None, vec![], |s| {
        s.note("a note from the phase");
        Outcome::failed("it did not work")
    });
    assert_eq!(p.status, PhaseStatus::Failed);
    let doc = s.finish(body(), Finish { comparable: true });
    let env = &doc.envelope;
    assert!(env.complete);
    assert_eq!(
        env.phases
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>(),
        ["first", "second"]
    );
    assert_eq!(env.phases[0].threads, Some(1));
    assert!(env.phases[0].duration_s().unwrap() >= 0.2);
    // Both phases are marked on the timeline that was sampled meanwhile.
    assert_eq!(env.timeline.phases.len(), 2);
    assert!(!env.timeline.samples.is_empty());
    assert!(env.tuning.requested && env.tuning.applied);
    assert_eq!(env.tuning.changes.len(), 1, "{:?}", env.tuning.changes);
    assert_eq!(env.tuning.changes[0].path, GOV);
    assert!(env
        .tuning
        .restored
        .iter()
        .any(|p| p.ends_with("scaling_governor")));
    assert!(env.notes.iter().any(|n| n == "a note from the phase"));
    assert!(env
        .notes
        .iter()
        .any(|n| n.contains("is a recorded machine")));
    assert_eq!(env.inventory.clusters.len(), 3);
    // Everything written is back, byte for byte.
    assert_eq!(
        truebench_fixtures::tree_bytes(root.path(), &["var/lib/truebench", "dev/kmsg"]),
        before
    );
}

#[test]
fn a_stop_during_a_phase_gives_a_partial_result() {
    let root = truebench_fixtures::root("rk3588-rock5b");
    let host = Host::new(root.path());
    let inv = Inventory::probe(&host);
    let stop = Arc::new(AtomicBool::new(false));
    let mut s = Session::start(&host, &inv, &opts(), stop.clone()).unwrap();
    s.begin_tuning(false, Some("not wanted here".into()))
        .unwrap();
    s.phase("done", "finished before the stop", None, vec![], |_| {
        Outcome::default()
    });
    s.phase("cut", "stopped halfway", None, vec![], |_| {
        stop.store(true, Ordering::SeqCst);
        Outcome::default()
    });
    assert!(s.stopped());
    let doc = s.finish(body(), Finish { comparable: true });
    let env = &doc.envelope;
    assert!(!env.complete && !env.valid);
    assert_eq!(env.phases[0].status, PhaseStatus::Ok);
    assert_eq!(env.phases[1].status, PhaseStatus::Interrupted);
    assert_eq!(
        env.incomplete_reason.as_deref(),
        Some("interrupted (Ctrl-C or SIGTERM) during 'cut'")
    );
    assert_eq!(env.tuning.reason.as_deref(), Some("not wanted here"));
    assert!(!env.tuning.applied);
}

fn put(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn append(root: &std::path::Path, rel: &str, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(root.join(rel))
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// Evidence tied to its phase: on the ROCK 5B root at the performance governor, the big
/// cores fall to a lower OPP during 'b' only and a critical-temperature line is logged
/// during 'c' only. Each finding names exactly the phase it happened in, so rows measured
/// in 'a' and 'd' stay clean and those of 'b' and 'c' are invalid — with the reason.
#[test]
fn findings_carry_the_phases_they_happened_in() {
    use truebench_model::finding::FindingKind;
    use truebench_monitor_core::detect::phases::{invalid_by, marks};
    let root = truebench_fixtures::root("rk3588-rock5b");
    let r = root.path();
    put(r, "dev/kmsg", "");
    for p in [0, 4, 6] {
        put(
            r,
            &format!("sys/devices/system/cpu/cpufreq/policy{p}/scaling_governor"),
            "performance\n",
        );
    }
    let host = Host::new(r);
    let inv = Inventory::probe(&host);
    let mut s = Session::start(&host, &inv, &opts(), Arc::new(AtomicBool::new(false))).unwrap();
    s.begin_tuning(false, None).unwrap();
    let top = |p: u32| truebench_fixtures::grow_time_in_state(r, p, &[(2400000, 100)]);
    let little = || truebench_fixtures::grow_time_in_state(r, 0, &[(1800000, 100)]);
    s.phase("a", "clean", Some(1), vec![4], |_| {
        little();
        top(4);
        top(6);
        Outcome::default()
    });
    s.phase("b", "throttled", Some(1), vec![4], |_| {
        little();
        truebench_fixtures::grow_time_in_state(r, 4, &[(2400000, 20), (1800000, 80)]);
        top(6);
        Outcome::default()
    });
    s.phase("c", "tripped", Some(1), vec![4], |_| {
        little();
        top(4);
        top(6);
        append(
            r,
            "dev/kmsg",
            "[ 4242.000000] thermal thermal_zone0: critical temperature reached (115 C), shutting down\n",
        );
        Outcome::default()
    });
    s.phase("d", "clean again", Some(1), vec![4], |_| {
        little();
        top(4);
        top(6);
        Outcome::default()
    });
    let doc = s.finish(body(), Finish { comparable: true });
    let f = &doc.envelope.findings;
    let of = |k: FindingKind| {
        f.iter()
            .find(|x| x.kind == k)
            .unwrap_or_else(|| panic!("no {k:?} in {f:#?}"))
    };
    assert_eq!(of(FindingKind::Throttling).phases, ["b"], "{f:#?}");
    assert_eq!(of(FindingKind::ThermalTrip).phases, ["c"], "{f:#?}");
    assert!(
        marks(f, "a").is_empty() && marks(f, "d").is_empty(),
        "{f:#?}"
    );
    assert_eq!(marks(f, "b"), ["throttling"]);
    assert_eq!(marks(f, "c"), ["thermal_trip"]);
    assert_eq!(invalid_by(f, "b", &[]).as_deref(), Some("throttling"));
    assert_eq!(invalid_by(f, "c", &[]).as_deref(), Some("thermal_trip"));
    assert_eq!(invalid_by(f, "a", &[]), None);
    // The phases survive the document's round trip.
    let v = serde_json::to_value(&doc.envelope.findings).unwrap();
    assert!(v.to_string().contains(r#""phases":["b"]"#), "{v}");
}
