//! Time `SampleReader::sample_into` alone (no thread, no output) on a root:
//! `cargo run --release -p truebench-monitor --example sample_cost -- [ROOT] [N]`. Used by
//! bench/monitor_cost.sh to split the cost of a monitoring sample into reading and the rest.

use std::time::{Duration, Instant};
use truebench_host::{Host, Inventory};
use truebench_model::timeline::Sample;
use truebench_monitor::freq::FreqReader;
use truebench_monitor::reader::SampleReader;

fn cpu_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

fn main() {
    let mut args = std::env::args().skip(1);
    let root = args.next().unwrap_or_else(|| "/".into());
    let n: u32 = args
        .next()
        .map_or(2000, |a| a.parse().expect("N: a number"));
    let host = Host::new(&root);
    let inv = Inventory::probe(&host);
    let mut r = SampleReader::new(&host, &inv, Duration::from_millis(100));
    let mut s = Sample::default();
    r.sample_into(&mut s);
    let (c0, t0) = (cpu_ns(), Instant::now());
    for _ in 0..n {
        r.sample_into(&mut s);
    }
    let cpu = (cpu_ns() - c0) as f64 / n as f64 / 1e3;
    let wall = t0.elapsed().as_secs_f64() / n as f64 * 1e6;
    // The same with a pause between samples, as in real use: caches are cold each time.
    let k = 50;
    let mut cold = 0u128;
    for _ in 0..k {
        std::thread::sleep(Duration::from_millis(100));
        let c = cpu_ns();
        r.sample_into(&mut s);
        cold += cpu_ns() - c;
    }
    let cold = cold as f64 / k as f64 / 1e3;
    let json = serde_json::to_string(&s).map(|j| j.len()).unwrap_or(0);
    let (c1, _) = (cpu_ns(), ());
    for _ in 0..n {
        let _ = std::hint::black_box(serde_json::to_string(&s));
    }
    let ser = (cpu_ns() - c1) as f64 / n as f64 / 1e3;
    // The governor frequency log reads only scaling_cur_freq per policy.
    let mut f = FreqReader::new(&host, &inv);
    let mut row = vec![None; f.policies().len()];
    let c2 = cpu_ns();
    for _ in 0..n {
        f.read(&mut row);
    }
    let freq = (cpu_ns() - c2) as f64 / n as f64 / 1e3;
    println!(
        "{root}: sample_into {cpu:.1} µs CPU back to back ({wall:.1} µs wall), {cold:.1} µs after a 100 ms pause; JSON of {json} bytes {ser:.1} µs; frequency log tick ({} policies) {freq:.1} µs",
        row.len()
    );
}
