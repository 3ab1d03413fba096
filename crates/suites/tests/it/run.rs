//! `truebench run`'s orchestration on fixture roots with scripted kernels.
//!
//! The root is the hand-modelled ROCK 5B (RK3588: cpu0-3 Cortex-A55, cpu4-5 and cpu6-7
//! Cortex-A76, cpufreq-dt with time_in_state) from `tests/data/roots`, copied to a temp dir.
//! The kernels are fakes that return canned results — and script what happens to the machine
//! while they run: time_in_state growing at a lower OPP (throttling), `/proc/stat` and a
//! process's CPU time growing (background load), the stop flag (Ctrl-C). The real tuning,
//! sampler, snapshots, detectors and renderers run on the fixture's files.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use truebench_model::finding::{FindingKind, Severity};
use truebench_model::{AesSourceKind, CompressionTool, Mode, PhaseId, PhaseStatus, Scores};
use truebench_render::text as render;
use truebench_suites::progress::{self, Event};
use truebench_suites::run::RunError;

use crate::run_support;
use run_support::*;

#[test]
fn clean_run_tunes_measures_every_cluster_and_restores_byte_for_byte() {
    let d = rock5b();
    let before = settings(d.path());
    let mut fake = Fake::new(d.path());
    let (r, events) = go(
        d.path(),
        &opts(Mode::Standard),
        &mut fake,
        Arc::new(AtomicBool::new(false)),
    );
    let r = r.unwrap();
    assert_eq!(
        names(&r),
        [
            "idle",
            "clocks-cold",
            "memory",
            "aes",
            "compression-single",
            "compression-multi",
            "clocks-hot"
        ]
    );
    assert!(
        r.envelope
            .phases
            .iter()
            .all(|p| p.status == PhaseStatus::Ok),
        "{:#?}",
        r.envelope.phases
    );
    assert!(r.envelope.complete && r.envelope.comparable);
    assert!(r.envelope.valid, "{}", render::summary(r.view()));
    // The timeline carries the same phases with their parallelism.
    let tl: Vec<(&str, Option<u32>)> = r
        .envelope
        .timeline
        .phases
        .iter()
        .map(|p| (p.name.as_str(), p.threads))
        .collect();
    assert_eq!(tl[2], ("memory", Some(1)));
    assert_eq!(tl[5], ("compression-multi", Some(8)));

    // Single-threaded work pinned to the first CPU of each of the three clusters.
    for k in ["memory", "aes", "single"] {
        let cpus: Vec<&String> = fake.calls.iter().filter(|c| c.starts_with(k)).collect();
        assert_eq!(cpus.len(), 3, "{k}: {:?}", fake.calls);
    }
    assert_eq!(
        fake.calls.iter().filter(|c| c.starts_with("multi")).count(),
        3
    );
    assert!(
        fake.calls.contains(&"memory cpu4".to_string()),
        "{:?}",
        fake.calls
    );

    // Tuning: performance everywhere, devfreq and ASPM too; all restored.
    let changed: Vec<(&str, &str)> = r
        .envelope
        .tuning
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.value.as_str()))
        .collect();
    for p in [0, 4, 6] {
        assert!(changed.contains(&(
            format!("{CPU}/cpufreq/policy{p}/scaling_governor").as_str(),
            "performance"
        )));
    }
    assert!(changed.contains(&("sys/class/devfreq/fb000000.gpu/governor", "performance")));
    assert!(changed.contains(&("sys/module/pcie_aspm/parameters/policy", "performance")));
    assert!(
        r.envelope.tuning.applied && r.envelope.tuning.changes.iter().all(|c| c.error.is_none())
    );
    assert!(r.envelope.tuning.restore_failed.is_empty());
    assert_eq!(settings(d.path()), before, "every file back byte for byte");

    // The cold walk covered every OPP; the hot check measured the top OPP of each cluster.
    let Some(Scores::Clocks(cold)) = r.body.scores("clocks-cold").next() else {
        panic!()
    };
    assert_eq!(cold.clusters.len(), 3);
    assert!(cold
        .clusters
        .iter()
        .all(|c| c.mode == truebench_model::clocks::WalkMode::OppWalk && c.points.len() >= 7));
    let Some(Scores::Clocks(hot)) = r.body.scores("clocks-hot").next() else {
        panic!()
    };
    let hot_opps: Vec<Option<u32>> = hot.clusters.iter().map(|c| c.points[0].opp_mhz).collect();
    assert_eq!(hot_opps, [Some(1800), Some(2400), Some(2400)]);

    // Scores and the row: best cluster for memory and AES, 7-zip from the canned output.
    // memcpy/memset are tinymembench's measure (standard memcpy of the big cluster), not
    // the faster best method's 10000/24000.
    let row = render::row(r.view());
    assert_eq!(row.memcpy, Some(6000));
    assert_eq!(row.memset, Some(16000));
    assert_eq!(row.aes, Some(1_100_000));
    assert_eq!(row.sevenzip_single, Some(3659));
    assert_eq!(row.sevenzip_multi, Some(3660));
    assert_eq!(row.clock, "2400/1800 MHz");
    assert!(!row.throttled);
    assert_eq!(row.kernel, "5.10");
    // A result from before the standard figures were taken: not compared, and said so.
    let mut old = r.clone();
    for p in old.body.scores.iter_mut() {
        if let Scores::Memory(m) = &mut p.scores {
            for c in m.clusters.iter_mut() {
                c.standard_memcpy = None;
                c.standard_memset = None;
            }
        }
    }
    let old_row = render::row(old.view());
    assert_eq!((old_row.memcpy, old_row.memset), (None, None));
    assert!(
        old_row
            .notes
            .iter()
            .any(|n| n.contains("tinymembench's measure") && n.contains("not compared")),
        "{:?}",
        old_row.notes
    );

    // Progress events: a plan, then start/end for every phase in order.
    assert!(matches!(events[0], Event::Plan { ref steps, .. } if steps.len() == 7));
    let starts = events
        .iter()
        .filter(|e| matches!(e, Event::Step { .. }))
        .count();
    assert_eq!(starts, 7);
    assert_eq!(progress::check(&events), Ok(()));
    let ends = events
        .iter()
        .filter(|e| matches!(e, Event::Score { .. }))
        .count();
    assert_eq!(ends, 7);

    let summary = render::summary(r.view());
    for want in [
        "Results validation",
        "memcpy: 10000.0 MB/s (0.4%)",
        "7-zip total scores (3 consecutive runs): 3659,3659,3659",
        "aes-256-cbc",
        "Cortex-A76",
        "Verdict: valid",
    ] {
        assert!(summary.contains(want), "{want} missing in:\n{summary}");
    }
    let log = render::detailed_log(r.view());
    for p in &r.envelope.phases {
        assert!(
            log.contains(&format!("System health while running {}:", p.title)),
            "{}",
            p.name
        );
    }
    assert!(log.contains("CPU sysfs topology"));
    assert!(
        log.contains("Tot:              99   3688   3659"),
        "raw 7-zip output in the log"
    );
    check_document(&r);
}

#[test]
fn scripted_throttling_during_the_multi_core_run_invalidates_the_result() {
    let d = rock5b();
    let mut fake = Fake::new(d.path()).script("multi", |root, _| {
        // The big cluster spends 30 s of 40 below its top OPP.
        truebench_fixtures::grow_time_in_state(root, 4, &[(2400000, 1000), (2208000, 3000)]);
    });
    let (r, _) = go(
        d.path(),
        &opts(Mode::Standard),
        &mut fake,
        Arc::new(AtomicBool::new(false)),
    );
    let r = r.unwrap();
    let t = r
        .envelope
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Throttling)
        .unwrap_or_else(|| panic!("no throttling finding:\n{}", render::detailed_log(r.view())));
    assert_eq!(t.severity, Severity::Critical);
    assert!(!r.envelope.valid && r.envelope.complete);
    // Typed in the document, sbc-bench's layout in the text.
    let text = truebench_render::throttling::text(&r.envelope.throttling);
    assert!(text.contains("Throttling statistics"), "{text}");
    assert!(text.contains("2208 MHz:   90.00 sec"), "{text}");
    assert!(
        r.envelope
            .throttling
            .iter()
            .any(|t| t.time_in_state.contains(&(2208, 90.0))),
        "{:?}",
        r.envelope.throttling
    );
    assert!(render::detailed_log(r.view()).contains("2208 MHz:   90.00 sec"));
    assert!(render::row(r.view()).throttled);
    assert!(render::summary(r.view()).contains("INVALID"));
    check_document(&r);
}

#[test]
fn background_load_during_a_single_threaded_phase_names_the_process() {
    let d = rock5b();
    put(
        d.path(),
        "proc/4242/stat",
        "4242 (cryptominer) R 1 4242 4242 0 -1 4194560 0 0 0 0 100 0 0 0 20 0 1 0 900 0 0\n",
    );
    let mut fake = Fake::new(d.path()).script("memory", |root, _| {
        // 75 % of all eight CPUs busy while a single-threaded benchmark (12.5 %) runs; the
        // miner takes the rest.
        for i in 1..=8u64 {
            let busy = 600 * i;
            let idle = 200 * i;
            let stat = read(root, "proc/stat");
            let rest = stat.split_once('\n').unwrap().1.to_string();
            put(
                root,
                "proc/stat",
                &format!(
                    "cpu  {} 34 1146 {} 240 75 206 0 0 0\n{rest}",
                    2382 + busy,
                    57677 + idle
                ),
            );
            put(
                root,
                "proc/4242/stat",
                &format!(
                    "4242 (cryptominer) R 1 4242 4242 0 -1 4194560 0 0 0 0 {} 0 0 0 20 0 1 0 900 0 0\n",
                    100 + 50 * i
                ),
            );
            std::thread::sleep(Duration::from_millis(60));
        }
    });
    let (r, _) = go(
        d.path(),
        &opts(Mode::Standard),
        &mut fake,
        Arc::new(AtomicBool::new(false)),
    );
    let r = r.unwrap();
    let f = r
        .envelope
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::BackgroundActivity)
        .unwrap_or_else(|| panic!("no background finding:\n{}", render::detailed_log(r.view())));
    assert!(f.message.contains("'memory'"), "{}", f.message);
    assert!(f.message.contains("cryptominer"), "{}", f.message);
    assert_eq!(f.severity, Severity::Critical);
    assert!(
        f.evidence
            .iter()
            .any(|e| e.contains("cryptominer (pid 4242)")),
        "{:#?}",
        f.evidence
    );
    // Only the phase with the load is blamed.
    assert_eq!(
        r.envelope
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::BackgroundActivity)
            .count(),
        1
    );
    assert!(!r.envelope.valid);
}

#[test]
fn ctrl_c_during_aes_ends_with_a_partial_result_and_restored_settings() {
    let d = rock5b();
    let before = settings(d.path());
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let mut fake = Fake::new(d.path()).script("aes", move |_, _| s2.store(true, Ordering::SeqCst));
    let (r, _) = go(d.path(), &opts(Mode::Standard), &mut fake, stop);
    let r = r.unwrap();
    assert!(!r.envelope.complete && !r.envelope.valid);
    assert!(
        r.envelope
            .incomplete_reason
            .as_deref()
            .unwrap()
            .contains("'aes'"),
        "{:?}",
        r.envelope.incomplete_reason
    );
    assert_eq!(names(&r), ["idle", "clocks-cold", "memory", "aes"]);
    assert_eq!(r.envelope.phases[3].status, PhaseStatus::Interrupted);
    assert!(
        !fake.calls.iter().any(|c| c.starts_with("single")),
        "{:?}",
        fake.calls
    );
    assert_eq!(settings(d.path()), before);
    assert!(render::summary(r.view()).contains("INCOMPLETE"));
    check_document(&r);
}

#[test]
fn without_openssl_and_7zip_the_builtins_say_what_they_are() {
    let d = rock5b();
    let mut fake = Fake::new(d.path());
    fake.openssl = false;
    fake.sevenzip = false;
    let (r, _) = go(
        d.path(),
        &opts(Mode::Quick),
        &mut fake,
        Arc::new(AtomicBool::new(false)),
    );
    let r = r.unwrap();
    assert!(!r.envelope.comparable);
    let Some(Scores::Aes(a)) = r.body.scores("aes").next() else {
        panic!()
    };
    assert_eq!(a.source, AesSourceKind::Builtin);
    assert_eq!(a.tables.len(), 3);
    let Some(Scores::Compression(c)) = r.body.scores("compression-multi").next() else {
        panic!()
    };
    assert_eq!(c.tool, CompressionTool::BuiltinLzma);
    assert_eq!(c.runs.len(), 1, "quick: one all-core run");
    assert!(c.runs[0].total_mips.is_none() && c.runs[0].compress_mb_s == Some(24.0));
    let s = render::summary(r.view());
    assert!(s.contains("7-zip scores were not taken"), "{s}");
    assert!(s.contains("not 7-zip MIPS"), "{s}");
    assert!(s.contains("NOT comparable"), "{s}");
    let row = render::row(r.view());
    assert_eq!(row.sevenzip_multi, None);
    check_document(&r);
}

#[test]
fn extensive_mode_adds_parallel_aes_per_cluster_7zip_stress_and_all_core_clocks() {
    let d = rock5b();
    let mut fake = Fake::new(d.path());
    let mut o = opts(Mode::Extensive);
    o.stress_seconds = 1.0;
    let (r, _) = go(d.path(), &o, &mut fake, Arc::new(AtomicBool::new(false)));
    let r = r.unwrap();
    let n = names(&r);
    for want in ["aes-parallel", "stress", "clocks-all"] {
        assert!(n.contains(&want), "{n:?}");
    }
    assert_eq!(n.iter().filter(|x| **x == "compression-cluster").count(), 3);
    assert!(
        fake.calls.iter().any(|c| c.contains("multi Some(8)")),
        "{:?}",
        fake.calls
    );
    let Some(Scores::Stress(s)) = r.body.scores("stress").next() else {
        panic!()
    };
    assert_eq!(s.intervals.len(), 4);
    assert!((s.change_pct.unwrap() + 25.0).abs() < 1e-9);
    let Some(Scores::Clocks(all)) = r.body.scores("clocks-all").next() else {
        panic!()
    };
    assert_eq!(all.all_cores.as_ref().unwrap().load.len(), 8);
    let summary = render::summary(r.view());
    assert!(summary.contains(
        "Stress (built-in, GFLOP/s per interval): 40.00,40.00,36.00,30.00 (-25.0% first to last)"
    ));
    // Every CPU at its cluster's top OPP (the probe reports scaling_max_freq − 3 MHz).
    assert!(
        summary.contains("All CPUs at once, idle/under load (MHz): cpu0 1797/1797, cpu1 1797/1797"),
        "{summary}"
    );
    assert!(summary.contains("cpu7 2397/2397"), "{summary}");
    check_document(&r);
}

#[test]
fn a_busy_machine_is_refused_unless_forced() {
    let d = rock5b();
    put(d.path(), "proc/loadavg", "3.50 3.00 2.00 4/246 1893\n");
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let root = d.path().to_path_buf();
    // The counters move with half the CPUs busy on every look.
    let ticker = std::thread::spawn(move || {
        let mut n = 0u64;
        while !s2.load(Ordering::SeqCst) {
            n += 1;
            put(
                &root,
                "proc/stat",
                &format!(
                    "cpu  {} 0 0 {} 0 0 0 0 0 0\n",
                    2382 + 400 * n,
                    57677 + 400 * n
                ),
            );
            std::thread::sleep(Duration::from_millis(15));
        }
    });
    let mut fake = Fake::new(d.path());
    let (r, _) = go(
        d.path(),
        &opts(Mode::Quick),
        &mut fake,
        Arc::new(AtomicBool::new(false)),
    );
    match r {
        Err(RunError::NotIdle { reason, .. }) => assert!(
            reason.contains("busy") || reason.contains("load"),
            "{reason}"
        ),
        other => panic!("{:?}", other.map(|r| r.envelope.valid)),
    }
    assert!(fake.calls.is_empty(), "nothing measured: {:?}", fake.calls);

    let mut o = opts(Mode::Quick);
    o.force = true;
    let (r, _) = go(d.path(), &o, &mut fake, Arc::new(AtomicBool::new(false)));
    stop.store(true, Ordering::SeqCst);
    ticker.join().unwrap();
    let r = r.unwrap();
    let f = r
        .envelope
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::NotIdle)
        .expect("not_idle finding");
    assert!(f.severity >= Severity::Warning);
    let Some(Scores::Idle(i)) = r.body.scores("idle").next() else {
        panic!()
    };
    assert!(!i.idle && i.forced);
}

/// `--force` starts at once (no wait up to the idle timeout) and the phase says it was not
/// idle; `--cool-to` without a temperature sensor is said, not ignored.
#[test]
fn forced_start_does_not_wait_and_cool_to_without_a_sensor_is_said() {
    let d = rock5b();
    put(d.path(), "proc/loadavg", "3.50 3.00 2.00 4/246 1893\n");
    std::fs::remove_dir_all(d.path().join("sys/class/thermal")).unwrap();
    let _ = std::fs::remove_dir_all(d.path().join("sys/class/hwmon"));
    let mut o = opts(Mode::Quick);
    o.force = true;
    o.idle.timeout = Duration::from_secs(30);
    o.idle.cool_to = Some(40.0);
    let mut fake = Fake::new(d.path());
    let t0 = std::time::Instant::now();
    let (r, events) = go(d.path(), &o, &mut fake, Arc::new(AtomicBool::new(false)));
    let r = r.unwrap();
    let idle = r.envelope.phase("idle").unwrap();
    let waited = idle.ended.unwrap() - idle.started;
    assert!(waited < 5.0, "waited {waited:.1} s for an idle system");
    assert!(t0.elapsed() < Duration::from_secs(25));
    assert!(
        idle.reason
            .as_deref()
            .unwrap_or("")
            .starts_with("not idle (forced): "),
        "{:?}",
        idle.reason
    );
    let Some(Scores::Idle(i)) = r.body.scores(&idle.name).next() else {
        panic!()
    };
    assert!(!i.idle && i.forced);
    assert!(r
        .envelope
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::NotIdle));
    let said = "--cool-to 40: this machine has no temperature sensor";
    assert!(
        r.envelope.notes.iter().any(|n| n.contains(said)),
        "{:?}",
        r.envelope.notes
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Note(n) if n.contains(said))));
}

/// The idle gate's announced time is what it may take: the %cpu window as the estimate and
/// the timeout in the title; with --force one look.
#[test]
fn the_idle_gate_announces_its_window_and_timeout() {
    let d = rock5b();
    let idle_start = |force: bool| {
        let mut o = opts(Mode::Quick);
        o.force = force;
        let mut fake = Fake::new(d.path());
        let (_, events) = go(d.path(), &o, &mut fake, Arc::new(AtomicBool::new(false)));
        events
            .into_iter()
            .find_map(|e| match e {
                Event::Step {
                    what,
                    title,
                    estimate,
                    ..
                } if what == "idle" => Some((title.unwrap(), estimate.unwrap())),
                _ => None,
            })
            .unwrap()
    };
    let (title, estimate) = idle_start(false);
    assert_eq!(title, "the idle gate, up to 0.3 s");
    assert_eq!(estimate, Duration::from_millis(100));
    let (title, estimate) = idle_start(true);
    assert_eq!(title, "the idle gate: one look (--force)");
    assert_eq!(estimate, Duration::from_secs(1));
}

#[test]
fn without_tuning_nothing_is_written_and_the_record_says_why() {
    let d = rock5b();
    let before = settings(d.path());
    let mut fake = Fake::new(d.path());
    let mut o = opts(Mode::Quick);
    o.tune = false;
    o.no_tuning_reason = Some("--no-tuning was given".into());
    let (r, _) = go(d.path(), &o, &mut fake, Arc::new(AtomicBool::new(false)));
    let r = r.unwrap();
    assert!(!r.envelope.tuning.applied && r.envelope.tuning.changes.is_empty());
    assert_eq!(
        r.envelope.tuning.reason.as_deref(),
        Some("--no-tuning was given")
    );
    assert_eq!(settings(d.path()), before);
    assert!(!d.path().join("var/lib/truebench/tuning.journal").exists());
    let Some(Scores::Clocks(cold)) = r.body.scores("clocks-cold").next() else {
        panic!()
    };
    assert!(
        cold.clusters
            .iter()
            .all(|c| c.mode == truebench_model::clocks::WalkMode::CurrentClock),
        "{cold:?}"
    );
}

#[test]
fn kernel_time_of_the_benchmark_itself_is_not_blamed_on_others() {
    let d = rock5b();
    let mut fake = Fake::new(d.path()).script("memory", |root, _| {
        // One CPU of eight busy, most of it in the kernel (page faults of the buffers); no
        // other process gets any CPU time.
        for i in 1..=8u64 {
            let stat = read(root, "proc/stat");
            let rest = stat.split_once('\n').unwrap().1.to_string();
            put(
                root,
                "proc/stat",
                &format!(
                    "cpu  {} 34 {} {} 240 75 206 0 0 0\n{rest}",
                    2382 + 20 * i,
                    1146 + 80 * i,
                    57677 + 700 * i
                ),
            );
            std::thread::sleep(Duration::from_millis(60));
        }
    });
    let (r, _) = go(
        d.path(),
        &opts(Mode::Standard),
        &mut fake,
        Arc::new(AtomicBool::new(false)),
    );
    let r = r.unwrap();
    let f = r
        .envelope
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::SystemActivity)
        .unwrap_or_else(|| panic!("no system_activity:\n{}", render::detailed_log(r.view())));
    assert_eq!(f.severity, Severity::Info, "{f:#?}");
    assert!(f.evidence.iter().any(|e| e.contains("the benchmark's own")));
    assert!(!r
        .envelope
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::BackgroundActivity));
    assert!(r.envelope.valid);
}

/// An INA226 on the board's 5 V input (hwmon `ina2xx`, power1 in µW): 2.5 W while the idle
/// gate watches, 9 W once the multi-core 7-zip starts. The result names the sensor, takes
/// the idle power from the gate, integrates each phase and gives 7-zip's MIPS per watt.
#[test]
fn a_power_sensor_gives_idle_power_energy_per_phase_and_mips_per_watt() {
    let d = rock5b();
    let ina = "sys/class/hwmon/hwmon9";
    put(d.path(), &format!("{ina}/name"), "ina226\n");
    put(d.path(), &format!("{ina}/in0_input"), "1\n");
    put(d.path(), &format!("{ina}/in1_input"), "5104\n");
    put(d.path(), &format!("{ina}/curr1_input"), "490\n");
    put(d.path(), &format!("{ina}/power1_input"), "2500000\n");
    let mut fake = Fake::new(d.path()).script("multi", |root, _| {
        put(root, "sys/class/hwmon/hwmon9/power1_input", "9000000\n");
        std::thread::sleep(Duration::from_millis(300));
    });
    let mut o = opts(Mode::Standard);
    o.idle_power = Duration::from_millis(400);
    let (r, _) = go(d.path(), &o, &mut fake, Arc::new(AtomicBool::new(false)));
    let r = r.unwrap();
    let e = r.envelope.energy.as_ref().expect("an energy report");
    assert_eq!(e.source, "ina226 power1");
    let idle = e.idle_watts.unwrap_or_else(|| panic!("{e:#?}"));
    assert!((idle - 2.5).abs() < 1e-6, "{e:#?}");
    let multi = e.phase("compression-multi").unwrap();
    // The trapezoid from the last 2.5 W reading before the phase pulls the mean a little
    // below 9 W; three 300 ms runs keep it close.
    assert!(
        multi.mean_watts > 8.0 && multi.mean_watts <= 9.0 + 1e-9,
        "{multi:#?}"
    );
    assert!((multi.joules - multi.mean_watts * multi.seconds).abs() < 1e-6);
    let above = multi.above_idle_watts.unwrap();
    assert!((above - (multi.mean_watts - 2.5)).abs() < 1e-9);
    let Some(Scores::Compression(c)) = r.body.scores("compression-multi").next() else {
        panic!("no 7-zip scores");
    };
    let mips = c.runs.iter().filter_map(|x| x.total_mips).sum::<u64>() as f64 / c.runs.len() as f64;
    let pw = &multi.per_watt[0];
    assert_eq!(
        (pw.what.as_str(), pw.unit.as_str()),
        ("7-zip, all cores", "MIPS/W")
    );
    assert!((pw.value - mips / multi.mean_watts).abs() < 1e-6, "{pw:?}");
    assert!((pw.above_idle.unwrap() - mips / above).abs() < 1e-6);
    // Several clusters: single-core 7-zip and AES walk them in one phase, so no per-watt.
    assert!(e.phase("aes").is_none_or(|p| p.per_watt.is_empty()));
    let text = render::summary(r.view());
    assert!(text.contains("Energy from ina226 power1"), "{text}");
    assert!(text.contains("idle: 2.50 W"), "{text}");
    assert!(text.contains("MIPS/W"), "{text}");
    let metrics = truebench_render::kinds::metrics(&r.clone().into_document());
    assert!(metrics.iter().any(|m| m.key == "energy_idle_w"));
    assert!(metrics
        .iter()
        .any(|m| m.key == "energy_compression_multi_mips_per_w"));
    check_document(&r);
}

/// Without a power source the summary says energy was not measured and how to add a meter.
#[test]
fn without_a_power_source_the_summary_says_energy_was_not_measured() {
    let d = rock5b();
    let mut fake = Fake::new(d.path());
    let (r, _) = go(
        d.path(),
        &opts(Mode::Standard),
        &mut fake,
        Arc::new(AtomicBool::new(false)),
    );
    let r = r.unwrap();
    assert!(r.envelope.energy.is_none());
    let text = render::summary(r.view());
    assert!(text.contains("Energy: not measured ("), "{text}");
    assert!(text.contains("--power-cmd"), "{text}");
}

/// Evidence tied to its phase in a run: the thermal framework caps the clock only while
/// 7-zip runs on all cores (a cooling device's time in state 1 grows then). That phase is
/// marked throttling and its scores invalid, with the reason; every other phase is clean, and
/// the summary lists which scores are invalid.
#[test]
fn a_phase_measured_while_throttled_is_marked_and_its_scores_invalid() {
    let d = rock5b();
    truebench_fixtures::cooling_device(d.path());
    let mut capped = 0;
    let mut fake = Fake::new(d.path()).script("multi", move |root, _| {
        capped += 100;
        std::thread::sleep(Duration::from_millis(30));
        put(
            root,
            "sys/class/thermal/cooling_device0/stats/time_in_state_ms",
            &format!("state0 1000\nstate1 {capped}\n"),
        );
    });
    let (r, _) = go(
        d.path(),
        &opts(Mode::Standard),
        &mut fake,
        Arc::new(AtomicBool::new(false)),
    );
    let r = r.unwrap();
    for p in &r.envelope.phases {
        let hit = truebench_model::phase::COMPRESSION_MULTI.is(&p.name);
        assert_eq!(
            p.marks.iter().any(|m| m == "throttling"),
            hit,
            "{}: {:?}",
            p.name,
            p.marks
        );
        assert_eq!(p.invalid.is_some(), hit, "{}: {:?}", p.name, p.invalid);
    }
    let f = r
        .envelope
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Throttling)
        .unwrap();
    assert_eq!(
        f.phases,
        [truebench_model::phase::COMPRESSION_MULTI.to_string()]
    );
    let text = render::summary(r.view());
    assert!(
        text.contains("INVALID scores") && text.contains("compression-multi: throttling"),
        "{text}"
    );
    check_document(&r);
}
