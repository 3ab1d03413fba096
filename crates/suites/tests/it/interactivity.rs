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
