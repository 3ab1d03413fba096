//! The recorded documents of every kind the render tests share (`mod common;`).

use std::path::Path;

use truebench_model::Document;

/// One recorded document per kind (`tests/data/kinds/<name>.json`).
pub const DOCS: &[&str] = &[
    "run-quick",
    "run-imported",
    "clocks",
    "monitor",
    "monitor-per-cluster",
    "interactivity",
    "governors-repeat",
    "net",
    "io",
    "review",
    "review-tuned",
    "thermal",
    "efficiency",
];

/// Monitoring lines show local time: the snapshots are in UTC, set before the first
/// conversion (glibc reads TZ once).
fn utc() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::env::set_var("TZ", "UTC"));
}

pub fn doc(name: &str) -> Document {
    utc();
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/kinds/{name}.json"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    truebench_model::migrate(serde_json::from_str(&text).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
