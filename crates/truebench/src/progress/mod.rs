//! The one progress renderer every long command uses, on stderr, for the one vocabulary every
//! suite reports in (`truebench_suites::progress::Event`): a plan and its headline, `waiting`
//! (the machine is being readied: idle gate, cooling, calibration), step `i` of `n` with its
//! estimate, the step's result, partial results and notes. A command hands its suite
//! `&mut |e| progress.event(e)`; nothing here knows a kind. How it shows:
//! - on a terminal, an `indicatif` bar for the current step with the ETA of the whole run,
//!   and a line above it for each step that ends and each note;
//! - otherwise (a log file, a pipe, CI) and with `--json`, plain lines, only when something
//!   changes — `truebench: [i/n] what (about N s)`, `truebench: [i/n] what: result in N s`,
//!   `truebench: note`, a wait once per change — and every 30 s of a long step, how far it
//!   is and the ETA;
//! - how far a step is comes from what it knows (7-zip's runs and passes, openssl's block
//!   sizes): its time left is projected from the share done; before the step reports any,
//!   from the plan's estimate;
//! - nothing with `--quiet`.

mod state;
#[cfg(test)]
mod tests;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::fmt;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use truebench_suites::progress::Event;

use state::{phase_line, short, Phase, State, HEARTBEAT};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Off,
    /// Plain lines when something changes.
    Lines,
    /// The bar (stderr is a terminal and stdout is no JSON document).
    Bar,
}

impl Mode {
    pub fn choose(quiet: bool, json: bool, stderr_is_terminal: bool) -> Mode {
        if quiet {
            Mode::Off
        } else if stderr_is_terminal && !json {
            Mode::Bar
        } else {
            Mode::Lines
        }
    }
}

/// The bar, redrawn four times a second by a thread of its own.
struct Bar {
    bar: ProgressBar,
    stop: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
    /// Drawn since the first phase started; before, lines are written directly.
    shown: bool,
    target: Option<ProgressDrawTarget>,
}

pub struct Progress {
    mode: Mode,
    state: Arc<Mutex<State>>,
    /// Where plain lines go (stderr; a buffer in the tests).
    lines: Arc<Mutex<Box<dyn Write + Send>>>,
    bar: Option<Bar>,
    /// Plain lines only: how often a long phase says how far it is.
    heartbeat_every: Duration,
    heartbeat: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
}

impl Progress {
    pub fn new(mode: Mode) -> Progress {
        Progress::with_targets(
            mode,
            Box::new(std::io::stderr()),
            ProgressDrawTarget::stderr,
        )
    }

    /// A command's progress: `quiet` is `--quiet`; `json`, a JSON document on stdout (progress
    /// stays on stderr, as plain lines).
    pub fn for_command(quiet: bool, json: bool) -> Progress {
        Progress::new(Mode::choose(quiet, json, std::io::stderr().is_terminal()))
    }

    /// Plain lines whatever stderr is: the command shares the terminal with one it runs,
    /// whose output a bar redrawn beneath would garble.
    pub fn lines(quiet: bool) -> Progress {
        Progress::new(Mode::choose(quiet, true, false))
    }

    fn with_targets(
        mode: Mode,
        lines: Box<dyn Write + Send>,
        target: impl FnOnce() -> ProgressDrawTarget,
    ) -> Progress {
        let state = Arc::new(Mutex::new(State::default()));
        let bar = (mode == Mode::Bar).then(|| {
            // The text beside the bar is read from the state at each draw, so a draw never
            // mixes two phases.
            let (s1, s2) = (state.clone(), state.clone());
            let style = ProgressStyle::with_template("{label} [{bar:24}] {status}")
                .expect("a valid template")
                .with_key("label", move |_: &ProgressState, w: &mut dyn fmt::Write| {
                    let _ = w.write_str(&lock(&s1).label());
                })
                .with_key(
                    "status",
                    move |_: &ProgressState, w: &mut dyn fmt::Write| {
                        let _ = w.write_str(&lock(&s2).status());
                    },
                )
                .progress_chars("#>-");
            let bar = ProgressBar::hidden().with_style(style);
            let stop = Arc::new(AtomicBool::new(false));
            let ticker = {
                let (bar, stop, state) = (bar.clone(), stop.clone(), state.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        update(&bar, &state);
                        std::thread::sleep(Duration::from_millis(250));
                    }
                })
            };
            Bar {
                bar,
                stop,
                ticker: Some(ticker),
                shown: false,
                target: Some(target()),
            }
        });
        Progress {
            mode,
            state,
            lines: Arc::new(Mutex::new(lines)),
            bar,
            heartbeat_every: HEARTBEAT,
            heartbeat: None,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// One line: above the bar when it is shown, else plain. Lost when stderr is gone.
    fn say(&mut self, text: &str) {
        match &self.bar {
            Some(b) if b.shown => b.bar.println(text),
            _ => {
                let _ = writeln!(lock(&self.lines), "{text}");
            }
        }
    }

    /// Say `e`: the one way every command shows its progress.
    pub fn event(&mut self, e: Event) {
        if self.mode == Mode::Off {
            return;
        }
        match e {
            Event::Plan { headline, steps } => {
                if !steps.is_empty() {
                    let mut s = self.state();
                    s.plan = steps;
                    s.adaptive = false;
                }
                self.say(&format!("truebench: {headline}"));
            }
            Event::Waiting { what, reason } => self.waiting(what, reason),
            Event::Step {
                index,
                total,
                what,
                title,
                estimate,
                progress,
            } => self.begin(
                index,
                total,
                what,
                title.as_deref(),
                estimate.unwrap_or_default(),
                progress.unwrap_or_default(),
            ),
            Event::Score {
                text,
                reason,
                seconds,
            } => self.end(seconds, &text, reason.as_deref()),
            Event::Partial(text) => self.say(&format!("truebench:   {text}")),
            Event::Note(text) => self.say(&format!("truebench: {text}")),
        }
    }

    /// The machine is being readied: said once per change. With a reason the running step is
    /// the wait itself (run's idle gate): on a terminal the reason is shown beside its bar.
    fn waiting(&mut self, what: String, reason: Option<String>) {
        let (line, shown) = match reason {
            Some(r) => (format!("{what}: {r}"), Some(r)),
            None => (format!("{what}…"), None),
        };
        let (changed, beside) = {
            let mut s = self.state();
            let changed = s.waiting.as_ref().is_none_or(|w| w.0 != line);
            let beside = match (&mut s.current, &shown) {
                (Some(c), Some(_)) => {
                    c.waits = true;
                    true
                }
                _ => false,
            };
            s.waiting = Some((line.clone(), shown.unwrap_or_else(|| what.clone())));
            (changed, beside)
        };
        if changed && !(beside && self.mode == Mode::Bar) {
            self.say(&format!("truebench: {line}"));
        }
    }

    /// Step `index` of `total` starts: `name` (and what it runs, `title`), expected to take
    /// `estimate` (zero: not known); `share` is how far it is, when the step reports it.
    fn begin(
        &mut self,
        index: usize,
        total: usize,
        name: String,
        title: Option<&str>,
        estimate: Duration,
        share: truebench_workloads::progress::Progress,
    ) {
        {
            let mut s = self.state();
            // Without a plan, the steps are alike: as many as `total`, each as the estimate.
            if s.plan.len() != total {
                s.plan = vec![(name.clone(), estimate); total];
                s.adaptive = true;
            }
            s.current = Some(Phase {
                index,
                total,
                name: name.clone(),
                waits: false,
                started: Instant::now(),
                estimate,
                progress: share,
            });
        }
        if self.mode == Mode::Lines && self.heartbeat.is_none() {
            self.start_heartbeat();
        }
        match &mut self.bar {
            Some(b) => {
                if let Some(t) = b.target.take() {
                    b.bar.set_draw_target(t);
                    b.shown = true;
                }
                update(&b.bar, &self.state);
            }
            None => {
                let about = if estimate.is_zero() {
                    String::new()
                } else {
                    format!(" (about {})", short(estimate.as_secs_f64()))
                };
                self.say(&format!(
                    "truebench: [{index}/{total}] {name}{}{about}",
                    title.map(|t| format!(": {t}")).unwrap_or_default()
                ))
            }
        }
    }

    /// The running step ended with `result` (`ok`, `940 Mbit/s`, `FAILED`) and why, when
    /// there is a reason: `truebench: [i/n] name: RESULT in N s (REASON)`. `secs`: its length
    /// as its maker measured it, else as seen from here.
    fn end(&mut self, secs: Option<f64>, result: &str, reason: Option<&str>) {
        let (idx, total, name, seconds) = {
            let mut s = self.state();
            s.last = s.label();
            let (idx, total, name, seen) =
                s.current.take().map_or((0, 0, String::new(), 0.0), |c| {
                    let secs = c.started.elapsed().as_secs_f64();
                    (c.index, c.total, c.name, secs)
                });
            let seconds = secs.unwrap_or(seen);
            s.done = idx;
            s.took.push(seconds);
            s.waiting = None;
            (idx, total, name, seconds)
        };
        self.say(&format!(
            "truebench: [{idx}/{total}] {name}: {result} in {}{}",
            short(seconds),
            reason.map(|r| format!(" ({r})")).unwrap_or_default()
        ));
    }

    /// Without a bar nothing would be said between a phase's start and end, minutes apart
    /// for 7-zip: every `heartbeat_every`, the phase's time so far against its estimate.
    fn start_heartbeat(&mut self) {
        let stop = Arc::new(AtomicBool::new(false));
        let (state, lines, every, stop2) = (
            self.state.clone(),
            self.lines.clone(),
            self.heartbeat_every,
            stop.clone(),
        );
        let t = std::thread::spawn(move || {
            let step = (every / 10).clamp(Duration::from_millis(5), Duration::from_millis(250));
            // (phase index, heartbeats said in it)
            let mut said = (0, 0u32);
            while !stop2.load(Ordering::Relaxed) {
                std::thread::sleep(step);
                let line = {
                    let s = lock(&state);
                    let Some(c) = &s.current else { continue };
                    if said.0 != c.index {
                        said = (c.index, 0);
                    }
                    let due = every * (said.1 + 1);
                    if c.started.elapsed() < due {
                        continue;
                    }
                    said.1 += 1;
                    phase_line(c, s.eta())
                };
                let _ = writeln!(lock(&lines), "{line}");
            }
        });
        self.heartbeat = Some((stop, t));
    }

    /// Stop the bar and clear it; the lines above it stay.
    pub fn finish(&mut self) {
        if let Some(b) = &mut self.bar {
            b.stop.store(true, Ordering::Relaxed);
            if let Some(t) = b.ticker.take() {
                let _ = t.join();
            }
            b.bar.finish_and_clear();
        }
        if let Some((stop, t)) = self.heartbeat.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = t.join();
        }
        let _ = lock(&self.lines).flush();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

fn lock<T: ?Sized>(state: &Mutex<T>) -> MutexGuard<'_, T> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Move the bar to where the current phase is, and draw it once. The state's lock is not
/// held while the bar draws (the draw takes it to read the text).
fn update(bar: &ProgressBar, state: &Mutex<State>) {
    let now = lock(state).position();
    if let Some((len, pos)) = now {
        bar.update(|s| {
            s.set_len(len);
            s.set_pos(pos);
        });
    }
}
