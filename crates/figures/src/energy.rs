//! The energy figures every kind shares (from the envelope's energy report).

use crate::Metric;
use truebench_model::Envelope;

/// Above this many phases only those with a figure per watt become metrics.
const MAX_PHASE_METRICS: usize = 12;

/// `energy_idle_w`, `energy_<phase>_w`, `energy_<phase>_j`, `<phase>_<unit>` per watt: the
/// figures the history keeps for `compare` (phases that repeat get their first row only).
pub fn metrics(env: &Envelope) -> Vec<Metric> {
    let mut out = Vec::new();
    let Some(e) = &env.energy else {
        return out;
    };
    let key = |s: &str| {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect::<String>()
    };
    if let Some(w) = e.idle_watts {
        out.push(Metric::number("energy_idle_w", w, Some("W")));
    }
    // Kinds with many phases (efficiency: one per run) keep their own figures; here only
    // the phases with a figure per watt, so the history holds no hundreds of rows per result.
    let many = e.phases.len() > MAX_PHASE_METRICS;
    let mut seen = Vec::new();
    for p in &e.phases {
        if seen.contains(&p.phase) || (many && p.per_watt.is_empty()) {
            continue;
        }
        seen.push(p.phase.clone());
        let k = key(&p.phase);
        out.push(Metric::number(
            format!("energy_{k}_w"),
            p.mean_watts,
            Some("W"),
        ));
        out.push(Metric::number(format!("energy_{k}_j"), p.joules, Some("J")));
        for x in &p.per_watt {
            let unit = key(&x.unit.replace('/', "_per_"));
            out.push(Metric::number(
                format!("energy_{k}_{unit}"),
                x.value,
                Some(&x.unit),
            ));
        }
    }
    out
}
