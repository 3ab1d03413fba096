//! The local history: every result of every kind and every imported sbc-bench log in one SQLite database
//! (bundled SQLite, nothing to install), by default `$XDG_DATA_HOME/truebench/history.sqlite`.
//!
//! Each result is one row of `results` (kind, machine identity, time, validity, the full
//! document as JSON) plus its headline figures in `metrics` (result, key, value or text,
//! unit), which `history`, `compare` and `rank` read for any kind. Duplicates are found by the
//! SHA-256 of the document and confirmed by comparing its text.
//!
//! Durability: WAL journal, every write in its own `BEGIN IMMEDIATE` transaction (the write
//! lock is taken up front, so two writers queue instead of failing halfway), and a busy
//! timeout long enough for the other writer to finish. A process killed mid-write leaves
//! either the whole row or nothing: SQLite rolls back the unfinished transaction when the
//! database is next opened.
//!
//! `compare` sets results side by side; `rank` places a run among sbc-bench logs.

pub mod compare;
pub mod rank;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::compare::Metrics;
use truebench_model::{migrate, BodyKind, Document, Stamp, Typed, View};
use truebench_render::kinds;

/// How long a writer waits for the other writer's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);
/// `PRAGMA user_version` of the layout below.
const LAYOUT_VERSION: i64 = 2;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Sqlite {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{path}: cannot create the folder: {source}")]
    Folder {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: run {id}: stored document unreadable: {reason}")]
    Document {
        path: String,
        id: i64,
        reason: String,
    },
    #[error(
        "{path}: written by a newer truebench (layout {found}, this build knows {LAYOUT_VERSION})"
    )]
    NewerLayout { path: String, found: i64 },
    #[error("no history database location: neither XDG_DATA_HOME nor HOME is set; give --db PATH")]
    NoLocation,
    #[error("{path}: no history database there (nothing has been stored yet)")]
    Missing { path: String },
    #[error("{path}: is a directory; give the database file (…/history.sqlite)")]
    IsDirectory { path: String },
}

/// `$XDG_DATA_HOME/truebench/history.sqlite`, else `~/.local/share/truebench/history.sqlite`.
pub fn default_path() -> Result<PathBuf, StoreError> {
    let xdg = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty());
    let base = match xdg {
        Some(x) if Path::new(&x).is_absolute() => PathBuf::from(x),
        _ => {
            let home = std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .ok_or(StoreError::NoLocation)?;
            PathBuf::from(home).join(".local/share")
        }
    };
    Ok(base.join("truebench").join("history.sqlite"))
}

/// One listed result.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub id: i64,
    /// `run`, `clocks`, `monitor`.
    pub kind: String,
    pub started_unix_ms: i64,
    pub started_utc: String,
    pub device: Option<String>,
    pub soc: Option<String>,
    pub hostname: Option<String>,
    /// What was measured, in a few words: a run's mode, `OPP walk`, a monitored command.
    pub mode: String,
    pub valid: bool,
    pub complete: bool,
    /// `run` (measured by truebench) or `sbc-bench` (imported log).
    pub source: String,
    /// The imported log's file name.
    pub source_name: Option<String>,
    /// The headline figures (`sevenzip_multi`, `cluster0_measured_mhz`, `exit_code`…).
    #[serde(flatten)]
    pub metrics: BTreeMap<String, serde_json::Value>,
}

impl Entry {
    fn number(&self, key: &str) -> Option<u64> {
        self.metrics
            .get(key)
            .and_then(|v| v.as_f64())
            .map(|v| v.max(0.0) as u64)
    }

    fn text(&self, key: &str) -> Option<String> {
        self.metrics
            .get(key)
            .and_then(|v| v.as_str())
            .map(String::from)
    }

    /// The Results.md figures of a `run` entry (all None for other kinds).
    pub fn run_metrics(&self) -> Metrics {
        Metrics {
            sevenzip_multi: self.number("sevenzip_multi"),
            sevenzip_single: self.number("sevenzip_single"),
            aes: self.number("aes"),
            memcpy: self.number("memcpy"),
            memset: self.number("memset"),
            sevenzip_version: self.text("sevenzip_version"),
            openssl_version: self.text("openssl_version"),
        }
    }
}

/// What `list` returns: results whose device, SoC or hostname contains `device`
/// (case-insensitive), of `kind`, that started at or after `since_unix_ms`.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub device: Option<String>,
    pub since_unix_ms: Option<i64>,
    pub kind: Option<String>,
}

/// Result of [`Store::insert`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inserted {
    pub id: i64,
    /// False when the same document was already stored (same content).
    pub new: bool,
}

pub struct Store {
    conn: Connection,
    path: String,
}

/// SHA-256 of the stored JSON, hex: identical documents (the same log imported twice) share
/// it, and different documents do not (the stored text is compared too, so even a collision
/// could not drop a result).
fn digest(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A result of any kind, or of a known kind, as the store takes it.
pub trait AsDocument {
    fn as_document(&self) -> Cow<'_, Document>;
}

impl AsDocument for Document {
    fn as_document(&self) -> Cow<'_, Document> {
        Cow::Borrowed(self)
    }
}

impl<B: BodyKind> AsDocument for Typed<B> {
    fn as_document(&self) -> Cow<'_, Document> {
        Cow::Owned(self.to_document())
    }
}

const CREATE_V2: &str = "CREATE TABLE IF NOT EXISTS results (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        stored_unix_ms INTEGER NOT NULL,
        started_unix_ms INTEGER NOT NULL,
        started_utc TEXT NOT NULL,
        device TEXT,
        soc TEXT,
        hostname TEXT,
        label TEXT NOT NULL,
        valid INTEGER NOT NULL,
        complete INTEGER NOT NULL,
        source TEXT NOT NULL,
        source_name TEXT,
        schema_version INTEGER NOT NULL,
        truebench_version TEXT NOT NULL,
        document TEXT NOT NULL
     );
     CREATE INDEX IF NOT EXISTS results_started ON results(started_unix_ms);
     CREATE INDEX IF NOT EXISTS results_device ON results(device);
     CREATE INDEX IF NOT EXISTS results_kind ON results(kind);
     CREATE TABLE IF NOT EXISTS metrics (
        result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value REAL,
        text TEXT,
        unit TEXT,
        PRIMARY KEY (result_id, key)
     );";

impl Store {
    /// Open (creating it and its folder if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let shown = path.display().to_string();
        if path.is_dir() {
            return Err(StoreError::IsDirectory { path: shown });
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Folder {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let sq = |source| StoreError::Sqlite {
            path: shown.clone(),
            source,
        };
        let conn = Connection::open(path).map_err(sq)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sq)?;
        // WAL: readers never block the writer, and a commit is one append to the log.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sq)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sq)?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(sq)?;
        let mut s = Store { conn, path: shown };
        s.migrate_layout()?;
        Ok(s)
    }

    /// Open an existing database for the commands that only read (history, report, compare):
    /// a path where none is creates nothing and is `Missing`.
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        let shown = path.display().to_string();
        if path.is_dir() {
            return Err(StoreError::IsDirectory { path: shown });
        }
        if !path.exists() {
            return Err(StoreError::Missing { path: shown });
        }
        Store::open(path)
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// A write transaction that holds the write lock from its start, so two writers queue
    /// instead of failing halfway.
    fn immediate(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        let path = self.path.clone();
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| StoreError::Sqlite { path, source })
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Layout 1 (one `runs` table with the Results.md columns) becomes layout 2 (`results` of
    /// any kind + `metrics`), every document migrated to the current schema, ids kept.
    fn migrate_layout(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sq = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.immediate()?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sq)?;
        if version > LAYOUT_VERSION {
            return Err(StoreError::NewerLayout {
                path: path.clone(),
                found: version,
            });
        }
        if version < LAYOUT_VERSION {
            tx.execute_batch(CREATE_V2).map_err(sq)?;
        }
        if version == 1 {
            let old: Vec<(i64, i64, String)> = {
                let mut stmt = tx
                    .prepare("SELECT id, stored_unix_ms, json FROM runs ORDER BY id")
                    .map_err(sq)?;
                let rows = stmt
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .map_err(sq)?;
                rows.collect::<Result<_, _>>().map_err(sq)?
            };
            for (id, stored, json) in old {
                let bad = |reason: String| StoreError::Document {
                    path: path.clone(),
                    id,
                    reason: format!("cannot carry it over to the new layout: {reason}"),
                };
                let v: serde_json::Value =
                    serde_json::from_str(&json).map_err(|e| bad(e.to_string()))?;
                let doc = migrate(v).map_err(|e| bad(e.to_string()))?;
                insert_doc(&tx, &path, &doc, Some(id), stored)?;
            }
            tx.execute_batch("DROP TABLE runs;").map_err(sq)?;
        }
        if version < LAYOUT_VERSION {
            tx.pragma_update(None, "user_version", LAYOUT_VERSION)
                .map_err(sq)?;
        }
        tx.commit().map_err(sq)
    }

    /// Store one result in its own transaction. The same document stored again is not
    /// duplicated: its existing id comes back with `new: false`.
    pub fn insert(&mut self, doc: &impl AsDocument) -> Result<Inserted, StoreError> {
        let doc = doc.as_document();
        let path = self.path.clone();
        let tx = self.immediate()?;
        let ins = insert_doc(&tx, &path, &doc, None, Stamp::now().unix_ms)?;
        tx.commit()
            .map_err(|source| StoreError::Sqlite { path, source })?;
        Ok(ins)
    }

    /// The stored document `id`, migrated to the current model.
    pub fn get(&self, id: i64) -> Result<Option<Document>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT document FROM results WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.err(e))?;
        let Some(text) = text else {
            return Ok(None);
        };
        let doc = |reason: String| StoreError::Document {
            path: self.path.clone(),
            id,
            reason,
        };
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| doc(e.to_string()))?;
        migrate(v).map(Some).map_err(|e| doc(e.to_string()))
    }

    /// [`Store::get`] of a result that must be of kind `B`.
    pub fn get_typed<B: BodyKind>(&self, id: i64) -> Result<Option<Typed<B>>, StoreError> {
        match self.get(id)? {
            None => Ok(None),
            Some(d) => d.into_typed().map(Some).map_err(|d| StoreError::Document {
                path: self.path.clone(),
                id,
                reason: format!("a {} result, not a {} result", d.kind(), B::KIND),
            }),
        }
    }

    /// Results matching `f`, oldest first, with their metrics.
    pub fn list(&self, f: &Filter) -> Result<Vec<Entry>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, kind, started_unix_ms, started_utc, device, soc, hostname, label,
                        valid, complete, source, source_name
                 FROM results
                 WHERE (?1 IS NULL OR instr(lower(coalesce(device, '') || ' ' || coalesce(soc, '')
                                         || ' ' || coalesce(hostname, '')), lower(?1)) > 0)
                   AND (?2 IS NULL OR started_unix_ms >= ?2)
                   AND (?3 IS NULL OR kind = ?3)
                 ORDER BY started_unix_ms, id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![f.device, f.since_unix_ms, f.kind], |r| {
                Ok(Entry {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    started_unix_ms: r.get(2)?,
                    started_utc: r.get(3)?,
                    device: r.get(4)?,
                    soc: r.get(5)?,
                    hostname: r.get(6)?,
                    mode: r.get(7)?,
                    valid: r.get(8)?,
                    complete: r.get(9)?,
                    source: r.get(10)?,
                    source_name: r.get(11)?,
                    metrics: BTreeMap::new(),
                })
            })
            .map_err(|e| self.err(e))?;
        let mut entries = rows
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        let mut m = self
            .conn
            .prepare("SELECT key, value, text FROM metrics WHERE result_id = ?1")
            .map_err(|e| self.err(e))?;
        for e in &mut entries {
            let rows = m
                .query_map([e.id], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<f64>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                    ))
                })
                .map_err(|err| self.err(err))?;
            for row in rows {
                let (k, v, t) = row.map_err(|err| self.err(err))?;
                let value = match (v, t) {
                    // Whole numbers stay integers in JSON (2989, not 2989.0).
                    (Some(v), _) if v.fract() == 0.0 && v.abs() < 9.0e15 => (v as i64).into(),
                    (Some(v), _) => v.into(),
                    (None, Some(t)) => t.into(),
                    (None, None) => serde_json::Value::Null,
                };
                e.metrics.insert(k, value);
            }
        }
        Ok(entries)
    }

    pub fn count(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM results", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// SQLite's `PRAGMA integrity_check`: `ok`, or the problems found.
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.err(e))?;
        let lines = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(lines.join("\n"))
    }
}

/// Insert `doc` (with `id` when carrying over an old row) and its metrics inside `tx`.
fn insert_doc(
    tx: &rusqlite::Transaction<'_>,
    path: &str,
    doc: &Document,
    id: Option<i64>,
    stored_unix_ms: i64,
) -> Result<Inserted, StoreError> {
    let sq = |source| StoreError::Sqlite {
        path: path.to_string(),
        source,
    };
    let json = serde_json::to_string(doc).map_err(|e| StoreError::Document {
        path: path.to_string(),
        id: id.unwrap_or(0),
        reason: e.to_string(),
    })?;
    let d = digest(&json);
    // Same key: the same document, unless the texts differ (a SHA-256 collision, never seen);
    // then the key gets a suffix so nothing is dropped.
    let mut key = d.clone();
    for n in 1.. {
        let found: Option<(i64, String)> = tx
            .query_row(
                "SELECT id, document FROM results WHERE key = ?1",
                [&key],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(sq)?;
        match found {
            Some((id, text)) if text == json => return Ok(Inserted { id, new: false }),
            Some(_) => key = format!("{d}-{n}"),
            None => break,
        }
    }
    let env = &doc.envelope;
    let (source, source_name) = match truebench_sbcbench::convert::import_source(View {
        envelope: env,
        body: &(),
    }) {
        Some((_, name)) => ("sbc-bench", name),
        None => ("run", None),
    };
    tx.execute(
        "INSERT INTO results (id, key, kind, stored_unix_ms, started_unix_ms, started_utc, device,
            soc, hostname, label, valid, complete, source, source_name, schema_version,
            truebench_version, document)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        params![
            id,
            key,
            doc.kind(),
            stored_unix_ms,
            env.started.unix_ms,
            env.started.utc,
            env.inventory.device,
            env.inventory.soc.as_ref().map(|s| s.name.clone()),
            env.hostname,
            kinds::label(doc),
            env.valid,
            env.complete,
            source,
            source_name,
            doc.schema_version,
            env.truebench_version,
            json,
        ],
    )
    .map_err(sq)?;
    let id = tx.last_insert_rowid();
    for m in kinds::metrics(doc) {
        tx.execute(
            "INSERT OR REPLACE INTO metrics (result_id, key, value, text, unit)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, m.key, m.value, m.text, m.unit],
        )
        .map_err(sq)?;
    }
    Ok(Inserted { id, new: true })
}

/// `--since`: `2024-03-01`, `2024-03-01T12:00`, or an age (`7d`, `12h`, `30m`) before
/// `now_ms`. Dates are UTC. None for anything else.
pub fn parse_since(s: &str, now_ms: i64) -> Option<i64> {
    let s = s.trim();
    if let Some(unit) = s.chars().last().filter(|c| c.is_ascii_alphabetic()) {
        let n: f64 = s[..s.len() - 1].parse().ok()?;
        let secs = match unit {
            'd' => 86_400.0,
            'h' => 3600.0,
            'm' => 60.0,
            'w' => 7.0 * 86_400.0,
            _ => return None,
        };
        return (n >= 0.0).then(|| now_ms - (n * secs * 1000.0) as i64);
    }
    let (date, time) = s.split_once(['T', ' ']).unwrap_or((s, "00:00"));
    let mut d = date.split('-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: u32 = d.next()?.parse().ok()?;
    let day: u32 = d.next()?.parse().ok()?;
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let mut t = time.split(':');
    let hh: i64 = t.next()?.parse().ok()?;
    let mm: i64 = t.next().map_or(Some(0), |v| v.parse().ok())?;
    let unix = truebench_model::unix_s_utc(y.try_into().ok()?, m as i8, day as i8, 0, 0, 0)?;
    Some((unix + hh * 3600 + mm * 60) * 1000)
}

/// Store `r` in the history at `db` (or the default location): the one call `truebench run`
/// makes after writing its result folder.
pub fn store_result(
    r: &impl AsDocument,
    db: Option<&Path>,
) -> Result<(PathBuf, Inserted), StoreError> {
    let path = match db {
        Some(p) => p.to_path_buf(),
        None => default_path()?,
    };
    let mut s = Store::open(&path)?;
    let ins = s.insert(r)?;
    Ok((path, ins))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since() {
        let now = 1_700_000_000_000;
        assert_eq!(parse_since("7d", now), Some(now - 7 * 86_400_000));
        assert_eq!(parse_since("12h", now), Some(now - 12 * 3_600_000));
        assert_eq!(
            truebench_model::rfc3339_utc(parse_since("2024-03-01", now).unwrap()),
            "2024-03-01T00:00:00.000Z"
        );
        assert_eq!(
            truebench_model::rfc3339_utc(parse_since("2024-03-01T12:30", now).unwrap()),
            "2024-03-01T12:30:00.000Z"
        );
        assert_eq!(parse_since("yesterday", now), None);
        assert_eq!(parse_since("2024-13-01", now), None);
    }

    #[test]
    fn digest_is_stable_and_content_bound() {
        assert_eq!(
            digest(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_ne!(digest("{\"a\":1}"), digest("{\"a\":2}"));
    }
}
