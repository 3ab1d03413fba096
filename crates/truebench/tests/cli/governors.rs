//! `truebench governors`: the task sets really run on this machine; governor switching and
//! restoring is checked on a fixture root of a real board (ROCK 5B: three cpufreq policies,
//! six governors) — Tuning writes into the fixture tree — also after Ctrl-C mid-run.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A measuring command ran to its end: exit 0 (valid) or 3 (ran, but invalid).
fn measured(out: &std::process::Output) -> bool {
    matches!(out.status.code(), Some(0) | Some(3))
}

const BIN: &str = env!("CARGO_BIN_EXE_truebench");
const POLICIES: [u32; 3] = [0, 4, 6];

fn truebench(tmp: &Path) -> Command {
    let mut c = Command::new(BIN);
    // Own lock directory, calibration cache and history: tests run in parallel.
    let lock = tmp.join("lock");
    std::fs::create_dir_all(&lock).unwrap();
    c.env("TMPDIR", &lock)
        .env("TRUEBENCH_LOCK_DIR", &lock)
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .env("XDG_DATA_HOME", tmp.join("data"));
    c.arg("governors");
    c
}

/// Small sets: two tasks at 0.4 CPU, half a second each.
const SMALL: &[&str] = &[
    "--utilisations",
    "0.4",
    "--sets",
    "1",
    "--tasks",
    "2",
    "--loops-per-ms",
    "100000",
    "--json",
    "--no-store",
];

fn governor(root: &Path, policy: u32) -> String {
    std::fs::read_to_string(root.join(format!(
        "sys/devices/system/cpu/cpufreq/policy{policy}/scaling_governor"
    )))
    .unwrap()
    .trim()
    .to_string()
}

/// powersave and performance, 60 s per set: long enough to be interrupted.
fn long_run(tmp: &Path, root: &Path, out: fn() -> Stdio) -> std::process::Child {
    truebench(tmp)
        .arg("--root")
        .arg(root)
        .args(SMALL)
        .args(["--duration", "60", "--governors", "powersave,performance"])
        .stdout(out())
        .stderr(out())
        .spawn()
        .unwrap()
}

/// Wait until the first governor is set and its tasks run.
fn wait_for_tasks(pid: u32) {
    let t0 = std::time::Instant::now();
    let tasks = format!("/proc/{pid}/task");
    while !std::fs::read_dir(&tasks)
        .map(|d| {
            d.filter_map(Result::ok).any(|t| {
                std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "tb-task")
            })
        })
        .unwrap_or(false)
    {
        assert!(t0.elapsed() < Duration::from_secs(60), "no task started");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn labels(doc: &Value) -> Vec<String> {
    doc["body"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["governor"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_governor_of_a_board_runs_switched_per_policy_and_is_restored() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before: Vec<String> = POLICIES.iter().map(|&p| governor(root.path(), p)).collect();
    let csv = tmp.path().join("freq.csv");
    let out = truebench(tmp.path())
        .arg("--root")
        .arg(root.path())
        .args(SMALL)
        .args(["--duration", "0.5", "--freq-log"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "governors");
    assert_eq!(doc["body"]["switched"], true);
    let mut got = labels(&doc);
    got.sort();
    assert_eq!(
        got,
        [
            "conservative",
            "ondemand",
            "performance",
            "powersave",
            "schedutil",
            "userspace@max",
            "userspace@mid"
        ]
    );
    for r in doc["body"]["rows"].as_array().unwrap() {
        assert_eq!(r["status"], "ok", "{r}");
        assert!(r["periods"].as_u64().unwrap() > 50, "{r}");
        assert!(r["miss_ratio"].as_f64().is_some(), "{r}");
    }
    // Every policy was switched to each governor; userspace pinned at the top and a middle OPP.
    let changes = doc["envelope"]["tuning"]["changes"].as_array().unwrap();
    let wrote = |file: &str, value: &str| {
        changes
            .iter()
            .filter(|c| {
                c["path"].as_str().unwrap().ends_with(file)
                    && c["value"] == value
                    && c["error"].is_null()
            })
            .count()
    };
    for g in ["schedutil", "powersave", "performance", "conservative"] {
        assert_eq!(wrote("scaling_governor", g), 3, "{g}");
    }
    // policy4/6 (Cortex-A76, 14 OPPs): top 2.4 GHz, middle 1.8 GHz; policy0 (A55, 8 OPPs):
    // top 1.8 GHz, middle 1.2 GHz.
    assert_eq!(wrote("scaling_setspeed", "2400000"), 2);
    assert_eq!(wrote("scaling_setspeed", "1800000"), 3);
    assert_eq!(wrote("scaling_setspeed", "1200000"), 1);
    // The fast frequency log: every policy, lines inside each governor's run.
    let log = std::fs::read_to_string(&csv).unwrap();
    let mut lines = log.lines();
    assert_eq!(
        lines.next(),
        Some("t_s,governor,policy0_khz,policy4_khz,policy6_khz")
    );
    let body: Vec<&str> = lines.collect();
    for g in &got {
        assert!(
            body.iter()
                .filter(|l| l.split(',').nth(1) == Some(g))
                .count()
                >= 5,
            "{g}: {log}"
        );
    }
    for r in doc["body"]["rows"].as_array().unwrap() {
        assert_eq!(r["clocks"].as_array().unwrap().len(), 3, "{r}");
    }
    // It reports as HTML (miss ratio against U per governor, the table) and compares per
    // governor.
    let json = tmp.path().join("result.json");
    std::fs::write(&json, &out.stdout).unwrap();
    let html = tmp.path().join("report.html");
    let r = Command::new(BIN)
        .args(["report"])
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Miss ratio against utilisation"));
    assert!(page.contains("Clock per cluster (raw, and 5-sample moving average)"));
    assert!(page.contains("userspace@mid"));
    let c = Command::new(BIN)
        .arg("compare")
        .arg(&json)
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&c.stdout);
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert!(text.contains("schedutil: missed (%)"), "{text}");
    // Restored afterwards.
    let after: Vec<String> = POLICIES.iter().map(|&p| governor(root.path(), p)).collect();
    assert_eq!(before, after);
}

#[test]
fn ctrl_c_mid_run_restores_every_governor_and_keeps_a_partial_result() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let child = long_run(tmp.path(), root.path(), Stdio::piped);
    wait_for_tasks(child.id());
    let switched = governor(root.path(), 0);
    assert!(
        switched == "powersave" || switched == "performance",
        "{switched}"
    );
    std::thread::sleep(Duration::from_millis(1000));
    crate::common::signal("-INT", child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = doc["body"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["status"], "interrupted");
    assert!(rows[0]["periods"].as_u64().unwrap() > 0, "{}", rows[0]);
    assert_eq!(rows[1]["status"], "interrupted");
    assert_eq!(rows[1]["periods"], 0);
    assert_eq!(doc["envelope"]["complete"], false);
    for p in POLICIES {
        assert_eq!(governor(root.path(), p), "ondemand", "policy{p}");
    }
}

#[test]
fn kill_9_mid_run_is_restored_by_the_next_command() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let mut child = long_run(tmp.path(), root.path(), Stdio::null);
    wait_for_tasks(child.id());
    child.kill().unwrap();
    child.wait().unwrap();
    assert_ne!(governor(root.path(), 0), "ondemand");
    let out = Command::new(BIN)
        .env("TMPDIR", tmp.path())
        .env("TRUEBENCH_LOCK_DIR", tmp.path())
        .args(["info", "--root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert!(measured(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("restored"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for p in POLICIES {
        assert_eq!(governor(root.path(), p), "ondemand", "policy{p}");
    }
}

#[test]
fn on_this_machine_without_cpufreq_one_run_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args(SMALL)
        .args(["--duration", "0.5", "--no-tune"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // --no-tune: never switched, on this VM (no cpufreq) or anywhere else, and it says why.
    assert_eq!(doc["body"]["switched"], false);
    assert_eq!(labels(&doc), ["current"]);
    assert!(doc["body"]["switch_note"]
        .as_str()
        .unwrap()
        .contains("current policy"));
    let r = &doc["body"]["rows"][0];
    assert_eq!(r["status"], "ok");
    assert!(r["work_time_ratio"].as_f64().unwrap() > 0.0, "{r}");
}

/// `--repeat 3`: a row per repeat, and per governor the median and spread of the valid
/// repeats — in the JSON, the text and the figures compare uses.
#[test]
fn repeats_give_a_median_and_spread_per_governor() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args(SMALL)
        .args(["--duration", "0.5", "--no-tuning", "--repeat", "3"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["body"]["rows"].as_array().unwrap().len(), 3);
    let s = &doc["body"]["summary"][0];
    assert_eq!(s["governor"], "current");
    let (runs, invalid) = (
        s["runs"].as_u64().unwrap(),
        s["invalid_runs"].as_u64().unwrap(),
    );
    // A busy machine may invalidate a repeat: it is counted, not used.
    assert_eq!(runs + invalid, 3, "{s}");
    if runs >= 2 {
        assert!(s["median_miss_ratio"].as_f64().is_some(), "{s}");
        assert!(s["miss_ratio_spread"].as_f64().is_some(), "{s}");
        assert!(s["work_time_ratio_spread_pct"].as_f64().is_some(), "{s}");
    }
    let json = tmp.path().join("r.json");
    std::fs::write(&json, &out.stdout).unwrap();
    let text = Command::new(BIN)
        .args(["report"])
        .arg(&json)
        .arg("--html")
        .arg(tmp.path().join("r.html"))
        .output()
        .unwrap();
    assert!(text.status.success());
    let page = std::fs::read_to_string(tmp.path().join("r.html")).unwrap();
    assert!(
        page.contains("Median of the valid repeats"),
        "no repeat table"
    );
    let c = Command::new(BIN)
        .arg("compare")
        .arg(&json)
        .arg(&json)
        .output()
        .unwrap();
    let cmp = String::from_utf8_lossy(&c.stdout);
    if runs >= 1 {
        assert!(cmp.contains("current: missed (%)"), "{cmp}");
    }
}

#[test]
fn rt_app_export_writes_each_set_once_and_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rt");
    let run = || {
        truebench(tmp.path())
            .args(["--utilisations", "1.0:2.0:3", "--sets", "2", "--seed", "9"])
            .arg("--export-rt-app")
            .arg(&dir)
            .output()
            .unwrap()
    };
    let out = run();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 6);
    assert_eq!(names[0], "u1.00-s0.json");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("u1.50-s1.json")).unwrap()).unwrap();
    let tasks = doc["tasks"].as_object().unwrap();
    assert_eq!(tasks.len(), 10);
    let u: f64 = tasks
        .values()
        .map(|t| t["run"].as_f64().unwrap() / t["timer"]["period"].as_f64().unwrap())
        .sum();
    assert!((u - 1.5).abs() < 0.01, "{u}");
    let again = run();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not overwriting"));
}

#[test]
fn bad_options_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let board = truebench_fixtures::root("rk3588-rock5b");
    for (args, want) in [
        (vec!["--utilisations", "2:1:3"], "--utilisations"),
        (vec!["--periods", "9:5"], "--periods 9:5"),
        (
            vec!["--utilisations", "11", "--tasks", "10"],
            "cannot be split",
        ),
        (vec!["--governors", "disco"], "--governors disco"),
    ] {
        let mut c = truebench(tmp.path());
        if args[0] == "--governors" {
            c.arg("--root").arg(board.path());
        }
        let out = c.args(&args).args(["--no-store"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// `--power-cmd`: each governor's run gets its energy and the work done per joule (the same
/// work for every governor, so the figures compare directly).
#[test]
fn an_external_meter_gives_energy_and_work_per_joule_per_governor() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args(SMALL)
        // Two seconds: the run spans samples (taken every second) for the meter's readings.
        .args([
            "--duration",
            "2",
            "--power-cmd",
            "echo 4 W",
            "--power-interval",
            "0.1",
        ])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    for r in doc["body"]["rows"].as_array().unwrap() {
        let j = r["energy_j"].as_f64().unwrap_or_else(|| panic!("{r}"));
        let work = r["work_ms"].as_f64().unwrap();
        // Tasks at 0.4 CPU together for 2 s: 800 ms of work.
        assert!((work - 800.0).abs() < 40.0, "{r}");
        assert!(j >= 4.0 * 0.9, "{r}");
        assert!((r["work_ms_per_j"].as_f64().unwrap() - work / j).abs() < 1e-9);
    }
}

/// The governor study's rule: a run during which the machine throttled is not comparable.
/// A cooling device of the ROCK 5B root enters state 1 only while the performance governor's
/// tasks run: that row is invalid (JSON and text), the powersave row is not, and rt-app's
/// efficiency is not computed from an invalid row.
#[test]
fn a_governor_row_measured_while_throttling_is_invalid() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let r = root.path().to_path_buf();
    let stats = truebench_fixtures::cooling_device(&r);
    let child = truebench(tmp.path())
        .arg("--root")
        .arg(&r)
        .args(SMALL)
        .args(["--duration", "2", "--governors", "powersave,performance"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Once the performance governor is set and its tasks run, the thermal framework caps
    // the clock for 300 ms.
    let watcher = std::thread::spawn(move || {
        let t0 = std::time::Instant::now();
        while governor(&r, 4) != "performance" {
            assert!(t0.elapsed() < Duration::from_secs(120), "never switched");
            std::thread::sleep(Duration::from_millis(20));
        }
        wait_for_tasks(pid);
        std::thread::sleep(Duration::from_millis(300));
        std::fs::write(&stats, "state0 1000\nstate1 300\n").unwrap();
    });
    let out = child.wait_with_output().unwrap();
    watcher.join().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let rows = doc["body"]["rows"].as_array().unwrap();
    let row = |g: &str| rows.iter().find(|x| x["governor"] == g).unwrap();
    assert_eq!(row("performance")["status"], "ok");
    assert!(
        row("performance")["invalid"]
            .as_str()
            .is_some_and(|w| w.contains("throttling")),
        "{rows:#?}"
    );
    assert!(row("powersave")["invalid"].is_null(), "{rows:#?}");
    assert!(row("performance")["marks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m == "throttling"));
    // The finding names the performance run's phase only.
    let f = doc["envelope"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "throttling")
        .unwrap();
    assert_eq!(
        f["phases"],
        serde_json::json!([row("performance")["phase"]])
    );
    assert!(rows.iter().all(|x| x["efficiency"].is_null()), "{rows:#?}");
    // An invalid row fails the measurement's exit code like any critical finding would.
    assert_ne!(out.status.code(), Some(0));
}

/// With --root of a recorded 8-CPU board, the default task-set sizes follow the CPUs that
/// run the tasks — this machine's — not the tree's: the top level is twice this machine's
/// CPU count.
#[test]
fn default_sizes_follow_the_cpus_that_run_the_work() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let out = truebench(tmp.path())
        .arg("--root")
        .arg(root.path())
        .args(["--quick", "--tasks", "8"])
        .args(["--governors", "performance", "--loops-per-ms", "100000"])
        .args(["--json", "--no-store"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let top = doc["body"]["utilisations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u.as_f64())
        .fold(0.0, f64::max);
    let here = std::fs::read_to_string("/proc/stat")
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count();
    assert_eq!(top, 2.0 * here as f64, "{}", doc["body"]["utilisations"]);
}
