//! A full disk: the history, the results folder, a site and an export on a small file system
//! (a tmpfs of a few MiB mounted by the test) that fills during the write. Each ends with
//! exit 2 and an error naming the path and what was kept where; nothing half written is left
//! (no temporary, no cut file in place of a whole one); the history still checks, its earlier
//! results intact, and once space is freed the same command completes.
//!
//! Mounting needs root (CI runs the tests as root): without it these tests fail, saying so.

use std::path::Path;
use std::process::{Command, Output};

use super::common::{files, logs, truebench};

/// A tmpfs of `mib` MiB mounted on a new folder, unmounted when dropped.
struct SmallFs {
    dir: tempfile::TempDir,
}

impl SmallFs {
    fn new(mib: u32) -> SmallFs {
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            panic!("the full-disk tests mount a small tmpfs, which needs root: run them as root (CI does)");
        }
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mib}m,mode=0755")])
            .arg("tmpfs")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "mount -t tmpfs on {}: {} (the full-disk tests need to mount a small file system)",
            dir.path().display(),
            String::from_utf8_lossy(&out.stderr)
        );
        SmallFs { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fill it up, leaving about `room` bytes free: a filler file, written until the disk
    /// refuses, then shortened.
    fn fill(&self, room: u64) {
        use std::io::Write;
        let filler = self.path().join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0x5au8; 64 << 10];
        let mut len = 0u64;
        loop {
            match f.write(&chunk) {
                Ok(0) => break,
                Ok(n) => len += n as u64,
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
                Err(e) => panic!("filling {}: {e}", filler.display()),
            }
        }
        f.set_len(len.saturating_sub(room)).unwrap();
    }

    /// Free the space again.
    fn free(&self) {
        std::fs::remove_file(self.path().join("filler")).unwrap();
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn import(tmp: &Path, from: &Path, db: &Path) -> Output {
    truebench(tmp)
        .arg("import")
        .arg(from)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap()
}

fn check(tmp: &Path, db: &Path) -> (i32, String) {
    let o = truebench(tmp)
        .args(["history", "--check", "--db"])
        .arg(db)
        .output()
        .unwrap();
    (o.status.code().unwrap(), stderr(&o))
}

/// The history fills: the import says which log was not stored and where, exits 2; a
/// measurement that cannot be stored is kept in a file it names; the history checks, its
/// earlier results are there; with space again, the same import completes.
#[test]
fn a_full_disk_under_the_history() {
    // Room for the 32 results with their indexes, tallies and write-ahead log once the disk
    // is freed (4 MiB held them before the standing tallies and covering indexes, 3 % more).
    let fs = SmallFs::new(8);
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let db = fs.path().join("history.sqlite");
    assert_eq!(
        import(tmp, &logs(&tmp.join("a"), 0, 2), &db).status.code(),
        Some(0)
    );
    let before = std::fs::read(&db).unwrap().len();
    assert!(before > 0);
    // Room for a few logs more, not for all: the disk fills during the import.
    fs.fill(256 << 10);
    let more = logs(&tmp.join("b"), 2, 30);
    let o = import(tmp, &more, &db);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(db.to_str().unwrap()) && err.contains("full"),
        "names the history and why: {err}"
    );
    assert!(err.contains("not stored"), "{err}");
    // A measurement that cannot be stored: kept in the temporary folder, named. Into a
    // second history on the full disk: the first may have room inside its files where the
    // import's last transaction was rolled back (a small result fits there, and is stored).
    let other = fs.path().join("other.sqlite");
    let o = truebench(tmp)
        .args(["monitor", "--interval", "0.2", "--db"])
        .arg(&other)
        .args(["--", "true"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(
        err.contains("not stored in the history") && err.contains(other.to_str().unwrap()),
        "{err}"
    );
    let kept = err
        .lines()
        .find_map(|l| l.strip_prefix("truebench: the result was kept in "))
        .unwrap_or_else(|| panic!("no kept file named: {err}"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(kept).unwrap()).unwrap();
    assert_eq!(v["kind"], "monitor");
    std::fs::remove_file(kept).unwrap();
    assert_eq!(files(fs.path()).1, Vec::<String>::new());
    // Space again: still sound, the earlier results there (opening an SQLite history in WAL
    // mode needs room for its shared-memory index, so it is checked once space is freed).
    fs.free();
    let (code, said) = check(tmp, &db);
    assert_eq!(code, 0, "{said}");
    let stored_while_full: usize = said
        .split(" each of its ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!((3..32).contains(&stored_while_full), "{said}");
    let o = import(tmp, &more, &db);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (code, said) = check(tmp, &db);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("each of its 32 results"), "{said}");
}

/// A site rebuilt onto a full disk: exit 2 naming the file, the earlier site byte for byte
/// as it was, no temporary left; with space again, the rebuild completes.
#[test]
fn a_full_disk_under_a_site() {
    let fs = SmallFs::new(8);
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let db = tmp.join("h.sqlite");
    assert_eq!(
        import(tmp, &logs(&tmp.join("a"), 0, 3), &db).status.code(),
        Some(0)
    );
    let dir = fs.path().join("site");
    let site = || {
        truebench(tmp)
            .arg("site")
            .arg(&dir)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap()
    };
    assert_eq!(site().status.code(), Some(0));
    let earlier = files(&dir).0;
    assert_eq!(
        import(tmp, &logs(&tmp.join("b"), 3, 12), &db).status.code(),
        Some(0)
    );
    fs.fill(64 << 10);
    let o = site();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(dir.to_str().unwrap()) && err.contains("No space left"),
        "{err}"
    );
    let (now, temps) = files(&dir);
    assert!(temps.is_empty(), "temporaries left: {temps:?}");
    assert!(
        now == earlier,
        "the earlier site changed: {:?}",
        now.keys().collect::<Vec<_>>()
    );
    fs.free();
    let o = site();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let whole = tmp.join("whole");
    let o = truebench(tmp)
        .arg("site")
        .arg(&whole)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let (mut a, mut b) = (files(&dir).0, files(&whole).0);
    // The manifests list the same files; compared apart from their lines' order.
    a.remove(".truebench-site");
    b.remove(".truebench-site");
    assert!(a == b, "the rebuilt site differs from a whole build");
}

/// An export onto a full disk: exit 2 naming the file and how many were written whole; each
/// file there is whole, no temporary left; with space again, the rerun completes.
#[test]
fn a_full_disk_under_an_export() {
    let fs = SmallFs::new(8);
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let db = tmp.join("h.sqlite");
    assert_eq!(
        import(tmp, &logs(&tmp.join("a"), 0, 30), &db).status.code(),
        Some(0)
    );
    let whole = tmp.join("whole");
    let export = |dir: &Path| {
        truebench(tmp)
            .arg("export")
            .arg(dir)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap()
    };
    assert_eq!(export(&whole).status.code(), Some(0));
    let want = files(&whole).0;
    let dir = fs.path().join("out");
    fs.fill(512 << 10);
    let o = export(&dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(dir.to_str().unwrap()) && err.contains("No space left"),
        "{err}"
    );
    assert!(err.contains("written whole"), "says what was kept: {err}");
    let (now, temps) = files(&dir);
    assert!(temps.is_empty(), "temporaries left: {temps:?}");
    assert!(!now.is_empty() && now.len() < want.len(), "{}", now.len());
    for (name, bytes) in &now {
        assert_eq!(want.get(name), Some(bytes), "{name} is not whole");
    }
    fs.free();
    let o = export(&dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(files(&dir).0 == want);
}

/// A run's results folder fills: exit 2, the error names the file, the history has the
/// result (said with its path), the folder holds nothing cut and no temporary.
#[test]
fn a_full_disk_under_a_results_folder() {
    use std::io::BufRead;
    let fs = SmallFs::new(1);
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let root = truebench_fixtures::root("rk3588-rock5b");
    std::fs::write(
        root.path().join("proc/loadavg"),
        "0.00 0.00 0.00 1/246 1893\n",
    )
    .unwrap();
    let db = tmp.join("h.sqlite");
    let dir = fs.path().join("results");
    fs.fill(8 << 10);
    let mut c = truebench(tmp);
    for v in ["MODE", "NOTUNING", "MaxKHz", "MinKHz", "CPUINFOFILE"] {
        c.env_remove(v);
    }
    let mut child = c
        .args([
            "run",
            "--quick",
            "--force",
            "--no-tuning",
            "--idle-timeout",
            "0",
            "--root",
        ])
        .arg(root.path())
        .arg("--results-dir")
        .arg(&dir)
        .arg("--db")
        .arg(&db)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    for l in lines.by_ref().map_while(Result::ok) {
        let first = l.contains("[1/7]");
        seen.push(l);
        if first {
            break;
        }
    }
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    seen.extend(lines.map_while(Result::ok));
    let code = child.wait().unwrap().code();
    let err = seen.join("\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("could not write the results folder")
            && err.contains(dir.to_str().unwrap())
            && err.contains("No space left"),
        "{err}"
    );
    assert!(
        err.contains("in the history as #1") && err.contains(db.to_str().unwrap()),
        "says where it is: {err}"
    );
    let (now, temps) = files(&dir);
    assert!(temps.is_empty(), "temporaries left: {temps:?}");
    assert!(!now.contains_key("result.json"), "{:?}", now.keys());
    let (code, said) = check(tmp, &db);
    assert_eq!(code, 0, "{said}");
}
