//! The `io` kind (`truebench io`): what holds the target, a row per test, repeat and setting
//! (MB/s, IOPS, CPU per I/O, latency, busiest core, clock reached, CPU-bound), the median per
//! test and setting, and the sweep's verdict.

use std::fmt::Write;

use truebench_model::{IoBody, View};

use super::interactivity::findings_tail;
use super::sweep;
use super::{Figures, Render};
use crate::report::svg::esc;
use crate::text::{detailed_log_for, header_for};

type IView<'a> = View<'a, IoBody>;

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// What the target is and what holds it.
pub fn target_line(b: &IoBody) -> String {
    let mut o = format!(
        "{} ({}, {} MiB read)",
        b.target,
        b.target_kind,
        b.size_bytes >> 20
    );
    if let Some(s) = &b.storage {
        let _ = write!(
            o,
            " on {} ({}{}{}{}{})",
            s.device,
            s.kind.as_deref().unwrap_or("unknown kind"),
            s.driver
                .as_ref()
                .map(|d| format!(", driver {d}"))
                .unwrap_or_default(),
            s.usb_mbit_s
                .map(|u| format!(", USB {u} Mbit/s"))
                .unwrap_or_default(),
            s.scheduler
                .as_ref()
                .map(|d| format!(", scheduler {d}"))
                .unwrap_or_default(),
            s.read_ahead_kb
                .map(|k| format!(", read-ahead {k} KiB"))
                .unwrap_or_default()
        );
    } else {
        o.push_str(" on no block device (tmpfs or a network filesystem?)");
    }
    o
}

pub fn table(b: &IoBody) -> String {
    let mut o = format!(
        "{:<16} {:<10} {:>3} {:<11} {:>10} {:>9} {:>8} {:>13}  {:<38} {}\n",
        "Setting",
        "Test",
        "#",
        "Status",
        "MB/s",
        "IOPS",
        "CPU µs",
        "p50/p99 µs",
        "Busiest core",
        "Verdict"
    );
    for r in &b.rows {
        let lat = match (r.latency_p50_us, r.latency_p99_us) {
            (Some(a), Some(b)) => format!("{a:.0}/{b:.0}"),
            _ => "-".into(),
        };
        let _ = writeln!(
            o,
            "{:<16} {:<10} {:>3} {:<11} {:>10} {:>9} {:>8} {:>13}  {:<38} {}{}{}",
            r.setting,
            r.test,
            r.repeat,
            r.evidence.shown(),
            num(r.mb_s, 1),
            num(r.iops, 0),
            num(r.cpu_us_per_io, 1),
            lat,
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
            let _ = writeln!(o, "{:<17}{why}", "");
        }
    }
    o
}

impl Render for IoBody {
    fn summary(r: IView<'_>) -> String {
        let b = r.body;
        let mut o = format!(
            "\nReads of {}\n{} s per test, {} repeat(s) in alternating order; MB/s = 10^6 bytes/s; cached = page cache (hdparm -T), sequential = 2 MiB O_DIRECT (hdparm -t --direct), random = 4 KiB O_DIRECT at queue depth 1 (fio psync).\n",
            target_line(b),
            b.duration_s,
            b.repeat
        );
        for w in b.warnings.iter().chain(b.sweep_note.iter()) {
            let _ = writeln!(o, "Warning: {w}");
        }
        o.push('\n');
        o.push_str(&table(b));
        o.push_str("\nPer test (median of the completed repeats):\n");
        for t in &b.tests {
            let _ = writeln!(
                o,
                "  {:<16} {:<10} {:>10} MB/s {:>9} IOPS{}",
                t.setting,
                t.test,
                num(t.median_mb_s, 1),
                num(t.median_iops, 0),
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

    fn detailed_log(r: IView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, "io (storage reads and their CPU cost)"),
            &Self::summary(r),
        )
    }

    fn html_sections(r: IView<'_>) -> (String, String) {
        let b = r.body;
        let mut head = format!(
            "<section><h2>Storage reads</h2><p>{}</p>",
            esc(&target_line(b))
        );
        for w in b.warnings.iter().chain(b.sweep_note.iter()) {
            let _ = write!(head, "<p><b>Warning:</b> {}</p>", esc(w));
        }
        head.push_str("<table class=\"num\"><thead><tr><th>Setting</th><th>Test</th><th>#</th><th>Status</th><th>MB/s</th><th>IOPS</th><th>CPU µs per I/O</th><th>Latency p50/p99 (µs)</th><th>Busiest core</th><th>Clock reached (MHz)</th><th>Verdict</th><th>Marks</th></tr></thead><tbody>");
        for row in &b.rows {
            let _ = write!(
                head,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} / {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&row.setting),
                esc(row.test.as_str()),
                row.repeat,
                row.evidence.shown(),
                num(row.mb_s, 1),
                num(row.iops, 0),
                num(row.cpu_us_per_io, 1),
                num(row.latency_p50_us, 0),
                num(row.latency_p99_us, 0),
                esc(&sweep::busiest(&row.cores)),
                esc(&sweep::reached(&row.reached_mhz)),
                esc(&sweep::verdict(&row.cpu_bound, row.evidence.status)),
                esc(&sweep::marks(&row.evidence.marks, row.evidence.invalid.as_deref()))
            );
        }
        head.push_str("</tbody></table><h3>Throughput per setting</h3><table class=\"num\"><thead><tr><th>Test</th><th>Setting</th><th>MB/s (median)</th><th>IOPS</th><th>Spread</th><th>Clock reached (MHz)</th></tr></thead><tbody>");
        for t in &b.tests {
            let clock = b
                .rows
                .iter()
                .find(|r| r.test == t.test && r.setting == t.setting && !r.reached_mhz.is_empty())
                .map_or("-".into(), |r| sweep::reached(&r.reached_mhz));
            let _ = write!(
                head,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(t.test.as_str()),
                esc(&t.setting),
                num(t.median_mb_s, 1),
                num(t.median_iops, 0),
                t.spread_pct.map_or("-".into(), |s| format!("{s:.1} %")),
                esc(&clock)
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
                value: t.median_mb_s,
                reached_mhz: b
                    .rows
                    .iter()
                    .find(|r| {
                        r.test == t.test && r.setting == t.setting && !r.reached_mhz.is_empty()
                    })
                    .map_or(&[][..], |r| &r.reached_mhz),
            })
            .collect();
        head.push_str(&sweep::setting_bars(&figures, "MB/s", 1));
        for v in &b.verdicts {
            let _ = write!(head, "<p>{}</p>", esc(v));
        }
        head.push_str("</section>");
        (head, String::new())
    }

    fn html_fact(r: IView<'_>) -> (&'static str, String) {
        ("Storage", Self::label(r))
    }

    fn markdown(r: IView<'_>) -> String {
        let mut o = String::from(
            "| Test | Setting | MB/s (median) | IOPS | Spread |\n| --- | --- | ---: | ---: | ---: |\n",
        );
        for t in &r.body.tests {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} |",
                t.test,
                t.setting,
                num(t.median_mb_s, 1),
                num(t.median_iops, 0),
                t.spread_pct.map_or("-".into(), |s| format!("{s:.1} %"))
            );
        }
        o
    }
}
