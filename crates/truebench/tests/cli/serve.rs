//! `truebench serve` as a real process on fixture roots: metric names and values, both
//! formats, 404, and clients that misbehave (half-open, slowloris, too many) not blocking a
//! normal scrape.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub(crate) struct Server {
    child: Child,
    pub addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(root: &Path) -> Server {
    start_with(root, &[])
}

pub(crate) fn start_with(root: &Path, extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_truebench"))
        .args(["serve", "--listen", "127.0.0.1:0", "--root"])
        .arg(root)
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("Serving metrics on http://")
        .and_then(|a| a.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    Server { child, addr }
}

/// One request; (status line, headers, body). A read timeout makes a stuck server fail the
/// test instead of hanging it.
pub(crate) fn get(addr: &str, path: &str, accept: Option<&str>) -> (String, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n");
    if let Some(a) = accept {
        req.push_str(&format!("Accept: {a}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let (head, body) = resp.split_once("\r\n\r\n").unwrap();
    let (status, headers) = head.split_once("\r\n").unwrap_or((head, ""));
    (status.to_string(), headers.to_string(), body.to_string())
}

fn value(body: &str, sample: &str) -> f64 {
    body.lines()
        .find_map(|l| l.strip_prefix(sample).and_then(|v| v.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("no `{sample}` in:\n{body}"))
        .parse()
        .unwrap()
}

#[test]
fn rock5b_metrics_in_both_formats() {
    let root = truebench_fixtures::root("rk3588-rock5b");
    let srv = start(root.path());
    let (status, headers, body) = get(&srv.addr, "/metrics", None);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(headers.contains("text/plain; version=0.0.4"), "{headers}");
    assert_eq!(
        value(&body, "node_cpu_scaling_frequency_hertz{cpu=\"4\"}"),
        2.4e9
    );
    assert_eq!(value(&body, "node_cpu_frequency_hertz{cpu=\"0\"}"), 1.8e9);
    assert_eq!(
        value(
            &body,
            "node_thermal_zone_temp{type=\"soc-thermal\",zone=\"0\"}"
        ),
        40.74
    );
    assert_eq!(value(&body, "node_load1"), 0.31);
    assert_eq!(
        value(&body, "node_memory_SwapTotal_bytes"),
        8048172.0 * 1024.0
    );
    assert_eq!(
        value(
            &body,
            "truebench_soc_temperature_celsius{sensor=\"soc-thermal\"}"
        ),
        40.74
    );
    assert_eq!(
        value(
            &body,
            "truebench_cluster_frequency_hertz{cluster=\"1\",cpus=\"cpu4-cpu5\",core_type=\"Cortex-A76\"}"
        ),
        2.4e9
    );
    assert_eq!(value(&body, "truebench_cpus_online"), 8.0);
    assert!(body.contains("# TYPE truebench_cpufreq_time_in_state_seconds_total counter\n"));
    assert!(body
        .contains("truebench_cpufreq_time_in_state_seconds_total{policy=\"4\",freq_mhz=\"2400\"}"));
    let volts = body
        .lines()
        .find(|l| l.starts_with("node_hwmon_in_volts{"))
        .unwrap_or_else(|| panic!("{body}"));
    assert!(volts.ends_with(" 5"), "{volts}");
    assert!(body.contains("truebench_finding_active{kind=\"throttling\"} 0"));
    assert!(!body.contains("# EOF"));
    // Every sample has HELP and TYPE before it.
    for l in body.lines().filter(|l| !l.starts_with('#')) {
        let name = l.split(['{', ' ']).next().unwrap();
        assert!(
            body.contains(&format!("# TYPE {name} ")),
            "no TYPE for {name}"
        );
    }

    let (status, headers, body) = get(
        &srv.addr,
        "/metrics",
        Some("application/openmetrics-text; version=1.0.0,text/plain;q=0.5"),
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        headers.contains("application/openmetrics-text"),
        "{headers}"
    );
    assert!(body.ends_with("# EOF\n"));
    assert!(body.contains("# TYPE truebench_cpufreq_time_in_state_seconds counter\n"));

    let (status, _, _) = get(&srv.addr, "/", None);
    assert_eq!(status, "HTTP/1.1 404 Not Found");
}

#[test]
fn x86_laptop_throttle_counters() {
    let root = truebench_fixtures::root("x86-intel-laptop");
    let srv = start(root.path());
    let (_, _, body) = get(&srv.addr, "/metrics", None);
    assert!(
        body.contains("# TYPE node_cpu_core_throttles_total counter"),
        "{body}"
    );
    assert!(
        body.contains("node_cpu_core_throttles_total{core=\"0\",package=\"0\"}"),
        "{body}"
    );
    assert!(
        body.contains("node_cpu_package_throttles_total{package=\"0\"}"),
        "{body}"
    );
}

#[test]
fn misbehaving_clients_do_not_block_a_scrape() {
    let root = truebench_fixtures::root("empty");
    let srv = start(root.path());
    // Half-open: connects, never sends.
    let _idle = TcpStream::connect(&srv.addr).unwrap();
    // Slowloris: a request head trickling in, a byte at a time.
    let addr = srv.addr.clone();
    let slow = std::thread::spawn(move || {
        let mut s = TcpStream::connect(&addr).unwrap();
        for b in b"GET /metrics HTTP/1.1\r\nX-Slow: yes" {
            if s.write_all(&[*b]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    // More idle connections than the server keeps: the oldest are dropped for new ones.
    let crowd: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&srv.addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let (status, _, body) = get(&srv.addr, "/metrics", None);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(body.contains("truebench_finding_active"), "{body}");
    drop(crowd);
    slow.join().unwrap();
    // A request head over the size limit is refused, not buffered forever.
    let mut s = TcpStream::connect(&srv.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let big = format!(
        "GET /metrics HTTP/1.1\r\nX-Big: {}\r\n\r\n",
        "a".repeat(20_000)
    );
    let _ = s.write_all(big.as_bytes());
    let mut resp = String::new();
    // The server answers 431 and closes; with part of our request unread, the kernel may
    // turn the close into a reset before we read the answer. Either way it was refused.
    match s.read_to_string(&mut resp) {
        Ok(_) => assert!(resp.starts_with("HTTP/1.1 431"), "{resp}"),
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}"),
    }
}

/// The latest stored result of each kind, next to the live readings: a fleet's Prometheus sees
/// every board's last review and monitored command with their figures and findings.
#[test]
fn latest_stored_results_are_metrics() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("history.sqlite");
    let root = truebench_fixtures::root("rk3588-rock5b");
    let tb = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_truebench"))
            .env("TMPDIR", tmp.path())
            .env("TRUEBENCH_LOCK_DIR", tmp.path())
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    tb(&["review", "--root", root.path().to_str().unwrap()]);
    tb(&[
        "review",
        "--root",
        root.path().to_str().unwrap(),
        "--duration",
        "0.3",
        "--interval",
        "0.1",
    ]);
    let s = start_with(root.path(), &["--db", db.to_str().unwrap()]);
    let (_, _, body) = get(&s.addr, "/metrics", None);
    // The second review (id 2) is the latest of its kind.
    assert_eq!(
        value(&body, "truebench_result_valid{kind=\"review\",id=\"2\"}"),
        1.0
    );
    assert!(
        value(
            &body,
            "truebench_result_timestamp_seconds{kind=\"review\",id=\"2\"}"
        ) > 1.7e9
    );
    let warn = value(
        &body,
        "truebench_result_value{kind=\"review\",id=\"2\",metric=\"settings_to_look_at\",unit=\"\"}",
    );
    assert!(warn >= 2.0, "{warn}");
    // The latest review against the first: the same machine, each figure's change and
    // verdict (the same settings: none beyond the band).
    let change = value(
        &body,
        "truebench_regression{kind=\"review\",id=\"2\",baseline_id=\"1\",metric=\"settings_to_look_at\",verdict=\"none\",band_pct=\"5.0\"}",
    );
    assert_eq!(change, 0.0);
    assert!(
        !body.contains("kind=\"review\",id=\"1\""),
        "only the latest result of a kind"
    );
    let (_, _, om) = get(&s.addr, "/metrics", Some("application/openmetrics-text"));
    assert!(om.contains("# TYPE truebench_result_value gauge") && om.ends_with("# EOF\n"));
    // Without a history there is nothing to add, and nothing is created.
    let none = tmp.path().join("none.sqlite");
    let s2 = start_with(root.path(), &["--db", none.to_str().unwrap()]);
    let (_, _, body) = get(&s2.addr, "/metrics", None);
    assert!(
        !body.contains("truebench_result_"),
        "no history, no result families"
    );
    assert!(!none.exists());
}
