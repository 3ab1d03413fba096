//! `interactivity` on the ROCK 5B fixture root (the command refuses a recorded root, the
//! suite does not: the tasks run on this machine, the evidence is read from the tree): a
//! cooling device records throttled time only while the Video-under-Burn cell runs, and only
//! that cell is marked.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_model::PhaseId;
use truebench_suites::interactivity::{self, Bench, InteractivityOptions, Work};
use truebench_suites::progress::{self, Event};
use truebench_workloads::loads::LoadKind;

#[test]
fn only_the_cell_measured_while_throttling_is_marked() {
    let dir = truebench_fixtures::root("rk3588-rock5b");
    let stats = truebench_fixtures::cooling_device(dir.path());
    let scratch = tempfile::tempdir().unwrap();
    let host = Host::new(dir.path());
    let inv = Inventory::probe(&host);
    let opts = InteractivityOptions {
        benchmarks: vec![Bench::Audio, Bench::Video],
        loads: vec![LoadKind::None, LoadKind::Burn],
        duration: Duration::from_millis(1500),
        realtime: false,
        bench_nice: 0,
        load_nice: 0,
        custom: None,
        burn_threads: Some(1),
        work: Work::Loops,
        // Calibrated once, not here: the cells are what this test is about.
        loops_per_ms: Some(1000),
        recalibrate: false,
        cache: None,
        scratch_dir: scratch.path().to_path_buf(),
        tune: false,
        sample_interval: Duration::from_millis(250),
        truebench_version: "test".into(),
        meter: None,
    };
    let mut throttler = None;
    let mut events = Vec::new();
    let r = interactivity::run(
        &host,
        &inv,
        &opts,
        Arc::new(AtomicBool::new(false)),
        &mut |e| {
            if let Event::Step { what, .. } = &e {
                if what == "Video under Burn" {
                    let stats = stats.clone();
                    throttler = Some(std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(500));
                        std::fs::write(&stats, "state0 1000\nstate1 300\n").unwrap();
                    }));
                }
            }
            events.push(e);
        },
    )
    .unwrap();
    throttler.expect("a Video under Burn cell").join().unwrap();
    assert_eq!(progress::check(&events), Ok(()), "{events:#?}");
    let f = r
        .envelope
        .findings
        .iter()
        .find(|f| f.kind == truebench_model::finding::FindingKind::Throttling)
        .unwrap_or_else(|| panic!("{:#?}", r.envelope.findings));
    assert_eq!(f.phases.len(), 1, "{:?}", f.phases);
    let mut marked = Vec::new();
    for b in &r.body.benchmarks {
        for c in &b.cells {
            let during = c.evidence.phase.is(&f.phases[0]);
            assert_eq!(
                c.evidence.marks.iter().any(|m| m == "throttling"),
                during,
                "{c:#?}"
            );
            assert_eq!(c.evidence.invalid.is_some(), during, "{c:#?}");
            if during {
                marked.push((b.name.to_string(), c.load.to_string()));
            }
        }
    }
    assert_eq!(marked.len(), 1, "{marked:?}");
    assert_eq!(marked[0].0.to_lowercase(), "video");
    assert_eq!(marked[0].1.to_lowercase(), "burn");
}

/// Each cell records the deepest idle state its CPUs entered: on the Snapdragon phone's dump,
/// cpu7 enters gold-plus-c4 only while Audio under Burn runs; the cell before it entered
/// none.
#[test]
fn each_cell_records_the_deepest_idle_state_entered() {
    const PHONE: &str = "arm-A510-A710-A715-X3";
    let dir = truebench_fixtures::sysfs_dump(PHONE);
    let root = dir.path().join(PHONE);
    let scratch = tempfile::tempdir().unwrap();
    let host = Host::new(&root);
    let inv = Inventory::probe(&host);
    let opts = InteractivityOptions {
        benchmarks: vec![Bench::Audio],
        loads: vec![LoadKind::None, LoadKind::Burn],
        duration: Duration::from_millis(800),
        realtime: false,
        bench_nice: 0,
        load_nice: 0,
        custom: None,
        burn_threads: Some(1),
        work: Work::Loops,
        loops_per_ms: Some(1000),
        recalibrate: false,
        cache: None,
        scratch_dir: scratch.path().to_path_buf(),
        tune: false,
        sample_interval: Duration::from_millis(250),
        truebench_version: "test".into(),
        meter: None,
    };
    let mut sleeper = None;
    let r = interactivity::run(
        &host,
        &inv,
        &opts,
        Arc::new(AtomicBool::new(false)),
        &mut |e| {
            if let Event::Step { what, .. } = &e {
                if what == "Audio under Burn" {
                    let root = root.clone();
                    sleeper = Some(std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(300));
                        truebench_fixtures::cpuidle::grow_idle(&root, 7, 1, 4, 30_000);
                    }));
                }
            }
        },
    )
    .unwrap();
    sleeper.expect("an Audio under Burn cell").join().unwrap();
    let cells = &r.body.benchmarks[0].cells;
    assert_eq!(cells.len(), 2);
    assert_eq!(cells[0].deepest_idle, None, "{:#?}", cells[0]);
    let d = cells[1]
        .deepest_idle
        .as_ref()
        .expect("entered during the cell");
    assert_eq!(
        (d.state.as_str(), d.exit_latency_us, d.cpus.clone()),
        ("gold-plus-c4", Some(1850), vec![7])
    );
}
