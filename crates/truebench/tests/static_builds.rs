//! The static release binaries (`scripts/release.sh --test`), each run the way a board would
//! run it — under qemu-user for a foreign ISA: the version, `info --root` on fixture trees of
//! real boards giving the same document as this native build, the clock kernel's assembly,
//! the AES kernel (AES instructions chosen at run time), the LZMA kernel (liblzma, C,
//! cross-compiled) and the history (SQLite, C, cross-compiled).
//!
//! Ignored in `cargo test`: release.sh runs it with `--ignored` and
//! `TRUEBENCH_STATIC_BIN` (the binary) and `TRUEBENCH_STATIC_RUNNER` (`qemu-arm`…, or empty).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const NATIVE: &str = env!("CARGO_BIN_EXE_truebench");

/// The static binary, run through its runner.
fn static_bin(tmp: &Path) -> Command {
    let bin = std::env::var("TRUEBENCH_STATIC_BIN").expect("TRUEBENCH_STATIC_BIN");
    // Relative to the workspace (where release.sh runs), not to this crate.
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(bin);
    let runner = std::env::var("TRUEBENCH_STATIC_RUNNER").unwrap_or_default();
    let mut c = if runner.is_empty() {
        Command::new(bin)
    } else {
        let mut c = Command::new(runner);
        c.arg(bin);
        c
    };
    c.env("XDG_DATA_HOME", tmp.join("data"))
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .env("TMPDIR", tmp)
        .env("TRUEBENCH_LOCK_DIR", tmp);
    c
}

fn ok(out: Output, what: &str) -> Output {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
    })
}

/// The parts of a document that do not depend on when and by which build it was made.
fn comparable(mut v: Value) -> Value {
    if let Some(env) = v.get_mut("envelope").and_then(Value::as_object_mut) {
        for k in [
            "started",
            "ended",
            "duration_s",
            "truebench_version",
            "build",
        ] {
            env.remove(k);
        }
    }
    v
}

#[test]
#[ignore = "run by scripts/release.sh --test with TRUEBENCH_STATIC_BIN set"]
fn static_binary_runs_here() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ok(
        static_bin(tmp.path()).arg("--version").output().unwrap(),
        "--version",
    );
    let version = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        version.trim(),
        format!("truebench {}", env!("CARGO_PKG_VERSION"))
    );

    // The same reading of a real board's tree as the native build.
    for board in ["rk3588-rock5b", "rpi4b", "x86-intel-laptop"] {
        let root = truebench_fixtures::root(board);
        let r = root.path().to_str().unwrap();
        let args = ["info", "--root", r, "--json"];
        let mine = json(&ok(
            static_bin(tmp.path()).args(args).output().unwrap(),
            board,
        ));
        let native = json(&ok(
            Command::new(NATIVE).args(args).output().unwrap(),
            board,
        ));
        assert_eq!(comparable(mine), comparable(native), "{board}");
    }

    // The clock kernel (inline assembly per ISA) on this machine's first cluster.
    let v = json(&ok(
        static_bin(tmp.path())
            .args(["clocks", "--no-tuning", "--no-store", "--json"])
            .output()
            .unwrap(),
        "clocks",
    ));
    let mhz = v["body"]["clusters"][0]["points"][0]["measured_mhz"]
        .as_f64()
        .unwrap_or_else(|| panic!("no measured clock: {v}"));
    assert!(mhz > 1.0, "{mhz} MHz");

    // AES (the implementation is chosen at run time) and LZMA (liblzma, C).
    let v = json(&ok(
        static_bin(tmp.path())
            .args(["measure", "aes", "--seconds", "0.02", "--json"])
            .output()
            .unwrap(),
        "aes",
    ));
    assert_eq!(v["table"]["rows"].as_array().unwrap().len(), 4, "{v}");
    let v = json(&ok(
        static_bin(tmp.path())
            .args([
                "measure",
                "lzma",
                "--seconds",
                "0.2",
                "--data-mib",
                "1",
                "--dict",
                "20",
                "--json",
            ])
            .output()
            .unwrap(),
        "lzma",
    ));
    assert_eq!(v["round_trip_ok"], true, "{v}");

    // The history (SQLite, C): a result stored and listed.
    let db = tmp.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    ok(
        static_bin(tmp.path())
            .args(["monitor", "--interval", "0.5", "--db", db, "--", "true"])
            .output()
            .unwrap(),
        "monitor",
    );
    let v = json(&ok(
        static_bin(tmp.path())
            .args(["history", "--json", "--db", db])
            .output()
            .unwrap(),
        "history",
    ));
    assert_eq!(v.as_array().map(Vec::len), Some(1), "{v}");
    eprintln!(
        "static binary ok: {} ({})",
        std::env::var("TRUEBENCH_STATIC_BIN").unwrap(),
        v[0]["kind"]
    );
}
