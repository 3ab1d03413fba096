//! `truebench interactivity`: interbench's interactivity benchmark on the periodic-task
//! engine — simulated Audio/Video/X/Gaming/Custom tasks alone and under background loads.

use std::path::PathBuf;
use std::time::Duration;

use crate::frame::{MeasureArgs, Show};
use truebench_suites::progress::Event;
use truebench_suites::interactivity::{
    self as suite, Bench, CustomTask, InteractivityOptions, Work,
};
use truebench_workloads::loads::LoadKind;

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct InteractivityArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Simulated tasks to benchmark, comma-separated: audio, video, x, gaming, custom
    /// (default: audio,video,x,gaming; custom needs --custom-cpu and --custom-interval).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = bench)]
    pub benchmarks: Vec<Bench>,
    /// Background loads, comma-separated: none, video, x, burn, write, read, compile,
    /// memload, hack, custom (default: all but hack and custom, as interbench).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = load)]
    pub loads: Vec<LoadKind>,
    /// Leave these benchmarks or loads out (comma-separated names of either).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = excluded)]
    pub exclude: Vec<(Option<Bench>, Option<LoadKind>)>,
    /// Seconds per cell (interbench: 30; at least 0.5).
    #[arg(long, value_name = "S", default_value_t = 30.0, value_parser = crate::values::TEST_SECONDS)]
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
    /// Custom task: % of one CPU it uses (above 0, at most 100)…
    #[arg(long, value_name = "PCT", value_parser = crate::values::PERCENT)]
    pub custom_cpu: Option<f64>,
    /// …every this many microseconds (at least 100).
    #[arg(long, value_name = "US", value_parser = crate::values::PERIOD_US)]
    pub custom_interval: Option<u64>,
    /// Threads of the Burn load (default: online CPUs).
    #[arg(long, value_name = "N")]
    pub burn_threads: Option<u32>,
    /// Work per period as a fixed wall time instead of calibrated loops (a fixed amount of
    /// work, which a slower clock takes longer to do — the default, as interbench).
    #[arg(long)]
    pub wall_time: bool,
    /// Use this many loops per millisecond instead of calibrating (interbench -l).
    #[arg(long, value_name = "N", value_parser = crate::values::AT_LEAST_ONE)]
    pub loops_per_ms: Option<u64>,
    /// Calibrate again even when this machine's calibration is cached (interbench -b).
    #[arg(long)]
    pub recalibrate: bool,
    /// Directory for the Write and Read loads' scratch files (removed afterwards); on a disk,
    /// not tmpfs.
    #[arg(long, value_name = "DIR", default_value = "/var/tmp", value_parser = crate::values::DIRECTORY)]
    pub scratch_dir: PathBuf,
}

const BENCHES: &str = "expected audio, video, x, gaming or custom";
const LOADS: &str =
    "expected none, video, x, burn, write, read, compile, memload, hack or custom";

fn bench(s: &str) -> Result<Bench, String> {
    Bench::parse(s).ok_or_else(|| format!("unknown; {BENCHES}"))
}

fn load(s: &str) -> Result<LoadKind, String> {
    LoadKind::parse(s).ok_or_else(|| format!("unknown; {LOADS}"))
}

/// A name of a benchmark, a load, or both (`x`, `video`).
fn excluded(s: &str) -> Result<(Option<Bench>, Option<LoadKind>), String> {
    match (Bench::parse(s), LoadKind::parse(s)) {
        (None, None) => Err("neither a benchmark nor a load".into()),
        both => Ok(both),
    }
}

fn parse_lists(args: &InteractivityArgs) -> anyhow::Result<(Vec<Bench>, Vec<LoadKind>)> {
    let mut benches = args.benchmarks.clone();
    if benches.is_empty() {
        benches = vec![Bench::Audio, Bench::Video, Bench::X, Bench::Gaming];
        if args.custom_cpu.is_some() {
            benches.push(Bench::Custom);
        }
    }
    let mut loads = args.loads.clone();
    if loads.is_empty() {
        loads = LoadKind::ALL
            .into_iter()
            .filter(|l| !matches!(l, LoadKind::Hack | LoadKind::Custom))
            .collect();
        if args.custom_cpu.is_some() {
            loads.push(LoadKind::Custom);
        }
    }
    for &(b, l) in &args.exclude {
        benches.retain(|y| Some(*y) != b);
        loads.retain(|y| Some(*y) != l);
    }
    if benches.is_empty() || loads.is_empty() {
        anyhow::bail!("nothing to measure: every benchmark or every load is excluded");
    }
    crate::frame::dedup(&mut benches);
    crate::frame::dedup(&mut loads);
    Ok((benches, loads))
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
    // A relation of two flags, which no parser of one value can hold.
    anyhow::ensure!(
        args.custom_cpu.is_some() == args.custom_interval.is_some(),
        "--custom-cpu and --custom-interval go together"
    );
    let custom = match (args.custom_cpu, args.custom_interval) {
        (Some(c), Some(i)) => Some(CustomTask {
            cpu_pct: c,
            interval_us: i,
        }),
        _ => None,
    };
    let duration = if args.quick { 3.0 } else { args.duration };
    let mut frame = args.measure.open()?;
    frame.require_live("interactivity measures this machine; a recorded root cannot run tasks")?;
    let meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
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
        tune: args.measure.tune(),
        sample_interval: args.measure.sample.or(Duration::from_secs(1)),
        truebench_version: env!("CARGO_PKG_VERSION").into(),
        meter,
    };
    let cells = opts.benchmarks.len() * opts.loads.len();
    let mut progress = args.measure.progress();
    progress.event(Event::headline(format!(
        "interactivity: up to {cells} cells of {duration} s (about {} min); Ctrl-C keeps what was measured",
        ((cells as f64 * (duration + 1.0)) / 60.0).ceil()
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

    #[derive(clap::Parser)]
    struct T {
        #[command(flatten)]
        a: InteractivityArgs,
    }

    fn args(a: &[&str]) -> InteractivityArgs {
        let mut v = vec!["t"];
        v.extend_from_slice(a);
        T::parse_from(v).a
    }

    /// A refused value as `main` prints it.
    fn refusal(a: &[&str]) -> String {
        let v: Vec<String> = std::iter::once("t").chain(a.iter().copied()).map(String::from).collect();
        let e = T::try_parse_from(&v).map(|_| ()).unwrap_err();
        let cmd = <T as clap::CommandFactory>::command();
        crate::values::refusal_text(&e, &v, &cmd).unwrap_or_else(|| e.to_string())
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
        let e = refusal(&["--loads", "disco"]);
        assert!(e.contains("--loads disco"), "{e}");
        let e = parse_lists(&args(&["--exclude", "audio,video,x,gaming"])).unwrap_err();
        assert!(e.to_string().contains("nothing to measure"), "{e}");
    }
}
