//! Every kind's command on the recorded ROCK 5B root (cpufreq policies, devfreq devices,
//! ASPM, hotplug), interrupted as soon as it has changed a file of that tree: Ctrl-C and
//! SIGTERM put every setting back before the command ends (exit 130), and after
//! SIGKILL the next command does — byte for byte each time. A kind whose command changes
//! nothing on that root must end with the tree as it was. From the list of kinds: a new kind
//! is in it without an edit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::{kinds, truebench};

fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    // Tuning's journal directory is truebench's, not the machine's.
    truebench_fixtures::tree_bytes(root, &["var/lib/truebench"])
}

/// `kind`'s short command on `root`, with a meter, storing nothing.
fn start(kind: &str, tmp: &Path, root: &Path) -> Child {
    let scratch = tmp.join("scratch");
    truebench(tmp)
        .args(kinds::quick(kind, &scratch))
        .arg("--root")
        .arg(root)
        .args(["--power-cmd", "echo 5.0", "--power-interval", "0.2"])
        .arg("--no-store")
        .args(kinds::tail(kind))
        // `run` writes its results folder into the working directory.
        .current_dir(tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Until the tree differs from `before` (true) or the command ended without changing it.
fn changed(
    kind: &str,
    child: &mut Child,
    root: &Path,
    before: &BTreeMap<PathBuf, Vec<u8>>,
) -> bool {
    let t0 = Instant::now();
    loop {
        if tree(root) != *before {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return tree(root) != *before;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "{kind}: still running after 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn stderr(child: &mut Child) -> String {
    let mut s = String::new();
    use std::io::Read;
    let _ = child.stderr.take().unwrap().read_to_string(&mut s);
    s
}

/// `kind` interrupted three ways on its own copy of the root; whether it changed the root.
fn interrupt(kind: &'static str) -> bool {
    let mut tuned = false;
    // An interrupted measurement exits 130 (the exit table); a SIGTERM that comes before
    // the measurement has started exits as killed by it, 143.
    for (signal, code) in [
        ("-INT", Some([130, 130])),
        ("-TERM", Some([130, 143])),
        ("-KILL", None),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = truebench_fixtures::root("rk3588-rock5b");
        let root = dir.path();
        let before = tree(root);
        let mut child = start(kind, tmp.path(), root);
        if !changed(kind, &mut child, root, &before) {
            // Ended (or refused the root) without changing a setting: nothing to put back.
            let status = child.wait().unwrap();
            let err = stderr(&mut child);
            assert_eq!(tree(root), before, "{kind}: {status:?}\n{err}");
            assert!(
                !tuned,
                "{kind} changed the tree before, not this time:\n{err}"
            );
            break;
        }
        tuned = true;
        crate::common::signal(signal, child.id());
        let status = child.wait().unwrap();
        let err = stderr(&mut child);
        match code {
            Some(c) => {
                // Ended by the signal or, where it came as the command finished, normally.
                assert!(
                    status.code().is_some_and(|x| c.contains(&x))
                        || matches!(status.code(), Some(0) | Some(1) | Some(3)),
                    "{kind} {signal}: {status:?}\n{err}"
                );
                assert_eq!(tree(root), before, "{kind} {signal}: not put back\n{err}");
            }
            None => {
                assert_eq!(status.code(), None, "{kind}: {status:?}\n{err}");
                let out = truebench(tmp.path())
                    .args(["info", "--root"])
                    .arg(root)
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{kind}: {out:?}");
                assert_eq!(
                    tree(root),
                    before,
                    "{kind}: the next command did not put it back"
                );
            }
        }
    }
    tuned
}

#[test]
fn every_kind_interrupted_puts_every_setting_back() {
    if !rustix::process::geteuid().is_root() {
        truebench_fixtures::skip!("changing a fixture root's settings needs root");
    }
    // The kinds side by side, three at a time: each has its own root, working folder and
    // lock, and most of the time is spent waiting for the commands.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let all = kinds::all();
    let mut tuning: Vec<&str> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut tuned = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&kind) = all.get(i) else { break };
                        if interrupt(kind) {
                            tuned.push(kind);
                        }
                    }
                    tuned
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    tuning.sort();
    // The kinds that tune walk the root's settings: at least clocks, governors, efficiency.
    for k in ["clocks", "governors", "efficiency"] {
        assert!(tuning.contains(&k), "{k} changed nothing: {tuning:?}");
    }
    println!("kinds that changed the root and were interrupted three ways: {tuning:?}");
}
