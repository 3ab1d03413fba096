//! The figures of a `io` result.

use crate::{Figures, Metric};
use truebench_model::sweep::SweepBody;
use truebench_model::{IoBody, View};

type IView<'a> = View<'a, IoBody>;

impl Figures for IoBody {
    fn headline(r: IView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let b = r.body;
        b.tests
            .iter()
            .map(|t| {
                let label = crate::setting_label(t.summary.test.as_str(), &t.summary.setting);
                let mut v = t.median_mb_s.map_or("–".into(), |m| format!("{} MB/s", fig(m)));
                if let Some(i) = t.median_iops {
                    v.push_str(&format!(", {} IOPS", fig(i)));
                }
                let rows: Vec<_> = b.rows_of(&t.summary).collect();
                let invalid = rows.iter().find_map(|x| x.evidence.invalid.clone());
                let note = if t.summary.cpu_bound_runs > 0 {
                    format!("CPU-bound in {} of {} run(s)", t.summary.cpu_bound_runs, t.summary.runs)
                } else {
                    format!("{} run(s), not CPU-bound", t.summary.runs)
                };
                Headline::new(label, v).note(note).invalid(invalid.as_deref())
            })
            .collect()
    }

    fn label(r: IView<'_>) -> String {
        format!(
            "{} reads of {}, {:.0} s × {}",
            r.body.tests.len(),
            r.body.target,
            r.body.sweep.duration_s,
            r.body.rows.len()
        )
    }

    fn metrics(r: IView<'_>) -> Vec<Metric> {
        let mut out = Vec::new();
        for t in &r.body.tests {
            let key = crate::setting_key(t.summary.test.as_str(), &t.summary.setting);
            if let Some(m) = t.median_mb_s {
                out.push(Metric::number(format!("{key}_mb_s"), m, Some("MB/s")));
            }
            if let Some(m) = t.median_iops {
                out.push(Metric::number(format!("{key}_iops"), m, None));
            }
            if let Some(s) = t.summary.spread_pct {
                out.push(Metric::number(format!("{key}_spread_pct"), s, Some("%")));
            }
        }
        out
    }
}
