//! The contract every measuring command shares: while one measurement runs, every other
//! refuses to start, with the same message and the same exit code (4), before it changes or
//! starts anything.

use crate::common;
use common::{kinds, truebench};

#[test]
fn while_a_measurement_runs_every_measuring_command_refuses_alike() {
    let tmp = tempfile::tempdir().unwrap();
    // truebench(tmp) points TMPDIR at tmp/lock: hold that lock as a running measurement does.
    let dir = tmp.path().join("lock");
    std::fs::create_dir_all(&dir).unwrap();
    let _held = truebench_suites::lock::MeasurementLock::acquire(&dir).unwrap();
    let scratch = tmp.path().join("scratch");
    // Every kind's command, and the variants that start more (one per core type, tuned).
    let mut commands: Vec<(String, Vec<String>, Vec<String>)> = kinds::all()
        .iter()
        .map(|k| (k.to_string(), kinds::quick(k, &scratch), kinds::tail(k)))
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    commands.push((
        "monitor".into(),
        s(&["monitor", "--per-cluster"]),
        s(&["--", "true"]),
    ));
    commands.push((
        "review".into(),
        s(&["review", "-R", "--duration", "1"]),
        Vec::new(),
    ));
    let mut messages = Vec::new();
    for (i, (kind, args, tail)) in commands.iter().enumerate() {
        // A meter that leaves a mark when it is started: a refused command never starts it.
        let mark = tmp.path().join(format!("meter-started-{i}"));
        let meter = format!("touch {}; echo 5", mark.display());
        let out = truebench(tmp.path())
            .args(args)
            .args(["--power-cmd", &meter])
            .args(tail)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(4), "{kind} {args:?}: {err}");
        let line = err
            .lines()
            .find(|l| l.contains("another truebench measurement is running"))
            .unwrap_or_else(|| panic!("{args:?}: {err}"))
            .to_string();
        messages.push(line);
        assert!(
            !mark.exists(),
            "{kind} {args:?} started its meter before the lock"
        );
    }
    messages.dedup();
    assert_eq!(messages.len(), 1, "{messages:#?}");
    // Nothing was started: no scratch file, no result stored.
    assert!(!scratch.exists());
}

/// A link planted where the machine's measurement lock goes (the lock directory is writable
/// by every user): the command refuses with the reason, before measuring, and the link's
/// target is left as it was.
#[test]
fn a_planted_lock_link_is_refused_and_its_target_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lock");
    std::fs::create_dir_all(&dir).unwrap();
    let precious = tmp.path().join("shadow");
    std::fs::write(&precious, "root:secret\n").unwrap();
    std::os::unix::fs::symlink(&precious, dir.join("truebench-measurement.lock")).unwrap();
    for args in [vec!["clocks"], vec!["monitor", "--", "true"]] {
        let out = truebench(tmp.path()).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("refusing the lock file") && err.contains("symbolic link"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "root:secret\n");
    }
}

/// One CLI contract: every measuring command takes the same machine, power, store, output,
/// tuning and sampling flags, each with the same help text.
#[test]
fn every_measuring_command_takes_the_shared_flags_with_the_same_help() {
    const SHARED: &[&str] = &[
        "--root",
        "--cpuinfo",
        "--power-cmd",
        "--power-file",
        "--power-interval",
        "--db",
        "--no-store",
        "--json",
        "--quiet",
        "--sample-interval",
        "--no-tuning",
    ];
    let commands = kinds::all();
    // flag → (command, its help text) as each command words it.
    let mut helps: std::collections::BTreeMap<&str, Vec<(&str, String)>> = Default::default();
    for &c in commands {
        let out = std::process::Command::new(common::BIN)
            .args([c, "--help"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let lines: Vec<&str> = text.lines().collect();
        // sbc-bench's users type --interval for monitor and review: an alias of the shared
        // flag there (thermal's --interval is its score interval).
        if matches!(c, "monitor" | "review") {
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(flat.contains("[alias: --interval]"), "{c}: {text}");
        }
        for flag in SHARED {
            // `-q, --quiet  …`: the short name before the long one is not compared.
            let long = |l: &str| {
                let t = l.trim_start();
                match t.get(..4) {
                    Some(s) if s.starts_with('-') && s.ends_with(", ") => t[4..].to_string(),
                    _ => t.to_string(),
                }
            };
            let at = lines
                .iter()
                .position(|l| {
                    let t = long(l);
                    t.starts_with(&format!("{flag} ")) || t == *flag
                })
                .unwrap_or_else(|| panic!("{c} has no {flag}:\n{text}"));
            // The flag's text: the rest of its line and the continuation lines after it (up
            // to the next flag or a blank line), without the value name, whitespace collapsed.
            let line = long(lines[at]);
            let first = line.trim_start_matches(flag).trim_start();
            let first = if first.starts_with('<') {
                first.split_once('>').map_or("", |x| x.1)
            } else {
                first
            };
            let mut words: Vec<&str> = first.split_whitespace().collect();
            for l in &lines[at + 1..] {
                let t = l.trim_start();
                if t.is_empty() || t.starts_with('-') {
                    break;
                }
                words.extend(t.split_whitespace());
            }
            // The alias note (checked above) is not part of the flag's meaning.
            let text = words.join(" ");
            let text = text.split(" [alias").next().unwrap_or_default().to_string();
            helps.entry(flag).or_default().push((c, text));
        }
    }
    for (flag, per) in &helps {
        let first = &per[0].1;
        for (c, h) in per {
            assert_eq!(
                h, first,
                "{flag}: `{c}` says it differently from `{}`",
                per[0].0
            );
        }
    }
}

/// `--no-tuning` means no setting changes: the cpufreq sweep of net and io is refused with
/// the reason (exit 2) before anything starts; NOTUNING the same.
#[test]
fn no_tuning_refuses_the_cpufreq_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tmp.path().join("scratch");
    for (args, env) in [
        (
            vec!["net", "--loopback", "--sweep", "max", "--no-tuning"],
            None,
        ),
        (vec!["net", "--loopback", "--sweep", "max"], Some("1")),
        (
            vec![
                "io",
                "--file",
                scratch.to_str().unwrap(),
                "--sweep",
                "max",
                "--no-tune",
            ],
            None,
        ),
    ] {
        let mut c = truebench(tmp.path());
        if let Some(v) = env {
            c.env("NOTUNING", v);
        }
        let out = c.args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--sweep changes cpufreq settings"),
            "{args:?}: {err}"
        );
    }
    assert!(!scratch.exists());
}

/// A FIFO, a socket or a device node planted where the measurement lock goes: refused with
/// what it is, at once — also by a user who may only open it read-only (the fallback opened
/// without O_NONBLOCK hung on a FIFO until a writer came).
#[test]
fn a_planted_fifo_socket_or_device_at_the_lock_is_refused_at_once() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lock");
    std::fs::create_dir_all(&dir).unwrap();
    // Every user may create files here, as in /run/lock.
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let lock = dir.join("truebench-measurement.lock");
    let root_user = rustix::process::geteuid().is_root();
    let plant = |what: &str| {
        let _ = std::fs::remove_file(&lock);
        match what {
            "a FIFO" => rustix::fs::mkfifoat(
                rustix::fs::CWD,
                &lock,
                rustix::fs::Mode::from_raw_mode(0o644),
            )
            .unwrap(),
            "a socket" => {
                let l = std::os::unix::net::UnixListener::bind(&lock).unwrap();
                std::mem::forget(l);
            }
            _ => {
                rustix::fs::mknodat(
                    rustix::fs::CWD,
                    &lock,
                    rustix::fs::FileType::CharacterDevice,
                    rustix::fs::Mode::from_raw_mode(0o644),
                    rustix::fs::makedev(1, 3),
                )
                .unwrap();
            }
        }
    };
    let mut kinds = vec!["a FIFO", "a socket"];
    if root_user {
        kinds.push("a character device");
    }
    for what in kinds {
        plant(what);
        // As another user (nobody) where the test runs as root: its read-write open is
        // refused, so it takes the read-only path.
        let mut cmd = if root_user {
            let mut c = std::process::Command::new("setpriv");
            c.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                common::BIN,
            ]);
            c
        } else {
            std::process::Command::new(common::BIN)
        };
        let t0 = std::time::Instant::now();
        let mut child = cmd
            .env("TRUEBENCH_LOCK_DIR", &dir)
            .env("TMPDIR", tmp.path())
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env("XDG_CACHE_HOME", tmp.path().join("cache"))
            .args(["monitor", "--no-store", "--interval", "0.2", "--", "true"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A hang is the failure this test exists for: give it ten seconds, then kill it.
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if t0.elapsed() > std::time::Duration::from_secs(10) {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(status.is_some(), "{what}: still waiting after 10 s: {err}");
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(
            err.contains("refusing the lock file")
                && err.contains(&format!("not a regular file but {what}")),
            "{what}: {err}"
        );
    }
}

/// A FIFO given as the power file or the cpuinfo capture: refused with what it is, never
/// waited on (the power meter's thread blocked in the FIFO's open, and the end of the
/// command waited for that thread).
#[test]
fn a_fifo_as_power_file_or_cpuinfo_is_refused_not_waited_on() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("meter.fifo");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    let f = fifo.to_str().unwrap();
    for (args, said) in [
        (
            vec![
                "monitor",
                "--no-store",
                "--interval",
                "0.2",
                "--power-file",
                f,
                "--",
                "true",
            ],
            "is a FIFO, not a file holding the latest reading",
        ),
        (
            vec!["info", "--cpuinfo", f],
            "is a FIFO, not a cpuinfo capture file",
        ),
    ] {
        let t0 = std::time::Instant::now();
        let mut child = truebench(tmp.path())
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let done = loop {
            if child.try_wait().unwrap().is_some() {
                break true;
            }
            if t0.elapsed() > std::time::Duration::from_secs(20) {
                let _ = child.kill();
                break false;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(done, "{args:?}: still waiting after 20 s");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
}
