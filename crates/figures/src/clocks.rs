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
