//! Cost of one evidence snapshot on this machine (taken before and after every watched run
//! and at phase boundaries): `cargo run --release -p truebench-monitor --example
//! snapshot_cost [ROOT]`. Prints the mean wall time per snapshot with and without the
//! per-process walk, and how many processes were read.

use std::time::Instant;
use truebench_host::{Host, Inventory};
use truebench_monitor::capture::{self, SnapshotOptions};

fn main() {
    let root = std::env::args().nth(1).unwrap_or_else(|| "/".into());
    let host = Host::new(&root);
    let inv = Inventory::probe(&host);
    const N: u32 = 50;
    let t = Instant::now();
    let mut procs = 0;
    for _ in 0..N {
        let s = capture::snapshot(&host, &inv);
        procs = s.processes.map_or(0, |p| p.procs.len());
    }
    let full = t.elapsed() / N;
    let opts = SnapshotOptions {
        skip_processes: true,
        ..Default::default()
    };
    let t = Instant::now();
    for _ in 0..N {
        let _ = capture::snapshot_with(&host, &inv, &opts);
    }
    let light = t.elapsed() / N;
    println!(
        "root {root}: {} CPUs, {procs} processes: {full:?} per snapshot, {light:?} without processes",
        inv.cpus.len()
    );
}
