//! The `io` kind (`truebench io`): what holds the target, a row per test, repeat and setting
//! (MB/s, IOPS, CPU per I/O, latency; the columns every sweeping kind has from `sweep.rs`),
//! the median per test and setting, and the sweep's verdict.

use std::fmt::Write;

use truebench_model::io::{IoRow, IoTestSummary};
use truebench_model::{IoBody, View};

use super::interactivity::findings_tail;
use super::sweep::{self, num, SweepTable};
use super::{Figures, Render};
use crate::report::svg::esc;
use crate::text::{detailed_log_for, header_for};

type IView<'a> = View<'a, IoBody>;

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

impl SweepTable for IoBody {
    const UNIT: &'static str = "MB/s";
    const DIGITS: usize = 1;
    const BUSIEST_WIDTH: usize = 38;
    const REASON_INDENT: usize = 17;
    const HTML_HEADS: &'static str =
        "<th>MB/s</th><th>IOPS</th><th>CPU µs per I/O</th><th>Latency p50/p99 (µs)</th>";
    const EACH_CORE: bool = false;
    const HTML_MEDIAN_HEADS: &'static str = "<th>MB/s (median)</th><th>IOPS</th>";
    const CPU_BOUND_RUNS: bool = false;
    const MARKDOWN_HEAD: &'static str =
        "| Test | Setting | MB/s (median) | IOPS | Spread |\n| --- | --- | ---: | ---: | ---: |\n";

    fn text_heads() -> String {
        format!(
            "{:>10} {:>9} {:>8} {:>13}",
            "MB/s", "IOPS", "CPU µs", "p50/p99 µs"
        )
    }

    fn text_cells(r: &IoRow) -> String {
        let lat = match (r.latency_p50_us, r.latency_p99_us) {
            (Some(a), Some(b)) => format!("{a:.0}/{b:.0}"),
            _ => "-".into(),
        };
        format!(
            "{:>10} {:>9} {:>8} {:>13}",
            num(r.mb_s, 1),
            num(r.iops, 0),
            num(r.cpu_us_per_io, 1),
            lat
        )
    }

    fn text_medians(t: &IoTestSummary) -> String {
        format!(
            "{:>10} MB/s {:>9} IOPS",
            num(t.median_mb_s, 1),
            num(t.median_iops, 0)
        )
    }

    fn html_cells(r: &IoRow) -> String {
        format!(
            "<td>{}</td><td>{}</td><td>{}</td><td>{} / {}</td>",
            num(r.mb_s, 1),
            num(r.iops, 0),
            num(r.cpu_us_per_io, 1),
            num(r.latency_p50_us, 0),
            num(r.latency_p99_us, 0)
        )
    }

    fn html_medians(t: &IoTestSummary) -> String {
        format!(
            "<td>{}</td><td>{}</td>",
            num(t.median_mb_s, 1),
            num(t.median_iops, 0)
        )
    }

    fn markdown_medians(t: &IoTestSummary) -> String {
        format!("{} | {}", num(t.median_mb_s, 1), num(t.median_iops, 0))
    }
}

impl Render for IoBody {
    fn summary(r: IView<'_>) -> String {
        let b = r.body;
        let mut o = format!(
            "\nReads of {}\n{} s per test, {} repeat(s) in alternating order; MB/s = 10^6 bytes/s; cached = page cache (hdparm -T), sequential = 2 MiB O_DIRECT (hdparm -t --direct), random = 4 KiB O_DIRECT at queue depth 1 (fio psync).\n",
            target_line(b),
            b.sweep.duration_s,
            b.sweep.repeat
        );
        for w in b.warnings.iter().chain(b.sweep.sweep_note.iter()) {
            let _ = writeln!(o, "Warning: {w}");
        }
        o.push('\n');
        o.push_str(&sweep::summary_tail(b, "", &findings_tail(r.envelope)));
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
        for w in b.warnings.iter().chain(b.sweep.sweep_note.iter()) {
            let _ = write!(head, "<p><b>Warning:</b> {}</p>", esc(w));
        }
        head.push_str(&sweep::html_tables(b));
        for v in &b.sweep.verdicts {
            let _ = write!(head, "<p>{}</p>", esc(v));
        }
        head.push_str("</section>");
        (head, String::new())
    }

    fn html_fact(r: IView<'_>) -> (&'static str, String) {
        ("Storage", Self::label(r))
    }

    fn markdown(r: IView<'_>) -> String {
        sweep::markdown(r.body)
    }
}
