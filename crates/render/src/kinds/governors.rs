//! The `governors` kind (`truebench governors`): a table per governor run (miss ratio,
//! efficiency, clocks, energy, marks), the miss ratio per utilisation level, and in the HTML
//! page the miss ratio against U per governor (clocks over time are the page's timeline, one
//! band per governor).

use std::fmt::Write;

use truebench_model::governors::{GovernorPhase, GovernorRow};
use truebench_model::{GovernorsBody, View};

use super::interactivity::findings_tail;
use super::{Figures, Render};
use crate::report::svg::{cluster_colour, esc, LineChart, Series};
use crate::text::{detailed_log_for, header_for};

type GView<'a> = View<'a, GovernorsBody>;

/// A set's duration: `0.5 s`, `30 s`, `2 min 0 s`.
fn set_secs(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.1} s")
    } else {
        crate::text::human_duration(s)
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{:.2} %", x * 100.0))
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// `governor` or `governor #2` when repeated.
fn name(b: &GovernorsBody, r: &GovernorRow) -> String {
    if b.repeat > 1 {
        format!("{} #{}", r.governor, r.repeat)
    } else {
        r.governor.clone()
    }
}

fn clocks(r: &GovernorRow) -> String {
    let c: Vec<String> = r
        .clocks
        .iter()
        .filter_map(|c| {
            c.mean_mhz
                .map(|m| format!("c{} {m:.0} (p10 {})", c.cluster, opt(c.p10_mhz, 0)))
        })
        .collect();
    if c.is_empty() {
        "-".into()
    } else {
        c.join(", ")
    }
}

/// The table of governor runs.
pub fn table(b: &GovernorsBody) -> String {
    let mut o = format!(
        "{:<16} {:<11} {:>22} {:>9} {:>10} {:>11} {:>6}  {}\n",
        "Governor",
        "Status",
        "Miss ratio",
        "Work time",
        "Efficiency",
        "Slack p1",
        "Max °C",
        "Clock MHz (mean)"
    );
    for r in &b.rows {
        let _ = writeln!(
            o,
            "{:<16} {:<11} {:>22} {:>9} {:>10} {:>11} {:>6}  {}{}{}",
            name(b, r),
            r.evidence.shown(),
            format!("{} ({}/{})", pct(r.miss_ratio), r.negative, r.periods),
            opt(r.work_time_ratio, 3),
            opt(r.efficiency, 2),
            r.slack_p1_us
                .map_or("-".into(), |v| format!("{:.1} ms", v / 1000.0)),
            opt(r.max_temp_c, 1),
            clocks(r),
            energy(r),
            if r.evidence.marks.is_empty() {
                String::new()
            } else {
                format!("  [{}]", r.evidence.marks.join(", "))
            }
        );
        if let Some(why) = &r.evidence.reason {
            let _ = writeln!(o, "{:<17}{why}", "");
        }
        if let Some(d) = &r.deepest_idle {
            let _ = writeln!(
                o,
                "{:<17}deepest idle state entered: {}{}",
                "",
                d.state,
                d.exit_latency_us
                    .map(|l| format!(" ({l} µs)"))
                    .unwrap_or_default()
            );
        }
        if let Some(v) = truebench_monitor_core::idle_latency::governor_row(r) {
            let _ = writeln!(o, "{:<17}{v}", "");
        }
    }
    o
}

/// A summary's spreads as shown: miss ratio in percentage points, work time in %.
fn spreads(s: &truebench_model::governors::GovernorSummary) -> (String, String) {
    (
        s.miss_ratio_spread
            .map_or("-".into(), |x| format!("{:.2} pp", x * 100.0)),
        s.work_time_ratio_spread_pct
            .map_or("-".into(), |x| format!("{x:.1} %")),
    )
}

/// With `--repeat`: per governor, the median of its valid repeats and their spread.
pub fn repeats(b: &GovernorsBody) -> String {
    if b.repeat < 2 || b.summary.is_empty() {
        return String::new();
    }
    let mut o = format!(
        "Median of the valid repeats (spread = largest − smallest):\n{:<16} {:>5} {:>12} {:>12} {:>10} {:>10} {:>11}\n",
        "Governor", "Runs", "Miss ratio", "spread", "Work time", "spread", "Work per J"
    );
    for s in &b.summary {
        let (miss, work) = spreads(s);
        let _ = writeln!(
            o,
            "{:<16} {:>5} {:>12} {:>12} {:>10} {:>10} {:>11}{}",
            s.governor,
            s.runs,
            pct(s.median_miss_ratio),
            miss,
            opt(s.median_work_time_ratio, 3),
            work,
            s.median_work_ms_per_j
                .map_or("-".into(), |x| format!("{x:.1} ms/J")),
            if s.invalid_runs > 0 {
                format!("  ({} invalid run(s) left out)", s.invalid_runs)
            } else {
                String::new()
            }
        );
    }
    o
}

/// Miss ratio per utilisation level, one column per governor run.
pub fn levels(b: &GovernorsBody) -> String {
    let mut o = format!("{:<8}", "U");
    for r in &b.rows {
        let _ = write!(o, "{:>16}", name(b, r));
    }
    o.push('\n');
    for (i, u) in b.utilisations.iter().enumerate() {
        let _ = write!(o, "{u:<8.2}");
        for r in &b.rows {
            let _ = write!(
                o,
                "{:>16}",
                pct(r.per_level.get(i).and_then(|l| l.miss_ratio))
            );
        }
        o.push('\n');
    }
    o
}

/// Each cluster's clock over the study, raw and as a 5-sample moving average (the study's
/// plots), one band per governor run.
fn clock_chart(r: GView<'_>) -> String {
    let tl = &r.envelope.timeline;
    let n = tl
        .samples
        .iter()
        .map(|s| s.cluster_mhz.len())
        .max()
        .unwrap_or(0);
    if n == 0 {
        return String::new();
    }
    let mut chart = LineChart::new(
        "Clock per cluster (raw, and 5-sample moving average)",
        "time (s)",
        "MHz",
    );
    chart.bands = tl
        .phases
        .iter()
        .filter_map(|p| {
            let run: GovernorPhase = p.name.parse().ok()?;
            Some((p.start, p.end.unwrap_or(p.start), run.label()))
        })
        .collect();
    for c in 0..n {
        let raw: Vec<(f64, Option<f64>)> = tl
            .samples
            .iter()
            .map(|s| (s.t, s.cluster_mhz.get(c).copied().flatten().map(f64::from)))
            .collect();
        let avg: Vec<(f64, Option<f64>)> = (0..raw.len())
            .map(|i| {
                let w: Vec<f64> = raw[i.saturating_sub(4)..=i]
                    .iter()
                    .filter_map(|x| x.1)
                    .collect();
                (
                    raw[i].0,
                    (!w.is_empty()).then(|| w.iter().sum::<f64>() / w.len() as f64),
                )
            })
            .collect();
        let mut a = Series::new(&format!("cluster {c}"), cluster_colour(c), "MHz", raw);
        a.dashed = true;
        chart.series.push(a);
        chart.series.push(Series::new(
            &format!("cluster {c}, moving average"),
            cluster_colour(c),
            "MHz",
            avg,
        ));
    }
    chart.width = 760.0;
    chart.render()
}

impl Render for GovernorsBody {
    fn summary(r: GView<'_>) -> String {
        let b = r.body;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "\n{} task sets ({} per level × {} levels, {} tasks each, {} of U, periods {}–{} ms log-uniform, seed {}), {} each; work: {} ({} loops per ms, {}).",
            b.utilisations.len() as u32 * b.sets_per_level,
            b.sets_per_level,
            b.utilisations.len(),
            b.tasks_per_set,
            b.split,
            b.period_ms[0],
            b.period_ms[1],
            b.seed,
            set_secs(b.set_duration_s),
            b.work,
            b.calibration.loops_per_ms,
            b.calibration.source
        );
        if let Some(n) = &b.switch_note {
            let _ = writeln!(o, "{n}");
        }
        if let Some(c) = &b.cooling {
            let _ = writeln!(o, "{c}");
        }
        o.push_str("Miss ratio = negative slacks / all slacks; work time = the work's CPU time / its time at the calibration clock; efficiency = (powersave − governor) / (powersave − performance) of the work time.\n\n");
        o.push_str(&table(b));
        let rep = repeats(b);
        if !rep.is_empty() {
            o.push('\n');
            o.push_str(&rep);
        }
        o.push_str("\nMiss ratio per utilisation (U in CPUs):\n");
        o.push_str(&levels(b));
        o.push('\n');
        o.push_str(&findings_tail(r.envelope));
        o
    }

    fn detailed_log(r: GView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, "governors (frequency-scaling efficiency)"),
            &Self::summary(r),
        )
    }

    fn html_sections(r: GView<'_>) -> (String, String) {
        let b = r.body;
        let mut head = format!(
            "<section><h2>Governors</h2><p>{} task sets of {} tasks, {} each, seed {}; work: {}. Miss ratio = negative slacks / all slacks.{}</p>",
            b.utilisations.len() as u32 * b.sets_per_level,
            b.tasks_per_set,
            esc(&set_secs(b.set_duration_s)),
            b.seed,
            esc(b.work.as_str()),
            b.switch_note
                .as_ref()
                .map(|n| format!(" {}", esc(n)))
                .unwrap_or_default()
        );
        let mut chart = LineChart::new(
            "Miss ratio against utilisation",
            "utilisation (CPUs)",
            "miss ratio (%)",
        );
        chart.y_min = Some(0.0);
        // Governors whose lines coincide (within 0.1 points at every level) are one line
        // named for all of them: six lines drawn on each other read as one.
        type Line = Vec<(f64, Option<f64>)>;
        let mut groups: Vec<(Vec<String>, Line)> = Vec::new();
        for row in &b.rows {
            let pts: Vec<(f64, Option<f64>)> = row
                .per_level
                .iter()
                .map(|l| (l.utilisation, l.miss_ratio.map(|m| m * 100.0)))
                .collect();
            let same = |g: &[(f64, Option<f64>)]| {
                g.len() == pts.len()
                    && g.iter().zip(&pts).all(|(a, b)| {
                        a.0 == b.0
                            && match (a.1, b.1) {
                                (Some(x), Some(y)) => (x - y).abs() <= 0.1,
                                (None, None) => true,
                                _ => false,
                            }
                    })
            };
            match groups.iter_mut().find(|g| same(&g.1)) {
                Some(g) => g.0.push(name(b, row)),
                None => groups.push((vec![name(b, row)], pts)),
            }
        }
        for (i, (names, pts)) in groups.into_iter().enumerate() {
            let mut s = Series::new(&names.join(" = "), cluster_colour(i), "%", pts);
            s.markers = true;
            chart.series.push(s);
        }
        head.push_str(&chart.render());
        head.push_str(&clock_chart(r));
        head.push_str("<table><thead><tr><th>Governor</th><th>Status</th><th>Miss ratio</th><th>Work time</th><th>Efficiency</th><th>Slack p1 (ms)</th><th>Max °C</th><th>Clock (MHz)</th><th>Energy (J)</th><th>Work per J (ms)</th><th>Marks</th></tr></thead><tbody>");
        for row in &b.rows {
            let _ = write!(
                head,
                "<tr><td>{}</td><td>{}</td><td>{} ({}/{})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&name(b, row)),
                row.evidence.shown(),
                pct(row.miss_ratio),
                row.negative,
                row.periods,
                opt(row.work_time_ratio, 3),
                opt(row.efficiency, 2),
                opt(row.slack_p1_us.map(|v| v / 1000.0), 1),
                opt(row.max_temp_c, 1),
                esc(&clocks(row)),
                opt(row.energy_j, 1),
                opt(row.work_ms_per_j, 1),
                esc(&row.evidence.marks.join(", "))
            );
        }
        head.push_str("</tbody></table>");
        if b.repeat > 1 && !b.summary.is_empty() {
            head.push_str("<h3>Median of the valid repeats</h3><table><thead><tr><th>Governor</th><th>Runs</th><th>Miss ratio</th><th>Spread</th><th>Work time</th><th>Spread</th><th>Work per J (ms)</th><th>Left out</th></tr></thead><tbody>");
            for s in &b.summary {
                let (miss, work) = spreads(s);
                let _ = write!(
                    head,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(&s.governor),
                    s.runs,
                    pct(s.median_miss_ratio),
                    miss,
                    opt(s.median_work_time_ratio, 3),
                    work,
                    opt(s.median_work_ms_per_j, 1),
                    if s.invalid_runs > 0 {
                        format!("{} invalid", s.invalid_runs)
                    } else {
                        String::new()
                    }
                );
            }
            head.push_str("</tbody></table>");
        }
        head.push_str("</section>");
        (head, String::new())
    }

    fn html_fact(r: GView<'_>) -> (&'static str, String) {
        ("Governors", Self::label(r))
    }

    fn markdown(r: GView<'_>) -> String {
        let b = r.body;
        let mut o = String::from(
            "| Governor | Miss ratio | Work time | Efficiency | Max °C | Energy (J) | Work per J (ms) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for row in &b.rows {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} |",
                name(b, row),
                pct(row.miss_ratio),
                opt(row.work_time_ratio, 3),
                opt(row.efficiency, 2),
                opt(row.max_temp_c, 1),
                opt(row.energy_j, 1),
                opt(row.work_ms_per_j, 1)
            );
        }
        o
    }
}

/// `, 812.4 J, 3.1 ms/J` after the clocks of a row with energy.
fn energy(r: &GovernorRow) -> String {
    match (r.energy_j, r.work_ms_per_j) {
        (Some(e), Some(w)) => format!(", {e:.1} J, {w:.1} ms of work/J"),
        (Some(e), None) => format!(", {e:.1} J"),
        _ => String::new(),
    }
}
