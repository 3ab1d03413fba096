//! `truebench review` (sbc-bench -r/-R) on the Session: read every performance-relevant
//! setting; with `tune`, switch to performance through the journaled Tuning; then monitor —
//! while a command runs, for a duration, or until Ctrl-C — and report what changed in the
//! device status meanwhile. Every setting is restored by `Session::finish`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use truebench_host::kernel::KernelReport;
use truebench_host::review::{self, Setting};
use truebench_host::{Host, Inventory};
use truebench_model::review::{ReviewPhase, SettingChange};
use truebench_model::{ReviewBody, ReviewResult};
use truebench_monitor::Sources;
use truebench_workloads::tool::{find_tool, run_tool, RunSpec};

use crate::progress::Event;
use crate::session::{tune_for_performance, Finish, Outcome, Session, SessionOptions};

#[derive(Debug, Clone, Default)]
pub struct ReviewOptions {
    /// Switch to performance (`-R`).
    pub tune: bool,
    /// Run and monitor this command.
    pub command: Vec<String>,
    /// Monitor this long (without a command); with neither, monitor until Ctrl-C when `tune`
    /// or `monitor` is set, else only report the settings.
    pub duration: Option<Duration>,
    /// Monitor until Ctrl-C even without tuning.
    pub monitor: bool,
    pub interval: Duration,
    pub kernel_log: Option<PathBuf>,
    /// An external power meter (`--power-cmd`, `--power-file`): one more power source.
    pub meter: Option<std::sync::Arc<crate::meter::Meter>>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error("cannot tune: {0}")]
    Tuning(#[from] truebench_tuning::TuningError),
}

fn change(b: Option<&Setting>, a: Option<&Setting>) -> SettingChange {
    let any = b.or(a).expect("a change has a side");
    SettingChange {
        area: any.area.clone(),
        subject: any.subject.clone(),
        name: any.name.clone(),
        before: b.map(|s| s.value.clone()),
        after: a.map(|s| s.value.clone()),
    }
}

fn changes(before: &[Setting], after: &[Setting]) -> Vec<SettingChange> {
    review::changes(before, after)
        .iter()
        .map(|(b, a)| change(b.as_ref(), a.as_ref()))
        .collect()
}

/// Kernel-log lines that report a problem: errors, resets, timeouts, under-voltage, links
/// going down.
pub fn problem_lines(lines: &[String]) -> Vec<String> {
    const WORDS: [&str; 9] = [
        "error",
        "fail",
        "timeout",
        "timed out",
        "reset",
        "under-voltage",
        "undervoltage",
        "link is down",
        "i/o error",
    ];
    lines
        .iter()
        .filter(|l| !l.starts_with("[truebench"))
        .filter(|l| {
            let low = l.to_ascii_lowercase();
            WORDS.iter().any(|w| low.contains(w))
        })
        .cloned()
        .collect()
}

pub fn run(
    host: &Host,
    inv: &Inventory,
    kernel: Option<KernelReport>,
    opts: &ReviewOptions,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<ReviewResult, ReviewError> {
    let mut s = Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.interval,
            kernel_log: opts.kernel_log.clone(),
            sources: Sources::ALL,
            meter: opts.meter.clone(),
            ..Default::default()
        },
        stop.clone(),
    )?;
    let mut settings = review::review(host, inv);
    settings.extend(smart(host));
    let why_not =
        (!opts.tune).then(|| "review reports the settings as found (-R tunes)".to_string());
    s.begin_tuning(opts.tune, why_not)?;
    tune_for_performance(&mut s, host, inv, None, None);
    let tuned_settings = if s.tuned() {
        review::review(host, inv)
    } else {
        settings.clone()
    };
    let mut body = ReviewBody {
        tuning_changes: if s.tuned() {
            changes(&settings, &tuned_settings)
        } else {
            Vec::new()
        },
        settings,
        kernel: kernel.map(Box::new),
        tuned: s.tuned(),
        command: opts.command.clone(),
        exit_code: None,
        signal: None,
        error: None,
        start_failure: None,
        monitored_s: 0.0,
        status_changes: Vec::new(),
        kernel_errors: Vec::new(),
    };
    let monitor = !opts.command.is_empty() || opts.duration.is_some() || opts.tune || opts.monitor;
    if monitor {
        let what = if opts.command.is_empty() {
            "monitoring".to_string()
        } else {
            format!("the command ({})", opts.command.join(" "))
        };
        let until = match opts.duration {
            _ if !opts.command.is_empty() => "while the command runs".to_string(),
            Some(d) => format!("for {} s (Ctrl-C ends earlier)", d.as_secs_f64()),
            None => "until Ctrl-C".to_string(),
        };
        events(Event::headline(format!(
            "{}monitoring {until}…",
            if s.tuned() {
                "settings tuned to performance; "
            } else {
                ""
            }
        )));
        events(Event::step(
            1,
            1,
            what.clone(),
            opts.duration.map(|d| d.as_secs_f64()),
        ));
        let log_before = s.kernel_log_lines().len();
        let p = s.phase(ReviewPhase::Monitoring, &what, None, Vec::new(), |_| {
            let t0 = Instant::now();
            let out = if opts.command.is_empty() {
                wait(&stop, opts.duration)
            } else {
                let ended = crate::command::spawn_and_wait(&opts.command, None, &stop, false);
                body.exit_code = ended.exit_code;
                body.signal = ended.signal;
                body.error = ended.error;
                body.start_failure = ended.start_failure;
                ended.outcome
            };
            body.monitored_s = t0.elapsed().as_secs_f64();
            out
        });
        let (status, reason) = (p.status, p.reason.clone());
        let after = review::review(host, inv);
        body.status_changes = changes(&tuned_settings, &after);
        events(Event::Score {
            text: format!(
                "{status}{}, {}",
                reason.map(|r| format!(": {r}")).unwrap_or_default(),
                match body.status_changes.len() {
                    0 => "no setting changed".to_string(),
                    n => format!("{n} setting(s) changed"),
                }
            ),
            reason: None,
            seconds: Some(body.monitored_s),
        });
        let lines = s.kernel_log_lines();
        body.kernel_errors = problem_lines(&lines[log_before.min(lines.len())..]);
    }
    for d in s.sampler_disabled() {
        s.note(format!("Not read any more: {d}"));
    }
    Ok(s.finish(body, Finish { comparable: true }))
}

/// `smartctl` where smartmontools is installed: one SMART setting per disk. Only on the live
/// machine (a recorded root's disks are not here).
fn smart(host: &Host) -> Vec<Setting> {
    let disks = review::smart_disks(host);
    if disks.is_empty() || !host.is_live() {
        return Vec::new();
    }
    let not_read = |subject: String, why: String| Setting {
        area: "storage".into(),
        subject,
        name: "SMART".into(),
        value: "not read".into(),
        severity: review::Severity::Info,
        why: Some(why),
        source: "smartctl".into(),
    };
    // sbin is not on every user's PATH.
    let Some(tool) = find_tool(&["smartctl", "/usr/sbin/smartctl", "/sbin/smartctl"]) else {
        return vec![not_read(
            disks.join(", "),
            "smartctl is not installed (Debian: smartmontools): drive health unknown".into(),
        )];
    };
    let spec = RunSpec {
        timeout: Some(Duration::from_secs(10)),
        ..Default::default()
    };
    disks
        .iter()
        .map(|d| {
            let args: Vec<String> = ["--json=c", "-H", "-A", "-i", &format!("/dev/{d}")]
                .iter()
                .map(|a| a.to_string())
                .collect();
            // smartctl's exit status is a bit mask of findings: the JSON says what they are.
            match run_tool(&tool, &args, spec) {
                Ok(out) if !out.timed_out => review::smart_setting(d, &out.stdout),
                Ok(_) => not_read(
                    d.clone(),
                    format!("{} did not answer within 10 s", tool.display()),
                ),
                Err(e) => not_read(d.clone(), e.to_string()),
            }
        })
        .collect()
}

/// Until Ctrl-C or the duration.
fn wait(stop: &AtomicBool, duration: Option<Duration>) -> Outcome {
    let t0 = Instant::now();
    while !stop.load(Ordering::SeqCst) && duration.is_none_or(|d| t0.elapsed() < d) {
        std::thread::sleep(Duration::from_millis(50));
    }
    Outcome::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_lines_of_the_kernel_log() {
        let lines: Vec<String> = [
            "[  10.1] mmc0: error -110 whilst initialising SD card",
            "[  12.0] r8169 0000:01:00.0 eth0: Link is Up - 1Gbps/Full",
            "[  13.0] usb 2-1: reset SuperSpeed USB device number 2 using xhci_hcd",
            "[  14.0] hwmon hwmon1: Undervoltage detected!",
            "[truebench: kernel log reading stopped: x]",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let p = problem_lines(&lines);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(!p.iter().any(|l| l.contains("Link is Up")));
    }
}
