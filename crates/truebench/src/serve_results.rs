//! The latest stored result of each kind as metrics for `truebench serve`, so a Prometheus
//! scraping a fleet sees every board's latest benchmark next to its live readings: the
//! headline figures with their units, validity, completeness, findings by kind and severity,
//! and when the result was taken.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use truebench_monitor::exporter::{ExtraFamilies, Family};
use truebench_store::{Filter, Store};

/// Read the history at most this often; between, the last families are served again.
const REFRESH: Duration = Duration::from_secs(30);

fn json_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

/// The families for the history at `db` (read-only; none while it does not exist).
pub fn families(db: &std::path::Path) -> Vec<Family> {
    let Ok(store) = Store::open_existing(db) else {
        return Vec::new();
    };
    latest(&store)
}

fn latest(store: &Store) -> Vec<Family> {
    let fam = |name: &str, help: &str| Family {
        name: name.into(),
        kind: "gauge",
        help: help.into(),
        samples: Vec::new(),
    };
    let mut time = fam(
        "truebench_result_timestamp_seconds",
        "When the latest stored result of this kind was started (Unix time).",
    );
    let mut valid = fam(
        "truebench_result_valid",
        "1 when the latest stored result of this kind is valid (its figures can be trusted).",
    );
    let mut complete = fam(
        "truebench_result_complete",
        "1 when the latest stored result of this kind ran to its end.",
    );
    let mut value = fam(
        "truebench_result_value",
        "A headline figure of the latest stored result of this kind, in the unit of its label.",
    );
    let mut findings = fam(
        "truebench_result_findings",
        "Findings in the latest stored result of this kind, by finding kind and severity.",
    );
    for kind in truebench_model::KINDS {
        let Ok(entries) = store.list(&Filter {
            kind: Some(kind.to_string()),
            ..Default::default()
        }) else {
            continue;
        };
        // Imported sbc-bench logs are other machines' results, not this one's.
        let Some(e) = entries
            .iter()
            .filter(|e| e.source != "sbc-bench")
            .max_by_key(|e| (e.started_unix_ms, e.id))
        else {
            continue;
        };
        let base = vec![
            ("kind".to_string(), kind.to_string()),
            ("id".to_string(), e.id.to_string()),
        ];
        time.samples
            .push((base.clone(), e.started_unix_ms as f64 / 1000.0));
        valid
            .samples
            .push((base.clone(), if e.valid { 1.0 } else { 0.0 }));
        complete
            .samples
            .push((base.clone(), if e.complete { 1.0 } else { 0.0 }));
        let Ok(Some(doc)) = store.get(e.id) else {
            continue;
        };
        for m in truebench_render::kinds::metrics(&doc) {
            let Some(v) = m.value.filter(|v| v.is_finite()) else {
                continue;
            };
            let mut l = base.clone();
            l.push(("metric".into(), m.key.clone()));
            l.push(("unit".into(), m.unit.clone().unwrap_or_default()));
            value.samples.push((l, v));
        }
        let mut counts: std::collections::BTreeMap<(String, String), f64> = Default::default();
        for f in &doc.envelope.findings {
            *counts
                .entry((json_name(&f.kind), json_name(&f.severity)))
                .or_default() += 1.0;
        }
        for ((fk, sev), n) in counts {
            let mut l = base.clone();
            l.push(("finding".into(), fk));
            l.push(("severity".into(), sev));
            findings.samples.push((l, n));
        }
    }
    vec![time, valid, complete, value, findings]
}

/// The provider `serve` hands the exporter: reads the history every [`REFRESH`] at most.
pub fn provider(db: PathBuf) -> ExtraFamilies {
    let mut cache: Option<(Instant, Vec<Family>)> = None;
    Box::new(move || {
        if let Some((t, f)) = &cache {
            if t.elapsed() < REFRESH {
                return f.clone();
            }
        }
        let f = families(&db);
        cache = Some((Instant::now(), f.clone()));
        f
    })
}
