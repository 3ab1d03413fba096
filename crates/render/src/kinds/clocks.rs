//! The `clocks` kind: measured vs advertised clock for every OPP of every cluster.

use std::fmt::Write;

use super::{Figures, Render};
use truebench_figures::clocks::top;
use crate::report::svg::esc;
use crate::text::{detailed_log_for, header_for};
use truebench_model::clocks::WalkMode;
use truebench_model::{ClocksBody, View};

type ClocksView<'a> = View<'a, ClocksBody>;

fn what(r: ClocksView<'_>) -> &'static str {
    if r.body.walked {
        "clock check (OPP walk)"
    } else {
        "clock check (current clocks)"
    }
}

fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

impl Render for ClocksBody {
    fn summary(r: ClocksView<'_>) -> String {
        truebench_monitor_core::clocks_text::text(
            &r.envelope.notes,
            &r.body.clusters,
            r.body.all_cores.as_ref(),
            &r.envelope.findings,
        )
    }

    fn detailed_log(r: ClocksView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, what(r)),
            &Self::summary(r),
        )
    }

    fn html_sections(r: ClocksView<'_>) -> (String, String) {
        let mut head = String::from("<section><h2>Measured clocks</h2><table><thead><tr><th>CPUs</th><th>Core</th><th>Highest OPP (MHz)</th><th>Measured (MHz)</th><th>Deviation</th><th>OPPs enforced</th></tr></thead><tbody>");
        for c in &r.body.clusters {
            let p = top(c);
            let _ = write!(
                head,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                esc(&c.cpu_range),
                esc(c.core_type.as_deref().unwrap_or("-")),
                p.and_then(|p| p.opp_mhz).map_or("-".into(), |o| o.to_string()),
                cell(p.and_then(|p| p.measured_mhz), 0),
                p.and_then(|p| p.deviation_pct).map_or("-".into(), |d| format!("{d:+.1} %")),
                match c.enforced {
                    Some(true) => "yes",
                    Some(false) => "no (ignored by the hardware)",
                    None => "not testable",
                }
            );
        }
        head.push_str("</tbody></table></section>");
        let mut details = String::new();
        for c in &r.body.clusters {
            let _ = write!(
                details,
                "<section><h2>{}{}</h2><p class=\"muted\">{}</p><table><thead><tr><th>OPP (MHz)</th><th>cpufreq (MHz)</th><th>Measured (MHz)</th><th>Deviation</th></tr></thead><tbody>",
                esc(&c.cpu_range),
                c.core_type.as_ref().map(|t| format!(" · {}", esc(t))).unwrap_or_default(),
                match c.mode {
                    WalkMode::OppWalk => "every OPP set and measured",
                    WalkMode::CurrentClock => "measured at the current clock (the OPPs could not be set)",
                    WalkMode::NoCpufreq => "no cpufreq: measured at whatever clock the hardware runs",
                    WalkMode::Offline => "every CPU offline",
                    WalkMode::MaxOpp => "the highest OPP only",
                }
            );
            for p in &c.points {
                let _ = write!(
                    details,
                    "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                    p.opp_mhz.map_or("-".into(), |o| o.to_string()),
                    p.reported_mhz.map_or("-".into(), |o| o.to_string()),
                    match (p.measured_mhz, &p.error) {
                        (Some(m), _) => format!("{m:.0}"),
                        (None, Some(e)) => format!("failed: {}", esc(e)),
                        (None, None) => "-".into(),
                    },
                    p.deviation_pct.map_or("-".into(), |d| format!("{d:+.1} %")),
                );
            }
            details.push_str("</tbody></table></section>");
        }
        (head, details)
    }

    fn html_fact(r: ClocksView<'_>) -> (&'static str, String) {
        ("Measured", Self::label(r))
    }

    fn markdown(r: ClocksView<'_>) -> String {
        let mut o = String::new();
        for c in &r.body.clusters {
            let _ =
                writeln!(
                o,
                "**{}{}**\n\n| OPP (MHz) | Measured (MHz) | Deviation |\n| ---: | ---: | ---: |",
                c.cpu_range,
                c.core_type.as_ref().map(|t| format!(" ({t})")).unwrap_or_default()
            );
            for p in &c.points {
                let _ = writeln!(
                    o,
                    "| {} | {} | {} |",
                    p.opp_mhz.map_or("-".into(), |o| o.to_string()),
                    cell(p.measured_mhz, 0),
                    p.deviation_pct.map_or("-".into(), |d| format!("{d:+.1} %"))
                );
            }
            o.push('\n');
        }
        o
    }
}
