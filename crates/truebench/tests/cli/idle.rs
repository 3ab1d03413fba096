//! Idle states as evidence end to end, on the Snapdragon phone's dump: a governor row records
//! the deepest idle state its CPUs entered while it ran (the test grows cpu3's `gold-c4`
//! counters while the task sets run), and `review` lists the states.

use crate::common::{json, measured, truebench};
use std::process::Stdio;
use std::time::Duration;

const PHONE: &str = "arm-A510-A710-A715-X3";

#[test]
fn a_governor_row_records_the_deepest_idle_state_entered() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = truebench_fixtures::sysfs_dump(PHONE);
    let root = dir.path().join(PHONE);
    let child = truebench(tmp.path())
        .arg("governors")
        .arg("--root")
        .arg(&root)
        .args([
            "--utilisations",
            "0.4",
            "--sets",
            "1",
            "--tasks",
            "2",
            "--loops-per-ms",
            "100000",
            "--duration",
            "2",
            "--governors",
            "performance",
            "--json",
            "--no-store",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The row's phase is open once its tasks run.
    let tasks = format!("/proc/{}/task", child.id());
    let t0 = std::time::Instant::now();
    while !std::fs::read_dir(&tasks)
        .map(|d| {
            d.filter_map(Result::ok).any(|t| {
                std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "tb-task")
            })
        })
        .unwrap_or(false)
    {
        assert!(t0.elapsed() < Duration::from_secs(60), "no task started");
        std::thread::sleep(Duration::from_millis(20));
    }
    truebench_fixtures::cpuidle::grow_idle(&root, 3, 1, 5, 20_000);
    let out = child.wait_with_output().unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    let rows = doc["body"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    let d = &rows[0]["deepest_idle"];
    assert_eq!(d["state"], "gold-c4", "{:#}", rows[0]);
    assert_eq!(d["exit_latency_us"], 1900);
    assert_eq!(d["cpus"], serde_json::json!([3]));
}
