//! `truebench io`: storage reads — cached (hdparm -T), sequential O_DIRECT (hdparm -t
//! --direct), 4 KiB random O_DIRECT at queue depth 1 (fio psync) — with what holds the target,
//! the CPU each costs, and optionally the cpufreq sweep. Never writes to a device; a scratch
//! file is written only where `--file` names a path that does not exist, and removed.

use std::path::PathBuf;
use std::time::Duration;

use crate::frame::{MeasureArgs, Show};
use crate::sweep::SweepArgs;
use truebench_model::io::TargetKind;
use truebench_suites::io::{self as suite, IoOptions};
use truebench_suites::progress::Event;
use truebench_workloads::io::{self as wio, IoTest, Scratch};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["device", "file"])))]
pub struct IoArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Block device to read (read only; needs root or the `disk` group).
    #[arg(long, value_name = "DEV", value_parser = crate::values::BLOCK_DEVICE)]
    pub device: Option<PathBuf>,
    /// File to read; when it does not exist, a scratch file of --size MiB is written there
    /// and removed afterwards (also on Ctrl-C). An existing file is only read.
    #[arg(long, value_name = "PATH", value_parser = crate::values::FILE_OR_ABSENT)]
    pub file: Option<PathBuf>,
    /// MiB to read from (at least 1; default: the whole file or device; 256 for a scratch
    /// file).
    #[arg(long, value_name = "MIB", value_parser = crate::values::AT_LEAST_ONE)]
    pub size: Option<u64>,
    /// Tests, comma-separated: cached, sequential, random.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "cached,sequential,random",
        value_parser = io_test
    )]
    pub tests: Vec<IoTest>,
    /// Seconds per test (at least 0.2).
    #[arg(long, value_name = "S", default_value_t = 5.0, value_parser = crate::values::IO_SECONDS)]
    pub duration: f64,
    #[command(flatten)]
    pub sweep: SweepArgs,
}

pub(crate) fn io_test(s: &str) -> Result<IoTest, String> {
    match s.trim() {
        "cached" => Ok(IoTest::Cached),
        "sequential" | "seq" => Ok(IoTest::Sequential),
        "random" | "rand" => Ok(IoTest::Random),
        _ => Err("expected cached, sequential or random".into()),
    }
}

pub fn run(args: IoArgs) -> anyhow::Result<i32> {
    let mut tests = args.tests.clone();
    crate::frame::dedup(&mut tests);
    args.sweep.allowed(&args.measure)?;
    let mut frame = args.measure.open()?;
    let sweep = args
        .sweep
        .settings("io", "disk", &frame, |host| {
            disk_irq_cpu(host, &args)
        })?;
    // One measurement at a time: refused before a scratch file, the meter or anything else
    // is started.
    let meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    // The target: a device or an existing file are only read; a new file is a scratch file.
    // A scratch file a killed run left at this path is ours to remove (never a user's file:
    // only one with our marker naming a dead process).
    if let Some(f) = &args.file {
        if Scratch::remove_stale(f) && !args.measure.output.machine() && !args.measure.output.quiet {
            errln!(
                "truebench: io: removed {}, left by a killed run",
                f.display()
            );
        }
    }
    let (path, kind, scratch) = match (&args.device, &args.file) {
        (Some(d), _) => (d.clone(), TargetKind::BlockDevice, None),
        (None, Some(f)) if f.exists() => (f.clone(), TargetKind::File, None),
        (None, Some(f)) => {
            let mib = args.size.unwrap_or(256);
            if !args.measure.output.machine() && !args.measure.output.quiet {
                errln!(
                    "truebench: io: writing a {mib} MiB scratch file {} (removed afterwards)…",
                    f.display()
                );
            }
            let s = Scratch::create(f, mib << 20)?;
            (f.clone(), TargetKind::ScratchFile, Some(s))
        }
        // clap requires one of them; said anyway rather than assumed.
        (None, None) => return Err(anyhow::anyhow!("give --device DEV or --file PATH")),
    };
    let whole = wio::size_of(&path)?;
    let size = args.size.map_or(whole, |m| (m << 20).min(whole));
    let abs = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let storage = truebench_host::inventory::storage_under(host, &abs.to_string_lossy());
    let mut warnings = Vec::new();
    let direct = wio::direct_supported(&path)?;
    if !direct {
        warnings.push(format!(
            "{}: the filesystem refuses O_DIRECT, so the sequential and random figures can only be the page cache's",
            path.display()
        ));
    }
    if storage.is_none() {
        warnings
            .push("no block device found under the target: the figures are not a disk's".into());
    }
    let mem = host
        .meminfo()
        .ok()
        .and_then(|m| m.mem_total_kb)
        .map(|k| k * 1024);
    if tests.contains(&IoTest::Cached) && mem.is_some_and(|m| size > m) {
        warnings.push(
            "the target is larger than RAM: only its first 2 MiB are read for the cached test"
                .into(),
        );
    }
    let opts = IoOptions {
        path: path.clone(),
        target_kind: kind,
        size_bytes: size,
        storage,
        warnings,
        plan: args.sweep.plan(tests, args.duration, sweep),
        sample_interval: args.measure.sample.or(Duration::from_secs(1)),
        truebench_version: env!("CARGO_PKG_VERSION").into(),
        meter,
    };
    let mut progress = args.measure.progress();
    let doing = format!(", reading {} (never writing to it)", path.display());
    progress.event(Event::headline(crate::sweep::headline(
        "io",
        &opts.plan,
        args.duration,
        &doing,
        false,
    )));
    let stop = truebench_tuning::graceful_interrupts();
    let result = suite::run(host, inv, &opts, stop, &mut |e| progress.event(e));
    drop(progress);
    // The scratch file goes before anything else can fail.
    drop(scratch);
    let result = result?;
    frame.finish(result, Show::Summary)
}

/// For `--sweep opps`: the disk under the target and the CPU that takes its interrupts.
fn disk_irq_cpu(host: &truebench_host::Host, args: &IoArgs) -> truebench_suites::sweep::IrqCpu {
    let target = match (&args.device, &args.file) {
        (Some(d), _) => d.display().to_string(),
        (None, Some(f)) if f.exists() => f.display().to_string(),
        // A scratch file is written where its folder is.
        (None, Some(f)) => f
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        (None, None) => return Default::default(),
    };
    truebench_suites::sweep::disk_irq_cpu(host, &target)
}
