//! How long `Inventory::probe` takes on big machines (issue target: a 192-CPU tree well
//! under 100 ms). Run: `cargo bench -p truebench-host --bench probe`.

use std::time::Instant;
use truebench_host::{Host, Inventory};

fn time_probe(label: &str, root: &std::path::Path, runs: usize) {
    let host = Host::new(root);
    // First probe warms the page cache; a cold one is reported separately.
    let t = Instant::now();
    let inv = Inventory::probe(&host);
    let cold = t.elapsed();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(Inventory::probe(&host));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    println!(
        "{label:<28} {:>4} CPUs {:>3} clusters  first {:>7.2} ms  median {:>7.2} ms  min {:>7.2} ms  max {:>7.2} ms  ({runs} runs)",
        inv.cpus.len(),
        inv.clusters.len(),
        cold.as_secs_f64() * 1e3,
        times[runs / 2],
        times[0],
        times[runs - 1]
    );
}

fn main() {
    let big = truebench_fixtures::synthetic_epyc(192);
    time_probe("synthetic EPYC (192 CPUs)", big.path(), 30);
    for name in ["x86_64-epyc_7451", "arm-A510-A710-A715-X3", "x86_64-64cpu"] {
        let d = truebench_fixtures::sysfs_dump(name);
        time_probe(name, &d.path().join(name), 30);
    }
}
