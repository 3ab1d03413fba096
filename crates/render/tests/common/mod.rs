//! The recorded documents of every kind the render tests share (`mod common;`).

use std::path::Path;

use truebench_model::Document;

/// The recorded documents (`tests/data/kinds/<name>.json`), by name: every file there, so
/// a new kind's document is rendered by every test without an edit; `kinds.rs` fails when a
/// kind of `truebench_model::KINDS` has none.
pub fn docs() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/kinds");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

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
