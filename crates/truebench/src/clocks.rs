//! `truebench clocks`: measured vs advertised clock for every OPP of every cluster.

use crate::frame::{MeasureArgs, Show};
use std::time::Duration;
use truebench_host::Host;
use truebench_suites::clocks::{ClockProbe, ClocksOptions, KernelProbe, LoadHandle};
use truebench_suites::clocks_session;
use truebench_workloads::clock::{self as kernel, ClockError, ClockMeasurement, ClockOptions};

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
    let mut steps = args.measure.steps();
    let total = truebench_suites::clocks::planned_points(host, inv, &opts);
    steps.headline(&format!(
        "clocks: {total} measurement(s), one per OPP walked{}",
        if opts.all_cores { ", then every CPU at once idle and under load" } else { "" }
    ));
    let mut probe = Shown {
        inner: KernelProbe::new(ClockOptions::default()),
        steps: &mut steps,
        done: 0,
        total,
    };
    // Ctrl-C: the walk is stopped between points, settings restored, the partial result kept.
    let stop = truebench_tuning::graceful_interrupts();
    let result = clocks_session::document(host, inv, &opts, &mut probe, meter, stop)?;
    drop(probe);
    drop(steps);
    frame.finish(result, Show::Summary)
}

/// The probe the walk uses, saying each measurement as a step of the progress.
struct Shown<'a, P> {
    inner: P,
    steps: &'a mut crate::progress::steps::Steps,
    done: usize,
    total: usize,
}

impl<P: ClockProbe> Shown<'_, P> {
    fn next(&mut self, what: &str) {
        self.done += 1;
        let total = self.total.max(self.done);
        self.steps.step(self.done, total, what, None);
    }
}

impl<P: ClockProbe> ClockProbe for Shown<'_, P> {
    fn measure(&mut self, host: &Host, cpu: u32) -> Result<ClockMeasurement, ClockError> {
        let cur = host
            .read_u64(format!("sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_max_freq"))
            .map(|k| format!(" at {} MHz", k / 1000))
            .unwrap_or_default();
        self.next(&format!("cpu{cpu}{cur}"));
        let r = self.inner.measure(host, cpu);
        match &r {
            Ok(m) => self.steps.score(&format!("{:.0} MHz measured", m.mhz)),
            Err(e) => self.steps.score(&format!("failed: {e}")),
        }
        r
    }

    fn measure_many(
        &mut self,
        host: &Host,
        cpus: &[u32],
    ) -> Vec<Result<ClockMeasurement, ClockError>> {
        self.next(&format!("{} CPUs at once", cpus.len()));
        let r = self.inner.measure_many(host, cpus);
        let ok = r.iter().filter(|m| m.is_ok()).count();
        self.steps.score(&format!("{ok} of {} measured", cpus.len()));
        r
    }

    fn start_load(&mut self, cpus: &[u32]) -> LoadHandle {
        self.inner.start_load(cpus)
    }

    fn firmware_mhz(&mut self, host: &Host) -> Option<f64> {
        self.inner.firmware_mhz(host)
    }

    fn note(&self, host: &Host) -> Option<String> {
        self.inner.note(host)
    }
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
