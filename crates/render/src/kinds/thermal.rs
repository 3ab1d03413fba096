//! The `thermal` kind (`truebench thermal`): how the load started, the score over time, the
//! temperatures, per cluster the clock at the start and the end and where it was first lost,
//! time_in_state over the load; charts of score, clock and temperature over time.

use std::fmt::Write;

use truebench_model::thermal::{StartMode, ThermalCluster, ThermalPhase};
use truebench_model::PhaseId;
use truebench_model::{ThermalBody, View};

use super::interactivity::findings_tail;
use super::{Figures, Render};
use crate::report::svg::{cluster_colour, esc, LineChart, Series};
use crate::text::{detailed_log_for, header_for};

type TView<'a> = View<'a, ThermalBody>;

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

fn score(v: f64) -> String {
    if v >= 1000.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn start_line(b: &ThermalBody) -> String {
    let s = &b.start;
    let what = match (s.mode, s.target_c) {
        (StartMode::Cool, Some(t)) => format!("cooled idle to ≤ {t:.1} °C"),
        (StartMode::Heat, Some(t)) => format!("heated with the load to ≥ {t:.1} °C"),
        _ => "idle gate".to_string(),
    };
    format!(
        "{what}: {} ({}, {:.0} s)",
        if s.reached { "reached" } else { "NOT reached" },
        s.reason,
        s.waited_s
    )
}

fn loss_text(c: &ThermalCluster) -> String {
    match &c.first_loss {
        Some(l) => format!(
            "first lost clock after {:.0} s at {}: {:.0} → {:.0} MHz",
            l.t_s,
            l.temp_c
                .map_or("an unknown temperature".into(), |t| format!("{t:.1} °C")),
            l.from_mhz,
            l.to_mhz
        ),
        None if c.first_minute_mhz.is_none() => "no reported clock".into(),
        None => "never lost clock".into(),
    }
}

fn cluster_name(c: &ThermalCluster) -> String {
    format!(
        "cluster {} (CPUs {}{})",
        c.cluster,
        c.cpus,
        c.core_type
            .as_ref()
            .map(|t| format!(", {t}"))
            .unwrap_or_default()
    )
}

impl Render for ThermalBody {
    fn summary(r: TView<'_>) -> String {
        let b = r.body;
        let mut o = header_for(r.envelope, "thermal test");
        let _ = writeln!(o, "\nLoad: {} for {:.1} min", b.load_detail, b.minutes);
        let _ = writeln!(o, "Start: {}", start_line(b));
        let _ = writeln!(
            o,
            "SoC temperature: {} °C at the start, {} °C at most, {} °C at the end",
            num(b.temp_start_c, 1),
            num(b.temp_max_c, 1),
            num(b.temp_end_c, 1)
        );
        if !b.scores.is_empty() {
            let v: Vec<String> = b.scores.iter().map(|s| score(s.score)).collect();
            let _ = writeln!(
                o,
                "Score ({}, over time): {}{}",
                b.unit.as_deref().unwrap_or("per interval"),
                v.join(","),
                b.change_pct
                    .map(|c| format!(" ({c:+.1}% first to last)"))
                    .unwrap_or_default()
            );
        }
        if !b.clusters.is_empty() {
            let _ = writeln!(o, "\nClock per cluster (reported, MHz):");
            for c in &b.clusters {
                let _ = writeln!(
                    o,
                    "  {}: first minute {}, last minute {}, lowest {}{}; {}",
                    cluster_name(c),
                    num(c.first_minute_mhz, 0),
                    num(c.last_minute_mhz, 0),
                    num(c.min_mhz, 0),
                    c.measured_mhz
                        .map(|m| format!(", measured mean {m:.0}"))
                        .unwrap_or_default(),
                    loss_text(c)
                );
            }
        }
        if b.time_in_state.iter().any(|p| !p.seconds.is_empty()) {
            let _ = writeln!(o, "\nTime per clock over the load (time_in_state):");
            for p in b.time_in_state.iter().filter(|p| !p.seconds.is_empty()) {
                let v: Vec<String> = p
                    .seconds
                    .iter()
                    .rev()
                    .map(|(khz, s)| format!("{} MHz {s:.0} s", khz / 1000))
                    .collect();
                let _ = writeln!(o, "  {}: {}", p.policy, v.join(", "));
            }
        }
        for n in &b.notes {
            let _ = writeln!(o, "Note: {n}");
        }
        o.push_str(&crate::energy::text(r.envelope));
        o.push_str(&findings_tail(r.envelope));
        o
    }

    fn detailed_log(r: TView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, "thermal test"),
            &Self::summary(r),
        )
    }

    fn html_sections(r: TView<'_>) -> (String, String) {
        let b = r.body;
        let mut head = format!(
            "<section><h2>Thermal test</h2><p>{} for {:.1} min. Start: {}. SoC {} °C → max {} °C → {} °C.</p>",
            esc(&b.load_detail),
            b.minutes,
            esc(&start_line(b)),
            num(b.temp_start_c, 1),
            num(b.temp_max_c, 1),
            num(b.temp_end_c, 1)
        );
        // A fall beside other work is not throttling: the title says which to read it as.
        let others = r.envelope.findings.iter().any(|f| {
            f.kind == truebench_model::finding::FindingKind::BackgroundActivity
                && f.severity > truebench_model::finding::Severity::Info
                && f.during(ThermalPhase::Load)
        });
        let mut chart = LineChart::new(
            if others {
                "Score over time (other processes ran: a fall is theirs, see the notes)"
            } else {
                "Score over time (falling = throttling)"
            },
            "seconds into the load",
            b.unit.as_deref().unwrap_or("score"),
        );
        let mut s = Series::new(
            "score",
            cluster_colour(0),
            b.unit.as_deref().unwrap_or(""),
            b.scores
                .iter()
                .map(|p| ((p.start_s + p.end_s) / 2.0, Some(p.score)))
                .collect(),
        );
        s.markers = true;
        chart.series.push(s);
        chart.y_min = Some(0.0);
        head.push_str(&chart.render());
        let tl = &r.envelope.timeline;
        if let Some(p) = tl
            .phases
            .iter()
            .rev()
            .find(|p| ThermalPhase::Load.is(&p.name))
        {
            let samples = tl.samples_in(p);
            let mut clock = LineChart::new("Clock per cluster", "seconds into the load", "MHz");
            for c in &b.clusters {
                clock.series.push(Series::new(
                    &cluster_name(c),
                    cluster_colour(c.cluster),
                    "MHz",
                    samples
                        .iter()
                        .map(|s| {
                            let v = s.cluster_mhz.get(c.cluster).copied().flatten();
                            (s.t - p.start, v.map(f64::from))
                        })
                        .collect(),
                ));
            }
            head.push_str(&clock.render());
            let mut temp = LineChart::new("SoC temperature", "seconds into the load", "°C");
            temp.series.push(Series::new(
                "SoC",
                "#c0392b",
                "°C",
                samples
                    .iter()
                    .map(|s| (s.t - p.start, s.soc_temp_c))
                    .collect(),
            ));
            head.push_str(&temp.render());
        }
        head.push_str("<table><thead><tr><th>Cluster</th><th>First minute (MHz)</th><th>Last minute (MHz)</th><th>Lowest (MHz)</th><th>First lost clock</th></tr></thead><tbody>");
        for c in &b.clusters {
            let _ = write!(
                head,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&cluster_name(c)),
                num(c.first_minute_mhz, 0),
                num(c.last_minute_mhz, 0),
                num(c.min_mhz, 0),
                esc(&loss_text(c))
            );
        }
        head.push_str("</tbody></table>");
        for n in &b.notes {
            let _ = write!(head, "<p class=\"muted\">{}</p>", esc(n));
        }
        head.push_str("</section>");
        (head, String::new())
    }

    fn html_fact(r: TView<'_>) -> (&'static str, String) {
        ("Thermal", Self::label(r))
    }

    fn markdown(r: TView<'_>) -> String {
        let b = r.body;
        let mut o = format!(
            "{} for {:.1} min; SoC max {} °C; score {}\n\n| Cluster | First minute (MHz) | Last minute (MHz) | First lost clock |\n| --- | ---: | ---: | --- |\n",
            b.load_detail,
            b.minutes,
            num(b.temp_max_c, 1),
            b.change_pct
                .map_or("-".into(), |c| format!("{c:+.1}% first to last"))
        );
        for c in &b.clusters {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                cluster_name(c),
                num(c.first_minute_mhz, 0),
                num(c.last_minute_mhz, 0),
                loss_text(c)
            );
        }
        o
    }
}
