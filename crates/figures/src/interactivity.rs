//! The figures of a `interactivity` result.

use crate::{Figures, Metric};
use truebench_model::{InteractivityBody, View};
use truebench_model::interactivity::{Cell, CellLatency};

type IView<'a> = View<'a, InteractivityBody>;

/// A cell's latency figures (None when it did not run).
pub fn lat(c: &Cell) -> Option<&CellLatency> {
    c.latency.as_ref()
}

impl Figures for InteractivityBody {
    fn label(r: IView<'_>) -> String {
        let b = r.body;
        let loads = b.benchmarks.first().map_or(0, |t| t.cells.len());
        format!(
            "{} benchmark(s) × {loads} load(s), {:.0} s each{}",
            b.benchmarks.len(),
            b.duration_s,
            if b.realtime { ", real-time" } else { "" }
        )
    }

    fn metrics(r: IView<'_>) -> Vec<Metric> {
        let mut out = vec![Metric::number(
            "loops_per_ms",
            r.body.calibration.loops_per_ms as f64,
            None,
        )];
        for t in &r.body.benchmarks {
            for c in &t.cells {
                let Some(l) = lat(c) else { continue };
                let k = |m: &str| format!("{}_{}_{m}", t.name, c.load);
                out.push(Metric::number(k("mean_us"), l.mean_us, Some("µs")));
                out.push(Metric::number(k("sd_us"), l.sd_us, Some("µs")));
                out.push(Metric::number(k("p99_us"), l.p99_us, Some("µs")));
                out.push(Metric::number(k("max_us"), l.max_us, Some("µs")));
                out.push(Metric::number(
                    k("desired_cpu_pct"),
                    l.desired_cpu_pct,
                    Some("%"),
                ));
                if let Some(d) = l.deadlines_met_pct {
                    out.push(Metric::number(k("deadlines_met_pct"), d, Some("%")));
                }
                if let Some(f) = l.frames_per_s {
                    out.push(Metric::number(k("frames_per_s"), f, Some("1/s")));
                }
            }
        }
        out
    }
}
