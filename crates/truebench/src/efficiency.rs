//! `truebench efficiency` (sbc-bench -g done right): score, power and score per watt at every
//! OPP of every cluster, each run from the same temperature, energy integrated per run.

use std::io::Write;
use std::time::Duration;

use crate::cli::MachineArgs;
use truebench_host::Inventory;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use truebench_model::efficiency::WorkSource;
use truebench_model::EfficiencyBody;
use truebench_render::kinds::Render;
use truebench_suites::efficiency::{self as suite, EfficiencyOptions, Event, LiveKernels};
use truebench_suites::idle::IdleConfig;

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct EfficiencyArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Clusters to walk, comma-separated ids as `truebench info` numbers them (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub clusters: Vec<usize>,
    /// Runs of the work per OPP (the median is reported).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub runs: u32,
    /// Start every run at or below C °C (default: the temperature after the idle gate + 2 °C),
    /// so heat from the top OPPs does not leak into the next ones.
    #[arg(long, value_name = "C")]
    pub cool_to: Option<f64>,
    /// Longest wait for cooling before a run, seconds.
    #[arg(long, value_name = "S", default_value_t = 300.0)]
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
    /// Do not set OPPs: one point per cluster at its current clock.
    /// (--no-tune is the old spelling, still taken.) Env NOTUNING too.
    #[arg(long, alias = "no-tune")]
    pub no_tuning: bool,
    /// Longest wait for an idle machine at the start, seconds.
    #[arg(long, value_name = "S", default_value_t = 300.0)]
    pub idle_timeout: f64,
    /// Start after one look at the machine, idle or not (the verdict says so).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub power: crate::power::PowerArgs,
    #[command(flatten)]
    pub sample: crate::cli::SampleArgs,
    /// No progress on stderr (errors and warnings still); without it, progress goes to
    /// stderr with --json too.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print the result document as JSON on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: crate::keep::StoreArgs,
}

pub fn run(args: EfficiencyArgs) -> anyhow::Result<i32> {
    if args.runs == 0 || args.runs > 100 {
        anyhow::bail!("--runs {}: expected 1 to 100 runs per OPP", args.runs);
    }
    for (name, v) in [
        ("--cool-timeout", args.cool_timeout),
        ("--idle-timeout", args.idle_timeout),
    ] {
        if !(v.is_finite() && (0.0..=86400.0).contains(&v)) {
            anyhow::bail!("{name} {v}: expected seconds between 0 and 86400");
        }
    }
    if let Some(c) = args.cool_to {
        if !(c.is_finite() && (-40.0..=150.0).contains(&c)) {
            anyhow::bail!("--cool-to {c}: expected °C between -40 and 150");
        }
    }
    if let (Some(lo), Some(hi)) = (args.min_khz, args.max_khz) {
        if lo > hi {
            anyhow::bail!("--min-khz {lo} is above --max-khz {hi}");
        }
    }
    let host = args.machine.host()?;
    let inv = Inventory::probe(&host);
    for id in &args.clusters {
        if !inv.clusters.iter().any(|c| c.id == *id) {
            let have: Vec<String> = inv.clusters.iter().map(|c| c.id.to_string()).collect();
            anyhow::bail!(
                "--clusters {id}: no such cluster (this machine has {})",
                if have.is_empty() {
                    "no cpufreq clusters".to_string()
                } else {
                    have.join(", ")
                }
            );
        }
    }
    let opts = EfficiencyOptions {
        clusters: (!args.clusters.is_empty()).then(|| args.clusters.clone()),
        runs: args.runs,
        cool_to: args.cool_to,
        cool_timeout: Duration::from_secs_f64(args.cool_timeout),
        max_khz: args.max_khz,
        min_khz: args.min_khz,
        tune: !(args.no_tuning || crate::cli::notuning_env()),
        idle: IdleConfig {
            timeout: Duration::from_secs_f64(args.idle_timeout),
            ..IdleConfig::default()
        },
        meter: args.power.start()?,
        force: args.force,
        sample_interval: args.sample.or(Duration::from_secs(1))?,
        ..EfficiencyOptions::default()
    };
    let _lock = crate::exit::lock()?;
    let quiet = args.json || args.quiet;
    let mut kernels = LiveKernels::new(args.work);
    if args.work == WorkSource::SevenZip && !kernels.uses_7zip() && !quiet {
        errln!("truebench: 7-zip is not installed (`apt install 7zip`): using the built-in LZMA kernel (MB/s, not MIPS)");
    }
    let mut steps = crate::progress::steps::Steps::new(args.quiet, args.json);
    steps.headline(&format!(
        "efficiency per OPP, {} run(s) each; Ctrl-C keeps what was measured and restores every setting",
        args.runs
    ));
    let stop = truebench_tuning::graceful_interrupts();
    let mut events = |e: Event| match e {
        Event::Waiting(w) => steps.waiting(&w),
        Event::Opp {
            cluster,
            index,
            total,
            mhz,
        } => steps.step(
            index,
            total,
            &format!(
                "cluster {cluster} at {}",
                mhz.map_or("its current clock".into(), |m| format!("{m} MHz"))
            ),
            None,
        ),
        Event::Run {
            score,
            unit,
            seconds,
        } => steps.partial(&format!("{score:.1} {unit} in {seconds:.1} s")),
        Event::Note(n) => steps.note(&n),
    };
    let result = suite::run(&host, &inv, &opts, &mut kernels, stop, &mut events)?;
    drop(steps);
    crate::keep::store(&result, &args.store, quiet);
    let mut out = crate::out::stdout();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        write!(out, "{}", EfficiencyBody::summary(result.view()))?;
    }
    out.flush()?;
    let failed = result
        .body
        .clusters
        .iter()
        .flat_map(|c| &c.points)
        .any(|p| p.status == truebench_model::PhaseStatus::Failed);
    Ok(crate::exit::of(&result.envelope, failed))
}
