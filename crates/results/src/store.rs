//! The local history: every run and every imported sbc-bench log in one SQLite database
//! (bundled SQLite, nothing to install), by default `$XDG_DATA_HOME/truebench/history.sqlite`.
//!
//! Each result is one row: the full `RunResult` JSON plus indexed columns for listing and
//! ranking (date, device, SoC, mode, validity, the Results.md scores and tool versions).
//!
//! Durability: WAL journal, every write in its own `BEGIN IMMEDIATE` transaction (the write
//! lock is taken up front, so two writers queue instead of failing halfway), and a busy
//! timeout long enough for the other writer to finish. A process killed mid-write leaves
//! either the whole row or nothing: SQLite rolls back the unfinished transaction when the
//! database is next opened.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::compare::{metrics, Metrics};
use crate::convert::{import_source, is_imported};
use crate::model::{migrate_typed, RunResult};

/// How long a writer waits for the other writer's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);
/// `PRAGMA user_version` of the layout below.
const LAYOUT_VERSION: i64 = 1;

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

/// One listed run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub id: i64,
    pub started_unix_ms: i64,
    pub started_utc: String,
    pub device: Option<String>,
    pub soc: Option<String>,
    pub hostname: Option<String>,
    pub mode: String,
    pub valid: bool,
    pub complete: bool,
    /// `run` (measured by truebench) or `sbc-bench` (imported log).
    pub source: String,
    /// The imported log's file name.
    pub source_name: Option<String>,
    #[serde(flatten)]
    pub metrics: Metrics,
}

/// What `list` returns: runs whose device or SoC contains `device` (case-insensitive) and
/// that started at or after `since_unix_ms`.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub device: Option<String>,
    pub since_unix_ms: Option<i64>,
}

/// Result of [`Store::insert`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inserted {
    pub id: i64,
    /// False when the same document was already stored (same content digest).
    pub new: bool,
}

pub struct Store {
    conn: Connection,
    path: String,
}

/// FNV-1a 64 of the stored JSON: identical documents (the same log imported twice) share it.
fn digest(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl Store {
    /// Open (creating it and its folder if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let shown = path.display().to_string();
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
        let mut s = Store { conn, path: shown };
        s.migrate_layout()?;
        Ok(s)
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    fn migrate_layout(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sq = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sq)?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sq)?;
        if version > LAYOUT_VERSION {
            return Err(StoreError::NewerLayout {
                path: path.clone(),
                found: version,
            });
        }
        if version < 1 {
            tx.execute_batch(
                "CREATE TABLE IF NOT EXISTS runs (
                    id INTEGER PRIMARY KEY,
                    digest TEXT NOT NULL UNIQUE,
                    stored_unix_ms INTEGER NOT NULL,
                    started_unix_ms INTEGER NOT NULL,
                    started_utc TEXT NOT NULL,
                    device TEXT,
                    soc TEXT,
                    hostname TEXT,
                    mode TEXT NOT NULL,
                    valid INTEGER NOT NULL,
                    complete INTEGER NOT NULL,
                    source TEXT NOT NULL,
                    source_name TEXT,
                    schema_version INTEGER NOT NULL,
                    truebench_version TEXT NOT NULL,
                    sevenzip_multi INTEGER,
                    sevenzip_single INTEGER,
                    aes INTEGER,
                    memcpy INTEGER,
                    memset INTEGER,
                    sevenzip_version TEXT,
                    openssl_version TEXT,
                    json TEXT NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS runs_started ON runs(started_unix_ms);
                 CREATE INDEX IF NOT EXISTS runs_device ON runs(device);
                 PRAGMA user_version = 1;",
            )
            .map_err(sq)?;
        }
        tx.commit().map_err(sq)
    }

    /// Store one result in its own transaction. The same document stored again is not
    /// duplicated: its existing id comes back with `new: false`.
    pub fn insert(&mut self, r: &RunResult) -> Result<Inserted, StoreError> {
        let json = serde_json::to_string(r).map_err(|e| StoreError::Document {
            path: self.path.clone(),
            id: 0,
            reason: e.to_string(),
        })?;
        let d = digest(&json);
        let m = metrics(r);
        let (source, source_name) = if is_imported(r) {
            ("sbc-bench", import_source(r).and_then(|(_, name)| name))
        } else {
            ("run", None)
        };
        let stored = crate::model::Stamp::now().unix_ms;
        let path = self.path.clone();
        let sq = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sq)?;
        if let Some(id) = tx
            .query_row("SELECT id FROM runs WHERE digest = ?1", [&d], |row| {
                row.get::<_, i64>(0)
            })
            .optional()
            .map_err(sq)?
        {
            tx.commit().map_err(sq)?;
            return Ok(Inserted { id, new: false });
        }
        let i = |v: Option<u64>| v.map(|x| x as i64);
        tx.execute(
            "INSERT INTO runs (digest, stored_unix_ms, started_unix_ms, started_utc, device, soc,
                hostname, mode, valid, complete, source, source_name, schema_version,
                truebench_version, sevenzip_multi, sevenzip_single, aes, memcpy, memset,
                sevenzip_version, openssl_version, json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, ?19, ?20, ?21, ?22)",
            params![
                d,
                stored,
                r.envelope.started.unix_ms,
                r.envelope.started.utc,
                r.envelope.inventory.device,
                r.envelope.inventory.soc.as_ref().map(|s| s.name.clone()),
                r.envelope.hostname,
                r.body.mode.as_str(),
                r.envelope.valid,
                r.envelope.complete,
                source,
                source_name,
                crate::model::SCHEMA_VERSION,
                r.envelope.truebench_version,
                i(m.sevenzip_multi),
                i(m.sevenzip_single),
                i(m.aes),
                i(m.memcpy),
                i(m.memset),
                m.sevenzip_version,
                m.openssl_version,
                json,
            ],
        )
        .map_err(sq)?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(sq)?;
        Ok(Inserted { id, new: true })
    }

    /// The stored document of run `id`, migrated to the current model.
    pub fn get(&self, id: i64) -> Result<Option<RunResult>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT json FROM runs WHERE id = ?1", [id], |r| r.get(0))
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
        migrate_typed(v).map(Some).map_err(|e| doc(e.to_string()))
    }

    /// Runs matching `f`, oldest first.
    pub fn list(&self, f: &Filter) -> Result<Vec<Entry>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, started_unix_ms, started_utc, device, soc, hostname, mode, valid,
                        complete, source, source_name, sevenzip_multi, sevenzip_single, aes,
                        memcpy, memset, sevenzip_version, openssl_version
                 FROM runs
                 WHERE (?1 IS NULL OR instr(lower(coalesce(device, '') || ' ' || coalesce(soc, '')
                                         || ' ' || coalesce(hostname, '')), lower(?1)) > 0)
                   AND (?2 IS NULL OR started_unix_ms >= ?2)
                 ORDER BY started_unix_ms, id",
            )
            .map_err(|e| self.err(e))?;
        let u = |v: Option<i64>| v.map(|x| x.max(0) as u64);
        let rows = stmt
            .query_map(params![f.device, f.since_unix_ms], |r| {
                Ok(Entry {
                    id: r.get(0)?,
                    started_unix_ms: r.get(1)?,
                    started_utc: r.get(2)?,
                    device: r.get(3)?,
                    soc: r.get(4)?,
                    hostname: r.get(5)?,
                    mode: r.get(6)?,
                    valid: r.get(7)?,
                    complete: r.get(8)?,
                    source: r.get(9)?,
                    source_name: r.get(10)?,
                    metrics: Metrics {
                        sevenzip_multi: u(r.get(11)?),
                        sevenzip_single: u(r.get(12)?),
                        aes: u(r.get(13)?),
                        memcpy: u(r.get(14)?),
                        memset: u(r.get(15)?),
                        sevenzip_version: r.get(16)?,
                        openssl_version: r.get(17)?,
                    },
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    pub fn count(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
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
    let (unix, _) = crate::convert::rfc2822(&format!(
        "{day} {} {y} 00:00:00 +0000",
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            [m as usize - 1]
    ))?;
    Some((unix + hh * 3600 + mm * 60) * 1000)
}

/// Store `r` in the history at `db` (or the default location): the one call `truebench run`
/// makes after writing its result folder.
pub fn store_result(r: &RunResult, db: Option<&Path>) -> Result<(PathBuf, Inserted), StoreError> {
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
            crate::model::rfc3339_utc(parse_since("2024-03-01", now).unwrap()),
            "2024-03-01T00:00:00.000Z"
        );
        assert_eq!(
            crate::model::rfc3339_utc(parse_since("2024-03-01T12:30", now).unwrap()),
            "2024-03-01T12:30:00.000Z"
        );
        assert_eq!(parse_since("yesterday", now), None);
        assert_eq!(parse_since("2024-13-01", now), None);
    }

    #[test]
    fn digest_is_stable_and_content_bound() {
        assert_eq!(digest(""), "cbf29ce484222325");
        assert_ne!(digest("{\"a\":1}"), digest("{\"a\":2}"));
    }
}
