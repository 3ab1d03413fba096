//! Running external benchmark tools (openssl, 7-zip, stockfish): find them, run them pinned
//! with a time limit and a stop flag, and keep their complete output for the log.

use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::pin::{pin_command, PinError};

/// How often a wait for a tool looks at the stop flag (set by a signal thread).
const STOP_LOOK: Duration = Duration::from_millis(200);

/// Directories searched after `$PATH`: Debian installs games (stockfish) in /usr/games, which
/// root's PATH lacks.
const EXTRA_DIRS: &[&str] = &[
    "/usr/games",
    "/usr/local/games",
    "/usr/local/bin",
    "/usr/bin",
];

/// The first of `names` that is an executable file in `$PATH` (or the extra directories).
pub fn find_tool(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend(EXTRA_DIRS.iter().map(PathBuf::from));
    for name in names {
        for dir in &dirs {
            let candidate = dir.join(name);
            if is_executable(&candidate) {
                return Some(candidate);
            }
        }
    }
    None
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// One finished (or stopped) run of an external tool, complete output included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// Program path and arguments as executed.
    pub command: Vec<String>,
    /// CPUs the child was restricted to, if pinned.
    pub cpus: Option<Vec<u32>>,
    /// Exit code; `None` when killed by a signal (also after a timeout or stop).
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
    pub timed_out: bool,
    pub stopped: bool,
}

impl ToolOutput {
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.stopped
    }

    /// The command line as a shell would show it.
    pub fn command_line(&self) -> String {
        let mut s = String::new();
        if let Some(cpus) = &self.cpus {
            let list: Vec<String> = cpus.iter().map(u32::to_string).collect();
            s.push_str(&format!("taskset -c {} ", list.join(",")));
        }
        s.push_str(&self.command.join(" "));
        s
    }
}

/// Why a tool could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{program}: cannot start it: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Pin(#[from] PinError),
}

/// How to run a tool.
#[derive(Default, Clone, Copy)]
pub struct RunSpec<'a> {
    /// Restrict the child to these CPUs.
    pub cpus: Option<&'a [u32]>,
    /// Kill it after this long.
    pub timeout: Option<Duration>,
    /// Kill it as soon as this becomes true (Ctrl-C in the orchestrator).
    pub stop: Option<&'a AtomicBool>,
    /// Called with each line the tool writes (either stream) as it comes: how far it is.
    pub on_line: Option<&'a (dyn Fn(&str) + Sync)>,
}

impl std::fmt::Debug for RunSpec<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunSpec")
            .field("cpus", &self.cpus)
            .field("timeout", &self.timeout)
            .field("stop", &self.stop)
            .field("on_line", &self.on_line.is_some())
            .finish()
    }
}

/// Read a pipe to its end, handing each complete line to `on_line` on the way.
fn read_lines(mut r: impl Read, on_line: Option<&(dyn Fn(&str) + Sync)>) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut line_start = 0;
    loop {
        match r.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                if let Some(f) = on_line {
                    // 7-zip ends its progress updates with '\r', lines with '\n'.
                    while let Some(i) = buf[line_start..].iter().position(|b| *b == b'\n') {
                        f(&String::from_utf8_lossy(&buf[line_start..line_start + i]));
                        line_start += i + 1;
                    }
                }
            }
        }
    }
    buf
}

/// SIGKILL to the child's process group (it leads one: `process_group(0)`), else to the child.
fn kill_group(child: &mut std::process::Child) {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: killpg only sends a signal; the group is the child's own, made at spawn.
    if unsafe { libc::killpg(pgid, libc::SIGKILL) } != 0 {
        let _ = child.kill();
    }
}

/// Run `program args…` with `LC_ALL=C` (stable number formats), stdin closed, output captured.
pub fn run_tool(
    program: &Path,
    args: &[String],
    spec: RunSpec<'_>,
) -> Result<ToolOutput, ToolError> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group: a timeout or stop kills what it started too (a shell's
    // children), which would otherwise run on and hold the pipes open.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    if let Some(cpus) = spec.cpus {
        pin_command(&mut cmd, cpus)?;
    }
    let started = Instant::now();
    let mut child = cmd.spawn().map_err(|source| ToolError::Spawn {
        program: program.display().to_string(),
        source,
    })?;
    let out = child.stdout.take().expect("piped stdout");
    let err = child.stderr.take().expect("piped stderr");
    let mut timed_out = false;
    let mut stopped = false;
    let mut seconds = 0.0;
    // Readers on their own threads: a tool filling one pipe must not block on the other.
    let (status, out, err) = std::thread::scope(|s| {
        let on_line = spec.on_line;
        let out_reader = s.spawn(move || read_lines(out, on_line));
        let err_reader = s.spawn(move || read_lines(err, on_line));
        let exit = crate::exit_wait::ExitWait::new(&child);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) => {}
                Err(_) => break None,
            }
            if spec.timeout.is_some_and(|t| started.elapsed() >= t) {
                timed_out = true;
            } else if spec.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                stopped = true;
            }
            if timed_out || stopped {
                kill_group(&mut child);
                break child.wait().ok();
            }
            // Until it exits, its timeout, or the next look at the stop flag.
            let left = spec
                .timeout
                .map_or(STOP_LOOK, |t| t.saturating_sub(started.elapsed()));
            exit.wait(left.min(STOP_LOOK));
        };
        // The tool's own time: a grandchild may hold the pipes open after it ended.
        seconds = started.elapsed().as_secs_f64();
        (
            status,
            out_reader.join().unwrap_or_default(),
            err_reader.join().unwrap_or_default(),
        )
    });
    let stdout = String::from_utf8_lossy(&out).into_owned();
    let stderr = String::from_utf8_lossy(&err).into_owned();
    let mut command = vec![program.display().to_string()];
    command.extend(args.iter().cloned());
    Ok(ToolOutput {
        command,
        cpus: spec.cpus.map(<[u32]>::to_vec),
        exit_code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        seconds,
        timed_out,
        stopped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_sh_and_not_a_made_up_name() {
        assert!(find_tool(&["truebench-no-such-tool", "sh"]).is_some());
        assert!(find_tool(&["truebench-no-such-tool"]).is_none());
    }

    #[test]
    fn captures_both_streams_and_the_exit_code() {
        let sh = find_tool(&["sh"]).unwrap();
        let args = vec![
            "-c".to_string(),
            "echo out; echo err >&2; exit 3".to_string(),
        ];
        let o = run_tool(&sh, &args, RunSpec::default()).unwrap();
        assert_eq!(o.stdout, "out\n");
        assert_eq!(o.stderr, "err\n");
        assert_eq!(o.exit_code, Some(3));
        assert!(!o.success());
    }

    #[test]
    fn each_line_is_handed_over_as_it_comes() {
        let sh = find_tool(&["sh"]).unwrap();
        let args = vec![
            "-c".to_string(),
            "echo 22: a; echo x >&2; printf '23: b\\n24: c'".to_string(),
        ];
        let seen = std::sync::Mutex::new(Vec::new());
        let f = |l: &str| seen.lock().unwrap().push(l.to_string());
        let o = run_tool(
            &sh,
            &args,
            RunSpec {
                on_line: Some(&f),
                ..RunSpec::default()
            },
        )
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        // The unterminated last line is not a line yet; the output keeps everything.
        assert_eq!(seen, ["22: a", "23: b", "x"]);
        assert_eq!(o.stdout, "22: a\n23: b\n24: c");
    }

    #[test]
    fn timeout_kills_the_child() {
        let sh = find_tool(&["sh"]).unwrap();
        // The shell's child holds the pipes: it must be killed with the shell, or the run
        // would only end when `sleep` does.
        let args = vec!["-c".to_string(), "sleep 600; true".to_string()];
        let spec = RunSpec {
            timeout: Some(Duration::from_millis(100)),
            ..RunSpec::default()
        };
        let started = Instant::now();
        let o = run_tool(&sh, &args, spec).unwrap();
        assert!(o.timed_out);
        assert!(o.seconds < 20.0);
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the grandchild outlived the timeout"
        );
        assert_eq!(o.exit_code, None);
    }

    #[test]
    fn a_missing_program_is_an_error_naming_it() {
        let e = run_tool(Path::new("/nonexistent/tool"), &[], RunSpec::default()).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/tool"), "{e}");
    }
}
