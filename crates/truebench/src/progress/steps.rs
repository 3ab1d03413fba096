//! The progress vocabulary every long command shares (`run` speaks it through its richer
//! plan in the parent module): a headline, `waiting` (the machine is being readied: idle gate,
//! cooling, calibration), `step i of n` with what it is and how long it should take, the
//! step's `score` (its result), and `note`s.
//!
//! Rendered one way: on a terminal, the finished lines above one live line (`[i/n] what` with
//! the elapsed time and the ETA of the whole); elsewhere (a log, a pipe, CI) plain lines, only
//! when something changes — `truebench: [i/n] what (N s)…`, `truebench:   score`,
//! `truebench: note`. Nothing with `--quiet` or `--json`.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How a command's progress is shown.
pub struct Steps {
    quiet: bool,
    bar: Option<ProgressBar>,
    started: Instant,
    /// The running step: (index, total, what, expected seconds, when it started).
    current: Option<(usize, usize, String, Option<f64>, Instant)>,
    /// Seconds the finished steps took.
    done: Vec<f64>,
    last_wait: Option<String>,
}

impl Steps {
    /// `quiet`: `--quiet` or a JSON document on stdout.
    pub fn new(quiet: bool) -> Steps {
        Self::with_terminal(quiet, std::io::stderr().is_terminal())
    }

    fn with_terminal(quiet: bool, terminal: bool) -> Steps {
        let bar = (!quiet && terminal).then(|| {
            let style = ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            let b =
                ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style);
            b.enable_steady_tick(Duration::from_millis(250));
            b
        });
        Steps {
            quiet,
            bar,
            started: Instant::now(),
            current: None,
            done: Vec::new(),
            last_wait: None,
        }
    }

    /// A finished line: above the live line on a terminal, else on its own.
    fn line(&self, text: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(b) => b.println(text),
            None => errln!("{text}"),
        }
    }

    /// What the command is about to do (`net: 3 test(s) × 2 repeat(s), 10 s each`).
    pub fn headline(&self, text: &str) {
        self.line(&format!("truebench: {text}"));
    }

    /// The machine is being readied (`cooling to 45.0 °C`): no step runs. The same wait said
    /// again is not repeated.
    pub fn waiting(&mut self, what: &str) {
        if self.last_wait.as_deref() == Some(what) {
            return;
        }
        self.last_wait = Some(what.to_string());
        self.line(&format!("truebench: {what}…"));
        if let Some(b) = &self.bar {
            b.set_message(format!("{what}…"));
        }
    }

    /// Step `index` of `total` starts; `expected_s` is how long it should take.
    pub fn step(&mut self, index: usize, total: usize, what: &str, expected_s: Option<f64>) {
        let secs = expected_s.map_or(String::new(), |s| format!(", {}", short(s)));
        if self.bar.is_none() {
            self.line(&format!("truebench: [{index}/{total}] {what}{secs}…"));
        }
        self.current = Some((index, total, what.to_string(), expected_s, Instant::now()));
        self.refresh();
    }

    /// The running step's result (`ok, 940 Mbit/s`): the step is done.
    pub fn score(&mut self, text: &str) {
        match self.current.take() {
            Some((i, n, what, _, t0)) => {
                self.done.push(t0.elapsed().as_secs_f64());
                if self.bar.is_some() {
                    self.line(&format!("truebench: [{i}/{n}] {what}: {text}"));
                } else {
                    self.line(&format!("truebench:   {text}"));
                }
            }
            None => self.line(&format!("truebench:   {text}")),
        }
        self.refresh();
    }

    /// A result of the running step that does not end it (one run of several, a score every
    /// interval).
    pub fn partial(&self, text: &str) {
        self.line(&format!("truebench:   {text}"));
    }

    /// Something to know that is no step's result.
    pub fn note(&self, text: &str) {
        self.line(&format!("truebench: {text}"));
    }

    /// Time left: the running step's rest and the steps after it, each as long as the
    /// finished ones took on average (else as expected).
    pub fn eta(&self) -> Option<Duration> {
        let (i, n, _, expected, t0) = self.current.as_ref()?;
        let per = if self.done.is_empty() {
            (*expected)?
        } else {
            self.done.iter().sum::<f64>() / self.done.len() as f64
        };
        let rest = (per - t0.elapsed().as_secs_f64()).max(0.0);
        let after = n.saturating_sub(*i) as f64 * per;
        Some(Duration::from_secs_f64(rest + after))
    }

    fn refresh(&self) {
        let Some(b) = &self.bar else { return };
        match &self.current {
            Some((i, n, what, _, _)) => b.set_message(format!(
                "[{i}/{n}] {what} — {} elapsed{}",
                short(self.started.elapsed().as_secs_f64()),
                self.eta()
                    .map(|d| format!(", about {} left", short(d.as_secs_f64())))
                    .unwrap_or_default()
            )),
            None => b.set_message(String::new()),
        }
    }
}

impl Drop for Steps {
    fn drop(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// `3 test(s) × 2 repeat(s) × 4 settings, 10 s each`: the plan of a command that repeats tests
/// under cpufreq settings (net, io).
pub fn plan(tests: usize, repeat: u32, settings: usize, seconds: f64) -> String {
    format!(
        "{tests} test(s) × {repeat} repeat(s){}, {seconds} s each",
        if settings > 1 {
            format!(" × {settings} settings")
        } else {
            String::new()
        }
    )
}

/// `45 s`, `3 min 20 s`, `1.5 s`.
fn short(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{} min {:.0} s", (s / 60.0) as u64, s % 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_from_the_steps_done_else_the_expected_time() {
        let mut s = Steps::with_terminal(true, false);
        assert_eq!(s.eta(), None);
        s.step(1, 4, "a", Some(10.0));
        let eta = s.eta().unwrap().as_secs_f64();
        // This step's 10 s and three more of 10 s.
        assert!((39.0..=40.0).contains(&eta), "{eta}");
        s.score("ok");
        s.done[0] = 2.0; // as if the first step took 2 s
        s.step(2, 4, "b", Some(10.0));
        let eta = s.eta().unwrap().as_secs_f64();
        assert!((5.5..=6.0).contains(&eta), "{eta}");
        assert_eq!(short(4.25), "4.2 s");
        assert_eq!(short(200.0), "3 min 20 s");
    }
}
