//! `truebench net`: real TCP transfers on loopback, between two network namespaces joined by
//! a veth pair the test creates and removes, and against an iperf3 server; the result kind in
//! report and compare; Ctrl-C keeps a partial result.

use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::{json, measured, truebench, BIN};

fn rows(doc: &Value) -> &Vec<Value> {
    doc["body"]["rows"].as_array().unwrap()
}

/// Every row completed with figures in the directions its test uses, and per-core loads.
fn check_rows(doc: &Value, tests: &[&str]) {
    let r = rows(doc);
    let got: Vec<&str> = r.iter().map(|x| x["test"].as_str().unwrap()).collect();
    assert_eq!(got, tests, "{doc}");
    for x in r {
        assert_eq!(x["status"], "ok", "{x}");
        let sent = x["sent_mbit_s"].as_f64();
        let recv = x["received_mbit_s"].as_f64();
        match x["test"].as_str().unwrap() {
            "upload" => assert!(sent.unwrap() > 1.0 && recv.is_none(), "{x}"),
            "download" => assert!(recv.unwrap() > 1.0 && sent.is_none(), "{x}"),
            _ => assert!(sent.unwrap() > 1.0 && recv.unwrap() > 1.0, "{x}"),
        }
        let cores = x["cores"].as_array().unwrap();
        assert!(!cores.is_empty(), "{x}");
        for c in cores {
            let (busy, soft, proc_) = (
                c["busy_pct"].as_f64().unwrap(),
                c["softirq_pct"].as_f64().unwrap(),
                c["process_pct"].as_f64().unwrap(),
            );
            assert!((0.0..=100.0 + 1e-9).contains(&busy), "{c}");
            assert!((busy - soft - proc_).abs() < 1e-6, "{c}");
        }
    }
}

#[test]
fn loopback_runs_every_test_and_reports_and_compares() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args([
            "net",
            "--loopback",
            "--duration",
            "0.6",
            "--repeat",
            "2",
            "--json",
        ])
        .args(["--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    assert_eq!(doc["kind"], "net");
    assert_eq!(doc["body"]["peer_kind"], "truebench (in-process)");
    // The second repeat runs the tests in the opposite order.
    check_rows(
        &doc,
        &[
            "upload", "download", "duplex", "duplex", "download", "upload",
        ],
    );
    let phases: Vec<&str> = doc["envelope"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(phases[0], "net-upload-1");
    assert_eq!(phases.len(), 6);
    // TCP is kernel work: no "the kernel was busy" finding for the transfer's own %sys.
    let kinds: Vec<&str> = doc["envelope"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(!kinds.contains(&"system_activity"), "{kinds:?}");
    let tests = doc["body"]["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    assert!(tests
        .iter()
        .all(|t| t["runs"] == 2 && t["median_mbit_s"].as_f64().unwrap() > 1.0));

    let result = tmp.path().join("net.json");
    std::fs::write(&result, &out.stdout).unwrap();
    let html = tmp.path().join("net.html");
    let r = Command::new(BIN)
        .arg("report")
        .arg(&result)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("TCP throughput") && page.contains("duplex"));
    let c = Command::new(BIN)
        .arg("compare")
        .arg(&result)
        .arg(&result)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&c.stdout);
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert!(text.contains("duplex: throughput (Mbit/s)"), "{text}");
}

#[test]
fn the_history_keeps_net_results() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args(["net", "--loopback", "--duration", "0.5", "--repeat", "1"])
        .args(["--tests", "upload"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Per test") && text.contains("upload"),
        "{text}"
    );
    let h = truebench(tmp.path())
        .args(["history", "--kind", "net"])
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&h.stdout);
    assert!(h.status.success(), "{}", String::from_utf8_lossy(&h.stderr));
    assert!(list.contains("net"), "{list}");
}

#[test]
fn zero_copy_is_asked_for_and_said() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args([
            "net",
            "--loopback",
            "--zerocopy",
            "--duration",
            "0.5",
            "--repeat",
            "1",
        ])
        .args(["--tests", "upload,duplex", "--json", "--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    assert_eq!(doc["body"]["zerocopy"], true);
    check_rows(&doc, &["upload", "duplex"]);
    let text = String::from_utf8_lossy(
        &truebench(tmp.path())
            .args([
                "net",
                "--loopback",
                "--zerocopy",
                "--duration",
                "0.5",
                "--repeat",
                "1",
            ])
            .args(["--tests", "upload", "--no-store"])
            .output()
            .unwrap()
            .stdout,
    )
    .into_owned();
    assert!(text.contains("sent by sendfile (zero-copy)"), "{text}");
}

/// Network namespaces joined by a veth pair, removed on drop (also when the test fails).
struct Namespaces {
    names: [String; 2],
}

impl Namespaces {
    fn create(tag: &str) -> Result<Namespaces, String> {
        let names = [format!("tbn{tag}a"), format!("tbn{tag}b")];
        let ns = Namespaces {
            names: names.clone(),
        };
        let ip = |args: &[&str]| -> Result<(), String> {
            let o = Command::new("ip")
                .args(args)
                .output()
                .map_err(|e| e.to_string())?;
            if o.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "ip {}: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&o.stderr).trim()
                ))
            }
        };
        let (a, b) = (&names[0], &names[1]);
        ip(&["netns", "add", a])?;
        ip(&["netns", "add", b])?;
        let (va, vb) = (format!("{a}v"), format!("{b}v"));
        ip(&["link", "add", &va, "type", "veth", "peer", "name", &vb])?;
        ip(&["link", "set", &va, "netns", a])?;
        ip(&["link", "set", &vb, "netns", b])?;
        ip(&["-n", a, "addr", "add", "10.203.0.1/30", "dev", &va])?;
        ip(&["-n", b, "addr", "add", "10.203.0.2/30", "dev", &vb])?;
        for (n, v) in [(a, &va), (b, &vb)] {
            ip(&["-n", n, "link", "set", v, "up"])?;
            ip(&["-n", n, "link", "set", "lo", "up"])?;
        }
        Ok(ns)
    }

    fn exec(&self, i: usize) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.names[i]]);
        c
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        // Deleting a namespace removes its end of the veth pair, and so the pair.
        for n in &self.names {
            let _ = Command::new("ip").args(["netns", "delete", n]).status();
        }
    }
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for_port(ns: &Namespaces, i: usize, port: u16) {
    let t0 = Instant::now();
    loop {
        let o = ns
            .exec(i)
            .args(["ss", "-ltnH", &format!("sport = :{port}")])
            .output()
            .unwrap();
        if !String::from_utf8_lossy(&o.stdout).trim().is_empty() {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "no server on port {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn between_two_namespaces_over_veth() {
    let tmp = tempfile::tempdir().unwrap();
    let ns = match Namespaces::create(&format!("{}", std::process::id() % 100_000)) {
        Ok(ns) => ns,
        Err(e) => truebench_fixtures::skip!(
            "cannot create network namespaces (needs root and iproute2): {e}"
        ),
    };
    let server = Killed(
        ns.exec(1)
            .arg(BIN)
            .args(["net", "--server", "--listen", "10.203.0.2:5202"])
            .env("TMPDIR", tmp.path())
            .env("TRUEBENCH_LOCK_DIR", tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for_port(&ns, 1, 5202);
    let lock = tmp.path().join("lock");
    std::fs::create_dir_all(&lock).unwrap();
    let out = ns
        .exec(0)
        .arg(BIN)
        .args([
            "net",
            "--connect",
            "10.203.0.2",
            "--duration",
            "0.6",
            "--repeat",
            "1",
        ])
        .args(["--parallel", "2", "--json", "--no-store"])
        .env("TMPDIR", &lock)
        .env("TRUEBENCH_LOCK_DIR", &lock)
        .output()
        .unwrap();
    drop(server);
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    assert_eq!(doc["body"]["peer"], "10.203.0.2:5202");
    assert_eq!(doc["body"]["streams"], 2);
    check_rows(&doc, &["upload", "download", "duplex"]);
    // The veth pair carried it: the sampler saw the interface.
    let nets = doc["envelope"]["timeline"]["extra_header"]["net"].to_string();
    assert!(nets.contains(&format!("{}v", ns.names[0])), "{nets}");
}

/// Start `truebench net --server` through `launcher` (`env`, or `ip netns exec NS`: both exec
/// the binary under their own pid) and wait until it says it serves: the server and its pid.
fn start_server(mut launcher: Command, tmp: &Path, listen: &str) -> (Killed, u32) {
    let mut child = launcher
        .arg(BIN)
        .args(["net", "--server", "--listen", listen])
        .env("TMPDIR", tmp)
        .env("TRUEBENCH_LOCK_DIR", tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let stderr = child.stderr.take().unwrap();
    let server = Killed(child);
    let mut said = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stderr), &mut said).unwrap();
    assert!(said.contains("serving"), "the server said: {said:?}");
    (server, pid)
}

/// A `net --connect` result against a server on this machine: the server's CPU time is the
/// measurement's, said in the notes; no background finding names it. Other processes of this
/// shared machine may be busy: only a critical finding of their own makes it invalid (exit 3).
fn the_server_is_not_background(out: &std::process::Output, server: u32) {
    assert!(measured(out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(out);
    check_rows(&doc, &["upload"]);
    let notes = doc["envelope"]["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "the server, pid {server} on this machine, is part of the measurement"
        )),
        "{notes}"
    );
    let findings = doc["envelope"]["findings"].as_array().unwrap();
    let named = format!("(pid {server})");
    for f in findings {
        if f["kind"] == "background_activity" {
            assert!(
                !f.to_string().contains(&named),
                "the server is named: {f:#}"
            );
        }
    }
    if out.status.code() == Some(3) {
        assert!(
            findings.iter().any(|f| f["severity"] == "critical"),
            "invalid without a critical finding: {findings:#?}"
        );
    } else {
        assert_eq!(doc["envelope"]["valid"], true);
    }
}

#[test]
fn a_server_on_this_machine_is_part_of_the_measurement() {
    let tmp = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let (server, pid) = start_server(Command::new("env"), tmp.path(), &addr);
    let out = truebench(tmp.path())
        .args(["net", "--connect", &addr, "--tests", "upload"])
        .args(["--duration", "1", "--repeat", "1", "--json", "--no-store"])
        .output()
        .unwrap();
    drop(server);
    the_server_is_not_background(&out, pid);
}

/// The same with the server in another network namespace of this machine (its pids are
/// this one's).
#[test]
fn a_server_in_another_namespace_of_this_machine_is_part_of_the_measurement() {
    let tmp = tempfile::tempdir().unwrap();
    let ns = match Namespaces::create(&format!("p{}", std::process::id() % 10_000)) {
        Ok(ns) => ns,
        Err(e) => truebench_fixtures::skip!(
            "cannot create network namespaces (needs root and iproute2): {e}"
        ),
    };
    let (server, pid) = start_server(ns.exec(1), tmp.path(), "10.203.0.2:5202");
    let lock = tmp.path().join("lock");
    std::fs::create_dir_all(&lock).unwrap();
    let out = ns
        .exec(0)
        .arg(BIN)
        .args(["net", "--connect", "10.203.0.2", "--tests", "upload"])
        .args(["--duration", "1", "--repeat", "1", "--json", "--no-store"])
        .env("TMPDIR", &lock)
        .env("TRUEBENCH_LOCK_DIR", &lock)
        .output()
        .unwrap();
    drop(server);
    the_server_is_not_background(&out, pid);
}

#[test]
fn against_an_iperf3_server() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(iperf3) = truebench_workloads::tool::find_tool(&["iperf3"]) else {
        truebench_fixtures::skip!("iperf3 is not installed");
    };
    // A free port for the server.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _server = Killed(
        Command::new(&iperf3)
            .args(["-s", "-B", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Wait for its listening socket without connecting: iperf3 would take a probe
    // connection for a test.
    let t0 = Instant::now();
    let listen = format!("0100007F:{port:04X} 00000000:0000 0A");
    while !std::fs::read_to_string("/proc/net/tcp")
        .unwrap()
        .contains(&listen)
    {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "iperf3 did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = truebench(tmp.path())
        .args(["net", "--iperf3", "--connect", &format!("127.0.0.1:{port}")])
        .args(["--duration", "1", "--repeat", "1", "--json", "--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    assert_eq!(doc["body"]["peer_kind"], "iperf3");
    check_rows(&doc, &["upload", "download", "duplex"]);
    let raw = doc["envelope"]["phases"][0]["raw"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        raw.contains("-J") && raw.contains(&port.to_string()),
        "{raw}"
    );
}

#[test]
fn nobody_listening_fails_the_test_with_the_address() {
    let tmp = tempfile::tempdir().unwrap();
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = truebench(tmp.path())
        .args(["net", "--connect", &free.to_string(), "--tests", "upload"])
        .args(["--duration", "0.5", "--repeat", "1", "--json", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json(&out);
    let r = &rows(&doc)[0];
    assert_eq!(r["status"], "failed");
    let why = r["reason"].as_str().unwrap();
    assert!(
        why.contains(&free.to_string()) && why.contains("cannot connect"),
        "{why}"
    );
    // Bad values are named.
    for (args, what) in [
        (
            vec!["--loopback", "--tests", "sideways"],
            "--tests sideways",
        ),
        (vec!["--loopback", "--duration", "0"], "--duration 0"),
        (vec!["--connect", "h:port"], "--connect h:port"),
    ] {
        let o = truebench(tmp.path())
            .arg("net")
            .args(&args)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(what), "{args:?}: {e}");
    }
}

#[test]
fn ctrl_c_keeps_the_tests_that_completed() {
    let tmp = tempfile::tempdir().unwrap();
    let child = truebench(tmp.path())
        .args([
            "net",
            "--loopback",
            "--tests",
            "upload,download",
            "--repeat",
            "1",
        ])
        .args(["--duration", "30", "--json", "--no-store"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    crate::common::signal("-INT", child.id());
    let t0 = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(
        t0.elapsed() < Duration::from_secs(15),
        "Ctrl-C did not stop the transfer"
    );
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json(&out);
    assert_eq!(doc["envelope"]["complete"], false);
    let r = rows(&doc);
    assert_eq!(r.len(), 1, "the second test never started");
    assert_eq!(r[0]["status"], "interrupted");
    assert!(
        r[0]["sent_mbit_s"].is_null(),
        "a cut-short transfer is no figure"
    );
}

fn governors_of(root: &Path) -> Vec<String> {
    [0, 4, 6]
        .iter()
        .map(|p| {
            std::fs::read_to_string(root.join(format!(
                "sys/devices/system/cpu/cpufreq/policy{p}/scaling_governor"
            )))
            .unwrap()
            .trim()
            .to_string()
        })
        .collect()
}

/// The sweep on a recorded ROCK 5B: Tuning writes each setting into the fixture tree while
/// the transfers really run here, and puts everything back.
#[test]
fn the_sweep_switches_settings_on_a_fixture_root_and_restores_them() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = governors_of(root.path());
    let out = truebench(tmp.path())
        .arg("net")
        .arg("--root")
        .arg(root.path())
        .args(["--loopback", "--tests", "upload", "--repeat", "1"])
        .args([
            "--duration",
            "0.5",
            "--sweep",
            "max,governor:schedutil,opps",
        ])
        .args(["--json", "--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    let settings: Vec<&str> = doc["body"]["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(&settings[..3], ["as is", "max", "governor:schedutil"]);
    assert!(
        settings[3..].iter().all(|s| s.starts_with("opp:")),
        "{settings:?}"
    );
    assert!(
        settings.len() > 4,
        "every OPP of cpu0's cluster: {settings:?}"
    );
    let r = rows(&doc);
    assert_eq!(r.len(), settings.len());
    assert!(r.iter().all(|x| x["status"] == "ok"), "{r:?}");
    // Every write went through Tuning, into the fixture tree, and came back.
    let changes = doc["envelope"]["tuning"]["changes"].as_array().unwrap();
    let wrote = |path: &str, value: &str| {
        changes
            .iter()
            .any(|c| c["path"].as_str().unwrap().ends_with(path) && c["value"] == value)
    };
    assert!(
        wrote("policy0/scaling_governor", "performance"),
        "{changes:?}"
    );
    assert!(
        wrote("policy6/scaling_governor", "schedutil"),
        "{changes:?}"
    );
    assert!(
        wrote("policy0/scaling_governor", "userspace"),
        "{changes:?}"
    );
    assert!(wrote("policy0/scaling_setspeed", "408000"), "{changes:?}");
    assert!(changes.iter().all(|c| c["error"].is_null()), "{changes:?}");
    assert_eq!(
        doc["envelope"]["tuning"]["restore_failed"],
        serde_json::json!([])
    );
    assert_eq!(governors_of(root.path()), before);
    // The phases carry the setting in their names.
    let phases = doc["envelope"]["phases"].to_string();
    assert!(phases.contains("net-max-upload-1"), "{phases}");
    // The page sets the throughput against the setting.
    let result = tmp.path().join("sweep.json");
    std::fs::write(&result, &out.stdout).unwrap();
    let html = tmp.path().join("sweep.html");
    let r = Command::new(BIN)
        .arg("report")
        .arg(&result)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("upload: Mbit/s per setting"), "no chart");
    assert!(page.contains("governor:schedutil"));
}

#[test]
fn without_cpufreq_a_sweep_is_refused_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let o = truebench(tmp.path())
        .arg("net")
        .arg("--root")
        .arg(empty.path())
        .args(["--loopback", "--sweep", "max"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--sweep max") && e.contains("no cpufreq"), "{e}");
}

#[test]
fn ctrl_c_during_the_sweep_restores_the_governors() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = governors_of(root.path());
    let child = truebench(tmp.path())
        .arg("net")
        .arg("--root")
        .arg(root.path())
        .args(["--loopback", "--tests", "upload", "--repeat", "1"])
        .args([
            "--duration",
            "2",
            "--sweep",
            "max,min",
            "--json",
            "--no-store",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the sweep has switched to performance (the second setting).
    let t0 = Instant::now();
    while governors_of(root.path())[0] != "performance" {
        assert!(t0.elapsed() < Duration::from_secs(30), "never switched");
        std::thread::sleep(Duration::from_millis(20));
    }
    crate::common::signal("-INT", child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(governors_of(root.path()), before);
    let doc = json(&out);
    assert_eq!(doc["envelope"]["complete"], false);
}
