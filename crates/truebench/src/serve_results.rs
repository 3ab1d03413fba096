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

/// The families for the history at `db` (read-only; none while it does not exist).
pub fn families(db: &std::path::Path) -> Vec<Family> {
    let Ok(store) = Store::open_existing(db) else {
        return Vec::new();
    };
    latest(&store)
}

fn latest(store: &Store) -> Vec<Family> {
    let mut docs = Vec::new();
    let mut regression = Family {
        name: "truebench_regression".into(),
        kind: "gauge",
        help: "Change of a headline figure of the latest stored result of this kind against the same machine's previous result, percent; verdict is regression or improvement beyond the noise band (band_pct), else none.".into(),
        samples: Vec::new(),
    };
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
        let Ok(Some(doc)) = store.get(e.id) else {
            continue;
        };
        // The machine's results of the kind up to this one, judged by the history's own rule
        // (which of them count, in which order); this one's judgement is the figures'.
        let mut machine: Vec<(i64, truebench_model::Document)> = entries
            .iter()
            .filter(|x| (x.started_unix_ms, x.id) < (e.started_unix_ms, e.id))
            .filter_map(|x| Some((x.id, store.get(x.id).ok()??)))
            .filter(|(_, d)| truebench_store::regress::same_machine(d, &doc))
            .collect();
        machine.push((e.id, doc));
        let refs: Vec<&truebench_model::Document> = machine.iter().map(|(_, d)| d).collect();
        let last = machine.len() - 1;
        let judged = truebench_store::regress::judge_all(&refs)
            .into_iter()
            .find(|(i, _)| *i == last);
        if let Some((_, j)) = judged {
            for c in &j.changes {
                let verdict = c.verdict.map_or("none", |k| k.as_str());
                regression.samples.push((
                    vec![
                        ("kind".into(), kind.to_string()),
                        ("id".into(), e.id.to_string()),
                        ("baseline_id".into(), machine[j.baseline].0.to_string()),
                        ("metric".into(), c.metric.clone()),
                        ("verdict".into(), verdict.into()),
                        ("band_pct".into(), format!("{:.1}", c.band_pct)),
                    ],
                    c.change_pct,
                ));
            }
        }
        let (_, doc) = machine.pop().expect("this result, pushed above");
        docs.push((e.id.to_string(), doc));
    }
    let mut f = truebench_formats::prom::families(docs.iter().map(|(id, d)| (id.as_str(), d)));
    f.push(regression);
    f
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
