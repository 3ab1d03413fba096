//! `--power-cmd` on every command that measures: the same flags, and every phase of two
//! meter intervals or more gets the meter's 5 W × its duration within 2 % — integrated over
//! the meter's own readings, however often the sampler samples.

use serde_json::Value;
use std::path::Path;

use crate::common;
use common::{json, truebench};

/// The measuring commands, each as short as it goes on this machine (no cpufreq: one
/// point, one governor run), all with the same meter flags.
fn commands(scratch: &Path) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&[
            "monitor",
            "--interval",
            "5",
            "--no-store",
            "--",
            "sleep",
            "1.2",
        ]),
        s(&["clocks", "--json", "--no-store"]),
        s(&[
            "interactivity",
            "--benchmarks",
            "audio",
            "--loads",
            "none",
            "--duration",
            "1",
            "--loops-per-ms",
            "100000",
            "--json",
            "--no-store",
        ]),
        s(&[
            "governors",
            "--utilisations",
            "0.4",
            "--sets",
            "1",
            "--tasks",
            "2",
            "--loops-per-ms",
            "100000",
            "--duration",
            "1",
            "--json",
            "--no-store",
        ]),
        s(&[
            "net",
            "--loopback",
            "--tests",
            "upload",
            "--duration",
            "1",
            "--json",
            "--no-store",
        ]),
        vec![
            "io".into(),
            "--file".into(),
            scratch.display().to_string(),
            "--size".into(),
            "8".into(),
            "--tests".into(),
            "cached".into(),
            "--duration".into(),
            "1".into(),
            "--json".into(),
            "--no-store".into(),
        ],
        s(&[
            "thermal",
            "--minutes",
            "0.02",
            "--load",
            "sleep 0.1",
            "--wait-timeout",
            "0",
            "--json",
            "--no-store",
        ]),
        s(&[
            "efficiency",
            "--runs",
            "1",
            "--work",
            "lzma",
            "--idle-timeout",
            "0",
            "--json",
            "--no-store",
        ]),
        s(&["review", "-R", "--duration", "1.2", "--json", "--no-store"]),
    ]
}

#[test]
fn a_meter_on_every_measuring_command_gives_watts_times_duration_per_phase() {
    let _turn = crate::common::tuning_this_machine();
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir_in("/var/tmp").unwrap();
    let file = scratch.path().join("scratch");
    for args in commands(&file) {
        let json_out = args.iter().any(|a| a == "--json");
        // The meter flags go before `--` (monitor's command).
        let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
        let out = truebench(tmp.path())
            .args(&args[..split])
            .args(["--power-cmd", "echo 5.0", "--power-interval", "0.2"])
            .args(&args[split..])
            .output()
            .unwrap();
        let code = out.status.code();
        assert!(
            matches!(code, Some(0) | Some(3)),
            "{}: exit {code:?}\n{}",
            args[0],
            String::from_utf8_lossy(&out.stderr)
        );
        if !json_out {
            // monitor -- CMD prints text.
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("Energy from power-cmd: echo 5.0"), "{text}");
            continue;
        }
        let doc = json(&out);
        check(&args[0], &doc);
    }
}

fn check(cmd: &str, doc: &Value) {
    let env = &doc["envelope"];
    let e = &env["energy"];
    assert_eq!(e["source"], "power-cmd: echo 5.0", "{cmd}: {e}");
    let phases = env["phases"].as_array().unwrap();
    let rows = e["phases"].as_array().unwrap();
    let mut checked = 0;
    for p in phases {
        let (Some(a), Some(b)) = (p["started"].as_f64(), p["ended"].as_f64()) else {
            continue;
        };
        let dur = b - a;
        if p["name"] == "idle" {
            continue;
        }
        let row = rows
            .iter()
            .find(|r| r["phase"] == p["name"])
            .unwrap_or_else(|| panic!("{cmd}: no energy for {}: {e}", p["name"]));
        let j = row["joules"].as_f64().unwrap();
        let w = row["mean_watts"].as_f64().unwrap();
        assert!((w - 5.0).abs() < 1e-9, "{cmd}: {}: {w} W", p["name"]);
        // Two meter intervals or more: all of it covered.
        if dur >= 0.4 {
            assert!(
                (j - 5.0 * dur).abs() <= 0.02 * 5.0 * dur,
                "{cmd}: {}: {j} J over {dur:.3} s",
                p["name"]
            );
        }
        checked += 1;
    }
    assert!(checked > 0, "{cmd}: no phase: {phases:?}");
}
