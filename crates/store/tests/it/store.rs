//! The history database: round trip, a writer killed mid-transaction, two writers at once.
//!
//! The writer processes are this test binary run again with `TB_STORE_CHILD` set: the test
//! `child_writer` then inserts in a loop instead of returning at once.

use crate::shared;

use shared::{check_rows, sample_result, variant};
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use truebench_store::{Filter, Store};

/// Whether this test binary can start a copy of itself. Under qemu-user (the cross tests)
/// it cannot: the kernel has no binfmt_misc entry for the foreign binary. Natively it can,
/// and the multi-process tests below always run.
fn can_self_exec() -> bool {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--list", "--exact", &child_writer_name()])
        .env_remove("TB_STORE_CHILD")
        .output();
    match out {
        Ok(o)
            if o.status.success()
                && String::from_utf8_lossy(&o.stdout).contains("child_writer: test") =>
        {
            true
        }
        other => {
            let test = std::thread::current().name().unwrap_or("?").to_string();
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: this test binary cannot start a copy of itself ({other:?}); emulated without binfmt_misc?");
            false
        }
    }
}

/// The writer test's name as the test binary knows it: with its module path when this file
/// is a module of a larger test binary (`store::child_writer`).
fn child_writer_name() -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::child_writer"),
        None => "child_writer".into(),
    }
}

/// A writer process, or None when this binary cannot start a copy of itself.
fn spawn_writer(db: &Path, writer: &str, count: u64) -> Option<Child> {
    if !can_self_exec() {
        return None;
    }
    let c = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &child_writer_name(),
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TB_STORE_CHILD", db)
        .env("TB_STORE_WRITER", writer)
        .env("TB_STORE_COUNT", count.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn writer");
    Some(c)
}

/// The body of a writer process, not a test of its own (ignored; the tests above run it with
/// `--ignored`): inserts `TB_STORE_COUNT` documents, printing `committed N` after each commit.
#[test]
#[ignore = "the writer process of the multi-process tests, started by them"]
fn child_writer() {
    let Some(db) = std::env::var_os("TB_STORE_CHILD") else {
        return;
    };
    let writer = std::env::var("TB_STORE_WRITER").unwrap();
    let count: u64 = std::env::var("TB_STORE_COUNT").unwrap().parse().unwrap();
    let base = sample_result();
    let mut s = Store::open(Path::new(&db)).unwrap();
    for n in 0..count {
        s.insert(&variant(&base, &writer, n)).unwrap();
        println!("committed {n}");
    }
}

fn tmp_db() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("sub/history.sqlite");
    (d, p)
}

#[test]
fn round_trip_dedup_and_filters() {
    let (_d, db) = tmp_db();
    shared::round_trip(&db);
}

#[test]
fn writer_killed_mid_write_leaves_whole_rows_only() {
    let (_d, db) = tmp_db();
    Store::open(&db).unwrap();
    // Kill at several moments: right after the first commit and a few commits later, so the
    // SIGKILL lands inside (or between) transactions at different points.
    for (round, wait_for) in [(0u32, 1u64), (1, 5), (2, 12)] {
        let Some(mut child) = spawn_writer(&db, &format!("k{round}"), 100_000) else {
            return;
        };
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut committed = 0u64;
        let mut line = String::new();
        while committed < wait_for {
            line.clear();
            if out.read_line(&mut line).unwrap() == 0 {
                break;
            }
            if line.contains("committed ") {
                committed += 1;
            }
        }
        assert_eq!(committed, wait_for, "the writer stopped early");
        // SIGKILL: no destructor, no rollback by the process itself.
        child.kill().unwrap();
        child.wait().unwrap();
        let s = Store::open(&db).unwrap();
        let rows = check_rows(&s);
        let mine = s
            .list(&Filter {
                device: Some(format!("k{round}-")),
                ..Default::default()
            })
            .unwrap()
            .len() as u64;
        // At least what it reported committed (it may have committed more before the signal
        // landed); every row whole (check_rows).
        assert!(
            mine >= wait_for,
            "round {round}: {mine} rows after {wait_for} reported commits ({rows} in all)"
        );
    }
}

#[test]
fn two_writers_at_once_both_succeed() {
    let (_d, db) = tmp_db();
    Store::open(&db).unwrap();
    const N: u64 = 40;
    let t0 = Instant::now();
    let (Some(a), Some(b)) = (spawn_writer(&db, "wa", N), spawn_writer(&db, "wb", N)) else {
        return;
    };
    for (name, c) in [("wa", a), ("wb", b)] {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{name} failed: {:?}", out.status);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            text.lines().filter(|l| l.contains("committed ")).count() as u64,
            N,
            "{name}"
        );
    }
    assert!(t0.elapsed() < Duration::from_secs(600));
    let s = Store::open(&db).unwrap();
    assert_eq!(s.count().unwrap() as u64, 2 * N);
    assert_eq!(check_rows(&s) as u64, 2 * N);
}

/// A history written by the last build of layout 1 (the `runs` table) opens as layout 2:
/// every row carried over with its id, its document migrated, its figures in `metrics`.
#[test]
fn a_layout_1_history_migrates_with_ids_and_figures() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("history.sqlite");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/v1/history-v1.sqlite"),
        &db,
    )
    .unwrap();
    let s = Store::open(&db).unwrap();
    let all = s.list(&Filter::default()).unwrap();
    assert_eq!(all.len(), 2);
    let rock = all
        .iter()
        .find(|e| e.source_name.as_deref() == Some("4qJG.txt"))
        .expect("4qJG carried over");
    assert_eq!(rock.kind, "run");
    assert_eq!(rock.source, "sbc-bench");
    assert_eq!(rock.run_metrics().sevenzip_single, Some(2989));
    assert_eq!(check_rows(&s), 2);
    // The ids of layout 1 still name the same results.
    let ids: Vec<i64> = all.iter().map(|e| e.id).collect();
    assert_eq!(ids.iter().copied().max(), Some(2));
    // Opening again changes nothing; storing a carried-over document again finds it. (The log
    // imported anew is another document: this build's detectors judge it again.)
    drop(s);
    let mut s = Store::open(&db).unwrap();
    assert_eq!(s.count().unwrap(), 2);
    let doc = s.get(rock.id).unwrap().unwrap();
    let again = s.insert(&doc).unwrap();
    assert!(!again.new, "the migrated 4qJG was stored twice");
    assert_eq!(again.id, rock.id);
}

/// Every kind goes into the same table and comes back by kind.
#[test]
fn every_kind_is_stored_listed_and_read_back() {
    let (_d, db) = tmp_db();
    shared::every_kind(&db);
}

/// A FIFO or a socket at the history's path is no database: refused with what it is, at
/// once, for writing and for reading (SQLite called it a disk I/O error).
#[test]
fn a_fifo_or_socket_at_the_history_path_is_refused_with_what_it_is() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("history.sqlite");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let t0 = Instant::now();
    let e = Store::open(&fifo).err().expect("a FIFO is no history");
    assert!(
        e.to_string()
            .contains("is a FIFO, not an SQLite history file"),
        "{e}"
    );
    let e = Store::open_existing(&fifo).err().expect("nor for reading");
    assert!(e.to_string().contains("is a FIFO"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(5));
    let sock = d.path().join("socket.sqlite");
    let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let e = Store::open(&sock).err().expect("a socket is no history");
    assert!(e.to_string().contains("is a socket"), "{e}");
}

/// `check` finds each kind of half-stored result, by id: a row without its figures, a
/// document cut short, a figure whose result is gone, a figure changed, a result's standing
/// rows not its document's; a sound history is all clear.
#[test]
fn check_names_each_half_stored_result() {
    let (_d, db) = tmp_db();
    let base = sample_result();
    let mut s = Store::open(&db).unwrap();
    let ids: Vec<i64> = (0..5)
        .map(|n| s.insert(&variant(&base, "check", n)).unwrap().id)
        .collect();
    let c = s.check().unwrap();
    assert_eq!((c.results, c.problems.len()), (5, 0), "{:?}", c.problems);
    drop(s);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(&format!(
        "DELETE FROM metrics WHERE result_id = {a};
         UPDATE results SET document = substr(document, 1, 200) WHERE id = {b};
         UPDATE metrics SET value = value + 1 WHERE result_id = {c} AND value IS NOT NULL;
         UPDATE standing SET grp = 'another group' WHERE result_id = {d};
         PRAGMA foreign_keys = OFF;
         INSERT INTO metrics (result_id, key, value) VALUES (999, 'orphan', 1);",
        a = ids[0],
        b = ids[1],
        c = ids[2],
        d = ids[3],
    ))
    .unwrap();
    drop(conn);
    let c = Store::open(&db).unwrap().check().unwrap();
    let all = c.problems.join("\n");
    assert_eq!(c.problems.len(), 5, "{all}");
    assert!(
        all.contains(&format!("#{}: its standing rows", ids[3])),
        "{all}"
    );
    assert!(
        all.contains(&format!("#{}: a result without its figures", ids[0])),
        "{all}"
    );
    assert!(
        all.contains(&format!(
            "#{}: the stored document is not the one stored",
            ids[1]
        )),
        "{all}"
    );
    assert!(
        all.contains(&format!("#{}: its columns or figures differ", ids[2])),
        "{all}"
    );
    assert!(all.contains("1 figures without their result"), "{all}");
}

/// An odd file planted at the name of a file SQLite keeps beside the history (its
/// write-ahead log, shared-memory index, rollback journal), or in place of the history's
/// folder: refused with what it is and its name, at once — a FIFO at the log's name blocked
/// the first read forever.
#[test]
fn an_odd_file_beside_the_history_or_as_its_folder_is_refused_at_once() {
    use truebench_fixtures::odd::{self, Odd};
    for kind in odd::kinds() {
        for suffix in ["-wal", "-shm", "-journal", "/"] {
            let d = tempfile::tempdir().unwrap();
            let (db, planted) = if suffix == "/" {
                let folder = d.path().join("history");
                (folder.join("history.sqlite"), folder)
            } else {
                let db = d.path().join("history.sqlite");
                let side = d.path().join(format!("history.sqlite{suffix}"));
                (db, side)
            };
            odd::plant(&planted, kind);
            let what = format!("{kind:?} at {}", planted.display());
            let (tx, rx) = std::sync::mpsc::channel();
            let db2 = db.clone();
            std::thread::spawn(move || {
                let r = Store::open(&db2).and_then(|mut s| {
                    s.insert(&sample_result())?;
                    Ok(())
                });
                let _ = tx.send(r.err().map(|e| e.to_string()));
            });
            let r = rx
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("{what}: still waiting after 20 s"));
            if kind == Odd::Huge && suffix != "/" {
                // A regular file: SQLite's to judge (it is no valid log or index).
                continue;
            }
            let e = r.unwrap_or_else(|| panic!("{what}: accepted"));
            let said = if kind == Odd::Huge {
                "a regular file"
            } else {
                kind.said()
            };
            assert!(
                e.contains(&planted.display().to_string()) && e.contains(&format!("is {said}")),
                "{what}: {e}"
            );
        }
    }
}

/// `keys` lists what `list` lists, in its order, each with the key its stored text has: the
/// same document stored again keeps its key, another document has another.
#[test]
fn keys_are_the_listed_ids_with_their_documents_digests() {
    let (_d, db) = tmp_db();
    let mut store = Store::open(&db).unwrap();
    let base = sample_result();
    let a = store.insert(&variant(&base, "k", 2)).unwrap().id;
    let b = store.insert(&variant(&base, "k", 1)).unwrap().id;
    assert_eq!(store.insert(&variant(&base, "k", 2)).unwrap().id, a);
    let listed: Vec<i64> = store
        .list(&Filter::default())
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    let keys = store.keys(&Filter::default()).unwrap();
    assert_eq!(keys.iter().map(|k| k.0).collect::<Vec<_>>(), listed);
    assert_eq!(listed, [b, a], "oldest first");
    assert_ne!(keys[0].1, keys[1].1);
    assert!(keys.iter().all(|(_, k)| k.len() == 64), "{keys:?}");
    assert!(store.check().unwrap().problems.is_empty());
    let none = Filter {
        device: Some("no such board".into()),
        ..Filter::default()
    };
    assert!(store.keys(&none).unwrap().is_empty());
}
