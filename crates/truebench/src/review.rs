//! `truebench review` (sbc-bench -r/-R): every performance-relevant setting with its value and
//! why it matters; with -R, tuned to performance, monitored until Ctrl-C or while --exec runs,
//! and what changed in the device status meanwhile. Stored as kind `review`.

use std::path::PathBuf;
use std::time::Duration;

use crate::frame::{MeasureArgs, Show};
use truebench_model::Document;
use truebench_suites::review::{self as suite, ReviewOptions};

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Without -R nothing is changed: the settings are read and reported (and stored). With -R the \
settings are switched to performance (cpufreq and devfreq governors, PCIe ASPM) through the \
journaled Tuning, then truebench monitors until Ctrl-C, for --duration, or while --exec runs, \
and restores every setting afterwards — also after Ctrl-C, SIGTERM, or at the next start after \
kill -9. Warnings (WARN) are settings that cost performance or hide a problem.

Exit codes: as every command (0 valid, 1 a test failed, 2 usage or I/O error, 3 ran but \
invalid, 4 another measurement is running, 130 interrupted); with --exec, the command's code.")]
// sbc-bench's review monitors with `--interval`: the shared flag takes that name too.
#[command(mut_arg("sample_interval", |a| a.visible_alias("interval")))]
pub struct ReviewArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Switch to performance, monitor, restore (sbc-bench -R). Needs root.
    #[arg(short = 'R', long)]
    pub tune: bool,
    /// Monitor until Ctrl-C without tuning.
    #[arg(long, conflicts_with = "tune")]
    pub monitor: bool,
    /// Monitor this many seconds instead of until Ctrl-C (above 0).
    #[arg(long, value_name = "S", value_parser = crate::values::POSITIVE_SECONDS)]
    pub duration: Option<f64>,
    /// Judge the kernel's support against this release list (see `truebench kernel --help`).
    #[arg(long, value_name = "FILE")]
    pub releases: Option<PathBuf>,
    /// Kernel-log lines (dmesg output) for the kernel report's vendor checks from this file
    /// instead of <root>/dev/kmsg; monitoring always follows <root>/dev/kmsg.
    #[arg(long, value_name = "FILE")]
    pub kernel_log: Option<PathBuf>,
    /// Markdown for a published review instead of text.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// Run this command and monitor while it runs (sbc-bench's ExecuteCommand); everything
    /// after --exec is the command.
    #[arg(long, value_name = "CMD", num_args = 1.., allow_hyphen_values = true)]
    pub exec: Vec<String>,
}

pub fn run(args: ReviewArgs) -> anyhow::Result<i32> {
    if args.tune {
        crate::cli::tuning_allowed("-R switches settings to performance", &args.measure.tuning)?;
    }
    let duration = args.duration.map(Duration::from_secs_f64);
    let mut frame = args.measure.open()?;
    let kernel = crate::kernel::report(
        &frame.host,
        &frame.inv,
        args.releases.as_deref(),
        args.kernel_log.as_deref(),
        jiff::Zoned::now().date(),
    )?;
    let monitors = args.tune || args.monitor || duration.is_some() || !args.exec.is_empty();
    // Monitoring (and tuning) is a measurement: one at a time, the meter only under the lock.
    let meter = if monitors { frame.lock()? } else { None };
    let (host, inv) = (&frame.host, &frame.inv);
    let stop = truebench_tuning::graceful_interrupts();
    if monitors && !args.measure.output.quiet {
        let until = match (&args.exec, duration) {
            (c, _) if !c.is_empty() => "while the command runs".to_string(),
            (_, Some(d)) => format!("for {} s (Ctrl-C ends earlier)", d.as_secs_f64()),
            _ => "until Ctrl-C".to_string(),
        };
        errln!(
            "truebench: {}monitoring {until}…",
            if args.tune {
                "settings tuned to performance; "
            } else {
                ""
            }
        );
    }
    let opts = ReviewOptions {
        tune: args.tune,
        command: args.exec.clone(),
        duration,
        monitor: args.monitor,
        interval: args.measure.sample.or(Duration::from_secs(1)),
        // The kernel log file replays its lines from the start for the review's own report;
        // while monitoring only new lines count.
        kernel_log: None,
        meter,
    };
    let result = suite::run(host, inv, Some(kernel), &opts, stop)?;
    if let Some(e) = &result.body.error {
        errln!("truebench: cannot start {}: {e}", args.exec[0]);
    }
    let command = (
        !args.exec.is_empty(),
        result.body.start_failure,
        result.body.exit_code,
        result.body.signal,
    );
    let doc: Document = result.into_document();
    let show = if args.markdown {
        Show::Text(truebench_render::kinds::markdown(&doc))
    } else {
        Show::Summary
    };
    let code = frame.finish(doc, show)?;
    Ok(match command {
        // A command run with --exec ends as from a shell, its code becoming ours.
        (true, Some(failure), _, _) => failure.shell_code(),
        (true, None, Some(c), _) => c,
        (true, None, None, Some(s)) => 128 + s,
        // Otherwise the table's code, as every measuring command.
        _ => code,
    })
}
