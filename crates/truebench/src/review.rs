//! `truebench review` (sbc-bench -r/-R): every performance-relevant setting with its value and
//! why it matters; with -R, tuned to performance, monitored until Ctrl-C or while --exec runs,
//! and what changed in the device status meanwhile. Stored as kind `review`.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::MachineArgs;
use truebench_host::Inventory;
use truebench_model::Document;
use truebench_render::kinds::Render;
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
pub struct ReviewArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub power: crate::power::PowerArgs,
    /// Switch to performance, monitor, restore (sbc-bench -R). Needs root.
    #[arg(short = 'R', long)]
    pub tune: bool,
    /// Monitor until Ctrl-C without tuning.
    #[arg(long, conflicts_with = "tune")]
    pub monitor: bool,
    /// Monitor this many seconds instead of until Ctrl-C.
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Seconds between monitoring samples.
    #[arg(long, value_name = "S", visible_alias = "sample-interval", default_value_t = 1.0)]
    pub interval: f64,
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
    /// Print the result document as JSON on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr (errors and warnings still); without it, progress goes to
    /// stderr with --json too.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub store: crate::keep::StoreArgs,
    /// Run this command and monitor while it runs (sbc-bench's ExecuteCommand); everything
    /// after --exec is the command.
    #[arg(long, value_name = "CMD", num_args = 1.., allow_hyphen_values = true)]
    pub exec: Vec<String>,
}

pub fn run(args: ReviewArgs) -> anyhow::Result<i32> {
    let host = args.machine.host()?;
    if !(args.interval > 0.0 && args.interval.is_finite()) {
        anyhow::bail!("--interval {}: expected seconds above 0", args.interval);
    }
    let duration = match args.duration {
        Some(d) if !(d > 0.0 && d.is_finite()) => {
            anyhow::bail!("--duration {d}: expected seconds above 0")
        }
        d => d.map(Duration::from_secs_f64),
    };
    let inv = Inventory::probe(&host);
    let kernel = crate::kernel::report(
        &host,
        &inv,
        args.releases.as_deref(),
        args.kernel_log.as_deref(),
        jiff::Zoned::now().date(),
    )?;
    let monitors = args.tune || args.monitor || duration.is_some() || !args.exec.is_empty();
    // Monitoring (and tuning) is a measurement: one at a time.
    let _lock = if monitors {
        Some(crate::exit::lock()?)
    } else {
        None
    };
    let stop = truebench_tuning::graceful_interrupts();
    // --exec's command writes to the same terminal: plain lines, no bar redrawn beneath it.
    let mut progress = if args.exec.is_empty() {
        crate::progress::Progress::for_command(args.quiet, args.json)
    } else {
        crate::progress::Progress::lines(args.quiet)
    };
    let opts = ReviewOptions {
        tune: args.tune,
        command: args.exec.clone(),
        duration,
        monitor: args.monitor,
        interval: Duration::from_secs_f64(args.interval),
        // The kernel log file replays its lines from the start for the review's own report;
        // while monitoring only new lines count.
        kernel_log: None,
        meter: if monitors { args.power.start()? } else { None },
    };
    let result = suite::run(&host, &inv, Some(kernel), &opts, stop, &mut |e| {
        progress.event(e)
    });
    drop(progress);
    let result = result?;
    if let Some(e) = &result.body.error {
        errln!("truebench: cannot start {}: {e}", args.exec[0]);
    }
    crate::keep::store(&result, &args.store, args.json);
    let doc: Document = result.clone().into_document();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else if args.markdown {
        out!("{}", truebench_render::kinds::markdown(&doc))?;
    } else {
        let view = truebench_model::View {
            envelope: &result.envelope,
            body: &result.body,
        };
        out!("{}", truebench_model::ReviewBody::summary(view))?;
    }
    Ok(
        match (
            result.body.exit_code,
            result.body.signal,
            &result.body.error,
        ) {
            (_, _, Some(e)) if e.contains("os error 2") => 127,
            (_, _, Some(_)) => 126,
            (Some(c), _, _) => c,
            (None, Some(s), _) => 128 + s,
            _ => 0,
        },
    )
}
