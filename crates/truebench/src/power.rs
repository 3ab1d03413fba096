//! `truebench power`: what the machine draws idle, as it is and in each low-power setting,
//! each state measured to a stated confidence; every setting put back.

use std::time::Duration;

use crate::frame::{IdleArgs, MeasureArgs, Show};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use truebench_model::power::PowerState;
use truebench_suites::idle::IdleConfig;
use truebench_suites::power::{self as suite, PowerOptions};
use truebench_suites::progress::Event;

fn state_names() -> Vec<&'static str> {
    PowerState::ALL.iter().map(|s| s.as_str()).collect()
}

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct PowerArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    #[command(flatten)]
    pub idle: IdleArgs,
    /// The states, in the order measured, comma-separated: as-is, governor (powersave or
    /// the lowest OPP on every policy), devfreq (every devfreq device at powersave), aspm
    /// (PCIe ASPM powersupersave/powersave), tuned (the three together), big-offline (the
    /// fastest cores offline), one-cpu (all but CPU 0 offline), as-is-again. Default: all,
    /// in that order. Each is measured alone against as-is (settings go back in between).
    #[arg(long, value_name = "LIST", value_delimiter = ',',
        value_parser = PossibleValuesParser::new(state_names()).try_map(|s| s.parse::<PowerState>()))]
    pub states: Vec<PowerState>,
    /// Skip what could cut a remote session: ASPM (a PCIe network card's link) and taking
    /// CPUs offline (the network interrupts move). Network interfaces are never touched.
    #[arg(long)]
    pub only_safe: bool,
    /// Each state until its mean's 95 % interval is within ± this percentage (0 to 100).
    #[arg(long, value_name = "PCT", default_value_t = 2.0, value_parser = crate::values::PERCENT)]
    pub precision: f64,
    /// … or this many seconds per state, settling included (0.5 to 86400); a state whose
    /// interval is still wider is reported as such, not as a figure.
    #[arg(long, value_name = "S", default_value_t = 300.0, value_parser = crate::values::TEST_SECONDS)]
    pub max_seconds: f64,
}

pub fn run(args: PowerArgs) -> anyhow::Result<i32> {
    let mut frame = args.measure.open()?;
    let mut opts = PowerOptions {
        states: if args.states.is_empty() {
            PowerState::ALL.to_vec()
        } else {
            args.states.clone()
        },
        only_safe: args.only_safe,
        precision_pct: args.precision,
        max_seconds: args.max_seconds,
        tune: args.measure.tune(),
        idle: IdleConfig {
            timeout: args.idle.timeout_or(300.0),
            ..IdleConfig::default()
        },
        force: args.idle.force,
        sample_interval: args.measure.sample.or(Duration::from_secs(1)),
        ..PowerOptions::default()
    };
    opts.meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    let mut progress = args.measure.progress();
    progress.event(Event::headline(format!(
        "power in {} state(s), each to ±{} % or {} s; Ctrl-C keeps what was measured and restores every setting",
        opts.states.len(),
        args.precision,
        args.max_seconds
    )));
    let stop = truebench_tuning::graceful_interrupts();
    let result = suite::run(host, inv, &opts, stop, &mut |e| progress.event(e))?;
    drop(progress);
    frame.finish(result, Show::Summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        power: PowerArgs,
    }

    #[test]
    fn states_parse_in_the_order_given_and_bad_ones_are_named() {
        let c = Cli::try_parse_from(["t", "--states", "one-cpu,as-is", "--precision", "0.5"]).unwrap();
        assert_eq!(c.power.states, [PowerState::OneCpu, PowerState::AsIs]);
        assert_eq!(c.power.precision, 0.5);
        let e = Cli::try_parse_from(["t", "--states", "as-is,turbo"]).err().unwrap().to_string();
        assert!(e.contains("turbo") && e.contains("big-offline"), "{e}");
        assert!(Cli::try_parse_from(["t", "--precision", "0"]).is_err());
        assert!(Cli::try_parse_from(["t", "--max-seconds", "0.1"]).is_err());
    }
}
