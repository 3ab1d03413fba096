//! The figures of a `clocks` result.

use crate::{Figures, Metric};
use truebench_model::{ClocksBody, View};
use truebench_model::clocks::{ClockPoint, ClusterClocks};

type ClocksView<'a> = View<'a, ClocksBody>;

/// The highest OPP measured (the walk starts at the top).
pub fn top(c: &ClusterClocks) -> Option<&ClockPoint> {
    c.points.iter().find(|p| p.measured_mhz.is_some())
}

impl Figures for ClocksBody {
    fn headline(r: ClocksView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let mut rows: Vec<(f64, Headline)> = Vec::new();
        for c in &r.body.clusters {
            let Some(p) = top(c) else { continue };
            let Some(m) = p.measured_mhz else { continue };
            let label = format!("{} ({})", c.cpu_range, c.core_type.as_deref().unwrap_or("CPU"));
            let (value, dev) = match (p.opp_mhz, p.deviation_pct) {
                (Some(o), Some(d)) => (format!("{} MHz of {o} MHz ({d:+.1} %)", fig(m)), d),
                (Some(o), None) => (format!("{} MHz of {o} MHz", fig(m)), 0.0),
                _ => (format!("{} MHz", fig(m)), 0.0),
            };
            let note = match c.enforced {
                Some(false) => "the clock does not follow the OPPs set",
                _ => "",
            };
            rows.push((dev, Headline::new(label, value).note(note)));
        }
        // The worst deviation first.
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        rows.into_iter().map(|r| r.1).collect()
    }

    fn label(r: ClocksView<'_>) -> String {
        if r.body.walked {
            "OPP walk"
        } else {
            "current clock"
        }
        .to_string()
    }

    fn metrics(r: ClocksView<'_>) -> Vec<Metric> {
        let mut out = Vec::new();
        for c in &r.body.clusters {
            let Some(p) = top(c) else { continue };
            let k = |what: &str| format!("cluster{}_{what}", c.id);
            if let Some(m) = p.measured_mhz {
                out.push(Metric::number(k("measured_mhz"), m, Some("MHz")));
            }
            if let Some(o) = p.opp_mhz {
                out.push(Metric::number(k("opp_mhz"), o as f64, Some("MHz")));
            }
            if let Some(d) = p.deviation_pct {
                out.push(Metric::number(k("deviation_pct"), d, Some("%")));
            }
        }
        out
    }
}
