//! The `interactivity` kind (`truebench interactivity`): interbench's tables, with the
//! correct standard deviation and percentiles, and each cell's marks (what happened while it
//! ran).

use std::fmt::Write;

use truebench_model::interactivity::{BenchmarkTable, Cell};
use truebench_model::{Envelope, InteractivityBody, PhaseStatus, View};
use truebench_monitor_core::detect::render_findings;
use truebench_model::finding::{Finding, FindingKind};

use super::{Figures, Render};
use truebench_figures::interactivity::lat;
use crate::report::svg::{bars, esc, Bar};
use crate::text::{detailed_log_for, header_for};

/// Bar colours: a cell measured with nothing marked, and one measured while something was.
const CLEAN: &str = "#3b7dd8";
const MARKED: &str = "#d8703b";

type IView<'a> = View<'a, InteractivityBody>;

/// Latencies in ms (interbench's default) or µs (`--realtime`).
fn unit(b: &InteractivityBody) -> (&'static str, f64) {
    if b.realtime {
        ("µs", 1.0)
    } else {
        ("ms", 1000.0)
    }
}

fn marks(c: &Cell) -> String {
    let m = super::sweep::marks(&c.evidence.marks, c.evidence.invalid.as_deref());
    if m.is_empty() {
        String::new()
    } else {
        format!("  [{m}]")
    }
}

/// One benchmark's table, interbench's columns first.
pub fn table(b: &InteractivityBody, t: &BenchmarkTable) -> String {
    let (u, div) = unit(b);
    let mut o = format!(
        "--- Benchmarking simulated cpu of {} ({}, {}) in the presence of simulated ---\n",
        t.label, t.description, t.policy
    );
    let last = if t.has_deadlines {
        "% Deadlines Met"
    } else {
        "Frames/s"
    };
    let _ = writeln!(
        o,
        "{:<9}{:>24}{:>13}{:>15}{:>17}   p50 / p99 / p99.9 (µs)",
        "Load",
        format!("Latency +/- SD ({u})"),
        "Max Latency",
        "% Desired CPU",
        last
    );
    for c in &t.cells {
        match (&c.latency, c.evidence.status.as_str()) {
            (Some(l), _) => {
                let tail = if t.has_deadlines {
                    l.deadlines_met_pct
                        .map_or("-".into(), |d| format!("{d:.1}"))
                } else {
                    l.frames_per_s.map_or("-".into(), |f| format!("{f:.1}"))
                };
                let _ = writeln!(
                    o,
                    "{:<9}{:>24}{:>13}{:>15}{:>17}   {:.0} / {:.0} / {:.0}{}{}",
                    c.load_label,
                    format!("{:.3} +/- {:.3}", l.mean_us / div, l.sd_us / div),
                    format!("{:.1}", l.max_us / div),
                    format!("{:.1}", l.desired_cpu_pct),
                    tail,
                    l.p50_us,
                    l.p99_us,
                    l.p999_us,
                    marks(c),
                    if c.evidence.status == PhaseStatus::Ok {
                        String::new()
                    } else {
                        format!("  ({})", c.evidence.status)
                    }
                );
            }
            (None, status) => {
                let _ = writeln!(
                    o,
                    "{:<9}{status}{}",
                    c.load_label,
                    c.evidence.reason
                        .as_ref()
                        .map(|r| format!(": {r}"))
                        .unwrap_or_default()
                );
            }
        }
    }
    o.push_str(&idle_lines(&t.cells));
    o
}

/// The deepest idle state each cell's CPUs entered and, where its exit latency is of the
/// same order as the cell's tail latency, the verdict that says so; nothing for documents
/// without idle states.
pub fn idle_lines(cells: &[Cell]) -> String {
    let mut o = String::new();
    let entered: Vec<String> = cells
        .iter()
        .filter_map(|c| {
            let d = c.deepest_idle.as_ref()?;
            Some(format!(
                "{} {}{}",
                c.load_label,
                d.state,
                d.exit_latency_us
                    .map(|l| format!(" ({l} µs)"))
                    .unwrap_or_default()
            ))
        })
        .collect();
    if entered.is_empty() {
        return o;
    }
    let _ = writeln!(o, "Deepest idle state entered: {}", entered.join(", "));
    for c in cells {
        if let Some(v) = truebench_monitor_core::idle_latency::cell(c) {
            let _ = writeln!(o, "  {}: {v}", c.load_label);
        }
    }
    o
}

/// The findings of a result, then what could not be checked — never a bare "all clear".
pub fn findings_tail(env: &Envelope) -> String {
    let mut o = String::new();
    let (unchecked, found): (Vec<Finding>, Vec<Finding>) = env
        .findings
        .iter()
        .cloned()
        .partition(|f| f.kind == FindingKind::NotChecked);
    if found.is_empty() {
        o.push_str("No problems found in what could be checked.\n");
    } else {
        o.push_str(&render_findings(&found));
    }
    for f in &unchecked {
        let _ = writeln!(o, "Not checked: {}", f.message);
    }
    o
}


impl Render for InteractivityBody {
    fn summary(r: IView<'_>) -> String {
        let b = r.body;
        let mut o = String::new();
        let c = &b.calibration;
        let _ = writeln!(
            o,
            "\nWork per period: {} ({}{}).",
            b.work_description,
            c.source,
            c.drift_pct
                .map(|d| format!(", checks within {d:.2} %"))
                .unwrap_or_default()
        );
        if let Some(n) = &c.note {
            let _ = writeln!(o, "{n}");
        }
        let _ = writeln!(
            o,
            "{:.0} s per cell; benchmarked tasks at nice {}, loads at nice {}; SD is the sample standard deviation (interbench prints about the RMS).\n",
            b.duration_s, b.bench_nice, b.load_nice
        );
        for t in &b.benchmarks {
            o.push_str(&table(b, t));
            o.push('\n');
        }
        o.push_str(&findings_tail(r.envelope));
        o
    }

    fn detailed_log(r: IView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, "interactivity (interbench)"),
            &Self::summary(r),
        )
    }

    fn html_sections(r: IView<'_>) -> (String, String) {
        let b = r.body;
        let (u, div) = unit(b);
        let mut head = format!(
            "<section><h2>Interactivity</h2><p>{} — {} loops per ms ({}). {:.0} s per cell. SD is the sample standard deviation; percentiles in µs.</p>",
            esc(&b.work_description),
            b.calibration.loops_per_ms,
            esc(b.calibration.source.as_str()),
            b.duration_s
        );
        for t in &b.benchmarks {
            let rows: Vec<Bar> = t
                .cells
                .iter()
                .filter_map(|c| {
                    let l = lat(c)?;
                    Some(Bar {
                        label: c.load_label.clone(),
                        value: l.p99_us,
                        colour: if c.evidence.marks.is_empty() {
                            CLEAN.into()
                        } else {
                            MARKED.into()
                        },
                        text: format!(
                            "p50 {:.0} / p99 {:.0} / p99.9 {:.0} µs",
                            l.p50_us, l.p99_us, l.p999_us
                        ),
                    })
                })
                .collect();
            let _ = write!(
                head,
                "<h3>{} <small>{} · {}</small></h3>",
                esc(&t.label),
                esc(&t.description),
                esc(&t.policy)
            );
            head.push_str(&bars(
                &format!("{}: wake-up latency p99 per load (µs)", t.label),
                &rows,
            ));
            // What the two bar colours mean, when both are there.
            if rows.iter().any(|r| r.colour == MARKED) {
                let _ = write!(
                    head,
                    "<p class=\"muted\"><span style=\"color:{CLEAN}\">■</span> measured with nothing marked · <span style=\"color:{MARKED}\">■</span> measured while something was marked (see the Marks column)</p>"
                );
            }
            let _ = write!(
                head,
                "<table><thead><tr><th>Load</th><th>Latency ± SD ({u})</th><th>Max ({u})</th><th>% desired CPU</th><th>{}</th><th>p50/p99/p99.9 (µs)</th><th>Marks</th></tr></thead><tbody>",
                if t.has_deadlines { "% deadlines met" } else { "Frames/s" }
            );
            for c in &t.cells {
                match lat(c) {
                    Some(l) => {
                        let _ = write!(
                            head,
                            "<tr><td>{}</td><td>{:.3} ± {:.3}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td><td>{:.0} / {:.0} / {:.0}</td><td>{}</td></tr>",
                            esc(&c.load_label),
                            l.mean_us / div,
                            l.sd_us / div,
                            l.max_us / div,
                            l.desired_cpu_pct,
                            if t.has_deadlines {
                                l.deadlines_met_pct.map_or("-".into(), |d| format!("{d:.1}"))
                            } else {
                                l.frames_per_s.map_or("-".into(), |f| format!("{f:.1}"))
                            },
                            l.p50_us,
                            l.p99_us,
                            l.p999_us,
                            esc(&super::sweep::marks(&c.evidence.marks, c.evidence.invalid.as_deref()))
                        );
                    }
                    None => {
                        let _ = write!(
                            head,
                            "<tr><td>{}</td><td colspan=\"6\">{}{}</td></tr>",
                            esc(&c.load_label),
                            c.evidence.status,
                            esc(&c
                                .evidence
                                .reason
                                .as_ref()
                                .map(|r| format!(": {r}"))
                                .unwrap_or_default())
                        );
                    }
                }
            }
            head.push_str("</tbody></table>");
        }
        head.push_str("</section>");
        (head, String::new())
    }

    fn html_fact(r: IView<'_>) -> (&'static str, String) {
        ("Interactivity", Self::label(r))
    }

    fn markdown(r: IView<'_>) -> String {
        let b = r.body;
        let (u, div) = unit(b);
        let mut o = String::new();
        for t in &b.benchmarks {
            let _ = writeln!(
                o,
                "**{}** ({})\n\n| Load | Latency ± SD ({u}) | Max ({u}) | % desired CPU | {} | p99 (µs) |\n| --- | ---: | ---: | ---: | ---: | ---: |",
                t.label,
                t.description,
                if t.has_deadlines { "% deadlines met" } else { "Frames/s" }
            );
            for c in &t.cells {
                match lat(c) {
                    Some(l) => {
                        let _ = writeln!(
                            o,
                            "| {} | {:.3} ± {:.3} | {:.1} | {:.1} | {} | {:.0} |",
                            c.load_label,
                            l.mean_us / div,
                            l.sd_us / div,
                            l.max_us / div,
                            l.desired_cpu_pct,
                            if t.has_deadlines {
                                l.deadlines_met_pct
                                    .map_or("-".into(), |d| format!("{d:.1}"))
                            } else {
                                l.frames_per_s.map_or("-".into(), |f| format!("{f:.1}"))
                            },
                            l.p99_us
                        );
                    }
                    None => {
                        let _ = writeln!(o, "| {} | {} | | | | |", c.load_label, c.evidence.status);
                    }
                }
            }
            o.push('\n');
        }
        o
    }
}
