//! `truebench thermal` (sbc-bench -t / -T): start at a known temperature, run a load for N
//! minutes, and report the score, clock and temperature over time, where each cluster first
//! lost clock, and the energy.

use std::io::Write;
use std::time::Duration;
use truebench_model::thermal::ThermalPhase;
use truebench_model::PhaseId;

use crate::cli::MachineArgs;
use truebench_host::Inventory;
use truebench_model::ThermalBody;
use truebench_render::kinds::Render;
use truebench_suites::thermal::{self as suite, Event, LiveLoad, Load, Start, ThermalOptions};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct ThermalArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Before the load, wait (idle) until the SoC is at or below C °C (sbc-bench -t C).
    #[arg(long, value_name = "C", conflicts_with = "heat_to")]
    pub cool_to: Option<f64>,
    /// Before the load, run it until the SoC reaches C °C, then start counting (sbc-bench
    /// -T C): the test then shows the machine already hot.
    #[arg(long, value_name = "C")]
    pub heat_to: Option<f64>,
    /// Minutes of load.
    #[arg(long, value_name = "N", default_value_t = 5.0)]
    pub minutes: f64,
    /// The load: `stress` (built-in SIMD load on every CPU, a score every --interval), `7zip`
    /// (7-zip's benchmark on all cores, a score per run) or any shell command (restarted
    /// until the time is up; its runs per minute are the score).
    #[arg(long, value_name = "stress|7zip|CMD", default_value = "stress")]
    pub load: String,
    /// Seconds per score of the built-in stress.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub interval: f64,
    /// Longest wait for an idle machine (default 300 s, as `run`), or for the start
    /// temperature with --cool-to/--heat-to (default 900 s), seconds. Not idle by then: the
    /// test goes on and its verdict says the start is unknown.
    #[arg(long, visible_alias = "idle-timeout", value_name = "S")]
    pub wait_timeout: Option<f64>,
    /// Start after one look at the machine, idle or not (the verdict says so).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub sample: crate::cli::SampleArgs,
    #[command(flatten)]
    pub power: crate::power::PowerArgs,
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

fn check(name: &str, v: f64, lo: f64, hi: f64, what: &str) -> anyhow::Result<()> {
    if !(v.is_finite() && (lo..=hi).contains(&v)) {
        anyhow::bail!("{name} {v}: expected {what} between {lo} and {hi}");
    }
    Ok(())
}

pub fn run(args: ThermalArgs) -> anyhow::Result<i32> {
    check("--minutes", args.minutes, 0.01, 1440.0, "minutes")?;
    check("--interval", args.interval, 0.1, 600.0, "seconds")?;
    let wait_timeout = args.wait_timeout.unwrap_or(
        if args.cool_to.is_some() || args.heat_to.is_some() {
            900.0
        } else {
            300.0
        },
    );
    check("--wait-timeout", wait_timeout, 0.0, 86400.0, "seconds")?;
    for (name, c) in [("--cool-to", args.cool_to), ("--heat-to", args.heat_to)] {
        if let Some(c) = c {
            check(name, c, -40.0, 150.0, "°C")?;
        }
    }
    if args.load.trim().is_empty() {
        anyhow::bail!("--load: expected stress, 7zip or a command");
    }
    let host = args.machine.host()?;
    let inv = Inventory::probe(&host);
    let load = Load::parse(args.load.trim());
    let mut opts = ThermalOptions::new(load, args.minutes);
    opts.interval = args.interval;
    opts.wait_timeout = Duration::from_secs_f64(wait_timeout);
    opts.force = args.force;
    opts.sample_interval = args.sample.or(Duration::from_secs(1))?;
    opts.start = match (args.cool_to, args.heat_to) {
        (Some(c), _) => Start::CoolTo(c),
        (None, Some(h)) => Start::HeatTo(h),
        (None, None) => Start::Idle,
    };
    opts.meter = args.power.start()?;
    let _lock = crate::exit::lock()?;
    // A recorded root's CPUs are not this machine's: load the CPUs this process may use.
    let cpus: Vec<u32> = if host.is_live() {
        inv.online_cpus().map(|c| c.id).collect()
    } else {
        truebench_workloads::pin::current_affinity()
    };
    let quiet = args.json || args.quiet;
    let mut steps = crate::progress::steps::Steps::new(args.quiet, args.json);
    steps.headline(&format!(
        "thermal test: {} for {:.1} min; Ctrl-C keeps what was measured",
        args.load.trim(),
        args.minutes
    ));
    let stop = truebench_tuning::graceful_interrupts();
    let mut events = |e: Event| match e {
        Event::Waiting(w) => steps.waiting(&w),
        Event::Step { name, seconds } => match name.parse() {
            Ok(ThermalPhase::Idle) => steps.waiting(&format!(
                "waiting for an idle machine (up to {seconds:.0} s)"
            )),
            Ok(ThermalPhase::Heat) => {
                steps.waiting(&format!("heating up with the load (up to {seconds:.0} s)"))
            }
            _ => steps.step(1, 1, &name, Some(seconds)),
        },
        Event::Score(p, _) => steps.partial(&format!("{:>6.0} s  score {:.2}", p.end_s, p.score)),
        Event::Note(n) => steps.note(&n),
    };
    let mut runner = LiveLoad { cpus };
    let result = suite::run(&host, &inv, &opts, &mut runner, stop, &mut events)?;
    drop(steps);
    crate::keep::store(&result, &args.store, quiet);
    let mut out = crate::out::stdout();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        write!(out, "{}", ThermalBody::summary(result.view()))?;
    }
    out.flush()?;
    let failed = result
        .envelope
        .phases
        .iter()
        .any(|p| {
            p.status == truebench_model::PhaseStatus::Failed && !ThermalPhase::Idle.is(&p.name)
        });
    Ok(crate::exit::of(&result.envelope, failed))
}
