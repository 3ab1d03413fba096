//! The figures of a `power` result: the mean power of every state whose interval narrowed,
//! and each state's difference to the machine as it was.

use crate::headline::{fig, Headline};
use crate::{Figures, Metric};
use truebench_model::power::{PowerRow, PowerState};
use truebench_model::{PowerBody, View};

type PView<'a> = View<'a, PowerBody>;

/// `0.31 W ± 0.02`: a power with its interval.
pub fn watts(v: f64, ci: Option<f64>) -> String {
    let digits = if v.abs() < 10.0 { 2 } else { 1 };
    match ci {
        Some(c) => format!("{v:.digits$} W ± {c:.digits$}"),
        None => format!("{v:.digits$} W"),
    }
}

/// `−0.31 W ± 0.02 (−9 %)`: a state's difference to the first.
pub fn delta(r: &PowerRow) -> Option<String> {
    let d = r.delta_w?;
    let digits = if d.abs() < 10.0 { 2 } else { 1 };
    // A difference that rounds to zero has no sign.
    let sign = if format!("{:.digits$}", d.abs()).trim_start_matches(['0', '.']).is_empty() {
        ""
    } else if d < 0.0 {
        "−"
    } else {
        "+"
    };
    Some(format!(
        "{sign}{:.digits$} W ± {:.digits$}{}",
        d.abs(),
        r.delta_ci_w.unwrap_or(0.0),
        r.delta_pct
            .map(|p| format!(" ({}{:.0} %)", if p.abs() < 0.5 { "" } else if p < 0.0 { "−" } else { "+" }, p.abs()))
            .unwrap_or_default()
    ))
}

/// The key of a state's figure: `as_is_w`, `one_cpu_delta_w`.
fn key(s: PowerState, what: &str) -> String {
    format!("{}_{what}", s.as_str().replace('-', "_"))
}

impl Figures for PowerBody {
    fn headline(r: PView<'_>) -> Vec<Headline> {
        let b = r.body;
        let mut out = Vec::new();
        let lowest = b
            .states
            .iter()
            .filter(|s| s.figure().is_some())
            .min_by(|a, c| a.figure().unwrap_or(0.0).total_cmp(&c.figure().unwrap_or(0.0)));
        for s in &b.states {
            let st = s.evidence.phase;
            if st != PowerState::AsIs && lowest.is_none_or(|l| l.evidence.phase != st) {
                continue;
            }
            let label = if st == PowerState::AsIs {
                "Idle, as configured".to_string()
            } else {
                format!("Lowest: {}", st.title())
            };
            let value = match s.figure() {
                Some(w) => watts(w, s.ci_w),
                None if s.mean_w.is_some() => "not within the precision asked".to_string(),
                None => s.evidence.shown().to_string(),
            };
            let note = match (st, delta(s)) {
                (PowerState::AsIs, _) => s
                    .wh_per_day
                    .filter(|_| s.figure().is_some())
                    .map(|d| format!("{} Wh per day", fig(d)))
                    .unwrap_or_default(),
                (_, Some(d)) => d,
                _ => String::new(),
            };
            out.push(
                Headline::new(label, value)
                    .note(note)
                    .invalid(s.evidence.invalid.as_deref())
                    .best(st != PowerState::AsIs),
            );
        }
        out
    }

    fn label(r: PView<'_>) -> String {
        let measured = r.body.states.iter().filter(|s| s.figure().is_some()).count();
        format!(
            "{measured} of {} states within ±{} %",
            r.body.states.len(),
            r.body.precision_pct
        )
    }

    fn metrics(r: PView<'_>) -> Vec<Metric> {
        let mut out = Vec::new();
        for s in &r.body.states {
            let Some(w) = s.figure() else { continue };
            let st = s.evidence.phase;
            out.push(Metric::number(key(st, "w"), w, Some("W")));
            if st != PowerState::AsIs {
                if let Some(d) = s.delta_w {
                    out.push(Metric::number(key(st, "delta_w"), d, Some("W")));
                }
            }
        }
        out
    }
}
