//! Odd files planted in a recorded tree (`--root`) by another user: a FIFO, a socket, a
//! device node or a link to one, a huge sparse file at `proc/cpuinfo`, `proc/stat` and a
//! cpufreq policy's `scaling_governor`. `info`, `monitor` and `review` finish within a time bound and say
//! "unknown" for what could not be read — run as another user (nobody) where the test runs
//! as root, as a user who finds those files in a tree they read.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use truebench_fixtures::odd::{self, Odd};

use crate::common::BIN;

const GOVERNOR: &str = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";

/// The binary, as nobody when this runs as root, with its state below `tmp`.
fn as_another_user(tmp: &Path) -> Command {
    let mut c = if rustix::process::geteuid().is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
        c
    } else {
        Command::new(BIN)
    };
    c.env("TMPDIR", tmp)
        .env("TRUEBENCH_LOCK_DIR", tmp.join("lock"))
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .env("XDG_DATA_HOME", tmp.join("data"));
    c
}

/// Run to the end within `secs`, or kill it and fail: a hang is what this test is for.
fn finish(mut cmd: Command, secs: u64, what: &str) -> (Option<i32>, String, String) {
    let t0 = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drained while it runs: a full pipe would block it.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let e = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if t0.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (o, e) = (o.join().unwrap(), e.join().unwrap());
    assert!(
        status.is_some(),
        "{what}: still running after {secs} s: {e}"
    );
    (status.unwrap().code(), o, e)
}

/// Everyone may read the tree and write the state folders, as in a shared /tmp.
fn open_to_all(p: &Path) {
    let m = std::fs::symlink_metadata(p).unwrap();
    if m.is_dir() {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
        for e in std::fs::read_dir(p).unwrap() {
            open_to_all(&e.unwrap().path());
        }
    }
}

#[test]
fn info_and_review_of_a_tree_with_odd_files_end_and_say_unknown() {
    for kind in odd::kinds() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        truebench_fixtures::copy_tree(truebench_fixtures::root("rk3588-rock5b").path(), &root)
            .unwrap();
        odd::plant(&root.join(GOVERNOR), kind);
        odd::plant(&root.join("proc/cpuinfo"), kind);
        odd::plant(&root.join("proc/stat"), kind);
        std::fs::create_dir(tmp.path().join("lock")).unwrap();
        open_to_all(tmp.path());
        let said = match kind {
            Odd::Huge => "is 1 GiB, larger than the 4 MiB".to_string(),
            _ => format!("is {}, not a regular file: refused", kind.said()),
        };
        let run = |args: &[&str]| {
            let what = format!("{kind:?}: {args:?}");
            let mut c = as_another_user(tmp.path());
            c.args(args).arg("--root").arg(&root);
            let (code, out, err) = finish(c, 60, &what);
            (what, code, out, err)
        };

        let (what, code, out, err) = run(&["info"]);
        assert_eq!(code, Some(0), "{what}: {err}");
        assert!(out.contains("policy0, governor unknown"), "{what}: {out}");
        let cpuinfo = format!("cpuinfo: {}: {said}", root.join("proc/cpuinfo").display());
        assert!(out.contains(&cpuinfo), "{what}: no {cpuinfo:?} in {out}");

        let (what, code, out, err) = run(&["info", "--json"]);
        assert_eq!(code, Some(0), "{what}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let little = v["clusters"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["policy"] == 0))
            .unwrap_or_else(|| panic!("{what}: {out}"));
        assert!(little["governor"].is_null(), "{what}: {little}");

        // The sampler opens its files once: an odd proc/stat is no CPU load, not a hang.
        let what = format!("{kind:?}: monitor");
        let mut c = as_another_user(tmp.path());
        c.args(["monitor", "--no-store", "--interval", "0.2", "--root"])
            .arg(&root)
            .args(["--", "sleep", "1"]);
        let (code, _, err) = finish(c, 60, &what);
        assert!(matches!(code, Some(0) | Some(3)), "{what}: {code:?} {err}");

        let (what, code, out, err) = run(&["review", "--no-store"]);
        assert!(matches!(code, Some(0) | Some(3)), "{what}: {code:?} {err}");
        assert!(
            out.contains("policy0 (cpu0-cpu3) governor: unknown"),
            "{what}: {out}"
        );
        let (what, code, out, err) = run(&["review", "--no-store", "--json"]);
        assert!(matches!(code, Some(0) | Some(3)), "{what}: {code:?} {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let governor = v["body"]["settings"]
            .as_array()
            .and_then(|s| {
                s.iter()
                    .find(|s| s["name"] == "governor" && s["subject"] == "policy0 (cpu0-cpu3)")
            })
            .unwrap_or_else(|| panic!("{what}: {out}"));
        assert_eq!(governor["value"], "unknown", "{what}");
        let why = governor["why"].as_str().unwrap_or_default();
        assert!(
            why.contains(&said) && why.contains(GOVERNOR),
            "{what}: {why}"
        );
    }
}

/// A FIFO, socket, device node (or a link to one), or a huge file planted by another user
/// where `run` puts its results folder and files, where `export` writes a result, where
/// `site` puts a page, beside a history in a shared folder: refused with what it is and its name, at once, exit 2 — run as
/// nobody where the test runs as root.
#[test]
fn results_folder_export_site_and_history_refuse_an_odd_file_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    truebench_fixtures::copy_tree(truebench_fixtures::root("rk3588-rock5b").path(), &root).unwrap();
    std::fs::create_dir(tmp.path().join("lock")).unwrap();
    open_to_all(tmp.path());
    let run = |args: &[&str], what: &str| {
        let mut c = as_another_user(tmp.path());
        c.args(args);
        finish(c, 60, what)
    };
    // A result in the history, and the name export gives it.
    let r = root.to_str().unwrap();
    let (code, _, err) = run(&["review", "--root", r], "review");
    assert!(matches!(code, Some(0) | Some(3)), "{err}");
    let probe = tmp.path().join("probe");
    let (code, _, err) = run(&["export", probe.to_str().unwrap()], "export");
    assert_eq!(code, Some(0), "{err}");
    let name = std::fs::read_dir(&probe)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();

    for kind in odd::kinds() {
        let base = tmp.path().join(format!("{kind:?}"));
        std::fs::create_dir(&base).unwrap();
        open_to_all(&base);
        let mut cases: Vec<(Vec<String>, std::path::PathBuf, String)> = Vec::new();
        let quick = |dir: &Path| {
            [
                "run",
                "--quick",
                "--force",
                "--no-store",
                "--no-tuning",
                "--root",
                r,
            ]
            .iter()
            .map(|s| s.to_string())
            .chain(["--results-dir".into(), dir.display().to_string()])
            .collect::<Vec<_>>()
        };
        // The results folder itself.
        let folder = base.join("results");
        cases.push((
            quick(&folder),
            folder.clone(),
            match kind {
                Odd::Huge => "is a regular file, not a folder".into(),
                _ => format!("is {}, not a folder", kind.said()),
            },
        ));
        // Its result.json (a link there is replaced, never followed: not refused).
        if kind != Odd::LinkToDevZero {
            let dir = base.join("results2");
            let at = dir.join("result.json");
            cases.push((
                quick(&dir),
                at,
                match kind {
                    Odd::Huge => "already holds a result.json".into(),
                    _ => format!("is {} where the run puts its result.json", kind.said()),
                },
            ));
        }
        // The file export writes, looked at without following a link.
        let dir = base.join("export");
        cases.push((
            vec!["export".into(), dir.display().to_string()],
            dir.join(&name),
            match kind {
                Odd::Huge => "exists with other content (is 1 GiB".into(),
                Odd::LinkToDevZero => "is a symbolic link, not a regular file".into(),
                _ => format!("is {}, not a regular file", kind.said()),
            },
        ));
        // A page of the site.
        let dir = base.join("site");
        cases.push((
            vec!["site".into(), dir.display().to_string()],
            dir.join("index.html"),
            match kind {
                Odd::Huge => "in the way".into(),
                Odd::LinkToDevZero => "is a symbolic link, not a regular file".into(),
                _ => format!("is {}, not a regular file", kind.said()),
            },
        ));
        // A file SQLite keeps beside a history in a shared folder (its write-ahead log).
        let dir = base.join("history");
        std::fs::create_dir(&dir).unwrap();
        let db = dir.join("history.sqlite");
        std::fs::copy(tmp.path().join("data/truebench/history.sqlite"), &db).unwrap();
        cases.push((
            vec!["history".into(), "--db".into(), db.display().to_string()],
            dir.join("history.sqlite-wal"),
            match kind {
                Odd::Huge => "skip".into(),
                _ => format!(
                    "is {} where SQLite keeps a file of the history",
                    kind.said()
                ),
            },
        ));
        for (args, planted, said) in cases {
            if said == "skip" {
                // A regular file at the log's name is SQLite's to judge.
                continue;
            }
            std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
            open_to_all(planted.parent().unwrap());
            odd::plant(&planted, kind);
            let what = format!("{kind:?} at {}", planted.display());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, _, err) = run(&args, &what);
            assert_eq!(code, Some(2), "{what}: {err}");
            // The earlier result's folder is named for a regular result.json.
            let named = if said.starts_with("already holds") {
                planted.parent().unwrap()
            } else {
                &planted
            };
            assert!(
                err.contains(&named.display().to_string()) && err.contains(&said),
                "{what}: no {said:?} in {err}"
            );
            assert!(!err.contains("[1/"), "{what}: a phase ran: {err}");
        }
    }
}
