//! Error messages a new user meets (issue 10, item 11): said once, naming the file or value,
//! with the way out; exit codes as a shell gives them.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

fn tb(args: &[&str], tmp: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .env("XDG_DATA_HOME", tmp.join("xdg"))
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .env_remove("ExecuteCommand")
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn causes_are_not_repeated() {
    let t = tempfile::tempdir().unwrap();
    let not_db = t.path().join("notes.txt");
    std::fs::write(&not_db, "these are my notes, not a database\n".repeat(200)).unwrap();
    let o = tb(&["history", "--db", not_db.to_str().unwrap()], t.path());
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(!e.contains("not a database: file is not a database"), "{e}");
    assert_eq!(e.matches("file is not a database").count(), 1, "{e}");
    assert!(e.contains(not_db.to_str().unwrap()), "{e}");

    let root = truebench_fixtures::root("empty");
    let missing = t.path().join("missing.log");
    let o = tb(
        &[
            "monitor",
            "--root",
            root.path().to_str().unwrap(),
            "--kernel-log",
            missing.to_str().unwrap(),
            "--",
            "true",
        ],
        t.path(),
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.matches("os error 2").count(), 1, "{e}");
    assert!(e.contains(missing.to_str().unwrap()), "{e}");
}

#[test]
fn report_names_an_info_document_and_reads_a_results_folder() {
    let t = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("empty");
    let info = tb(
        &["info", "--json", "--root", root.path().to_str().unwrap()],
        t.path(),
    );
    assert!(info.status.success());
    let info_json = t.path().join("info.json");
    std::fs::write(&info_json, &info.stdout).unwrap();
    let page = t.path().join("page.html");
    let o = tb(
        &[
            "report",
            info_json.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        t.path(),
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("this is an info document"), "{e}");
    assert!(!e.contains("missing field"), "{e}");

    // A results folder of `truebench run`.
    let folder = t.path().join("2026-01-01_120000-vm");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/tests/data/v1/quick-run-x86-vm.json"),
        folder.join("result.json"),
    )
    .unwrap();
    let o = tb(
        &[
            "report",
            folder.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        t.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&page).unwrap().contains("<html"));
}

#[test]
fn a_negative_interval_is_named_without_a_misleading_tip() {
    let t = tempfile::tempdir().unwrap();
    let o = tb(&["monitor", "--interval", "-1"], t.path());
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--interval -1"), "{e}");
    assert!(!e.contains("'-- -1'"), "{e}");
}

#[test]
fn a_command_that_does_not_exist_exits_127_like_a_shell() {
    let t = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("empty");
    let o = tb(
        &[
            "monitor",
            "--interval",
            "0.1",
            "--root",
            root.path().to_str().unwrap(),
            "--",
            "/nonexistent-truebench-command",
        ],
        t.path(),
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(127), "{e}");
    assert!(e.contains("/nonexistent-truebench-command"), "{e}");
}

/// node_exporter's `--web.listen-address=:9100` style: every interface on that port.
#[test]
fn listen_on_a_bare_port() {
    let root = truebench_fixtures::root("empty");
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", ":0", "--root"])
        .arg(root.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    assert!(
        line.starts_with("Serving metrics on http://[::]:")
            || line.starts_with("Serving metrics on http://0.0.0.0:"),
        "{line} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--cpuinfo FILE` / `CPUINFOFILE` with an empty or binary file is refused, naming what the
/// user wrote: the flag or the variable.
#[test]
fn a_cpuinfo_file_without_cpuinfo_is_refused_naming_flag_or_variable() {
    let t = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("empty");
    let r = root.path().to_str().unwrap();
    let empty = t.path().join("empty");
    std::fs::write(&empty, "").unwrap();
    let binary = t.path().join("binary");
    std::fs::write(
        &binary,
        [0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe],
    )
    .unwrap();
    for (file, why) in [
        (&empty, "the file is empty"),
        (&binary, "the file is binary"),
    ] {
        let f = file.to_str().unwrap();
        let o = tb(&["info", "--root", r, "--cpuinfo", f], t.path());
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(
            e.contains(&format!("--cpuinfo {f}: it holds no cpuinfo ({why})")),
            "{e}"
        );
        let o = Command::new(BIN)
            .args(["info", "--root", r])
            .env("CPUINFOFILE", f)
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(
            e.contains(&format!("CPUINFOFILE={f}: it holds no cpuinfo")),
            "{e}"
        );
    }
    let o = Command::new(BIN)
        .args(["info", "--root", r])
        .env("CPUINFOFILE", "/x")
        .output()
        .unwrap();
    let e = stderr(&o);
    assert!(e.contains("CPUINFOFILE=/x: no such file"), "{e}");
    assert!(!e.contains("--cpuinfo"), "{e}");
}
