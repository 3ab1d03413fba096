//! `truebench interactivity`: interbench's interactivity benchmark on the periodic-task
//! engine — simulated Audio/Video/X/Gaming/Custom tasks alone and under background loads.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::MachineArgs;
use truebench_host::Inventory;
use truebench_model::InteractivityBody;
use truebench_render::kinds::Render;
use truebench_suites::progress::Event;
use truebench_suites::interactivity::{
    self as suite, Bench, CustomTask, InteractivityOptions, Work,
};
use truebench_workloads::loads::LoadKind;

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct InteractivityArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub power: crate::power::PowerArgs,
    #[command(flatten)]
    pub sample: crate::cli::SampleArgs,
    /// No progress on stderr (errors and warnings still); without it, progress goes to
    /// stderr with --json too.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Simulated tasks to benchmark, comma-separated: audio, video, x, gaming, custom
    /// (default: audio,video,x,gaming; custom needs --custom-cpu and --custom-interval).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub benchmarks: Vec<String>,
    /// Background loads, comma-separated: none, video, x, burn, write, read, compile,
    /// memload, hack, custom (default: all but hack and custom, as interbench).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub loads: Vec<String>,
    /// Leave these benchmarks or loads out (comma-separated names of either).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub exclude: Vec<String>,
    /// Seconds per cell (interbench: 30).
    #[arg(long, value_name = "S", default_value_t = 30.0)]
    pub duration: f64,
    /// A few minutes in all: 3 s per cell.
    #[arg(long, conflicts_with = "duration")]
    pub quick: bool,
    /// Benchmark Audio and Video with SCHED_FIFO (needs root or CAP_SYS_NICE) and lock memory;
    /// latencies in µs.
    #[arg(long)]
    pub realtime: bool,
    /// Nice level of the benchmarked tasks.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub nice_bench: i32,
    /// Nice level of the loads.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub nice_load: i32,
    /// Custom task: % of one CPU it uses…
    #[arg(long, value_name = "PCT")]
    pub custom_cpu: Option<f64>,
    /// …every this many microseconds.
    #[arg(long, value_name = "US")]
    pub custom_interval: Option<u64>,
    /// Threads of the Burn load (default: online CPUs).
    #[arg(long, value_name = "N")]
    pub burn_threads: Option<u32>,
    /// Work per period as a fixed wall time instead of calibrated loops (a fixed amount of
    /// work, which a slower clock takes longer to do — the default, as interbench).
    #[arg(long)]
    pub wall_time: bool,
    /// Use this many loops per millisecond instead of calibrating (interbench -l).
    #[arg(long, value_name = "N")]
    pub loops_per_ms: Option<u64>,
    /// Calibrate again even when this machine's calibration is cached (interbench -b).
    #[arg(long)]
    pub recalibrate: bool,
    /// Directory for the Write and Read loads' scratch files (removed afterwards); on a disk,
    /// not tmpfs.
    #[arg(long, value_name = "DIR", default_value = "/var/tmp")]
    pub scratch_dir: PathBuf,
    /// Do not pin the clock to its maximum while calibrating.
    /// (--no-tune is the old spelling, still taken.) Env NOTUNING too.
    #[arg(long, alias = "no-tune")]
    pub no_tuning: bool,
    /// Print the result document as JSON on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: crate::keep::StoreArgs,
}

fn parse_lists(args: &InteractivityArgs) -> anyhow::Result<(Vec<Bench>, Vec<LoadKind>)> {
    let mut benches = Vec::new();
    for b in &args.benchmarks {
        benches.push(Bench::parse(b).ok_or_else(|| {
            anyhow::anyhow!("--benchmarks {b}: unknown; expected audio, video, x, gaming or custom")
        })?);
    }
    if benches.is_empty() {
        benches = vec![Bench::Audio, Bench::Video, Bench::X, Bench::Gaming];
        if args.custom_cpu.is_some() {
            benches.push(Bench::Custom);
        }
    }
    let mut loads = Vec::new();
    for l in &args.loads {
        loads.push(LoadKind::parse(l).ok_or_else(|| {
            anyhow::anyhow!("--loads {l}: unknown; expected none, video, x, burn, write, read, compile, memload, hack or custom")
        })?);
    }
    if loads.is_empty() {
        loads = LoadKind::ALL
            .into_iter()
            .filter(|l| !matches!(l, LoadKind::Hack | LoadKind::Custom))
            .collect();
        if args.custom_cpu.is_some() {
            loads.push(LoadKind::Custom);
        }
    }
    for x in &args.exclude {
        let (b, l) = (Bench::parse(x), LoadKind::parse(x));
        if b.is_none() && l.is_none() {
            anyhow::bail!("--exclude {x}: neither a benchmark nor a load");
        }
        benches.retain(|y| Some(*y) != b);
        loads.retain(|y| Some(*y) != l);
    }
    if benches.is_empty() || loads.is_empty() {
        anyhow::bail!("nothing to measure: every benchmark or every load is excluded");
    }
    dedup(&mut benches);
    dedup(&mut loads);
    Ok((benches, loads))
}

fn dedup<T: PartialEq + Copy>(v: &mut Vec<T>) {
    let mut seen = Vec::new();
    v.retain(|x| {
        let new = !seen.contains(x);
        seen.push(*x);
        new
    });
}

/// `$XDG_CACHE_HOME/truebench/calibration.json`, else `~/.cache/…`.
pub(crate) fn cache_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("truebench").join("calibration.json"))
}

pub fn run(args: InteractivityArgs) -> anyhow::Result<i32> {
    let (benchmarks, loads) = parse_lists(&args)?;
    let custom = match (args.custom_cpu, args.custom_interval) {
        (Some(c), Some(i)) => {
            if !(c > 0.0 && c <= 100.0) {
                anyhow::bail!("--custom-cpu {c}: must be above 0 and at most 100 (% of one CPU)");
            }
            if i < 100 {
                anyhow::bail!("--custom-interval {i}: must be at least 100 µs");
            }
            Some(CustomTask {
                cpu_pct: c,
                interval_us: i,
            })
        }
        (None, None) => None,
        _ => anyhow::bail!("--custom-cpu and --custom-interval go together"),
    };
    let duration = if args.quick { 3.0 } else { args.duration };
    if !(duration.is_finite() && duration >= 0.5) {
        anyhow::bail!("--duration {duration}: must be at least 0.5 seconds");
    }
    if args.loops_per_ms == Some(0) {
        anyhow::bail!("--loops-per-ms 0: must be a positive number of loops");
    }
    if !args.scratch_dir.is_dir() {
        anyhow::bail!(
            "--scratch-dir {}: not a directory",
            args.scratch_dir.display()
        );
    }
    let host = args.machine.host()?;
    if !host.is_live() {
        anyhow::bail!(
            "--root {}: interactivity measures this machine; a recorded root cannot run tasks",
            host.root().display()
        );
    }
    let inv = Inventory::probe(&host);
    let _lock = crate::exit::lock()?;
    let opts = InteractivityOptions {
        benchmarks,
        loads,
        duration: Duration::from_secs_f64(duration),
        realtime: args.realtime,
        bench_nice: args.nice_bench,
        load_nice: args.nice_load,
        custom,
        burn_threads: args.burn_threads,
        work: if args.wall_time {
            Work::Wall
        } else {
            Work::Loops
        },
        loops_per_ms: args.loops_per_ms,
        recalibrate: args.recalibrate,
        cache: cache_path(),
        scratch_dir: args.scratch_dir.clone(),
        tune: !(args.no_tuning || crate::cli::notuning_env()),
        sample_interval: args.sample.or(Duration::from_secs(1))?,
        truebench_version: env!("CARGO_PKG_VERSION").into(),
        meter: args.power.start()?,
    };
    let cells = opts.benchmarks.len() * opts.loads.len();
    let quiet = args.json || args.quiet;
    let mut progress = crate::progress::Progress::for_command(args.quiet, args.json);
    progress.event(Event::headline(format!(
        "interactivity: up to {cells} cells of {duration} s (about {} min); Ctrl-C keeps what was measured",
        ((cells as f64 * (duration + 1.0)) / 60.0).ceil()
    )));
    let stop = truebench_tuning::graceful_interrupts();
    let result = suite::run(&host, &inv, &opts, stop, &mut |e| progress.event(e))?;
    drop(progress);
    crate::keep::store(&result, &args.store, quiet);
    let mut out = crate::out::stdout();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        write!(out, "{}", InteractivityBody::summary(result.view()))?;
    }
    out.flush()?;
    Ok(crate::exit::of(&result.envelope, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(a: &[&str]) -> InteractivityArgs {
        #[derive(clap::Parser)]
        struct T {
            #[command(flatten)]
            a: InteractivityArgs,
        }
        let mut v = vec!["t"];
        v.extend_from_slice(a);
        T::parse_from(v).a
    }

    #[test]
    fn defaults_are_interbenchs() {
        let (b, l) = parse_lists(&args(&[])).unwrap();
        assert_eq!(b, [Bench::Audio, Bench::Video, Bench::X, Bench::Gaming]);
        assert_eq!(l.len(), 8);
        assert!(!l.contains(&LoadKind::Hack));
    }

    #[test]
    fn lists_and_exclusions() {
        let (b, l) = parse_lists(&args(&[
            "--benchmarks",
            "audio,X",
            "--loads",
            "none,burn,burn",
            "--exclude",
            "x",
        ]))
        .unwrap();
        assert_eq!(b, [Bench::Audio]);
        // `x` names a load too: excluded there as well; duplicates dropped.
        assert_eq!(l, [LoadKind::None, LoadKind::Burn]);
        let e = parse_lists(&args(&["--loads", "disco"])).unwrap_err();
        assert!(e.to_string().contains("--loads disco"), "{e}");
        let e = parse_lists(&args(&["--exclude", "audio,video,x,gaming"])).unwrap_err();
        assert!(e.to_string().contains("nothing to measure"), "{e}");
    }
}
