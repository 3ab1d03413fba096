//! `--power-cmd` / `--power-file`: an external power meter as one more power source of every
//! command that measures (`run`, `monitor`, `clocks`, `interactivity`, `governors`, `net`,
//! `io`, `thermal`, `efficiency`, `review -R`); its energy per phase is in the result.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use truebench_suites::meter::{Meter, MeterSpec};

#[derive(Args, Debug, Clone, Default)]
pub struct MeterArgs {
    /// An external power meter: a shell command printing watts (`12.5`, `12.5 W`, `12500 mW`),
    /// either once (re-run every --power-interval) or one line per reading while it runs (a
    /// USB meter's logger). Read on its own thread; its energy per phase is in the result.
    #[arg(long, value_name = "CMD", conflicts_with = "power_file")]
    pub power_cmd: Option<String>,
    /// An external power meter's file, re-read every --power-interval (its last line with a
    /// number: watts).
    #[arg(long, value_name = "FILE")]
    pub power_file: Option<PathBuf>,
    /// Seconds between readings of --power-cmd / --power-file (0.05 to 3600).
    #[arg(long, value_name = "S", default_value_t = 1.0, value_parser = crate::values::POWER_INTERVAL)]
    pub power_interval: f64,
}

impl MeterArgs {
    /// Start the meter and wait for its first reading: a meter that gives none is an error
    /// (a run without the energy that was asked for would be a surprise). Only the frame
    /// calls this (`Frame::lock`), after the measurement lock is held. Its first reading is
    /// said on stderr unless `quiet`.
    pub(crate) fn start(&self, quiet: bool) -> anyhow::Result<Option<Arc<Meter>>> {
        let spec = match (&self.power_cmd, &self.power_file) {
            (Some(c), _) => MeterSpec::Command(c.clone()),
            (None, Some(f)) => MeterSpec::File(f.clone()),
            (None, None) => return Ok(None),
        };
        let interval = Duration::from_secs_f64(self.power_interval);
        let name = spec.name();
        let meter = Meter::start(spec, interval);
        let wait = (interval * 3).max(Duration::from_secs(5));
        match meter.first_reading(wait) {
            Ok(w) => {
                if !quiet {
                    errln!("truebench: {name}: {w:.2} W now");
                }
                Ok(Some(Arc::new(meter)))
            }
            Err(why) => anyhow::bail!(
                "{name}: no reading: {why} (it must print a number of watts; try it in a shell)"
            ),
        }
    }
}
