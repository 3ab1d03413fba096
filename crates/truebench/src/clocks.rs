//! `truebench clocks`: measured vs advertised clock for every OPP of every cluster.

use crate::frame::{MeasureArgs, Show};
use std::time::Duration;
use truebench_suites::clocks::{ClocksOptions, KernelProbe};
use truebench_suites::clocks_session;
use truebench_workloads::clock::{self as kernel, ClockOptions};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct ClocksArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Skip OPPs above K kHz (sbc-bench's MaxKHz).
    #[arg(long, value_name = "K", env = "MaxKHz")]
    pub max_khz: Option<u64>,
    /// Skip OPPs below K kHz (sbc-bench's MinKHz).
    #[arg(long, value_name = "K", env = "MinKHz")]
    pub min_khz: Option<u64>,
    /// Also measure every CPU at once, idle and after --load-secs of load on all CPUs
    /// (sbc-bench's extensive mode).
    #[arg(long)]
    pub all_cores: bool,
    /// Seconds of load before the under-load measurement of --all-cores (0 to 86400).
    #[arg(long, value_name = "S", default_value_t = 5.0, value_parser = crate::values::HOLD)]
    pub load_secs: f64,
    /// Measure one CPU once and print one `key=value` line (for bench/clock_vs_7zip.sh). Not
    /// a measurement of the machine: no lock, no evidence, nothing stored.
    #[arg(long, hide = true)]
    pub bench_probe: bool,
    /// CPU for --bench-probe (default: the first this process may run on).
    #[arg(long, hide = true, value_name = "N")]
    pub cpu: Option<u32>,
    /// Long-loop duration for --bench-probe in µs (default 40): longer windows collect more
    /// interrupts, which is how plain timed loops lose clock.
    #[arg(long, hide = true, value_name = "US")]
    pub trial_us: Option<u64>,
}

pub fn run(args: ClocksArgs) -> anyhow::Result<i32> {
    let mut frame = args.measure.open()?;
    if args.bench_probe {
        return bench_probe(&args);
    }
    let opts = ClocksOptions {
        max_khz: args.max_khz,
        min_khz: args.min_khz,
        all_cores: args.all_cores,
        load_heat: Duration::from_secs_f64(args.load_secs),
        tune: args.measure.tune(),
        sample_interval: args.measure.sample.or(Duration::from_millis(250)),
    };
    let meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    let mut progress = args.measure.progress();
    let mut probe = KernelProbe::new(ClockOptions::default());
    // Ctrl-C: the walk is stopped between points, settings restored, the partial result kept.
    let stop = truebench_tuning::graceful_interrupts();
    let result = clocks_session::document(host, inv, &opts, &mut probe, meter, stop, &mut |e| {
        progress.event(e)
    })?;
    drop(progress);
    frame.finish(result, Show::Summary)
}

/// One measurement of the live machine, for the side-by-side benchmark against 7-Zip.
fn bench_probe(args: &ClocksArgs) -> anyhow::Result<i32> {
    let cpu = match args.cpu {
        Some(c) => c,
        None => *kernel::allowed_cpus()
            .first()
            .ok_or_else(|| anyhow::anyhow!("no CPU in this process's affinity mask"))?,
    };
    let mut opts = ClockOptions::default();
    if let Some(us) = args.trial_us {
        opts.trial = Duration::from_micros(us.max(1));
        // Enough budget for the clean trials a sample needs.
        opts.sample_budget = opts.sample_budget.max(opts.trial * 12);
    }
    let m = kernel::measure(&truebench_host::Host::live(), cpu, &opts)?;
    outln!(
        "cpu={} mhz={:.3} samples={} effective={:.1} ms={:.1} trials={} rejected={} realtime={} steal_ms={:.1}",
        m.cpu,
        m.mhz,
        m.samples_text(),
        m.effective_mhz,
        m.duration_ms,
        m.trials,
        m.rejected,
        m.realtime,
        m.steal_ms.unwrap_or(0.0)
    )?;
    Ok(0)
}
