//! The frequency × idle residency of each phase (`PhaseResult::residency`), as LISA's
//! residency analysis and workload-automation's cpustates report show it: per cluster, the
//! share of the phase at each clock and the share of its CPUs' time in each idle state, with
//! the entries and the deepest state entered. Text for the detailed log, Markdown, HTML.

use std::fmt::Write;

use truebench_host::parse::cpulist;
use truebench_model::residency::{ClusterResidency, PhaseResidency};
use truebench_model::{Envelope, PhaseResult};

use crate::report::svg::esc;

fn who(c: &ClusterResidency) -> String {
    match &c.core_type {
        Some(k) => format!("cpu{} ({k})", cpulist::format(&c.cpus)),
        None => format!("cpu{}", cpulist::format(&c.cpus)),
    }
}

fn pct(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.1} %", part / whole * 100.0)
    } else {
        "-".into()
    }
}

/// `614 MHz 25.0 %, 2803 MHz 75.0 %` (of the seconds the policy counted).
fn clocks(c: &ClusterResidency) -> Option<String> {
    let total: f64 = c.opp_s.iter().map(|r| r.1).sum();
    (!c.opp_s.is_empty()).then(|| {
        c.opp_s
            .iter()
            .map(|&(mhz, s)| format!("{mhz} MHz {} ({s:.2} s)", pct(s, total)))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// `WFI 500× 0.90 s 22.5 %, gold-c4 12× 2.00 s 50.0 %`: CPU-seconds and their share of the
/// CPUs' time in the phase — the share left out when the counters hold more time than the
/// phase had (a clock or counter that disagrees: the seconds are then what was read).
fn idle(c: &ClusterResidency, seconds: Option<f64>) -> Option<String> {
    let cpu_s = seconds.map_or(0.0, |s| s * c.cpus.len() as f64);
    let held: f64 = c.idle.iter().map(|i| i.cpu_s).sum();
    let share = cpu_s > 0.0 && held <= cpu_s * 1.05;
    (!c.idle.is_empty()).then(|| {
        c.idle
            .iter()
            .map(|i| {
                let mut t = format!("{} {}× {:.2} s", i.state, i.entries, i.cpu_s);
                if share {
                    t.push(' ');
                    t.push_str(&pct(i.cpu_s, cpu_s));
                }
                t
            })
            .collect::<Vec<_>>()
            .join(", ")
    })
}

fn deepest(c: &ClusterResidency) -> String {
    match &c.deepest {
        Some(d) => format!(
            "{}{}",
            d.state,
            d.exit_latency_us
                .map(|l| format!(" ({l} µs exit)"))
                .unwrap_or_default()
        ),
        None => "none entered".into(),
    }
}

/// The phase's table as text lines (empty without residency).
pub fn text(p: &PhaseResult) -> String {
    let Some(r) = &p.residency else {
        return String::new();
    };
    let mut o = String::from("Frequency × idle residency:\n");
    for c in &r.clusters {
        let _ = writeln!(o, "  {}", who(c));
        if let Some(t) = clocks(c) {
            let _ = writeln!(o, "    clock: {t}");
        }
        if let Some(t) = idle(c, p.duration_s()) {
            let _ = writeln!(o, "    idle:  {t}; deepest {}", deepest(c));
        }
    }
    o
}

fn phases(env: &Envelope) -> impl Iterator<Item = (&PhaseResult, &PhaseResidency)> {
    env.phases
        .iter()
        .filter_map(|p| Some((p, p.residency.as_ref()?)))
}

/// One Markdown table of every phase with residency (empty when none has).
pub fn markdown(env: &Envelope) -> String {
    let mut o = String::new();
    for (p, r) in phases(env) {
        if o.is_empty() {
            o.push_str("\n### Frequency × idle residency\n\n| phase | CPUs | time at each clock | time in each idle state (entries) | deepest entered |\n| --- | --- | --- | --- | --- |\n");
        }
        for c in &r.clusters {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} |",
                p.name,
                who(c),
                clocks(c).unwrap_or_else(|| "-".into()),
                idle(c, p.duration_s()).unwrap_or_else(|| "-".into()),
                deepest(c)
            );
        }
    }
    o
}

/// The report's section (empty when no phase has residency).
pub fn html(o: &mut String, env: &Envelope) {
    let mut rows = String::new();
    for (p, r) in phases(env) {
        for c in &r.clusters {
            let _ = write!(
                rows,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&p.name),
                esc(&who(c)),
                esc(&clocks(c).unwrap_or_else(|| "-".into())),
                esc(&idle(c, p.duration_s()).unwrap_or_else(|| "-".into())),
                esc(&deepest(c))
            );
        }
    }
    if rows.is_empty() {
        return;
    }
    let _ = write!(
        o,
        "<section><h2>Frequency × idle residency</h2><p class=\"muted\">Per phase and cluster: the share of the phase at each clock (cpufreq statistics) and the share of the CPUs' time in each idle state with its entries (cpuidle), read at the phase's boundaries. A wake-up from the deepest state entered costs up to its exit latency.</p><div class=\"scroll\"><table><thead><tr><th>phase</th><th>CPUs</th><th>time at each clock</th><th>time in each idle state (entries)</th><th>deepest entered</th></tr></thead><tbody>{rows}</tbody></table></div></section>"
    );
}
