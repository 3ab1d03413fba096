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
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use truebench_model::clocks::{ClockPoint, ClusterClocks, WalkMode};
use truebench_model::{migrate_run, ClocksBody, Document, MonitorBody, RunResult, Typed};
use truebench_render::kinds;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;

fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Some(p) = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        }) {
            return Some(p);
        }
    }
    None
}

/// What Chromium did with a page.
struct Rendered {
    dom: String,
    /// `INFO:CONSOLE` lines of Chromium's log: console messages and uncaught errors.
    console: Vec<String>,
    /// Hosts the page asked for (from the net log), Chromium's own background services left
    /// out.
    hosts: Vec<String>,
}

/// Run Chromium on `page` with every host name mapped to "not found", so any request fails
/// and shows in the net log.
fn render(chrome: &Path, page: &Path, extra: &[&str]) -> Rendered {
    let dir = tempfile::tempdir().unwrap();
    let netlog = dir.path().join("net.json");
    let mut child = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("--log-net-log={}", netlog.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    // Read both pipes on threads so a full pipe cannot stall Chromium.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t1 = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut so, &mut s).ok();
        s
    });
    let t2 = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut se, &mut s).ok();
        s
    });
    let t0 = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if t0.elapsed() > Duration::from_secs(120) {
            child.kill().ok();
            child.wait().ok();
            panic!("chromium did not finish in 120 s on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let dom = t1.join().unwrap();
    let log = t2.join().unwrap();
    let console = log
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    let net = std::fs::read_to_string(&netlog).unwrap_or_default();
    let mut hosts: Vec<String> = Vec::new();
    for scheme in ["\"http://", "\"https://", "\"ws://", "\"wss://"] {
        for (i, _) in net.match_indices(scheme) {
            let rest = &net[i + scheme.len()..];
            let host: String = rest
                .chars()
                .take_while(|c| !matches!(c, '/' | '"' | ':' | ' ' | '?' | '\\'))
                .collect();
            // Chromium's own services (time, update, accounts) and the resolver rule's
            // placeholder, not the page.
            let own = host.ends_with("google.com")
                || host.ends_with("googleapis.com")
                || host.ends_with("gvt1.com")
                || host == "~notfound";
            if !own && !hosts.contains(&host) {
                hosts.push(host);
            }
        }
    }
    Rendered {
        dom,
        console,
        hosts,
    }
}

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
    for (name, r) in pages() {
        let html = kinds::html_page(&r);
        let problems = static_problems(&html);
        assert!(problems.is_empty(), "{name}: {problems:?}");
        let Some(chrome) = &chrome else { continue };
        let page = dir.path().join(format!("{name}.html"));
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
        // A screenshot at desktop and phone width: a real image, not an empty one.
        for (w, h) in [(1280, 3000), (390, 3000)] {
            let png = dir.path().join(format!("{name}-{w}.png"));
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
