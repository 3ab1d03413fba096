//! What the site keeps of each stored result between builds, in its folder's [`ROWS`]: the
//! result's row (its cells and figures), the facts its standing and regressions are found
//! from, and what its page shows beyond the row — all a build needs of a result but for
//! making its page, so a rebuild reads from the history only the documents that are new or
//! changed (and those of the pages it makes again), not the whole history.
//!
//! Each entry is the result's while its stored document is the same: it holds the document's
//! key (its SHA-256, `Store::keys`), and an entry whose key is not the stored one is made
//! anew. The list is written whole, through a temporary renamed over it; it is made from the
//! history only, never from the folder's pages, so it is right whenever it is whole, whatever
//! happened to the pages. A list of another truebench or another Results.md is not used; one
//! that cannot be read whole (cut, edited, not this writer's) is not used either, and the
//! build says so and reads every document.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use truebench_model::Document;
use truebench_sbcbench::row::MarkdownRow;
use truebench_store::facts::Facts;

use crate::row::{self, Row};
use crate::write::SiteError;

/// The list of what the site keeps of each result: a header line, then one JSON line per
/// result.
pub const ROWS: &str = ".truebench-rows";

/// The header's first words: the list's format.
const FORMAT: &str = "truebench-rows 2";

/// The largest list read: about 4 KB per result, a fleet's millions of results.
const MAX_ROWS: u64 = 16 << 30;

/// One stored result as the site builds it, without its document.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its id in the history.
    pub id: i64,
    /// Its stored document's key (`Store::keys`): this entry is the result's while the stored
    /// document has it. Empty for a result not read from a history.
    pub digest: String,
    /// Its row, as made from its document (before the build names its SoC by the longest
    /// spelling and adds its standing and regressions).
    pub row: Row,
    /// What its standing and regressions are found from.
    pub facts: Facts,
    /// What its page shows beyond its row (its start, phases and findings, by size): a part
    /// of the page's input key.
    pub page: String,
    /// The SHA-256 of its row as made (JSON): what the input keys of its page, its shards and
    /// its SoC's page hold of it, so a rebuild need not write every row out again to see
    /// whether it changed.
    pub row_key: String,
    /// Its line as read from the list, written back as it was: a rebuild after one new
    /// result need not write a fleet's rows out again.
    line: Option<String>,
}

impl Kept {
    /// What the site keeps of the stored result `id`, `doc`.
    pub fn of(id: i64, digest: &str, doc: &Document, published: &[MarkdownRow]) -> Kept {
        let metrics = truebench_figures::metrics(doc);
        let e = &doc.envelope;
        let row = row::row(id, doc, &metrics, published);
        Kept {
            id,
            digest: digest.to_string(),
            row_key: hex(serde_json::to_string(&row).unwrap_or_default().as_bytes()),
            line: None,
            row,
            facts: Facts::of(doc),
            page: format!(
                "{} {} {} {}",
                e.started.utc,
                e.phases.len(),
                e.findings.len(),
                serde_json::to_string(&e.findings)
                    .map(|f| f.len())
                    .unwrap_or(0)
            ),
        }
    }

    /// Its figures as `truebench_figures::metrics` gives them, as far as standing and
    /// regressions read them (a figure that is no finite number is none to either).
    pub(crate) fn figures(&self) -> Vec<truebench_figures::Metric> {
        self.row
            .figures
            .iter()
            .map(|f| truebench_figures::Metric {
                key: f.key.clone(),
                value: f.value,
                text: f.text.clone(),
                unit: f.unit.clone(),
            })
            .collect()
    }
}

/// One line of the list. The figures' values are also kept as their bits: a number read
/// back from JSON may differ from the one written in its last bit, and the site made again
/// must be the same to the byte.
#[derive(Serialize)]
struct LineOut<'a> {
    id: i64,
    digest: &'a str,
    row: &'a Row,
    facts: &'a Facts,
    page: &'a str,
    row_key: &'a str,
    bits: Vec<Option<u64>>,
}

#[derive(Deserialize)]
struct LineIn {
    id: i64,
    digest: String,
    row: Row,
    facts: Facts,
    page: String,
    row_key: String,
    bits: Vec<Option<u64>>,
}

/// What a list depends on beyond the history: this truebench (its rows' making) and the
/// published Results.md rows the site is built with.
fn header(published: &[MarkdownRow]) -> String {
    let rows = serde_json::to_string(published).unwrap_or_default();
    let d: String = Sha256::digest(rows.as_bytes())
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{FORMAT} {} {d}", env!("CARGO_PKG_VERSION"))
}

/// The list's text for `kept`: the header (with the count of lines, their bytes and their
/// SHA-256, so a list cut or changed by anything but this writer is seen), then one line per
/// result.
pub fn text(kept: &[Kept], published: &[MarkdownRow]) -> String {
    let mut body = String::new();
    for k in kept {
        if let Some(l) = &k.line {
            body.push_str(l);
            body.push('\n');
            continue;
        }
        let line = LineOut {
            id: k.id,
            digest: &k.digest,
            row: &k.row,
            facts: &k.facts,
            page: &k.page,
            row_key: &k.row_key,
            bits: k
                .row
                .figures
                .iter()
                .map(|f| f.value.map(f64::to_bits))
                .collect(),
        };
        // A row of strings and numbers always serialises.
        body.push_str(&serde_json::to_string(&line).unwrap_or_default());
        body.push('\n');
    }
    format!(
        "{} {} {} {}\n{body}",
        header(published),
        kept.len(),
        body.len(),
        hex(body.as_bytes())
    )
}

fn hex(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The list in `dir`, by id: empty when there is none, or when it was made by another
/// truebench or with other published rows (every entry is then made anew). An error, saying
/// why, when it is there but cannot be read whole or is not this writer's: the caller makes
/// every entry anew and says so.
pub fn read(dir: &Path, published: &[MarkdownRow]) -> Result<BTreeMap<i64, Kept>, String> {
    let path = dir.join(ROWS);
    let bytes = match truebench_host::read_if_present(&path, MAX_ROWS) {
        Ok(None) => return Ok(BTreeMap::new()),
        Ok(Some(b)) => b,
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let bad = |why: String| format!("{}: {why}", path.display());
    let text = std::str::from_utf8(&bytes).map_err(|_| bad("not text".into()))?;
    let (head, body) = text
        .split_once('\n')
        .ok_or_else(|| bad("no header line".into()))?;
    if head.starts_with("truebench-rows ") && !head.starts_with(&format!("{FORMAT} ")) {
        // An older truebench's list (another format): made anew, nothing wrong.
        return Ok(BTreeMap::new());
    }
    if !head.starts_with(FORMAT) {
        return Err(bad(format!(
            "not a list `truebench site` wrote (`{FORMAT} …`)"
        )));
    }
    let want = header(published);
    let Some(counts) = head
        .strip_prefix(want.as_str())
        .and_then(|c| c.strip_prefix(' '))
    else {
        // Another truebench's or another Results.md's: made anew, nothing wrong.
        return Ok(BTreeMap::new());
    };
    let parts: Vec<&str> = counts.split(' ').collect();
    let (lines, size, sum) = match parts[..] {
        [n, b, d] => (n.parse::<usize>().ok(), b.parse::<usize>().ok(), d),
        _ => (None, None, ""),
    };
    let (Some(lines), Some(size)) = (lines, size) else {
        return Err(bad(format!("a header without its counts: `{head}`")));
    };
    if size != body.len() || lines != body.lines().count() {
        return Err(bad(format!(
            "{} bytes in {} lines where the header says {size} in {lines}: cut or changed",
            body.len(),
            body.lines().count()
        )));
    }
    if sum != hex(body.as_bytes()) {
        return Err(bad(
            "its lines are not those written (their SHA-256 differs)".into(),
        ));
    }
    // Parsed in as many parts as there are CPUs (a fleet's list is hundreds of MB of JSON),
    // then put together in the list's order.
    let lines: Vec<&str> = body.lines().collect();
    let parts = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let per = lines.len().div_ceil(parts).max(1);
    let parsed: Vec<Result<Vec<Kept>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = lines
            .chunks(per)
            .enumerate()
            .map(|(c, chunk)| s.spawn(move || parse_lines(chunk, c * per)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a parser thread failed".into()))
            })
            .collect()
    });
    let mut out = BTreeMap::new();
    for part in parsed {
        for kept in part.map_err(bad)? {
            let id = kept.id;
            if out.insert(id, kept).is_some() {
                return Err(bad(format!("#{id} twice")));
            }
        }
    }
    Ok(out)
}

/// The entries of `lines`, the list's lines from its line `first` (0: the first after the
/// header); an error names the line.
fn parse_lines(lines: &[&str], first: usize) -> Result<Vec<Kept>, String> {
    let mut out = Vec::with_capacity(lines.len());
    for (k, l) in lines.iter().enumerate() {
        let n = first + k;
        let line: LineIn = serde_json::from_str(l).map_err(|e| format!("line {}: {e}", n + 2))?;
        let mut row = line.row;
        if line.bits.len() != row.figures.len() {
            return Err(format!("line {}: figures and values differ", n + 2));
        }
        for (f, b) in row.figures.iter_mut().zip(&line.bits) {
            f.value = b.map(f64::from_bits);
        }
        if row.id != line.id {
            return Err(format!("line {}: two ids", n + 2));
        }
        out.push(Kept {
            id: line.id,
            digest: line.digest,
            row,
            facts: line.facts,
            page: line.page,
            row_key: line.row_key,
            line: Some(l.to_string()),
        });
    }
    Ok(out)
}

/// Write the list `text` into `dir`, whole, through a temporary renamed over it.
pub fn save(dir: &Path, text: &str) -> Result<(), SiteError> {
    crate::write::replace(&dir.join(ROWS), text.as_bytes())
}
