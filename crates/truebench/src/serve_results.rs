//! The latest stored result of each kind as metrics for `truebench serve`, so a Prometheus
//! scraping a fleet sees every board's latest benchmark next to its live readings: the
//! headline figures with their units, validity, completeness, findings by kind and severity,
//! and when the result was taken.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use truebench_monitor::exporter::{ExtraFamilies, Family};
use truebench_store::Store;

/// Read the history at most this often; between, the last families are served again.
const REFRESH: Duration = Duration::from_secs(30);

/// Each kind's latest own result: (kind, id).
type LatestIds = Vec<(&'static str, i64)>;

/// The latest own result of each kind: one index seek per kind (`Store::latest`), what each
/// refresh asks first; the rest is read only when one of them changed.
fn latest_ids(store: &Store) -> LatestIds {
    truebench_model::KINDS
        .iter()
        .filter_map(|k| Some((*k, store.latest(k).ok()??)))
        .collect()
}

fn latest(store: &Store, ids: &[(&'static str, i64)]) -> Vec<Family> {
    let mut docs = Vec::new();
    let mut regression = Family {
        name: "truebench_regression".into(),
        kind: "gauge",
        help: "Change of a headline figure of the latest stored result of this kind against the same machine's previous result, percent; verdict is regression or improvement beyond the noise band (band_pct), else none.".into(),
        samples: Vec::new(),
    };
    for &(kind, id) in ids {
        let Ok(Some(doc)) = store.get(id) else {
            continue;
        };
        let at = (doc.envelope.started.unix_ms, id);
        // The machine's results of the kind up to this one (its rows only, through an
        // index), judged by the history's own rule (which of them count, in which order);
        // this one's judgement is the figures'.
        let earlier = store.same_machine(kind, &doc).unwrap_or_default();
        let mut machine: Vec<(i64, truebench_model::Document)> = earlier
            .into_iter()
            .filter(|&x| x != id)
            .filter_map(|x| Some((x, store.get(x).ok()??)))
            .filter(|(x, d)| (d.envelope.started.unix_ms, *x) < at)
            .filter(|(_, d)| truebench_store::regress::same_machine(d, &doc))
            .collect();
        machine.push((id, doc));
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
                        ("id".into(), id.to_string()),
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
        docs.push((id.to_string(), doc));
    }
    let mut f = truebench_formats::prom::families(docs.iter().map(|(id, d)| (id.as_str(), d)));
    f.push(regression);
    f
}

/// The provider `serve` hands the exporter: reads the history every [`REFRESH`] at most, and
/// then only the latest result's id of each kind unless one of them changed.
pub fn provider(db: PathBuf) -> ExtraFamilies {
    let mut cache: Option<(Instant, LatestIds, Vec<Family>)> = None;
    Box::new(move || {
        if let Some((t, _, f)) = &cache {
            if t.elapsed() < REFRESH {
                return f.clone();
            }
        }
        let Ok(store) = Store::open_existing(&db) else {
            cache = Some((Instant::now(), Vec::new(), Vec::new()));
            return Vec::new();
        };
        let ids = latest_ids(&store);
        let f = match &cache {
            Some((_, old, f)) if *old == ids && !ids.is_empty() => f.clone(),
            _ => latest(&store, &ids),
        };
        cache = Some((Instant::now(), ids, f.clone()));
        f
    })
}
