//! Standard output that goes away: `truebench … | head -1` (the reader has closed the pipe)
//! ends quietly with exit 0, like most command-line tools; a full disk (`> /dev/full`) is an
//! error that names standard output, exit 2. Never a panic (exit 101), never a silent 0 for
//! output that was lost.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

/// The write end of a pipe whose reader is already closed: every write fails with EPIPE.
fn closed_pipe() -> Stdio {
    let (reader, writer) = rustix::pipe::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

/// A device where every write fails with ENOSPC.
fn dev_full() -> Stdio {
    Stdio::from(File::options().write(true).open("/dev/full").unwrap())
}

/// Two real sbc-bench logs of the corpus, extracted into `dir`.
fn two_logs(dir: &Path) -> Vec<PathBuf> {
    let archive =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/sbc-bench/results.tar.gz");
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(File::open(archive).unwrap()));
    let mut out = Vec::new();
    for e in ar.entries().unwrap() {
        let mut e = e.unwrap();
        let name = e.path().unwrap().file_name().unwrap().to_owned();
        if name == "4qJG.txt" || name == "4qJr.txt" {
            let mut text = Vec::new();
            e.read_to_end(&mut text).unwrap();
            let p = dir.join(&name);
            std::fs::write(&p, text).unwrap();
            out.push(p);
        }
    }
    assert_eq!(out.len(), 2);
    out
}

/// Every command that prints on stdout, each with arguments that make it print at once.
fn commands(tmp: &Path, root: &Path) -> Vec<Vec<String>> {
    let root = root.to_str().unwrap().to_string();
    let db = tmp.join("history.sqlite").to_str().unwrap().to_string();
    let logs: Vec<String> = two_logs(tmp)
        .iter()
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    // `history` only reads an existing database: store the logs in it first.
    let stored = Command::new(BIN)
        .args(["import", "--db", &db])
        .args(&logs)
        .output()
        .unwrap();
    assert!(stored.status.success());
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let mut import = v(&["import", "--no-store"]);
    import.extend(logs.iter().cloned());
    let mut import_json = v(&["import", "--no-store", "--json"]);
    import_json.extend(logs.iter().cloned());
    let mut compare = v(&["compare", "--db", &db]);
    compare.extend(logs.iter().cloned());
    vec![
        v(&["info", "--root", &root]),
        v(&["info", "--json", "--root", &root]),
        v(&["history", "--json", "--db", &db]),
        import,
        import_json,
        compare,
        v(&["measure", "aes", "--seconds", "0.01"]),
        v(&["monitor", "--interval", "0.05", "--root", &root]),
        v(&[
            "monitor",
            "--interval",
            "0.05",
            "--json-lines",
            "--root",
            &root,
        ]),
        v(&[
            "monitor",
            "--interval",
            "0.05",
            "--json-lines",
            "--root",
            &root,
            "--",
            "true",
        ]),
    ]
}

fn run(args: &[String], stdout: Stdio, tmp: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .env("XDG_DATA_HOME", tmp.join("xdg"))
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn a_closed_pipe_ends_every_command_quietly_with_exit_0() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let mut failures = Vec::new();
    for args in commands(tmp.path(), root.path()) {
        let out = run(&args, closed_pipe(), tmp.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(0) || !stderr.is_empty() {
            failures.push(format!(
                "truebench {}: {:?}, stderr: {stderr}",
                args.join(" "),
                out.status
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_full_disk_is_an_error_naming_standard_output() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let mut failures = Vec::new();
    for args in commands(tmp.path(), root.path()) {
        let out = run(&args, dev_full(), tmp.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(2)
            || stderr != "truebench: error: writing to standard output: No space left on device\n"
        {
            failures.push(format!(
                "truebench {}: {:?}, stderr: {stderr}",
                args.join(" "),
                out.status
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Messages on standard error are best effort: a closed pipe there (`2>&1 | head -1` after
/// head has gone) ends nothing early — the command's own exit code and output stay.
#[test]
fn a_closed_stderr_changes_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec!["import".into(), "--no-store".into()];
    args.extend(two_logs(tmp.path()).iter().map(|p| p.display().to_string()));
    args.push(tmp.path().join("missing.txt").display().to_string());
    let out = Command::new(BIN)
        .args(&args)
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .stdout(Stdio::piped())
        .stderr(closed_pipe())
        .output()
        .unwrap();
    // 2: one of the files could not be read (said on stderr, which nobody reads).
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("4qJG.txt") && text.contains("4qJr.txt"),
        "{text}"
    );
}
