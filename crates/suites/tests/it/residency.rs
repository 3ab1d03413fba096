//! Each phase keeps its frequency × idle residency: on the Snapdragon phone's dump, counters
//! advanced inside a phase (cpuidle `usage`/`time`, the policy's `time_in_state`) come back
//! as that phase's seconds per clock, entries and CPU-seconds per idle state, and the deepest
//! state entered; a phase in which nothing advanced has none entered.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_fixtures::cpuidle::grow_idle;
use truebench_host::{Host, Inventory};
use truebench_suites::session::{Finish, Outcome, Session, SessionOptions};

use crate::session::body;

const PHONE: &str = "arm-A510-A710-A715-X3";

#[test]
fn each_phase_keeps_its_clock_and_idle_residency() {
    let dir = truebench_fixtures::sysfs_dump(PHONE);
    let r = dir.path().join(PHONE);
    std::fs::create_dir_all(r.join("dev")).unwrap();
    std::fs::write(r.join("dev/kmsg"), "").unwrap();
    let host = Host::new(&r);
    let inv = Inventory::probe(&host);
    let opts = SessionOptions {
        sample_interval: Duration::from_millis(50),
        ..Default::default()
    };
    let mut s = Session::start(&host, &inv, &opts, Arc::new(AtomicBool::new(false))).unwrap();
    s.phase("busy", "cpu4 sleeps deeply", Some(1), Vec::new(), |_| {
        // cpu4: 12 entries of gold-c4, 2 s in it; 500 WFI entries over 0.9 s. cpu0: WFI only.
        grow_idle(&r, 4, 1, 12, 2_000_000);
        grow_idle(&r, 4, 0, 500, 900_000);
        grow_idle(&r, 0, 0, 40, 100_000);
        truebench_fixtures::grow_time_in_state(&r, 3, &[(2803200, 150), (614400, 50)]);
        Outcome::default()
    });
    s.phase("still", "nothing sleeps", Some(1), vec![7], |_| {
        Outcome::default()
    });
    let doc = s.finish(body(), Finish { comparable: true });
    let phases = &doc.envelope.phases;

    let busy = phases[0]
        .residency
        .as_ref()
        .expect("the phone has both statistics");
    let cores: Vec<_> = busy
        .clusters
        .iter()
        .map(|c| (c.cpus.clone(), c.core_type.clone().unwrap()))
        .collect();
    assert_eq!(cores[1], (vec![3, 4], "Cortex-A715".to_string()));
    let a715 = &busy.clusters[1];
    assert_eq!(a715.opp_s, [(614, 0.5), (2803, 1.5)]);
    assert_eq!(a715.idle.len(), 2);
    assert_eq!(
        (a715.idle[1].state.as_str(), a715.idle[1].entries),
        ("gold-c4", 12)
    );
    assert!((a715.idle[1].cpu_s - 2.0).abs() < 1e-9);
    assert_eq!(a715.idle[0].entries, 500);
    let deep = a715.deepest.as_ref().unwrap();
    assert_eq!(
        (deep.state.as_str(), deep.exit_latency_us, deep.cpus.clone()),
        ("gold-c4", Some(1900), vec![4])
    );
    let a510 = &busy.clusters[0];
    assert_eq!(a510.deepest.as_ref().unwrap().state, "WFI");
    assert_eq!(busy.deepest().unwrap().state, "gold-c4");

    // The second phase names cpu7 only: one cluster, nothing entered.
    let still = phases[1].residency.as_ref().unwrap();
    assert_eq!(still.clusters.len(), 1);
    assert_eq!(still.clusters[0].cpus, [7]);
    assert!(still.clusters[0].deepest.is_none());
    assert!(still.clusters[0].idle.iter().all(|i| i.entries == 0));
    assert!(still.deepest().is_none());

    // The table in the detailed log, the Markdown and the report page.
    let doc = doc.into_document();
    let log = truebench_render::kinds::detailed_log(&doc);
    assert!(log.contains("Frequency × idle residency:\n"), "{log}");
    assert!(
        log.contains("  cpu3-4 (Cortex-A715)\n    clock: 614 MHz 25.0 % (0.50 s), 2803 MHz 75.0 % (1.50 s)\n"),
        "{log}"
    );
    assert!(log.contains("; deepest gold-c4 (1900 µs exit)\n"), "{log}");
    assert!(log.contains("  cpu7 (Cortex-X3)\n"), "{log}");
    assert!(log.contains("; deepest none entered\n"), "{log}");
    // 2.9 s of idle counted in a phase of milliseconds: seconds shown, no share.
    assert!(
        log.contains(
            "    idle:  WFI 500× 0.90 s, gold-c4 12× 2.00 s; deepest gold-c4 (1900 µs exit)\n"
        ),
        "{log}"
    );
    let md = truebench_render::kinds::markdown(&doc);
    assert!(md.contains("### Frequency × idle residency"), "{md}");
    assert!(md.contains("| busy | cpu3-4 (Cortex-A715) | 614 MHz 25.0 % (0.50 s), 2803 MHz 75.0 % (1.50 s) | WFI 500× 0.90 s, gold-c4 12× 2.00 s | gold-c4 (1900 µs exit) |"), "{md}");
    let html = truebench_render::kinds::html_page(&doc);
    assert!(html.contains("<h2>Frequency × idle residency</h2>"));
    assert!(
        html.contains("gold-plus-c4 0× 0.00 s"),
        "cpu7 in the still phase: {html}"
    );
}
