//! What makes comparing results unfair, as data: the reasons one result carries on its own
//! (quick mode, incomplete, throttled, …) and the facts that must be the same across the
//! results compared (tuning, 7-zip and OpenSSL versions). `compare` and the static site's
//! compare page both build their warnings from this, with the one rule of [`differing`].

use serde::{Deserialize, Serialize};
use truebench_model::finding::{FindingKind, Severity};
use truebench_model::*;
use truebench_sbcbench::convert::is_imported;

/// A fact that must be equal across compared results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    /// What differs, as the warning names it: `tuning`, `7-zip versions`.
    pub name: String,
    /// Why a difference makes the comparison unfair.
    pub why: String,
    /// The value shown; `None`: unknown (not compared).
    pub value: Option<String>,
    /// What is compared (OpenSSL: its major.minor); the value when `None`.
    pub compared: Option<String>,
}

/// Everything a comparison checks of one result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    /// Reasons of this result alone, each to be put after its name: `quick mode — …`.
    pub own: Vec<String>,
    pub facts: Vec<Fact>,
}

pub(crate) const SEVENZIP: &str = "7-zip versions";
pub(crate) const OPENSSL: &str = "OpenSSL versions";

fn flagged(r: RunView<'_>, kinds: &[FindingKind]) -> Option<String> {
    r.envelope
        .findings
        .iter()
        .find(|f| kinds.contains(&f.kind) && f.severity > Severity::Info)
        .map(|f| f.message.clone())
}

pub(crate) fn major_minor(v: &str) -> String {
    v.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// A `run` result's reasons and facts.
pub fn of_run(r: RunView<'_>) -> Fairness {
    let mut own = Vec::new();
    if !r.envelope.comparable || r.body.mode == Mode::Quick {
        own.push("quick mode — shortened phases give other numbers".to_string());
    }
    if !r.envelope.complete {
        own.push(format!(
            "not complete ({})",
            r.envelope
                .incomplete_reason
                .as_deref()
                .unwrap_or("the run did not finish")
        ));
    }
    for (kinds, what) in [
        (&[FindingKind::Throttling][..], "throttled"),
        (
            &[FindingKind::BackgroundActivity, FindingKind::SystemActivity][..],
            "background activity",
        ),
        (&[FindingKind::Swapping][..], "swapped"),
        (
            &[
                FindingKind::KilledCores,
                FindingKind::Undervoltage,
                FindingKind::OomKill,
                FindingKind::ThermalTrip,
            ][..],
            "invalid",
        ),
    ] {
        if let Some(first) = flagged(r, kinds) {
            own.push(format!("{what} — {first}"));
        }
    }
    // Tuning: truebench's (recorded), sbc-bench's (performance governors, not recorded),
    // or none.
    let tuning = if is_imported(r) {
        "sbc-bench's"
    } else if r.envelope.tuning.applied {
        "truebench's"
    } else {
        "none"
    };
    let m = crate::compare::metrics(r);
    let facts = vec![
        Fact {
            name: "tuning".into(),
            why: "governors and device settings change the scores".into(),
            value: Some(tuning.into()),
            compared: None,
        },
        Fact {
            name: SEVENZIP.into(),
            why: "7-zip's ratings change between versions".into(),
            value: m.sevenzip_version.clone(),
            compared: None,
        },
        Fact {
            name: OPENSSL.into(),
            why: "AES throughput changes between OpenSSL releases".into(),
            compared: m.openssl_version.as_deref().map(major_minor),
            value: m.openssl_version,
        },
    ];
    Fairness { own, facts }
}

/// The reasons of a result of any kind: a run's [`of_run`], any other's [`of_state`].
pub fn of_document(doc: &Document) -> Fairness {
    match &doc.body {
        Body::Run(body) => of_run(View {
            envelope: &doc.envelope,
            body,
        }),
        _ => Fairness {
            own: of_state(&doc.envelope),
            facts: Vec::new(),
        },
    }
}

/// Whether a result is complete, valid and comparable: `incomplete`, `not valid (…)`, ….
pub fn of_state(e: &Envelope) -> Vec<String> {
    let mut own = Vec::new();
    if !e.complete {
        own.push("incomplete".to_string());
    } else if !e.valid {
        own.push("not valid (see its findings)".to_string());
    }
    if !e.comparable {
        own.push("not comparable (shortened phases)".to_string());
    }
    own
}

/// The fact `name` where the results' known values differ: `A: 23.01, B: 16.02` (an unknown
/// one shown as `none`), else `None`. `keys` name the results in the text.
pub fn differing(all: &[&Fairness], keys: &[String], name: &str) -> Option<String> {
    let facts: Vec<Option<&Fact>> = all
        .iter()
        .map(|f| f.facts.iter().find(|x| x.name == name))
        .collect();
    let known: Vec<&str> = facts
        .iter()
        .flatten()
        .filter_map(|x| x.compared.as_deref().or(x.value.as_deref()))
        .collect();
    if known.iter().all(|k| *k == known[0]) {
        return None;
    }
    Some(
        facts
            .iter()
            .zip(keys)
            .map(|(x, k)| {
                let v = x.and_then(|x| x.value.as_deref()).unwrap_or("none");
                format!("{k}: {v}")
            })
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// Every warning about the facts: `different 7-zip versions (A: …, B: …): why`.
pub fn fact_warnings(all: &[&Fairness], keys: &[String]) -> Vec<String> {
    let mut names: Vec<(&str, &str)> = Vec::new();
    for f in all.iter().flat_map(|f| &f.facts) {
        if !names.iter().any(|(n, _)| *n == f.name) {
            names.push((&f.name, &f.why));
        }
    }
    names
        .into_iter()
        .filter_map(|(name, why)| {
            differing(all, keys, name).map(|d| format!("different {name} ({d}): {why}"))
        })
        .collect()
}
