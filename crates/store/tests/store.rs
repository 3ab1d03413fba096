//! The history database: round trip, a writer killed mid-transaction, two writers at once.
//!
//! The writer processes are this test binary run again with `TB_STORE_CHILD` set: the test
//! `child_writer` then inserts in a loop instead of returning at once.

use truebench_fixtures::sbc_bench as common;

use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use truebench_model::RunBody;
use truebench_model::RunResult;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;
use truebench_store::{Filter, Store};

fn sample_result() -> RunResult {
    let logs = common::logs();
    let (name, text) = logs.iter().find(|(n, _)| n == "4qJG.txt").unwrap();
    to_run_result(&parse(text), name)
}

/// A distinct document per (writer, n): the digest differs, so nothing is deduplicated.
fn variant(base: &RunResult, writer: &str, n: u64) -> RunResult {
    let mut r = base.clone();
    r.envelope.hostname = Some(format!("{writer}-{n}"));
    r.envelope.started.unix_ms += n as i64;
    r
}

/// Whether this test binary can start a copy of itself. Under qemu-user (the cross tests)
/// it cannot: the kernel has no binfmt_misc entry for the foreign binary. Natively it can,
/// and the multi-process tests below always run.
fn can_self_exec() -> bool {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--list", "--exact", "child_writer"])
        .env_remove("TB_STORE_CHILD")
        .output();
    match out {
        Ok(o)
            if o.status.success()
                && String::from_utf8_lossy(&o.stdout).contains("child_writer: test") =>
        {
            true
        }
        other => {
            let test = std::thread::current().name().unwrap_or("?").to_string();
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: this test binary cannot start a copy of itself ({other:?}); emulated without binfmt_misc?");
            false
        }
    }
}

/// A writer process, or None when this binary cannot start a copy of itself.
fn spawn_writer(db: &Path, writer: &str, count: u64) -> Option<Child> {
    if !can_self_exec() {
        return None;
    }
    let c = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writer",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TB_STORE_CHILD", db)
        .env("TB_STORE_WRITER", writer)
        .env("TB_STORE_COUNT", count.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn writer");
    Some(c)
}

/// The body of a writer process, not a test of its own (ignored; the tests above run it with
/// `--ignored`): inserts `TB_STORE_COUNT` documents, printing `committed N` after each commit.
#[test]
#[ignore = "the writer process of the multi-process tests, started by them"]
fn child_writer() {
    let Some(db) = std::env::var_os("TB_STORE_CHILD") else {
        return;
    };
    let writer = std::env::var("TB_STORE_WRITER").unwrap();
    let count: u64 = std::env::var("TB_STORE_COUNT").unwrap().parse().unwrap();
    let base = sample_result();
    let mut s = Store::open(Path::new(&db)).unwrap();
    for n in 0..count {
        s.insert(&variant(&base, &writer, n)).unwrap();
        println!("committed {n}");
    }
}

fn tmp_db() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("sub/history.sqlite");
    (d, p)
}

/// Every stored row reads back as a whole document whose indexed columns match it.
fn check_rows(s: &Store) -> usize {
    assert_eq!(s.integrity_check().unwrap(), "ok");
    let rows = s.list(&Filter::default()).unwrap();
    for e in &rows {
        let r = s
            .get_typed::<RunBody>(e.id)
            .unwrap()
            .unwrap_or_else(|| panic!("row {} listed but not readable", e.id));
        assert_eq!(
            r.envelope.started.unix_ms, e.started_unix_ms,
            "row {}",
            e.id
        );
        assert_eq!(r.envelope.inventory.device, e.device);
        assert_eq!(r.envelope.hostname, e.hostname);
        assert_eq!(truebench_store::compare::metrics(r.view()), e.run_metrics());
        assert_eq!(e.kind, "run");
    }
    rows.len()
}

#[test]
fn round_trip_dedup_and_filters() {
    let (_d, db) = tmp_db();
    let base = sample_result();
    let mut s = Store::open(&db).unwrap();
    let a = s.insert(&base).unwrap();
    assert!(a.new);
    // The same document again is not duplicated.
    let again = s.insert(&base).unwrap();
    assert_eq!(
        again,
        truebench_store::Inserted {
            id: a.id,
            new: false
        }
    );
    let later = variant(&base, "later", 86_400_000);
    let b = s.insert(&later).unwrap();
    assert!(b.new && b.id != a.id);
    // What comes back is the document as JSON reads it (serde_json's float parsing may
    // differ from the in-memory value in the last bit).
    let via_json = |r: &RunResult| {
        truebench_model::migrate_run(
            serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(
        s.get_typed::<RunBody>(a.id).unwrap().unwrap(),
        via_json(&base)
    );
    assert_eq!(
        s.get_typed::<RunBody>(b.id).unwrap().unwrap(),
        via_json(&later)
    );
    assert!(s.get(9999).unwrap().is_none());
    let all = s.list(&Filter::default()).unwrap();
    assert_eq!(all.len(), 2);
    let e = &all[0];
    assert_eq!(e.source, "sbc-bench");
    assert_eq!(e.source_name.as_deref(), Some("4qJG.txt"));
    assert_eq!(e.soc.as_deref(), Some("Rockchip RK3588/RK3588s"));
    assert_eq!(e.run_metrics().sevenzip_single, Some(2989));
    assert_eq!(e.run_metrics().sevenzip_version.as_deref(), Some("16.02"));
    assert_eq!(e.run_metrics().openssl_version.as_deref(), Some("3.0.7"));
    assert!(!e.valid);
    // Filters: device/SoC substring, case-insensitive; since.
    let f = |device: Option<&str>, since: Option<i64>| {
        s.list(&Filter {
            device: device.map(String::from),
            since_unix_ms: since,
            ..Default::default()
        })
        .unwrap()
        .len()
    };
    assert_eq!(f(Some("rock 5"), None), 2);
    assert_eq!(f(Some("rk3588"), None), 2);
    assert_eq!(f(Some("raspberry"), None), 0);
    assert_eq!(f(None, Some(base.envelope.started.unix_ms + 1)), 1);
    drop(s);
    // Reopening keeps everything.
    let s = Store::open(&db).unwrap();
    assert_eq!(check_rows(&s), 2);
}

#[test]
fn writer_killed_mid_write_leaves_whole_rows_only() {
    let (_d, db) = tmp_db();
    Store::open(&db).unwrap();
    // Kill at several moments: right after the first commit and a few commits later, so the
    // SIGKILL lands inside (or between) transactions at different points.
    for (round, wait_for) in [(0u32, 1u64), (1, 5), (2, 12)] {
        let Some(mut child) = spawn_writer(&db, &format!("k{round}"), 100_000) else {
            return;
        };
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut committed = 0u64;
        let mut line = String::new();
        while committed < wait_for {
            line.clear();
            if out.read_line(&mut line).unwrap() == 0 {
                break;
            }
            if line.contains("committed ") {
                committed += 1;
            }
        }
        assert_eq!(committed, wait_for, "the writer stopped early");
        // SIGKILL: no destructor, no rollback by the process itself.
        child.kill().unwrap();
        child.wait().unwrap();
        let s = Store::open(&db).unwrap();
        let rows = check_rows(&s);
        let mine = s
            .list(&Filter {
                device: Some(format!("k{round}-")),
                ..Default::default()
            })
            .unwrap()
            .len() as u64;
        // At least what it reported committed (it may have committed more before the signal
        // landed); every row whole (check_rows).
        assert!(
            mine >= wait_for,
            "round {round}: {mine} rows after {wait_for} reported commits ({rows} in all)"
        );
    }
}

#[test]
fn two_writers_at_once_both_succeed() {
    let (_d, db) = tmp_db();
    Store::open(&db).unwrap();
    const N: u64 = 40;
    let t0 = Instant::now();
    let (Some(a), Some(b)) = (spawn_writer(&db, "wa", N), spawn_writer(&db, "wb", N)) else {
        return;
    };
    for (name, c) in [("wa", a), ("wb", b)] {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{name} failed: {:?}", out.status);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            text.lines().filter(|l| l.contains("committed ")).count() as u64,
            N,
            "{name}"
        );
    }
    assert!(t0.elapsed() < Duration::from_secs(600));
    let s = Store::open(&db).unwrap();
    assert_eq!(s.count().unwrap() as u64, 2 * N);
    assert_eq!(check_rows(&s) as u64, 2 * N);
}

/// A history written by the last build of layout 1 (the `runs` table) opens as layout 2:
/// every row carried over with its id, its document migrated, its figures in `metrics`.
#[test]
fn a_layout_1_history_migrates_with_ids_and_figures() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("history.sqlite");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/v1/history-v1.sqlite"),
        &db,
    )
    .unwrap();
    let s = Store::open(&db).unwrap();
    let all = s.list(&Filter::default()).unwrap();
    assert_eq!(all.len(), 2);
    let rock = all
        .iter()
        .find(|e| e.source_name.as_deref() == Some("4qJG.txt"))
        .expect("4qJG carried over");
    assert_eq!(rock.kind, "run");
    assert_eq!(rock.source, "sbc-bench");
    assert_eq!(rock.run_metrics().sevenzip_single, Some(2989));
    assert_eq!(check_rows(&s), 2);
    // The ids of layout 1 still name the same results.
    let ids: Vec<i64> = all.iter().map(|e| e.id).collect();
    assert_eq!(ids.iter().copied().max(), Some(2));
    // Opening again changes nothing; storing a carried-over document again finds it. (The log
    // imported anew is another document: this build's detectors judge it again.)
    drop(s);
    let mut s = Store::open(&db).unwrap();
    assert_eq!(s.count().unwrap(), 2);
    let doc = s.get(rock.id).unwrap().unwrap();
    let again = s.insert(&doc).unwrap();
    assert!(!again.new, "the migrated 4qJG was stored twice");
    assert_eq!(again.id, rock.id);
}

/// Every kind goes into the same table and comes back by kind.
#[test]
fn every_kind_is_stored_listed_and_read_back() {
    use truebench_model::clocks::{ClockPoint, ClusterClocks, WalkMode};
    use truebench_model::{ClocksBody, Document, MonitorBody, Typed};
    let (_d, db) = tmp_db();
    let mut s = Store::open(&db).unwrap();
    let run = sample_result();
    let clocks = Typed {
        envelope: run.envelope.clone(),
        body: ClocksBody {
            max_khz: None,
            min_khz: None,
            walked: true,
            clusters: vec![ClusterClocks {
                id: 0,
                cpus: vec![0, 1, 2, 3],
                cpu_range: "cpu0-cpu3".into(),
                core_type: Some("Cortex-A55".into()),
                driver: Some("cpufreq-dt".into()),
                measured_cpu: Some(0),
                mode: WalkMode::OppWalk,
                enforced: Some(true),
                points: vec![ClockPoint::at_opp(1800, vec![1795.5], 100.0)],
                notes: vec![],
            }],
            all_cores: None,
        },
    };
    let monitor = Typed {
        envelope: run.envelope.clone(),
        body: MonitorBody {
            command: vec!["sleep".into(), "3".into()],
            exit_code: Some(0),
            signal: None,
            error: None,
            duration_s: 3.01,
            interval_s: 1.0,
            threads: None,
            clusters: Vec::new(),
        },
    };
    let r = s.insert(&run).unwrap();
    let c = s.insert(&clocks).unwrap();
    let m = s.insert(&monitor).unwrap();
    assert!(r.new && c.new && m.new);
    assert_eq!(s.count().unwrap(), 3);
    let only = |kind: &str| {
        s.list(&Filter {
            kind: Some(kind.into()),
            ..Default::default()
        })
        .unwrap()
    };
    let cl = only("clocks");
    assert_eq!(cl.len(), 1);
    assert_eq!(cl[0].id, c.id);
    assert_eq!(cl[0].mode, "OPP walk");
    assert_eq!(cl[0].metrics["cluster0_measured_mhz"], 1795.5);
    assert_eq!(cl[0].metrics["cluster0_opp_mhz"], 1800);
    let mo = only("monitor");
    assert_eq!(mo[0].mode, "sleep 3");
    assert_eq!(mo[0].metrics["exit_code"], 0);
    assert_eq!(only("run").len(), 1);
    let back: Document = s.get(c.id).unwrap().unwrap();
    assert_eq!(back.kind(), "clocks");
    assert!(s
        .get_typed::<RunBody>(m.id)
        .unwrap_err()
        .to_string()
        .contains("a monitor result, not a run result"));
    assert_eq!(
        s.get_typed::<MonitorBody>(m.id).unwrap().unwrap().body,
        monitor.body
    );
}
