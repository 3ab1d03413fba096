//! The HTML report: one self-contained file (inline CSS and SVG, no script, no request to
//! anywhere) with the summary, the verdicts and their evidence, the timeline of every phase
//! (clock per cluster, temperature, %cpu), measured vs advertised clocks, throttling
//! statistics, the AES table and the memory latency curve.
//!
//! Cluster colours are the same in every chart. Tooltips are SVG `<title>`s; evidence sits in
//! `<details>` blocks, so nothing needs JavaScript.

mod columns;
mod run;
pub mod svg;

use std::fmt::Write;

use truebench_model::finding::{Finding, FindingKind, Severity};

use truebench_model::timeline::Sample;

use crate::kinds::run::metrics;
use svg::{bars, cluster_colour, esc, num, Bar, LineChart, Series};
use truebench_model::*;
use truebench_sbcbench::convert::{import_source, is_imported};

pub const CSS: &str = include_str!("style.css");

fn h(o: &mut String, s: &str) {
    o.push_str(s);
}

/// A wide chart keeps a readable size on a phone: the reader scrolls it sideways.
fn wide(chart: &str) -> String {
    format!("<div class=\"scroll\"><div class=\"wide\">{chart}</div></div>")
}

fn device<B>(r: View<'_, B>) -> String {
    r.envelope
        .inventory
        .device
        .clone()
        .or_else(|| r.envelope.hostname.clone())
        .unwrap_or_else(|| "Unknown device".into())
}

fn cluster_name<B>(r: View<'_, B>, c: usize) -> String {
    match r.envelope.inventory.clusters.get(c) {
        Some(cl) => match &cl.core_type {
            Some(t) => format!("{} · {t}", cl.cpu_range()),
            None => cl.cpu_range(),
        },
        None => r
            .envelope
            .timeline
            .header
            .clusters
            .get(c)
            .cloned()
            .unwrap_or_else(|| format!("cluster {c}")),
    }
}

fn sev_class(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "crit",
        Severity::Warning => "warn",
        Severity::Info => "info",
    }
}

// ---------------------------------------------------------------------------------------
// sections

fn header<B>(o: &mut String, r: View<'_, B>, kind: (&str, String)) {
    let (badge, class) = if !r.envelope.complete {
        ("INCOMPLETE", "crit")
    } else if !r.envelope.valid {
        ("INVALID", "crit")
    } else if !r.envelope.comparable {
        ("VALID · QUICK", "warn")
    } else {
        ("VALID", "ok")
    };
    let soc = r
        .envelope
        .inventory
        .soc
        .as_ref()
        .map(|s| s.name.clone())
        .unwrap_or_default();
    let _ = write!(
        o,
        "<header><div class=\"title\"><h1>{}</h1><span class=\"badge {class}\">{badge}</span></div><p class=\"sub\">{}</p>",
        esc(&device(r)),
        esc(&soc)
    );
    let when = if r.envelope.started.unix_ms == 0 {
        "date unknown".to_string()
    } else {
        r.envelope
            .started
            .utc
            .replace('T', " ")
            .trim_end_matches('Z')
            .chars()
            .take(16)
            .collect::<String>()
            + " UTC"
    };
    let source = match import_source(r) {
        Some((v, name)) => format!(
            "imported from sbc-bench{} log {}",
            v.map(|v| format!(" v{v}")).unwrap_or_default(),
            name.unwrap_or_default()
        ),
        None => format!("truebench {}", r.envelope.truebench_version),
    };
    let mut facts = vec![
        ("Date", when),
        kind,
        (
            "Duration",
            crate::text::human_duration(r.envelope.duration_s),
        ),
        ("Source", source),
    ];
    if let Some(k) = &r.envelope.inventory.kernel.release {
        facts.push(("Kernel", k.clone()));
    }
    if let Some(d) = &r.envelope.inventory.distro {
        facts.push(("OS", d.clone()));
    }
    let cores: Vec<String> = r
        .envelope
        .inventory
        .clusters
        .iter()
        .map(|c| {
            format!(
                "{}× {}{}",
                c.cpus.len(),
                c.core_type.as_deref().unwrap_or("CPU"),
                c.max_mhz.map(|m| format!(" @ {m} MHz")).unwrap_or_default()
            )
        })
        .collect();
    if !cores.is_empty() {
        facts.push(("CPU", cores.join(" + ")));
    }
    if let Some(kb) = r.envelope.inventory.memory.total_kb {
        facts.push(("RAM", format!("{:.1} GiB", kb as f64 / 1048576.0)));
    }
    o.push_str("<dl class=\"facts\">");
    for (k, v) in facts {
        let _ = write!(o, "<div><dt>{k}</dt><dd>{}</dd></div>", esc(&v));
    }
    o.push_str("</dl>");
    if !r.envelope.comparable {
        o.push_str("<p class=\"note warn\">Quick mode: every phase was shortened. These numbers are not comparable with standard runs.</p>");
    }
    if let Some(why) = &r.envelope.incomplete_reason {
        let _ = write!(o, "<p class=\"note crit\">Incomplete: {}</p>", esc(why));
    }
    o.push_str("</header>");
}

fn finding_html(o: &mut String, f: &Finding) {
    let _ = write!(
        o,
        "<li class=\"f {}\"><span class=\"chip\">{}</span> <b>{}</b> {}",
        sev_class(f.severity),
        match f.severity {
            Severity::Critical => "critical",
            Severity::Warning => "warning",
            Severity::Info => "info",
        },
        esc(f.kind.as_str().replace('_', " ").as_str()),
        esc(&f.message)
    );
    if !f.phases.is_empty() {
        let mut list = f
            .phases
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if f.phases.len() > 8 {
            let _ = write!(list, " and {} more", f.phases.len() - 8);
        }
        let _ = write!(o, " <span class=\"during\">during: {}</span>", esc(&list));
    }
    if !f.evidence.is_empty() {
        o.push_str("<details><summary>evidence</summary><pre>");
        for e in &f.evidence {
            o.push_str(&esc(e));
            o.push('\n');
        }
        o.push_str("</pre></details>");
    }
    o.push_str("</li>");
}

fn verdicts<B>(o: &mut String, r: View<'_, B>) {
    o.push_str("<section><h2>Verdicts</h2>");
    let shown: Vec<&Finding> = r
        .envelope
        .findings
        .iter()
        .filter(|f| f.severity > Severity::Info)
        .collect();
    let unchecked = crate::text::not_checked(&r.envelope.findings);
    if shown.is_empty() && unchecked.is_empty() {
        o.push_str("<p class=\"good\">No problem found: no throttling, swapping, background activity, killed cores or under-voltage seen.</p>");
    } else if shown.is_empty() {
        o.push_str("<p>No problem found in what could be checked.</p>");
    } else {
        o.push_str("<ul class=\"findings\">");
        for f in shown {
            finding_html(o, f);
        }
        o.push_str("</ul>");
    }
    let invalid: Vec<(&str, &str)> = r
        .envelope
        .phases
        .iter()
        .filter_map(|p| Some((p.name.as_str(), p.invalid.as_deref()?)))
        .collect();
    if !invalid.is_empty() {
        o.push_str(
            "<p>Scores measured while this happened are <b>invalid</b>:</p><ul class=\"plain\">",
        );
        for (name, why) in invalid {
            let _ = write!(o, "<li>{}: {}</li>", esc(name), esc(why));
        }
        o.push_str("</ul>");
    }
    if !unchecked.is_empty() {
        o.push_str("<p>Not checked:</p><ul class=\"plain\">");
        for f in &unchecked {
            let _ = write!(o, "<li>{}</li>", esc(&f.message));
        }
        o.push_str("</ul>");
    }
    let info: Vec<&Finding> = r
        .envelope
        .findings
        .iter()
        // The not-checked ones are listed above already.
        .filter(|f| f.severity == Severity::Info && f.kind != FindingKind::NotChecked)
        .collect();
    if !info.is_empty() {
        let _ = write!(
            o,
            "<details class=\"more\"><summary>{} note(s)</summary><ul class=\"findings\">",
            info.len()
        );
        for f in info {
            finding_html(o, f);
        }
        o.push_str("</ul></details>");
    }
    let sbc: Vec<&str> = r
        .envelope
        .notes
        .iter()
        .filter_map(|n| n.strip_prefix("sbc-bench's validation: "))
        .collect();
    if !sbc.is_empty() {
        o.push_str("<h3>sbc-bench's own validation</h3><ul class=\"plain\">");
        for b in sbc {
            let _ = write!(o, "<li>{}</li>", esc(b));
        }
        o.push_str("</ul>");
    }
    o.push_str("</section>");
}

/// Samples of a timeline phase, t relative to its start.
fn phase_samples<'a, B>(r: View<'a, B>, p: &truebench_model::timeline::Phase) -> &'a [Sample] {
    r.envelope.timeline.samples_in(p)
}

fn nclusters<B>(r: View<'_, B>) -> usize {
    r.envelope
        .timeline
        .samples
        .iter()
        .map(|s| s.cluster_mhz.len().max(s.measured_mhz.len()))
        .max()
        .unwrap_or(0)
        .max(r.envelope.timeline.header.clusters.len())
}

fn clock_chart<B>(r: View<'_, B>, samples: &[Sample], t0: f64, title: &str, w: f64) -> LineChart {
    let mut c = LineChart::new(title, "time (s)", "clock (MHz)");
    c.width = w;
    // A recorded tree's clock files hold what was recorded, not this machine's clock: never
    // drawn as a live reading (cycle-counter measurements are this machine's and stay).
    let recorded = truebench_figures::recorded_tree(r.envelope).is_some();
    for k in 0..nclusters(r) {
        let name = cluster_name(r, k);
        if !recorded {
            c.series.push(Series::new(
                &name,
                cluster_colour(k),
                "MHz",
                samples
                    .iter()
                    .map(|s| {
                        (
                            s.t - t0,
                            s.cluster_mhz.get(k).copied().flatten().map(f64::from),
                        )
                    })
                    .collect(),
            ));
        }
        let mut m = Series::new(
            &format!("{name} measured"),
            cluster_colour(k),
            "MHz",
            samples
                .iter()
                .map(|s| (s.t - t0, s.measured_mhz.get(k).copied().flatten()))
                .collect(),
        );
        m.dashed = true;
        c.series.push(m);
    }
    let mut fw = Series::new(
        "firmware (real) clock",
        "#222",
        "MHz",
        samples
            .iter()
            .map(|s| (s.t - t0, s.rpi.and_then(|x| x.arm_mhz)))
            .collect(),
    );
    fw.dashed = true;
    c.series.push(fw);
    c
}

fn temp_chart<B>(r: View<'_, B>, samples: &[Sample], t0: f64, title: &str, w: f64) -> LineChart {
    let mut c = LineChart::new(title, "time (s)", "temperature (°C)");
    c.width = w;
    let name = r
        .envelope
        .timeline
        .header
        .soc_sensor
        .clone()
        .unwrap_or_else(|| "SoC".into());
    c.series.push(Series::new(
        &name,
        svg::TEMP_COLOUR,
        "°C",
        samples.iter().map(|s| (s.t - t0, s.soc_temp_c)).collect(),
    ));
    c
}

fn cpu_chart(samples: &[Sample], t0: f64, title: &str, w: f64) -> LineChart {
    let mut c = LineChart::new(title, "time (s)", "CPU use (% of all CPUs)");
    c.width = w;
    c.y_min = Some(0.0);
    c.y_max = Some(100.0);
    let mut cpu = Series::new(
        "%cpu",
        svg::CPU_COLOUR,
        "%",
        samples
            .iter()
            .map(|s| (s.t - t0, s.cpu.map(|c| c.cpu)))
            .collect(),
    );
    cpu.area = true;
    c.series.push(cpu);
    c.series.push(Series::new(
        "%sys",
        svg::SYS_COLOUR,
        "%",
        samples
            .iter()
            .map(|s| (s.t - t0, s.cpu.map(|c| c.sys)))
            .collect(),
    ));
    c
}

fn timeline<B>(o: &mut String, r: View<'_, B>) {
    let tl = &r.envelope.timeline;
    o.push_str("<section><h2>Timeline</h2>");
    if tl.samples.len() < 2 {
        o.push_str("<p class=\"muted\">No monitoring samples.</p></section>");
        return;
    }
    let _ = write!(
        o,
        "<p class=\"muted\">{} samples{}; clocks as the kernel reports them{}.</p>",
        tl.samples.len(),
        if tl.header.interval_s > 0.0 {
            format!(" every {} s", num(tl.header.interval_s))
        } else {
            String::new()
        },
        if tl
            .samples
            .iter()
            .any(|s| s.measured_mhz.iter().any(Option::is_some))
        {
            " (solid) and measured from cycle counters (dashed)"
        } else {
            ""
        }
    );
    let recorded = truebench_figures::recorded_tree(r.envelope).is_some();
    let has_clock = tl.samples.iter().any(|s| {
        (!recorded && s.cluster_mhz.iter().any(Option::is_some))
            || s.measured_mhz.iter().any(Option::is_some)
            || s.rpi.and_then(|r| r.arm_mhz).is_some()
    });
    // A recorded tree's sensor files are as static as its clock files.
    let tree_temp = recorded && tl.samples.iter().any(|s| s.soc_temp_c.is_some());
    let has_temp = !recorded && tl.samples.iter().any(|s| s.soc_temp_c.is_some());
    let mut lacking = Vec::new();
    let tree_clocks = recorded
        && tl
            .samples
            .iter()
            .any(|s| s.cluster_mhz.iter().any(Option::is_some));
    if tree_clocks {
        lacking.push(
            "the kernel's clocks (they are the recorded tree's files, not a reading of the machine that ran the work)",
        );
    }
    if !has_clock && !tree_clocks {
        lacking.push("no clock readings (no cpufreq and no cycle counters here)");
    }
    if tree_temp {
        lacking.push("the temperature (the recorded tree's sensor file)");
    } else if !has_temp {
        lacking.push("no temperature sensor");
    }
    if !lacking.is_empty() {
        let _ = write!(
            o,
            "<p class=\"muted\">Not charted: {}.</p>",
            lacking.join("; ")
        );
    }
    // The whole run, phases shaded.
    let t0 = tl.samples[0].t;
    let bands: Vec<(f64, f64, String)> = tl
        .phases
        .iter()
        .map(|p| {
            (
                p.start - t0,
                p.end.unwrap_or(tl.samples.last().map_or(p.start, |s| s.t)) - t0,
                p.name.clone(),
            )
        })
        .collect();
    o.push_str("<div class=\"overview\">");
    let mut charts = Vec::new();
    if has_clock {
        charts.push(clock_chart(
            r,
            &tl.samples,
            t0,
            "Clock per cluster, whole run",
            760.0,
        ));
    }
    if has_temp {
        charts.push(temp_chart(
            r,
            &tl.samples,
            t0,
            "Temperature, whole run",
            760.0,
        ));
    }
    charts.push(cpu_chart(&tl.samples, t0, "CPU use, whole run", 760.0));
    for mut c in charts {
        c.bands = bands.clone();
        c.height = 230.0;
        o.push_str(&wide(&c.render()));
    }
    o.push_str("</div>");
    // With clock and temperature, each phase gets a row of three charts; with %cpu only,
    // the phases share one grid.
    let single = !has_clock && !has_temp;
    if single {
        o.push_str("<div class=\"grid3\">");
    }
    for p in &tl.phases {
        let samples = phase_samples(r, p);
        // An imported log's timeline names its phases by the envelope phases' titles.
        let title = r
            .envelope
            .phase(p.name.as_str())
            .or_else(|| r.envelope.phases.iter().find(|x| x.title == p.name))
            .map(|x| x.title.clone())
            .filter(|t| *t != p.name)
            .map(|t| format!("{} — {t}", p.name))
            .unwrap_or_else(|| p.name.clone());
        let dur = p.end.map(|e| e - p.start);
        let _ = write!(
            o,
            "{}<h3>{}</h3><p class=\"muted\">{}{} sample(s){}</p>",
            if single { "<div class=\"phase\">" } else { "" },
            esc(&title),
            dur.map(|d| format!("{}, ", crate::text::human_duration(d)))
                .unwrap_or_default(),
            samples.len(),
            p.threads
                .map(|t| format!(", {t} thread(s)"))
                .unwrap_or_default()
        );
        if samples.len() < 3 {
            o.push_str("<p class=\"muted\">Too short to draw a trend.</p>");
        } else {
            let t0 = p.start;
            let mut charts = Vec::new();
            if has_clock {
                charts.push(clock_chart(r, samples, t0, "Clock", 360.0));
            }
            if has_temp {
                charts.push(temp_chart(r, samples, t0, "Temperature", 360.0));
            }
            charts.push(cpu_chart(samples, t0, "CPU use", 360.0));
            // Charts with readings only; the rest named in one line.
            let (drawn, empty): (Vec<LineChart>, Vec<LineChart>) =
                charts.into_iter().partition(LineChart::has_data);
            if !single {
                o.push_str("<div class=\"grid3\">");
            }
            for mut c in drawn {
                c.height = 220.0;
                o.push_str(&c.render());
            }
            if !single {
                o.push_str("</div>");
            }
            if !empty.is_empty() {
                let names: Vec<&str> = empty.iter().map(|c| c.title.as_str()).collect();
                let _ = write!(
                    o,
                    "<p class=\"muted\">Not measured in this phase: {}.</p>",
                    esc(&names.join(", "))
                );
            }
        }
        if single {
            o.push_str("</div>");
        }
    }
    if single {
        o.push_str("</div>");
    }
    o.push_str("</section>");
}

fn throttling<B>(o: &mut String, r: View<'_, B>) {
    let tables = &r.envelope.throttling;
    if tables.is_empty() {
        return;
    }
    o.push_str("<section><h2>Throttling statistics</h2><p class=\"muted\">Time spent on each cpufreq OPP while the benchmarks ran. Anything below the top OPP (red) is time the clock was lowered.</p><div class=\"grid3\">");
    for t in tables {
        let cluster = t
            .cpus
            .as_deref()
            .and_then(|c| truebench_host::parse::cpulist::parse(c).first().copied())
            .and_then(|c| r.envelope.inventory.cluster_of(c))
            .map(|c| c.id)
            .unwrap_or(0);
        let total: f64 = t.time_in_state.iter().map(|x| x.1).sum();
        let top = t.time_in_state.iter().map(|x| x.0).max().unwrap_or(0);
        let rows: Vec<Bar> = t
            .time_in_state
            .iter()
            .map(|&(mhz, s)| Bar {
                label: format!("{mhz} MHz"),
                value: s,
                colour: if mhz == top {
                    cluster_colour(cluster).into()
                } else {
                    "#d1495b".into()
                },
                text: format!(
                    "{} s{}",
                    num(s),
                    if total > 0.0 && s > 0.0 {
                        format!(" ({:.1} %)", s / total * 100.0)
                    } else {
                        String::new()
                    }
                ),
            })
            .collect();
        let title = match (&t.cpus, &t.core_type) {
            (Some(c), Some(k)) => format!("CPUs {c} · {k}"),
            (Some(c), None) => format!("CPUs {c}"),
            _ => "all CPUs".into(),
        };
        o.push_str(&bars(&title, &rows));
    }
    o.push_str("</div></section>");
}

fn system<B>(o: &mut String, r: View<'_, B>) {
    o.push_str("<section><h2>System</h2><div class=\"scroll\"><table><thead><tr><th>cluster</th><th>CPUs</th><th>core</th><th>min–max (MHz)</th><th>OPPs</th></tr></thead><tbody>");
    for c in &r.envelope.inventory.clusters {
        let _ = write!(
            o,
            "<tr><td><i class=\"dot\" style=\"background:{}\"></i>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            cluster_colour(c.id),
            c.id,
            esc(&c.cpu_range()),
            esc(c.core_type.as_deref().unwrap_or("–")),
            match (c.min_mhz, c.max_mhz) {
                (Some(a), Some(b)) => format!("{a}–{b}"),
                _ => "–".into(),
            },
            c.opps_mhz.len()
        );
    }
    o.push_str("</tbody></table></div>");
    if !r.envelope.tools.is_empty() {
        o.push_str("<h3>Tools</h3><ul class=\"plain\">");
        for t in &r.envelope.tools {
            let _ = write!(
                o,
                "<li><b>{}</b> {}</li>",
                esc(&t.name),
                esc(t.version.as_deref().unwrap_or(""))
            );
        }
        o.push_str("</ul>");
    }
    o.push_str("<h3>Tuning</h3>");
    if is_imported(r) {
        o.push_str("<p class=\"muted\">sbc-bench's own tuning (performance governors); not recorded in the log.</p>");
    } else if r.envelope.tuning.applied {
        let _ = write!(
            o,
            "<p class=\"muted\">{} setting(s) changed for the run and restored afterwards.</p>",
            r.envelope.tuning.changes.len()
        );
        if r.envelope.tuning.reason.is_some() {
            let _ = write!(
                o,
                "<p class=\"muted\">{}</p>",
                esc(&crate::text::tuning_reason(&r.envelope.tuning))
            );
        }
    } else {
        let _ = write!(
            o,
            "<p class=\"muted\">Not tuned: {}</p>",
            esc(&crate::text::tuning_reason(&r.envelope.tuning))
        );
    }
    o.push_str("<h3>Kernel log</h3>");
    if r.envelope.kernel_log.available {
        if r.envelope.kernel_log.lines.is_empty() {
            o.push_str("<p class=\"muted\">Nothing logged while the benchmarks ran.</p>");
        } else {
            let _ = write!(
                o,
                "<details><summary>{} line(s)</summary><pre>",
                r.envelope.kernel_log.lines.len()
            );
            for l in &r.envelope.kernel_log.lines {
                o.push_str(&esc(l));
                o.push('\n');
            }
            o.push_str("</pre></details>");
        }
    } else {
        let _ = write!(
            o,
            "<p class=\"muted\">Not read: {}</p>",
            esc(r
                .envelope
                .kernel_log
                .reason
                .as_deref()
                .unwrap_or("unavailable"))
        );
    }
    let notes: Vec<&String> = r
        .envelope
        .notes
        .iter()
        .filter(|n| !n.starts_with("sbc-bench's validation: "))
        .filter(|n| !n.starts_with(truebench_sbcbench::convert::ROW_NOTE))
        .collect();
    if !notes.is_empty() {
        o.push_str("<h3>Notes</h3><ul class=\"plain\">");
        for n in notes {
            let _ = write!(o, "<li>{}</li>", esc(n));
        }
        o.push_str("</ul>");
    }
    o.push_str("</section>");
}

/// The page of a `run` result.
pub fn html(r: RunView<'_>) -> String {
    use crate::kinds::Render;
    RunBody::html_page(r, Frame::default())
}

/// The `run` sections: (score cards, everything after the timeline).
pub fn run_sections(r: RunView<'_>) -> (String, String) {
    (run::headline(r), run::details(r))
}

/// The page of a document of any kind: the same frame (header, the kind's headline, verdicts
/// with evidence, timeline charts per phase, the kind's details, throttling, system) for all.
pub fn document(doc: &Document) -> String {
    crate::kinds::html_page(doc)
}

/// The headline cards: one per figure, its note under it, an invalid one marked as such and
/// the best one as the best.
pub fn headline_html(h: &[truebench_figures::Headline]) -> String {
    headline_section("Headline", h, "")
}

/// The headline cards under `title`, `extra` (HTML) after them in the same section.
pub fn headline_section(title: &str, h: &[truebench_figures::Headline], extra: &str) -> String {
    if h.is_empty() {
        return String::new();
    }
    let mut o = format!(
        "<section class=\"headline\"><h2>{}</h2><div class=\"cards\">",
        esc(title)
    );
    for x in h {
        let class = if x.invalid.is_some() {
            " invalid"
        } else if x.best {
            " best"
        } else {
            ""
        };
        let _ = write!(
            o,
            "<div class=\"card{class}\"><div class=\"k\">{}{}</div><div class=\"v\">{}</div>",
            esc(&x.label),
            if x.best {
                " <span class=\"tag\">best</span>"
            } else {
                ""
            },
            esc(&x.value)
        );
        if let Some(n) = &x.note {
            let _ = write!(o, "<div class=\"s\">{}</div>", esc(n));
        }
        if let Some(i) = &x.invalid {
            let _ = write!(o, "<div class=\"s bad\">not valid: {}</div>", esc(i));
        }
        o.push_str("</div>");
    }
    o.push_str("</div>");
    o.push_str(extra);
    o.push_str("</section>");
    o
}

/// Where a page lives: alone (the style inline, nothing linked: the default), or in a static
/// site (`truebench site`), where every page links one shared stylesheet and carries the
/// site's navigation above its header.
#[derive(Debug, Clone, Copy, Default)]
pub struct Frame<'a> {
    /// The shared stylesheets' addresses relative to the page, in order; none: the style
    /// inline.
    pub stylesheets: &'a [&'a str],
    /// HTML put above the header (the site's links back and to related results).
    pub nav: &'a str,
    /// Where the result stands among stored results (see [`standing`]), after its verdicts;
    /// empty without a history.
    pub standing: &'a [String],
}

/// The "Where it stands" section: each figure's percentile among the stored results of the
/// same SoC and tool versions, as the history computed it.
pub fn standing(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        "<section><h2>Where it stands</h2><p>Among the stored results of the same SoC and tool versions (percentile rank: the share it does better than).</p><ul>",
    );
    for l in lines {
        o.push_str(&format!("<li>{}</li>", esc(l)));
    }
    o.push_str("</ul></section>");
    o
}

/// The frame every kind's page shares; `headline` and `details` are the kind's sections.
pub fn page<B>(
    r: View<'_, B>,
    kind: (&str, String),
    headline: &str,
    details: &str,
    frame: Frame<'_>,
) -> String {
    let mut o = String::with_capacity(256 * 1024);
    let title = format!("truebench — {}", device(r));
    let style = if frame.stylesheets.is_empty() {
        format!("<style>{CSS}</style>")
    } else {
        frame
            .stylesheets
            .iter()
            .map(|href| format!("<link rel=\"stylesheet\" href=\"{}\">", esc(href)))
            .collect()
    };
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title>{style}</head><body><main>",
        esc(&title)
    );
    o.push_str(frame.nav);
    header(&mut o, r, kind);
    o.push_str(headline);
    verdicts(&mut o, r);
    o.push_str(&standing(frame.standing));
    timeline(&mut o, r);
    o.push_str(details);
    o.push_str(&crate::energy::html(r.envelope));
    throttling(&mut o, r);
    system(&mut o, r);
    let alone = if !frame.stylesheets.is_empty() {
        "part of a static site: nothing is loaded from outside its folder."
    } else {
        "this page is self-contained: no script, nothing loaded from anywhere."
    };
    h(
        &mut o,
        &format!(
            "<footer>truebench {} · result schema {} · {alone}</footer></main></body></html>\n",
            esc(env!("CARGO_PKG_VERSION")),
            truebench_model::SCHEMA_VERSION
        ),
    );
    columns::drop_dash_columns(&o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_is_self_contained() {
        let log = truebench_sbcbench::import::parse(
            "sbc-bench v0.9.72 Board <X> (Mon, 1 Jan 2024 00:00:00 +0000)\n",
        );
        let r = truebench_sbcbench::convert::to_run_result(&log, "x.txt");
        let p = html(r.view());
        assert!(p.starts_with("<!DOCTYPE html>"));
        assert!(p.contains("Board &lt;X&gt;"));
        assert!(!p.contains("http://") && !p.contains("https://"));
        assert!(!p.contains("<script"));
    }
}
