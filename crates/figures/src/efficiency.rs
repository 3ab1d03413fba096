//! The figures of a `efficiency` result.

use crate::{Figures, Metric};
use truebench_model::{EfficiencyBody, View};
use truebench_model::timeline::per_watt_unit;

type EView<'a> = View<'a, EfficiencyBody>;

impl Figures for EfficiencyBody {
    fn headline(r: EView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let b = r.body;
        let pw = per_watt_unit(&b.unit);
        let mut out = Vec::new();
        for c in &b.clusters {
            let label = format!("{} ({}) best OPP", c.cpus, c.core_type.as_deref().unwrap_or("CPU"));
            let best = c.best_mhz.and_then(|m| c.points.iter().find(|p| p.opp_mhz == Some(m)));
            match best {
                Some(p) => {
                    let v = p.per_watt_above_idle.or(p.per_watt);
                    out.push(
                        Headline::new(
                            label,
                            format!(
                                "{} MHz: {}",
                                p.opp_mhz.unwrap_or(0),
                                v.map_or("–".into(), |v| format!("{} {pw}", fig(v)))
                            ),
                        )
                        .note(p.score.map(|s| format!("{} {}", fig(s), b.unit)).unwrap_or_default())
                        .invalid(p.invalid.as_deref())
                        .best(true),
                    );
                }
                None => out.push(Headline::new(label, "no OPP with energy measured")),
            }
        }
        out
    }

    fn label(r: EView<'_>) -> String {
        let n: usize = r.body.clusters.iter().map(|c| c.points.len()).sum();
        format!("{} OPPs × {} runs", n, r.body.runs_per_opp)
    }

    fn metrics(r: EView<'_>) -> Vec<Metric> {
        let b = r.body;
        let mut out = Vec::new();
        let pw = per_watt_unit(&b.unit);
        for c in &b.clusters {
            if let Some(m) = c.best_mhz {
                out.push(Metric::number(
                    format!("cluster{}_best_mhz", c.cluster),
                    m.into(),
                    Some("MHz"),
                ));
            }
            let best = c.points.iter().filter_map(|p| p.per_watt).reduce(f64::max);
            if let Some(v) = best {
                out.push(Metric::number(
                    format!("cluster{}_best_per_watt", c.cluster),
                    v,
                    Some(&pw),
                ));
            }
            if let Some(top) = c.points.iter().rev().find(|p| p.score.is_some()) {
                out.push(Metric::number(
                    format!("cluster{}_top_score", c.cluster),
                    top.score.unwrap_or(0.0),
                    Some(&b.unit),
                ));
            }
        }
        out
    }
}
