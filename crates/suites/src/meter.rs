//! An external power meter the user names: a command printing watts (`--power-cmd`) — once
//! per run, re-run at the meter's interval (a PDU query such as a Netio's JSON API through
//! curl and jq), or one line per reading for as long as it runs (a USB meter's logger) — or
//! a file re-read at the interval (`--power-file`, written by such a logger).
//!
//! Read on its own thread: the sampler never forks and never waits for a slow meter; each
//! sample shows the latest reading, and a reading older than three meter intervals counts as
//! none (a stalled logger does not repeat its last value forever). Every reading is also
//! kept with the instant it was taken until the sampler drains it into the timeline's power
//! series: energy is integrated over the meter's own readings, not the samples.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where the readings come from.
#[derive(Debug, Clone, PartialEq)]
pub enum MeterSpec {
    /// Run with `sh -c`.
    Command(String),
    File(PathBuf),
}

impl MeterSpec {
    /// `power-cmd: CMD` / `power-file: PATH`, the source's name in results.
    pub fn name(&self) -> String {
        match self {
            MeterSpec::Command(c) => format!("power-cmd: {c}"),
            MeterSpec::File(p) => format!("power-file: {}", p.display()),
        }
    }
}

/// Watts in a line of a meter's output: the first number with a unit right after it (`W`,
/// `mW`, `kW`, `uW`/`µW`) — so time stamps before it do not count — else the first number
/// (watts): `12.5`, `12.5 W`, `power=12500mW`, `{"watts": 7.1}`, `12:00:01 5.2 W`. None
/// for no number, a negative, non-finite or implausible one (over 100 kW).
pub fn parse_watts(line: &str) -> Option<f64> {
    let mut first = None;
    for (value, unit) in numbers(line) {
        let scale = if unit.starts_with("mW") {
            Some(1e-3)
        } else if unit.starts_with("kW") {
            Some(1e3)
        } else if unit.starts_with("uW") || unit.starts_with("µW") {
            Some(1e-6)
        } else if unit.starts_with('W') {
            Some(1.0)
        } else {
            None
        };
        match scale {
            Some(k) => return watts(value * k),
            None if first.is_none() => first = Some(value),
            None => {}
        }
    }
    first.and_then(watts)
}

/// No machine truebench measures draws this much (a 192-core server: about 2 kW); a meter
/// printing more (10^300, a counter read as watts) gives no reading.
const MAX_WATTS: f64 = 100_000.0;

fn watts(w: f64) -> Option<f64> {
    (w.is_finite() && (0.0..=MAX_WATTS).contains(&w)).then_some(w)
}

/// Every number in `line` with the text right after it (spaces skipped).
fn numbers(line: &str) -> impl Iterator<Item = (f64, &str)> {
    let b = line.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let starts_number = b[i].is_ascii_digit()
                || (matches!(b[i], b'-' | b'+' | b'.')
                    && b.get(i + 1)
                        .is_some_and(|c| c.is_ascii_digit() || *c == b'.'));
            if !starts_number {
                i += 1;
                continue;
            }
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            // An exponent only when digits follow it (`12e3`, not the `e` of a word).
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            if let Ok(v) = line[start..i].parse::<f64>() {
                return Some((v, line[i..].trim_start()));
            }
        }
        None
    })
}

#[derive(Default)]
struct Shared {
    latest: Mutex<Option<(Instant, f64)>>,
    /// Readings not drained yet, oldest first (at most `MAX_PENDING`).
    pending: Mutex<Vec<(Instant, f64)>>,
    error: Mutex<Option<String>>,
    readings: AtomicU64,
    child: Mutex<Option<Child>>,
}

/// A running meter; stops (and kills its command) when dropped.
pub struct Meter {
    spec: MeterSpec,
    interval: Duration,
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Meter {
    /// Start reading `spec` every `interval` (a streaming command at its own pace).
    pub fn start(spec: MeterSpec, interval: Duration) -> Meter {
        let interval = interval.max(Duration::from_millis(50));
        let shared = Arc::new(Shared::default());
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (spec, shared, stop) = (spec.clone(), shared.clone(), stop.clone());
            std::thread::Builder::new()
                .name("power-meter".into())
                .spawn(move || run(&spec, interval, &shared, &stop))
                .ok()
        };
        if thread.is_none() {
            *shared.error.lock().unwrap_or_else(|e| e.into_inner()) =
                Some("could not start the meter's thread".into());
        }
        Meter {
            spec,
            interval,
            shared,
            stop,
            thread,
        }
    }

    pub fn name(&self) -> String {
        self.spec.name()
    }

    /// The latest reading, if it is fresh (at most three meter intervals old).
    pub fn latest(&self) -> Option<f64> {
        let l = *self.shared.latest.lock().unwrap_or_else(|e| e.into_inner());
        l.filter(|(t, _)| t.elapsed() <= self.interval * 3)
            .map(|(_, w)| w)
    }

    /// How many readings so far.
    pub fn readings(&self) -> u64 {
        self.shared.readings.load(Ordering::Relaxed)
    }

    /// Why the latest attempt gave no reading (the command's error, an unreadable file…).
    pub fn error(&self) -> Option<String> {
        self.shared
            .error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Wait up to `timeout` for the first reading: its watts, or why there is none.
    pub fn first_reading(&self, timeout: Duration) -> Result<f64, String> {
        let t0 = Instant::now();
        loop {
            if let Some(w) = self.latest() {
                return Ok(w);
            }
            if t0.elapsed() >= timeout {
                return Err(self.error().unwrap_or_else(|| {
                    format!("no reading within {:.1} s", timeout.as_secs_f64())
                }));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl truebench_monitor::reader::ExternalPower for Meter {
    fn name(&self) -> String {
        Meter::name(self)
    }

    fn latest(&self) -> Option<f64> {
        Meter::latest(self)
    }

    fn interval(&self) -> Duration {
        self.interval
    }

    fn drain(&self, out: &mut Vec<(Instant, f64)>) {
        out.append(
            &mut self
                .shared
                .pending
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
    }
}

/// Readings kept for a sampler that does not drain them (a meter read without one): the
/// oldest half goes when this many wait.
const MAX_PENDING: usize = 100_000;

impl std::fmt::Debug for Meter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meter")
            .field("spec", &self.spec)
            .field("interval", &self.interval)
            .field("readings", &self.readings())
            .finish()
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        kill_child(&self.shared);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn set_error(shared: &Shared, e: Option<String>) {
    *shared.error.lock().unwrap_or_else(|e| e.into_inner()) = e;
}

fn record(shared: &Shared, w: f64) {
    let now = Instant::now();
    *shared.latest.lock().unwrap_or_else(|e| e.into_inner()) = Some((now, w));
    let mut pending = shared.pending.lock().unwrap_or_else(|e| e.into_inner());
    if pending.len() >= MAX_PENDING {
        pending.drain(..MAX_PENDING / 2);
    }
    pending.push((now, w));
    drop(pending);
    shared.readings.fetch_add(1, Ordering::Relaxed);
    set_error(shared, None);
}

/// The most of a power file read: its last lines hold the reading.
const POWER_FILE_MAX: u64 = 64 * 1024;

/// A power file's text: a regular file (or a sysfs/procfs attribute) only — a FIFO, socket or
/// device there would block the meter's thread (and with it the end of the run) or be read
/// without end — opened without waiting, read up to [`POWER_FILE_MAX`].
fn read_power_file(p: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let t = std::fs::metadata(p)?.file_type();
    if !t.is_file() {
        let what = truebench_host::file_kind(&t);
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("is {what}, not a file holding the latest reading"),
        ));
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(p)?;
    // Swapped for something else between the look and the open: refused the same way.
    if !f.metadata()?.file_type().is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is no longer a regular file",
        ));
    }
    let mut text = String::new();
    f.take(POWER_FILE_MAX).read_to_string(&mut text)?;
    Ok(text)
}

/// Sleep `d` in short steps, returning early when stopped.
fn pause(d: Duration, stop: &AtomicBool) {
    let t0 = Instant::now();
    while !stop.load(Ordering::SeqCst) && t0.elapsed() < d {
        std::thread::sleep((d - t0.elapsed().min(d)).min(Duration::from_millis(50)));
    }
}

fn run(spec: &MeterSpec, interval: Duration, shared: &Shared, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let started = Instant::now();
        match spec {
            MeterSpec::File(p) => match read_power_file(p) {
                Ok(text) => match text.lines().rev().find_map(parse_watts) {
                    Some(w) => record(shared, w),
                    None => set_error(
                        shared,
                        Some(format!("{}: no number of watts in it", p.display())),
                    ),
                },
                Err(e) => set_error(shared, Some(format!("{}: {e}", p.display()))),
            },
            MeterSpec::Command(cmd) => run_command(cmd, shared, stop),
        }
        pause(interval.saturating_sub(started.elapsed()), stop);
    }
}

/// One run of the command: every line with a number is a reading, as it comes.
fn run_command(cmd: &str, shared: &Shared, stop: &AtomicBool) {
    use std::os::unix::process::CommandExt;
    // Its own process group: a pipeline (`logger | awk …`) is stopped as a whole.
    let spawned = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return set_error(shared, Some(format!("{cmd}: cannot start sh: {e}"))),
    };
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return;
    };
    *shared.child.lock().unwrap_or_else(|e| e.into_inner()) = Some(child);
    // Stop may have come between the spawn and here: Drop found no child to kill.
    if stop.load(Ordering::SeqCst) {
        kill_child(shared);
    }
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.take(64 * 1024).read_to_string(&mut text);
        text
    });
    let mut got = 0u64;
    for line in BufReader::new(out).lines() {
        let Ok(line) = line else { break };
        if let Some(w) = parse_watts(&line) {
            record(shared, w);
            got += 1;
        }
    }
    // Reap it; a command that closed its output but runs on is killed when stopping.
    let status = loop {
        let mut guard = shared.child.lock().unwrap_or_else(|e| e.into_inner());
        match guard.as_mut().map(Child::try_wait) {
            Some(Ok(None)) => {
                if stop.load(Ordering::SeqCst) {
                    if let Some(c) = guard.as_mut() {
                        kill_group(c);
                    }
                }
            }
            Some(Ok(Some(s))) => {
                *guard = None;
                break Some(s);
            }
            None | Some(Err(_)) => {
                *guard = None;
                break None;
            }
        }
        drop(guard);
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = errors.join().unwrap_or_default();
    if stop.load(Ordering::SeqCst) {
        return;
    }
    let said = stderr.lines().last().unwrap_or("").trim().to_string();
    match status {
        Some(s) if !s.success() => set_error(
            shared,
            Some(format!(
                "{cmd}: {s}{}",
                if said.is_empty() {
                    String::new()
                } else {
                    format!(": {said}")
                }
            )),
        ),
        _ if got == 0 => set_error(shared, Some(format!("{cmd}: printed no number of watts"))),
        _ => {}
    }
}

fn kill_child(shared: &Shared) {
    if let Some(c) = shared
        .child
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_mut()
    {
        kill_group(c);
    }
}

/// SIGKILL to the command's process group (it leads its own), then to it.
fn kill_group(c: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(c.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = c.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watts_in_what_meters_print() {
        assert_eq!(parse_watts("12.5"), Some(12.5));
        assert_eq!(parse_watts("12.5 W"), Some(12.5));
        assert_eq!(parse_watts("power=12500mW"), Some(12.5));
        assert_eq!(parse_watts("{\"watts\": 7.1}"), Some(7.1));
        assert_eq!(parse_watts("1.5kW"), Some(1500.0));
        assert_eq!(parse_watts("2500000 uW"), Some(2.5));
        assert_eq!(parse_watts("1.2e1"), Some(12.0));
        assert_eq!(parse_watts("Output 3 W"), Some(3.0));
        assert_eq!(parse_watts("level"), None);
        assert_eq!(parse_watts(""), None);
        assert_eq!(parse_watts("-3 W"), None);
        assert_eq!(parse_watts("1e300 W"), None);
        assert_eq!(parse_watts("NaN W"), None);
        assert_eq!(parse_watts("2500 W"), Some(2500.0));
        assert_eq!(parse_watts(".5"), Some(0.5));
        // A time stamp before the reading: the number with the unit wins.
        assert_eq!(parse_watts("2026-11-25 12:00:01 5.2 W"), Some(5.2));
        assert_eq!(parse_watts("t=2 3.5 W"), Some(3.5));
    }
}
