//! LAVA test-shell signals: what `lava-test-set` and `lava-test-case` print, one test set
//! per case set (the verdicts, the conditions, each phase, the scores), so that LAVA's
//! dispatcher records every case with its result and measurement. Outside a LAVA job the
//! same lines without the signal brackets, for a person or a simple parse pattern.

use truebench_model::Document;

use crate::cases::{cases, ident};

/// Where the lines go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signals {
    /// Inside a LAVA test shell: `<LAVA_SIGNAL_TESTCASE …>` lines the dispatcher parses.
    Lava,
    /// Anywhere else: `TEST_CASE_ID=… RESULT=…` without the brackets.
    Plain,
}

impl Signals {
    /// Inside a LAVA job when the test shell's variables are set (`lava-test-shell` exports
    /// `LAVA_RESULT_DIR`, the job's `run.sh` exports `TESTRUN_ID`).
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Signals {
        if var("LAVA_RESULT_DIR").is_some_and(|v| !v.is_empty())
            || var("TESTRUN_ID").is_some_and(|v| !v.is_empty())
        {
            Signals::Lava
        } else {
            Signals::Plain
        }
    }
}

/// A measurement as LAVA stores it (a decimal number, no exponent).
fn measurement(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// The lines for `doc`, in order, without line ends.
pub fn lava(doc: &Document, signals: Signals) -> Vec<String> {
    let wrap = |s: String| match signals {
        Signals::Lava => format!("<LAVA_SIGNAL_{s}>"),
        Signals::Plain => s,
    };
    let mut out = Vec::new();
    let mut open: Option<String> = None;
    for c in cases(doc) {
        let set = ident(&format!("truebench-{}-{}", doc.kind(), c.set));
        if open.as_deref() != Some(set.as_str()) {
            if open.is_some() {
                out.push(wrap("TESTSET STOP".into()));
            }
            out.push(wrap(format!("TESTSET START {set}")));
            open = Some(set);
        }
        let mut line = format!(
            "TESTCASE TEST_CASE_ID={} RESULT={}",
            ident(&c.name),
            c.verdict.lava()
        );
        if let Some((v, unit)) = &c.measurement {
            // lava-test-case's order: units before the measurement.
            if let Some(u) = unit.as_deref().filter(|u| !u.is_empty()) {
                line.push_str(&format!(" UNITS={}", ident_unit(u)));
            }
            line.push_str(&format!(" MEASUREMENT={}", measurement(*v)));
        }
        out.push(wrap(line));
    }
    if open.is_some() {
        out.push(wrap("TESTSET STOP".into()));
    }
    out
}

/// A unit as one word (`MB/s` stays, `°C` stays; spaces and brackets would end the field).
fn ident_unit(u: &str) -> String {
    u.chars()
        .map(|c| {
            if c.is_whitespace() || c == '<' || c == '>' || c == '=' {
                '_'
            } else {
                c
            }
        })
        .collect()
}
