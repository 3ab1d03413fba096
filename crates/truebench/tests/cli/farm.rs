//! Results in the farm engines' formats straight from a measuring command (`--format`,
//! `--textfile`) and from the history (`export --format`); LAVA's signal lines inside a
//! LAVA job only. (The formats' contents are read by their real consumers in
//! crates/formats/tests/consumers.rs.)

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

fn tb(data: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(BIN);
    c.env("XDG_DATA_HOME", data)
        .env("TMPDIR", data)
        .env("TRUEBENCH_LOCK_DIR", data)
        .env_remove("LAVA_RESULT_DIR")
        .env_remove("TESTRUN_ID")
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_measuring_command_prints_its_format_and_writes_the_textfile() {
    let d = tempfile::tempdir().unwrap();
    let prom = d.path().join("prom");
    std::fs::create_dir(&prom).unwrap();
    let p = prom.to_str().unwrap();
    let out = tb(
        d.path(),
        &[
            "monitor",
            "--interval",
            "0.2",
            "--format",
            "junit",
            "--textfile",
            p,
            "--",
            "true",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let xml = text(&out.stdout);
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(
        xml.contains("<testsuite name=\"truebench monitor on "),
        "{xml}"
    );
    assert!(xml.contains("classname=\"truebench.monitor.verdicts\" name=\"complete\""));
    // The history's number is the suite's id.
    assert!(xml.contains(" id=\"1\""), "{xml}");
    let metrics = std::fs::read_to_string(prom.join("truebench_monitor.prom")).unwrap();
    assert!(
        metrics.contains("truebench_result_complete{kind=\"monitor\",id=\"1\"} 1"),
        "{metrics}"
    );
    // Nothing else left in the folder node_exporter reads (no temporary files).
    assert_eq!(std::fs::read_dir(&prom).unwrap().count(), 1);
    // The next result of the kind replaces it.
    let out = tb(
        d.path(),
        &[
            "monitor",
            "--interval",
            "0.2",
            "--quiet",
            "--textfile",
            p,
            "--",
            "true",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let metrics = std::fs::read_to_string(prom.join("truebench_monitor.prom")).unwrap();
    assert!(metrics.contains("id=\"2\""), "{metrics}");
    // --json and --format are one choice.
    let out = tb(
        d.path(),
        &["monitor", "--json", "--format", "lava", "--", "true"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // A format that does not exist is refused with the ones that do.
    let out = tb(d.path(), &["monitor", "--format", "tap", "--", "true"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("junit"), "{}", text(&out.stderr));
}

#[test]
fn lava_signals_only_inside_a_lava_job() {
    let d = tempfile::tempdir().unwrap();
    let args = [
        "monitor",
        "--interval",
        "0.2",
        "--quiet",
        "--format",
        "lava",
        "--",
        "true",
    ];
    let plain = text(&tb(d.path(), &args, &[]).stdout);
    assert!(
        plain.lines().all(|l| !l.contains("<LAVA_SIGNAL")),
        "{plain}"
    );
    assert!(
        plain.contains("TESTCASE TEST_CASE_ID=complete RESULT=pass"),
        "{plain}"
    );
    let results = d.path().join("lava-results");
    let inside = text(
        &tb(
            d.path(),
            &args,
            &[("LAVA_RESULT_DIR", results.to_str().unwrap())],
        )
        .stdout,
    );
    assert!(
        inside.starts_with("<LAVA_SIGNAL_TESTSET START truebench-monitor-verdicts>"),
        "{inside}"
    );
    assert!(
        inside.lines().all(|l| l.starts_with("<LAVA_SIGNAL_")),
        "{inside}"
    );
}

#[test]
fn export_writes_every_format_whole_and_never_over_a_file() {
    let d = tempfile::tempdir().unwrap();
    assert!(tb(
        d.path(),
        &["monitor", "--interval", "0.2", "--quiet", "--", "true"],
        &[]
    )
    .status
    .success());
    for (format, ext) in [
        ("junit", ".xml"),
        ("lava", ".lava.txt"),
        ("kcidb", ".kcidb.json"),
        ("prom", ".prom"),
    ] {
        let dir = d.path().join(format);
        let out = tb(
            d.path(),
            &["export", dir.to_str().unwrap(), "--format", format],
            &[],
        );
        assert!(out.status.success(), "{format}: {}", text(&out.stderr));
        let files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(files.len(), 1, "{format}: {files:?}");
        assert!(files[0].ends_with(ext), "{format}: {files:?}");
        let name = dir.join(&files[0]);
        let first = std::fs::read(&name).unwrap();
        assert!(!first.is_empty());
        // Again: the same file is left as it is; a different one is never overwritten.
        let out = tb(
            d.path(),
            &["export", dir.to_str().unwrap(), "--format", format],
            &[],
        );
        assert!(
            text(&out.stderr).contains("1 already there"),
            "{}",
            text(&out.stderr)
        );
        std::fs::write(&name, b"someone else's").unwrap();
        let out = tb(
            d.path(),
            &["export", dir.to_str().unwrap(), "--format", format],
            &[],
        );
        assert_eq!(out.status.code(), Some(2), "{format}");
        assert_eq!(std::fs::read(&name).unwrap(), b"someone else's");
    }
    // node_exporter reads `*.prom` names without dashes.
    let prom: Vec<_> = std::fs::read_dir(d.path().join("prom")).unwrap().collect();
    let n = prom[0].as_ref().unwrap().file_name();
    assert!(!n.to_string_lossy().contains('-'), "{n:?}");
}

/// The systemd units of the Prometheus example pass systemd's own checks (with the built
/// binary standing in for /usr/local/bin/truebench).
#[test]
fn the_systemd_example_passes_systemd_analyze() {
    let Some(analyze) = truebench_fixtures::farm::program("/usr/bin/systemd-analyze") else {
        truebench_fixtures::skip!("systemd-analyze is not installed (.ci/run installs systemd)");
    };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/farms/prometheus");
    let d = tempfile::tempdir().unwrap();
    for unit in ["truebench.service", "truebench.timer"] {
        let text = std::fs::read_to_string(src.join(unit))
            .unwrap()
            .replace("/usr/local/bin/truebench", BIN);
        std::fs::write(d.path().join(unit), text).unwrap();
    }
    let out = Command::new(analyze)
        .args(["verify", "--man=no"])
        .arg(d.path().join("truebench.service"))
        .arg(d.path().join("truebench.timer"))
        .output()
        .unwrap();
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "{said}");
    // A broken unit is refused: the check can fail.
    std::fs::write(
        d.path().join("truebench.service"),
        "[Service]\nType=sometimes\nExecStart=relative/path\n",
    )
    .unwrap();
    let out = Command::new("/usr/bin/systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(d.path().join("truebench.service"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "a broken unit passed");
}
