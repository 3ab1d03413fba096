//! What the site keeps of each stored result between builds, in its folder's [`ROWS`]: the
//! result's row (its cells and figures), the facts its standing and regressions are found
//! from, and what its page shows beyond the row — all a build needs of a result but for
//! making its page, so a rebuild reads from the history only the documents that are new or
//! changed (and those of the pages it makes again), not the whole history.
//!
//! Each entry is the result's while its stored document is the same: it holds the document's
//! key (its SHA-256, `Store::keys`), and an entry whose key is not the stored one is made
//! anew. The entries are kept in one file per shard of ids ([`crate::shards::SHARD`], as the
//! index's rows), so a rebuild after one new result writes one file, not a fleet's list; each
//! file is written whole, through a temporary renamed over it, and each entry stands alone
//! (keyed by its document), so the files are right whenever each is whole, whatever happened
//! between them or to the pages. Files of another truebench or another Results.md are not
//! used; one that cannot be read whole (cut, edited, not this writer's) is not used either,
//! and the build says so and reads every document. An entry is read for its [`Brief`] part;
//! a line whose row cannot be read whole is found when a file needs it ([`Kept::row`], a
//! `LoadError` with `kept` set), and `truebench site` then builds again reading every
//! document.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use truebench_model::Document;
use truebench_sbcbench::row::MarkdownRow;
use truebench_store::facts::Facts;

use crate::row::{self, Row};
use crate::shards;
use crate::write::{hex, io, SiteError};

/// The folder of what the site keeps of each result: a file per shard of ids (`0007.rows`),
/// each a header line, then one JSON line per result, by id.
pub const ROWS: &str = ".truebench-rows";

/// The header's first words: the files' format (2 was one file for every result).
const FORMAT: &str = "truebench-rows 3";

/// The largest shard file read: about 4 KB per result of a shard.
const MAX_SHARD: u64 = 1 << 30;

/// A shard's file name in [`ROWS`].
fn shard_file(k: i64) -> String {
    format!("{k:04}.rows")
}

/// One stored result as the site builds it, without its document.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its id in the history.
    pub id: i64,
    /// Its stored document's key (`Store::keys`): this entry is the result's while the stored
    /// document has it. Empty for a result not read from a history.
    pub digest: String,
    /// What every build reads of its row; the rest of the row ([`Kept::row`]) is needed only
    /// for the files made again.
    pub brief: Brief,
    /// What its standing and regressions are found from.
    pub facts: Facts,
    /// What its page shows beyond its row (its start, phases and findings, by size): a part
    /// of the page's input key.
    pub page: String,
    /// The SHA-256 of its row as made (JSON): what the input keys of its page, its shards and
    /// its SoC's page hold of it, so a rebuild need not write every row out again to see
    /// whether it changed.
    pub row_key: String,
    /// Its row whole, or its line as read.
    whole: Whole,
}

/// An entry's row whole: as made from its document, or its line as read (written back as it
/// was, and its row read from it when asked for).
#[derive(Debug, Clone)]
enum Whole {
    /// Boxed: an entry read back, most of a fleet's, holds no row.
    Made(Box<Row>),
    Read(Line),
}

/// What every build reads of each result's row, whether or not it makes a file of it: the
/// index's filters and order, its neighbours' labels on a result page, its SoC's name, and
/// the figures its standing and regressions are found from. An entry read back is parsed
/// into this alone: a fleet's rows are not read whole for the handful of files a rebuild
/// makes (their cells, published columns and figures' labels are most of a line).
#[derive(Debug, Clone, Deserialize)]
pub struct Brief {
    pub id: i64,
    pub kind: String,
    pub label: String,
    pub device: String,
    /// The chip as the row names it (before the build names it by its longest spelling).
    pub soc: Option<String>,
    pub core_types: Vec<String>,
    pub arch: String,
    pub source: String,
    pub unix_ms: i64,
    pub figures: Vec<BriefFigure>,
}

/// A figure as standing and regressions read it: its key, unit and value.
#[derive(Debug, Clone, Deserialize)]
pub struct BriefFigure {
    pub key: String,
    pub unit: Option<String>,
    pub value: Option<f64>,
}

impl truebench_figures::Figure for BriefFigure {
    fn key(&self) -> &str {
        &self.key
    }
    fn value(&self) -> Option<f64> {
        self.value
    }
    fn unit(&self) -> Option<&str> {
        self.unit.as_deref()
    }
}

impl Brief {
    fn of(r: &Row) -> Brief {
        Brief {
            id: r.id,
            kind: r.kind.clone(),
            label: r.label.clone(),
            device: r.device.clone(),
            soc: r.soc.clone(),
            core_types: r.core_types.clone(),
            arch: r.arch.clone(),
            source: r.source.clone(),
            unix_ms: r.unix_ms,
            figures: r
                .figures
                .iter()
                .map(|f| BriefFigure {
                    key: f.key.clone(),
                    unit: f.unit.clone(),
                    value: f.value,
                })
                .collect(),
        }
    }
}

/// An entry's line as read: its place in its shard file's text, which the shard's entries
/// share (a fleet's lines are not copied one by one), and how many entries that file held —
/// a shard whose entries are all as read, and all of them, is not written again.
#[derive(Debug, Clone)]
struct Line {
    text: std::sync::Arc<String>,
    at: std::ops::Range<usize>,
    of: usize,
    /// Its file, for a message (shared by the shard's entries).
    path: std::sync::Arc<Path>,
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
            brief: Brief::of(&row),
            whole: Whole::Made(Box::new(row)),
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

    /// Its row whole, as made from its document: read from its kept line for an entry read
    /// back. An error, naming the line's file, when the line does not hold a whole row of this
    /// truebench (its brief part read, the rest not: a file written by a build of the same
    /// version with another row).
    pub fn row(&self) -> Result<Cow<'_, Row>, String> {
        let l = match &self.whole {
            Whole::Made(r) => return Ok(Cow::Borrowed(r)),
            Whole::Read(l) => l,
        };
        let bad = |e: String| format!("{}: the line of #{}: {e}", l.path.display(), self.id);
        let line: LineIn =
            serde_json::from_str(&l.text[l.at.clone()]).map_err(|e| bad(e.to_string()))?;
        let mut row = line.row;
        with_bits(&mut row.figures, &line.bits, |f| &mut f.value).map_err(bad)?;
        Ok(Cow::Owned(row))
    }
}

/// The figures' values as their bits say (`bits` as many as the figures).
fn with_bits<F>(
    figures: &mut [F],
    bits: &[Option<u64>],
    value: impl Fn(&mut F) -> &mut Option<f64>,
) -> Result<(), String> {
    if bits.len() != figures.len() {
        return Err("figures and values differ".into());
    }
    for (f, b) in figures.iter_mut().zip(bits) {
        *value(f) = b.map(f64::from_bits);
    }
    Ok(())
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

/// A line's row whole (the rest of the line is read as [`LineBrief`]).
#[derive(Deserialize)]
struct LineIn {
    row: Row,
    bits: Vec<Option<u64>>,
}

/// A line as every build reads it: its row's [`Brief`] part.
#[derive(Deserialize)]
struct LineBrief {
    id: i64,
    digest: String,
    row: Brief,
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

/// A shard file's text: the header (with the count of lines, their bytes and their SHA-256,
/// so a file cut or changed by anything but this writer is seen), then one line per result.
fn text(kept: &[&Kept], published: &[MarkdownRow]) -> String {
    let mut body = String::new();
    for k in kept {
        let row = match &k.whole {
            Whole::Read(l) => {
                body.push_str(&l.text[l.at.clone()]);
                body.push('\n');
                continue;
            }
            Whole::Made(r) => r,
        };
        let line = LineOut {
            id: k.id,
            digest: &k.digest,
            row,
            facts: &k.facts,
            page: &k.page,
            row_key: &k.row_key,
            bits: row
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

/// The shard files in the folder `rows`, by shard: `Ok(None)` when there is no such folder,
/// or a file in its place (an older truebench's list, format 2: made anew, nothing wrong).
fn shard_files(rows: &Path) -> Result<Option<BTreeMap<i64, std::path::PathBuf>>, String> {
    match std::fs::symlink_metadata(rows) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", rows.display())),
        Ok(m) if m.is_file() => return Ok(None),
        Ok(m) if !m.is_dir() => {
            return Err(format!(
                "{}: not a folder `truebench site` wrote",
                rows.display()
            ))
        }
        Ok(_) => {}
    }
    let mut out = BTreeMap::new();
    let list = std::fs::read_dir(rows).map_err(|e| format!("{}: {e}", rows.display()))?;
    for e in list {
        let e = e.map_err(|e| format!("{}: {e}", rows.display()))?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        // Temporaries of a write that was killed are not shards.
        if name.starts_with('.') {
            continue;
        }
        match name
            .strip_suffix(".rows")
            .and_then(|k| k.parse::<i64>().ok())
        {
            Some(k) if shard_file(k) == name => {
                out.insert(k, e.path());
            }
            _ => {
                return Err(format!(
                    "{}: not a file `truebench site` wrote",
                    e.path().display()
                ))
            }
        }
    }
    Ok(Some(out))
}

/// What the site kept in `dir`, by id: empty when it kept nothing, or when it was made by
/// another truebench or with other published rows (every entry is then made anew). An error,
/// saying why, when a file is there but cannot be read whole or is not this writer's: the
/// caller makes every entry anew and says so.
///
/// Each entry boxed: a fleet's hundred thousand are taken out of the map one by one in the
/// history's order, and a B-tree moves its values within a node at each removal (an entry is
/// most of a kilobyte).
pub fn read(dir: &Path, published: &[MarkdownRow]) -> Result<BTreeMap<i64, Box<Kept>>, String> {
    let Some(files) = shard_files(&dir.join(ROWS))? else {
        return Ok(BTreeMap::new());
    };
    let want = header(published);
    // The shards read on as many threads as there are CPUs (a fleet keeps hundreds of MB).
    let files: Vec<(i64, std::path::PathBuf)> = files.into_iter().collect();
    let read = crate::par::map(files.len(), 1, |i| {
        read_shard(files[i].0, &files[i].1, &want)
    });
    let mut out = BTreeMap::new();
    for part in read {
        for kept in part? {
            let id = kept.id;
            if out.insert(id, kept).is_some() {
                return Err(format!("{}: #{id} twice", dir.join(ROWS).display()));
            }
        }
    }
    Ok(out)
}

/// The entries of the shard `k`'s file `path`, whose header must begin with `want`; an
/// error names the file and the line.
// Boxed here, on the reading threads, for the map they go into (see `read`).
#[allow(clippy::vec_box)]
fn read_shard(k: i64, path: &Path, want: &str) -> Result<Vec<Box<Kept>>, String> {
    let bad = |why: String| format!("{}: {why}", path.display());
    let bytes = match truebench_host::read_if_present(path, MAX_SHARD) {
        Ok(Some(b)) => b,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(bad(e.to_string())),
    };
    let text = std::sync::Arc::new(String::from_utf8(bytes).map_err(|_| bad("not text".into()))?);
    let (head, body) = text
        .split_once('\n')
        .ok_or_else(|| bad("no header line".into()))?;
    let body_at = head.len() + 1;
    if !head.starts_with(FORMAT) {
        return Err(bad(format!(
            "not a file `truebench site` wrote (`{FORMAT} …`)"
        )));
    }
    let Some(counts) = head.strip_prefix(want).and_then(|c| c.strip_prefix(' ')) else {
        // Another truebench's or another Results.md's: made anew, nothing wrong.
        return Ok(Vec::new());
    };
    let parts: Vec<&str> = counts.split(' ').collect();
    let (lines, size, sum) = match parts[..] {
        [n, b, d] => (n.parse::<usize>().ok(), b.parse::<usize>().ok(), d),
        _ => (None, None, ""),
    };
    let (Some(lines), Some(size)) = (lines, size) else {
        return Err(bad(format!("a header without its counts: `{head}`")));
    };
    if size != body.len() || lines != body.split_terminator('\n').count() {
        return Err(bad(format!(
            "{} bytes in {} lines where the header says {size} in {lines}: cut or changed",
            body.len(),
            body.split_terminator('\n').count()
        )));
    }
    if sum != hex(body.as_bytes()) {
        return Err(bad(
            "its lines are not those written (their SHA-256 differs)".into(),
        ));
    }
    let mut out = Vec::with_capacity(lines);
    let shared_path: std::sync::Arc<Path> = path.into();
    let mut at = body_at;
    for (n, l) in body.split_terminator('\n').enumerate() {
        let line = Line {
            text: text.clone(),
            at: at..at + l.len(),
            of: lines,
            path: shared_path.clone(),
        };
        let kept = parse_line(l, line).map_err(|e| bad(format!("line {}: {e}", n + 2)))?;
        at += l.len() + 1;
        if shards::shard_of(kept.id) != k {
            return Err(bad(format!(
                "line {}: #{} is not of this shard",
                n + 2,
                kept.id
            )));
        }
        out.push(Box::new(kept));
    }
    Ok(out)
}

/// The entry of the line `l`, `line` in its file.
fn parse_line(l: &str, line_at: Line) -> Result<Kept, String> {
    let line: LineBrief = serde_json::from_str(l).map_err(|e| e.to_string())?;
    let mut brief = line.row;
    with_bits(&mut brief.figures, &line.bits, |f| &mut f.value)?;
    if brief.id != line.id {
        return Err("two ids".into());
    }
    Ok(Kept {
        id: line.id,
        digest: line.digest,
        brief,
        facts: line.facts,
        page: line.page,
        row_key: line.row_key,
        whole: Whole::Read(line_at),
    })
}

/// Keep `kept` in `dir` for the next build: each shard file whose entries are not all as
/// read from it is written again (whole, through a temporary renamed over it), a shard no
/// result falls in any more is removed, and the others are left as they are. An older
/// truebench's list in the folder's place is replaced.
pub fn save(dir: &Path, kept: &[Kept], published: &[MarkdownRow]) -> Result<(), SiteError> {
    let rows = dir.join(ROWS);
    let there = match shard_files(&rows) {
        Ok(Some(files)) => files,
        Ok(None) => {
            if std::fs::symlink_metadata(&rows).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&rows).map_err(io(&rows))?;
            }
            std::fs::create_dir_all(&rows).map_err(io(&rows))?;
            BTreeMap::new()
        }
        // Something this writer did not put there: left alone.
        Err(why) => return Err(SiteError::Kept { why }),
    };
    // A killed save's temporaries.
    crate::write::sweep(&rows);
    let mut by_shard: BTreeMap<i64, Vec<&Kept>> = BTreeMap::new();
    for k in kept {
        by_shard.entry(shards::shard_of(k.id)).or_default().push(k);
    }
    for (k, list) in &mut by_shard {
        list.sort_by_key(|e| e.id);
        let n = list.len();
        let as_read = list
            .iter()
            .all(|e| matches!(&e.whole, Whole::Read(l) if l.of == n));
        if as_read && there.contains_key(k) {
            continue;
        }
        crate::write::replace(&rows.join(shard_file(*k)), text(list, published).as_bytes())?;
    }
    for (k, path) in &there {
        if !by_shard.contains_key(k) {
            std::fs::remove_file(path).map_err(io(path))?;
        }
    }
    Ok(())
}
