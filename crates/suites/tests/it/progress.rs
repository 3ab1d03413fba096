//! The progress of the suites that had none of their own: `review -R` and `monitor
//! --per-cluster` say their plan, each step i of n and its result, like every long command.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_suites::command::{self, CommandOptions};
use truebench_suites::progress::{check, Event};
use truebench_suites::review::{self, ReviewOptions};

fn steps(events: &[Event]) -> Vec<(usize, usize, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Step {
                index, total, what, ..
            } => Some((*index, *total, what.clone())),
            _ => None,
        })
        .collect()
}

fn scores(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Score { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn review_tuned_says_its_plan_and_the_monitoring_as_one_step() {
    let root = truebench_fixtures::root("rk3588-rock5b");
    let host = Host::new(root.path());
    let inv = Inventory::probe(&host);
    let opts = ReviewOptions {
        tune: true,
        duration: Some(Duration::from_millis(300)),
        interval: Duration::from_millis(100),
        ..Default::default()
    };
    let mut events = Vec::new();
    let r = review::run(
        &host,
        &inv,
        None,
        &opts,
        Arc::new(AtomicBool::new(false)),
        &mut |e| events.push(e),
    )
    .unwrap();
    assert!(r.body.tuned);
    assert_eq!(check(&events), Ok(()), "{events:#?}");
    assert!(
        matches!(&events[0], Event::Plan { headline, .. }
            if headline == "settings tuned to performance; monitoring for 0.3 s (Ctrl-C ends earlier)…"),
        "{events:#?}"
    );
    assert_eq!(steps(&events), [(1, 1, "monitoring".to_string())]);
    let ends = scores(&events);
    assert_eq!(ends.len(), 1, "{events:#?}");
    assert!(ends[0].starts_with("ok, "), "{ends:?}");
}

#[test]
fn review_without_monitoring_says_nothing() {
    let root = truebench_fixtures::root("rk3588-rock5b");
    let host = Host::new(root.path());
    let inv = Inventory::probe(&host);
    let mut events = Vec::new();
    review::run(
        &host,
        &inv,
        None,
        &ReviewOptions {
            interval: Duration::from_millis(100),
            ..Default::default()
        },
        Arc::new(AtomicBool::new(false)),
        &mut |e| events.push(e),
    )
    .unwrap();
    assert_eq!(events, []);
}

#[test]
fn per_cluster_runs_are_steps_with_their_ending() {
    let root = truebench_fixtures::root("rk3588-rock5b");
    let host = Host::new(root.path());
    let inv = Inventory::probe(&host);
    let opts = CommandOptions {
        interval: Duration::from_millis(100),
        threads: None,
        kernel_log: None,
        per_cluster: Some(false),
        meter: None,
        score: None,
        each_sample: None,
    };
    let cmd = ["sh", "-c", "echo 'Tot: 100 100 3000'"].map(String::from);
    let mut events = Vec::new();
    command::run(
        &host,
        &inv,
        &cmd,
        &opts,
        Arc::new(AtomicBool::new(false)),
        &mut |e| events.push(e),
    )
    .unwrap();
    assert_eq!(check(&events), Ok(()), "{events:#?}");
    assert!(matches!(events[0], Event::Plan { .. }), "{events:#?}");
    assert_eq!(
        steps(&events),
        [
            (1, 2, "Cortex-A55 (cpu0-cpu3)".to_string()),
            (2, 2, "Cortex-A76 (cpu4-cpu7)".to_string()),
        ]
    );
    assert_eq!(
        scores(&events),
        [
            "exit code 0, score 3000 MIPS",
            "exit code 0, score 3000 MIPS"
        ]
    );
}

/// net over loopback: each test × repeat a step with its estimate, ended by its result.
#[test]
fn net_tests_are_steps_with_their_throughput() {
    use truebench_suites::net::{self, NetOptions, Peer};
    use truebench_suites::sweep::Plan;
    use truebench_workloads::net::Direction;
    let root = truebench_fixtures::root("rk3588-rock5b");
    let host = Host::new(root.path());
    let inv = Inventory::probe(&host);
    let opts = NetOptions {
        peer: Peer::Loopback,
        plan: Plan {
            tests: vec![Direction::Upload, Direction::Download],
            duration: Duration::from_millis(200),
            repeat: 2,
            cpu_bound_pct: 90.0,
            sweep: Vec::new(),
        },
        streams: 1,
        zerocopy: false,
        sample_interval: Duration::from_millis(100),
        truebench_version: "test".into(),
        meter: None,
    };
    let mut events = Vec::new();
    net::run(
        &host,
        &inv,
        &opts,
        Arc::new(AtomicBool::new(false)),
        &mut |e| events.push(e),
    )
    .unwrap();
    assert_eq!(check(&events), Ok(()), "{events:#?}");
    // The second repeat runs the tests in the other order.
    assert_eq!(
        steps(&events),
        [
            (1, 4, "upload (as is)".to_string()),
            (2, 4, "download (as is)".to_string()),
            (3, 4, "download (as is)".to_string()),
            (4, 4, "upload (as is)".to_string()),
        ]
    );
    assert!(events.iter().all(|e| !matches!(
        e,
        Event::Step { estimate, .. } if *estimate != Some(Duration::from_millis(200))
    )));
    let ends = scores(&events);
    assert_eq!(ends.len(), 4, "{events:#?}");
    assert!(
        ends.iter()
            .all(|t| t.starts_with("ok, ") && t.contains(" Mbit/s")),
        "{ends:?}"
    );
}
