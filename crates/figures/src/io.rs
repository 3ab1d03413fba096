//! The figures of a `io` result.

use crate::{Figures, Metric};
use truebench_model::{IoBody, View};

type IView<'a> = View<'a, IoBody>;

impl Figures for IoBody {
    fn label(r: IView<'_>) -> String {
        format!(
            "{} reads of {}, {:.0} s × {}",
            r.body.tests.len(),
            r.body.target,
            r.body.duration_s,
            r.body.rows.len()
        )
    }

    fn metrics(r: IView<'_>) -> Vec<Metric> {
        let mut out = Vec::new();
        for t in &r.body.tests {
            let key = crate::setting_key(&t.test, &t.setting);
            if let Some(m) = t.median_mb_s {
                out.push(Metric::number(format!("{key}_mb_s"), m, Some("MB/s")));
            }
            if let Some(m) = t.median_iops {
                out.push(Metric::number(format!("{key}_iops"), m, None));
            }
            if let Some(s) = t.spread_pct {
                out.push(Metric::number(format!("{key}_spread_pct"), s, Some("%")));
            }
        }
        out
    }
}
