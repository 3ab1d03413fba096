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
        if let Ok(Some(doc)) = store.get(e.id) {
            docs.push((e.id.to_string(), doc));
        }
    }
    truebench_formats::prom::families(docs.iter().map(|(id, d)| (id.as_str(), d)))
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
