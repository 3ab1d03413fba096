//! `truebench interactivity` on this machine: every benchmark runs beside loads (audio and gaming
//! under every load), the scratch files are gone afterwards, and Ctrl-C in a cell keeps a
//! partial result.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A measuring command ran to its end: exit 0 (valid) or 3 (ran, but invalid).
fn measured(out: &std::process::Output) -> bool {
    matches!(out.status.code(), Some(0) | Some(3))
}

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

fn truebench(tmp: &Path) -> Command {
    let mut c = Command::new(BIN);
    // Own lock directory, calibration cache and history: tests run in parallel.
    let lock = tmp.join("lock");
    std::fs::create_dir_all(&lock).unwrap();
    c.env("TMPDIR", &lock)
        .env("TRUEBENCH_LOCK_DIR", &lock)
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .env("XDG_DATA_HOME", tmp.join("data"));
    c.arg("interactivity");
    c
}

fn cells(doc: &Value) -> Vec<(String, String, String, &Value)> {
    doc["body"]["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| {
            let b = t["name"].as_str().unwrap().to_string();
            t["cells"].as_array().unwrap().iter().map(move |c| {
                (
                    b.clone(),
                    c["load"].as_str().unwrap().to_string(),
                    c["status"].as_str().unwrap().to_string(),
                    c,
                )
            })
        })
        .collect()
}

/// Every cell of `benchmarks` × `loads` runs (`extra` arguments added) and leaves no scratch file;
/// the document and its folder are returned. Two tests split the benchmarks between them so
/// that their fixed-length cells run side by side.
fn every_cell(
    benchmarks: &str,
    loads: &str,
    extra: &[&str],
    want_cells: usize,
) -> (tempfile::TempDir, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let out = truebench(tmp.path())
        .args([
            "--benchmarks",
            benchmarks,
            "--loads",
            loads,
            "--custom-cpu",
            "10",
            "--custom-interval",
            "20000",
            "--duration",
            "0.5",
            // One burning thread, not one per CPU: the cells' loads burn for their whole
            // length, and the command-line tests beside them wait for the CPUs.
            "--burn-threads",
            "1",
            "--json",
            "--no-store",
            "--scratch-dir",
        ])
        .arg(&scratch)
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(measured(&out), "{err}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "interactivity");
    assert!(doc["body"]["calibration"]["loops_per_ms"].as_u64().unwrap() > 0);
    let cells = cells(&doc);
    // Each benchmark × each load, less each task against itself as load (video, x, custom).
    assert_eq!(cells.len(), want_cells, "{cells:#?}");
    let swap = std::fs::read_to_string("/proc/swaps")
        .unwrap()
        .lines()
        .count()
        > 1;
    for (b, l, status, c) in &cells {
        if l == "memload" && !swap {
            assert_eq!(status, "skipped", "{b}/{l}");
            assert!(c["reason"].as_str().unwrap().contains("no swap"));
            continue;
        }
        assert_eq!(status, "ok", "{b}/{l}: {c}");
        let lat = &c["latency"];
        assert!(lat["samples"].as_u64().unwrap() > 0, "{b}/{l}: {c}");
        assert!(lat["p99_us"].as_f64().unwrap() >= lat["p50_us"].as_f64().unwrap());
        assert_eq!(lat["deadlines_met_pct"].is_null(), b == "gaming", "{b}/{l}");
        assert!(c["load_description"].as_str().is_some());
    }
    // The phases of the envelope are the cells.
    assert_eq!(
        doc["envelope"]["phases"].as_array().unwrap().len(),
        want_cells
    );
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
    (tmp, doc)
}

/// Every load, each as its own process or thread (`every_benchmark_and_load_cell_runs…`).
const EVERY_LOAD: &str = "none,video,x,burn,write,read,compile,memload,hack,custom";

/// The other benchmarks with no load, a CPU load and another task as load: every load is run
/// under audio and gaming already, and a cell is a benchmark beside a load, each on its own.
/// (Under every load too, they made this test 27 cells and 14 s of both CPUs.)
#[test]
fn video_x_and_custom_run_beside_a_load() {
    // Calibrated in the other test; a given rate skips it here.
    every_cell(
        "video,x,custom",
        "none,burn,x",
        &["--loops-per-ms", "1000"],
        8,
    );
}

#[test]
fn every_benchmark_and_load_cell_runs_and_leaves_no_scratch_file() {
    // Tunes this machine (no --loops-per-ms: it calibrates, pinned).
    let _turn = crate::common::tuning_this_machine();
    let (tmp, doc) = every_cell("audio,gaming", EVERY_LOAD, &[], 20);

    // The document reports as HTML (a latency chart and the table per benchmark) and
    // compares cell by cell.
    let json = tmp.path().join("result.json");
    std::fs::write(&json, serde_json::to_vec(&doc).unwrap()).unwrap();
    let html = tmp.path().join("report.html");
    let r = Command::new(BIN)
        .arg("report")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    for want in [
        "Audio: wake-up latency p99 per load",
        "Gaming: wake-up latency p99 per load",
        "% deadlines met",
        "Frames/s",
    ] {
        assert!(page.contains(want), "{want}");
    }
    let c = Command::new(BIN)
        .arg("compare")
        .arg(&json)
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&c.stdout);
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert!(text.contains("audio burn: p99 latency (µs)"), "{text}");
    assert!(text.contains("gaming none: frames per second"), "{text}");
}

#[test]
fn ctrl_c_in_a_cell_keeps_a_partial_result_and_removes_the_scratch_files() {
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let mut child = truebench(tmp.path())
        .args([
            "--benchmarks",
            "audio",
            "--loads",
            "compile,none",
            "--duration",
            "60",
            "--burn-threads",
            "1",
            "--loops-per-ms",
            "100000",
            "--json",
            "--no-store",
            "--scratch-dir",
        ])
        .arg(&scratch)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    // --json keeps stderr quiet: wait until the measured task's thread runs
    // (the Compile load's scratch files can take seconds to prepare), then
    // give it a second to measure.
    let t0 = std::time::Instant::now();
    let tasks = format!("/proc/{}/task", child.id());
    while !std::fs::read_dir(&tasks)
        .unwrap()
        .filter_map(Result::ok)
        .any(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "tb-measured")
        })
    {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the measured task never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    crate::common::signal("-INT", child.id());
    let status = child.wait().unwrap();
    let out = reader.join().unwrap();
    let errs: Vec<String> = rx.try_iter().collect();
    assert_eq!(status.code(), Some(130), "{}", errs.join("\n"));
    let doc: Value = serde_json::from_str(&out).unwrap();
    let cells = cells(&doc);
    assert_eq!(cells.len(), 2);
    // The cell that ran: interrupted, with what was measured until then.
    let (_, l, status, c) = &cells[0];
    assert_eq!((l.as_str(), status.as_str()), ("compile", "interrupted"));
    assert!(c["latency"]["samples"].as_u64().unwrap() > 0, "{c}");
    // The next one never started.
    assert_eq!(cells[1].2, "interrupted");
    assert!(cells[1].3["latency"].is_null());
    assert_eq!(doc["envelope"]["complete"], false);
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
}

#[test]
fn bad_options_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, want) in [
        (vec!["--benchmarks", "disco"], "--benchmarks disco"),
        (vec!["--custom-cpu", "10"], "go together"),
        (
            vec!["--benchmarks", "custom"],
            "--custom-cpu and --custom-interval are missing",
        ),
        (vec!["--duration", "0"], "--duration 0"),
        (
            vec!["--scratch-dir", "/nonexistent"],
            "--scratch-dir /nonexistent",
        ),
    ] {
        let out = truebench(tmp.path()).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
