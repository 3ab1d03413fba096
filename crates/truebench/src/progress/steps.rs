//! The progress vocabulary every long command shares (`run` speaks the same through its
//! events, in the parent module): a headline, `waiting` (the machine is being readied: idle gate,
//! cooling, calibration), `step i of n` with what it is and how long it should take, the
//! step's `score` (its result), and `note`s.
//!
//! Rendered by the one renderer (the parent module): on a terminal, the finished lines above
//! one live bar (`[i/n] what`, time in the step, the ETA of the whole); elsewhere (a log, a
//! pipe, CI) plain lines when something changes — `truebench: [i/n] what (about N s)`,
//! `truebench: [i/n] what: score in N s`, `truebench: note` — and every 30 s of a long step
//! how far it is. With `--json` (the document on stdout) plain lines; nothing with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use super::{Mode, Progress};

/// How a command's progress is shown: the shared renderer ([`Progress`]) with the calls a
/// command makes.
pub struct Steps {
    p: Progress,
}

impl Steps {
    /// `quiet`: `--quiet`; `json`: a JSON document on stdout (progress stays on stderr, as
    /// plain lines).
    pub fn new(quiet: bool, json: bool) -> Steps {
        Steps {
            p: Progress::new(Mode::choose(quiet, json, std::io::stderr().is_terminal())),
        }
    }

    /// What the command is about to do (`net: 3 test(s) × 2 repeat(s), 10 s each`).
    pub fn headline(&mut self, text: &str) {
        self.p.headline(text);
    }

    /// The machine is being readied (`cooling to 45.0 °C`): no step runs. The same wait said
    /// again is not repeated.
    pub fn waiting(&mut self, what: &str) {
        self.p.waiting(&format!("{what}…"), what);
    }

    /// Step `index` of `total` starts; `expected_s` is how long it should take.
    pub fn step(&mut self, index: usize, total: usize, what: &str, expected_s: Option<f64>) {
        self.p.begin(
            index,
            total,
            what,
            None,
            expected_s.map(Duration::from_secs_f64),
            Default::default(),
            false,
        );
    }

    /// The running step's result (`ok, 940 Mbit/s`): the step is done.
    pub fn score(&mut self, text: &str) {
        self.p.end(text, None);
    }

    /// A result of the running step that does not end it (one run of several, a score every
    /// interval).
    pub fn partial(&mut self, text: &str) {
        self.p.partial(text);
    }

    /// Something to know that is no step's result.
    pub fn note(&mut self, text: &str) {
        self.p.note(text);
    }
}
