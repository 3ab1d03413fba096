//! `truebench kernel` (sbc-bench -k): version, build and config hints, where the kernel comes
//! from (kernel.org, a distribution, Raspberry Pi, Android, a community build, a SoC vendor's
//! BSP) and whether kernel.org still maintains its series — judged offline against a dated
//! release list, the built-in one or `--releases FILE`.

use std::path::{Path, PathBuf};

use crate::cli::MachineArgs;
use anyhow::Context;
use truebench_host::kernel::{self, KernelContext, Releases};
use truebench_host::Inventory;
use truebench_monitor_core::kmsg::KernelLog;
use truebench_monitor::kmsg::KernelLogReader;

#[derive(clap::Args, Debug)]
#[command(after_help = "\
The built-in release list is dated (see `Support (… as of DATE)`); statuses after that date are \
not known. A newer list can be given with --releases: the TSV format of the built-in list, \
endoflife.date's API JSON (/api/linux.json) or its products/linux-kernel.md. Nothing is \
downloaded.

Some vendor kernels can only be told apart by their kernel log (Rockchip's PVTM lines): run as \
root, or give the log with --kernel-log.")]
pub struct KernelArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Judge support against this release list instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub releases: Option<PathBuf>,
    /// Read kernel log lines (dmesg output) from this file instead of <root>/dev/kmsg.
    #[arg(long, value_name = "FILE")]
    pub kernel_log: Option<PathBuf>,
    /// Judge end of life as on this date (YYYY-MM-DD) instead of today.
    #[arg(long, value_name = "DATE", hide = true)]
    pub today: Option<String>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The kernel report of `host`, judged against `releases` (the built-in list when None) with
/// the kernel log from `kernel_log` (else `<root>/dev/kmsg`); `review` uses it too.
pub fn report(
    host: &truebench_host::Host,
    inv: &Inventory,
    releases: Option<&Path>,
    kernel_log: Option<&Path>,
    today: jiff::civil::Date,
) -> anyhow::Result<kernel::KernelReport> {
    let releases = match releases {
        Some(p) => Releases::from_file(p)?,
        None => Releases::builtin(),
    };
    let log = match kernel_log {
        Some(p) => KernelLogReader::from_file(p)
            .with_context(|| format!("--kernel-log {}", p.display()))?
            .collect(),
        None => KernelLogReader::snapshot(host),
    };
    let lines = match &log {
        KernelLog::Lines(l) => Some(l.as_slice()),
        KernelLog::Unavailable(_) => None,
    };
    let mut report = kernel::report(
        host,
        inv,
        &KernelContext {
            releases: &releases,
            today,
            kernel_log: lines,
        },
    );
    if let KernelLog::Unavailable(why) = &log {
        report.missing.push(truebench_host::inventory::Missing {
            what: "kernel log".into(),
            reason: why.clone(),
        });
    }
    Ok(report)
}

pub fn run(args: KernelArgs) -> anyhow::Result<i32> {
    let host = args.machine.host()?;
    let today = match &args.today {
        Some(d) => d
            .parse::<jiff::civil::Date>()
            .with_context(|| format!("--today {d}: expected a date as YYYY-MM-DD"))?,
        None => jiff::Zoned::now().date(),
    };
    let inv = Inventory::probe(&host);
    let report = report(
        &host,
        &inv,
        args.releases.as_deref(),
        args.kernel_log.as_deref(),
        today,
    )?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", truebench_render::kernel::render(&report))?;
    }
    Ok(0)
}
