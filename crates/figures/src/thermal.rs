//! The figures of a `thermal` result.

use crate::{Figures, Metric};
use truebench_model::{ThermalBody, View};

type TView<'a> = View<'a, ThermalBody>;

impl Figures for ThermalBody {
    fn headline(r: TView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let b = r.body;
        let valid = truebench_model::finding::is_valid(&r.envelope.findings);
        let invalid = (!valid).then_some("see the verdicts");
        let mut out = Vec::new();
        if let Some(c) = b.change_pct {
            let note = match (b.scores.first(), b.scores.last()) {
                (Some(f), Some(l)) => format!(
                    "{} → {}{}",
                    fig(f.score),
                    fig(l.score),
                    b.unit.as_deref().map(|u| format!(" {u}")).unwrap_or_default()
                ),
                _ => String::new(),
            };
            // No "-0.0 %" for a change that rounds to nothing.
            let c = if c.abs() < 0.05 { 0.0 } else { c };
            out.push(Headline::new("Score change", format!("{c:+.1} %")).note(note).invalid(invalid));
        }
        let first = b
            .clusters
            .iter()
            .filter_map(|c| Some((c, c.first_loss.as_ref()?)))
            .min_by(|a, b| a.1.t_s.total_cmp(&b.1.t_s));
        match first {
            Some((c, l)) => out.push(
                Headline::new(
                    "First lost clock",
                    format!(
                        "{} → {} MHz{}",
                        fig(l.from_mhz),
                        fig(l.to_mhz),
                        l.temp_c.map(|t| format!(" at {t:.1} °C")).unwrap_or_default()
                    ),
                )
                .note(format!("{} after {:.0} s", c.cpus, l.t_s))
                .invalid(invalid),
            ),
            None => out.push(Headline::new("First lost clock", "none")),
        }
        if let Some(t) = b.temp_max_c {
            out.push(Headline::new("Hottest", format!("{t:.1} °C")));
        }
        out
    }

    fn label(r: TView<'_>) -> String {
        format!("{}, {:.1} min", r.body.load, r.body.minutes)
    }

    fn metrics(r: TView<'_>) -> Vec<Metric> {
        let b = r.body;
        let mut out = Vec::new();
        let unit = b.unit.as_deref();
        if let (Some(f), Some(l)) = (b.scores.first(), b.scores.last()) {
            out.push(Metric::number("score_first", f.score, unit));
            out.push(Metric::number("score_last", l.score, unit));
        }
        if let Some(c) = b.change_pct {
            out.push(Metric::number("score_change_pct", c, Some("%")));
        }
        if let Some(t) = b.temp_max_c {
            out.push(Metric::number("temp_max_c", t, Some("°C")));
        }
        for c in &b.clusters {
            if let Some(m) = c.last_minute_mhz {
                out.push(Metric::number(
                    format!("cluster{}_last_minute_mhz", c.cluster),
                    m,
                    Some("MHz"),
                ));
            }
            if let Some(t) = c.first_loss.as_ref().and_then(|l| l.temp_c) {
                out.push(Metric::number(
                    format!("cluster{}_first_loss_c", c.cluster),
                    t,
                    Some("°C"),
                ));
            }
        }
        out
    }
}
