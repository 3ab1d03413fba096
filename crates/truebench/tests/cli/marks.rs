//! Evidence tied to its phase, for every kind: the ROCK 5B root gets a cooling device that
//! records throttled time only while one chosen phase runs, and the finding must name that
//! phase and mark exactly what was measured during it — no other phase, row or cell.
//! (`run`, `governors` and `efficiency` have theirs in their own files; `interactivity`, which
//! refuses a recorded root, in the suite's tests.)

use crate::common;

use common::{stored, truebench};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The ROCK 5B root with a cooling device (cpufreq cap of the big cluster) that has spent no
/// time throttling yet.
struct Board {
    _dir: tempfile::TempDir,
    root: PathBuf,
    stats: PathBuf,
}

impl Board {
    fn new() -> Board {
        let dir = truebench_fixtures::root("rk3588-rock5b");
        let root = dir.path().to_path_buf();
        let stats = truebench_fixtures::cooling_device(&root);
        Board {
            _dir: dir,
            root,
            stats,
        }
    }

    /// The thermal framework caps the clock for 300 ms (idempotent: the same counters).
    fn throttle(&self) {
        std::fs::write(&self.stats, "state0 1000\nstate1 300\n").unwrap();
    }

    /// A shell command doing [`Board::throttle`], for commands that run one.
    fn throttle_cmd(&self) -> String {
        format!(
            "printf 'state0 1000\\nstate1 300\\n' > {}",
            self.stats.display()
        )
    }
}

/// Runs `cmd` (progress on stderr, result into the history below `tmp`); at the first
/// progress line containing `trigger`, waits `delay` and throttles the board. Returns stderr.
fn run_throttling_at(cmd: &mut Command, board: &Board, trigger: &str, delay: Duration) -> String {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    let mut fired = false;
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if !fired && line.contains(trigger) {
            fired = true;
            std::thread::sleep(delay);
            board.throttle();
        }
        err.push_str(&line);
        err.push('\n');
    }
    let status = child.wait().unwrap();
    assert!(fired, "no progress line with {trigger:?}:\n{err}");
    assert!(
        matches!(status.code(), Some(0) | Some(1) | Some(3)),
        "{status:?}\n{err}"
    );
    err
}

/// The phases the throttling finding names.
fn throttled_phases(doc: &Value) -> Vec<String> {
    let f = doc["envelope"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "throttling")
        .unwrap_or_else(|| panic!("no throttling finding: {:#}", doc["envelope"]["findings"]));
    f["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

/// Names of the envelope's phases that carry the throttling mark, and those that do not.
fn marked_phases(doc: &Value) -> (Vec<String>, Vec<String>) {
    let mut marked = Vec::new();
    let mut clean = Vec::new();
    for p in doc["envelope"]["phases"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        let m = p["marks"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m == "throttling"));
        if m {
            assert!(
                p["invalid"].as_str().is_some_and(|w| w.contains("throttl")),
                "{p:#}"
            );
            marked.push(name);
        } else {
            clean.push(name);
        }
    }
    (marked, clean)
}

fn has_throttling_mark(row: &Value) -> bool {
    row["marks"]
        .as_array()
        .is_some_and(|m| m.iter().any(|m| m == "throttling"))
}

#[test]
fn clocks_the_walk_measured_while_throttling_is_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let board = Board::new();
    let max = board
        .root
        .join("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq");
    let before = std::fs::read_to_string(&max).unwrap();
    let child = truebench(tmp.path())
        .args(["clocks", "--max-khz", "600000", "--root"])
        .arg(&board.root)
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // The walk has begun when it sets the first OPP of the first cluster.
    let t0 = std::time::Instant::now();
    while std::fs::read_to_string(&max).unwrap() == before {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the walk never began"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    board.throttle();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.code().is_some(), "{out:?}");
    let doc = stored(tmp.path());
    assert_eq!(throttled_phases(&doc), ["clocks"]);
    assert_eq!(marked_phases(&doc).0, ["clocks"]);
}

#[test]
fn monitor_the_command_during_which_it_throttled_is_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let board = Board::new();
    let out = truebench(tmp.path())
        .args(["monitor", "--interval", "0.2", "--root"])
        .arg(&board.root)
        .args([
            "--",
            "sh",
            "-c",
            &format!("sleep 0.5; {}; sleep 0.5", board.throttle_cmd()),
        ])
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "{out:?}");
    let doc = stored(tmp.path());
    assert_eq!(throttled_phases(&doc), ["command"]);
    assert_eq!(marked_phases(&doc).0, ["command"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.to_lowercase().contains("throttl"), "{text}");
}

#[test]
fn thermal_only_the_load_phase_is_marked_not_the_idle_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let board = Board::new();
    let load = format!("sleep 0.3; {}; sleep 0.2", board.throttle_cmd());
    let out = truebench(tmp.path())
        .args([
            "thermal",
            "--minutes",
            "0.03",
            "--wait-timeout",
            "1",
            "--load",
        ])
        .arg(&load)
        .arg("--root")
        .arg(&board.root)
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "{out:?}");
    let doc = stored(tmp.path());
    let (marked, clean) = marked_phases(&doc);
    assert_eq!(throttled_phases(&doc), marked);
    assert_eq!(marked.len(), 1, "{marked:?}");
    assert_ne!(marked[0], "idle");
    assert!(clean.iter().any(|p| p == "idle"), "{clean:?}");
}

#[test]
fn review_tuned_the_monitored_command_is_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let board = Board::new();
    let out = truebench(tmp.path())
        .args(["review", "-R", "--interval", "0.2", "--root"])
        .arg(&board.root)
        .args(["--exec", "sh", "-c"])
        .arg(format!("sleep 0.5; {}; sleep 0.5", board.throttle_cmd()))
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "{out:?}");
    let doc = stored(tmp.path());
    let (marked, _) = marked_phases(&doc);
    assert_eq!(
        marked.len(),
        1,
        "{:#}\n{:#}\n{}",
        doc["envelope"]["phases"],
        doc["envelope"]["findings"],
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(throttled_phases(&doc), marked);
}

#[test]
fn net_only_the_test_measured_while_throttling_is_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let board = Board::new();
    let mut cmd = truebench(tmp.path());
    cmd.args([
        "net",
        "--loopback",
        "--tests",
        "upload,download",
        "--repeat",
        "1",
    ])
    .args(["--duration", "1.5", "--root"])
    .arg(&board.root);
    let err = run_throttling_at(&mut cmd, &board, "download", Duration::from_millis(400));
    let doc = stored(tmp.path());
    let phases = throttled_phases(&doc);
    assert_eq!(phases.len(), 1, "{phases:?}\n{err}");
    let rows = doc["body"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    for r in rows {
        let is = r["phase"].as_str() == Some(phases[0].as_str());
        assert_eq!(is, r["test"] == "download", "{r:#}");
        assert_eq!(has_throttling_mark(r), is, "{r:#}");
    }
}

#[test]
fn io_only_the_test_measured_while_throttling_is_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let board = Board::new();
    let disk = tempfile::tempdir_in("/var/tmp").unwrap();
    let mut cmd = truebench(tmp.path());
    cmd.args(["io", "--file"])
        .arg(disk.path().join("scratch"))
        .args([
            "--size",
            "16",
            "--duration",
            "1.5",
            "--repeat",
            "1",
            "--root",
        ])
        .arg(&board.root);
    let err = run_throttling_at(&mut cmd, &board, "random", Duration::from_millis(400));
    let doc = stored(tmp.path());
    let phases = throttled_phases(&doc);
    assert_eq!(phases.len(), 1, "{phases:?}\n{err}");
    let rows = doc["body"]["rows"].as_array().unwrap();
    assert!(rows.len() >= 2, "{rows:#?}");
    let mut marked = 0;
    for r in rows {
        let is = r["phase"].as_str() == Some(phases[0].as_str());
        assert_eq!(has_throttling_mark(r), is, "{r:#}");
        marked += is as usize;
    }
    assert_eq!(marked, 1);
}

/// `review` ends through the same table as every measuring command: throttling while it
/// monitored makes its result invalid, and it exits 3 (it exits with a command's own code only
/// when it ran one with --exec).
#[test]
fn review_exits_3_when_what_it_monitored_is_invalid() {
    let tmp = tempfile::tempdir().unwrap();
    let board = Board::new();
    let child = truebench(tmp.path())
        .args([
            "review",
            "--sample-interval",
            "0.2",
            "--duration",
            "3",
            "--root",
        ])
        .arg(&board.root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    board.throttle();
    let out = child.wait_with_output().unwrap();
    let doc = stored(tmp.path());
    assert_eq!(
        doc["envelope"]["valid"], false,
        "{:#}",
        doc["envelope"]["findings"]
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!throttled_phases(&doc).is_empty());
}

/// Every kind proves that throttling marks only what was measured while it happened: its
/// rows are its own, so the scenario is written per kind — found, not listed, so a new kind
/// needs no entry anywhere and fails here until its test exists. The test is a function
/// whose name says `throttl…` or `…marked…`, in the kind's own test file (the suite's
/// `tests/it/KIND.rs`, the CLI's `tests/cli/KIND.rs`, or the suite's source `src/KIND.rs` /
/// `src/KIND/mod.rs` with its unit tests) or here, named `KIND_…`.
#[test]
fn every_kind_has_its_marks_test() {
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let says = |name: &str| name.contains("throttl") || name.contains("marked");
    let fns = |path: &std::path::Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("fn "))
            .filter_map(|l| l.split_once("()").map(|(n, _)| n.to_string()))
            .collect()
    };
    let here = fns(&crates.join("truebench/tests/cli/marks.rs"));
    for kind in common::kinds::all() {
        // The suite's own file (its unit tests) counts as the kind's test file too.
        let own: Vec<String> = [
            format!("suites/tests/it/{kind}.rs"),
            format!("truebench/tests/cli/{kind}.rs"),
            format!("suites/src/{kind}.rs"),
            format!("suites/src/{kind}/mod.rs"),
        ]
        .iter()
        .flat_map(|f| fns(&crates.join(f)))
        .collect();
        let found = own.iter().any(|n| says(n))
            || here
                .iter()
                .any(|n| n.starts_with(&format!("{kind}_")) && says(n));
        assert!(
            found,
            "kind {kind}: no test of what throttling marks (a fn named …throttl… or …marked… in \
             suites/tests/it/{kind}.rs, truebench/tests/cli/{kind}.rs, suites/src/{kind}.rs, or \
             {kind}_… in marks.rs)"
        );
    }
}
