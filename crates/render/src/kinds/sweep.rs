//! What the `net` and `io` renderers share: every column but the kind's figures — setting,
//! test, repeat, status, busiest core, the CPU-bound verdict, the clock reached, marks — in
//! the text table, the HTML tables and the Markdown, the per-test lines, and the chart of a
//! figure against the sweep's settings. A kind says what differs in its [`SweepTable`].

use std::fmt::Write;

use truebench_model::sweep::{CoreLoad, CpuBound, SweepBody, SweepRow, SweepSummary, TestSummary};
use truebench_model::PhaseStatus;

use crate::report::svg::{bars, cluster_colour, esc, Bar};

/// What a sweeping kind's tables show of its own: its figure columns, their widths and the
/// few columns only one kind has.
pub trait SweepTable: SweepBody {
    /// The headline figure's unit (`Mbit/s`) and the digits it is shown with.
    const UNIT: &'static str;
    const DIGITS: usize;
    /// Width of the text table's busiest-core column, and the indent of a row's reason.
    const BUSIEST_WIDTH: usize;
    const REASON_INDENT: usize;
    /// The HTML row table's figure headings (`<th>…</th>…`).
    const HTML_HEADS: &'static str;
    /// Its per-core column: every core's load (else the busiest core).
    const EACH_CORE: bool;
    /// The per-setting table's median headings, and whether it (and the Markdown) counts
    /// the CPU-bound runs.
    const HTML_MEDIAN_HEADS: &'static str;
    const CPU_BOUND_RUNS: bool;
    /// The Markdown table's heading lines.
    const MARKDOWN_HEAD: &'static str;

    /// The text table's figure headings and a row's figures, aligned.
    fn text_heads() -> String;
    fn text_cells(row: &Self::Row) -> String;
    /// A test's medians on its text line (`       940 Mbit/s`).
    fn text_medians(t: &Self::Summary) -> String;
    /// A row's figure cells (`<td>…</td>…`).
    fn html_cells(row: &Self::Row) -> String;
    /// A test's median cells in HTML, and in Markdown (`| `-separated).
    fn html_medians(t: &Self::Summary) -> String;
    fn markdown_medians(t: &Self::Summary) -> String;
}

/// `940`, or `-` without a figure.
pub fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// `3.1 %`, or `-`.
fn spread<T>(t: &TestSummary<T>) -> String {
    t.spread_pct.map_or("-".into(), |s| format!("{s:.1} %"))
}

/// The text table: a row per test, repeat and setting.
pub fn table<B: SweepTable>(b: &B) -> String {
    let w = B::BUSIEST_WIDTH;
    let mut o = format!(
        "{:<16} {:<10} {:>3} {:<11} {}  {:<w$} {}\n",
        "Setting",
        "Test",
        "#",
        "Status",
        B::text_heads(),
        "Busiest core",
        "Verdict"
    );
    for r in b.rows() {
        let (run, e) = (r.run(), r.evidence());
        let _ = writeln!(
            o,
            "{:<16} {:<10} {:>3} {:<11} {}  {:<w$} {}{}{}",
            run.setting,
            run.test,
            run.repeat,
            e.shown(),
            B::text_cells(r),
            busiest(&run.cores),
            verdict(&run.cpu_bound, e.status),
            if run.reached_mhz.is_empty() {
                String::new()
            } else {
                format!("; clock reached {} MHz", reached(&run.reached_mhz))
            },
            if e.marks.is_empty() {
                String::new()
            } else {
                format!("  [{}]", e.marks.join(", "))
            }
        );
        if let Some(why) = &e.reason {
            let _ = writeln!(o, "{:<i$}{why}", "", i = B::REASON_INDENT);
        }
    }
    o
}

/// The table, then a line per test and setting with its medians (`what` the medians are
/// of), the verdicts and the findings.
pub fn summary_tail<B: SweepTable>(b: &B, what: &str, findings: &str) -> String {
    let mut o = table(b);
    let _ = writeln!(o, "\nPer test ({what}median of the completed repeats):");
    for t in b.tests() {
        let s = t.summary();
        let _ = writeln!(
            o,
            "  {:<16} {:<10} {}{}",
            s.setting,
            s.test,
            B::text_medians(t),
            runs_note(s.spread_pct, s.runs, s.cpu_bound_runs)
        );
    }
    for v in &b.sweep().verdicts {
        let _ = writeln!(o, "\n{v}");
    }
    o.push('\n');
    o.push_str(findings);
    o
}

/// The clock a test reached under its setting: its first row's that has one.
fn clock_of<'a, B: SweepBody>(
    b: &'a B,
    t: &'a TestSummary<<B::Row as SweepRow>::Test>,
) -> &'a [(String, f64)] {
    b.rows_of(t)
        .map(|r| &r.run().reached_mhz)
        .find(|r| !r.is_empty())
        .map_or(&[][..], |r| r)
}

/// The HTML tables: a row per test, repeat and setting; the medians per setting; a chart per
/// test of its median against the settings.
pub fn html_tables<B: SweepTable>(b: &B) -> String {
    let cores_head = if B::EACH_CORE {
        "Per core: busy (softirq / process) %"
    } else {
        "Busiest core"
    };
    let mut o = format!(
        "<table class=\"num\"><thead><tr><th>Setting</th><th>Test</th><th>#</th><th>Status</th>{}<th>{cores_head}</th><th>Clock reached (MHz)</th><th>Verdict</th><th>Marks</th></tr></thead><tbody>",
        B::HTML_HEADS
    );
    for row in b.rows() {
        let (run, e) = (row.run(), row.evidence());
        let cores = if B::EACH_CORE {
            each_core(&run.cores)
        } else {
            busiest(&run.cores)
        };
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&run.setting),
            esc(&run.test.to_string()),
            run.repeat,
            e.shown(),
            B::html_cells(row),
            esc(&cores),
            esc(&reached(&run.reached_mhz)),
            esc(&verdict(&run.cpu_bound, e.status)),
            esc(&marks(&e.marks, e.invalid.as_deref()))
        );
    }
    let _ = write!(
        o,
        "</tbody></table><h3>Throughput per setting</h3><table class=\"num\"><thead><tr><th>Test</th><th>Setting</th>{}<th>Spread</th><th>Clock reached (MHz)</th>{}</tr></thead><tbody>",
        B::HTML_MEDIAN_HEADS,
        if B::CPU_BOUND_RUNS { "<th>CPU-bound</th>" } else { "" }
    );
    for t in b.tests() {
        let s = t.summary();
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td>",
            esc(&s.test.to_string()),
            esc(&s.setting),
            B::html_medians(t),
            spread(s),
            esc(&reached(clock_of(b, s)))
        );
        if B::CPU_BOUND_RUNS {
            let _ = write!(o, "<td>{} of {}</td>", s.cpu_bound_runs, s.runs);
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>");
    let names: Vec<String> = b
        .tests()
        .iter()
        .map(|t| t.summary().test.to_string())
        .collect();
    let figures: Vec<SettingFigure<'_>> = b
        .tests()
        .iter()
        .zip(&names)
        .map(|(t, test)| SettingFigure {
            test,
            setting: &t.summary().setting,
            value: t.headline_median(),
            reached_mhz: clock_of(b, t.summary()),
        })
        .collect();
    o.push_str(&setting_bars(&figures, B::UNIT, B::DIGITS));
    o
}

/// The Markdown table of the medians per test and setting.
pub fn markdown<B: SweepTable>(b: &B) -> String {
    let mut o = String::from(B::MARKDOWN_HEAD);
    for t in b.tests() {
        let s = t.summary();
        let _ = write!(
            o,
            "| {} | {} | {} | {} |",
            s.test,
            s.setting,
            B::markdown_medians(t),
            spread(s)
        );
        if B::CPU_BOUND_RUNS {
            let _ = write!(o, " {} of {} |", s.cpu_bound_runs, s.runs);
        }
        o.push('\n');
    }
    o
}

/// `cpu0 50 (20 / 30), cpu1 97 (60 / 37)`: every core's busy share (softirq / process), %.
fn each_core(cores: &[CoreLoad]) -> String {
    let each: Vec<String> = cores
        .iter()
        .map(|c| {
            format!(
                "cpu{} {:.0} ({:.0} / {:.0})",
                c.cpu, c.busy_pct, c.softirq_pct, c.process_pct
            )
        })
        .collect();
    each.join(", ")
}

/// ` (spread 3.1 % over 3 runs), CPU-bound in 2 of 3` after a test's median.
pub fn runs_note(spread_pct: Option<f64>, runs: u32, cpu_bound_runs: u32) -> String {
    let mut o = spread_pct
        .map(|s| format!(" (spread {s:.1} % over {runs} runs)"))
        .unwrap_or_default();
    if cpu_bound_runs > 0 {
        o.push_str(&format!(", CPU-bound in {cpu_bound_runs} of {runs}"));
    }
    o
}

/// `cpu1 97 % (softirq 60, process 37)`, or `-` without per-core readings.
pub fn busiest(cores: &[CoreLoad]) -> String {
    cores
        .iter()
        .max_by(|a, b| a.busy_pct.total_cmp(&b.busy_pct))
        .map_or("-".into(), |c| {
            format!(
                "cpu{} {:.0} % (softirq {:.0}, process {:.0})",
                c.cpu, c.busy_pct, c.softirq_pct, c.process_pct
            )
        })
}

/// The row's verdict: CPU-bound (which core, by what), not CPU-bound, or its status.
pub fn verdict(cpu_bound: &Option<CpuBound>, status: PhaseStatus) -> String {
    match cpu_bound {
        Some(v) => format!(
            "CPU-bound: cpu{} {:.0} % busy, by {}",
            v.cpu, v.busy_pct, v.by
        ),
        None if status == PhaseStatus::Ok => "not CPU-bound".into(),
        None => status.to_string(),
    }
}

/// The marks of a row, with what made it invalid first: `INVALID (throttling); swapping`.
pub fn marks(marks: &[String], invalid: Option<&str>) -> String {
    let list = marks.join(", ");
    match invalid {
        Some(why) if list.is_empty() => format!("INVALID ({why})"),
        Some(why) => format!("INVALID ({why}); {list}"),
        None => list,
    }
}

/// `policy0 1800, policy4 2400` (MHz), or `-`.
pub fn reached(mhz: &[(String, f64)]) -> String {
    if mhz.is_empty() {
        return "-".into();
    }
    mhz.iter()
        .map(|(p, m)| format!("{p} {m:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One test's median under one setting, with the clock it reached.
pub struct SettingFigure<'a> {
    pub test: &'a str,
    pub setting: &'a str,
    pub value: Option<f64>,
    pub reached_mhz: &'a [(String, f64)],
}

/// One bar chart per test of its median against the settings (only where there are two or
/// more settings to compare).
pub fn setting_bars(figures: &[SettingFigure<'_>], unit: &str, digits: usize) -> String {
    let mut names: Vec<&str> = Vec::new();
    for f in figures {
        if !names.contains(&f.test) {
            names.push(f.test);
        }
    }
    let mut o = String::new();
    for (k, name) in names.iter().enumerate() {
        let rows: Vec<Bar> = figures
            .iter()
            .filter(|f| f.test == *name)
            .filter_map(|f| {
                let v = f.value?;
                let clock = if f.reached_mhz.is_empty() {
                    String::new()
                } else {
                    format!(" · {} MHz", reached(f.reached_mhz))
                };
                Some(Bar {
                    label: f.setting.into(),
                    value: v,
                    colour: cluster_colour(k).into(),
                    text: format!("{v:.digits$} {unit}{clock}"),
                })
            })
            .collect();
        if rows.len() > 1 {
            o.push_str(&bars(&format!("{name}: {unit} per setting"), &rows));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_chart_per_test_with_two_settings_or_more() {
        let clock = vec![("policy0".to_string(), 1800.0)];
        let f = |test, setting, value| SettingFigure {
            test,
            setting,
            value,
            reached_mhz: &clock,
        };
        let html = setting_bars(
            &[
                f("upload", "as is", Some(900.0)),
                f("upload", "max", Some(950.0)),
                f("download", "as is", Some(800.0)),
            ],
            "Mbit/s",
            0,
        );
        assert!(html.contains("upload: Mbit/s per setting"));
        assert!(html.contains("950 Mbit/s · policy0 1800 MHz"));
        assert!(
            !html.contains("download: Mbit/s per setting"),
            "one setting: no chart"
        );
        assert_eq!(reached(&[]), "-");
        assert_eq!(verdict(&None, PhaseStatus::Failed), "failed");
        assert_eq!(busiest(&[]), "-");
    }
}
