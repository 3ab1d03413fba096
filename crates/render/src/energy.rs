//! The energy of any kind of result (`Envelope::energy`): a text block for summaries, an HTML
//! section, and the figures `compare` sets side by side.

use std::fmt::Write;

use truebench_model::timeline::EnergyReport;
use truebench_model::Envelope;

use crate::report::svg::esc;

/// Why nothing was measured: the power entries of the timeline's missing sources.
fn why_none(env: &Envelope) -> String {
    let why: Vec<String> = env
        .timeline
        .extra_header
        .missing
        .iter()
        .filter(|m| m.what.starts_with("power"))
        .map(|m| {
            if m.what == "power" {
                m.reason.clone()
            } else {
                format!("{}: {}", m.what, m.reason)
            }
        })
        .collect();
    if why.is_empty() {
        "no power source was read".into()
    } else {
        why.join("; ")
    }
}

fn idle_line(e: &EnergyReport) -> String {
    match (e.idle_watts, e.idle_seconds) {
        (Some(w), Some(s)) => format!("{w:.2} W (mean over the last {s:.0} s of the idle phase)"),
        _ => e
            .idle_note
            .clone()
            .unwrap_or_else(|| "no idle power".into()),
    }
}

/// `+6.69 W` or `-`.
fn above(w: Option<f64>) -> String {
    // Rounded first: -0.001 W is printed as +0.00, not -0.00.
    w.map_or("-".into(), |w| {
        format!("{:+.2} W", (w * 100.0).round() / 100.0 + 0.0)
    })
}

fn number(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The energy block of a text summary, starting with a blank line. Without a power source it
/// says so and how to add one, so no reader takes a missing figure for a small one.
pub fn text(env: &Envelope) -> String {
    let mut o = String::new();
    let Some(e) = &env.energy else {
        let _ = writeln!(
            o,
            "\nEnergy: not measured ({}). An external meter can be added with --power-cmd CMD or --power-file FILE.",
            why_none(env)
        );
        return o;
    };
    let _ = writeln!(o, "\nEnergy from {} — {}:", e.source, e.covers);
    let _ = writeln!(o, "  idle: {}", idle_line(e));
    if e.phases.is_empty() {
        let _ = writeln!(o, "  no phase had power readings");
    } else {
        let w = e
            .phases
            .iter()
            .map(|p| p.phase.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let _ = writeln!(
            o,
            "  {:<w$} {:>9} {:>8} {:>11}  per watt",
            "phase", "J", "W", "above idle"
        );
        for p in &e.phases {
            let per: Vec<String> = p
                .per_watt
                .iter()
                .map(|x| {
                    let a = x
                        .above_idle
                        .map(|a| format!(", {} above idle", number(a)))
                        .unwrap_or_default();
                    format!("{}: {} {}{a}", x.what, number(x.value), x.unit)
                })
                .collect();
            let _ = writeln!(
                o,
                "  {:<w$} {:>9.1} {:>8.2} {:>11}  {}",
                p.phase,
                p.joules,
                p.mean_watts,
                above(p.above_idle_watts),
                per.join("; ")
            );
        }
    }
    if !e.others.is_empty() {
        let _ = writeln!(
            o,
            "  other power sources (per phase in the JSON, envelope.timeline.energy): {}",
            e.others.join(", ")
        );
    }
    o
}

/// Only the source and the idle power (kinds whose own tables show the energy per phase).
pub fn headline(env: &Envelope) -> String {
    match &env.energy {
        None => text(env),
        Some(e) => format!(
            "\nEnergy from {} — {}; idle: {}\n",
            e.source,
            e.covers,
            idle_line(e)
        ),
    }
}

/// The HTML section (an explanation when nothing was measured).
pub fn html(env: &Envelope) -> String {
    let mut o = String::from("<section><h2>Energy</h2>");
    let Some(e) = &env.energy else {
        let _ = write!(
            o,
            "<p class=\"muted\">Not measured: {}. An external meter can be added with <code>--power-cmd CMD</code> or <code>--power-file FILE</code>.</p></section>",
            esc(&why_none(env))
        );
        return o;
    };
    let _ = write!(
        o,
        "<p>From <b>{}</b>: {}. Idle: {}. Energy is integrated over each phase from every reading, not taken from one sample.</p>",
        esc(&e.source),
        esc(&e.covers),
        esc(&idle_line(e))
    );
    o.push_str("<div class=\"scroll\"><table><thead><tr><th>phase</th><th>energy (J)</th><th>mean (W)</th><th>above idle</th><th>per watt</th></tr></thead><tbody>");
    for p in &e.phases {
        let per: Vec<String> = p
            .per_watt
            .iter()
            .map(|x| {
                let a = x
                    .above_idle
                    .map(|a| format!(" ({} above idle)", number(a)))
                    .unwrap_or_default();
                esc(&format!("{}: {} {}{a}", x.what, number(x.value), x.unit))
            })
            .collect();
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{:.1}</td><td>{:.2}</td><td>{}</td><td>{}</td></tr>",
            esc(&p.phase),
            p.joules,
            p.mean_watts,
            esc(&above(p.above_idle_watts)),
            per.join("<br>")
        );
    }
    o.push_str("</tbody></table></div>");
    if !e.others.is_empty() {
        let _ = write!(
            o,
            "<p class=\"muted\">Other power sources, per phase in the JSON: {}.</p>",
            esc(&e.others.join(", "))
        );
    }
    o.push_str("</section>");
    o
}
