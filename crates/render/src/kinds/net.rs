//! The `net` kind (`truebench net --connect`): a row per test and repeat (throughput each way;
//! the columns every sweeping kind has — the busiest core and what kept it busy, the verdict
//! "CPU-bound" — from `sweep.rs`), the median per test, and in the HTML page the throughput
//! per test with each core's load.

use std::fmt::Write;

use truebench_model::net::{NetRow, NetTestSummary};
use truebench_model::{NetBody, View};

use super::interactivity::findings_tail;
use super::sweep::{self, num, SweepTable};
use super::{Figures, Render};
use crate::report::svg::esc;
use crate::text::{detailed_log_for, header_for};

type NView<'a> = View<'a, NetBody>;

impl SweepTable for NetBody {
    const UNIT: &'static str = "Mbit/s";
    const DIGITS: usize = 0;
    const BUSIEST_WIDTH: usize = 40;
    const REASON_INDENT: usize = 15;
    const HTML_HEADS: &'static str = "<th>Sent (Mbit/s)</th><th>Received (Mbit/s)</th>";
    const EACH_CORE: bool = true;
    const HTML_MEDIAN_HEADS: &'static str = "<th>Mbit/s (median)</th>";
    const CPU_BOUND_RUNS: bool = true;
    // Without the Setting column its rows have: kept as it has always been written.
    const MARKDOWN_HEAD: &'static str =
        "| Test | Mbit/s (median) | Spread | CPU-bound |\n| --- | ---: | ---: | ---: |\n";

    fn text_heads() -> String {
        format!("{:>12} {:>12}", "Sent Mbit/s", "Recv Mbit/s")
    }

    fn text_cells(r: &NetRow) -> String {
        format!(
            "{:>12} {:>12}",
            num(r.sent_mbit_s, 0),
            num(r.received_mbit_s, 0)
        )
    }

    fn text_medians(t: &NetTestSummary) -> String {
        format!("{:>10} Mbit/s", num(t.median_mbit_s, 0))
    }

    fn html_cells(r: &NetRow) -> String {
        format!(
            "<td>{}</td><td>{}</td>",
            num(r.sent_mbit_s, 0),
            num(r.received_mbit_s, 0)
        )
    }

    fn html_medians(t: &NetTestSummary) -> String {
        format!("<td>{}</td>", num(t.median_mbit_s, 0))
    }

    fn markdown_medians(t: &NetTestSummary) -> String {
        num(t.median_mbit_s, 0)
    }
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
        o.push_str(&sweep::summary_tail(
            b,
            "sent + received, ",
            &findings_tail(r.envelope),
        ));
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
            b.sweep.duration_s,
            b.sweep.repeat,
            b.sweep.cpu_bound_pct
        );
        head.push_str(&sweep::html_tables(b));
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
        sweep::markdown(r.body)
    }
}
