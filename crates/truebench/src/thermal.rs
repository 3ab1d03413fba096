//! `truebench thermal` (sbc-bench -t / -T): start at a known temperature, run a load for N
//! minutes, and report the score, clock and temperature over time, where each cluster first
//! lost clock, and the energy.

use std::time::Duration;
use truebench_model::thermal::ThermalPhase;

use crate::frame::{IdleArgs, MeasureArgs, Show};
use truebench_suites::thermal::{self as suite, Event, LiveLoad, Load, Start, ThermalOptions};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct ThermalArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    #[command(flatten)]
    pub idle: IdleArgs,
    /// Before the load, wait (idle) until the SoC is at or below C °C (sbc-bench -t C; -40 to
    /// 150).
    #[arg(long, value_name = "C", conflicts_with = "heat_to", value_parser = crate::values::CELSIUS, allow_negative_numbers = true)]
    pub cool_to: Option<f64>,
    /// Before the load, run it until the SoC reaches C °C, then start counting (sbc-bench
    /// -T C; -40 to 150): the test then shows the machine already hot.
    #[arg(long, value_name = "C", value_parser = crate::values::CELSIUS, allow_negative_numbers = true)]
    pub heat_to: Option<f64>,
    /// Minutes of load (0.01 to 1440).
    #[arg(long, value_name = "N", default_value_t = 5.0, value_parser = crate::values::MINUTES)]
    pub minutes: f64,
    /// The load: `stress` (built-in SIMD load on every CPU, a score every --interval), `7zip`
    /// (7-zip's benchmark on all cores, a score per run) or any shell command (restarted
    /// until the time is up; its runs per minute are the score).
    #[arg(long, value_name = "stress|7zip|CMD", default_value = "stress",
        value_parser = crate::values::NotEmpty("stress, 7zip or a command"))]
    pub load: String,
    /// Seconds per score of the built-in stress (0.1 to 600).
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = crate::values::SCORE_INTERVAL)]
    pub interval: f64,
}

pub fn run(args: ThermalArgs) -> anyhow::Result<i32> {
    let waits_for_temperature = args.cool_to.is_some() || args.heat_to.is_some();
    let wait_timeout = args
        .idle
        .timeout_or(if waits_for_temperature { 900.0 } else { 300.0 });
    let mut frame = args.measure.open()?;
    let load = Load::parse(args.load.trim());
    let mut opts = ThermalOptions::new(load, args.minutes);
    opts.interval = args.interval;
    opts.wait_timeout = wait_timeout;
    opts.force = args.idle.force;
    opts.sample_interval = args.measure.sample.or(Duration::from_secs(1));
    opts.start = match (args.cool_to, args.heat_to) {
        (Some(c), _) => Start::CoolTo(c),
        (None, Some(h)) => Start::HeatTo(h),
        (None, None) => Start::Idle,
    };
    opts.meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    // A recorded root's CPUs are not this machine's: load the CPUs this process may use.
    let cpus: Vec<u32> = if host.is_live() {
        inv.online_cpus().map(|c| c.id).collect()
    } else {
        truebench_workloads::pin::current_affinity()
    };
    let mut steps = args.measure.steps();
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
    let result = suite::run(host, inv, &opts, &mut runner, stop, &mut events)?;
    drop(steps);
    frame.finish(result, Show::Summary)
}
