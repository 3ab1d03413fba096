//! The one progress renderer every long command uses, on stderr. Its vocabulary: a headline,
//! `waiting` (the machine is being readied), step `i` of `n` (`begin` … `end` with its
//! result), `partial` results and notes. `run` speaks it from its suite's events
//! (`truebench_suites::run::Event`, [`Progress::event`]); the other commands through
//! [`steps::Steps`]. How it shows:
//! - on a terminal, an `indicatif` bar for the current phase with the ETA of the whole run,
//!   and a line above it for each phase that ends and each note;
//! - otherwise (a log file, a pipe, CI) and with `--json`, plain lines, only when something
//!   changes: a phase starts or ends, the idle gate's verdict changes, a note — and every
//!   30 s of a long phase, how far it is and the ETA;
//! - how far a phase is comes from what it knows (7-zip's runs and passes, openssl's block
//!   sizes): its time left is projected from the share done; before the phase reports any,
//!   from the plan's estimate;
//! - nothing with `--quiet`.

pub mod steps;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use truebench_model::phase;
use truebench_model::{PhaseId, PhaseStatus};
use truebench_suites::run::Event;

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

/// The current phase.
struct Phase {
    index: usize,
    total: usize,
    name: String,
    /// The machine is readied during this step (run's idle gate): `waiting` is shown beside
    /// the bar instead of on lines of its own.
    waits: bool,
    started: Instant,
    estimate: Duration,
    progress: truebench_workloads::progress::Progress,
}

impl Phase {
    /// The share done and what runs now, once the phase has reported enough to project from.
    fn known(&self) -> Option<(f64, String)> {
        self.progress.get().filter(|(f, _)| *f >= 0.02)
    }

    /// Time left: projected from the share done, else the estimate's rest.
    fn left(&self) -> Duration {
        let el = self.started.elapsed();
        match self.known() {
            Some((f, _)) => el.mul_f64((1.0 - f) / f),
            None => self.estimate.saturating_sub(el),
        }
    }

    /// The phase's whole expected length: elapsed + left.
    fn expected(&self) -> Duration {
        self.started.elapsed() + self.left()
    }
}

/// What the events said so far.
#[derive(Default)]
struct State {
    plan: Vec<(String, Duration)>,
    current: Option<Phase>,
    waiting: Option<String>,
    /// Phases ended.
    done: usize,
    /// The label of the phase that ended last, shown until the next one starts.
    last: String,
    /// Seconds each ended phase took: with `adaptive`, a step not started yet is expected to
    /// take their mean (commands whose steps are alike; `run`'s phases each have their own).
    took: Vec<f64>,
    adaptive: bool,
}

impl State {
    /// Estimated time left: the current phase's rest plus every phase not started.
    fn eta(&self) -> Duration {
        let mean = (self.adaptive && !self.took.is_empty()).then(|| {
            Duration::from_secs_f64(self.took.iter().sum::<f64>() / self.took.len() as f64)
        });
        let rest: Duration = self
            .plan
            .iter()
            .skip(self.done + usize::from(self.current.is_some()))
            .map(|p| mean.unwrap_or(p.1))
            .sum();
        let cur = self.current.as_ref().map(Phase::left).unwrap_or_default();
        rest + cur
    }

    /// The bar's length and position (ms) for the current phase.
    fn position(&self) -> Option<(u64, u64)> {
        let c = self.current.as_ref()?;
        if let Some((f, _)) = c.known() {
            return Some((1000, (f * 1000.0) as u64));
        }
        let estimate_ms = (c.estimate.as_millis() as u64).max(1);
        Some((
            estimate_ms,
            (c.started.elapsed().as_millis() as u64).min(estimate_ms),
        ))
    }

    /// Left of the bar: `[3/7] memory`, padded.
    fn label(&self) -> String {
        self.current.as_ref().map_or(self.last.clone(), |c| {
            format!("[{}/{}] {:<19}", c.index, c.total, c.name)
        })
    }

    /// Right of the bar: time in the phase, its estimate, the ETA of the run, and the idle
    /// gate's verdict while it waits.
    fn status(&self) -> String {
        let Some(c) = &self.current else {
            return format!("{:>12}  ETA {}", "", mmss(self.eta()));
        };
        let wait = self
            .waiting
            .as_ref()
            .filter(|_| c.waits)
            .map(|w| format!("  {w}"))
            .unwrap_or_default();
        let what = c.known().map(|(_, w)| format!("  {w}")).unwrap_or_default();
        format!(
            "{:>4.0}s/~{:.0}s  ETA {}{what}{wait}",
            c.started.elapsed().as_secs_f64(),
            c.expected().as_secs_f64(),
            mmss(self.eta())
        )
    }
}

/// How often a phase says how far it is when there is no bar.
const HEARTBEAT: Duration = Duration::from_secs(30);

/// `truebench: [5/7] compression-multi: 30 s of about 95 s, ETA 2:10`.
/// With the phase's own progress: `… 30 s, 7-zip run 2 of 3 (45 %), about 40 s left, ETA 2:10`.
fn phase_line(c: &Phase, eta: Duration) -> String {
    let el = c.started.elapsed().as_secs_f64();
    let est = c.estimate.as_secs_f64();
    let of = match c.known() {
        Some((f, what)) => format!(
            ", {what} ({:.0} %), about {:.0} s left",
            f * 100.0,
            c.left().as_secs_f64()
        ),
        None if el <= est => format!(" of about {est:.0} s"),
        None => format!(" (longer than the estimate of {est:.0} s)"),
    };
    format!(
        "truebench: [{}/{}] {}: {el:.0} s{of}, ETA {}",
        c.index,
        c.total,
        c.name,
        mmss(eta)
    )
}

fn phase_status(s: PhaseStatus) -> &'static str {
    match s {
        PhaseStatus::Ok => "ok",
        PhaseStatus::Skipped => "skipped",
        PhaseStatus::Failed => "FAILED",
        PhaseStatus::Interrupted => "interrupted",
    }
}

/// `4.2 s`, `45 s`, `3 min 20 s`.
pub fn short(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{} min {:.0} s", (s / 60.0) as u64, s % 60.0)
    }
}

fn mmss(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
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

    /// What the command is about to do: `truebench: TEXT`.
    pub fn headline(&mut self, text: &str) {
        if self.mode != Mode::Off {
            self.say(&format!("truebench: {text}"));
        }
    }

    /// Something to know that is no step's result: `truebench: TEXT`.
    pub fn note(&mut self, text: &str) {
        self.headline(text);
    }

    /// A result of the running step that does not end it: `truebench:   TEXT`.
    pub fn partial(&mut self, text: &str) {
        if self.mode != Mode::Off {
            self.say(&format!("truebench:   {text}"));
        }
    }

    /// The steps to come, with the time each should take (the ETA's base). `adaptive`: the
    /// steps are alike, so once some ended the rest are expected to take as long as they did.
    pub fn plan(&mut self, steps: Vec<(String, Duration)>, adaptive: bool) {
        let mut s = self.state();
        s.plan = steps;
        s.adaptive = adaptive;
    }

    /// The machine is being readied: `line` (`waiting for an idle system: load 0.4`) said
    /// once per change of `what` (`load 0.4`), which is shown beside the bar instead when the
    /// running step is the one that waits.
    pub fn waiting(&mut self, line: &str, what: &str) {
        if self.mode == Mode::Off {
            return;
        }
        let (changed, beside) = {
            let mut s = self.state();
            let changed = s.waiting.as_deref() != Some(what);
            s.waiting = Some(what.to_string());
            (changed, s.current.as_ref().is_some_and(|c| c.waits))
        };
        if changed && !(beside && self.mode == Mode::Bar) {
            self.say(&format!("truebench: {line}"));
        }
    }

    /// Step `index` of `total` starts: `name` (and what it runs, `title`), expected to take
    /// `estimate`; `share` is how far it is, when the step reports it.
    #[allow(clippy::too_many_arguments)]
    pub fn begin(
        &mut self,
        index: usize,
        total: usize,
        name: &str,
        title: Option<&str>,
        estimate: Option<Duration>,
        share: truebench_workloads::progress::Progress,
        waits: bool,
    ) {
        if self.mode == Mode::Off {
            return;
        }
        let estimate = estimate.unwrap_or_default();
        {
            let mut s = self.state();
            // Without a plan, the steps are alike: as many as `total`, each as the estimate.
            if s.plan.len() != total {
                s.plan = vec![(name.to_string(), estimate); total];
                s.adaptive = true;
            }
            s.current = Some(Phase {
                index,
                total,
                name: name.to_string(),
                waits,
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
    /// there is a reason: `truebench: [i/n] name: RESULT in N s (REASON)`.
    pub fn end(&mut self, result: &str, reason: Option<&str>) {
        self.end_of(None, None, result, reason);
    }

    /// [`Progress::end`] with the step's name and length as its maker knows them.
    fn end_of(
        &mut self,
        name: Option<&str>,
        secs: Option<f64>,
        result: &str,
        reason: Option<&str>,
    ) {
        if self.mode == Mode::Off {
            return;
        }
        let (idx, total, name, seconds) = {
            let mut s = self.state();
            s.last = s.label();
            let it = s.current.take().map_or((0, 0, String::new(), 0.0), |c| {
                let secs = c.started.elapsed().as_secs_f64();
                (c.index, c.total, c.name, secs)
            });
            let it = (
                it.0,
                it.1,
                name.map_or(it.2, str::to_string),
                secs.unwrap_or(it.3),
            );
            s.done = it.0;
            s.took.push(it.3);
            s.waiting = None;
            it
        };
        self.say(&format!(
            "truebench: [{idx}/{total}] {name}: {result} in {}{}",
            short(seconds),
            reason.map(|r| format!(" ({r})")).unwrap_or_default()
        ));
    }

    /// `truebench run`'s events in the shared vocabulary.
    pub fn event(&mut self, e: Event) {
        if self.mode == Mode::Off {
            return;
        }
        match e {
            Event::Plan(p) => {
                let total: Duration = p.iter().map(|x| x.1).sum();
                let n = p.len();
                self.plan(p, false);
                self.headline(&format!(
                    "{n} phases, about {} (plus waiting for an idle system)",
                    mmss(total)
                ));
            }
            Event::Waiting(w) => self.waiting(&format!("waiting for an idle system: {w}"), &w),
            Event::PhaseStart {
                index,
                total,
                name,
                title,
                estimate,
                progress,
            } => {
                let waits = phase::IDLE.is(&name);
                self.begin(
                    index,
                    total,
                    &name,
                    Some(&title),
                    Some(estimate),
                    progress,
                    waits,
                )
            }
            Event::PhaseEnd {
                name,
                status,
                reason,
                seconds,
            } => {
                // A phase that went on with a reservation says it instead of "ok"
                // (`idle: not idle (forced): …`).
                let (st, reason) = match (status, reason) {
                    (PhaseStatus::Ok, Some(r)) => (r, None),
                    (s, r) => (phase_status(s).to_string(), r),
                };
                self.end_of(Some(&name), Some(seconds), &st, reason.as_deref());
            }
            Event::Note(n) => self.note(&n),
        }
    }

    /// Stop the bar and clear it; the lines above it stay.
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

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::TermLike;

    /// A buffer the test keeps a handle on.
    #[derive(Clone, Default, Debug)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A terminal 100 columns wide that records the text written (cursor moves and line ends
    /// dropped: indicatif pads every line to the width).
    impl TermLike for Shared {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().extend_from_slice(s.as_bytes());
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn events() -> Vec<Event> {
        let s = Duration::from_secs;
        let mut v = vec![
            Event::Plan(vec![("idle".into(), s(30)), ("memory".into(), s(90))]),
            Event::PhaseStart {
                index: 1,
                total: 2,
                name: "idle".into(),
                title: "Waiting for an idle system".into(),
                estimate: s(30),
                progress: Default::default(),
            },
        ];
        // The idle gate repeats its verdict every second; only changes make a line.
        for w in [
            "load 2.10",
            "load 2.10",
            "load 2.10",
            "load 0.40",
            "load 0.40",
        ] {
            v.push(Event::Waiting(w.into()));
        }
        v.extend([
            Event::PhaseEnd {
                name: "idle".into(),
                status: PhaseStatus::Ok,
                reason: None,
                seconds: 4.25,
            },
            Event::PhaseStart {
                index: 2,
                total: 2,
                name: "memory".into(),
                title: "Memory bandwidth and latency".into(),
                estimate: s(90),
                progress: Default::default(),
            },
            Event::Note("memory: cpu4 is offline".into()),
            Event::PhaseEnd {
                name: "memory".into(),
                status: PhaseStatus::Failed,
                reason: Some("out of memory".into()),
                seconds: 1.0,
            },
        ]);
        v
    }

    #[test]
    fn the_bar_only_on_a_terminal_without_json() {
        assert_eq!(Mode::choose(false, false, true), Mode::Bar);
        assert_eq!(Mode::choose(false, true, true), Mode::Lines);
        assert_eq!(Mode::choose(false, false, false), Mode::Lines);
        assert_eq!(Mode::choose(false, true, false), Mode::Lines);
        assert_eq!(Mode::choose(true, false, true), Mode::Off);
        assert_eq!(Mode::choose(true, true, false), Mode::Off);
    }

    #[test]
    fn plain_lines_only_when_something_changes() {
        let out = Shared::default();
        let mut p = Progress::with_targets(
            Mode::Lines,
            Box::new(out.clone()),
            ProgressDrawTarget::hidden,
        );
        for e in events() {
            p.event(e);
        }
        p.finish();
        assert_eq!(
            out.text(),
            "truebench: 2 phases, about 2:00 (plus waiting for an idle system)\n\
             truebench: [1/2] idle: Waiting for an idle system (about 30 s)\n\
             truebench: waiting for an idle system: load 2.10\n\
             truebench: waiting for an idle system: load 0.40\n\
             truebench: [1/2] idle: ok in 4.2 s\n\
             truebench: [2/2] memory: Memory bandwidth and latency (about 90 s)\n\
             truebench: memory: cpu4 is offline\n\
             truebench: [2/2] memory: FAILED in 1.0 s (out of memory)\n"
        );
    }

    #[test]
    fn a_forced_gate_says_not_idle_instead_of_ok() {
        let out = Shared::default();
        let mut p = Progress::with_targets(
            Mode::Lines,
            Box::new(out.clone()),
            ProgressDrawTarget::hidden,
        );
        p.event(Event::PhaseEnd {
            name: "idle".into(),
            status: PhaseStatus::Ok,
            reason: Some("not idle (forced): load 3.50".into()),
            seconds: 0.0,
        });
        p.finish();
        assert_eq!(
            out.text(),
            "truebench: [0/0] idle: not idle (forced): load 3.50 in 0.0 s\n"
        );
    }

    #[test]
    fn a_long_phase_says_how_far_it_is_without_a_bar() {
        let out = Shared::default();
        let mut p = Progress::with_targets(
            Mode::Lines,
            Box::new(out.clone()),
            ProgressDrawTarget::hidden,
        );
        p.heartbeat_every = Duration::from_millis(40);
        p.event(Event::PhaseStart {
            index: 4,
            total: 7,
            name: "compression-multi".into(),
            title: "7-zip on all cores".into(),
            estimate: Duration::from_secs(60),
            progress: Default::default(),
        });
        std::thread::sleep(Duration::from_millis(150));
        p.event(Event::PhaseEnd {
            name: "compression-multi".into(),
            status: PhaseStatus::Ok,
            reason: None,
            seconds: 0.15,
        });
        std::thread::sleep(Duration::from_millis(100));
        p.finish();
        let text = out.text();
        let beats: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("truebench: [4/7] compression-multi: 0 s of about 60 s, ETA"))
            .collect();
        assert!((1..=4).contains(&beats.len()), "{text}");
        // Nothing after the phase ended.
        assert!(
            text.trim_end().ends_with("ok in 0.1 s") || text.trim_end().ends_with("ok in 0.2 s"),
            "{text}"
        );
    }

    #[test]
    fn quiet_prints_nothing() {
        let out = Shared::default();
        let mut p =
            Progress::with_targets(Mode::Off, Box::new(out.clone()), ProgressDrawTarget::hidden);
        for e in events() {
            p.event(e);
        }
        p.finish();
        assert_eq!(out.text(), "");
    }

    #[test]
    fn the_bar_shows_the_phase_and_the_eta_and_ended_phases_above_it() {
        let lines = Shared::default();
        let term = Shared::default();
        let t = term.clone();
        let mut p = Progress::with_targets(Mode::Bar, Box::new(lines.clone()), move || {
            ProgressDrawTarget::term_like(Box::new(t))
        });
        let mut ev = events().into_iter();
        p.event(ev.next().unwrap()); // the plan, before the bar is shown
        p.event(ev.next().unwrap()); // idle starts: the bar appears
        p.event(Event::Waiting("load 2.10".into()));
        std::thread::sleep(Duration::from_millis(600));
        let drawn = term.text();
        assert!(drawn.contains("[1/2] idle"), "{drawn:?}");
        assert!(drawn.contains("/~30s  ETA 1:59  load 2.10"), "{drawn:?}");
        assert!(drawn.contains("[>-----------------------]"), "{drawn:?}");
        for e in ev {
            p.event(e);
        }
        p.finish();
        assert_eq!(
            lines.text(),
            "truebench: 2 phases, about 2:00 (plus waiting for an idle system)\n"
        );
        let drawn = term.text();
        // Phase starts and idle verdicts are on the bar only; the rest is printed above it.
        assert!(!drawn.contains("waiting for an idle system:"), "{drawn:?}");
        assert!(!drawn.contains("(about 90 s)"), "{drawn:?}");
        for l in [
            "truebench: [1/2] idle: ok in 4.2 s",
            "truebench: memory: cpu4 is offline",
            "truebench: [2/2] memory: FAILED in 1.0 s (out of memory)",
        ] {
            assert!(drawn.contains(l), "{l:?} in {drawn:?}");
        }
        assert!(drawn.contains("[2/2] memory"), "{drawn:?}");
    }

    #[test]
    fn eta_is_the_current_phase_rest_and_every_phase_not_started() {
        let s = Duration::from_secs;
        let mut st = State {
            plan: vec![
                ("a".into(), s(10)),
                ("b".into(), s(20)),
                ("c".into(), s(30)),
            ],
            ..Default::default()
        };
        assert_eq!(st.eta(), s(60));
        st.done = 1;
        st.current = Some(Phase {
            index: 2,
            total: 3,
            name: "b".into(),
            waits: false,
            started: Instant::now() - s(5),
            estimate: s(20),
            progress: Default::default(),
        });
        let eta = st.eta().as_secs_f64();
        assert!((44.0..=45.0).contains(&eta), "{eta}");
        // A phase that overruns its estimate leaves only the phases after it.
        st.current.as_mut().unwrap().started = Instant::now() - s(25);
        assert_eq!(st.eta(), s(30));
        assert_eq!(mmss(s(125)), "2:05");
    }

    #[test]
    fn alike_steps_are_expected_to_take_as_long_as_the_ended_ones() {
        let s = Duration::from_secs;
        let mut st = State {
            plan: vec![("a".into(), s(10)); 4],
            adaptive: true,
            ..Default::default()
        };
        // Nothing ended yet: the plan's 10 s each.
        assert_eq!(st.eta(), s(40));
        st.done = 1;
        st.took.push(2.0);
        // Step 2 of 4 not started: three more steps of 2 s each.
        assert_eq!(st.eta(), s(6));
        st.adaptive = false;
        assert_eq!(st.eta(), s(30));
        assert_eq!(short(4.25), "4.2 s");
        assert_eq!(short(200.0), "3 min 20 s");
    }

    #[test]
    fn a_phase_that_reports_its_share_is_projected_from_it() {
        let s = Duration::from_secs;
        let progress = truebench_workloads::progress::Progress::default();
        let mut st = State {
            plan: vec![("a".into(), s(10)), ("b".into(), s(100))],
            done: 1,
            ..Default::default()
        };
        st.current = Some(Phase {
            index: 2,
            total: 2,
            name: "compression-multi".into(),
            waits: false,
            started: Instant::now() - s(30),
            estimate: s(100),
            progress: progress.clone(),
        });
        // Nothing reported yet: the estimate's rest.
        let eta = st.eta().as_secs_f64();
        assert!((69.0..=70.0).contains(&eta), "{eta}");
        // Run 2 of 2 starting (50 %) after 30 s: 30 s left, not the estimate's 70.
        progress.step(1, 2, "7-zip run 2 of 2");
        let eta = st.eta().as_secs_f64();
        assert!((29.0..=31.0).contains(&eta), "{eta}");
        assert_eq!(st.position(), Some((1000, 500)));
        let status = st.status();
        assert!(
            status.contains("/~60s") && status.ends_with("7-zip run 2 of 2"),
            "{status}"
        );
        let line = phase_line(st.current.as_ref().unwrap(), st.eta());
        assert!(
            line.starts_with("truebench: [2/2] compression-multi: 30 s, 7-zip run 2 of 2 (50 %), about 30 s left, ETA 0:3"),
            "{line}"
        );
    }
}
