//! `truebench efficiency` on this machine (a VM without cpufreq: one point at the current
//! clock, said so) and its errors.

use crate::common;
use common::{json, measured, truebench};

#[test]
fn without_cpufreq_one_point_is_measured_and_the_reason_is_given() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args([
            "efficiency",
            "--runs",
            "1",
            "--work",
            "lzma",
            "--idle-timeout",
            "0",
            "--power-cmd",
            "echo 5 W",
            "--json",
            "--no-store",
        ])
        .output()
        .unwrap();
    assert!(measured(&out), "{out:?}");
    let v = json(&out);
    assert_eq!(v["kind"], "efficiency");
    let b = &v["body"];
    assert_eq!(b["unit"], "MB/s");
    let points = b["clusters"][0]["points"].as_array().unwrap();
    assert!(!points.is_empty());
    let p = &points[0];
    assert!(p["score"].as_f64().unwrap() > 0.0, "{p}");
    assert!((p["watts"].as_f64().unwrap() - 5.0).abs() < 1e-9, "{p}");
    assert!(p["measured_mhz"].as_f64().unwrap() > 100.0, "{p}");
    if b["switched"] == false {
        assert!(b["switch_note"]
            .as_str()
            .unwrap()
            .contains("one point per cluster"));
    }
}

#[test]
fn bad_values_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, said) in [
        (vec!["--runs", "0"], "--runs 0"),
        (vec!["--clusters", "99"], "--clusters 99: no such cluster"),
        (
            vec!["--min-khz", "2000", "--max-khz", "1000"],
            "--min-khz 2000 is above --max-khz 1000",
        ),
        (vec!["--work", "gzip"], "gzip"),
    ] {
        let out = truebench(tmp.path())
            .arg("efficiency")
            .args(&args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(said), "{args:?}: {e}");
    }
}

/// Every cpufreq setting of a fixture root, to compare before and after.
fn cpufreq(root: &std::path::Path) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for p in ["policy0", "policy4", "policy6"] {
        for f in ["scaling_governor", "scaling_min_freq", "scaling_max_freq"] {
            let rel = format!("sys/devices/system/cpu/cpufreq/{p}/{f}");
            v.push((
                rel.clone(),
                std::fs::read_to_string(root.join(&rel)).unwrap(),
            ));
        }
    }
    v
}

/// Start the walk on the ROCK 5B root (the work runs on this machine) and wait until it
/// has set the userspace governor on the little cluster.
fn walking(tmp: &std::path::Path, root: &std::path::Path) -> std::process::Child {
    let child = truebench(tmp)
        .args([
            "efficiency",
            "--runs",
            "1",
            "--work",
            "lzma",
            "--idle-timeout",
            "0",
        ])
        .args(["--cool-timeout", "0", "--json", "--no-store", "--root"])
        .arg(root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let gov = root.join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
    let t0 = std::time::Instant::now();
    let mut child = child;
    while std::fs::read_to_string(&gov).unwrap().trim() != "userspace" {
        if t0.elapsed().as_secs() >= 60 || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "the walk never set userspace: {}{}",
                String::from_utf8_lossy(&out.stderr),
                String::from_utf8_lossy(&out.stdout)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child
}

#[test]
fn ctrl_c_restores_every_setting_and_kill_9_is_restored_by_the_next_command() {
    use rustix::process::{kill_process, Pid, Signal};
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = cpufreq(root.path());

    let child = walking(tmp.path(), root.path());
    kill_process(Pid::from_child(&child), Signal::INT).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let v = json(&out);
    assert_eq!(v["envelope"]["complete"], false);
    assert_eq!(cpufreq(root.path()), before);

    let child = walking(tmp.path(), root.path());
    kill_process(Pid::from_child(&child), Signal::KILL).unwrap();
    let _ = child.wait_with_output().unwrap();
    assert_ne!(
        cpufreq(root.path()),
        before,
        "SIGKILL left the walk's settings"
    );
    let out = truebench(tmp.path())
        .args(["info", "--root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert!(measured(&out), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("left changed by a killed truebench run"));
    assert_eq!(cpufreq(root.path()), before);
}
