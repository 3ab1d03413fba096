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
