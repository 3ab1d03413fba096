//! The figures of a `net` result.

use crate::{Figures, Metric};
use truebench_model::{NetBody, View};

type NView<'a> = View<'a, NetBody>;

impl Figures for NetBody {
    fn label(r: NView<'_>) -> String {
        let b = r.body;
        format!(
            "TCP against {} ({}), {} stream(s), {:.0} s × {}",
            b.peer,
            b.peer_kind,
            b.streams,
            b.duration_s,
            b.rows.len()
        )
    }

    fn metrics(r: NView<'_>) -> Vec<Metric> {
        let mut out = Vec::new();
        for t in &r.body.tests {
            let key = crate::setting_key(&t.test, &t.setting);
            if let Some(m) = t.median_mbit_s {
                out.push(Metric::number(format!("{key}_mbit_s"), m, Some("Mbit/s")));
            }
            if let Some(s) = t.spread_pct {
                out.push(Metric::number(format!("{key}_spread_pct"), s, Some("%")));
            }
        }
        out
    }
}
