//! The figures of a `governors` result.

use crate::{Figures, Metric};
use truebench_model::{GovernorsBody, View};

type GView<'a> = View<'a, GovernorsBody>;

impl Figures for GovernorsBody {
    fn headline(r: GView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let b = r.body;
        struct Row {
            governor: String,
            miss: Option<f64>,
            work_per_j: Option<f64>,
            invalid: Option<String>,
            note: String,
        }
        let rows: Vec<Row> = if b.repeat > 1 && !b.summary.is_empty() {
            b.summary
                .iter()
                .map(|s| Row {
                    governor: s.governor.clone(),
                    miss: s.median_miss_ratio,
                    work_per_j: s.median_work_ms_per_j,
                    invalid: (s.runs == 0).then(|| format!("{} run(s) not valid", s.invalid_runs)),
                    note: format!("median of {} run(s)", s.runs),
                })
                .collect()
        } else {
            b.rows
                .iter()
                .map(|g| Row {
                    governor: g.governor.clone(),
                    miss: g.miss_ratio,
                    work_per_j: g.work_ms_per_j,
                    invalid: g.evidence.invalid.clone().or_else(|| {
                        (g.evidence.status != truebench_model::PhaseStatus::Ok)
                            .then(|| g.evidence.status.as_str().to_string())
                    }),
                    note: String::new(),
                })
                .collect()
        };
        // The best among valid rows: most work per joule where energy was measured, else
        // the fewest misses.
        let valid = || rows.iter().filter(|r| r.invalid.is_none());
        let best = if valid().any(|r| r.work_per_j.is_some()) {
            valid()
                .filter_map(|r| Some((r, r.work_per_j?)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|r| r.0.governor.clone())
        } else {
            valid()
                .filter_map(|r| Some((r, r.miss?)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|r| r.0.governor.clone())
        };
        rows.iter()
            .map(|r| {
                let mut v = r
                    .miss
                    .map_or("–".into(), |m| format!("{:.1} % missed", m * 100.0));
                if let Some(w) = r.work_per_j {
                    v.push_str(&format!(", {} ms/J", fig(w)));
                }
                Headline::new(r.governor.clone(), v)
                    .note(r.note.clone())
                    .invalid(r.invalid.as_deref())
                    .best(best.as_deref() == Some(r.governor.as_str()))
            })
            .collect()
    }

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
