//! `truebench efficiency` on this machine (a VM without cpufreq: one point at the current
//! clock, said so) and its errors.

mod common;
use common::{json, truebench};

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
    assert_eq!(out.status.code(), Some(0), "{out:?}");
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
