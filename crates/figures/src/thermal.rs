//! The figures of a `thermal` result.

use crate::{Figures, Metric};
use truebench_model::{ThermalBody, View};

type TView<'a> = View<'a, ThermalBody>;

impl Figures for ThermalBody {
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
