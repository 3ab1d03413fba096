//! `truebench run`: the standard benchmark (sbc-bench's main job). stdout gets the summary
//! (or the JSON document, or the Results.md row); stderr the progress (`progress.rs`); the
//! results folder the JSON and the detailed log.

use crate::frame::{IdleArgs, MeasureArgs, Say, Show};
use crate::progress::{Mode, Progress};
use anyhow::Context;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use truebench_model::{self as model, RunResult};
use truebench_suites::run::{self as suite, LiveMeasurements, RunOptions};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
pub struct RunArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    #[command(flatten)]
    pub idle: IdleArgs,
    /// Every phase shortened (about a minute): for CI and a first look; NOT comparable.
    #[arg(long, conflicts_with = "extensive")]
    pub quick: bool,
    /// Also AES on all cores, 7-zip per cluster, a 5-minute stress phase and all-core clocks
    /// (sbc-bench's MODE=extensive; env MODE=extensive).
    #[arg(long)]
    pub extensive: bool,
    /// Never ask anything (truebench does not prompt anyway); exit code 0 when the result is
    /// valid, 3 when it ran but is invalid, 130 when interrupted, anything else for errors
    /// (env MODE=unattended).
    #[arg(long)]
    pub unattended: bool,
    /// Before starting, wait until the SoC has cooled to C °C (-40 to 150; instead of until
    /// it stops cooling).
    #[arg(long, value_name = "C", value_parser = crate::values::CELSIUS, allow_negative_numbers = true)]
    pub cool_to: Option<f64>,
    /// Print only the Results.md row on stdout.
    #[arg(long, conflicts_with = "json")]
    pub row: bool,
    /// Where result.json and detailed.log go (default ./truebench-results/DATE-HOST/).
    #[arg(long, value_name = "DIR")]
    pub results_dir: Option<PathBuf>,
    /// Skip OPPs above K kHz and cap the run there (sbc-bench's MaxKHz).
    #[arg(long, value_name = "K", env = "MaxKHz")]
    pub max_khz: Option<u64>,
    /// Skip OPPs below K kHz (sbc-bench's MinKHz).
    #[arg(long, value_name = "K", env = "MinKHz")]
    pub min_khz: Option<u64>,
    /// Length of the extensive stress phase, seconds.
    #[arg(long, value_name = "S", hide = true, value_parser = crate::values::HOLD)]
    pub stress_seconds: Option<f64>,
}

/// The run's options from its flags; the meter is the frame's, started under the lock.
fn options(args: &RunArgs) -> RunOptions {
    let env_mode = std::env::var("MODE")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let mode = if args.quick {
        model::Mode::Quick
    } else if args.extensive || env_mode == "extensive" {
        model::Mode::Extensive
    } else {
        model::Mode::Standard
    };
    let mut o = RunOptions::new(mode);
    if let Some(why) = args.measure.tuning.forbidden() {
        o.tune = false;
        o.no_tuning_reason = Some(why.into());
    }
    o.force = args.idle.force;
    o.idle.timeout = args.idle.timeout_or(300.0);
    o.idle.cool_to = args.cool_to;
    o.max_khz = args.max_khz;
    o.min_khz = args.min_khz;
    o.sample_interval = args.measure.sample.or(o.sample_interval);
    if let Some(s) = args.stress_seconds {
        o.stress_seconds = s;
        o.stress_interval = o.stress_interval.min(o.stress_seconds / 3.0).max(0.1);
    }
    o
}

pub fn run(args: RunArgs) -> anyhow::Result<i32> {
    let mut opts = options(&args);
    let mut frame = args.measure.open()?;
    // Every run measures this machine's CPUs, whatever --root says: one at a time.
    opts.meter = frame.lock()?;
    let host = &frame.host;
    // The folder is checked before the first phase: a run whose result cannot be kept is
    // minutes wasted.
    let dir = match &args.results_dir {
        Some(d) => d.clone(),
        None => default_dir(
            truebench_model::Stamp::now().unix_ms,
            host.read_trimmed("proc/sys/kernel/hostname").as_deref(),
        ),
    };
    let dir = prepare_folder(&dir, args.results_dir.is_none())?;
    let inv = &frame.inv;
    // The first Ctrl-C only asks the run to stop: it restores, writes the partial result and
    // exits 130. A second one restores and exits at once.
    let stop = truebench_tuning::graceful_interrupts();
    let quiet = args.measure.output.quiet;
    let mode = Mode::choose(quiet, args.measure.output.machine(), std::io::stderr().is_terminal());
    let mut progress = Progress::new(mode);
    let mut measurements = LiveMeasurements::new(host);
    let result = suite::run(host, inv, &opts, &mut measurements, stop, &mut |e| {
        progress.event(e)
    });
    progress.finish();
    let result = result.context("truebench run")?;

    let written = write_folder(&dir, &result);
    match &written {
        Ok(()) if !quiet => errln!("truebench: results in {}", dir.display()),
        Ok(()) => {}
        Err(e) => errln!(
            "truebench: error: could not write the results folder: {}",
            crate::out::chain(e)
        ),
    }
    // Said also under --quiet when the folder failed: then the history is where it is.
    let say = if written.is_err() {
        Say::Always
    } else {
        Say::UnlessQuiet
    };
    let row = args
        .row
        .then(|| format!("{}\n", truebench_render::text::row(result.view())));
    let doc = result.into_document();
    let id = frame.store(&doc, say).id();
    let stored = id.is_some();
    if written.is_err() && !stored {
        // Neither the folder nor the history has it: the result must not be lost.
        crate::keep::say_kept(&doc);
    }
    let show = if let Some(row) = row {
        Show::Text(row)
    } else if written.is_ok() {
        Show::SummaryThen(format!(
            "Full results (every raw output, monitoring per phase, kernel log): {}",
            dir.join("detailed.log").display()
        ))
    } else {
        Show::Summary
    };
    frame.print(&doc, id, show)?;
    // The folder asked for could not take the result: an I/O error, also for an interrupted
    // run (130 says its partial result was kept where asked).
    Ok(if written.is_err() {
        crate::exit::ERROR
    } else {
        crate::exit::of(&doc)
    })
}

/// `./truebench-results/2026-07-01_123456-rock5b`, local time.
fn default_dir(unix_ms: i64, hostname: Option<&str>) -> PathBuf {
    let stamp = match truebench_monitor_core::render::local_tm(unix_ms) {
        None => truebench_model::Stamp::from_unix_ms(unix_ms)
            .utc
            .replace(':', ""),
        Some(tm) => format!(
            "{:04}-{:02}-{:02}_{:02}{:02}{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec
        ),
    };
    let host: String = hostname
        .unwrap_or("unknown")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from("truebench-results").join(format!("{stamp}-{host}"))
}

/// Create the results folder and prove it can be written, before anything runs. An earlier
/// result is never overwritten: `--results-dir` holding one is refused; the default folder
/// (named by the second) gets a suffix instead.
fn prepare_folder(dir: &Path, default: bool) -> anyhow::Result<PathBuf> {
    let mut dir = dir.to_path_buf();
    // Whatever is at a name (a link, a FIFO, a socket, a device): `exists` follows links and
    // calls a dangling one absent.
    let there = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    if default {
        let base = dir.clone();
        let mut n = 2;
        while there(&dir) && (!dir.is_dir() || there(&dir.join("result.json"))) {
            dir = PathBuf::from(format!("{}-{n}", base.display()));
            n += 1;
        }
    }
    if let Ok(m) = std::fs::metadata(&dir) {
        if !m.is_dir() {
            anyhow::bail!(
                "results folder {}: is {}, not a folder; give another (--results-dir)",
                dir.display(),
                truebench_host::file_kind(&m.file_type())
            );
        }
    }
    // The files the run will put there: a FIFO, socket, device or folder at their names is
    // refused now, not after the run's minutes (a link is replaced, never followed: see
    // `write_folder`).
    for name in ["result.json", "detailed.log"] {
        let p = dir.join(name);
        if let Ok(m) = std::fs::symlink_metadata(&p) {
            if !m.is_file() && !m.file_type().is_symlink() {
                anyhow::bail!(
                    "{}: is {} where the run puts its {name}; move it away or give another folder (--results-dir)",
                    p.display(),
                    truebench_host::file_kind(&m.file_type())
                );
            }
        }
    }
    if !default && dir.join("result.json").exists() {
        anyhow::bail!(
            "--results-dir {}: already holds a result.json of an earlier run; give a new folder (it is never overwritten)",
            dir.display()
        );
    }
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("results folder {}: cannot create it", dir.display()))?;
    // A probe with an unpredictable name, created exclusively and removed when dropped: it
    // can neither follow a planted link nor clobber a file.
    tempfile::Builder::new()
        .prefix(".truebench-write-test-")
        .tempfile_in(&dir)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"truebench"))
        .with_context(|| format!("results folder {}: cannot write into it", dir.display()))?;
    Ok(dir)
}

/// detailed.log, then result.json, each written to a temporary name and renamed, so a folder
/// never holds a half-written file, and one with a result.json has its detailed.log too.
fn write_folder(dir: &Path, r: &RunResult) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let json = serde_json::to_string_pretty(r)?;
    for (name, text) in [
        ("detailed.log", truebench_render::detailed_log(r.view())),
        ("result.json", json),
    ] {
        // A new file with an unpredictable name, renamed into place (replacing a link planted
        // at the name, never writing through it): removed if anything fails on the way.
        let target = dir.join(name);
        let written = crate::files::replace(&target, text.as_bytes());
        if let Err(e) = written {
            return Err(e).with_context(|| format!("writing {}", target.display()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Links planted where the results folder's files go (one dangling, one to a file of
    /// someone else): the files are written in their place, nothing is written through them.
    #[test]
    fn planted_links_in_the_results_folder_are_replaced_not_followed() {
        let doc = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../model/tests/data/v1/quick-run-x86-vm.json"
        ))
        .unwrap();
        let r = truebench_model::migrate_run(serde_json::from_slice(&doc).unwrap()).unwrap();
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let dir = d.path().join("results");
        std::fs::create_dir(&dir).unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere"), dir.join("result.json")).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("detailed.log")).unwrap();
        write_folder(&dir, &r).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(!d.path().join("elsewhere").exists());
        for f in ["result.json", "detailed.log"] {
            assert!(std::fs::symlink_metadata(dir.join(f)).unwrap().is_file(), "{f}");
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    }
}
