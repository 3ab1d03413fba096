//! Materialise the synthetic many-CPU root (`truebench_fixtures::synthetic_epyc`) in a
//! directory, for bench/monitor_cost.sh and bench/exporter_load.sh:
//! `cargo run --release -p truebench-monitor --example epyc_root -- DIR [CPUS]`.
//!
//! The dump it is built from has no /proc/stat, loadavg or meminfo; plausible ones with a
//! line per CPU are added so the sampler reads files of the size a 192-CPU machine has.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().expect("usage: epyc_root DIR [CPUS]"));
    let n: usize = args
        .next()
        .map_or(192, |a| a.parse().expect("CPUS: a number"));
    let t = truebench_fixtures::synthetic_epyc(n);
    std::fs::create_dir_all(&dir).expect("create DIR");
    truebench_fixtures::copy_tree(t.path(), &dir).expect("copy the root");
    let proc = dir.join("proc");
    std::fs::create_dir_all(&proc).expect("create proc");
    let mut stat = String::new();
    let _ = writeln!(
        stat,
        "cpu  {} 120 {} {} 900 0 3000 0 0 0",
        1000 * n,
        400 * n,
        90000 * n
    );
    for i in 0..n {
        let _ = writeln!(stat, "cpu{i} 1000 1 400 90000 5 0 15 0 0 0");
    }
    // The interrupt line is the long one on a big machine: one counter per IRQ number.
    let irqs: Vec<String> = (0..4096).map(|i| (i % 7 * 13).to_string()).collect();
    let _ = writeln!(stat, "intr 123456789 {}", irqs.join(" "));
    stat.push_str(
        "ctxt 987654321\nbtime 1700000000\nprocesses 123456\nprocs_running 3\nprocs_blocked 0\n",
    );
    std::fs::write(proc.join("stat"), stat).expect("write stat");
    std::fs::write(proc.join("loadavg"), "12.50 11.00 10.00 5/2000 12345\n").expect("loadavg");
    std::fs::write(
        proc.join("meminfo"),
        "MemTotal:       263849072 kB\nMemFree:        200000000 kB\nSwapTotal:       8388604 kB\nSwapFree:        8388604 kB\n",
    )
    .expect("meminfo");
    println!("{}", dir.display());
}
