//! The `power` kind (`truebench power`): each state's mean power with its 95 % interval,
//! settling time, min/max, energy per day, the load and clocks while measured, and the
//! difference to the machine as it was; a bar chart of the states with their intervals.

use std::fmt::Write;

use truebench_figures::power::{delta, watts};
use truebench_model::power::PowerRow;
use truebench_model::{PowerBody, View};

use super::interactivity::findings_tail;
use super::{Figures, Render};
use crate::report::svg::esc;
use crate::text::{detailed_log_for, header_for};

type PView<'a> = View<'a, PowerBody>;

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// The mean with its interval, or why there is no figure.
fn mean(r: &PowerRow, precision: f64) -> String {
    match (r.mean_w, r.narrowed) {
        _ if r.evidence.status != truebench_model::PhaseStatus::Ok => {
            let why = r.evidence.reason.as_deref().unwrap_or("");
            format!("{}{}", r.evidence.shown(), if why.is_empty() { String::new() } else { format!(": {why}") })
        }
        (Some(m), true) => watts(m, r.ci_w),
        (Some(m), false) => format!(
            "not within ±{precision} % ({} after {:.0} s)",
            watts(m, r.ci_w),
            r.seconds
        ),
        (None, _) => "no readings".into(),
    }
}

fn clocks(r: &PowerRow) -> String {
    let c: Vec<String> = r
        .cluster_mhz
        .iter()
        .map(|m| m.map_or("-".into(), |m| format!("{m:.0}")))
        .collect();
    if c.is_empty() {
        "-".into()
    } else {
        c.join("/")
    }
}

fn source_line(b: &PowerBody) -> String {
    format!(
        "{} — {}; read every {} s{}{}",
        b.source,
        b.covers,
        b.interval_s,
        b.update_s
            .filter(|u| *u > b.interval_s * 1.5)
            .map(|u| format!(", its value changed every {u:.2} s"))
            .unwrap_or_default(),
        match b.resolution_w {
            Some(r) => format!(", resolution {r} W as seen"),
            None => ", readings never differed (resolution unknown)".into(),
        }
    )
}

impl Render for PowerBody {
    fn summary(r: PView<'_>) -> String {
        let b = r.body;
        let mut o = header_for(r.envelope, "power per state");
        let _ = writeln!(o, "\nSource: {}", source_line(b));
        let _ = writeln!(
            o,
            "Each state until its mean's 95 % interval is within ±{} % or {} s{}",
            b.precision_pct,
            b.max_seconds,
            if b.only_safe { " (--only-safe)" } else { "" }
        );
        if let Some(u) = &b.untuned {
            let _ = writeln!(o, "Note: {u}");
        }
        let _ = writeln!(
            o,
            "\n  {:<12} {:>18} {:>24} {:>8} {:>13} {:>9} {:>6} {:>10} {:>5}",
            "state", "mean", "vs as-is", "settle", "min–max W", "Wh/day", "busy", "MHz", "CPUs"
        );
        for s in &b.states {
            let _ = writeln!(
                o,
                "  {:<12} {:>18} {:>24} {:>8} {:>13} {:>9} {:>6} {:>10} {:>5}",
                s.evidence.phase.as_str(),
                if s.evidence.status == truebench_model::PhaseStatus::Ok && s.mean_w.is_some() {
                    mean(s, b.precision_pct)
                } else {
                    "-".into()
                },
                delta(s).filter(|_| s.figure().is_some()).unwrap_or_else(|| "-".into()),
                s.settle_s.map_or("-".into(), |v| format!("{v:.1} s")),
                match (s.min_w, s.max_w) {
                    (Some(a), Some(z)) => format!("{a:.2}–{z:.2}"),
                    _ => "-".into(),
                },
                num(s.wh_per_day.filter(|_| s.figure().is_some()), 1),
                s.busy_pct.map_or("-".into(), |v| format!("{v:.1}%")),
                clocks(s),
                s.cpus_online.map_or("-".into(), |c| c.to_string()),
            );
            let shown = s.evidence.shown();
            if shown != "ok" || !s.narrowed {
                let _ = writeln!(o, "  {:<12} {}", "", mean(s, b.precision_pct));
            }
            if let Some(i) = &s.evidence.invalid {
                let _ = writeln!(o, "  {:<12} INVALID: {i}", "");
            }
        }
        o.push_str(&findings_tail(r.envelope));
        o
    }

    fn detailed_log(r: PView<'_>) -> String {
        let mut changes = String::from("\nSettings written per state:\n");
        for s in &r.body.states {
            for c in &s.changes {
                let _ = writeln!(changes, "  {}: {c}", s.evidence.phase);
            }
        }
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, "power per state"),
            &format!("{}{changes}", Self::summary(r)),
        )
    }

    fn html_sections(r: PView<'_>) -> (String, String) {
        let b = r.body;
        let mut o = format!(
            "<section><h2>Power per state</h2><p>{}. Each state until its mean's 95&nbsp;% interval is within ±{}&nbsp;% or {}&nbsp;s, after its power stopped moving.</p>",
            esc(&source_line(b)),
            b.precision_pct,
            b.max_seconds
        );
        if let Some(u) = &b.untuned {
            let _ = write!(o, "<p class=\"muted\">{}</p>", esc(u));
        }
        o.push_str(&bars(b));
        o.push_str("<table><thead><tr><th>State</th><th>Mean</th><th>vs as is</th><th>Settled after</th><th>Min–max (W)</th><th>Wh/day</th><th>CPU busy</th><th>Clocks (MHz)</th><th>CPUs online</th><th>Status</th></tr></thead><tbody>");
        for s in &b.states {
            let _ = write!(
                o,
                "<tr><td>{}<br><span class=\"muted\">{}</span></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(s.evidence.phase.as_str()),
                esc(s.evidence.phase.title()),
                esc(&mean(s, b.precision_pct)),
                esc(&delta(s).filter(|_| s.figure().is_some()).unwrap_or_else(|| "-".into())),
                s.settle_s.map_or("-".into(), |v| format!("{v:.1} s")),
                match (s.min_w, s.max_w) {
                    (Some(a), Some(z)) => format!("{a:.2}–{z:.2}"),
                    _ => "-".into(),
                },
                num(s.wh_per_day.filter(|_| s.figure().is_some()), 1),
                s.busy_pct.map_or("-".into(), |v| format!("{v:.1} %")),
                esc(&clocks(s)),
                s.cpus_online.map_or("-".into(), |c| c.to_string()),
                esc(&format!(
                    "{}{}",
                    s.evidence.shown(),
                    s.evidence
                        .invalid
                        .as_ref()
                        .or(s.evidence.reason.as_ref())
                        .map(|w| format!(": {w}"))
                        .unwrap_or_default()
                ))
            );
        }
        o.push_str("</tbody></table></section>");
        let mut details = String::from("<section><h2>Settings written per state</h2><ul>");
        for s in &b.states {
            for c in &s.changes {
                let _ = write!(details, "<li>{}: {}</li>", esc(s.evidence.phase.as_str()), esc(c));
            }
        }
        details.push_str("</ul></section>");
        (o, details)
    }

    fn html_fact(r: PView<'_>) -> (&'static str, String) {
        ("Power", Self::label(r))
    }

    fn markdown(r: PView<'_>) -> String {
        let b = r.body;
        let mut o = String::from("| State | Mean | vs as is | Settled | CPU busy |\n| --- | ---: | ---: | ---: | ---: |\n");
        for s in &b.states {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} |",
                s.evidence.phase.title(),
                mean(s, b.precision_pct),
                delta(s).filter(|_| s.figure().is_some()).unwrap_or_else(|| "-".into()),
                s.settle_s.map_or("-".into(), |v| format!("{v:.1} s")),
                s.busy_pct.map_or("-".into(), |v| format!("{v:.1} %")),
            );
        }
        o
    }
}

/// One bar per measured state with its interval drawn as a whisker; a state whose interval
/// never narrowed is drawn hollow, and a skipped one is not drawn.
fn bars(b: &PowerBody) -> String {
    let rows: Vec<&PowerRow> = b.states.iter().filter(|s| s.mean_w.is_some()).collect();
    if rows.is_empty() {
        return "<p class=\"muted\">No state was measured: no bars to draw.</p>".into();
    }
    let max = rows
        .iter()
        .map(|s| s.mean_w.unwrap_or(0.0) + s.ci_w.unwrap_or(0.0))
        .fold(0.0, f64::max)
        .max(1e-9);
    let (lw, bw, tw, row_h) = (96.0, 240.0, 150.0, 22.0);
    let w = lw + bw + tw;
    let h = 30.0 + rows.len() as f64 * row_h + 6.0;
    let title = "Power per state, W (whiskers: 95 % interval)";
    let mut o = format!(
        "<figure class=\"fig\"><svg class=\"chart natural\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"{title}\"><text x=\"4\" y=\"18\" class=\"ct\">{title}</text>"
    );
    let x = |v: f64| lw + v / max * bw;
    for (i, s) in rows.iter().enumerate() {
        let y = 30.0 + i as f64 * row_h;
        let m = s.mean_w.unwrap_or(0.0);
        let c = s.ci_w.unwrap_or(0.0);
        let fill = if s.figure().is_some() {
            "fill=\"#3b7dd8\""
        } else {
            "fill=\"none\" stroke=\"#3b7dd8\" stroke-dasharray=\"3 2\""
        };
        let text = if s.figure().is_some() {
            watts(m, s.ci_w)
        } else {
            "not narrowed".into()
        };
        let _ = write!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tk\" text-anchor=\"end\">{}</text><rect x=\"{lw}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"2\" {fill}><title>{}: {}</title></rect><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#111\" stroke-width=\"1.5\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"tk\">{}</text>",
            lw - 6.0,
            y + 14.0,
            esc(s.evidence.phase.as_str()),
            y + 3.0,
            (x(m) - lw).max(1.0),
            row_h - 8.0,
            esc(s.evidence.phase.title()),
            esc(&text),
            x((m - c).max(0.0)),
            x(m + c),
            y + 9.0,
            y + 9.0,
            x(m + c) + 6.0,
            y + 14.0,
            esc(&text)
        );
    }
    o.push_str("</svg></figure>");
    o
}
