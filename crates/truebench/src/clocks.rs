//! `truebench clocks`: measured vs advertised clock for every OPP of every cluster.

use crate::cli::MachineArgs;
use std::time::Duration;
use truebench_host::Inventory;
use truebench_render::kinds::Render as RunRender;
use truebench_suites::clocks::{ClocksOptions, KernelProbe};
use truebench_suites::clocks_session;
use truebench_workloads::clock::{self as kernel, ClockOptions};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct ClocksArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub power: crate::power::PowerArgs,
    #[command(flatten)]
    pub sample: crate::cli::SampleArgs,
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
    /// Seconds of load before the under-load measurement of --all-cores.
    #[arg(long, value_name = "S", default_value_t = 5.0)]
    pub load_secs: f64,
    /// Never change cpufreq settings: measure each cluster at its current clock (env
    /// NOTUNING too).
    #[arg(long)]
    pub no_tuning: bool,
    /// Print the result document as JSON on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr (errors and warnings still); without it, progress goes to
    /// stderr with --json too.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub store: crate::keep::StoreArgs,
    /// Measure one CPU once and print one `key=value` line (for bench/clock_vs_7zip.sh).
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
    let host = args.machine.host()?;
    if args.bench_probe {
        return bench_probe(&args);
    }
    if !(args.load_secs.is_finite() && args.load_secs >= 0.0) {
        anyhow::bail!("--load-secs {}: not a number of seconds", args.load_secs);
    }
    let inv = Inventory::probe(&host);
    let opts = ClocksOptions {
        max_khz: args.max_khz,
        min_khz: args.min_khz,
        all_cores: args.all_cores,
        load_heat: Duration::from_secs_f64(args.load_secs),
        tune: !(args.no_tuning || crate::cli::notuning_env()),
        sample_interval: args.sample.or(Duration::from_millis(250))?,
    };
    let _lock = crate::exit::lock()?;
    let mut progress = crate::progress::Progress::for_command(args.quiet, args.json);
    let mut probe = KernelProbe::new(ClockOptions::default());
    // Ctrl-C: the walk is stopped between points, settings restored, the partial result kept.
    let stop = truebench_tuning::graceful_interrupts();
    let meter = args.power.start()?;
    let result = clocks_session::document(&host, &inv, &opts, &mut probe, meter, stop, &mut |e| {
        progress.event(e)
    })?;
    drop(progress);
    crate::keep::store(&result, &args.store, args.json);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        out!("{}", RunRender::summary(result.view()))?;
    }
    let measured = result
        .body
        .clusters
        .iter()
        .flat_map(|c| &c.points)
        .any(|p| p.measured_mhz.is_some());
    Ok(crate::exit::of(&result.envelope, !measured))
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
