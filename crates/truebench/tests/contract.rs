//! The contract every measuring command shares: while one measurement runs, every other
//! refuses to start, with the same message and the same exit code (4), before it changes or
//! starts anything.

mod common;
use common::truebench;

#[test]
fn while_a_measurement_runs_every_measuring_command_refuses_alike() {
    let tmp = tempfile::tempdir().unwrap();
    // truebench(tmp) points TMPDIR at tmp/lock: hold that lock as a running measurement does.
    let dir = tmp.path().join("lock");
    std::fs::create_dir_all(&dir).unwrap();
    let _held = truebench_suites::lock::MeasurementLock::acquire(&dir).unwrap();
    let scratch = tmp.path().join("scratch");
    let commands: Vec<Vec<String>> = [
        vec!["run", "--quick"],
        vec!["monitor", "--", "true"],
        vec!["monitor", "--per-cluster", "--", "true"],
        vec!["clocks"],
        vec!["interactivity", "--quick"],
        vec!["governors", "--quick"],
        vec!["net", "--loopback"],
        vec!["io", "--file", scratch.to_str().unwrap()],
        vec!["thermal"],
        vec!["efficiency"],
        vec!["review", "-R", "--duration", "1"],
    ]
    .iter()
    .map(|v| v.iter().map(|s| s.to_string()).collect())
    .collect();
    let mut messages = Vec::new();
    for args in &commands {
        let out = truebench(tmp.path()).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(4), "{args:?}: {err}");
        let line = err
            .lines()
            .find(|l| l.contains("another truebench measurement is running"))
            .unwrap_or_else(|| panic!("{args:?}: {err}"))
            .to_string();
        messages.push(line);
    }
    messages.dedup();
    assert_eq!(messages.len(), 1, "{messages:#?}");
    // Nothing was started: no scratch file, no result stored.
    assert!(!scratch.exists());
}

/// A link planted where the machine's measurement lock goes (the lock directory is writable
/// by every user): the command refuses with the reason, before measuring, and the link's
/// target is left as it was.
#[test]
fn a_planted_lock_link_is_refused_and_its_target_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lock");
    std::fs::create_dir_all(&dir).unwrap();
    let precious = tmp.path().join("shadow");
    std::fs::write(&precious, "root:secret\n").unwrap();
    std::os::unix::fs::symlink(&precious, dir.join("truebench-measurement.lock")).unwrap();
    for args in [vec!["clocks"], vec!["monitor", "--", "true"]] {
        let out = truebench(tmp.path()).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("refusing the lock file") && err.contains("symbolic link"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "root:secret\n");
    }
}
