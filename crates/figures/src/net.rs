//! The figures of a `net` result.

use crate::{Figures, Metric};
use truebench_model::sweep::SweepBody;
use truebench_model::{NetBody, View};

type NView<'a> = View<'a, NetBody>;

impl Figures for NetBody {
    fn headline(r: NView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let b = r.body;
        b.tests
            .iter()
            .map(|t| {
                let label = crate::setting_label(t.summary.test.as_str(), &t.summary.setting);
                let v = t.median_mbit_s.map_or("–".into(), |m| format!("{} Mbit/s", fig(m)));
                let rows: Vec<_> = b.rows_of(&t.summary).collect();
                let invalid = rows.iter().find_map(|x| x.evidence.invalid.clone());
                let bound = rows.iter().find_map(|x| x.run.cpu_bound.as_ref());
                let note = match bound {
                    Some(cb) if t.summary.cpu_bound_runs > 0 => format!(
                        "CPU-bound in {} of {} run(s): cpu{} {:.0} % busy ({})",
                        t.summary.cpu_bound_runs, t.summary.runs, cb.cpu, cb.busy_pct, cb.by
                    ),
                    _ => format!("{} run(s), not CPU-bound", t.summary.runs),
                };
                Headline::new(label, v).note(note).invalid(invalid.as_deref())
            })
            .collect()
    }

    fn label(r: NView<'_>) -> String {
        let b = r.body;
        format!(
            "TCP against {} ({}), {} stream(s), {:.0} s × {}",
            b.peer,
            b.peer_kind,
            b.streams,
            b.sweep.duration_s,
            b.rows.len()
        )
    }

    fn metrics(r: NView<'_>) -> Vec<Metric> {
        let mut out = Vec::new();
        for t in &r.body.tests {
            let key = crate::setting_key(t.summary.test.as_str(), &t.summary.setting);
            if let Some(m) = t.median_mbit_s {
                out.push(Metric::number(format!("{key}_mbit_s"), m, Some("Mbit/s")));
            }
            if let Some(s) = t.summary.spread_pct {
                out.push(Metric::number(format!("{key}_spread_pct"), s, Some("%")));
            }
        }
        out
    }
}
