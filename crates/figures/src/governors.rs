//! The figures of a `governors` result.

use crate::{Figures, Metric};
use truebench_model::{GovernorsBody, View};

type GView<'a> = View<'a, GovernorsBody>;

impl Figures for GovernorsBody {
    fn label(r: GView<'_>) -> String {
        let b = r.body;
        format!(
            "{} governor run(s), {} set(s) of {} tasks",
            b.rows.len(),
            b.utilisations.len() as u32 * b.sets_per_level,
            b.tasks_per_set
        )
    }

    fn metrics(r: GView<'_>) -> Vec<Metric> {
        let mut out = Vec::new();
        for row in &r.body.rows {
            let k = |m: &str| {
                if r.body.repeat > 1 {
                    format!("{}_{}_{m}", row.governor, row.repeat)
                } else {
                    format!("{}_{m}", row.governor)
                }
            };
            if let Some(m) = row.miss_ratio {
                out.push(Metric::number(k("miss_ratio_pct"), m * 100.0, Some("%")));
            }
            if let Some(w) = row.work_time_ratio {
                out.push(Metric::number(k("work_time_ratio"), w, None));
            }
            if let Some(e) = row.efficiency {
                out.push(Metric::number(k("efficiency"), e, None));
            }
            if let Some(e) = row.energy_j {
                out.push(Metric::number(k("energy_j"), e, Some("J")));
            }
            if let Some(e) = row.work_ms_per_j {
                out.push(Metric::number(k("work_ms_per_j"), e, Some("ms/J")));
            }
        }
        // With repeats, the governor's own figures are the medians (what compare sets side
        // by side), with their spread.
        if r.body.repeat > 1 {
            for s in &r.body.summary {
                let k = |m: &str| format!("{}_{m}", s.governor);
                if let Some(m) = s.median_miss_ratio {
                    out.push(Metric::number(k("miss_ratio_pct"), m * 100.0, Some("%")));
                }
                if let Some(x) = s.miss_ratio_spread {
                    out.push(Metric::number(
                        k("miss_ratio_spread_pp"),
                        x * 100.0,
                        Some("pp"),
                    ));
                }
                if let Some(w) = s.median_work_time_ratio {
                    out.push(Metric::number(k("work_time_ratio"), w, None));
                }
                if let Some(x) = s.work_time_ratio_spread_pct {
                    out.push(Metric::number(
                        k("work_time_ratio_spread_pct"),
                        x,
                        Some("%"),
                    ));
                }
            }
        }
        out
    }
}
