//! Helpers the end-to-end tests share (`mod common;` in each test file).
#![allow(dead_code)] // each test file uses a part

use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub const BIN: &str = env!("CARGO_BIN_EXE_truebench");

/// The binary with its own lock directory, cache and history below `tmp`: tests run in
/// parallel and must not touch the user's.
pub fn truebench(tmp: &Path) -> Command {
    let mut c = Command::new(BIN);
    let lock = tmp.join("lock");
    std::fs::create_dir_all(&lock).unwrap();
    c.env("TMPDIR", &lock)
        .env("TRUEBENCH_LOCK_DIR", &lock)
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .env("XDG_DATA_HOME", tmp.join("data"));
    c
}

/// The one document the command run with `truebench(tmp)` stored, read back with
/// `truebench export`.
pub fn stored(tmp: &Path) -> Value {
    let dir = tmp.join("export");
    let out = truebench(tmp).arg("export").arg(&dir).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap()
}

/// stdout as JSON, or a panic showing both streams.
pub fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A measuring command ran to its end: exit 0 (valid) or 3 (valid = false: a critical
/// finding, such as the other tests' load on a busy machine).
pub fn measured(out: &std::process::Output) -> bool {
    matches!(out.status.code(), Some(0) | Some(3))
}

/// Tests that tune this machine (the live root, not a fixture) take turns: the root's tuning
/// journal admits one run at a time and refuses the next, as it should. Found by holding the
/// live root's journal (`tuning-hold --root /`) while the suite ran: only these tests failed.
pub fn tuning_this_machine() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

pub mod kinds;

/// Regular files below `dir` by relative path, and apart the hidden temporaries a writer of
/// truebench's leaves while it writes (`.truebench-site-*`, `*.tmp`): what a killed or
/// filled-up command left behind (crash and full-disk tests).
pub fn files(dir: &Path) -> (std::collections::BTreeMap<String, Vec<u8>>, Vec<String>) {
    let mut out = std::collections::BTreeMap::new();
    let mut temps = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".truebench-site-") || name.ends_with(".tmp") {
                temps.push(rel);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    (out, temps)
}

/// `n` sbc-bench logs of the repo's test data, from the `skip`-th, in a new folder `dir`.
pub fn logs(dir: &Path, skip: usize, n: usize) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in truebench_fixtures::sbc_bench::logs()
        .into_iter()
        .skip(skip)
        .take(n)
    {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir.to_path_buf()
}

/// `truebench ARGS --db DB` as [`with_db`] runs it, whatever its exit.
pub fn run_with_db(db: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .arg("--db")
        .arg(db)
        .env("XDG_DATA_HOME", db.parent().unwrap().join("xdg"))
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .output()
        .unwrap()
}

/// `truebench ARGS --db DB`, which must succeed: the history commands' tests. Nothing lands in
/// the user's own history (XDG_DATA_HOME beside the database) and each command takes a lock
/// of its own.
pub fn with_db(db: &Path, args: &[&str]) -> std::process::Output {
    let out = run_with_db(db, args);
    assert!(
        out.status.success(),
        "truebench {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Send `signal` (`-INT`, `-TERM`, `-KILL`) to process `pid` with kill(1), which must deliver
/// it: the process is still there.
pub fn signal(signal: &str, pid: u32) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill {signal} {pid}: {status}");
}
