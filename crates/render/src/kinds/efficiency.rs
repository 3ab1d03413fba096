//! The `efficiency` kind (`truebench efficiency`): per cluster and OPP the measured clock,
//! the score, the power and the score per watt (also above idle), the best OPP marked; SVG
//! charts of score, watts and score per watt against the clock.

use std::fmt::Write;

use truebench_model::efficiency::{EfficiencyCluster, OppPoint};
use truebench_model::{EfficiencyBody, View};
use truebench_model::timeline::per_watt_unit;

use super::interactivity::findings_tail;
use super::{Figures, Render};
use crate::report::svg::{cluster_colour, esc, LineChart, Series};
use crate::text::{detailed_log_for, header_for};

type EView<'a> = View<'a, EfficiencyBody>;

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

fn cluster_name(c: &EfficiencyCluster) -> String {
    format!(
        "cluster {} (CPUs {}{})",
        c.cluster,
        c.cpus,
        c.core_type
            .as_ref()
            .map(|t| format!(", {t}"))
            .unwrap_or_default()
    )
}

/// The x of a point: the measured clock, else the OPP.
fn x(p: &OppPoint) -> Option<f64> {
    p.measured_mhz.or(p.opp_mhz.map(f64::from))
}

fn opp(p: &OppPoint) -> String {
    p.opp_mhz.map_or("current".into(), |m| format!("{m} MHz"))
}

impl Render for EfficiencyBody {
    fn summary(r: EView<'_>) -> String {
        let b = r.body;
        let mut o = header_for(r.envelope, "efficiency per OPP");
        let _ = writeln!(
            o,
            "\nWork: {} ({} run(s) per OPP{})",
            b.work,
            b.runs_per_opp,
            b.cool_to_c
                .map(|t| format!(", each starting at ≤ {t:.1} °C"))
                .unwrap_or_default()
        );
        if let Some(m) = &b.method {
            let _ = writeln!(
                o,
                "OPPs set with: {m}; the other clusters at their lowest clock"
            );
        }
        if let Some(n) = &b.switch_note {
            let _ = writeln!(o, "Note: {n}");
        }
        let pw = per_watt_unit(&b.unit);
        for c in &b.clusters {
            let _ = writeln!(o, "\n{}:", cluster_name(c));
            let _ = writeln!(
                o,
                "  {:>9} {:>13} {:>10} {:>8} {:>12} {:>14} {:>7}",
                "OPP", "measured MHz", &b.unit, "W", &pw, "above idle", "max °C"
            );
            for p in &c.points {
                let best = if p.opp_mhz.is_some() && p.opp_mhz == c.best_mhz {
                    "  ← best"
                } else {
                    ""
                };
                let _ = writeln!(
                    o,
                    "  {:>9} {:>13} {:>10} {:>8} {:>12} {:>14} {:>7}{best}{}",
                    opp(p),
                    num(p.measured_mhz, 0),
                    num(p.score, 1),
                    num(p.watts, 2),
                    num(p.per_watt, 1),
                    num(p.per_watt_above_idle, 1),
                    num(p.temp_max_c, 1),
                    match (p.status.shown(p.invalid.as_deref()), &p.reason, &p.invalid) {
                        ("ok", None, _) => String::new(),
                        ("invalid", _, Some(why)) => format!("  [INVALID: {why}]"),
                        (s, Some(why), _) => format!("  [{s}: {why}]"),
                        (s, None, _) => format!("  [{s}]"),
                    }
                );
            }
            for n in &c.notes {
                let _ = writeln!(o, "  Note: {n}");
            }
        }
        o.push_str(&crate::energy::headline(r.envelope));
        o.push_str(&findings_tail(r.envelope));
        o
    }

    fn detailed_log(r: EView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, "efficiency per OPP"),
            &Self::summary(r),
        )
    }

    fn html_sections(r: EView<'_>) -> (String, String) {
        let b = r.body;
        let pw = per_watt_unit(&b.unit);
        let mut head = format!(
            "<section><h2>Efficiency per OPP</h2><p>{} — {} run(s) per OPP{}. Energy is integrated over every run; the best OPP (highest {} above idle, else overall) is marked.</p>",
            esc(&b.work),
            b.runs_per_opp,
            b.cool_to_c
                .map(|t| format!(", each from ≤ {t:.1} °C"))
                .unwrap_or_default(),
            esc(&pw)
        );
        if let Some(n) = &b.switch_note {
            let _ = write!(head, "<p class=\"muted\">{}</p>", esc(n));
        }
        // A chart against the measured clock needs clocks that differ: where every OPP set ran
        // at one clock (a VM, a recorded tree, firmware that ignores the request) there is no
        // curve to draw, and the page says so once.
        let clocks: Vec<f64> = b
            .clusters
            .iter()
            .flat_map(|c| c.points.iter().filter_map(|p| p.measured_mhz))
            .collect();
        let (lo, hi) = clocks
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
        let one_clock = clocks.len() >= 2 && hi - lo <= hi * 0.01;
        if one_clock {
            let _ = write!(
                head,
                "<p class=\"muted\">Every OPP set ran at one measured clock ({lo:.0} MHz): no chart against the clock; the table below has each point.</p>"
            );
        }
        let chart = |title: &str, unit: &str, f: &dyn Fn(&OppPoint) -> Option<f64>| {
            if one_clock {
                return String::new();
            }
            let mut ch = LineChart::new(title, "measured clock (MHz)", unit);
            for c in &b.clusters {
                let mut s = Series::new(
                    &cluster_name(c),
                    cluster_colour(c.cluster),
                    unit,
                    c.points
                        .iter()
                        .filter_map(|p| Some((x(p)?, f(p))))
                        .collect(),
                );
                s.markers = true;
                ch.series.push(s);
                // The best OPP as its own marked point.
                if let Some(p) = c
                    .points
                    .iter()
                    .find(|p| p.opp_mhz.is_some() && p.opp_mhz == c.best_mhz)
                {
                    if let Some(xv) = x(p) {
                        let mut m = Series::new(
                            &format!("best: cluster {} at {}", c.cluster, opp(p)),
                            "#111111",
                            unit,
                            vec![(xv, f(p))],
                        );
                        m.markers = true;
                        ch.series.push(m);
                    }
                }
            }
            ch.y_min = Some(0.0);
            ch.render()
        };
        head.push_str(&chart(&format!("{} vs clock", b.unit), &b.unit, &|p| {
            p.score
        }));
        head.push_str(&chart("Power vs clock", "W", &|p| p.watts));
        head.push_str(&chart(&format!("{pw} vs clock"), &pw, &|p| p.per_watt));
        head.push_str("<table><thead><tr><th>Cluster</th><th>OPP</th><th>Measured (MHz)</th><th>Score</th><th>W</th><th>Per watt</th><th>Above idle</th><th>Max °C</th><th>Status</th></tr></thead><tbody>");
        for c in &b.clusters {
            for p in &c.points {
                let best = p.opp_mhz.is_some() && p.opp_mhz == c.best_mhz;
                let _ = write!(
                    head,
                    "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    if best { " class=\"best\"" } else { "" },
                    esc(&cluster_name(c)),
                    esc(&opp(p)),
                    num(p.measured_mhz, 0),
                    num(p.score, 1),
                    num(p.watts, 2),
                    num(p.per_watt, 1),
                    num(p.per_watt_above_idle, 1),
                    num(p.temp_max_c, 1),
                    esc(&format!(
                        "{}{}{}",
                        p.status.shown(p.invalid.as_deref()),
                        if best { " (best)" } else { "" },
                        p.invalid
                            .as_ref()
                            .or(p.reason.as_ref())
                            .map(|r| format!(": {r}"))
                            .unwrap_or_default()
                    ))
                );
            }
        }
        head.push_str("</tbody></table></section>");
        (head, String::new())
    }

    fn html_fact(r: EView<'_>) -> (&'static str, String) {
        ("Efficiency", Self::label(r))
    }

    fn markdown(r: EView<'_>) -> String {
        let b = r.body;
        let pw = per_watt_unit(&b.unit);
        let mut o = format!(
            "| Cluster | OPP | Measured MHz | {} | W | {pw} |\n| --- | ---: | ---: | ---: | ---: | ---: |\n",
            b.unit
        );
        for c in &b.clusters {
            for p in &c.points {
                let _ = writeln!(
                    o,
                    "| {} | {}{} | {} | {} | {} | {} |",
                    cluster_name(c),
                    opp(p),
                    if p.opp_mhz.is_some() && p.opp_mhz == c.best_mhz {
                        " (best)"
                    } else {
                        ""
                    },
                    num(p.measured_mhz, 0),
                    num(p.score, 1),
                    num(p.watts, 2),
                    num(p.per_watt, 1)
                );
            }
        }
        o
    }
}
