//! `truebench governors`: cpufreq governor efficiency (the Linux governor-efficiency study, its flaws
//! fixed) — periodic task sets under every governor; miss ratio, efficiency, clocks, energy.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::frame::{MeasureArgs, Show};
use truebench_host::Inventory;
use truebench_suites::governors::{self as suite, GovernorsOptions};
use truebench_suites::progress::Event;
use truebench_suites::interactivity::Work;
use truebench_workloads::periodic::taskset::{self, RtAppDoc};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct GovernorsArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Governors to compare, comma-separated (default: every one in
    /// scaling_available_governors; `userspace` runs pinned at the top and at a middle OPP,
    /// `userspace@max`/`userspace@mid` one of them).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub governors: Vec<String>,
    /// Utilisation levels in CPUs: FROM:TO:STEPS or a list (default 1.0 to twice the CPUs,
    /// 10 levels, as the study).
    #[arg(long, value_name = "SPEC", value_parser = utilisations)]
    pub utilisations: Option<Utilisations>,
    /// Tasks per set (default 10, more when the highest utilisation needs them: no task may
    /// ask for more than one CPU).
    #[arg(long, value_name = "N", value_parser = crate::values::AT_LEAST_ONE)]
    pub tasks: Option<u64>,
    /// Sets per utilisation level (at least 1).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = crate::values::AT_LEAST_ONE)]
    pub sets: u64,
    /// Seconds each set runs (at least 0.5).
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = crate::values::TEST_SECONDS)]
    pub duration: f64,
    /// Shortest and longest period in ms, log-uniform between (MIN:MAX).
    #[arg(long, value_name = "MIN:MAX", default_value = "5:500", value_parser = periods)]
    pub periods: (f64, f64),
    /// Seed of the task sets and of the run order (the same seed gives the same sets on any
    /// machine).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Run every governor this many times (in a new shuffled order each time) for the spread.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::values::AT_LEAST_ONE)]
    pub repeat: u64,
    /// A few minutes in all: 3 levels, 1 set each, 3 s per set.
    #[arg(long, conflicts_with_all = ["duration", "sets"])]
    pub quick: bool,
    /// Work per period as a fixed wall time (the original study's model, blind to a slow
    /// clock) instead of calibrated loops (a fixed amount of work).
    #[arg(long)]
    pub wall_time: bool,
    /// Use this many loops per millisecond instead of calibrating.
    #[arg(long, value_name = "N", value_parser = crate::values::AT_LEAST_ONE)]
    pub loops_per_ms: Option<u64>,
    /// Calibrate again even when this machine's calibration is cached.
    #[arg(long)]
    pub recalibrate: bool,
    /// Between governors wait for the SoC to cool to C °C (default: the starting temperature
    /// + 1 °C; -40 to 150).
    #[arg(long, value_name = "C", value_parser = crate::values::CELSIUS, allow_negative_numbers = true)]
    pub cool_to: Option<f64>,
    /// Longest wait for cooling between governors, seconds (0 to 86400).
    #[arg(long, value_name = "S", default_value_t = 300.0, value_parser = crate::values::TIMEOUT, allow_negative_numbers = true)]
    pub cool_timeout: f64,
    /// Write the task sets as rt-app JSON files into DIR (one per set) and exit without
    /// running them.
    #[arg(long, value_name = "DIR")]
    pub export_rt_app: Option<PathBuf>,
    /// Write the frequency log (every policy at 20 Hz during each governor's run) as CSV:
    /// `t_s,governor,policyN_khz…` (never over an existing file).
    #[arg(long, value_name = "FILE", value_parser = crate::values::NEW_FILE)]
    pub freq_log: Option<PathBuf>,
}

/// Utilisation levels in CPUs, as `--utilisations` gives them.
#[derive(Debug, Clone)]
pub struct Utilisations(Vec<f64>);

fn utilisations(s: &str) -> Result<Utilisations, String> {
    taskset::parse_utilisations(s)
        .map(Utilisations)
        .map_err(|e| e.to_string())
}

fn periods(s: &str) -> Result<(f64, f64), String> {
    let bad = || "expected MIN:MAX in ms with 0 < MIN ≤ MAX, e.g. 5:500".to_string();
    let (a, b) = s.split_once(':').ok_or_else(bad)?;
    let (a, b): (f64, f64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if !(a > 0.0 && b >= a && b.is_finite()) {
        return Err(bad());
    }
    Ok((a, b))
}

/// Write one rt-app file per set; never over an existing file.
fn export(dir: &Path, sets: &[taskset::TaskSet], seconds: u64) -> anyhow::Result<usize> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("--export-rt-app {}: cannot create: {e}", dir.display()))?;
    let logdir = dir.display().to_string();
    for s in sets {
        let path = dir.join(format!("{}.json", s.id));
        let text = serde_json::to_string_pretty(&RtAppDoc::new(s, seconds, None, &logdir))?;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                anyhow::anyhow!("{}: cannot create ({e}); not overwriting", path.display())
            })?;
        f.write_all(text.as_bytes())
            .and_then(|_| f.write_all(b"\n"))
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(sets.len())
}

pub fn run(args: GovernorsArgs) -> anyhow::Result<i32> {
    let (sets, duration) = if args.quick {
        (1, 3.0)
    } else {
        (args.sets as u32, args.duration)
    };
    let mut frame = args.measure.open()?;
    let (host, inv) = (&frame.host, &frame.inv);
    // The task sets run on this machine's CPUs: sized by them, also with --root of a recorded
    // tree (whose CPUs only lend their cpufreq settings).
    let ncpus = if host.is_live() {
        inv.online_cpus().count()
    } else {
        Inventory::probe(&truebench_host::Host::live())
            .online_cpus()
            .count()
    }
    .max(1);
    let utilisations = match (&args.utilisations, args.quick) {
        (Some(u), _) => u.0.clone(),
        // The study's range: from one CPU to twice the CPUs.
        (None, quick) => {
            let spec = format!("1.0:{}:{}", 2 * ncpus, if quick { 3 } else { 10 });
            taskset::parse_utilisations(&spec)
                .map_err(|e| anyhow::anyhow!("the default utilisations {spec}: {e}"))?
        }
    };
    let top = utilisations.iter().copied().fold(0.0, f64::max);
    let tasks = args
        .tasks
        .map_or_else(|| suite::default_tasks(top), |t| t as usize);
    let opts = GovernorsOptions {
        governors: (!args.governors.is_empty()).then(|| args.governors.clone()),
        utilisations,
        tasks,
        sets,
        set_duration: Duration::from_secs_f64(duration),
        period_ms: args.periods,
        seed: args.seed,
        repeat: args.repeat as u32,
        work: if args.wall_time {
            Work::Wall
        } else {
            Work::Loops
        },
        loops_per_ms: args.loops_per_ms,
        recalibrate: args.recalibrate,
        cache: crate::interactivity::cache_path(),
        cool_to: args.cool_to,
        cool_timeout: Duration::from_secs_f64(args.cool_timeout),
        tune: args.measure.tune(),
        sample_interval: args.measure.sample.or(Duration::from_secs(1)),
        truebench_version: env!("CARGO_PKG_VERSION").into(),
        meter: None,
    };
    // Drawn once, before anything starts: impossible sets are refused at once.
    let all = suite::task_sets(&opts)?;
    if let Some(dir) = &args.export_rt_app {
        let n = export(dir, &all, duration.ceil() as u64)?;
        errln!(
            "truebench: wrote {n} rt-app files to {} (run each with `rt-app FILE`)",
            dir.display()
        );
        return Ok(0);
    }
    let mut opts = opts;
    opts.meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    let per_gov = duration * opts.utilisations.len() as f64 * sets as f64;
    let mut progress = args.measure.progress();
    progress.event(Event::headline(format!(
        "governors: {} sets of {} tasks, {duration:.0} s each ({per_gov:.0} s per governor run); Ctrl-C keeps what was measured and restores every governor",
        opts.utilisations.len() as u32 * sets,
        tasks
    )));
    let stop = truebench_tuning::graceful_interrupts();
    let (result, trace) = suite::run(host, inv, &opts, &all, stop, &mut |e| progress.event(e))?;
    drop(progress);
    let mut failed_log = false;
    if let Some(f) = &args.freq_log {
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(f)
            .and_then(|mut w| w.write_all(trace.csv().as_bytes()));
        if let Err(e) = written {
            errln!("truebench: --freq-log {}: cannot write: {e}", f.display());
            failed_log = true;
        }
    }
    let complete = result.envelope.complete;
    let code = frame.finish(result, Show::Summary)?;
    // The frequency log asked for is part of the result: not written is an I/O error.
    Ok(if failed_log && complete {
        crate::exit::ERROR
    } else {
        code
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_workloads::periodic::taskset::TaskSetOptions;

    #[test]
    fn default_task_counts_leave_room_under_one_cpu_per_task() {
        assert_eq!(suite::default_tasks(1.0), 10);
        assert_eq!(suite::default_tasks(4.0), 10);
        let n = suite::default_tasks(16.0);
        assert!((40..=80).contains(&n), "{n}");
        // And UUniFast-discard finds such sets.
        let levels = taskset::parse_utilisations("1.0:16.0:3").unwrap();
        let o = TaskSetOptions {
            tasks: n,
            period_ms: (5.0, 500.0),
            seed: 1,
        };
        assert_eq!(taskset::generate(&o, &levels, 2).unwrap().len(), 6);
    }

    #[test]
    fn periods_parse_or_name_the_value() {
        #[derive(clap::Parser)]
        struct T {
            #[command(flatten)]
            a: GovernorsArgs,
        }
        let parse = |v: &str| {
            let argv: Vec<String> = ["t", "--periods", v].map(String::from).to_vec();
            <T as clap::Parser>::try_parse_from(&argv).map_err(|e| {
                let cmd = <T as clap::CommandFactory>::command();
                crate::values::refusal_text(&e, &argv, &cmd).unwrap_or_else(|| e.to_string())
            })
        };
        assert_eq!(parse("5:500").unwrap().a.periods, (5.0, 500.0));
        for bad in ["5", "0:5", "9:5", "a:b"] {
            let e = parse(bad).map(|_| ()).unwrap_err();
            assert!(e.contains(&format!("--periods {bad}")), "{e}");
        }
    }
}
