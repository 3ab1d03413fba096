//! Every format, for a recorded result of every kind, read by the consumer it is for:
//! junitparser (what Jenkins- and GitLab-style readers see), kcidb-io (KCIDB I/O schema v5),
//! LAVA's own dispatcher and `lava-test-case` helper, and a real node_exporter serving the
//! textfile, checked by promtool. What each understood is compared with the cases rendered.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use truebench_fixtures::{farm, skip};
use truebench_formats::{cases, Format, Signals, Verdict};
use truebench_model::Document;

/// The recorded documents of every kind (the renderers' test data).
fn documents() -> Vec<(String, Document)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../render/tests/data/kinds");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "json") {
            let text = std::fs::read_to_string(&p).unwrap();
            let doc = truebench_model::migrate(serde_json::from_str(&text).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            out.push((p.file_stem().unwrap().to_string_lossy().into_owned(), doc));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 13, "only {} recorded documents", out.len());
    let kinds: std::collections::BTreeSet<&str> = out.iter().map(|(_, d)| d.kind()).collect();
    assert_eq!(
        kinds.len(),
        truebench_model::KINDS.len(),
        "a kind without a document"
    );
    out
}

fn check(python: &Path, what: &str, file: &Path, env: &[(&str, PathBuf)]) -> Value {
    let mut cmd = Command::new(python);
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/consumers/check.py"))
        .arg(what)
        .arg(file);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{what} {}: {}{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn counts(doc: &Document) -> (usize, usize, usize) {
    let c = cases(doc);
    let n = |v: Verdict| c.iter().filter(|x| x.verdict == v).count();
    (c.len(), n(Verdict::Fail), n(Verdict::Skip))
}

#[test]
fn junitparser_reads_every_kind() {
    let Some(py) = farm::python() else {
        skip!(
            "no farm venv at {} (.ci/run installs it)",
            farm::dir().display()
        );
    };
    let tmp = tempfile::tempdir().unwrap();
    for (name, doc) in documents() {
        let f = tmp.path().join(format!("{name}.xml"));
        std::fs::write(
            &f,
            Format::Junit.render(&[("7".into(), &doc)], Signals::Plain),
        )
        .unwrap();
        let v = check(&py, "junit", &f, &[]);
        let (tests, failures, skipped) = counts(&doc);
        assert_eq!(v["tests"], tests, "{name}: {v}");
        assert_eq!(v["failures"], failures, "{name}: {v}");
        assert_eq!(v["skipped"], skipped, "{name}: {v}");
        let suite = &v["suites"][0];
        // Every score is a property, with its unit.
        for (key, value, unit) in truebench_formats::cases::scores(&doc) {
            let p = suite["properties"][format!("score.{key}")]
                .as_str()
                .unwrap_or_else(|| {
                    panic!("{name}: no property score.{key}: {}", suite["properties"])
                });
            let num: f64 = p.split(' ').next().unwrap().parse().unwrap();
            assert!(
                (num - value).abs() <= value.abs() * 1e-9,
                "{name}: {key} {p}"
            );
            if let Some(u) = unit {
                assert!(p.ends_with(&u), "{name}: {key} {p}");
            }
        }
        // A critical finding fails its condition with the finding's message.
        for f in doc
            .envelope
            .findings
            .iter()
            .filter(|f| f.severity == truebench_model::finding::Severity::Critical)
        {
            let case = suite["cases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == f.kind.as_str())
                .unwrap_or_else(|| panic!("{name}: no case for {}", f.kind.as_str()));
            assert_eq!(case["result"], "fail", "{name}: {case}");
            assert!(
                case["message"].as_str().unwrap().contains(&f.message),
                "{name}: {case}"
            );
        }
    }
}

#[test]
fn kcidb_io_validates_every_kind() {
    let Some(py) = farm::python() else {
        skip!(
            "no farm venv at {} (.ci/run installs it)",
            farm::dir().display()
        );
    };
    let tmp = tempfile::tempdir().unwrap();
    let docs = documents();
    for (name, doc) in &docs {
        let f = tmp.path().join(format!("{name}.json"));
        std::fs::write(
            &f,
            Format::Kcidb.render(&[("7".into(), doc)], Signals::Plain),
        )
        .unwrap();
        let v = check(&py, "kcidb", &f, &[]);
        assert_eq!(v["valid"], true, "{name}: {v}");
        assert_eq!(v["latest_valid"], true, "{name}: {v}");
        // The summary test and one per case; one number per score.
        assert_eq!(v["tests"], counts(doc).0 + 1, "{name}: {v}");
        assert_eq!(
            v["numbers"],
            truebench_formats::cases::scores(doc).len(),
            "{name}: {v}"
        );
    }
    // A board's device-tree compatible list is the test environment's (the recorded
    // documents come from machines without one).
    let mut board = docs[0].1.clone();
    board.envelope.inventory.compatible = vec!["radxa,rock-5b".into(), "rockchip,rk3588".into()];
    let text = Format::Kcidb.render(&[("7".into(), &board)], Signals::Plain);
    let f = tmp.path().join("board.json");
    std::fs::write(&f, &text).unwrap();
    assert_eq!(check(&py, "kcidb", &f, &[])["valid"], true);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["tests"][0]["environment"]["compatible"],
        serde_json::json!(["radxa,rock-5b", "rockchip,rk3588"])
    );
    // All results in one document: one checkout and build per kernel, ids never repeated.
    let all: Vec<(String, &Document)> = docs.iter().map(|(n, d)| (n.clone(), d)).collect();
    let text = Format::Kcidb.render(&all, Signals::Plain);
    let f = tmp.path().join("all.json");
    std::fs::write(&f, &text).unwrap();
    assert_eq!(check(&py, "kcidb", &f, &[])["valid"], true);
    let v: Value = serde_json::from_str(&text).unwrap();
    let mut ids: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "test ids repeat");
}

#[test]
fn lavas_dispatcher_parses_every_kind() {
    let (Some(py), Some(packages), Some(helpers)) =
        (farm::python(), farm::lava_packages(), farm::lava_helpers())
    else {
        skip!(
            "no farm venv or unpacked lava-dispatcher under {} (.ci/run installs them)",
            farm::dir().display()
        );
    };
    let tmp = tempfile::tempdir().unwrap();
    for (name, doc) in documents() {
        let f = tmp.path().join(format!("{name}.lava"));
        std::fs::write(
            &f,
            Format::Lava.render(&[("7".into(), &doc)], Signals::Lava),
        )
        .unwrap();
        let results_dir = tmp.path().join(format!("{name}-results"));
        let v = check(
            &py,
            "lava",
            &f,
            &[
                ("LAVA_PACKAGES", packages.clone()),
                ("LAVA_HELPERS", helpers.clone()),
                ("LAVA_RESULT_DIR", results_dir),
            ],
        );
        let all = cases(&doc);
        let results = v["results"].as_array().unwrap();
        assert_eq!(results.len(), all.len(), "{name}: {v}");
        assert_eq!(v["helper_lines"], all.len(), "{name}");
        for (c, r) in all.iter().zip(results) {
            assert_eq!(r["result"], c.verdict.lava(), "{name}: {r}");
            assert!(
                r["set"]
                    .as_str()
                    .unwrap()
                    .ends_with(&truebench_formats::cases::ident(&c.set)),
                "{name}: {r}"
            );
            match &c.measurement {
                Some((m, _)) => {
                    let got = r["measurement"].as_f64().unwrap();
                    assert!(
                        (got - m).abs() <= m.abs() * 1e-6 + 1e-6,
                        "{name}: {r} vs {m}"
                    );
                }
                None => assert!(r.get("measurement").is_none(), "{name}: {r}"),
            }
        }
    }
}

/// A free loopback port (bound, then released for node_exporter to take).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn http_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut body = String::new();
    s.read_to_string(&mut body).ok()?;
    Some(body)
}

/// Kills node_exporter when the test ends, also on a failed assertion.
struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn node_exporter_serves_the_textfile_and_promtool_accepts_it() {
    let (Some(exporter), Some(promtool)) = (
        farm::program("/usr/bin/prometheus-node-exporter"),
        farm::program("/usr/bin/promtool"),
    ) else {
        skip!("prometheus-node-exporter or promtool is not installed (.ci/run installs them)");
    };
    let docs = documents();
    let ids: Vec<(String, &Document)> = docs
        .iter()
        .enumerate()
        .map(|(i, (_, d))| ((i + 1).to_string(), d))
        .collect();
    let text = Format::Prom.render(&ids, Signals::Plain);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("truebench.prom");
    std::fs::write(&file, &text).unwrap();
    let out = Command::new(&promtool)
        .args(["check", "metrics"])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "promtool: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let port = free_port();
    let _child = Child(
        Command::new(&exporter)
            .arg("--collector.disable-defaults")
            .arg("--collector.textfile")
            .arg(format!(
                "--collector.textfile.directory={}",
                dir.path().display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut scrape = None;
    for _ in 0..100 {
        if let Some(b) = http_get(port, "/metrics").filter(|b| b.contains("200 OK")) {
            scrape = Some(b);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let scrape = scrape.expect("node_exporter did not answer within 10 s");
    assert!(scrape.contains("node_textfile_scrape_error 0"), "{scrape}");
    // Every result's validity and every score arrive as written.
    for (id, doc) in &ids {
        let line = format!(
            "truebench_result_valid{{id=\"{id}\",kind=\"{}\"}} {}",
            doc.kind(),
            u8::from(doc.envelope.valid)
        );
        assert!(scrape.contains(&line), "{line} not in the scrape");
        for (key, value, _) in truebench_formats::cases::scores(doc) {
            let found = scrape.lines().any(|l| {
                l.starts_with("truebench_result_value{")
                    && l.contains(&format!("id=\"{id}\""))
                    && l.contains(&format!("metric=\"{key}\""))
                    && l.rsplit(' ')
                        .next()
                        .and_then(|v| v.parse::<f64>().ok())
                        .is_some_and(|v| (v - value).abs() <= value.abs() * 1e-9)
            });
            assert!(found, "{id} {key} = {value} not in the scrape");
        }
    }
}

/// The integration examples in docs/farms: the LAVA job and test definition pass
/// lava-common's own schemas, the GitLab file's JUnit report is written by its script.
/// (Every truebench command in them is parsed by the CLI's own flags in the truebench
/// crate's tests; the systemd units by systemd-analyze in its CLI tests.)
#[test]
fn the_farm_examples_pass_their_engines_schemas() {
    let (Some(py), Some(packages)) = (farm::python(), farm::lava_packages()) else {
        skip!(
            "no farm venv or unpacked lava-common under {} (.ci/run installs them)",
            farm::dir().display()
        );
    };
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/farms");
    let v = check(&py, "docs", &docs, &[("LAVA_PACKAGES", packages)]);
    assert_eq!(v["job_definitions"][0], "docs/farms/lava/truebench.yaml");
    assert_eq!(v["gitlab_jobs"].as_array().unwrap().len(), 2, "{v}");
}
