//! The figures of a `interactivity` result.

use crate::{Figures, Metric};
use truebench_model::{InteractivityBody, View};
use truebench_model::interactivity::{Cell, CellLatency, Load};

type IView<'a> = View<'a, InteractivityBody>;

/// A cell's latency figures (None when it did not run).
pub fn lat(c: &Cell) -> Option<&CellLatency> {
    c.latency.as_ref()
}

impl Figures for InteractivityBody {
    fn headline(r: IView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let mut out = Vec::new();
        for t in &r.body.benchmarks {
            // The worst cell of the task: fewest deadlines met, else the highest p99.
            let worst = t
                .cells
                .iter()
                .filter_map(|c| Some((c, lat(c)?)))
                .min_by(|a, b| {
                    let by_p99 = b.1.p99_us.total_cmp(&a.1.p99_us);
                    match (a.1.deadlines_met_pct, b.1.deadlines_met_pct) {
                        (Some(x), Some(y)) => x.total_cmp(&y).then(by_p99),
                        _ => by_p99,
                    }
                });
            let Some((c, l)) = worst else {
                out.push(Headline::new(t.name.to_string(), "not measured"));
                continue;
            };
            let (value, note) = match l.deadlines_met_pct {
                Some(d) => (
                    format!("{d:.1} % met"),
                    format!("deadlines met under its worst load; p99 {} µs", fig(l.p99_us)),
                ),
                None => (
                    format!("p99 {} µs", fig(l.p99_us)),
                    "its worst load".to_string(),
                ),
            };
            out.push(
                Headline::new(
                    if c.load == Load::None {
                        format!("{}, no load", t.name)
                    } else {
                        format!("{} under {}", t.name, c.load_label)
                    },
                    value,
                )
                    .note(note)
                    .invalid(c.evidence.invalid.as_deref()),
            );
        }
        out
    }

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
