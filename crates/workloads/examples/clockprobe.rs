//! Print one clock measurement per line: `clockprobe [CPU] [COUNT]` (experiments; the bench
//! script uses `truebench clocks --bench-probe`).
use truebench_host::Host;
use truebench_workloads::clock::{allowed_cpus, measure, ClockOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let cpu = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| allowed_cpus()[0]);
    let count: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let host = Host::live();
    for _ in 0..count {
        match measure(&host, cpu, &ClockOptions::default()) {
            Ok(m) => println!(
                "cpu{} {} effective={:.1} trials={} rejected={} steal_ms={:?} delay_ms={:?} rt={} n={} {:.1}ms",
                m.cpu,
                m.sbc_bench_text(),
                m.effective_mhz,
                m.trials,
                m.rejected,
                m.steal_ms,
                m.run_delay_ms,
                m.realtime,
                m.iterations,
                m.duration_ms
            ),
            Err(e) => println!("error: {e}"),
        }
    }
}
