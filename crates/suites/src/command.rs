//! `truebench monitor -- CMD` (sbc-bench's `ExecuteCommand`): run a command as one phase on
//! the Session and judge what the machine did meanwhile. Nothing is tuned.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use truebench_host::{Host, Inventory};
use truebench_model::monitor::MonitorPhase;
use truebench_model::{MonitorBody, MonitorResult};
use truebench_monitor::Sources;

use crate::progress::Event;
use crate::session::{Finish, Outcome, Session, SessionOptions};

#[derive(Debug, Clone)]
pub struct CommandOptions {
    pub interval: Duration,
    /// Threads the command keeps busy: enables the background-activity check.
    pub threads: Option<u32>,
    /// Kernel-log lines from this file instead of `dev/kmsg`.
    pub kernel_log: Option<PathBuf>,
    /// Run once per CPU type (sbc-bench -G): `Some(offline)`, with the other CPUs offline when
    /// `offline` (through the journaled Tuning).
    pub per_cluster: Option<bool>,
    /// An external power meter (`--power-cmd`, `--power-file`): one more power source.
    pub meter: Option<std::sync::Arc<crate::meter::Meter>>,
    /// With `per_cluster`: where the command prints its score (`--score REGEX`); None: the
    /// known formats (7-zip, openssl speed, sysbench, stress-ng).
    pub score: Option<crate::score::ScorePattern>,
    /// Each sample as it is taken (`--json-lines` prints it while the command runs).
    pub each_sample: Option<crate::session::EachSample>,
}

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error("no command to run")]
    Empty,
}

/// Run `command` under the monitor. The first Ctrl-C (`stop`) is passed on to the command
/// once; the result is kept either way. A command that cannot start is a result too (its
/// `error`), so the evidence of the attempt is not lost. With `per_cluster` each run is a
/// step of the progress told to `events`; one run is no steps (the command shows its own).
pub fn run(
    host: &Host,
    inv: &Inventory,
    command: &[String],
    opts: &CommandOptions,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<MonitorResult, CommandError> {
    if command.is_empty() {
        return Err(CommandError::Empty);
    }
    if let Some(offline) = opts.per_cluster {
        return crate::per_cluster::run(host, inv, command, opts, offline, stop, events);
    }
    let mut s = start(host, inv, opts, stop.clone())?;
    let _ = s.begin_tuning(
        false,
        Some("monitor changes no setting: the command runs as the machine is".into()),
    );
    let mut body = MonitorBody {
        command: command.to_vec(),
        exit_code: None,
        signal: None,
        error: None,
        start_failure: None,
        duration_s: 0.0,
        interval_s: opts.interval.as_secs_f64(),
        threads: opts.threads,
        clusters: Vec::new(),
        score_ratio: None,
    };
    s.phase(
        MonitorPhase::Command,
        &format!("the command ({})", command.join(" ")),
        opts.threads,
        Vec::new(),
        |_| {
            let t0 = Instant::now();
            let ended = spawn_and_wait(command, None, &stop, false);
            body.exit_code = ended.exit_code;
            body.signal = ended.signal;
            body.error = ended.error.clone();
            body.start_failure = ended.start_failure;
            body.duration_s = t0.elapsed().as_secs_f64();
            ended.outcome
        },
    );
    for d in s.sampler_disabled() {
        s.note(format!("Not read any more: {d}"));
    }
    Ok(s.finish(body, Finish { comparable: true }))
}

/// The Session of a monitored command: every source the sampler has.
pub(crate) fn start<'a>(
    host: &'a Host,
    inv: &'a Inventory,
    opts: &CommandOptions,
    stop: Arc<AtomicBool>,
) -> Result<Session<'a>, CommandError> {
    Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.interval,
            kernel_log: opts.kernel_log.clone(),
            // The evidence of a command includes its I/O, network and stall time.
            sources: Sources::ALL,
            meter: opts.meter.clone(),
            each_sample: opts.each_sample.clone(),
            ..Default::default()
        },
        stop,
    )
    .map_err(CommandError::from)
}

/// How a command ended.
pub(crate) struct Ended {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub error: Option<String>,
    /// Why it could not be started, as a shell tells it apart.
    pub start_failure: Option<truebench_model::StartFailure>,
    pub outcome: Outcome,
    /// With `capture`: the end of what it printed (stdout and stderr), for its score.
    pub output: String,
}

/// At most this much of a command's output is kept for reading its score (the end of it).
const KEEP_OUTPUT: usize = 1 << 20;

/// Start `command` (pinned to `cpus` when given) and wait for it, passing the first Ctrl-C on.
/// With `capture`, its output is passed through to ours as it comes and its end kept.
pub(crate) fn spawn_and_wait(
    command: &[String],
    cpus: Option<&[u32]>,
    stop: &AtomicBool,
    capture: bool,
) -> Ended {
    let mut ended = Ended {
        exit_code: None,
        signal: None,
        error: None,
        start_failure: None,
        outcome: Outcome::default(),
        output: String::new(),
    };
    let mut cmd = std::process::Command::new(&command[0]);
    cmd.args(&command[1..]);
    if capture {
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
    }
    if let Some(cpus) = cpus {
        if let Err(e) = truebench_workloads::pin::pin_command(&mut cmd, cpus) {
            ended.error = Some(e.to_string());
            ended
                .outcome
                .fail(format!("cannot pin {} to {cpus:?}: {e}", command[0]));
            return ended;
        }
    }
    let kept = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let mut tees = Vec::new();
    match cmd.spawn() {
        Ok(mut child) => {
            if let Some(out) = child.stdout.take() {
                tees.push(tee(out, false, kept.clone()));
            }
            if let Some(err) = child.stderr.take() {
                tees.push(tee(err, true, kept.clone()));
            }
            let waited = wait_forwarding_sigint(&mut child, stop);
            // The readers end at EOF; a daemon the command left behind may hold the pipe:
            // give them a moment, not forever.
            let t0 = std::time::Instant::now();
            while tees.iter().any(|t| !t.is_finished()) && t0.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(10));
            }
            let bytes = kept.lock().unwrap_or_else(|e| e.into_inner()).clone();
            ended.output = String::from_utf8_lossy(&bytes).into_owned();
            match waited {
                Ok(st) => {
                    use std::os::unix::process::ExitStatusExt;
                    ended.exit_code = st.code();
                    ended.signal = st.signal();
                    if !st.success() {
                        ended.outcome.reason = Some(match (st.code(), st.signal()) {
                            (Some(c), _) => format!("the command exited with {c}"),
                            (None, Some(sig)) => format!("the command was killed by signal {sig}"),
                            _ => "the command failed".into(),
                        });
                    }
                }
                Err(e) => ended.outcome.fail(format!("waiting for the command: {e}")),
            }
        }
        Err(e) => {
            ended.error = Some(e.to_string());
            ended.start_failure = Some(truebench_model::StartFailure::of(e.kind()));
            ended
                .outcome
                .fail(format!("cannot start {}: {e}", command[0]));
        }
    }
    ended
}

/// Copy a child's stream to ours (stdout or stderr) as it comes, keeping its end in `kept`.
fn tee(
    mut from: impl std::io::Read + Send + 'static,
    to_stderr: bool,
    kept: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        use std::io::Write;
        let mut buf = [0u8; 8192];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            let _ = if to_stderr {
                std::io::stderr().write_all(&buf[..n])
            } else {
                let mut o = std::io::stdout().lock();
                o.write_all(&buf[..n]).and_then(|()| o.flush())
            };
            let mut k = kept.lock().unwrap_or_else(|e| e.into_inner());
            k.extend_from_slice(&buf[..n]);
            if k.len() > KEEP_OUTPUT {
                let cut = k.len() - KEEP_OUTPUT / 2;
                k.drain(..cut);
            }
        }
    })
}

pub(crate) fn wait_forwarding_sigint(
    child: &mut std::process::Child,
    stop: &AtomicBool,
) -> std::io::Result<std::process::ExitStatus> {
    let mut forwarded = false;
    // Sleeps until the child exits or a stop is asked (not a wake-up every few
    // milliseconds: see `exit_wait`). The signal thread wakes the wait when `stop` is the
    // process's graceful flag; another flag is looked at every STOP_LOOK.
    let exit = truebench_workloads::exit_wait::ExitWait::new(child);
    let woken = truebench_tuning::interrupt_fd(stop);
    loop {
        if let Some(st) = child.try_wait()? {
            return Ok(st);
        }
        // A SIGINT sent to truebench alone (not the terminal's group) is passed on once.
        if stop.load(Ordering::SeqCst) && !forwarded {
            forwarded = true;
            // SAFETY: signalling our own child by pid.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGINT);
            }
        }
        match woken {
            // Once forwarded, the descriptor stays readable: only the child's exit is waited on.
            Some(fd) if !forwarded => exit.wait_or(WOKEN_LOOK, Some(fd)),
            _ => exit.wait(STOP_LOOK),
        }
    }
}

/// How often a wait for a command looks at a stop flag that nothing wakes it for.
const STOP_LOOK: Duration = Duration::from_millis(200);
/// The same where the signal thread wakes the wait (a look now and then all the same).
const WOKEN_LOOK: Duration = Duration::from_secs(30);
