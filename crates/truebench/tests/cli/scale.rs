//! `info`, `monitor`, `review` and `serve` on generated 192- and 512-CPU machines
//! (`truebench_fixtures::machine`), the counters advancing while they read: each runs, says
//! the right things about the machine, and stays readable — a row or a figure per cluster,
//! not per CPU.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use truebench_fixtures::machine::{self, Machine, Spec, Ticker};

use super::common::truebench;

/// The sizes under test: a 3-cluster little/mid/big ladder and an 8-cluster server.
const SIZES: [usize; 2] = [192, 512];

fn text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ok(out: &std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {:?}\n{}\n{}",
        out.status,
        text(out),
        String::from_utf8_lossy(&out.stderr)
    );
    text(out)
}

/// `Cluster k: cpuA-cpuB (core type)` for each cluster of the spec.
fn cluster_lines(spec: Spec) -> Vec<String> {
    spec.ranges()
        .iter()
        .enumerate()
        .map(|(k, (a, b))| format!("Cluster {k}: cpu{a}-cpu{} ({})", b - 1, spec.core_name(k)))
        .collect()
}

#[test]
fn info_lists_the_clusters_and_folds_the_topology_table() {
    for n in SIZES {
        let spec = Spec::preset(n);
        let (dir, _m) = machine::temp(spec);
        let tmp = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let out = truebench(tmp.path())
            .args(["info", "--root"])
            .arg(dir.path())
            .output()
            .unwrap();
        let t = ok(&out, "info");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{n} CPUs: {:?}",
            started.elapsed()
        );
        for l in cluster_lines(spec) {
            assert!(t.contains(&l), "{n} CPUs: no `{l}` in\n{t}");
        }
        // The topology table: a row per cluster (runs of CPUs alike), not per CPU.
        let table: Vec<&str> = t
            .lines()
            .skip_while(|l| !l.starts_with("CPU sysfs topology"))
            .skip(3)
            .take_while(|l| !l.trim().is_empty())
            .collect();
        assert_eq!(table.len(), spec.clusters, "{n} CPUs:\n{t}");
        let (a, b) = spec.ranges()[spec.clusters - 1];
        let last = format!("{a}-{}", b - 1);
        let row = table[spec.clusters - 1];
        assert!(
            row.trim_start().starts_with(&last) && row.contains(spec.core_name(spec.clusters - 1)),
            "{n} CPUs: {table:?}"
        );
        assert!(
            t.lines().count() < 80,
            "{n} CPUs: {} lines\n{t}",
            t.lines().count()
        );
        // Every CPU is in the JSON inventory, in its cluster.
        let out = truebench(tmp.path())
            .args(["info", "--json", "--root"])
            .arg(dir.path())
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&ok(&out, "info --json")).unwrap();
        let inv = if v["cpus"].is_array() {
            &v
        } else {
            &v["inventory"]
        };
        let cpus = inv["cpus"].as_array().unwrap_or_else(|| panic!("{v}"));
        assert_eq!(cpus.len(), n);
        assert_eq!(cpus[n - 1]["cluster"], spec.clusters - 1);
        assert_eq!(inv["clusters"].as_array().unwrap().len(), spec.clusters);
    }
}

/// `monitor -- sleep 3` at 0.4 s while a thread rewrites the tree every 100 ms.
fn monitor_while_advancing(m: Machine) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let root = m.root.clone();
    let tick = Ticker::start(m, Duration::from_millis(100));
    let out = truebench(tmp.path())
        .args(["monitor", "--no-store", "--interval", "0.4", "--root"])
        .arg(&root)
        .args(["--", "sleep", "3"])
        .output()
        .unwrap();
    tick.stop();
    ok(&out, "monitor")
}

#[test]
fn monitor_prints_a_line_per_sample_with_a_clock_per_cluster() {
    for n in SIZES {
        let spec = Spec::preset(n);
        let (_dir, m) = machine::temp(spec);
        let t = monitor_while_advancing(m);
        // The header names each cluster's first CPU once: cpu0/cpu64/cpu128.
        let firsts: Vec<String> = spec
            .ranges()
            .iter()
            .map(|(a, _)| format!("cpu{a}"))
            .collect();
        let head = t
            .lines()
            .find(|l| l.starts_with("Time "))
            .unwrap_or_else(|| panic!("{n} CPUs: no sample header in\n{t}"));
        assert!(head.contains(&firsts.join("/")), "{head}");
        let samples: Vec<&str> = t
            .lines()
            .filter(|l| l.len() > 9 && l.as_bytes()[2] == b':' && l[..9].ends_with(':'))
            .collect();
        // The session's sampler runs at nice 19 (as sbc-bench renices its monitor): on a
        // machine busy with other work at nice 0 (the suite's other tests) a 512-CPU tick of
        // the debug build can wait seconds for a CPU, so the count of samples in 3 s is not
        // fixed: asked for, one due at 0.4 s of the command's 3 and the closing one after it.
        assert!(samples.len() >= 2, "{n} CPUs:\n{t}");
        let mut blank = 0;
        for s in &samples {
            // One readable line: a clock per cluster, the CPU shares of the whole machine.
            assert!(s.len() < 140, "{s}");
            let clocks = s.split_whitespace().nth(1).unwrap();
            let clocks = clocks.strip_suffix("MHz").unwrap_or_else(|| panic!("{s}"));
            assert_eq!(clocks.split('/').count(), spec.clusters, "{s}");
            // The generated CPUs are busy 5..95 %, 50 % on average: the tree advanced. A
            // sample taken before the next rewrite (the last one, taken when the command ends,
            // or any on a machine busy enough to delay the rewriting thread) sees no time pass
            // in /proc/stat: the shares unknown (blank), never a made-up figure.
            let cpu = s.split_whitespace().nth(3).unwrap().trim_end_matches('%');
            if cpu.is_empty() {
                blank += 1;
                continue;
            }
            let cpu: f64 = cpu.parse().unwrap_or_else(|e| panic!("{e}: {s}\n{t}"));
            assert!((40.0..=60.0).contains(&cpu), "{s}");
        }
        assert!(
            samples.len() - blank >= 1,
            "{n} CPUs: {blank} blank of {}\n{t}",
            samples.len()
        );
        assert!(
            t.lines().count() < 200,
            "{n} CPUs: {} lines\n{t}",
            t.lines().count()
        );
    }
}

#[test]
fn review_folds_per_cpu_settings_into_ranges() {
    for n in SIZES {
        let spec = Spec::preset(n);
        let (dir, _m) = machine::temp(spec);
        let tmp = tempfile::tempdir().unwrap();
        let out = truebench(tmp.path())
            .args(["review", "--root"])
            .arg(dir.path())
            .output()
            .unwrap();
        let t = ok(&out, "review");
        for (a, b) in spec.ranges() {
            let policy = format!("policy{a} (cpu{a}-cpu{})", b - 1);
            assert!(t.contains(&policy), "{n} CPUs: no `{policy}` in\n{t}");
        }
        // Idle states: one line per state for all CPUs, not one per CPU.
        assert!(
            t.contains(&format!("cpu0-{} state2 cluster-sleep", n - 1)),
            "{t}"
        );
        assert!(!t.contains(&format!("cpu{} ", n - 1)), "{t}");
        assert!(t.lines().count() < 20 + 2 * spec.clusters, "{n} CPUs:\n{t}");
        assert!(t.lines().all(|l| l.len() < 160), "{t}");
    }
}

struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn get(addr: &str, accept: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nAccept: {accept}\r\n\r\n"
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let (head, body) = resp.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_string()
}

fn sample(body: &str, name: &str) -> f64 {
    body.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no `{name}`"))
        .parse()
        .unwrap()
}

#[test]
fn serve_exposes_every_cpu_and_stays_valid() {
    for n in SIZES {
        let spec = Spec::preset(n);
        let (dir, m) = machine::temp(spec);
        let tick = Ticker::start(m, Duration::from_millis(100));
        let mut child = Command::new(super::common::BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--root"])
            .arg(dir.path())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let srv = Server(child);
        let addr = line
            .trim()
            .strip_prefix("Serving metrics on http://")
            .and_then(|a| a.strip_suffix("/metrics"))
            .unwrap_or_else(|| panic!("{line}"))
            .to_string();
        let first = get(&addr, "text/plain");
        std::thread::sleep(Duration::from_millis(1200));
        let started = Instant::now();
        let second = get(&addr, "text/plain");
        // A scrape that does not wait on anything (its cost is bench/exporter_load.sh's); the
        // bound is wide for the debug build beside the suite's other tests.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{n} CPUs: {:?}",
            started.elapsed()
        );
        // Per-CPU families for every CPU, the counters moving with the tree.
        for family in [
            "node_cpu_seconds_total{cpu=\"CPU\",mode=\"idle\"}",
            "node_cpu_scaling_frequency_hertz{cpu=\"CPU\"}",
            "node_cpu_frequency_max_hertz{cpu=\"CPU\"}",
        ] {
            let each = (0..n)
                .filter(|i| second.contains(&format!("{} ", family.replace("CPU", &i.to_string()))))
                .count();
            assert_eq!(each, n, "{family}");
        }
        let idle = format!("node_cpu_seconds_total{{cpu=\"{}\",mode=\"idle\"}}", n - 1);
        assert!(sample(&second, &idle) > sample(&first, &idle), "{idle}");
        assert_eq!(sample(&second, "truebench_cpus_online"), n as f64);
        assert_eq!(
            second.matches("truebench_cluster_frequency_hertz{").count(),
            spec.clusters
        );
        promtool(&second, n);
        let om = get(&addr, "application/openmetrics-text; version=1.0.0");
        assert!(om.ends_with("# EOF\n"));
        assert_eq!(om.matches("# EOF").count(), 1);
        drop(srv);
        tick.stop();
    }
}

/// `promtool check metrics` of a scrape of the `n`-CPU tree.
fn promtool(text: &str, n: usize) {
    truebench_fixtures::farm::promtool_check(text, &format!("{n} CPUs"));
}
