//! `truebench clocks` end to end: the real kernel on this machine, and the real OPP walk on a
//! recorded ROCK 5B root (whose files change, while the clock is measured on this machine) —
//! including interruption by SIGINT and SIGKILL, after which every file is as before.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

/// Every clocks walk is a measurement and takes the machine's measurement lock: the tests
/// of this file that measure take turns.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The binary with the history kept out of the user's own (every clocks result is stored).
fn bin() -> Command {
    let mut c = Command::new(BIN);
    c.env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir());
    c.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("truebench-clocks-tests-history"),
    );
    c
}
const GOV4: &str = "sys/devices/system/cpu/cpufreq/policy4/scaling_governor";

fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    // Tuning's journal directory is truebench's, not the machine's.
    truebench_fixtures::tree_bytes(root, &["var/lib/truebench"])
}

#[test]
fn live_machine_json_has_a_plausible_clock_per_cluster() {
    let _turn = serial();
    let out = bin().args(["clocks", "--json"]).output().unwrap();
    // 3: measured, but not valid — this shared machine is often busy (in CI the static
    // builds run beside the tests), which makes the result invalid with background
    // activity. The exit code and the verdict must agree.
    let code = out.status.code();
    assert!(
        matches!(code, Some(0) | Some(3)),
        "exit {code:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "clocks", "{v}");
    assert_eq!(
        code == Some(0),
        v["envelope"]["valid"].as_bool().unwrap(),
        "{}",
        v["envelope"]["findings"]
    );
    let clusters = v["body"]["clusters"].as_array().unwrap();
    assert!(!clusters.is_empty(), "{v}");
    for c in clusters {
        let points = c["points"].as_array().unwrap();
        assert!(!points.is_empty(), "{c}");
        for p in points {
            let mhz = p["measured_mhz"].as_f64().unwrap_or_else(|| panic!("{p}"));
            assert!((500.0..6000.0).contains(&mhz), "{p}");
            assert_eq!(p["samples_mhz"].as_array().unwrap().len(), 3, "{p}");
        }
    }
    assert!(v["envelope"]["findings"].is_array());
}

#[test]
fn bench_probe_prints_one_line() {
    let out = bin().args(["clocks", "--bench-probe"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8(out.stdout).unwrap();
    let mhz: f64 = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("mhz="))
        .unwrap()
        .parse()
        .unwrap();
    assert!((500.0..6000.0).contains(&mhz), "{line}");
    assert_eq!(line.lines().count(), 1, "{line}");
}

#[test]
fn opp_walk_on_a_recorded_root_changes_and_restores_its_files() {
    let _turn = serial();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = tree(root.path());
    let out = bin()
        .args(["clocks", "--root"])
        .arg(root.path())
        .env("MaxKHz", "1800000")
        .env("MinKHz", "1400000")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("is a recorded machine"), "{text}");
    assert!(
        text.contains("Checking cpufreq OPP for cpu0-cpu3 (Cortex-A55):"),
        "{text}"
    );
    assert!(text.contains("Cpufreq OPP: 1800    Measured: "), "{text}");
    assert!(text.contains("Cpufreq OPP: 1416    Measured: "), "{text}");
    // MaxKHz: nothing above 1800 walked.
    assert!(!text.contains("Cpufreq OPP: 2400"), "{text}");
    assert_eq!(tree(root.path()), before, "{text}");
}

/// `clocks --json` on the ROCK 5B, `signal` sent (with `kill`) as soon as the walk has changed
/// its second cluster's governor (policy4): the root, its files before, the exit code and
/// stdout.
fn interrupted_walk(
    signal: &str,
) -> (
    tempfile::TempDir,
    BTreeMap<PathBuf, Vec<u8>>,
    Option<i32>,
    String,
) {
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = tree(root.path());
    let gov = root.path().join(GOV4);
    assert_ne!(fs::read_to_string(&gov).unwrap().trim(), "performance");
    let mut child = bin()
        .args(["clocks", "--json", "--root"])
        .arg(root.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    // Until the new value is there (a read can land between the truncation and the write
    // and see an empty file).
    while fs::read_to_string(&gov).unwrap().trim() != "performance" {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the walk never reached policy4"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "truebench ended before policy4"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    crate::common::signal(signal, child.id());
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (root, before, out.status.code(), stdout)
}

#[test]
fn sigint_during_the_walk_restores_everything() {
    let _turn = serial();
    let (root, before, code, stdout) = interrupted_walk("-INT");
    assert_eq!(code, Some(130));
    assert_eq!(tree(root.path()), before);
    // Ctrl-C ends the walk before its next OPP, not after every OPP of every cluster: the
    // partial result has the first cluster whole, the second cut short and said so, and no
    // third.
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let clusters = v["body"]["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 2, "{clusters:#?}");
    let cut = &clusters[1];
    let notes = cut["notes"].to_string();
    assert!(notes.contains("interrupted after"), "{notes}");
    assert!(
        cut["points"].as_array().unwrap().len() < clusters[0]["points"].as_array().unwrap().len(),
        "{cut}"
    );
    assert!(v["envelope"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["status"] == "interrupted"));
}

#[test]
fn sigkill_during_the_walk_is_repaired_by_the_next_command() {
    let _turn = serial();
    let (root, before, code, _) = interrupted_walk("-KILL");
    assert_eq!(code, None, "killed by a signal");
    assert_ne!(
        tree(root.path()),
        before,
        "SIGKILL leaves the settings changed"
    );
    let out = bin()
        .args(["clocks", "--json", "--max-khz", "408000", "--root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(tree(root.path()), before);
}

#[test]
fn without_root_the_current_clock_is_measured_and_the_walk_is_said_to_need_root() {
    let _turn = serial();
    // Needs root to drop to an unprivileged user; as an ordinary user the command itself is
    // the unprivileged case, tested the same way.
    let root_user = rustix::process::geteuid().is_root();
    let root = truebench_fixtures::root("rk3588-rock5b");
    // Readable for everyone, writable for nobody but root (fixture files are 0444/0644).
    let mut dirs = vec![root.path().to_path_buf()];
    while let Some(d) = dirs.pop() {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if fs::symlink_metadata(&p).unwrap().is_dir() {
                dirs.push(p);
            }
        }
    }
    let before = tree(root.path());
    let mut cmd = if root_user {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
        c
    } else {
        bin()
    };
    // Not stored: nobody has no history of its own to write (a result that cannot be stored
    // is exit 2, and kept in a temporary file).
    let out = cmd
        .args(["clocks", "--json", "--no-store", "--root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["envelope"]["tuning"]["applied"], false, "{v}");
    let reason = v["envelope"]["tuning"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("the OPP walk needs root"), "{reason}");
    for c in v["body"]["clusters"].as_array().unwrap() {
        assert_eq!(c["mode"], "current_clock", "{c}");
        assert_eq!(c["points"].as_array().unwrap().len(), 1, "{c}");
        assert!(
            c["points"][0]["measured_mhz"].as_f64().unwrap() > 0.0,
            "{c}"
        );
        assert!(c["notes"].to_string().contains("needs root"), "{c}");
    }
    assert_eq!(tree(root.path()), before);
}

/// Progress: one step per clock measured, as many as the walk measures, each naming the CPU
/// and the OPP set; plain lines beside `--json`, nothing with `--quiet`.
#[test]
fn the_walk_says_each_measurement_as_a_step() {
    let _turn = serial();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let walk = |flag: &str| {
        bin()
            .args([
                "clocks",
                flag,
                "--no-store",
                "--max-khz",
                "600000",
                "--root",
            ])
            .arg(root.path())
            .output()
            .unwrap()
    };
    let out = walk("--json");
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let points: usize = doc["body"]["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["points"].as_array().unwrap().len())
        .sum();
    let err = String::from_utf8_lossy(&out.stderr);
    let ends: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(" MHz measured in "))
        .collect();
    assert_eq!(ends.len(), points, "{err}");
    assert!(
        ends.last()
            .unwrap()
            .contains(&format!("[{points}/{points}] cpu")),
        "{err}"
    );
    assert!(err.contains(" at 408 MHz"), "{err}");
    let quiet = walk("--quiet");
    assert!(quiet.status.success());
    assert!(
        !String::from_utf8_lossy(&quiet.stderr).contains("measured in"),
        "{quiet:?}"
    );
}
