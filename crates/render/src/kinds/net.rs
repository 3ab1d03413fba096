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
            r.run.setting,
            r.run.test,
            r.run.repeat,
            r.status.shown(r.invalid.as_deref()),
            mbit(r.sent_mbit_s),
            mbit(r.received_mbit_s),
            sweep::busiest(&r.run.cores),
            sweep::verdict(&r.run.cpu_bound, r.status),
            if r.run.reached_mhz.is_empty() {
                String::new()
            } else {
                format!("; clock reached {} MHz", sweep::reached(&r.run.reached_mhz))
            },
            if r.marks.is_empty() {
                String::new()
            } else {
                format!("  [{}]", r.marks.join(", "))
            }
        );
        if let Some(why) = &r.reason {
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
            b.peer, b.peer_kind, b.streams, zerocopy(b), b.sweep.duration_s, b.sweep.repeat, b.sweep.cpu_bound_pct
        );
        if let Some(n) = &b.sweep.sweep_note {
            let _ = writeln!(o, "{n}\n");
        }
        o.push_str(&table(b));
        o.push_str("\nPer test (sent + received, median of the completed repeats):\n");
        for t in &b.tests {
            let _ = writeln!(
                o,
                "  {:<16} {:<10} {:>10} Mbit/s{}",
                t.summary.setting,
                t.summary.test,
                mbit(t.median_mbit_s),
                super::sweep::runs_note(t.summary.spread_pct, t.summary.runs, t.summary.cpu_bound_runs)
            );
        }
        for v in &b.sweep.verdicts {
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
            esc(&b.peer_kind),
            b.streams,
            zerocopy(b),
            b.sweep.duration_s,
            b.sweep.repeat,
            b.sweep.cpu_bound_pct
        );
        head.push_str("<table class=\"num\"><thead><tr><th>Setting</th><th>Test</th><th>#</th><th>Status</th><th>Sent (Mbit/s)</th><th>Received (Mbit/s)</th><th>Per core: busy (softirq / process) %</th><th>Clock reached (MHz)</th><th>Verdict</th><th>Marks</th></tr></thead><tbody>");
        for row in &b.rows {
            let cores: Vec<String> = row
                .run.cores
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
                esc(&row.run.setting),
                esc(&row.run.test),
                row.run.repeat,
                row.status.shown(row.invalid.as_deref()),
                mbit(row.sent_mbit_s),
                mbit(row.received_mbit_s),
                esc(&cores.join(", ")),
                esc(&sweep::reached(&row.run.reached_mhz)),
                esc(&sweep::verdict(&row.run.cpu_bound, row.status)),
                esc(&sweep::marks(&row.marks, row.invalid.as_deref()))
            );
        }
        head.push_str("</tbody></table>");
        // Throughput against the setting, with the clock each setting really reached.
        head.push_str("<h3>Throughput per setting</h3><table class=\"num\"><thead><tr><th>Test</th><th>Setting</th><th>Mbit/s (median)</th><th>Spread</th><th>Clock reached (MHz)</th><th>CPU-bound</th></tr></thead><tbody>");
        for t in &b.tests {
            let clock = b
                .rows
                .iter()
                .find(|r| r.run.test == t.summary.test && r.run.setting == t.summary.setting && !r.run.reached_mhz.is_empty())
                .map_or("-".into(), |r| sweep::reached(&r.run.reached_mhz));
            let _ = write!(
                head,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} of {}</td></tr>",
                esc(&t.summary.test),
                esc(&t.summary.setting),
                mbit(t.median_mbit_s),
                t.summary.spread_pct.map_or("-".into(), |s| format!("{s:.1} %")),
                esc(&clock),
                t.summary.cpu_bound_runs,
                t.summary.runs
            );
        }
        head.push_str("</tbody></table>");
        // Throughput against the setting, one chart per test, with the clock reached.
        let figures: Vec<sweep::SettingFigure<'_>> = b
            .tests
            .iter()
            .map(|t| sweep::SettingFigure {
                test: &t.summary.test,
                setting: &t.summary.setting,
                value: t.median_mbit_s,
                reached_mhz: b
                    .rows
                    .iter()
                    .find(|r| {
                        r.run.test == t.summary.test && r.run.setting == t.summary.setting && !r.run.reached_mhz.is_empty()
                    })
                    .map_or(&[][..], |r| &r.run.reached_mhz),
            })
            .collect();
        head.push_str(&sweep::setting_bars(&figures, "Mbit/s", 0));
        for v in b.sweep.verdicts.iter().chain(b.sweep.sweep_note.iter()) {
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
                t.summary.test,
                t.summary.setting,
                mbit(t.median_mbit_s),
                t.summary.spread_pct.map_or("-".into(), |s| format!("{s:.1} %")),
                t.summary.cpu_bound_runs,
                t.summary.runs
            );
        }
        o
    }
}
