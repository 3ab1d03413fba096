//! `truebench thermal` on this machine: a real (short) load with an external meter fed by a
//! script, stored and reported; Ctrl-C keeps a partial result; bad values are named.

use std::process::Stdio;
use std::time::Duration;

use rustix::process::{kill_process, Pid, Signal};

use crate::common;
use common::{json, measured, truebench};

#[test]
fn a_short_command_load_is_scored_measured_stored_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args([
            "thermal",
            "--minutes",
            "0.03",
            "--load",
            "sleep 0.1",
            // A busy CI machine is never idle: one look at it, then the load.
            "--wait-timeout",
            "0",
            "--sample-interval",
            "0.1",
            "--power-cmd",
            "echo 2.0 W",
            "--power-interval",
            "0.1",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(measured(&out), "{out:?}");
    let v = json(&out);
    assert_eq!(v["kind"], "thermal");
    let b = &v["body"];
    assert_eq!(b["load"], "command");
    assert_eq!(b["unit"], "runs/min");
    let scores = b["scores"].as_array().unwrap();
    // 1.8 s of `sleep 0.1`: about 15 runs, each near 600 runs/min.
    assert!(scores.len() >= 8, "{scores:?}");
    for s in scores {
        let x = s["score"].as_f64().unwrap();
        assert!(x > 200.0 && x < 610.0, "{s}");
    }
    let e = &v["envelope"]["energy"];
    assert_eq!(e["source"], "power-cmd: echo 2.0 W");
    let load = e["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["phase"] == "load")
        .unwrap();
    assert!(
        (load["mean_watts"].as_f64().unwrap() - 2.0).abs() < 1e-9,
        "{load}"
    );
    assert_eq!(load["per_watt"][0]["unit"], "runs/min/W");

    // Stored: the report has the thermal section and the energy table.
    let html = tmp.path().join("thermal.html");
    let out = truebench(tmp.path())
        .args(["report", "1", "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(measured(&out), "{out:?}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Thermal test") && page.contains("<h2>Energy</h2>"));
}

#[test]
fn ctrl_c_during_the_load_keeps_a_partial_result() {
    let tmp = tempfile::tempdir().unwrap();
    let child = truebench(tmp.path())
        .args([
            "thermal",
            "--minutes",
            "10",
            "--load",
            "sleep 0.1",
            "--wait-timeout",
            "0",
            "--json",
            "--no-store",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    kill_process(Pid::from_child(&child), Signal::INT).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let v = json(&out);
    assert_eq!(v["envelope"]["complete"], false);
    assert!(!v["body"]["scores"].as_array().unwrap().is_empty());
    let load = v["envelope"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "load")
        .unwrap();
    assert_eq!(load["status"], "interrupted");
}

#[test]
fn bad_values_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, said) in [
        (vec!["--minutes", "0"], "--minutes 0"),
        (vec!["--interval=-1"], "--interval -1"),
        (vec!["--cool-to", "500"], "--cool-to 500"),
        (vec!["--load", " "], "--load"),
    ] {
        let out = truebench(tmp.path())
            .arg("thermal")
            .args(&args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(said), "{args:?}: {e}");
    }
    let out = truebench(tmp.path())
        .args(["thermal", "--cool-to", "40", "--heat-to", "60"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

/// The idle gate never reached (a shell loop beside it): the verdict says the start is
/// unknown (critical, exit 3) instead of VALID; with --force the test starts after one look
/// and the verdict says it was forced (a warning).
#[test]
fn a_start_that_was_never_idle_is_said_in_the_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let mut hog = std::process::Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .unwrap();
    let run = |extra: &[&str]| {
        truebench(tmp.path())
            .args(["thermal", "--minutes", "0.02", "--load", "sleep 0.1"])
            .args(["--sample-interval", "0.2", "--json", "--no-store"])
            .args(extra)
            .output()
            .unwrap()
    };
    let waited = run(&["--idle-timeout", "2"]);
    let forced = run(&["--force"]);
    hog.kill().ok();
    hog.wait().ok();
    let not_idle = |out: &std::process::Output| {
        let v = json(out);
        v["envelope"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == "not_idle")
            .cloned()
            .unwrap_or_else(|| panic!("{:#}", v["envelope"]["findings"]))
    };
    let f = not_idle(&waited);
    assert_eq!(f["severity"], "critical", "{f:#}");
    assert_eq!(waited.status.code(), Some(3), "{waited:?}");
    let f = not_idle(&forced);
    assert_eq!(f["severity"], "warning", "{f:#}");
    assert!(f["message"].as_str().unwrap().contains("--force"), "{f:#}");
    // The loop beside the load is named in the load's verdict (its CPU time in the process
    // tables), so a fall of the score would be blamed on it, not on heat.
    let v = json(&forced);
    let bg = v["envelope"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["kind"] == "background_activity"
                && f["phases"]
                    .as_array()
                    .is_some_and(|p| p.iter().any(|x| x == "load"))
        })
        .cloned()
        .unwrap_or_else(|| panic!("{:#}", v["envelope"]["findings"]));
    assert!(bg["message"].as_str().unwrap().contains("sh"), "{bg:#}");
}
