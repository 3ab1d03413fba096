//! End to end with real processes: a `tuning-hold` process changes settings on a fixture
//! root and is then interrupted (SIGINT, SIGTERM, SIGHUP: it restores and exits 128+signal)
//! or killed outright (SIGKILL: the settings stay changed until the next start restores
//! them). Two processes cannot both change one root.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::*;
use rustix::process::{kill_process, Pid, Signal};
use truebench_host::Host;
use truebench_tuning::{recover, Tuning, TuningError};

const HOLD: &str = env!("CARGO_BIN_EXE_tuning-hold");
const LIMIT: Duration = Duration::from_secs(60);

fn hold(root: &Path) -> Child {
    hold_with(root, &[])
}

fn hold_with(root: &Path, extra: &[&str]) -> Child {
    Command::new(HOLD)
        .args(extra)
        .arg("--root")
        .arg(root)
        .args(["--governor", "performance", "--min-khz", "1008000"])
        .args(["--max-khz", "1008000"])
        .args(["--write", &format!("{ASPM}=powersave")])
        .args(["--write", &format!("{ODD}=x")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tuning-hold starts")
}

/// Wait for the READY line; panics with the child's stderr when it exits first.
fn ready(child: &mut Child) {
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if line.starts_with("READY") {
                let _ = tx.send(line);
                break;
            }
        }
    });
    if rx.recv_timeout(LIMIT).is_err() {
        let _ = child.kill();
        let out = child.wait_with_output_stderr();
        panic!("tuning-hold never got READY: {out}");
    }
}

trait StderrText {
    fn wait_with_output_stderr(&mut self) -> String;
}

impl StderrText for Child {
    fn wait_with_output_stderr(&mut self) -> String {
        let mut s = String::new();
        if let Some(mut e) = self.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut s);
        }
        s
    }
}

fn wait(child: &mut Child) -> ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if t0.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("tuning-hold did not exit after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// kill(2) on the pid of a child we spawned and have not reaped.
fn signal(child: &Child, sig: Signal) {
    kill_process(Pid::from_child(child), sig).unwrap();
}

/// Settings the helper changes: 3 policies × (governor, min, max), ASPM, the odd file.
const CHANGED: usize = 3 * 3 + 2;

fn interrupted_run_restores(sig: Signal) {
    let d = temp_rock5b();
    let before = snapshot(d.path());
    let mut child = hold(d.path());
    ready(&mut child);
    assert_eq!(changed(&before, &snapshot(d.path())).len(), CHANGED);
    assert_eq!(
        read(d.path(), &format!("{P4}/scaling_governor")),
        "performance"
    );
    signal(&child, sig);
    let status = wait(&mut child);
    let err = child.wait_with_output_stderr();
    assert_eq!(status.code(), Some(128 + sig.as_raw()), "{status:?} {err}");
    assert!(err.contains("restored"), "{err}");
    assert_eq!(
        changed(&before, &snapshot(d.path())),
        Vec::<String>::new(),
        "{err}"
    );
    assert!(!journal(d.path()).exists());
}

#[test]
fn sigint_restores_and_exits_130() {
    interrupted_run_restores(Signal::INT);
}

#[test]
fn sigterm_restores_and_exits_143() {
    interrupted_run_restores(Signal::TERM);
}

#[test]
fn sighup_restores_and_exits_129() {
    interrupted_run_restores(Signal::HUP);
}

fn killed(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let before = snapshot(root);
    let mut child = hold(root);
    ready(&mut child);
    signal(&child, Signal::KILL);
    let status = wait(&mut child);
    assert_eq!(status.signal(), Some(Signal::KILL.as_raw()));
    // Nothing could run: the settings stay changed and the journal stays.
    assert_eq!(changed(&before, &snapshot(root)).len(), CHANGED);
    assert!(journal(root).exists());
    before
}

#[test]
fn sigkill_then_the_next_start_restores() {
    let d = temp_rock5b();
    let before = killed(d.path());
    let out = Command::new(HOLD)
        .arg("--root")
        .arg(d.path())
        .arg("--recover")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with(&format!("RECOVERED {CHANGED} ")), "{text}");
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
    assert!(!journal(d.path()).exists());
}

#[test]
fn sigkill_then_recover_in_another_process() {
    let d = temp_rock5b();
    let before = killed(d.path());
    let r = recover(&Host::new(d.path()))
        .unwrap()
        .expect("stale journal");
    assert_eq!(r.restored.len(), CHANGED, "{r}");
    assert_ne!(r.pid, Some(std::process::id()));
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
}

#[test]
fn two_processes_cannot_change_one_root_at_once() {
    let d = temp_rock5b();
    let before = snapshot(d.path());
    let mut first = hold(d.path());
    ready(&mut first);
    let pid = first.id();

    let second = Command::new(HOLD)
        .arg("--root")
        .arg(d.path())
        .args(["--governor", "powersave"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("truebench pid {pid}")), "{err}");
    assert_eq!(
        read(d.path(), &format!("{P0}/scaling_governor")),
        "performance"
    );

    let host = Host::new(d.path());
    match Tuning::begin(&host) {
        Err(TuningError::Busy { pid: p, .. }) => assert_eq!(p, Some(pid)),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a second session on a busy root"),
    }
    // The next command's start-up recovery must not undo a live run's changes.
    assert_eq!(recover(&host).unwrap(), None);
    assert_eq!(changed(&before, &snapshot(d.path())).len(), CHANGED);

    signal(&first, Signal::TERM);
    assert_eq!(wait(&mut first).code(), Some(143));
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
    // Free again.
    drop(Tuning::begin(&host).unwrap());
}

#[test]
fn a_graceful_command_stops_by_itself_on_the_first_signal() {
    let d = temp_rock5b();
    let before = snapshot(d.path());
    let mut child = hold_with(d.path(), &["--graceful"]);
    let out = child.stdout.take().unwrap();
    let mut lines = BufReader::new(out).lines();
    assert!(lines.next().unwrap().unwrap().starts_with("READY"));
    signal(&child, Signal::INT);
    let status = wait(&mut child);
    assert_eq!(
        status.code(),
        Some(0),
        "{}",
        child.wait_with_output_stderr()
    );
    let stopped = lines.next().unwrap().unwrap();
    assert_eq!(stopped, format!("STOPPED restored={CHANGED}"));
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
}

#[test]
fn a_second_signal_restores_and_exits_even_if_the_command_does_not_stop() {
    let d = temp_rock5b();
    let before = snapshot(d.path());
    let mut child = hold_with(d.path(), &["--graceful-stuck"]);
    ready(&mut child);
    signal(&child, Signal::INT);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the first signal only asks"
    );
    assert_eq!(changed(&before, &snapshot(d.path())).len(), CHANGED);
    signal(&child, Signal::INT);
    assert_eq!(wait(&mut child).code(), Some(130));
    assert_eq!(changed(&before, &snapshot(d.path())), Vec::<String>::new());
}
