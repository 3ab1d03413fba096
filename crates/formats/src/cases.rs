//! The test cases one result stands for, as farm engines count them. Every format renders
//! this one list, so a verdict cannot pass in JUnit and fail in LAVA.
//!
//! - `verdicts`: the result ran to its end (`complete`) and its figures can be trusted
//!   (`valid`: no critical finding);
//! - `conditions`: each condition the detectors judge on every measurement — failed by a
//!   critical finding, skipped when a `not_checked` finding says it could not be checked,
//!   passed otherwise (a warning's message rides along); `not_checked` findings that name no
//!   condition are skipped cases of their own, never a silent pass;
//! - one set per phase: the phase ran, failed, was interrupted or skipped (with its reason);
//! - `scores`: each headline figure with its unit, passed when the result is valid.

use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::Document;
use truebench_model::PhaseStatus;

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Checked and fine.
    Pass,
    /// Checked and wrong: `message` says what.
    Fail,
    /// Could not be checked or did not run: `message` says why.
    Skip,
}

impl Verdict {
    /// LAVA's result words (`pass`, `fail`, `skip`).
    pub fn lava(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Skip => "skip",
        }
    }
}

/// One test case.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The set it belongs to: `verdicts`, `conditions`, a phase's name, `scores`.
    pub set: String,
    /// Its name within the set, as the result's own words (`throttling`, `sevenzip_multi`).
    pub name: String,
    /// How it ended.
    pub verdict: Verdict,
    /// The failure's message, the skip's reason, or a warning that did not fail it.
    pub message: Option<String>,
    /// The lines that prove it (a finding's evidence).
    pub evidence: Vec<String>,
    /// A score: its value and unit.
    pub measurement: Option<(f64, Option<String>)>,
    /// How long it took, seconds, where it is a phase.
    pub seconds: Option<f64>,
}

impl Case {
    fn new(set: &str, name: &str, verdict: Verdict) -> Case {
        Case {
            set: set.to_string(),
            name: name.to_string(),
            verdict,
            message: None,
            evidence: Vec::new(),
            measurement: None,
            seconds: None,
        }
    }

    fn saying(mut self, message: Option<String>) -> Case {
        self.message = message;
        self
    }
}

/// The name farm engines accept in identifiers (LAVA splits its signals on spaces, KCIDB's
/// test paths take `[A-Za-z0-9_-]` between dots): every other character becomes `_`.
pub fn ident(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if t.is_empty() {
        "_".into()
    } else {
        t
    }
}

fn worst<'a>(fs: impl Iterator<Item = &'a Finding>) -> Option<&'a Finding> {
    fs.max_by_key(|f| f.severity)
}

/// Every case of `doc`, sets in the order above.
pub fn cases(doc: &Document) -> Vec<Case> {
    let e = &doc.envelope;
    let mut out = Vec::new();

    let mut complete = Case::new(
        "verdicts",
        "complete",
        if e.complete {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
    );
    if !e.complete {
        complete.message = Some(
            e.incomplete_reason
                .clone()
                .unwrap_or_else(|| "the measurement did not run to its end".into()),
        );
    }
    out.push(complete);
    let critical = worst(
        e.findings
            .iter()
            .filter(|f| f.severity == Severity::Critical),
    );
    let mut valid = Case::new(
        "verdicts",
        "valid",
        if e.valid {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
    );
    if !e.valid {
        valid.message = Some(match critical {
            Some(f) => f.message.clone(),
            None if !e.complete => "incomplete: its figures are partial".into(),
            None => "the result is marked invalid".into(),
        });
        valid.evidence = critical.map(|f| f.evidence.clone()).unwrap_or_default();
    }
    out.push(valid);

    // Conditions: every one the pipeline judges, and any other a finding is about.
    let mut kinds: Vec<FindingKind> = truebench_monitor_core::detect::CONDITIONS.to_vec();
    for f in &e.findings {
        if f.kind != FindingKind::NotChecked && !kinds.contains(&f.kind) {
            kinds.push(f.kind);
        }
    }
    for kind in kinds {
        let unchecked = e
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::NotChecked && f.unchecked.contains(&kind));
        let found = worst(e.findings.iter().filter(|f| f.kind == kind));
        // Every finding of the kind at its worst severity (throttling on two clusters).
        let all_worst = |sev: Severity| {
            let fs: Vec<&Finding> = e
                .findings
                .iter()
                .filter(|f| f.kind == kind && f.severity == sev)
                .collect();
            let message = fs
                .iter()
                .map(|f| f.message.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let evidence: Vec<String> = fs.iter().flat_map(|f| f.evidence.clone()).collect();
            (message, evidence)
        };
        let case = match (found, unchecked) {
            (Some(f), _) => {
                // Critical fails it; anything less passes it, with what was seen.
                let verdict = if f.severity == Severity::Critical {
                    Verdict::Fail
                } else {
                    Verdict::Pass
                };
                let (message, evidence) = all_worst(f.severity);
                let mut c = Case::new("conditions", kind.as_str(), verdict).saying(Some(message));
                c.evidence = evidence;
                c
            }
            (None, Some(nc)) => Case::new("conditions", kind.as_str(), Verdict::Skip)
                .saying(Some(nc.message.clone())),
            (None, None) => Case::new("conditions", kind.as_str(), Verdict::Pass),
        };
        out.push(case);
    }
    let loose = e
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::NotChecked && f.unchecked.is_empty());
    let mut names: Vec<String> = Vec::new();
    for f in loose {
        // Named by what it says, so that a farm's trend of one case is about one thing from
        // run to run (a counter would name another check when one more was left unchecked).
        let mut name = unchecked_name(&f.message);
        if names.contains(&name) {
            name = format!("{name}_{}", names.len() + 1);
        }
        names.push(name.clone());
        let mut c = Case::new("conditions", &name, Verdict::Skip).saying(Some(f.message.clone()));
        c.evidence = f.evidence.clone();
        out.push(c);
    }

    for p in &e.phases {
        let (verdict, message) = match p.status {
            PhaseStatus::Ok => (Verdict::Pass, None),
            PhaseStatus::Skipped => (
                Verdict::Skip,
                Some(p.reason.clone().unwrap_or_else(|| "not run".into())),
            ),
            PhaseStatus::Failed => (
                Verdict::Fail,
                Some(p.reason.clone().unwrap_or_else(|| "failed".into())),
            ),
            PhaseStatus::Interrupted => (
                Verdict::Fail,
                Some(p.reason.clone().unwrap_or_else(|| "interrupted".into())),
            ),
        };
        let mut c = Case::new(&p.name, "ran", verdict).saying(message);
        c.seconds = p.ended.map(|end| (end - p.started).max(0.0));
        out.push(c);
    }

    for m in truebench_figures::metrics(doc) {
        let Some(v) = m.value.filter(|v| v.is_finite()) else {
            continue;
        };
        let mut c = Case::new(
            "scores",
            &m.key,
            if e.valid {
                Verdict::Pass
            } else {
                Verdict::Fail
            },
        );
        if !e.valid {
            c.message = Some("the result is invalid: this figure cannot be trusted".into());
        }
        c.measurement = Some((v, m.unit.clone()));
        out.push(c);
    }
    out
}

/// The scores alone: (key, value, unit), in the order of the headline figures.
pub fn scores(doc: &Document) -> Vec<(String, f64, Option<String>)> {
    truebench_figures::metrics(doc)
        .into_iter()
        .filter_map(|m| Some((m.key, m.value.filter(|v| v.is_finite())?, m.unit)))
        .collect()
}

/// A stable case name for a `not_checked` finding that names no condition: its opening words
/// up to the first colon, digit or parenthesis (`No temperature sensor: …` →
/// `not_checked_no_temperature_sensor`), at most six words, in the characters LAVA accepts.
fn unchecked_name(message: &str) -> String {
    let head = message
        .split(|c: char| c == ':' || c == '(' || c.is_ascii_digit())
        .next()
        .unwrap_or("");
    let words: Vec<String> = head
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .map(str::to_ascii_lowercase)
        .collect();
    if words.is_empty() {
        "not_checked".into()
    } else {
        format!("not_checked_{}", words.join("_"))
    }
}

#[cfg(test)]
mod tests {
    use super::unchecked_name;

    #[test]
    fn an_unchecked_findings_case_is_named_by_its_words_not_its_numbers() {
        assert_eq!(
            unchecked_name("No temperature sensor: throttling by heat was not checked."),
            "not_checked_no_temperature_sensor"
        );
        // The count of phases changes from run to run; the name must not.
        assert_eq!(
            unchecked_name("Background activity was not checked during 1 phase(s) shorter …"),
            unchecked_name("Background activity was not checked during 3 phase(s) shorter …"),
        );
        assert_eq!(
            unchecked_name("Background activity was not checked during 1 phase(s)"),
            "not_checked_background_activity_was_not_checked_during"
        );
        assert_eq!(unchecked_name(": odd"), "not_checked");
    }
}
