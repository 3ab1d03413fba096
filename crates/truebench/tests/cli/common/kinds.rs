//! Each kind of result and the command that makes it, as short as it goes on this machine:
//! the shared tests iterate `truebench_model::KINDS` and take their invocations from here, so
//! a new kind is in every shared test at once. A kind's command is named as the kind; every
//! command with an idle gate gets `--idle-timeout 0` (the tests run beside each other: the
//! machine is never idle), and what else it needs beyond its defaults to finish in seconds is
//! listed below. A new kind without an entry runs with its defaults: when those take long or
//! need more, its tests fail loudly until its defaults are short enough on a machine where
//! nothing can be tuned (or, as a last resort, an entry is added).

use std::path::Path;

/// The kinds of result, each with its measuring command (the same name).
pub fn all() -> &'static [&'static str] {
    truebench_model::KINDS
}

/// The flags `kind`'s command needs besides its defaults to finish in seconds here (no
/// cpufreq, no sensors), before any `--`; `scratch` is a path for a scratch file. `--json`
/// and `--no-store` are the caller's.
pub fn quick(kind: &str, scratch: &Path) -> Vec<String> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut args = vec![kind.to_string()];
    args.extend(match kind {
        "run" => s(&["--quick", "--force"]),
        "monitor" => s(&["--sample-interval", "5"]),
        "interactivity" => s(&[
            "--benchmarks",
            "audio",
            "--loads",
            "none",
            "--duration",
            "1",
            "--loops-per-ms",
            "100000",
        ]),
        "governors" => s(&[
            "--utilisations",
            "0.4",
            "--sets",
            "1",
            "--tasks",
            "2",
            "--loops-per-ms",
            "100000",
            "--duration",
            "1",
        ]),
        "net" => s(&[
            "--loopback",
            "--tests",
            "upload",
            "--duration",
            "1",
            "--repeat",
            "1",
        ]),
        "io" => {
            let mut v = s(&["--file"]);
            v.push(scratch.display().to_string());
            v.extend(s(&[
                "--size",
                "8",
                "--tests",
                "cached",
                "--duration",
                "1",
                "--repeat",
                "1",
            ]));
            v
        }
        "thermal" => s(&["--minutes", "0.02", "--load", "sleep 0.1"]),
        "efficiency" => s(&["--runs", "1", "--work", "lzma"]),
        "review" => s(&["--duration", "1.2"]),
        _ => Vec::new(),
    });
    if gated(kind) {
        args.extend(s(&["--idle-timeout", "0"]));
    }
    args
}

/// The command waits for an idle machine (its help lists `--idle-timeout`).
pub fn gated(kind: &str) -> bool {
    let out = std::process::Command::new(super::BIN)
        .args([kind, "--help"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).contains("--idle-timeout")
}

/// What follows the flags: the monitored command of `monitor`.
pub fn tail(kind: &str) -> Vec<String> {
    match kind {
        "monitor" => vec!["--".into(), "sleep".into(), "1.2".into()],
        _ => Vec::new(),
    }
}
