//! The loads of `truebench thermal`: the built-in SIMD stress (a score every interval), 7-zip
//! on all cores (one score per run), or the user's command (restarted until the time is up;
//! completed runs per minute as the score). Behind [`LoadRunner`] so the flow is tested with
//! scripted loads on fixture roots.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use truebench_model::thermal::{ScorePoint, ThermalLoad};
use truebench_workloads::sevenzip::{self, SevenZipOptions};
use truebench_workloads::stress::{self, StressOptions};

#[derive(Debug, Clone, PartialEq)]
pub enum Load {
    /// The built-in SIMD load on every CPU.
    Stress,
    /// `7zz b` on all cores, run after run.
    SevenZip,
    /// `sh -c CMD`, restarted while time is left.
    Command(String),
}

impl Load {
    /// `stress`, `7zip`, or anything else as a command.
    pub fn parse(s: &str) -> Load {
        match s {
            "stress" => Load::Stress,
            "7zip" | "7-zip" | "7z" => Load::SevenZip,
            cmd => Load::Command(cmd.to_string()),
        }
    }

    /// Which load it is, as the result stores it.
    pub fn kind(&self) -> ThermalLoad {
        match self {
            Load::Stress => ThermalLoad::Stress,
            Load::SevenZip => ThermalLoad::SevenZip,
            Load::Command(_) => ThermalLoad::Command,
        }
    }

    pub fn name(&self) -> &'static str {
        self.kind().as_str()
    }
}

/// What ran, once it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadRan {
    /// `built-in stress (avx2+fma) on 4 CPUs`.
    pub detail: String,
    pub unit: Option<String>,
    /// (name, version, path) for the envelope's tools.
    pub tool: (String, Option<String>, Option<String>),
}

/// Runs a load for up to `seconds` (or until `stop`), handing each score as it comes.
pub trait LoadRunner {
    fn run(
        &mut self,
        load: &Load,
        seconds: f64,
        interval: f64,
        stop: &AtomicBool,
        on_score: &mut dyn FnMut(ScorePoint),
    ) -> Result<LoadRan, String>;
}

/// The real loads, on `cpus` (this machine's CPUs; empty: wherever the scheduler puts them).
pub struct LiveLoad {
    pub cpus: Vec<u32>,
}

impl LoadRunner for LiveLoad {
    fn run(
        &mut self,
        load: &Load,
        seconds: f64,
        interval: f64,
        stop: &AtomicBool,
        on_score: &mut dyn FnMut(ScorePoint),
    ) -> Result<LoadRan, String> {
        match load {
            Load::Stress => {
                let o = StressOptions {
                    cpus: self.cpus.clone(),
                    seconds,
                    interval_seconds: interval,
                };
                let r = stress::run_builtin(&o, Some(stop), |iv| {
                    on_score(ScorePoint {
                        start_s: iv.start_s,
                        end_s: iv.end_s,
                        score: iv.score,
                    })
                })
                .map_err(|e| format!("built-in stress: {e}"))?;
                Ok(LoadRan {
                    detail: format!(
                        "built-in stress ({}) on {} CPUs",
                        r.implementation,
                        self.cpus.len().max(1)
                    ),
                    unit: Some(r.unit),
                    tool: ("built-in stress".into(), Some(r.implementation), None),
                })
            }
            Load::SevenZip => sevenzip_runs(&self.cpus, seconds, stop, on_score),
            Load::Command(cmd) => command_runs(cmd, seconds, stop, on_score),
        }
    }
}

/// 7-zip on all cores, one `7zz b -mmtN` after the other; each run's total rating is a score.
fn sevenzip_runs(
    cpus: &[u32],
    seconds: f64,
    stop: &AtomicBool,
    on_score: &mut dyn FnMut(ScorePoint),
) -> Result<LoadRan, String> {
    let t0 = Instant::now();
    let n = cpus.len().max(1) as u32;
    let mut o = SevenZipOptions::all();
    // One pass with one dictionary size per run: the same work each time, a score every few
    // seconds instead of one per half minute, and no large allocations (page faults).
    o.iterations = Some(1);
    o.dict_log2 = Some(22);
    // The time is up for a run still going: it is stopped, its pass not scored.
    let up = AtomicBool::new(false);
    let mut ran = None;
    std::thread::scope(|sc| -> Result<(), String> {
        sc.spawn(|| {
            while !up.load(Ordering::SeqCst) {
                if stop.load(Ordering::SeqCst) || t0.elapsed().as_secs_f64() >= seconds {
                    up.store(true, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let out = sevenzip_loop(&o, n, t0, &up, on_score, &mut ran);
        up.store(true, Ordering::SeqCst);
        out
    })?;
    ran.ok_or_else(|| "7-zip: stopped before its first run ended".into())
}

fn sevenzip_loop(
    o: &SevenZipOptions,
    n: u32,
    t0: Instant,
    up: &AtomicBool,
    on_score: &mut dyn FnMut(ScorePoint),
    ran: &mut Option<LoadRan>,
) -> Result<(), String> {
    while !up.load(Ordering::SeqCst) {
        let start_s = t0.elapsed().as_secs_f64();
        let r = sevenzip::run(o, None, n, Some(up)).map_err(|e| e.to_string())?;
        if r.output.stopped {
            break;
        }
        let Some(b) = &r.bench else {
            return Err(format!(
                "{}: no result in its output (exit code {:?})",
                r.output.command_line(),
                r.output.exit_code
            ));
        };
        if let Some(mips) = b.total_mips() {
            on_score(ScorePoint {
                start_s,
                end_s: t0.elapsed().as_secs_f64(),
                score: mips as f64,
            });
        }
        *ran = Some(LoadRan {
            detail: format!("{} (one pass per run, all cores)", r.output.command_line()),
            unit: Some("MIPS".into()),
            tool: ("7-zip".into(), b.version.clone(), Some(r.program.clone())),
        });
    }
    Ok(())
}

/// `sh -c CMD` in its own process group, restarted until the time is up, then stopped with
/// its children. A run that ends is a score: runs per minute at its pace.
fn command_runs(
    cmd: &str,
    seconds: f64,
    stop: &AtomicBool,
    on_score: &mut dyn FnMut(ScorePoint),
) -> Result<LoadRan, String> {
    let t0 = Instant::now();
    let end = Duration::from_secs_f64(seconds);
    let mut runs = 0u32;
    while t0.elapsed() < end && !stop.load(Ordering::SeqCst) {
        let start_s = t0.elapsed().as_secs_f64();
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("--load {cmd}: cannot start sh: {e}"))?;
        let exit = truebench_workloads::exit_wait::ExitWait::new(&child);
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) => {}
                Err(_) => break None,
            }
            if t0.elapsed() >= end || stop.load(Ordering::SeqCst) {
                // SAFETY: killpg on the group this child leads; no memory is touched.
                unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
                let _ = child.wait();
                break None;
            }
            exit.wait(
                end.saturating_sub(t0.elapsed())
                    .min(Duration::from_millis(200)),
            );
        };
        let Some(status) = status else {
            break;
        };
        let end_s = t0.elapsed().as_secs_f64();
        if !status.success() {
            return Err(format!(
                "--load {cmd}: exited with {status} after {end_s:.1} s"
            ));
        }
        runs += 1;
        let took = end_s - start_s;
        if took > 0.0 {
            on_score(ScorePoint {
                start_s,
                end_s,
                score: 60.0 / took,
            });
        }
        if took < 0.01 && runs > 100 {
            return Err(format!(
                "--load {cmd}: ends at once every time ({runs} runs); it puts no load on the machine"
            ));
        }
    }
    Ok(LoadRan {
        detail: format!("sh -c '{cmd}' (restarted until the time is up)"),
        unit: Some("runs/min".into()),
        tool: ("command".into(), None, Some(cmd.to_string())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        assert_eq!(Load::parse("stress"), Load::Stress);
        assert_eq!(Load::parse("7zip"), Load::SevenZip);
        assert_eq!(
            Load::parse("openssl speed"),
            Load::Command("openssl speed".into())
        );
    }

    #[test]
    fn a_command_is_restarted_scored_and_stopped_with_its_children() {
        let stop = AtomicBool::new(false);
        let mut scores = Vec::new();
        let ran = command_runs("sleep 0.2", 0.9, &stop, &mut |s| scores.push(s)).unwrap();
        assert_eq!(ran.unit.as_deref(), Some("runs/min"));
        // Four runs of 0.2 s fit; the fifth is killed at 0.9 s and not scored.
        assert!((3..=4).contains(&scores.len()), "{scores:?}");
        assert!(
            scores.iter().all(|s| s.score > 200.0 && s.score < 310.0),
            "{scores:?}"
        );

        let dir = tempfile::tempdir().unwrap();
        let flag = dir.path().join("child-alive");
        // A child of the shell outlives a kill of sh alone: the group kill ends it too.
        let cmd = format!("(sleep 1; touch {}) & wait", flag.display());
        command_runs(&cmd, 0.3, &stop, &mut |_| {}).unwrap();
        std::thread::sleep(Duration::from_millis(1200));
        assert!(!flag.exists(), "the command's child ran on");

        let e = command_runs("exit 3", 5.0, &stop, &mut |_| {}).unwrap_err();
        assert!(
            e.contains("--load exit 3") && e.contains("exit status: 3"),
            "{e}"
        );
    }
}
