//! Prometheus metrics of stored results, under the names `truebench serve` exposes, for
//! both `serve` and node_exporter's textfile collector (a `.prom` file written by rename
//! into the directory node_exporter reads): one place builds them.

use std::collections::BTreeMap;

use truebench_model::Document;
use truebench_monitor::exporter::Family;

fn json_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

fn fam(name: &str, help: &str) -> Family {
    Family {
        name: name.into(),
        kind: "gauge",
        help: help.into(),
        samples: Vec::new(),
    }
}

/// The families for `(id, document)` pairs — the latest result of each kind, as `serve`
/// chooses them, or the results a textfile is written for.
pub fn families<'a>(docs: impl IntoIterator<Item = (&'a str, &'a Document)>) -> Vec<Family> {
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
    for (id, doc) in docs {
        let e = &doc.envelope;
        let base = vec![
            ("kind".to_string(), doc.kind().to_string()),
            ("id".to_string(), id.to_string()),
        ];
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        time.samples
            .push((base.clone(), e.started.unix_ms as f64 / 1000.0));
        valid.samples.push((base.clone(), flag(e.valid)));
        complete.samples.push((base.clone(), flag(e.complete)));
        for (key, v, unit) in crate::cases::scores(doc) {
            let mut l = base.clone();
            l.push(("metric".into(), key));
            l.push(("unit".into(), unit.unwrap_or_default()));
            value.samples.push((l, v));
        }
        let mut counts: BTreeMap<(String, String), f64> = BTreeMap::new();
        for f in &e.findings {
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

/// The text exposition node_exporter's textfile collector reads.
pub fn textfile<'a>(docs: impl IntoIterator<Item = (&'a str, &'a Document)>) -> String {
    truebench_monitor::exporter::exposition(&families(docs))
}
