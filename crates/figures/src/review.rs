//! The figures of a `review` result.

use crate::monitor::command_line;
use crate::{Figures, Metric};
use truebench_model::{ReviewBody, View};
use truebench_host::review::Severity;

type ReviewView<'a> = View<'a, ReviewBody>;

/// Settings rated WARN: the ones to look at.
pub fn warnings(b: &ReviewBody) -> usize {
    b.settings
        .iter()
        .filter(|s| s.severity == Severity::Warn)
        .count()
}

impl Figures for ReviewBody {
    fn headline(r: ReviewView<'_>) -> Vec<crate::Headline> {
        use crate::Headline;
        let b = r.body;
        let warn: Vec<String> = b
            .settings
            .iter()
            .filter(|s| s.severity == Severity::Warn)
            .map(|s| format!("{} {}", s.subject, s.name))
            .collect();
        let mut out = vec![Headline::new(
            "Settings to look at",
            format!("{} of {}", warn.len(), b.settings.len()),
        )
        .note(warn.iter().take(4).cloned().collect::<Vec<_>>().join(", ")
            + if warn.len() > 4 { ", …" } else { "" })];
        if !b.kernel_errors.is_empty() {
            out.push(Headline::new("Kernel errors", b.kernel_errors.len().to_string()));
        }
        if !b.status_changes.is_empty() {
            out.push(Headline::new("Changed while it ran", b.status_changes.len().to_string()));
        }
        out
    }

    fn label(r: ReviewView<'_>) -> String {
        let w = warnings(r.body);
        let mut l = format!("{} settings, {w} to look at", r.body.settings.len());
        if r.body.tuned {
            l.push_str(", tuned");
        }
        if !r.body.command.is_empty() {
            l.push_str(&format!(", ran {}", command_line(&r.body.command)));
        }
        l
    }

    fn metrics(r: ReviewView<'_>) -> Vec<Metric> {
        vec![
            Metric::number("settings", r.body.settings.len() as f64, None),
            Metric::number("settings_to_look_at", warnings(r.body) as f64, None),
            Metric::number("status_changes", r.body.status_changes.len() as f64, None),
            Metric::number("kernel_errors", r.body.kernel_errors.len() as f64, None),
        ]
    }
}
