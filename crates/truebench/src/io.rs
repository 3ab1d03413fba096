//! `truebench io`: storage reads — cached (hdparm -T), sequential O_DIRECT (hdparm -t
//! --direct), 4 KiB random O_DIRECT at queue depth 1 (fio psync) — with what holds the target,
//! the CPU each costs, and optionally the cpufreq sweep. Never writes to a device; a scratch
//! file is written only where `--file` names a path that does not exist, and removed.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::MachineArgs;
use truebench_host::Inventory;
use truebench_model::io::TargetKind;
use truebench_model::IoBody;
use truebench_render::kinds::Render;
use truebench_suites::io::{self as suite, Event, IoOptions};
use truebench_workloads::io::{self as wio, IoTest, Scratch};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["device", "file"])))]
pub struct IoArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub power: crate::power::PowerArgs,
    #[command(flatten)]
    pub sample: crate::cli::SampleArgs,
    /// Change no setting: the measurement runs as the machine is, and --sweep (which sets
    /// cpufreq governors and clocks) is refused. (--no-tune is taken too.) Env NOTUNING too.
    #[arg(long, alias = "no-tune")]
    pub no_tuning: bool,
    /// No progress on stderr (errors and warnings still); without it, progress goes to
    /// stderr with --json too.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Block device to read (read only; needs root or the `disk` group).
    #[arg(long, value_name = "DEV")]
    pub device: Option<PathBuf>,
    /// File to read; when it does not exist, a scratch file of --size MiB is written there
    /// and removed afterwards (also on Ctrl-C). An existing file is only read.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// MiB to read from (default: the whole file or device; 256 for a scratch file).
    #[arg(long, value_name = "MIB")]
    pub size: Option<u64>,
    /// Tests, comma-separated: cached, sequential, random.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "cached,sequential,random"
    )]
    pub tests: Vec<String>,
    /// Seconds per test.
    #[arg(long, value_name = "S", default_value_t = 5.0)]
    pub duration: f64,
    /// Run every test this many times, in alternating order, for the spread.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub repeat: u32,
    /// Repeat the tests under cpufreq settings (`max`, `min`, `governor:NAME`, `opps`), through
    /// the journaled Tuning and restored; the machine as it is runs first. Needs root.
    #[arg(long, value_name = "LIST")]
    pub sweep: Option<String>,
    /// A core at least this busy (%) during a test makes it CPU-bound.
    #[arg(long, value_name = "PCT", default_value_t = 95.0)]
    pub cpu_bound: f64,
    /// Print the result document as JSON on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: crate::keep::StoreArgs,
}

fn parse_tests(list: &[String]) -> anyhow::Result<Vec<IoTest>> {
    let mut out = Vec::new();
    for t in list {
        let x = match t.trim() {
            "cached" => IoTest::Cached,
            "sequential" | "seq" => IoTest::Sequential,
            "random" | "rand" => IoTest::Random,
            other => anyhow::bail!("--tests {other}: expected cached, sequential or random"),
        };
        if !out.contains(&x) {
            out.push(x);
        }
    }
    if out.is_empty() {
        anyhow::bail!("--tests: name at least one of cached, sequential, random");
    }
    Ok(out)
}

pub fn run(args: IoArgs) -> anyhow::Result<i32> {
    let tests = parse_tests(&args.tests)?;
    if !(args.duration.is_finite() && args.duration >= 0.2) {
        anyhow::bail!("--duration {}: must be at least 0.2 seconds", args.duration);
    }
    if args.repeat == 0 || args.size == Some(0) {
        anyhow::bail!("--repeat and --size must be at least 1");
    }
    if !(args.cpu_bound > 0.0 && args.cpu_bound <= 100.0) {
        anyhow::bail!(
            "--cpu-bound {}: expected a share in (0, 100] %",
            args.cpu_bound
        );
    }
    let host = args.machine.host()?;
    let inv = Inventory::probe(&host);
    crate::cli::sweep_allowed(args.sweep.is_some(), args.no_tuning)?;
    let sweep = match &args.sweep {
        Some(spec) => {
            let cpu = irq_cpu(&host, &args, spec);
            truebench_suites::net_sweep::parse(spec, &inv, cpu).map_err(anyhow::Error::msg)?
        }
        None => Vec::new(),
    };
    // The target: a device or an existing file are only read; a new file is a scratch file.
    // A scratch file a killed run left at this path is ours to remove (never a user's file:
    // only one with our marker naming a dead process).
    if let Some(f) = &args.file {
        if Scratch::remove_stale(f) && !args.json {
            errln!(
                "truebench: io: removed {}, left by a killed run",
                f.display()
            );
        }
    }
    let (path, kind, scratch) = match (&args.device, &args.file) {
        (Some(d), _) => {
            let meta = std::fs::metadata(d)
                .map_err(|e| anyhow::anyhow!("--device {}: {e}", d.display()))?;
            use std::os::unix::fs::FileTypeExt;
            if !meta.file_type().is_block_device() {
                anyhow::bail!(
                    "--device {}: not a block device (use --file for files)",
                    d.display()
                );
            }
            (d.clone(), TargetKind::BlockDevice, None)
        }
        (None, Some(f)) if f.exists() => {
            if !f.is_file() {
                anyhow::bail!("--file {}: not a regular file", f.display());
            }
            (f.clone(), TargetKind::File, None)
        }
        (None, Some(f)) => {
            let mib = args.size.unwrap_or(256);
            if !args.json {
                errln!(
                    "truebench: io: writing a {mib} MiB scratch file {} (removed afterwards)…",
                    f.display()
                );
            }
            let s = Scratch::create(f, mib << 20)?;
            (f.clone(), TargetKind::ScratchFile, Some(s))
        }
        (None, None) => anyhow::bail!("give --device DEV or --file PATH"),
    };
    let whole = wio::size_of(&path)?;
    let size = args.size.map_or(whole, |m| (m << 20).min(whole));
    let abs = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let storage = truebench_host::inventory::storage_under(&host, &abs.to_string_lossy());
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
    // One measurement at a time, refused before the meter or anything else starts.
    let _lock = crate::exit::lock()?;
    let opts = IoOptions {
        path: path.clone(),
        target_kind: kind,
        size_bytes: size,
        storage,
        warnings,
        tests,
        duration: Duration::from_secs_f64(args.duration),
        repeat: args.repeat,
        cpu_bound_pct: args.cpu_bound,
        sweep,
        sample_interval: args.sample.or(Duration::from_secs(1))?,
        truebench_version: env!("CARGO_PKG_VERSION").into(),
        meter: args.power.start()?,
    };
    let quiet = args.json || args.quiet;
    let mut steps = crate::progress::steps::Steps::new(args.quiet, args.json);
    steps.headline(&format!(
        "io: {}, reading {} (never writing to it); Ctrl-C keeps what was measured",
        crate::progress::steps::plan(
            opts.tests.len(),
            opts.repeat,
            opts.sweep.len(),
            args.duration
        ),
        path.display()
    ));
    let stop = truebench_tuning::graceful_interrupts();
    let per_test = args.duration;
    let mut events = |e: Event<'_>| match e {
        Event::Test {
            index,
            total,
            name,
            setting,
        } => steps.step(index, total, &format!("{name} ({setting})"), Some(per_test)),
        Event::TestEnd(r) => steps.score(&format!(
            "{}{}{}",
            r.evidence.status,
            r.mb_s
                .map(|m| format!(", {m:.1} MB/s, {:.0} IOPS", r.iops.unwrap_or(0.0)))
                .unwrap_or_default(),
            r.evidence.reason
                .as_ref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default()
        )),
        Event::Note(n) => steps.note(&n),
    };
    let result = suite::run(&host, &inv, &opts, stop, &mut events);
    drop(steps);
    // The scratch file goes before anything else can fail.
    drop(scratch);
    let result = result?;
    crate::keep::store(&result, &args.store, quiet);
    let mut out = crate::out::stdout();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        write!(out, "{}", IoBody::summary(result.view()))?;
    }
    out.flush()?;
    let failed = result
        .body
        .rows
        .iter()
        .any(|r| r.evidence.status == truebench_model::PhaseStatus::Failed);
    Ok(crate::exit::of(&result.envelope, failed))
}

/// For `--sweep opps`: the CPU that takes the interrupts of the disk under the target, said on
/// stderr; None (CPU 0's cluster) when it cannot be told.
fn irq_cpu(host: &truebench_host::Host, args: &IoArgs, spec: &str) -> Option<u32> {
    if !spec.split(',').any(|s| s.trim() == "opps") {
        return None;
    }
    let target = match (&args.device, &args.file) {
        (Some(d), _) => d.display().to_string(),
        (None, Some(f)) if f.exists() => f.display().to_string(),
        // A scratch file is written where its folder is.
        (None, Some(f)) => f
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        (None, None) => return None,
    };
    let truebench_suites::net_sweep::IrqCpu {
        device: disk,
        cpu: found,
    } = truebench_suites::net_sweep::disk_irq_cpu(host, &target);
    if !args.json {
        match (&disk, &found) {
            (Some(d), Some((cpu, irqs))) => errln!(
                "truebench: io: --sweep opps walks the cluster of cpu{cpu}, which takes {d}'s interrupts (IRQ {})",
                irqs.join(",")
            ),
            _ => errln!(
                "truebench: io: --sweep opps walks cpu0's cluster (which CPU takes the disk's interrupts could not be told)"
            ),
        }
    }
    found.map(|(cpu, _)| cpu)
}
