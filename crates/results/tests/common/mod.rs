//! Test data: the sbc-bench result logs (one archive) and Results.md, copied into the repo.

// Each test file uses a subset of these helpers.
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/sbc-bench")
}

/// `(file name, text)` of every log in `results.tar.gz`, sorted by name.
pub fn logs() -> Vec<(String, String)> {
    let path = data_dir().join("results.tar.gz");
    let f = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(f));
    let mut out = Vec::new();
    for entry in ar.entries().expect("tar entries") {
        let mut entry = entry.expect("tar entry");
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .expect("entry path")
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("read entry");
        out.push((name, String::from_utf8_lossy(&bytes).into_owned()));
    }
    out.sort();
    out
}

pub fn results_md() -> String {
    let path = data_dir().join("Results.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Lines of a TSV file below `crates/results/tests/data`, without comments and the header.
pub fn tsv(name: &str) -> Vec<Vec<String>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').map(|c| c.to_string()).collect())
        .collect()
}
