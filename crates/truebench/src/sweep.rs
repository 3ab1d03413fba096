//! What `io` and `net` share on the command line: the flags of the repeats, the cpufreq sweep
//! and the CPU-bound verdict, the sweep's settings with the CPU that takes the device's
//! interrupts and the plan's headline.

use truebench_host::Host;
use truebench_suites::sweep::{self as suite, IrqCpu, Plan, Setting};

use crate::frame::{Frame, MeasureArgs};

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// Run every test this many times, in alternating order, for the spread (at least 1).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = crate::values::AT_LEAST_ONE)]
    pub repeat: u64,
    /// Repeat the tests under each of these cpufreq settings (through the journaled Tuning,
    /// restored afterwards, also after Ctrl-C or kill -9): `max`, `min`, `governor:NAME`,
    /// `opps` (every OPP of the cluster of the CPU that takes the device's interrupts),
    /// comma-separated; the machine as it is runs first. Needs root and cpufreq.
    #[arg(long, value_name = "LIST")]
    pub sweep: Option<String>,
    /// A core at least this busy (%) during a test makes it CPU-bound (above 0, at most 100).
    #[arg(long, value_name = "PCT", default_value_t = 95.0, value_parser = crate::values::PERCENT)]
    pub cpu_bound: f64,
}

impl SweepArgs {
    /// `--sweep` is refused under `--no-tuning` before anything is opened.
    pub fn allowed(&self, measure: &MeasureArgs) -> anyhow::Result<()> {
        crate::cli::sweep_allowed(self.sweep.is_some(), &measure.tuning)
    }

    /// The settings of `--sweep` (none without it). `opps` walks the cluster of the CPU that
    /// `irq` finds taking the interrupts of `kind`'s device (its `device`: disk, link), said
    /// on stderr; CPU 0's when it cannot be told.
    pub fn settings(
        &self,
        kind: &str,
        device: &str,
        frame: &Frame,
        irq: impl FnOnce(&Host) -> IrqCpu,
    ) -> anyhow::Result<Vec<Setting>> {
        let Some(spec) = &self.sweep else {
            return Ok(Vec::new());
        };
        let cpu = if spec.split(',').any(|s| s.trim() == "opps") {
            let IrqCpu { device: dev, cpu } = irq(&frame.host);
            let output = &frame.args().output;
            if !output.machine() && !output.quiet {
                match (&dev, &cpu) {
                    (Some(d), Some((cpu, irqs))) => errln!(
                        "truebench: {kind}: --sweep opps walks the cluster of cpu{cpu}, which takes {d}'s interrupts (IRQ {})",
                        irqs.join(",")
                    ),
                    _ => errln!(
                        "truebench: {kind}: --sweep opps walks cpu0's cluster (which CPU takes the {device}'s interrupts could not be told)"
                    ),
                }
            }
            cpu.map(|(cpu, _)| cpu)
        } else {
            None
        };
        suite::parse(spec, &frame.inv, cpu).map_err(anyhow::Error::msg)
    }

    /// The plan of `tests`, `seconds` each, under `sweep`.
    pub fn plan<T>(&self, tests: Vec<T>, seconds: f64, sweep: Vec<Setting>) -> Plan<T> {
        Plan {
            tests,
            duration: std::time::Duration::from_secs_f64(seconds),
            repeat: self.repeat as u32,
            cpu_bound_pct: self.cpu_bound,
            sweep,
        }
    }
}

/// `net: 3 test(s) × 2 repeat(s) × 4 settings, 10 s each; Ctrl-C keeps what was measured`:
/// `doing` follows the plan (`, reading /dev/sda`); `says_restore` adds that Ctrl-C restores
/// the swept settings (io's headline never said it: kept as it was).
pub fn headline<T>(
    kind: &str,
    plan: &Plan<T>,
    seconds: f64,
    doing: &str,
    says_restore: bool,
) -> String {
    let settings = plan.sweep.len();
    format!(
        "{kind}: {} test(s) × {} repeat(s){}, {seconds} s each{doing}; Ctrl-C keeps what was measured{}",
        plan.tests.len(),
        plan.repeat,
        if settings > 1 {
            format!(" × {settings} settings")
        } else {
            String::new()
        },
        if says_restore && settings > 1 {
            " and restores every setting"
        } else {
            ""
        }
    )
}
