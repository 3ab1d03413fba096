//! The `monitor` kind: a command run under the monitor (`truebench monitor -- CMD`).

use std::fmt::Write;

use truebench_monitor_core::detect::render_findings;
use truebench_monitor_core::render::{table, Layout};
use truebench_model::finding::{Finding, FindingKind};

use super::Render;
use crate::report::svg::esc;
use crate::text::{detailed_log_for, header_for};
use truebench_model::{MonitorBody, View};

type MonitorView<'a> = View<'a, MonitorBody>;

pub use truebench_figures::monitor::command_line;

fn ending(b: &MonitorBody) -> String {
    match (b.exit_code, b.signal, &b.error) {
        (_, _, Some(e)) => format!("could not start: {e}"),
        (Some(c), _, _) => format!("exit code {c}"),
        (None, Some(s), _) => format!("killed by signal {s}"),
        (None, None, None) => "ending unknown".into(),
    }
}

/// A score as printed: whole numbers above 100, two decimals below.
fn fmt_score(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

impl Render for MonitorBody {

    /// What `truebench monitor -- CMD` prints when the command has ended.
    fn summary(r: MonitorView<'_>) -> String {
        let mut o = String::new();
        let cmd = command_line(&r.body.command);
        let tl = &r.envelope.timeline;
        let _ = writeln!(o, "\nSystem health while running {cmd}:\n");
        let rpi = tl
            .samples
            .iter()
            .find_map(|s| s.rpi)
            .map(|x| x.pmic_watts.is_some() || x.input_volts.is_some());
        let layout = Layout::new(&r.envelope.inventory, rpi);
        o.push_str(&table(&layout, &tl.samples));
        if tl.samples.is_empty() {
            let _ = writeln!(
                o,
                "(no sample: the command ended within the first interval of {} s)",
                r.body.interval_s
            );
        }
        let _ = writeln!(o, "\nMeasured clock: {}", tl.header.measured_clock_source);
        for n in &r.envelope.notes {
            let _ = writeln!(o, "{n}");
        }
        o.push('\n');
        let (unchecked, found): (Vec<Finding>, Vec<Finding>) = r
            .envelope
            .findings
            .iter()
            .cloned()
            .partition(|f| f.kind == FindingKind::NotChecked);
        if found.is_empty() && unchecked.is_empty() {
            o.push_str("No problems found.\n");
        } else if found.is_empty() {
            o.push_str("No problems found in what could be checked.\n");
        } else {
            o.push_str(&render_findings(&found));
        }
        for f in &unchecked {
            let _ = writeln!(o, "Not checked: {}", f.message);
        }
        o.push_str(&crate::energy::text(r.envelope));
        if !r.body.clusters.is_empty() {
            let _ = writeln!(o, "\nPer core type:");
            for c in &r.body.clusters {
                let end = match (c.exit_code, c.signal, &c.error) {
                    (_, _, Some(e)) => format!("could not start: {e}"),
                    (Some(x), _, _) => format!("exit code {x}"),
                    (None, Some(sig), _) => format!("killed by signal {sig}"),
                    _ => "ending unknown".into(),
                };
                let off = if c.offline.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", cpu{} offline",
                        c.offline
                            .iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                };
                let score = c.score.as_ref().map_or(String::new(), |s| {
                    format!("  score {} {}", fmt_score(s.value), s.unit)
                });
                let _ = writeln!(
                    o,
                    "  {:<28} {:>9.2} s  {end}{off}{score}",
                    c.label, c.duration_s
                );
            }
            if let Some(x) = r.body.score_ratio {
                let _ = writeln!(
                    o,
                    "  Score ratio between the core types (highest / lowest): {x:.2}"
                );
            }
            if let Some(s) = r.body.clusters.iter().find_map(|c| c.score.as_ref()) {
                let _ = writeln!(o, "  (score from {})", s.source);
            }
        }
        match (r.body.exit_code, r.body.signal) {
            (Some(c), _) => {
                let _ = writeln!(o, "\nCommand exit code: {c}");
            }
            (None, Some(s)) => {
                let _ = writeln!(o, "\nCommand exit code: {}", 128 + s);
            }
            _ => {
                let _ = writeln!(o, "\nCommand: {}", ending(r.body));
            }
        }
        o
    }

    fn detailed_log(r: MonitorView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(
                r.envelope,
                &format!("monitor of `{}`", command_line(&r.body.command)),
            ),
            &Self::summary(r),
        )
    }

    fn html_sections(r: MonitorView<'_>) -> (String, String) {
        let mut head = format!(
            "<section><h2>Command</h2><dl class=\"facts\"><div><dt>Command</dt><dd><code>{}</code></dd></div><div><dt>Ended</dt><dd>{}</dd></div><div><dt>Duration</dt><dd>{}</dd></div><div><dt>Sampled every</dt><dd>{} s</dd></div></dl></section>",
            esc(&command_line(&r.body.command)),
            esc(&ending(r.body)),
            esc(&crate::text::human_duration(r.body.duration_s)),
            r.body.interval_s
        );
        if !r.body.clusters.is_empty() {
            head.push_str("<section><h2>Per core type</h2><table><thead><tr><th>CPUs</th><th>Duration (s)</th><th>Ended</th><th>Score</th><th>Marks</th></tr></thead><tbody>");
            for c in &r.body.clusters {
                let phase = r.envelope.phase(c.phase);
                let _ = write!(
                    head,
                    "<tr><td>{}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(&c.label),
                    c.duration_s,
                    c.exit_code
                        .map_or_else(|| "-".to_string(), |x| format!("exit {x}")),
                    c.score.as_ref().map_or(String::new(), |s| esc(&format!(
                        "{} {}",
                        fmt_score(s.value),
                        s.unit
                    ))),
                    esc(&phase.map_or(String::new(), |p| super::sweep::marks(
                        &p.marks,
                        p.invalid.as_deref()
                    )))
                );
            }
            head.push_str("</tbody></table>");
            if let Some(x) = r.body.score_ratio {
                let _ = write!(head, "<p>Highest / lowest score: <b>{x:.2}</b></p>");
            }
            head.push_str("</section>");
        }
        // What the machine did meanwhile: memory, pressure, disk and network.
        (head, super::readings::html(&r.envelope.timeline))
    }

    fn html_fact(r: MonitorView<'_>) -> (&'static str, String) {
        ("Command", command_line(&r.body.command))
    }

    fn markdown(r: MonitorView<'_>) -> String {
        let verdict = if r.envelope.valid { "valid" } else { "INVALID" };
        format!(
            "| Command | Ended | Duration | Verdict | Findings |\n| --- | --- | ---: | --- | ---: |\n| `{}` | {} | {:.1} s | {verdict} | {} |\n",
            command_line(&r.body.command).replace('|', "\\|"),
            ending(r.body),
            r.body.duration_s,
            r.envelope.findings.len()
        )
    }
}
