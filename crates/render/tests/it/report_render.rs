//! The HTML report rendered in headless Chromium (Debian package `chromium`): no console
//! error, no request to the network, the charts in the DOM. Skipped with a message when
//! Chromium is not installed. Static checks (no URL, no script) run everywhere.
//!
//! Pages: a real quick run of this project's VM (tests/data/v1/quick-run-x86-vm.json) and
//! imported sbc-bench logs — ROCK 5B with throttling (4qJG), a Raspberry Pi 4 (fake/real
//! clocks, 3L37), and the oldest log format in the corpus — and a `clocks` and a `monitor`
//! document in the same page frame.

use truebench_fixtures::sbc_bench as common;

use std::io::Write as _;
use std::path::Path;

use truebench_model::clocks::{ClockPoint, ClusterClocks, WalkMode};
use truebench_model::{migrate_run, ClocksBody, Document, MonitorBody, RunResult, Typed};
use truebench_render::kinds;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;

use truebench_fixtures::chromium::{chromium, render};

/// What makes a page not self-contained (or not a report).
fn static_problems(html: &str) -> Vec<String> {
    let mut v = Vec::new();
    if !html.starts_with("<!DOCTYPE html>") {
        v.push("no doctype".to_string());
    }
    for bad in ["http://", "https://", "<script", " src=", "@import", "url("] {
        if html.contains(bad) {
            v.push(format!("contains {bad:?}"));
        }
    }
    if !html.contains("<svg") {
        v.push("no chart".into());
    }
    v
}

/// A `clocks` and a `monitor` document around the envelope of a real run.
fn other_kinds(run: &RunResult) -> Vec<(String, Document)> {
    let point = |opp: u32, mhz: f64| ClockPoint {
        reported_mhz: Some(opp),
        effective_mhz: Some(mhz - 10.0),
        ..ClockPoint::at_opp(opp, vec![mhz + 0.4, mhz, mhz - 0.3], 100.0)
    };
    let clocks = Typed {
        envelope: run.envelope.clone(),
        body: ClocksBody {
            max_khz: None,
            min_khz: None,
            walked: true,
            clusters: vec![ClusterClocks {
                id: 0,
                cpus: vec![0, 1],
                cpu_range: "cpu0-cpu1".into(),
                core_type: Some("Cortex-A76".into()),
                driver: Some("cpufreq-dt".into()),
                measured_cpu: Some(0),
                mode: WalkMode::OppWalk,
                enforced: Some(true),
                points: vec![point(2400, 2350.0), point(1800, 1796.0), point(408, 407.0)],
                notes: vec![],
                turbo: None,
            }],
            all_cores: None,
        },
    };
    let monitor = Typed {
        envelope: run.envelope.clone(),
        body: MonitorBody {
            command: vec!["sh".into(), "-c".into(), "make -j2 <x>".into()],
            exit_code: Some(0),
            signal: None,
            error: None,
            start_failure: None,
            duration_s: 42.0,
            interval_s: 1.0,
            threads: Some(2),
            clusters: Vec::new(),
            score_ratio: None,
        },
    };
    vec![
        ("clocks".into(), clocks.into_document()),
        ("monitor".into(), monitor.into_document()),
    ]
}

fn pages() -> Vec<(String, Document)> {
    let runs = run_pages();
    let mut v: Vec<(String, Document)> = other_kinds(&runs[0].1);
    v.extend(runs.into_iter().map(|(n, r)| (n, r.into_document())));
    v
}

fn run_pages() -> Vec<(String, RunResult)> {
    let logs = common::logs();
    let mut v = Vec::new();
    let quick = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/tests/data/v1/quick-run-x86-vm.json"),
    )
    .unwrap();
    v.push((
        "quick-run".to_string(),
        migrate_run(serde_json::from_str(&quick).unwrap()).unwrap(),
    ));
    let oldest = logs
        .iter()
        .min_by_key(|(_, t)| parse(t).version_key())
        .unwrap()
        .0
        .clone();
    for want in ["4qJG.txt", "3L37.txt", oldest.as_str()] {
        let (name, text) = logs.iter().find(|(n, _)| n == want).unwrap();
        v.push((name.clone(), to_run_result(&parse(text), name)));
    }
    v
}

#[test]
fn reports_render_without_errors_or_requests() {
    let dir = tempfile::tempdir().unwrap();
    let chrome = chromium();
    if chrome.is_none() {
        let test = std::thread::current().name().unwrap_or("?").to_string();
        let _ = writeln!(std::io::stderr(), "SKIPPED {test}: the Chromium part: no chromium in PATH (Debian: apt-get install chromium); static checks only");
    }
    // Three pages at a time: each is two Chromium starts of about a second, mostly CPU, and
    // one after another they left the second CPU idle; more at once only costs memory.
    let pages = pages();
    for three in pages.chunks(3) {
        std::thread::scope(|s| {
            for (name, r) in three {
                let (dir, chrome) = (dir.path(), &chrome);
                s.spawn(move || check_page(dir, chrome.as_deref(), name, r));
            }
        });
    }
}

/// One page's static checks, then its DOM and a screenshot from Chromium (when installed).
fn check_page(dir: &Path, chrome: Option<&Path>, name: &str, r: &Document) {
    let html = kinds::html_page(r);
    let problems = static_problems(&html);
    assert!(problems.is_empty(), "{name}: {problems:?}");
    let Some(chrome) = chrome else { return };
    let page = dir.join(format!("{name}.html"));
    std::fs::write(&page, &html).unwrap();
    let out = render(chrome, &page, &["--dump-dom"]);
    assert!(out.console.is_empty(), "{name}: console: {:?}", out.console);
    assert!(out.hosts.is_empty(), "{name}: requests to {:?}", out.hosts);
    // The DOM Chromium built holds the sections and the drawn charts.
    assert!(out.dom.contains("<h2>Timeline</h2>"), "{name}");
    assert!(
        out.dom.matches("<svg").count() >= 3,
        "{name}: charts missing"
    );
    assert!(out.dom.contains("<h2>Verdicts</h2>"), "{name}");
    // A screenshot at a laptop's width: a real image, not an empty one. (A phone's width
    // cannot be had this way, the headless window is never narrower than 500 px; the
    // layout test lays every page out at 390 px in a frame.)
    {
        let (w, h) = (1280, 3000);
        let png = dir.join(format!("{name}-{w}.png"));
        let shot = render(
            chrome,
            &page,
            &[
                &format!("--screenshot={}", png.display()),
                &format!("--window-size={w},{h}"),
                "--hide-scrollbars",
            ],
        );
        assert!(shot.console.is_empty(), "{name}: {:?}", shot.console);
        let bytes = std::fs::read(&png).unwrap_or_default();
        assert!(
            bytes.starts_with(b"\x89PNG"),
            "{name}: no screenshot at {w}px"
        );
        assert!(
            bytes.len() > 20_000,
            "{name}: {w}px screenshot of {} bytes looks empty",
            bytes.len()
        );
    }
}

/// The checks above can fail: a page with a script error and a remote image is caught.
#[test]
fn the_checks_catch_errors_and_requests() {
    let bad = "<!DOCTYPE html><html><body><p>x</p><img src=\"http://example.invalid/x.png\"><script>console.error(\"boom\"); undefinedFn();</script></body></html>";
    let problems = static_problems(bad);
    assert!(
        problems.iter().any(|p| p.contains("http://"))
            && problems.iter().any(|p| p.contains("<script")),
        "static checks missed a remote image and a script: {problems:?}"
    );
    let Some(chrome) = chromium() else {
        let test = std::thread::current().name().unwrap_or("?").to_string();
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: the Chromium part: no chromium in PATH"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("bad.html");
    std::fs::write(&page, bad).unwrap();
    let out = render(&chrome, &page, &["--dump-dom"]);
    assert!(
        out.console.iter().any(|l| l.contains("boom")),
        "console error not seen: {:?}",
        out.console
    );
    assert!(
        out.console.iter().any(|l| l.contains("undefinedFn")),
        "uncaught error not seen: {:?}",
        out.console
    );
    assert_eq!(out.hosts, ["example.invalid"]);
}
