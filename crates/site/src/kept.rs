//! What the site keeps of each stored result between builds, in its folder's [`ROWS`]: the
//! result's row (its cells and figures), the facts its standing and regressions are found
//! from, and what its page shows beyond the row — all a build needs of a result but for
//! making its page, so a rebuild reads from the history only the documents that are new or
//! changed (and those of the pages it makes again), not the whole history.
//!
//! Each entry is the result's while its stored document is the same: it holds the document's
//! key (its SHA-256, `Store::keys`), and an entry whose key is not the stored one is made
//! anew. The entries are kept in two files per shard of ids ([`crate::shards::SHARD`], as the
//! index's rows): `NNNN.brief`, what every build reads of each entry (its [`Brief`], facts
//! and keys), and `NNNN.rows`, each entry's row whole (most of the bytes), of which a build
//! reads only the lines of the files it makes again — a rebuild after one new result reads
//! the brief files and a few hundred rows, not a fleet's rows. A rebuild writes only the
//! shards whose entries changed; each file is written whole, through a temporary renamed
//! over it, the rows before the brief. The brief file's header holds its lines' count,
//! bytes and SHA-256 and the rows file's size; each row line is the row's JSON, whose
//! SHA-256 is the entry's `row_key`: a brief file cut or changed is seen when it is read, a
//! rows file cut or grown too, a row line changed when it is read. Files of another
//! truebench or another Results.md are not used; a file that cannot be read whole (cut,
//! edited, not this writer's) is not used either, and the build says so and reads every
//! document; a row line found changed is a `LoadError` with `kept` set ([`Kept::row`]), and
//! `truebench site` then builds again reading every document.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use truebench_model::Document;
use truebench_sbcbench::row::MarkdownRow;
use truebench_store::facts::Facts;

use crate::row::{self, Row};
use crate::shards;
use crate::write::{hex, io, SiteError};

/// The folder of what the site keeps of each result: two files per shard of ids
/// (`0007.brief`, `0007.rows`). A brief file is a header line, then one JSON line per
/// result, by id; its rows file one row's JSON per line, in the same order.
pub const ROWS: &str = ".truebench-rows";

/// The header's first words: the files' format (2 was one file for every result, 3 one file
/// per shard with each row whole in its line).
const FORMAT: &str = "truebench-rows 4";

/// The largest brief file read: about 1.5 KB per result of a shard.
const MAX_SHARD: u64 = 1 << 30;

/// The largest row line read.
const MAX_ROW: usize = 16 << 20;

/// A shard's brief file's name in [`ROWS`].
fn brief_file(k: i64) -> String {
    format!("{k:04}.brief")
}

/// A shard's rows file's name in [`ROWS`].
fn rows_file(k: i64) -> String {
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
    /// The SHA-256 of its row as made (JSON, its line in the rows file): what the input keys
    /// of its page, its shards and its SoC's page hold of it, so a rebuild need not write
    /// every row out again to see whether it changed.
    pub row_key: String,
    /// Its row whole, or where its row line is.
    whole: Whole,
}

/// An entry's row whole: as made from its document, or where its row line is (read when
/// asked for).
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
#[derive(Debug, Clone, Serialize, Deserialize)]
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

/// A figure as standing and regressions read it: its key, unit and value (kept as its bits
/// beside the brief: a number read back from JSON may differ from the one written in its
/// last bit, and the site made again must be the same to the byte).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BriefFigure {
    pub key: String,
    pub unit: Option<String>,
    #[serde(skip_serializing, default)]
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

/// An entry as read: its row line's place in its shard's rows file, and how many entries its
/// shard held — a shard whose entries are all as read, and all of them, is not written again.
/// (Its brief line is not kept: written again, it is made from the entry, to the byte.)
#[derive(Debug, Clone)]
struct Line {
    rows: Arc<RowsFile>,
    row_at: u64,
    row_len: usize,
    of: usize,
}

/// A shard's rows file. Opened for each line read, not held: a build that makes every page
/// again reads a line of every shard, and a fleet of a million results has a thousand.
#[derive(Debug)]
struct RowsFile {
    path: PathBuf,
}

impl RowsFile {
    /// The line of `len` bytes at `at`, which must be the row whose SHA-256 is `key`.
    fn line(&self, at: u64, len: usize, key: &str) -> Result<String, String> {
        use std::os::unix::fs::FileExt;
        // `len` is at most MAX_ROW: checked when the brief file was read.
        let f = match truebench_host::open_if_present(&self.path) {
            Ok(Some(f)) => f,
            Ok(None) => return Err("not there".into()),
            Err(e) => return Err(e.to_string()),
        };
        let mut buf = vec![0; len];
        f.read_exact_at(&mut buf, at).map_err(|e| e.to_string())?;
        if hex(&buf) != key {
            return Err("not the line written (its SHA-256 differs)".into());
        }
        String::from_utf8(buf).map_err(|_| "not text".into())
    }
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
            row_key: hex(row_json(&row).as_bytes()),
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
    /// back. An error, naming the rows file, when the line is not the row written (cut,
    /// changed) or does not hold a whole row of this truebench.
    pub fn row(&self) -> Result<Cow<'_, Row>, String> {
        let l = match &self.whole {
            Whole::Made(r) => return Ok(Cow::Borrowed(r)),
            Whole::Read(l) => l,
        };
        let text = self.row_line()?;
        let bad = |e: String| format!("{}: the row of #{}: {e}", l.rows.path.display(), self.id);
        let mut row: Row = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if row.id != self.id || row.figures.len() != self.brief.figures.len() {
            return Err(bad("not this result's row".into()));
        }
        for (f, b) in row.figures.iter_mut().zip(&self.brief.figures) {
            f.value = b.value;
        }
        Ok(Cow::Owned(row))
    }

    /// Its row line: its row's JSON, what [`Kept::row_key`] is the SHA-256 of.
    fn row_line(&self) -> Result<Cow<'_, str>, String> {
        match &self.whole {
            Whole::Made(r) => Ok(Cow::Owned(row_json(r))),
            Whole::Read(l) => l
                .rows
                .line(l.row_at, l.row_len, &self.row_key)
                .map(Cow::Owned)
                .map_err(|e| format!("{}: the row of #{}: {e}", l.rows.path.display(), self.id)),
        }
    }
}

/// A row as its line holds it. A row of strings and numbers always serialises.
fn row_json(row: &Row) -> String {
    serde_json::to_string(row).unwrap_or_default()
}

/// The figures' values as their bits say (`bits` as many as the figures).
fn with_bits(figures: &mut [BriefFigure], bits: &[Option<u64>]) -> Result<(), String> {
    if bits.len() != figures.len() {
        return Err("figures and values differ".into());
    }
    for (f, b) in figures.iter_mut().zip(bits) {
        f.value = b.map(f64::from_bits);
    }
    Ok(())
}

/// One line of a brief file. The figures' values are kept as their bits.
#[derive(Serialize)]
struct LineOut<'a> {
    id: i64,
    digest: &'a str,
    brief: &'a Brief,
    facts: &'a Facts,
    page: &'a str,
    row_key: &'a str,
    bits: Vec<Option<u64>>,
    /// The bytes of its row's line in the rows file.
    row_len: usize,
}

/// A brief file's line as read.
#[derive(Deserialize)]
struct LineIn {
    id: i64,
    digest: String,
    brief: Brief,
    facts: Facts,
    page: String,
    row_key: String,
    bits: Vec<Option<u64>>,
    row_len: usize,
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

/// A shard's two files' texts: the brief file's (the header, with the count of lines, their
/// bytes and their SHA-256, so a file cut or changed by anything but this writer is seen, and
/// the rows file's size; then one line per result) and the rows file's. An error when a row
/// kept from the last build cannot be read.
fn texts(kept: &[&Kept], published: &[MarkdownRow]) -> Result<(String, String), String> {
    let mut body = String::new();
    let mut rows = String::new();
    for k in kept {
        let row = k.row_line()?;
        let line = LineOut {
            id: k.id,
            digest: &k.digest,
            brief: &k.brief,
            facts: &k.facts,
            page: &k.page,
            row_key: &k.row_key,
            bits: k
                .brief
                .figures
                .iter()
                .map(|f| f.value.map(f64::to_bits))
                .collect(),
            row_len: row.len(),
        };
        // Strings and numbers always serialise.
        body.push_str(&serde_json::to_string(&line).unwrap_or_default());
        body.push('\n');
        rows.push_str(&row);
        rows.push('\n');
    }
    let brief = format!(
        "{} {} {} {} {}\n{body}",
        header(published),
        kept.len(),
        body.len(),
        hex(body.as_bytes()),
        rows.len()
    );
    Ok((brief, rows))
}

/// A shard's files as found.
#[derive(Debug, Default)]
struct Found {
    brief: Option<PathBuf>,
    rows: Option<PathBuf>,
}

/// The shards' files in the folder `rows`, by shard: `Ok(None)` when there is no such
/// folder, or a file in its place (an older truebench's list, format 2: made anew, nothing
/// wrong).
fn shard_files(rows: &Path) -> Result<Option<BTreeMap<i64, Found>>, String> {
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
    let mut out: BTreeMap<i64, Found> = BTreeMap::new();
    let list = std::fs::read_dir(rows).map_err(|e| format!("{}: {e}", rows.display()))?;
    for e in list {
        let e = e.map_err(|e| format!("{}: {e}", rows.display()))?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        // Temporaries of a write that was killed are not shards.
        if name.starts_with('.') {
            continue;
        }
        let shard = |ext: &str| {
            name.strip_suffix(ext)
                .and_then(|k| k.parse::<i64>().ok())
                .filter(|&k| format!("{k:04}{ext}") == name)
        };
        if let Some(k) = shard(".brief") {
            out.entry(k).or_default().brief = Some(e.path());
        } else if let Some(k) = shard(".rows") {
            out.entry(k).or_default().rows = Some(e.path());
        } else {
            return Err(format!(
                "{}: not a file `truebench site` wrote",
                e.path().display()
            ));
        }
    }
    Ok(Some(out))
}

/// What the site kept in `dir`, by id: empty when it kept nothing, or when it was made by
/// another truebench or with other published rows (every entry is then made anew). An error,
/// saying why, when a file is there but cannot be read whole or is not this writer's: the
/// caller makes every entry anew and says so. Rows files are not read, only their sizes
/// looked at: a row is read when a file made again needs it.
///
/// Each entry boxed: a fleet's hundred thousand are taken out of the map one by one in the
/// history's order, and a B-tree moves its values within a node at each removal (an entry is
/// most of a kilobyte).
pub fn read(dir: &Path, published: &[MarkdownRow]) -> Result<BTreeMap<i64, Box<Kept>>, String> {
    let Some(files) = shard_files(&dir.join(ROWS))? else {
        return Ok(BTreeMap::new());
    };
    let want = header(published);
    // A rows file without its brief file is a shard of an older truebench (format 3) or of a
    // first save that was killed: its results are made anew, nothing wrong.
    let files: Vec<(i64, PathBuf)> = files
        .into_iter()
        .filter_map(|(k, f)| Some((k, f.brief?)))
        .collect();
    // The shards read on as many threads as there are CPUs (a fleet keeps tens of MB).
    let read = crate::par::map(files.len(), 1, |i| {
        read_shard(files[i].0, &files[i].1, &want)
    });
    let mut out = BTreeMap::new();
    for (part, (_, path)) in read.into_iter().zip(&files) {
        for kept in part? {
            let id = kept.id;
            // Each file holds only its shard's ids: a second one is in the same file.
            if out.insert(id, kept).is_some() {
                return Err(format!("{}: #{id} twice", path.display()));
            }
        }
    }
    Ok(out)
}

/// The entries of the shard `k`'s brief file `path`, whose header must begin with `want`; an
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
    let text = String::from_utf8(bytes).map_err(|_| bad("not text".into()))?;
    let (head, body) = text
        .split_once('\n')
        .ok_or_else(|| bad("no header line".into()))?;
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
    let (lines, size, sum, rows_size) = match parts[..] {
        [n, b, d, r] => (
            n.parse::<usize>().ok(),
            b.parse::<usize>().ok(),
            d,
            r.parse::<u64>().ok(),
        ),
        _ => (None, None, "", None),
    };
    let (Some(lines), Some(size), Some(rows_size)) = (lines, size, rows_size) else {
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
    // The rows file: there, this writer's size (a file cut or grown is seen now; a line
    // changed when it is read).
    let rows_path = path.with_file_name(rows_file(k));
    let rows_bad = |why: String| format!("{}: {why}", rows_path.display());
    match std::fs::symlink_metadata(&rows_path) {
        Ok(m) if m.is_file() && m.len() == rows_size => {}
        Ok(m) if m.is_file() => {
            return Err(rows_bad(format!(
                "{} bytes where {} says {rows_size}: cut or changed",
                m.len(),
                path.display()
            )))
        }
        Ok(m) => {
            return Err(rows_bad(format!(
                "a {} where the rows go",
                truebench_host::file_kind(&m.file_type())
            )))
        }
        Err(e) => return Err(rows_bad(e.to_string())),
    }
    let rows = Arc::new(RowsFile { path: rows_path });
    let mut out = Vec::with_capacity(lines);
    let mut row_at = 0u64;
    for (n, l) in body.split_terminator('\n').enumerate() {
        let e = parse_line(l).map_err(|e| bad(format!("line {}: {e}", n + 2)))?;
        if e.row_len > MAX_ROW {
            return Err(bad(format!(
                "line {}: a row of {} bytes, more than a row's {MAX_ROW}",
                n + 2,
                e.row_len
            )));
        }
        if shards::shard_of(e.id) != k {
            return Err(bad(format!(
                "line {}: #{} is not of this shard",
                n + 2,
                e.id
            )));
        }
        let line = Line {
            rows: rows.clone(),
            row_at,
            row_len: e.row_len,
            of: lines,
        };
        row_at += e.row_len as u64 + 1;
        out.push(Box::new(Kept {
            id: e.id,
            digest: e.digest,
            brief: e.brief,
            facts: e.facts,
            page: e.page,
            row_key: e.row_key,
            whole: Whole::Read(line),
        }));
    }
    if row_at != rows_size {
        return Err(bad(format!(
            "its lines' rows come to {row_at} bytes where its header says {rows_size}"
        )));
    }
    Ok(out)
}

/// The brief line `l`, its figures' values set from their bits.
fn parse_line(l: &str) -> Result<LineIn, String> {
    let mut line: LineIn = serde_json::from_str(l).map_err(|e| e.to_string())?;
    with_bits(&mut line.brief.figures, &line.bits)?;
    if line.brief.id != line.id {
        return Err("two ids".into());
    }
    Ok(line)
}

/// Keep `kept` in `dir` for the next build: each shard whose entries are not all as read
/// from it has its files written again (each whole, through a temporary renamed over it, the
/// rows file first: a brief file is never ahead of its rows), a shard no result falls in any
/// more is removed, and the others are left as they are. An older truebench's list in the
/// folder's place is replaced.
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
    // A shard whose kept row cannot be read is not kept at all (its entries are made anew
    // next time), and the others are saved still: said once all are done.
    let mut unread = None;
    for (k, list) in &mut by_shard {
        list.sort_by_key(|e| e.id);
        let n = list.len();
        let as_read = list
            .iter()
            .all(|e| matches!(&e.whole, Whole::Read(l) if l.of == n));
        if as_read && there.get(k).is_some_and(|f| f.brief.is_some()) {
            continue;
        }
        match texts(list, published) {
            Ok((brief, row_lines)) => {
                crate::write::replace(&rows.join(rows_file(*k)), row_lines.as_bytes())?;
                crate::write::replace(&rows.join(brief_file(*k)), brief.as_bytes())?;
            }
            Err(why) => {
                let brief = rows.join(brief_file(*k));
                match std::fs::remove_file(&brief) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(io(&brief)(e));
                    }
                    _ => {}
                }
                unread.get_or_insert(why);
            }
        }
    }
    for (k, found) in &there {
        if !by_shard.contains_key(k) {
            // The brief first: a rows file alone is not read.
            for path in [&found.brief, &found.rows].into_iter().flatten() {
                std::fs::remove_file(path).map_err(io(path))?;
            }
        }
    }
    match unread {
        Some(why) => Err(SiteError::KeptShard { why }),
        None => Ok(()),
    }
}
