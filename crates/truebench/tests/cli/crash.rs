//! Crash consistency, tried many times: truebench killed with SIGKILL at a random instant
//! (uniform over the command's measured runtime) while it stores into SQLite and PostgreSQL
//! or keeps a result for a server that cannot be reached, writes a results folder, imports a folder of logs, builds a site and exports. After each
//! kill the history passes its check (`history --check`: the database's own check, then every
//! result against its document — never a row without its figures, never half a document),
//! every file in place is whole (byte for byte one a complete command writes), whatever
//! truebench said it stored or kept is there, and a rerun completes.
//!
//! 10 trials per operation here (a bounded version: 7,000 kills ran by the script found what
//! 30 per operation had not); `bench/crash_trials.sh` runs the same tests with many more
//! (`TRUEBENCH_CRASH_TRIALS`) and collects the `crash trials:` line each prints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::common::{files, logs, truebench};

/// Trials per operation: `TRUEBENCH_CRASH_TRIALS`, else 10.
fn trials() -> usize {
    std::env::var("TRUEBENCH_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10)
}

/// xorshift64*, seeded from `TRUEBENCH_CRASH_SEED` or the clock (printed, to replay a failure).
struct Rng(u64);

impl Rng {
    fn new(op: &str) -> Rng {
        let seed = std::env::var("TRUEBENCH_CRASH_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        eprintln!("crash seed of {op}: {seed} (TRUEBENCH_CRASH_SEED replays it)");
        Rng(seed)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One command killed at `at` after its start (or finished before): what it said on stderr.
struct Killed {
    /// Ended by the kill (not on its own before it).
    killed: bool,
    stderr: String,
}

/// Spawn `cmd`, SIGKILL it `at` after the start (`at` is None: let it finish).
fn kill_at(mut cmd: Command, at: Option<Duration>, scratch: &Path) -> Killed {
    let err_path = scratch.join("stderr");
    let err = std::fs::File::create(&err_path).unwrap();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .unwrap();
    if let Some(at) = at {
        std::thread::sleep(at);
        // SIGKILL; a process already ended (a zombie until waited for) ignores it.
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    Killed {
        killed: status.signal() == Some(9),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

/// The median runtime of `n` complete runs of what `cmd` builds (after `reset` each time),
/// after one more that warms the caches (a cold first run is slower than the trials' runs).
fn runtime(n: usize, mut reset: impl FnMut(), mut cmd: impl FnMut() -> Command) -> Duration {
    let mut t: Vec<Duration> = (0..=n)
        .map(|_| {
            reset();
            let t0 = Instant::now();
            let out = cmd().output().unwrap();
            assert!(
                out.status.code().is_some(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            t0.elapsed()
        })
        .collect();
    t.remove(0);
    t.sort();
    t[n / 2]
}

/// Tallies of one operation's trials, printed as one `crash trials:` line.
#[derive(Default)]
struct Tally {
    trials: usize,
    killed: usize,
    /// Hidden temporaries a kill left (each beside, never in place of, a file).
    temporaries: usize,
    /// Temporaries still there after the rerun.
    temporaries_after: usize,
}

impl Tally {
    fn print(&self, op: &str, over: Duration) {
        eprintln!(
            "crash trials: {op}: {} kills at uniform instants over {:.3} s ({} mid-run, {} after the end); 0 inconsistent, {} reruns completed; temporaries left by kills {}, after the rerun {}",
            self.trials,
            over.as_secs_f64(),
            self.killed,
            self.trials - self.killed,
            self.trials,
            self.temporaries,
            self.temporaries_after,
        );
    }
}

/// `history --check` passes on `db` (a path or a URL).
fn check_history(tmp: &Path, db: &str, context: &str) {
    let out = truebench(tmp)
        .args(["history", "--check", "--db", db])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{context}: history --check: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The ids and kinds in the history `db`.
fn listed(tmp: &Path, db: &str) -> BTreeMap<i64, String> {
    let out = truebench(tmp)
        .args(["history", "--json", "--db", db])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "history --json: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["id"].as_i64().unwrap(),
                e["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Whatever truebench said it stored or kept (`stored in the history as #N`, `kept in P`)
/// is there, whole.
fn said_is_there(tmp: &Path, db: &str, stderr: &str, context: &str) {
    for l in stderr.lines() {
        // `stored in the history as #N`, `kept in the local history as #N`.
        if let Some(rest) = l.split(" history as #").nth(1) {
            let id: i64 = rest.split(' ').next().unwrap().parse().unwrap();
            assert!(
                listed(tmp, db).contains_key(&id),
                "{context}: said {l:?} but #{id} is not in the history"
            );
        }
        if let Some(p) = l.strip_prefix("truebench: the result was kept in ") {
            let text = std::fs::read_to_string(p).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{context}: kept {p} is not whole: {e}"));
            assert!(v["kind"].is_string(), "{context}: {p}");
        }
    }
}

/// Every file in `dir` is byte for byte the same file of one of `complete` (what finished
/// commands write there): none is half written.
fn all_whole(dir: &Path, complete: &[&BTreeMap<String, Vec<u8>>], skip: &[&str], context: &str) {
    let (now, _) = files(dir);
    for (rel, bytes) in &now {
        if skip.contains(&rel.as_str()) {
            continue;
        }
        assert!(
            complete.iter().any(|c| c.get(rel) == Some(bytes)),
            "{context}: {rel} ({} bytes) is no file a complete command writes there",
            bytes.len()
        );
    }
}

fn import(tmp: &Path, from: &Path, db: &Path) {
    let out = truebench(tmp)
        .arg("import")
        .arg(from)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A measurement stored into `db`: `monitor -- sleep 0.3` (a sampler, a child, a store).
fn monitor(tmp: &Path, db: &str) -> Command {
    let mut c = truebench(tmp);
    c.args([
        "monitor",
        "--interval",
        "0.2",
        "--db",
        db,
        "--",
        "sleep",
        "0.3",
    ]);
    c
}

/// Kill the store of a measurement again and again, into the history `db`.
fn store_trials(op: &str, tmp: &Path, db: &str) {
    let mut rng = Rng::new(op);
    let over = runtime(5, || {}, || monitor(tmp, db));
    let mut tally = Tally::default();
    for i in 0..trials() {
        let at = over.mul_f64(rng.unit());
        let before = listed(tmp, db).len();
        let k = kill_at(monitor(tmp, db), Some(at), tmp);
        let ctx = format!("{op} trial {i} killed at {at:?}");
        check_history(tmp, db, &ctx);
        said_is_there(tmp, db, &k.stderr, &ctx);
        let after = listed(tmp, db).len();
        // Stored whole, or not at all.
        assert!(
            after == before || after == before + 1,
            "{ctx}: {before} → {after}"
        );
        tally.trials += 1;
        tally.killed += usize::from(k.killed);
        let again = kill_at(monitor(tmp, db), None, tmp);
        assert!(
            !again.killed && again.stderr.contains("stored in the history as #"),
            "{ctx}: rerun: {}",
            again.stderr
        );
        said_is_there(tmp, db, &again.stderr, &ctx);
        check_history(tmp, db, &format!("{ctx}, rerun"));
    }
    tally.print(op, over);
}

#[test]
fn sqlite_history_killed_while_storing() {
    let t = tempfile::tempdir().unwrap();
    let db = t.path().join("history.sqlite");
    store_trials("store into SQLite", t.path(), db.to_str().unwrap());
}

#[test]
fn postgres_history_killed_while_storing() {
    let server = match truebench_fixtures::pg::PgServer::start() {
        Ok(s) => s,
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let t = tempfile::tempdir().unwrap();
    store_trials("store into PostgreSQL", t.path(), &server.url);
}

/// How many results the local history keeps for a server (`sync` without `--db` says it).
fn pending(tmp: &Path) -> usize {
    let out = truebench(tmp)
        .arg("sync")
        .env_remove("TRUEBENCH_DB")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("nothing pending") {
        return 0;
    }
    err.split(" result(s) in ")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("sync: {err}"))
}

/// A server that cannot be reached: the result is kept in the local history, pending for
/// it. Killed at any instant, every result there is pending (stored and marked at once).
#[test]
fn result_kept_for_an_unreachable_server_killed() {
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    // A port nobody listens on: refused at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgresql://postgres@127.0.0.1:{port}/postgres");
    let local = tmp.join("data/truebench/history.sqlite");
    let local = local.to_str().unwrap();
    let mut rng = Rng::new("kept for a server");
    let over = runtime(5, || {}, || monitor(tmp, &url));
    let mut tally = Tally::default();
    for i in 0..trials() {
        let at = over.mul_f64(rng.unit());
        let k = kill_at(monitor(tmp, &url), Some(at), tmp);
        let ctx = format!("kept for a server, trial {i} killed at {at:?}");
        tally.trials += 1;
        tally.killed += usize::from(k.killed);
        check_history(tmp, local, &ctx);
        said_is_there(tmp, local, &k.stderr, &ctx);
        assert_eq!(
            pending(tmp),
            listed(tmp, local).len(),
            "{ctx}: a result not pending"
        );
        let again = kill_at(monitor(tmp, &url), None, tmp);
        assert!(
            !again.killed && again.stderr.contains("kept in the local history as #"),
            "{ctx}: rerun: {}",
            again.stderr
        );
        assert_eq!(pending(tmp), listed(tmp, local).len(), "{ctx}: rerun");
    }
    tally.print("kept for an unreachable server", over);
}

#[test]
fn import_of_a_folder_killed() {
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let from = logs(&tmp.join("logs"), 0, 6);
    let db = tmp.join("h.sqlite");
    let cmd = || {
        let mut c = truebench(tmp);
        c.arg("import").arg(&from).arg("--db").arg(&db);
        c
    };
    let reset = || {
        for s in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{s}", db.display()));
        }
    };
    let over = runtime(5, reset, cmd);
    let mut rng = Rng::new("import");
    let mut tally = Tally::default();
    let dbs = db.to_str().unwrap();
    for i in 0..trials() {
        reset();
        let at = over.mul_f64(rng.unit());
        let k = kill_at(cmd(), Some(at), tmp);
        let ctx = format!("import trial {i} killed at {at:?}");
        tally.trials += 1;
        tally.killed += usize::from(k.killed);
        if db.exists() {
            check_history(tmp, dbs, &ctx);
            assert!(listed(tmp, dbs).len() <= 6, "{ctx}");
        }
        let again = kill_at(cmd(), None, tmp);
        assert!(!again.killed, "{ctx}");
        assert_eq!(listed(tmp, dbs).len(), 6, "{ctx}: rerun: {}", again.stderr);
        check_history(tmp, dbs, &format!("{ctx}, rerun"));
    }
    tally.print("import of 6 logs", over);
}

/// Histories of 5, 6 and 7 logs, and the site each gives when built whole.
struct Sites {
    dbs: [PathBuf; 3],
    built: [BTreeMap<String, Vec<u8>>; 3],
}

fn sites(tmp: &Path) -> Sites {
    let dbs = [5, 6, 7].map(|n| {
        let db = tmp.join(format!("h{n}.sqlite"));
        import(tmp, &logs(&tmp.join(format!("logs{n}")), 0, n), &db);
        db
    });
    let built = [0, 1, 2].map(|i| {
        let d = tmp.join(format!("ref{i}"));
        let out = truebench(tmp)
            .arg("site")
            .arg(&d)
            .arg("--db")
            .arg(&dbs[i])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        files(&d).0
    });
    Sites { dbs, built }
}

/// Killed while it replaces the site of 5 results with that of 6; then a result more, and
/// the rebuild must finish the job (never refuse files its killed predecessor wrote).
#[test]
fn site_build_killed() {
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let s = sites(tmp);
    let dir = tmp.join("site");
    let reset = || {
        let _ = std::fs::remove_dir_all(&dir);
        truebench_fixtures::copy_tree(&tmp.join("ref0"), &dir).unwrap();
    };
    let cmd = |i: usize| {
        let mut c = truebench(tmp);
        c.arg("site").arg(&dir).arg("--db").arg(&s.dbs[i]);
        c
    };
    let over = runtime(5, reset, || cmd(1));
    let mut rng = Rng::new("site");
    let mut tally = Tally::default();
    for i in 0..trials() {
        reset();
        let at = over.mul_f64(rng.unit());
        let k = kill_at(cmd(1), Some(at), tmp);
        let ctx = format!("site trial {i} killed at {at:?}");
        tally.trials += 1;
        tally.killed += usize::from(k.killed);
        all_whole(
            &dir,
            &[&s.built[0], &s.built[1]],
            // The lists of what was written and of what each page was made from.
            &[".truebench-site", ".truebench-keys"],
            &ctx,
        );
        tally.temporaries += files(&dir).1.len();
        let again = kill_at(cmd(2), None, tmp);
        assert!(
            !again.killed && !again.stderr.contains("error"),
            "{ctx}: rebuild: {}",
            again.stderr
        );
        let (now, temps) = files(&dir);
        tally.temporaries_after += temps.len();
        assert!(temps.is_empty(), "{ctx}: left {temps:?}");
        let mut want = s.built[2].clone();
        let mut got = now;
        // The manifest lists the same files; compared apart from its lines' order.
        let (a, b) = (
            got.remove(".truebench-site"),
            want.remove(".truebench-site"),
        );
        assert_eq!(a.is_some(), b.is_some());
        assert!(
            got == want,
            "{ctx}: the rebuilt site differs from a whole build: {:?} vs {:?}",
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
    }
    tally.print("site (5 → 6 results, then 7)", over);
}

/// Killed while it exports a history of 6 results, as result documents and as .prom files.
#[test]
fn export_killed() {
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let db = tmp.join("h.sqlite");
    import(tmp, &logs(&tmp.join("logs"), 0, 6), &db);
    let dir = tmp.join("out");
    let cmd = |format: &str| {
        let mut c = truebench(tmp);
        c.arg("export")
            .arg(&dir)
            .arg("--db")
            .arg(&db)
            .args(["--format", format]);
        c
    };
    let reset = || {
        let _ = std::fs::remove_dir_all(&dir);
    };
    let mut rng = Rng::new("export");
    let mut tally = Tally::default();
    let mut over_all = Duration::ZERO;
    for format in ["json", "prom"] {
        reset();
        assert_eq!(cmd(format).output().unwrap().status.code(), Some(0));
        let whole = files(&dir).0;
        assert_eq!(whole.len(), 6);
        let over = runtime(5, reset, || cmd(format));
        over_all = over_all.max(over);
        for i in 0..trials().div_ceil(2) {
            reset();
            let at = over.mul_f64(rng.unit());
            let k = kill_at(cmd(format), Some(at), tmp);
            let ctx = format!("export --format {format} trial {i} killed at {at:?}");
            tally.trials += 1;
            tally.killed += usize::from(k.killed);
            all_whole(&dir, &[&whole], &[], &ctx);
            tally.temporaries += files(&dir).1.len();
            let again = kill_at(cmd(format), None, tmp);
            assert!(
                !again.killed && !again.stderr.contains("error"),
                "{ctx}: {}",
                again.stderr
            );
            let (now, temps) = files(&dir);
            tally.temporaries_after += temps.len();
            assert!(temps.is_empty(), "{ctx}: left {temps:?}");
            assert!(
                now == whole,
                "{ctx}: the rerun's files differ from a whole export"
            );
        }
    }
    tally.print("export (json and prom)", over_all);
}

/// `run` on a recorded ROCK 5B (untuned), interrupted once its first phase starts, into the
/// results folder `dir` and the history `db`; stderr's lines come on the channel.
fn start_run(
    tmp: &Path,
    root: &Path,
    dir: &Path,
    db: &Path,
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead;
    let mut c = truebench(tmp);
    for v in ["MODE", "NOTUNING", "MaxKHz", "MinKHz", "CPUINFOFILE"] {
        c.env_remove(v);
    }
    c.args([
        "run",
        "--quick",
        "--force",
        "--no-tuning",
        "--idle-timeout",
        "0",
    ])
    .arg("--root")
    .arg(root)
    .arg("--results-dir")
    .arg(dir)
    .arg("--db")
    .arg(db);
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(l) if l.contains("[1/7]") => break,
            Ok(_) => {}
            Err(e) => panic!("run: no first phase on stderr ({e})"),
        }
    }
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    (child, rx)
}

/// The results folder `dir` after a run ended or was killed: a result.json there is whole
/// and has its detailed.log; truebench's words about the folder, the history and a kept file
/// hold. Returns the temporaries left there.
fn check_folder(tmp: &Path, dir: &Path, db: &Path, stderr: &str, ctx: &str) -> usize {
    let (got, temps) = files(dir);
    if let Some(json) = got.get("result.json") {
        let v: serde_json::Value = serde_json::from_slice(json)
            .unwrap_or_else(|e| panic!("{ctx}: result.json is not whole: {e}"));
        assert_eq!(v["kind"], "run", "{ctx}");
        assert!(
            got.contains_key("detailed.log"),
            "{ctx}: result.json without detailed.log"
        );
    }
    if stderr.contains(&format!("results in {}", dir.display())) {
        assert!(
            got.contains_key("result.json"),
            "{ctx}: said written, but no result.json"
        );
    }
    let dbs = db.to_str().unwrap();
    if db.exists() {
        check_history(tmp, dbs, ctx);
    }
    said_is_there(tmp, dbs, stderr, ctx);
    temps.len()
}

/// Killed while a (interrupted) run writes its results folder and stores its result: the
/// instant is uniform over the time from the interrupt to the end, where both are written.
#[test]
fn results_folder_killed() {
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let root = truebench_fixtures::root("rk3588-rock5b");
    std::fs::write(
        root.path().join("proc/loadavg"),
        "0.00 0.00 0.00 1/246 1893\n",
    )
    .unwrap();
    let db = tmp.join("h.sqlite");
    let folder = |n: usize| tmp.join(format!("results-{n}"));
    let mut n = 0;
    // The ending's runtime: from the interrupt to the exit.
    let mut ends: Vec<Duration> = (0..3)
        .map(|_| {
            n += 1;
            let (mut child, _rx) = start_run(tmp, root.path(), &folder(n), &db);
            let t0 = Instant::now();
            assert_eq!(child.wait().unwrap().code(), Some(130));
            t0.elapsed()
        })
        .collect();
    ends.sort();
    let over = ends[1];
    let mut rng = Rng::new("results folder");
    let mut tally = Tally::default();
    for i in 0..trials() {
        n += 1;
        let at = over.mul_f64(rng.unit());
        let (mut child, rx) = start_run(tmp, root.path(), &folder(n), &db);
        std::thread::sleep(at);
        let _ = child.kill();
        use std::os::unix::process::ExitStatusExt;
        let killed = child.wait().unwrap().signal() == Some(9);
        let stderr: Vec<String> = rx.iter().collect();
        let ctx = format!("run trial {i} killed {at:?} after the interrupt");
        tally.trials += 1;
        tally.killed += usize::from(killed);
        tally.temporaries += check_folder(tmp, &folder(n), &db, &stderr.join("\n"), &ctx);
        n += 1;
        let (mut child, rx) = start_run(tmp, root.path(), &folder(n), &db);
        assert_eq!(child.wait().unwrap().code(), Some(130), "{ctx}: rerun");
        let stderr: Vec<String> = rx.iter().collect();
        assert_eq!(
            check_folder(tmp, &folder(n), &db, &stderr.join("\n"), &ctx),
            0,
            "{ctx}: rerun"
        );
        assert!(folder(n).join("result.json").exists(), "{ctx}: rerun");
    }
    tally.print("results folder and history of an interrupted run", over);
}
