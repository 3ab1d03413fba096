//! Result documents come from other machines (`import FILE.json`, a shared history): every
//! real document in the repository, at every schema version (1 to the current: the version-1
//! documents as each later writer wrote them), edited, cut short, with garbage
//! and hostile numbers in it, is read through `migrate` — an error naming what is wrong, never
//! a panic. Inputs: `PROPTEST_CASES` (default `truebench_fixtures::fuzz::CASES`).

use proptest::prelude::*;
use std::path::Path;
use truebench_fixtures::fuzz::{config, mutated};

/// The seeds, read and upgraded once: per input they cost more than the input itself.
fn documents() -> &'static [Vec<u8>] {
    static DOCS: std::sync::LazyLock<Vec<Vec<u8>>> = std::sync::LazyLock::new(read_documents);
    &DOCS
}

fn read_documents() -> Vec<Vec<u8>> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        here.join("tests/data/v1"),
        here.join("../render/tests/data/kinds"),
    ] {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "json") {
                out.push(std::fs::read(e.path()).unwrap());
            }
        }
    }
    // Every schema version: the version-1 documents as each later writer wrote them.
    let v1: Vec<serde_json::Value> = std::fs::read_dir(here.join("tests/data/v1"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap())
        .collect();
    for to in 2..truebench_model::SCHEMA_VERSION {
        for d in &v1 {
            let up = truebench_model::upgrade_to(d.clone(), to).unwrap();
            out.push(serde_json::to_vec(&up).unwrap());
        }
    }
    let versions: std::collections::BTreeSet<u64> = out
        .iter()
        .filter_map(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        .filter_map(|v| v["schema_version"].as_u64())
        .collect();
    assert_eq!(
        versions,
        (1..=u64::from(truebench_model::SCHEMA_VERSION)).collect(),
        "seeds of every schema version"
    );
    assert!(out.len() >= 10, "{}", out.len());
    out
}

/// Every JSON pointer of `v`.
fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                pointers(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                )
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out)
            }
        }
        _ => {}
    }
}

/// Values a hostile or broken writer puts where another was.
fn hostile() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![
        json!(null),
        json!(-1),
        json!(1e308),
        json!(-1e308),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(0.5),
        json!(""),
        json!("NaN"),
        json!([]),
        json!({}),
        json!(true),
        json!("x".repeat(10_000)),
        json!([null, -1, "?"]),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// Structure-aware: the JSON stays JSON, values deep inside change type or size, keys
    /// disappear.
    #[test]
    fn a_document_with_any_value_anywhere(
        doc in 0usize..64,
        edits in proptest::collection::vec((any::<proptest::sample::Index>(), 0usize..15), 1..6),
    ) {
        let docs = documents();
        let mut v: serde_json::Value = serde_json::from_slice(&docs[doc % docs.len()]).unwrap();
        for (at, what) in edits {
            let mut all = Vec::new();
            pointers(&v, String::new(), &mut all);
            let p = at.get(&all).clone();
            if p.is_empty() {
                continue;
            }
            let h = hostile();
            if what == h.len() {
                // Remove the key or element.
                let (parent, last) = p.rsplit_once('/').unwrap();
                match v.pointer_mut(parent) {
                    Some(serde_json::Value::Object(m)) => {
                        m.remove(&last.replace("~1", "/").replace("~0", "~"));
                    }
                    Some(serde_json::Value::Array(a)) => {
                        if let Ok(i) = last.parse::<usize>() {
                            if i < a.len() {
                                a.remove(i);
                            }
                        }
                    }
                    _ => {}
                }
            } else if let Some(slot) = v.pointer_mut(&p) {
                *slot = h[what].clone();
            }
        }
        if let Ok(doc) = truebench_model::migrate(v) {
            let again = serde_json::to_value(&doc).unwrap();
            prop_assert_eq!(truebench_model::migrate(again).ok(), Some(doc));
        }
    }

    #[test]
    fn a_document_of_any_shape(b in mutated(documents().to_vec())) {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&b) {
            if let Ok(doc) = truebench_model::migrate(v) {
                // What was read writes back and reads again as the same document.
                let again = serde_json::to_value(&doc).unwrap();
                prop_assert_eq!(truebench_model::migrate(again).ok(), Some(doc));
            }
        }
    }
}
