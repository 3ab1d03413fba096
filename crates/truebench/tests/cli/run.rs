//! `truebench run` as a real process: the quick run end to end on this machine (real kernels,
//! the document checked against docs/schema/result.schema.json), Ctrl-C on a recorded ROCK 5B
//! root (partial result, every file restored byte for byte), and — as an unprivileged user —
//! the untuned run with `--unattended`'s exit code 3 when the kernel log of that root shows the
//! oom-killer during the run.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use truebench_model::RunResult;

const BIN: &str = env!("CARGO_BIN_EXE_truebench");
const GOV0: &str = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";

/// `TMPDIR` and the measurement lock: this test's own directory, writable by every user like
/// `/tmp` (the tests run in parallel and must not lock each other out), the same on every run
/// of the test (a fresh one per command was two directories left behind for each command).
fn lock_dir() -> PathBuf {
    truebench_fixtures::lock_dir()
}

/// No sbc-bench variables from the caller's environment.
fn isolate_vars(c: &mut Command) {
    for v in ["MODE", "NOTUNING", "MaxKHz", "MinKHz", "CPUINFOFILE"] {
        c.env_remove(v);
    }
}

/// No sbc-bench variables from the caller's environment, and this test's lock directory.
fn isolate(c: &mut Command) {
    isolate_vars(c);
    let d = lock_dir();
    c.env("TMPDIR", &d).env("TRUEBENCH_LOCK_DIR", &d);
}

fn truebench() -> Command {
    let mut c = Command::new(BIN);
    isolate(&mut c);
    // run stores its result in the history: keep the tests' runs out of the user's own.
    c.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("truebench-run-tests-history"),
    );
    c
}

fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    truebench_fixtures::tree_bytes(root, &["var/lib/truebench", "dev/kmsg"])
}

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// The recorded ROCK 5B, idle, with a devfreq device and an ASPM policy to tune.
fn rock5b() -> tempfile::TempDir {
    board("rk3588-rock5b")
}

/// A recorded board, idle, with a devfreq device and an ASPM policy to tune.
fn board(name: &str) -> tempfile::TempDir {
    let d = truebench_fixtures::root(name);
    let r = d.path();
    put(r, "proc/loadavg", "0.00 0.00 0.00 1/246 1893\n");
    put(r, "sys/class/devfreq/dmc/governor", "dmc_ondemand\n");
    put(
        r,
        "sys/class/devfreq/dmc/available_governors",
        "dmc_ondemand userspace powersave performance simple_ondemand\n",
    );
    put(
        r,
        "sys/module/pcie_aspm/parameters/policy",
        "[default] performance powersave powersupersave \n",
    );
    put(r, "dev/kmsg", "");
    d
}

/// Start `truebench run ARGS`; stderr lines arrive on the channel as they are printed.
fn spawn(args: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut cmd = truebench();
    cmd.arg("run").args(args);
    spawn_cmd(cmd)
}

fn spawn_cmd(mut cmd: Command) -> (Child, mpsc::Receiver<String>) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    (child, rx)
}

/// Wait for a stderr line containing `what`; all lines seen so far.
fn wait_for(rx: &mpsc::Receiver<String>, what: &str, seen: &mut Vec<String>) {
    loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(l) => {
                let hit = l.contains(what);
                seen.push(l);
                if hit {
                    return;
                }
            }
            Err(e) => panic!("no `{what}` on stderr ({e}); got:\n{}", seen.join("\n")),
        }
    }
}

fn read_result(dir: &Path) -> (Value, RunResult) {
    let text = fs::read_to_string(dir.join("result.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let r = truebench_model::migrate_run(v.clone()).unwrap();
    (v, r)
}

/// The one real quick run on this machine in the tests: tuned, quiet and with the scripted
/// meter, so that it is also `run`'s case of `ending::every_measuring_command_ends_alike…`
/// (its `--json` stdout and its progress lines are checked by the unprivileged run below).
#[test]
fn quick_run_on_this_machine_end_to_end() {
    let _turn = crate::common::tuning_this_machine();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("results");
    let mut cmd = crate::common::truebench(tmp.path());
    isolate_vars(&mut cmd);
    let out = cmd
        .args(["run", "--quick", "--force", "--idle-timeout", "2"])
        .args(crate::ending::QUIET_METERED)
        .arg("--results-dir")
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    assert!(matches!(code, Some(0) | Some(3)), "exit {code:?}\n{stderr}");
    let failures = crate::ending::ends_alike("run", &out, tmp.path());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    // The document matches the schema and the model.
    let (v, r) = read_result(&dir);
    let errors = truebench_fixtures::schema::validate_result(&v);
    assert!(
        errors.is_empty(),
        "schema violations:\n{}",
        errors.join("\n")
    );
    assert_eq!(serde_json::to_value(&r).unwrap(), v, "serde round trip");

    assert_eq!(r.body.mode, truebench_model::Mode::Quick);
    assert!(!r.envelope.comparable && r.envelope.complete);
    // Exit code and verdict agree: 0 only for a valid result (this shared machine is often
    // busy, which makes the result invalid with background_activity findings).
    assert_eq!(
        code == Some(0),
        r.envelope.valid,
        "{:#?}",
        r.envelope.findings
    );
    let critical = r
        .envelope
        .findings
        .iter()
        .any(|f| f.severity == truebench_model::finding::Severity::Critical);
    assert_eq!(r.envelope.valid, !critical);
    for p in &r.envelope.phases {
        assert_eq!(
            p.status,
            truebench_model::PhaseStatus::Ok,
            "{}: {:?}",
            p.name,
            p.reason
        );
    }

    // Plausible numbers from the real kernels.
    let row = truebench_render::text::row(r.view());
    // Plausible, not fast: the run shares both CPUs with the other tests, and on this VM a
    // busy neighbour took a C memcpy loop from 6,255 to 177 MB/s; memset came out below 300
    // MB/s once with 8 test threads. The bounds catch a wrong unit or a broken kernel.
    let memcpy = row.memcpy.expect("memcpy");
    assert!((30..1_000_000).contains(&memcpy), "memcpy {memcpy} MB/s");
    let memset = row.memset.expect("memset");
    assert!(memset >= 30, "memset {memset} MB/s");
    let aes = row.aes.expect("aes-256-cbc at 16 KiB");
    assert!(aes > 5_000, "AES {aes} k");
    if r.envelope.tools.iter().any(|t| t.name == "7-zip") {
        let single = row.sevenzip_single.expect("7-zip single");
        let multi = row.sevenzip_multi.expect("7-zip multi");
        assert!(single > 200 && multi > 200, "7-zip {single} / {multi} MIPS");
    } else {
        let c = &v["body"]["scores"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["phase"] == "compression-multi")
            .unwrap()["scores"];
        assert_eq!(c["tool"], "builtin_lzma");
        assert!(c["runs"][0]["compress_mb_s"].as_f64().unwrap() > 0.1);
    }
    for name in ["clocks-cold", "clocks-hot"] {
        let Some(c) = r.body.clocks(name) else {
            panic!("{name}")
        };
        for cl in &c.clusters {
            let m = cl.points[0].measured_mhz.unwrap();
            assert!((200.0..8000.0).contains(&m), "{name}: {m} MHz");
        }
    }
    // The sampler ran throughout: the multi-core phase has samples with %cpu.
    let multi = r.envelope.timeline.phase("compression-multi").unwrap();
    assert!(r
        .envelope
        .timeline
        .samples_in(multi)
        .iter()
        .any(|s| s.cpu.is_some_and(|c| c.cpu > 20.0)));

    // The detailed log holds the raw output behind every number and a table per phase.
    let log = fs::read_to_string(dir.join("detailed.log")).unwrap();
    for p in &r.envelope.phases {
        assert!(log.contains(&format!("Phase {}: ", p.name)), "{}", p.name);
        assert!(
            log.contains(&format!("System health while running {}:", p.title)),
            "{}",
            p.name
        );
    }
    assert!(log.contains("aes-256-cbc") || log.contains("AES-256-CBC"));
    assert!(log.contains(&format!("{:.1} MB/s", {
        let Some(truebench_model::Scores::Memory(m)) = r.body.scores("memory").next() else {
            panic!()
        };
        m.clusters[0].memcpy.as_ref().unwrap().mb_s
    })));
}

#[test]
fn sigint_mid_run_restores_the_root_and_leaves_a_partial_result() {
    let root = rock5b();
    let before = tree(root.path());
    let out = tempfile::tempdir().unwrap();
    let (mut child, rx) = spawn(&[
        "--quick",
        "--idle-timeout",
        "5",
        "--root",
        root.path().to_str().unwrap(),
        "--results-dir",
        out.path().to_str().unwrap(),
    ]);
    let mut seen = Vec::new();
    // The first phases are done and the run's tuning is in place when memory starts.
    wait_for(&rx, "[3/7] memory", &mut seen);
    assert_eq!(
        fs::read_to_string(root.path().join(GOV0)).unwrap(),
        "performance",
        "tuned during the run"
    );
    crate::common::signal("-INT", child.id());
    let status = child.wait().unwrap();
    seen.extend(rx.try_iter());
    assert_eq!(status.code(), Some(130), "{}", seen.join("\n"));
    assert_eq!(
        tree(root.path()),
        before,
        "every file restored byte for byte"
    );
    let (v, r) = read_result(out.path());
    assert!(!r.envelope.complete && !r.envelope.valid);
    assert!(
        r.envelope
            .incomplete_reason
            .as_deref()
            .unwrap_or("")
            .contains("memory"),
        "{:?}",
        r.envelope.incomplete_reason
    );
    assert!(r.envelope.phase("compression-single").is_none());
    assert!(truebench_fixtures::schema::validate_result(&v).is_empty());
    assert!(r.envelope.tuning.applied && r.envelope.tuning.restore_failed.is_empty());
    let log = fs::read_to_string(out.path().join("detailed.log")).unwrap();
    assert!(log.contains("INCOMPLETE"), "{log}");
}

/// `truebench run` as an unprivileged user (dropped with setpriv when the tests run as root),
/// with the variables the tests must not inherit removed.
fn unprivileged() -> Command {
    let mut c = if rustix::process::geteuid().is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
        c
    } else {
        Command::new(BIN)
    };
    isolate(&mut c);
    c
}

/// A folder of stand-ins for `openssl` and `7zz` that answer as this machine's did (Debian
/// 12's recorded output: the workloads crate's test data) at once, and log their arguments
/// to `args.log` beside them. Readable by every user, the log writable by every user: the
/// unprivileged run uses them. The real tools run in the end-to-end run above and in the
/// workloads crate's real runs; here they only cost half a minute of CPU.
fn scripted_tools() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/tests/data");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("args.log");
    fs::write(&log, "").unwrap();
    fs::set_permissions(&log, fs::Permissions::from_mode(0o666)).unwrap();
    let say = |name: &str, body: String| {
        let p = dir.path().join(name);
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"{name} $*\" >> '{}'\n{body}",
            log.display()
        );
        fs::write(&p, script).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    };
    // The recorded output beside the stand-ins: the source tree may not be readable by the
    // unprivileged user.
    let copy = |rel: &str| {
        let to = dir.path().join(Path::new(rel).file_name().unwrap());
        fs::copy(data.join(rel), &to).unwrap();
        fs::set_permissions(&to, fs::Permissions::from_mode(0o644)).unwrap();
        to
    };
    let openssl = copy("openssl/debian12-openssl-3.0.19-aes-256-cbc.txt");
    say(
        "openssl",
        format!(
            "case \"$1\" in version) echo 'OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)'; exit 0 ;; esac\n\
             for a in \"$@\"; do last=$a; done\n\
             [ \"$last\" = aes-256-cbc ] || {{ echo \"speed: unknown cipher $last\" >&2; exit 1; }}\n\
             cat '{}'\n",
            openssl.display()
        ),
    );
    let (one, two) = (
        copy("7zip/debian12-7zip-26.02-x64-mmt1.txt"),
        copy("7zip/debian12-7zip-26.02-x64-mmt2.txt"),
    );
    say(
        "7zz",
        format!(
            "case \" $* \" in *' -mmt1 '*) cat '{}' ;; *) cat '{}' ;; esac\n",
            one.display(),
            two.display()
        ),
    );
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Two runs at once halve each other's scores: while one runs (as an unprivileged user when
/// the tests run as root), a second one — root's — is refused at once, naming the lock.
#[test]
fn a_second_run_is_refused_while_one_runs_for_any_user() {
    let root = rock5b();
    let lock = lock_dir();
    let out = tempfile::tempdir().unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(out.path(), fs::Permissions::from_mode(0o777)).unwrap();
    }
    let r = root.path().to_str().unwrap();
    let args = [
        "run",
        "--quick",
        "--force",
        "--no-tuning",
        "--no-store",
        "--idle-timeout",
        "0",
        "--root",
        r,
    ];
    let mut first = unprivileged();
    first
        .env("TMPDIR", &lock)
        .env("TRUEBENCH_LOCK_DIR", &lock)
        .args(args)
        .args(["--results-dir", out.path().join("a").to_str().unwrap()]);
    let (mut child, rx) = spawn_cmd(first);
    let mut seen = Vec::new();
    wait_for(&rx, "[1/7]", &mut seen);
    let second = truebench()
        .env("TMPDIR", &lock)
        .env("TRUEBENCH_LOCK_DIR", &lock)
        .args(args)
        .args(["--results-dir", out.path().join("b").to_str().unwrap()])
        .output()
        .unwrap();
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let err = String::from_utf8_lossy(&second.stderr);
    // The exit-code table: 4, another measurement is running.
    assert_eq!(second.status.code(), Some(4), "{err}");
    assert!(
        err.contains("another truebench measurement is running on this machine"),
        "{err}"
    );
    assert!(err.contains(&format!("pid {}", child.id())), "{err}");
    assert!(!out.path().join("b").exists());
}

/// Without root the run goes on untuned and says why; with `--unattended` it exits 3 when
/// the result is invalid — here because the recorded board's kernel log reports the
/// oom-killer while the run goes on. A board of one cluster: each phase runs once; openssl
/// and 7-zip are the scripted stand-ins (`scripted_tools`), found first in `PATH`.
#[test]
fn without_root_unattended_runs_untuned_and_exits_3_when_invalid() {
    let root = board("rpi4b");
    // Readable for everyone, writable for nobody but root.
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
    let out = tempfile::tempdir().unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(out.path(), fs::Permissions::from_mode(0o777)).unwrap();
    }
    let tools = scripted_tools();
    let mut path = std::ffi::OsString::from(tools.path());
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let mut cmd = unprivileged();
    cmd.env("PATH", path)
        .args([
            "run",
            "--quick",
            "--unattended",
            "--json",
            "--no-store",
            "--idle-timeout",
            "5",
            "--root",
        ])
        .arg(root.path())
        .arg("--results-dir")
        .arg(out.path().join("r"));
    let (mut child, rx) = spawn_cmd(cmd);
    let mut seen = Vec::new();
    wait_for(&rx, "[3/7] memory", &mut seen);
    let mut kmsg = fs::OpenOptions::new()
        .append(true)
        .open(root.path().join("dev/kmsg"))
        .unwrap();
    writeln!(
        kmsg,
        "[ 2877.094811] Out of memory: Killed process 4321 (7zz) total-vm:1843200kB, anon-rss:921600kB"
    )
    .unwrap();
    drop(kmsg);
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    let status = child.wait().unwrap();
    // Every line, up to the end of stderr (the reader thread ends there).
    seen.extend(rx.iter());
    let stderr = seen.join("\n");
    assert_eq!(status.code(), Some(3), "{stderr}");
    // stdout is exactly the document; it matches the schema and the folder's copy.
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let errors = truebench_fixtures::schema::validate_result(&v);
    assert!(
        errors.is_empty(),
        "schema violations:\n{}",
        errors.join("\n")
    );
    assert_eq!(read_result(&out.path().join("r")).0, v);
    let r: RunResult = serde_json::from_str(&stdout).unwrap();
    assert!(r.envelope.complete && !r.envelope.valid);
    assert!(stderr.contains("[7/7] clocks-hot"), "{stderr}");
    // stderr is no terminal here: plain lines, no bar, and a line only when something
    // changed (the idle gate's verdict is repeated every second, its line is not).
    assert!(
        !stderr.contains('\r') && !stderr.contains('\x1b'),
        "{stderr:?}"
    );
    assert!(
        seen.windows(2).all(|w| w[0] != w[1]),
        "a line repeated: {stderr}"
    );
    let oom = r
        .envelope
        .findings
        .iter()
        .find(|f| f.kind == truebench_model::finding::FindingKind::OomKill)
        .expect("oom_kill finding");
    assert!(oom
        .evidence
        .iter()
        .any(|e| e.contains("Killed process 4321")));
    assert_eq!(r.envelope.kernel_log.lines.len(), 1);

    // Untuned, and said so.
    assert!(
        r.envelope.tuning.requested
            && !r.envelope.tuning.applied
            && r.envelope.tuning.changes.is_empty()
    );
    let reason = r.envelope.tuning.reason.as_deref().unwrap();
    assert!(
        reason.contains("needs root") && reason.contains("untuned"),
        "{reason}"
    );
    assert!(
        stderr.contains("needs root"),
        "said on stderr too: {stderr}"
    );
    let Some(truebench_model::Scores::Clocks(c)) = r.body.scores("clocks-cold").next() else {
        panic!()
    };
    assert!(
        c.clusters
            .iter()
            .all(|c| c.mode == truebench_model::clocks::WalkMode::CurrentClock),
        "{c:?}"
    );
    assert!(truebench_render::summary(r.view())
        .contains("Settings were not tuned: changing settings needs root"));
    assert_eq!(tree(root.path()), before, "nothing written");
    // The stand-ins ran, as the run runs the real tools (pinned, one pass, a 4 MiB
    // dictionary), and their recorded tables are the scores.
    let args = fs::read_to_string(tools.path().join("args.log")).unwrap();
    for call in [
        "openssl speed -elapsed -seconds 1 -evp aes-256-cbc",
        "7zz b 1 -mmt1 -md22",
        "7zz b 1 -md22",
    ] {
        assert!(args.lines().any(|l| l == call), "{call}: {args}");
    }
    let row = truebench_render::text::row(r.view());
    assert_eq!(row.aes, Some(1_368_880), "{row:?}");
    assert_eq!(
        (row.sevenzip_single, row.sevenzip_multi),
        (Some(1_802), Some(3_830)),
        "{row:?}"
    );
}

/// A results folder that cannot be created or written is refused before the first phase,
/// naming it; an earlier result.json in `--results-dir` is never overwritten.
#[test]
fn the_results_folder_is_checked_before_the_run_and_never_overwritten() {
    let root = rock5b();
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("a-file");
    fs::write(&file, "").unwrap();
    let bad = file.join("results");
    let earlier = t.path().join("earlier");
    fs::create_dir(&earlier).unwrap();
    fs::write(earlier.join("result.json"), "{\"earlier\": true}").unwrap();
    for (dir, says) in [
        (&bad, "cannot create it"),
        (&earlier, "already holds a result.json"),
    ] {
        let out = truebench()
            .args(["run", "--quick", "--force", "--no-store", "--root"])
            .arg(root.path())
            .arg("--results-dir")
            .arg(dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(dir.to_str().unwrap()) && err.contains(says),
            "{err}"
        );
        assert!(!err.contains("[1/7]"), "a phase ran: {err}");
    }
    assert_eq!(
        fs::read_to_string(earlier.join("result.json")).unwrap(),
        "{\"earlier\": true}"
    );
}

/// When the folder goes away during the run, the result is kept in a temporary file named
/// on stderr (with --no-store the history does not have it either) and the exit code is not 0.
#[test]
fn a_folder_lost_during_the_run_keeps_the_result_in_a_temporary_file() {
    let root = rock5b();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("results");
    let (mut child, rx) = spawn(&[
        "--quick",
        "--force",
        "--no-store",
        "--no-tuning",
        "--idle-timeout",
        "0",
        "--root",
        root.path().to_str().unwrap(),
        "--results-dir",
        dir.to_str().unwrap(),
    ]);
    let mut seen = Vec::new();
    wait_for(&rx, "[1/7]", &mut seen);
    fs::remove_dir_all(&dir).unwrap();
    fs::write(&dir, "not a folder").unwrap();
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    // Every line, up to the end of stderr (the reader thread ends there).
    seen.extend(rx.iter());
    let err = seen.join("\n");
    assert_ne!(status.code(), Some(0), "{err}");
    assert!(err.contains(dir.to_str().unwrap()), "{err}");
    let kept = err
        .lines()
        .find_map(|l| l.strip_prefix("truebench: the result was kept in "))
        .unwrap_or_else(|| panic!("no kept file named: {err}"));
    let v: Value = serde_json::from_str(&fs::read_to_string(kept).unwrap()).unwrap();
    assert_eq!(v["kind"], "run");
    // A new file with an unpredictable name, only the user's to read (it sits in a shared
    // temporary directory).
    use std::os::unix::fs::PermissionsExt;
    let name = std::path::Path::new(kept)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    assert!(
        name.starts_with("truebench-result-") && name.ends_with(".json"),
        "{name}"
    );
    assert_eq!(
        fs::metadata(kept).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let _ = fs::remove_file(kept);
}
