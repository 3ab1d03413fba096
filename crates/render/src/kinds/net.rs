//! The `net` kind (`truebench net --connect`): a row per test and repeat (throughput each way,
//! the busiest core and what kept it busy, the verdict "CPU-bound"), the median per test, and
//! in the HTML page the throughput per test with each core's load.

use std::fmt::Write;

use truebench_model::{NetBody, View};

use super::interactivity::findings_tail;
use super::sweep;
use super::{Figures, Render};
use crate::report::svg::esc;
use crate::text::{detailed_log_for, header_for};

type NView<'a> = View<'a, NetBody>;

fn mbit(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.0}"))
}

/// The table of tests.
pub fn table(b: &NetBody) -> String {
    let mut o = format!(
        "{:<16} {:<10} {:>3} {:<11} {:>12} {:>12}  {:<40} {}\n",
        "Setting", "Test", "#", "Status", "Sent Mbit/s", "Recv Mbit/s", "Busiest core", "Verdict"
    );
    for r in &b.rows {
        let _ = writeln!(
            o,
            "{:<16} {:<10} {:>3} {:<11} {:>12} {:>12}  {:<40} {}{}{}",
            r.setting,
            r.test,
            r.repeat,
            r.evidence.shown(),
            mbit(r.sent_mbit_s),
            mbit(r.received_mbit_s),
            sweep::busiest(&r.cores),
            sweep::verdict(&r.cpu_bound, r.evidence.status),
            if r.reached_mhz.is_empty() {
                String::new()
            } else {
                format!("; clock reached {} MHz", sweep::reached(&r.reached_mhz))
            },
            if r.evidence.marks.is_empty() {
                String::new()
            } else {
                format!("  [{}]", r.evidence.marks.join(", "))
            }
        );
        if let Some(why) = &r.evidence.reason {
            let _ = writeln!(o, "{:<15}{why}", "");
        }
    }
    o
}

/// How the data was sent, where not by plain writes.
fn zerocopy(b: &NetBody) -> &'static str {
    if b.zerocopy {
        " sent by sendfile (zero-copy)"
    } else {
        ""
    }
}

impl Render for NetBody {
    fn summary(r: NView<'_>) -> String {
        let b = r.body;
        let mut o = format!(
            "\nTCP against {} ({}): {} stream(s){}, {:.0} s per test, {} repeat(s) in alternating order. Mbit/s = 10^6 bits/s; a core at {:.0} % busy or more is the limit (CPU-bound).\n\n",
            b.peer, b.peer_kind, b.streams, zerocopy(b), b.duration_s, b.repeat, b.cpu_bound_pct
        );
        if let Some(n) = &b.sweep_note {
            let _ = writeln!(o, "{n}\n");
        }
        o.push_str(&table(b));
        o.push_str("\nPer test (sent + received, median of the completed repeats):\n");
        for t in &b.tests {
            let _ = writeln!(
                o,
                "  {:<16} {:<10} {:>10} Mbit/s{}",
                t.setting,
                t.test,
                mbit(t.median_mbit_s),
                super::sweep::runs_note(t.spread_pct, t.runs, t.cpu_bound_runs)
            );
        }
        for v in &b.verdicts {
            let _ = writeln!(o, "\n{v}");
        }
        o.push('\n');
        o.push_str(&findings_tail(r.envelope));
        o
    }

    fn detailed_log(r: NView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, "net (TCP throughput and its CPU cost)"),
            &Self::summary(r),
        )
    }

    fn html_sections(r: NView<'_>) -> (String, String) {
        let b = r.body;
        let mut head = format!(
            "<section><h2>TCP throughput</h2><p>Against {} ({}), {} stream(s){}, {:.0} s per test, {} repeat(s). A core at {:.0} % busy or more is the limit.</p>",
            esc(&b.peer),
            esc(b.peer_kind.as_str()),
            b.streams,
            zerocopy(b),
            b.duration_s,
            b.repeat,
            b.cpu_bound_pct
        );
        head.push_str("<table class=\"num\"><thead><tr><th>Setting</th><th>Test</th><th>#</th><th>Status</th><th>Sent (Mbit/s)</th><th>Received (Mbit/s)</th><th>Per core: busy (softirq / process) %</th><th>Clock reached (MHz)</th><th>Verdict</th><th>Marks</th></tr></thead><tbody>");
        for row in &b.rows {
            let cores: Vec<String> = row
                .cores
                .iter()
                .map(|c| {
                    format!(
                        "cpu{} {:.0} ({:.0} / {:.0})",
                        c.cpu, c.busy_pct, c.softirq_pct, c.process_pct
                    )
                })
                .collect();
            let _ = write!(
                head,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&row.setting),
                esc(row.test.as_str()),
                row.repeat,
                row.evidence.shown(),
                mbit(row.sent_mbit_s),
                mbit(row.received_mbit_s),
                esc(&cores.join(", ")),
                esc(&sweep::reached(&row.reached_mhz)),
                esc(&sweep::verdict(&row.cpu_bound, row.evidence.status)),
                esc(&sweep::marks(&row.evidence.marks, row.evidence.invalid.as_deref()))
            );
        }
        head.push_str("</tbody></table>");
        // Throughput against the setting, with the clock each setting really reached.
        head.push_str("<h3>Throughput per setting</h3><table class=\"num\"><thead><tr><th>Test</th><th>Setting</th><th>Mbit/s (median)</th><th>Spread</th><th>Clock reached (MHz)</th><th>CPU-bound</th></tr></thead><tbody>");
        for t in &b.tests {
            let clock = b
                .rows
                .iter()
                .find(|r| r.test == t.test && r.setting == t.setting && !r.reached_mhz.is_empty())
                .map_or("-".into(), |r| sweep::reached(&r.reached_mhz));
            let _ = write!(
                head,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} of {}</td></tr>",
                esc(t.test.as_str()),
                esc(&t.setting),
                mbit(t.median_mbit_s),
                t.spread_pct.map_or("-".into(), |s| format!("{s:.1} %")),
                esc(&clock),
                t.cpu_bound_runs,
                t.runs
            );
        }
        head.push_str("</tbody></table>");
        // Throughput against the setting, one chart per test, with the clock reached.
        let figures: Vec<sweep::SettingFigure<'_>> = b
            .tests
            .iter()
            .map(|t| sweep::SettingFigure {
                test: t.test.as_str(),
                setting: &t.setting,
                value: t.median_mbit_s,
                reached_mhz: b
                    .rows
                    .iter()
                    .find(|r| {
                        r.test == t.test && r.setting == t.setting && !r.reached_mhz.is_empty()
                    })
                    .map_or(&[][..], |r| &r.reached_mhz),
            })
            .collect();
        head.push_str(&sweep::setting_bars(&figures, "Mbit/s", 0));
        for v in b.verdicts.iter().chain(b.sweep_note.iter()) {
            let _ = write!(head, "<p>{}</p>", esc(v));
        }
        head.push_str("</section>");
        (head, String::new())
    }

    fn html_fact(r: NView<'_>) -> (&'static str, String) {
        ("Net", Self::label(r))
    }

    fn markdown(r: NView<'_>) -> String {
        let mut o = String::from(
            "| Test | Mbit/s (median) | Spread | CPU-bound |\n| --- | ---: | ---: | ---: |\n",
        );
        for t in &r.body.tests {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} of {} |",
                t.test,
                t.setting,
                mbit(t.median_mbit_s),
                t.spread_pct.map_or("-".into(), |s| format!("{s:.1} %")),
                t.cpu_bound_runs,
                t.runs
            );
        }
        o
    }
}
