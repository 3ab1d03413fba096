//! `truebench monitor --per-cluster [--offline] -- CMD` (sbc-bench -G): one run per core type,
//! on the recorded ROCK 5B (the offline settings written into its tree and restored) and here.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

fn monitor(tmp: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .env("XDG_DATA_HOME", tmp.join("data"))
        .env("TMPDIR", tmp)
        .env("TRUEBENCH_LOCK_DIR", tmp)
        .arg("monitor")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn rock_5b_offline_per_core_type_and_restored() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = truebench_fixtures::tree_bytes(root.path(), &["var/lib/truebench"]);
    let r = root.path().to_str().unwrap();
    // The command sees the other core type offline while it runs.
    let probe = format!(
        "echo $(cat {r}/sys/devices/system/cpu/cpu4/online) $(cat {r}/sys/devices/system/cpu/cpu0/online) >> {}",
        tmp.path().join("seen").display()
    );
    let out = monitor(
        tmp.path(),
        &[
            "--root",
            r,
            "--per-cluster",
            "--offline",
            "--interval",
            "0.2",
            "--",
            "sh",
            "-c",
            &probe,
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Per core type:"), "{text}");
    assert!(
        text.contains("Cortex-A55 (cpu0-cpu3)") && text.contains("cpu4,5,6,7 offline"),
        "{text}"
    );
    assert!(
        text.contains("Cortex-A76 (cpu4-cpu7)") && text.contains("cpu0,1,2,3 offline"),
        "{text}"
    );
    let seen = std::fs::read_to_string(tmp.path().join("seen")).unwrap();
    assert_eq!(
        seen.split_whitespace().collect::<Vec<_>>(),
        ["0", "1", "1", "0"],
        "{seen}"
    );
    assert_eq!(
        truebench_fixtures::tree_bytes(root.path(), &["var/lib/truebench"]),
        before,
        "every CPU back online"
    );
    // Stored in the history with one row per core type.
    let h = Command::new(BIN)
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .args(["history", "--kind", "monitor", "--json"])
        .output()
        .unwrap();
    assert!(h.status.success());
    let v: serde_json::Value = serde_json::from_slice(&h.stdout).unwrap();
    let id = v[0]["id"].as_i64().expect("one stored monitor result");
    let r = Command::new(BIN)
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .args(["report", &id.to_string(), "--html"])
        .arg(tmp.path().join("r.html"))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let export = tmp.path().join("export");
    Command::new(BIN)
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .arg("export")
        .arg(&export)
        .output()
        .unwrap();
    let file = std::fs::read_dir(&export)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(
        doc["body"]["clusters"].as_array().unwrap().len(),
        2,
        "{}",
        doc["body"]
    );
}

#[test]
fn without_offline_nothing_changes_and_here_it_pins() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = truebench_fixtures::tree_bytes(root.path(), &["var/lib/truebench"]);
    let out = monitor(
        tmp.path(),
        &[
            "--root",
            root.path().to_str().unwrap(),
            "--per-cluster",
            "--no-store",
            "--",
            "true",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        truebench_fixtures::tree_bytes(root.path(), &["var/lib/truebench"]),
        before
    );
    // This machine: one core type, so one run; its exit code is the command's.
    let out = monitor(
        tmp.path(),
        &["--per-cluster", "--no-store", "--", "sh", "-c", "exit 4"],
    );
    assert_eq!(out.status.code(), Some(4));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("One type of CPU core"), "{text}");
    let out = monitor(tmp.path(), &["--offline", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--per-cluster"));
}

/// The wrapped command's score per core type: a `--score` capture, or a known format
/// (7-zip's `Tot:` line here), with the ratio between the core types — in the text, the
/// JSON and the figures compare uses.
#[test]
fn the_score_per_core_type_and_their_ratio() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let r = root.path().to_str().unwrap();
    let counter = tmp.path().join("n");
    // Run k prints `score: k×1000` and a 7-zip style total of k×3000.
    let cmd = format!(
        "n=$(cat {c} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c}; echo \"score: $((n*1000)) points\"; echo \"Tot:   100  200  $((n*3000))\"",
        c = counter.display()
    );
    let out = monitor(
        tmp.path(),
        &[
            "--root",
            r,
            "--per-cluster",
            "--score",
            r"score: (\d+)",
            "--",
            "sh",
            "-c",
            &cmd,
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // The command's own output still reaches the user.
    assert!(text.contains("score: 1000 points"), "{text}");
    assert!(
        text.contains("score 1000") && text.contains("score 2000"),
        "{text}"
    );
    assert!(
        text.contains("Score ratio between the core types (highest / lowest): 2.00"),
        "{text}"
    );
    // Without --score: the 7-zip total, in MIPS.
    std::fs::remove_file(&counter).unwrap();
    let out = monitor(
        tmp.path(),
        &["--root", r, "--per-cluster", "--", "sh", "-c", &cmd],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("score 3000 MIPS") && text.contains("score 6000 MIPS"),
        "{text}"
    );
    assert!(text.contains("7-zip Tot: rating"), "{text}");
    // A pattern that never matches says so.
    let out = monitor(
        tmp.path(),
        &[
            "--root",
            r,
            "--per-cluster",
            "--no-store",
            "--score",
            "nope (\\d+)",
            "--",
            "true",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no run printed a number it matches"),
        "{text}"
    );
    // A bad pattern is a usage error naming it.
    let out = monitor(tmp.path(), &["--per-cluster", "--score", "(", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--score ("));
}

/// Each run is a step of the progress on stderr, with its ending; nothing with --quiet.
#[test]
fn each_run_is_a_step_on_stderr_and_quiet_says_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--root",
            root.path().to_str().unwrap(),
            "--per-cluster",
            "--interval",
            "0.2",
            "--no-store",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "true"]);
        monitor(tmp.path(), &args)
    };
    let out = run(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    for want in [
        "truebench: monitor --per-cluster: the command once per type of CPU core, 2 run(s); Ctrl-C keeps what was measured",
        "truebench: [1/2] Cortex-A55 (cpu0-cpu3)",
        "truebench: [2/2] Cortex-A76 (cpu4-cpu7)",
    ] {
        assert!(lines.contains(&want), "{want:?} in\n{err}");
    }
    let ends: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains(": exit code 0 in "))
        .collect();
    assert_eq!(ends.len(), 2, "{err}");
    assert!(ends[0].starts_with("truebench: [1/2] Cortex-A55 (cpu0-cpu3): exit code 0 in "));
    // Plain lines: the command shares the terminal.
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
    let quiet = run(&["--quiet"]);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&quiet.stderr), "");
}
