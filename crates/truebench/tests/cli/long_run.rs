//! The long-running commands stay flat: `serve` under steady scrapes and 200 clients sending
//! one byte per second, `monitor --interval 0.1` and `review -R` sampling every 10 ms (on the
//! recorded ROCK 5B root), side by side for half a minute; after the first 10 s each one's own
//! memory (`RssAnon`: what it allocated, not the binary's pages the kernel may drop and read
//! back) stays within 1 MiB and its threads and descriptors — but the sockets of the server's
//! clients, which come and go with them and stay bounded — do not change. `review -R` keeps
//! its timeline: asked for 100 samples a second, it fills what a session keeps in memory (192
//! samples, at most 384 KiB) in about 2 s and takes some 2,000 more while it is watched. With
//! the in-memory bound lifted (tried by hand), its memory grew 2 MiB in those 20 s and this
//! test failed.
//! (`bench/long_run.sh` runs the hour-long version.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::truebench;

const RUN: Duration = Duration::from_secs(30);
const WARMUP: Duration = Duration::from_secs(10);

/// (anonymous RSS KiB, descriptors other than sockets, threads, sockets) of `pid`: a server's
/// sockets come and go with its clients, the rest must not change.
fn reading(pid: u32) -> Option<(u64, usize, u64, usize)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        let l = status.lines().find(|l| l.starts_with(name))?;
        l.split_whitespace().nth(1)?.parse().ok()
    };
    let (mut files, mut sockets) = (0, 0);
    for e in std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.flatten() {
        match std::fs::read_link(e.path()) {
            Ok(t) if t.to_string_lossy().starts_with("socket:") => sockets += 1,
            Ok(_) => files += 1,
            // Closed between the listing and the link: gone, not a file (a client's socket;
            // counting it as a file once made serve's descriptors 82, then 83).
            Err(_) => {}
        }
    }
    Some((field("RssAnon:")?, files, field("Threads:")?, sockets))
}

/// Scrapes `port` about `per_s` times a second until `stop`; counts the answers.
fn scrapes(port: u16, per_s: u64, stop: Arc<AtomicBool>, ok: Arc<AtomicU64>) {
    let gap = Duration::from_micros(1_000_000 / per_s);
    while !stop.load(Ordering::Relaxed) {
        let t0 = Instant::now();
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = s.write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            let mut head = [0u8; 12];
            if s.read_exact(&mut head).is_ok() && &head == b"HTTP/1.1 200" {
                ok.fetch_add(1, Ordering::Relaxed);
                let _ = std::io::copy(&mut s, &mut std::io::sink());
            }
        }
        std::thread::sleep(gap.saturating_sub(t0.elapsed()));
    }
}

/// `n` clients sending a request one byte per second, reconnecting when cut, until `stop`.
fn slow_clients(port: u16, n: usize, stop: Arc<AtomicBool>) {
    let req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let mut conns: Vec<(Option<TcpStream>, usize)> = (0..n).map(|_| (None, 0)).collect();
    while !stop.load(Ordering::Relaxed) {
        for (c, at) in conns.iter_mut() {
            if c.is_none() {
                *c = TcpStream::connect(("127.0.0.1", port)).ok();
                *at = 0;
            }
            let sent = c
                .as_mut()
                .is_some_and(|s| s.write_all(&req[*at..*at + 1]).is_ok());
            *at += 1;
            if !sent || *at == req.len() {
                *c = None;
            }
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

fn spawn(args: &[&str], tmp: &std::path::Path) -> Child {
    truebench(tmp)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn serve_monitor_and_review_stay_flat_for_half_a_minute() {
    let tmp = tempfile::tempdir().unwrap();
    let board = truebench_fixtures::root("rk3588-rock5b");
    let root = board.path().to_str().unwrap();
    let mut serve = spawn(
        &["serve", "--listen", "127.0.0.1:0", "--root", root],
        tmp.path(),
    );
    let mut line = String::new();
    let mut out = serve.stdout.take().unwrap();
    let mut byte = [0u8; 1];
    while !line.ends_with('\n') && out.read(&mut byte).unwrap_or(0) == 1 {
        line.push(byte[0] as char);
    }
    let port: u16 = line
        .rsplit(':')
        .next()
        .and_then(|p| p.trim().trim_end_matches("/metrics").parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    let monitor = spawn(
        &["monitor", "--interval", "0.1", "--root", root],
        tmp.path(),
    );
    let review = spawn(
        &[
            "review",
            "-R",
            "--interval",
            "0.01",
            "--duration",
            "45",
            "--root",
            root,
            "--no-store",
        ],
        tmp.path(),
    );
    // Their output is read (and dropped) so that no pipe fills.
    let mut kids = [("serve", serve), ("monitor", monitor), ("review", review)];
    for (_, k) in kids.iter_mut() {
        if let Some(mut o) = k.stdout.take() {
            std::thread::spawn(move || std::io::copy(&mut o, &mut std::io::sink()));
        }
    }
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let stop = Arc::new(AtomicBool::new(false));
    let ok = Arc::new(AtomicU64::new(0));
    let load = [
        std::thread::spawn({
            let (s, o) = (stop.clone(), ok.clone());
            move || scrapes(port, 100, s, o)
        }),
        std::thread::spawn({
            let s = stop.clone();
            move || slow_clients(port, 200, s)
        }),
    ];
    let t0 = Instant::now();
    let mut rows: Vec<Vec<(u64, usize, u64, usize)>> = vec![Vec::new(); kids.len()];
    while t0.elapsed() < RUN {
        std::thread::sleep(Duration::from_secs(2));
        for (i, (name, k)) in kids.iter().enumerate() {
            let r = reading(k.id()).unwrap_or_else(|| panic!("{name} ended early"));
            if t0.elapsed() >= WARMUP {
                rows[i].push(r);
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for l in load {
        l.join().unwrap();
    }
    let mut problems = Vec::new();
    for ((name, k), rows) in kids.iter_mut().zip(&rows) {
        let _ = std::process::Command::new("kill")
            .args(["-INT", &k.id().to_string()])
            .status();
        let _ = k.wait();
        let rss: Vec<u64> = rows.iter().map(|r| r.0).collect();
        let (lo, hi) = (rss.iter().min().unwrap(), rss.iter().max().unwrap());
        let fds: std::collections::BTreeSet<usize> = rows.iter().map(|r| r.1).collect();
        let threads: std::collections::BTreeSet<u64> = rows.iter().map(|r| r.2).collect();
        let sockets = rows.iter().map(|r| r.3).max().unwrap_or(0);
        println!("{name}: anonymous RSS {lo}–{hi} KiB, descriptors {fds:?} and at most {sockets} sockets, threads {threads:?}");
        // The listener, 200 slow clients and the scrapes in flight.
        if hi - lo > 1024 || fds.len() > 1 || threads.len() > 1 || sockets > 220 {
            problems.push(format!(
                "{name} grew: anonymous RSS {lo}–{hi} KiB, descriptors {fds:?}, threads {threads:?}"
            ));
        }
    }
    let answered = ok.load(Ordering::Relaxed);
    println!("serve answered {answered} scrapes in {} s", RUN.as_secs());
    assert!(answered > 1000, "serve answered only {answered} scrapes");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
