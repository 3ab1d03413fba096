//! `run_memory N SAMPLES [all]`: what a measurement's timeline and result document cost on a
//! generated N-CPU machine (`truebench_fixtures::machine`). A Session samples the machine —
//! with the standard sources a `run` reads (`all`: every source, as `monitor -- CMD` does) —
//! until its timeline holds SAMPLES samples, while a helper thread advances the tree's
//! counters; then the document is made and serialised. Prints the process's peak resident
//! memory before and after, and the document's size in all and per CPU.
//!
//! The sampling interval is 2 ms, not the run's 1 s: the samples are the same, only taken
//! faster (a run of an hour at 1 s is 3,600 samples). Used by bench/run_memory.sh.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use truebench_fixtures::machine::{temp, Spec, Ticker};
use truebench_host::{Host, Inventory};
use truebench_model::MonitorBody;
use truebench_monitor::reader::Sources;
use truebench_suites::session::{EachSample, Finish, Outcome, Session, SessionOptions};

/// This process's peak resident memory so far, KiB, read through `Host` like every other file.
fn peak_kib() -> u64 {
    Host::live().own_peak_kib().unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: run_memory N SAMPLES [all]";
    let parse = |i: usize, what: &str| -> usize {
        match args.get(i).map(|s| s.parse::<usize>()) {
            Some(Ok(v)) if v >= 1 => v,
            _ => {
                eprintln!("run_memory: {what} must be a whole number ≥ 1\n{usage}");
                std::process::exit(2);
            }
        }
    };
    let n = parse(0, "N");
    let samples = parse(1, "SAMPLES");
    let all = match args.get(2).map(String::as_str) {
        None => false,
        Some("all") => true,
        Some(other) => {
            eprintln!("run_memory: the third argument is `all` or nothing, not `{other}`\n{usage}");
            std::process::exit(2);
        }
    };
    let (dir, m) = temp(Spec::preset(n));
    let ticker = Ticker::start(m, Duration::from_millis(20));
    let host = Host::new(dir.path());
    let inv = Inventory::probe(&host);
    let before = peak_kib();
    let taken = Arc::new(AtomicUsize::new(0));
    let count = taken.clone();
    let opts = SessionOptions {
        sample_interval: Duration::from_millis(2),
        sources: if all {
            Sources::ALL
        } else {
            Sources::default()
        },
        each_sample: Some(EachSample(Arc::new(move |_, _| {
            count.fetch_add(1, Ordering::Relaxed);
        }))),
        ..Default::default()
    };
    let mut s = match Session::start(&host, &inv, &opts, Arc::new(AtomicBool::new(false))) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "run_memory: cannot start a session on {}: {e}",
                dir.path().display()
            );
            std::process::exit(1);
        }
    };
    let t0 = std::time::Instant::now();
    let open = s.begin_phase("load", "sampling", None, Vec::new());
    while taken.load(Ordering::Relaxed) < samples {
        std::thread::sleep(Duration::from_millis(20));
    }
    s.end_phase(open, Outcome::default());
    let sampling_s = t0.elapsed().as_secs_f64();
    let body = MonitorBody {
        command: vec!["run_memory".into()],
        exit_code: Some(0),
        signal: None,
        error: None,
        start_failure: None,
        duration_s: sampling_s,
        interval_s: 0.002,
        threads: None,
        clusters: Vec::new(),
        score_ratio: None,
    };
    let doc = s.finish(body, Finish { comparable: true }).into_document();
    let json = serde_json::to_vec(&doc).expect("a document serialises");
    let kept = doc.envelope.timeline.samples.len();
    let after = peak_kib();
    drop(ticker);
    println!(
        "N {n} sources {} samples {kept} sampling_s {sampling_s:.1} peak_before_kib {before} peak_kib {after} document_bytes {} bytes_per_cpu {:.0} bytes_per_sample {:.0}",
        if all { "all" } else { "run" },
        json.len(),
        json.len() as f64 / n as f64,
        json.len() as f64 / kept.max(1) as f64,
    );
}
