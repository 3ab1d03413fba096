//! `truebench efficiency` (sbc-bench -g done right): score, power and score per watt at every
//! OPP of every cluster, each run from the same temperature, energy integrated per run.

use std::time::Duration;

use crate::frame::{IdleArgs, MeasureArgs, Show};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use truebench_model::efficiency::WorkSource;
use truebench_suites::efficiency::{self as suite, EfficiencyOptions, LiveKernels};
use truebench_suites::progress::Event;
use truebench_suites::idle::IdleConfig;

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct EfficiencyArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    #[command(flatten)]
    pub idle: IdleArgs,
    /// Clusters to walk, comma-separated ids as `truebench info` numbers them (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub clusters: Vec<usize>,
    /// Runs of the work per OPP (1 to 100; the median is reported).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = crate::values::RUNS)]
    pub runs: u64,
    /// Start every run at or below C °C (-40 to 150; default: the temperature after the idle
    /// gate + 2 °C), so heat from the top OPPs does not leak into the next ones.
    #[arg(long, value_name = "C", value_parser = crate::values::CELSIUS, allow_negative_numbers = true)]
    pub cool_to: Option<f64>,
    /// Longest wait for cooling before a run, seconds (0 to 86400).
    #[arg(long, value_name = "S", default_value_t = 300.0, value_parser = crate::values::TIMEOUT, allow_negative_numbers = true)]
    pub cool_timeout: f64,
    /// Skip OPPs above this clock (kHz, as sbc-bench's MaxKHz).
    #[arg(long, value_name = "KHZ")]
    pub max_khz: Option<u64>,
    /// Skip OPPs below this clock (kHz).
    #[arg(long, value_name = "KHZ")]
    pub min_khz: Option<u64>,
    /// The work: `7zip` (7-zip's benchmark on the cluster, MIPS; the default when 7-zip is
    /// installed) or `lzma` (the built-in LZMA kernel, MB/s).
    #[arg(long, value_name = "7zip|lzma", default_value = "7zip",
        value_parser = PossibleValuesParser::new(["7zip", "lzma"]).try_map(|s| s.parse::<WorkSource>()))]
    pub work: WorkSource,
}

pub fn run(args: EfficiencyArgs) -> anyhow::Result<i32> {
    let mut frame = args.measure.open()?;
    let opts = EfficiencyOptions {
        clusters: (!args.clusters.is_empty()).then(|| args.clusters.clone()),
        runs: args.runs as u32,
        cool_to: args.cool_to,
        cool_timeout: Duration::from_secs_f64(args.cool_timeout),
        max_khz: args.max_khz,
        min_khz: args.min_khz,
        tune: args.measure.tune(),
        idle: IdleConfig {
            timeout: args.idle.timeout_or(300.0),
            ..IdleConfig::default()
        },
        meter: None,
        force: args.idle.force,
        sample_interval: args.measure.sample.or(Duration::from_secs(1)),
        ..EfficiencyOptions::default()
    };
    // What the machine cannot do is refused before anything starts.
    opts.check(&frame.inv)?;
    let mut opts = opts;
    opts.meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    let quiet = args.measure.output.machine() || args.measure.output.quiet;
    let mut kernels = LiveKernels::new(args.work);
    if args.work == WorkSource::SevenZip && !kernels.uses_7zip() && !quiet {
        errln!("truebench: 7-zip is not installed (`apt install 7zip`): using the built-in LZMA kernel (MB/s, not MIPS)");
    }
    let mut progress = args.measure.progress();
    progress.event(Event::headline(format!(
        "efficiency per OPP, {} run(s) each; Ctrl-C keeps what was measured and restores every setting",
        args.runs
    )));
    let stop = truebench_tuning::graceful_interrupts();
    let result = suite::run(host, inv, &opts, &mut kernels, stop, &mut |e| progress.event(e))?;
    drop(progress);
    frame.finish(result, Show::Summary)
}
