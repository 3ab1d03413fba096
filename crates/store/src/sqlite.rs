//! The SQLite history (the default): one file, bundled SQLite, nothing to install.
//!
//! Durability: WAL journal, every write in its own `BEGIN IMMEDIATE` transaction (the write
//! lock is taken up front, so two writers queue instead of failing halfway), and a busy
//! timeout long enough for the other writer to finish. A process killed mid-write leaves
//! either the whole row or nothing: SQLite rolls back the unfinished transaction when the
//! database is next opened.

use std::path::Path;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use truebench_model::{migrate, Document};

use crate::counts;
use crate::query::{self, Dialect, Param};
use crate::{metric_value, parse_document, Entry, Inserted, ListedRow, Prepared};
use crate::{StoreError, LAYOUT_VERSION};

/// How long a writer waits for the other writer's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

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

const CREATE_PENDING: &str = "CREATE TABLE IF NOT EXISTS pending (
        result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
        target TEXT NOT NULL,
        queued_unix_ms INTEGER NOT NULL,
        PRIMARY KEY (result_id, target)
     );";

pub(crate) struct Sqlite {
    conn: Connection,
    path: String,
}

impl Sqlite {
    /// Open (creating it and its folder if needed) the database at `path`.
    pub(crate) fn open(path: &Path) -> Result<Sqlite, StoreError> {
        let shown = path.display().to_string();
        if path.is_dir() {
            return Err(StoreError::IsDirectory { path: shown });
        }
        // A FIFO, socket or device at the name is no database: said as such, never opened
        // (SQLite would call it a disk I/O error). Nor at the names of the files SQLite keeps
        // beside it: a FIFO at the write-ahead log's name blocked its first read forever.
        if let Ok(m) = std::fs::metadata(path) {
            if !m.is_file() {
                let what = truebench_host::file_kind(&m.file_type());
                return Err(StoreError::NotAFile { path: shown, what });
            }
        }
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            if let Ok(m) = std::fs::metadata(&side) {
                if !m.is_file() {
                    return Err(StoreError::OddCompanion {
                        path: Path::new(&side).display().to_string(),
                        what: truebench_host::file_kind(&m.file_type()),
                    });
                }
            }
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(m) = std::fs::metadata(dir) {
                if !m.is_dir() {
                    return Err(StoreError::Folder {
                        path: dir.display().to_string(),
                        source: std::io::Error::new(
                            std::io::ErrorKind::InvalidInput,
                            format!(
                                "is {}, not a folder",
                                truebench_host::file_kind(&m.file_type())
                            ),
                        ),
                    });
                }
            }
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
        let mut s = Sqlite { conn, path: shown };
        s.migrate_layout()?;
        Ok(s)
    }

    pub(crate) fn path(&self) -> &str {
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
        // The indexes the queries need and the `standing` table (nothing where they exist),
        // before a carried-over row is written into them; tables an older truebench ignores,
        // so the layout's version stays.
        tx.execute_batch(&query::indexes(Dialect::Sqlite))
            .map_err(sq)?;
        // The tallies that rank a result without a walk over its group (`counts.rs`), on a
        // `standing` table that has the bucket column, and every row given its bucket.
        let bucketed: i64 = tx
            .query_row(
                "SELECT count(*) FROM pragma_table_info('standing') WHERE name = 'bucket'",
                [],
                |r| r.get(0),
            )
            .map_err(sq)?;
        if bucketed == 0 {
            tx.execute_batch(counts::add_bucket(Dialect::Sqlite))
                .map_err(sq)?;
        }
        let made = |table: &str| -> Result<bool, StoreError> {
            tx.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(sq)
        };
        let (missing, names) = (made("standing_missing")?, made("result_names")?);
        tx.execute_batch(&counts::ddl(Dialect::Sqlite))
            .map_err(sq)?;
        if !missing {
            tx.execute(counts::fill_missing(Dialect::Sqlite), [])
                .map_err(sq)?;
        }
        if !names {
            tx.execute(&counts::fill_names(Dialect::Sqlite), [])
                .map_err(sq)?;
        }
        bucket_all(&tx).map_err(sq)?;
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
                let row = Prepared::new(&path, &doc, Some(id))?;
                insert_row(&tx, &path, &row, Some(id), stored)?;
            }
            tx.execute_batch("DROP TABLE runs;").map_err(sq)?;
        }
        if version < LAYOUT_VERSION {
            tx.pragma_update(None, "user_version", LAYOUT_VERSION)
                .map_err(sq)?;
        }
        // Results kept here for a server that could not be reached (`pending`); a table an
        // older truebench ignores, so the layout's version stays.
        tx.execute_batch(CREATE_PENDING).map_err(sq)?;
        tx.commit().map_err(sq)
    }

    /// Results waiting to be sent: (id, target), oldest first.
    pub(crate) fn pending(&self) -> Result<Vec<(i64, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT result_id, target FROM pending ORDER BY queued_unix_ms, result_id")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    /// Result `id` reached `target`.
    pub(crate) fn clear_pending(&mut self, id: i64, target: &str) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        tx.execute(
            "DELETE FROM pending WHERE result_id = ?1 AND target = ?2",
            params![id, target],
        )
        .map_err(|source| StoreError::Sqlite {
            path: path.clone(),
            source,
        })?;
        tx.commit()
            .map_err(|source| StoreError::Sqlite { path, source })
    }

    /// Insert `row` (or find it stored) and mark it pending for `target`, in one transaction:
    /// a process killed between the two can never leave a result that sync would not send.
    pub(crate) fn insert_pending(
        &mut self,
        row: &Prepared,
        stored_unix_ms: i64,
        target: &str,
    ) -> Result<Inserted, StoreError> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        let ins = insert_row(&tx, &path, row, None, stored_unix_ms)?;
        tx.execute(
            "INSERT OR IGNORE INTO pending (result_id, target, queued_unix_ms) VALUES (?1, ?2, ?3)",
            params![ins.id, target, stored_unix_ms],
        )
        .map_err(|source| StoreError::Sqlite {
            path: path.clone(),
            source,
        })?;
        tx.commit()
            .map_err(|source| StoreError::Sqlite { path, source })?;
        Ok(ins)
    }

    pub(crate) fn insert(
        &mut self,
        row: &Prepared,
        stored_unix_ms: i64,
    ) -> Result<Inserted, StoreError> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        let ins = insert_row(&tx, &path, row, None, stored_unix_ms)?;
        tx.commit()
            .map_err(|source| StoreError::Sqlite { path, source })?;
        Ok(ins)
    }

    pub(crate) fn get(&self, id: i64) -> Result<Option<Document>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT document FROM results WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.err(e))?;
        text.map(|t| parse_document(&self.path, id, &t)).transpose()
    }

    /// Each result the query of `list_sql` selects, with its figures, handed to `emit` as it is
    /// read (nothing collected: a million results list in the memory of one).
    pub(crate) fn each<E: From<StoreError>>(
        &self,
        (sql, params): (String, Vec<Param>),
        wanted: crate::Figures<'_>,
        emit: &mut dyn FnMut(Entry) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params.iter().map(value)))
            .map_err(|e| self.err(e))?;
        let mut m = self
            .conn
            .prepare_cached(query::FIGURES_SQLITE)
            .map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let mut e = listed(r).map_err(|e| self.err(e))?.into_entry();
            let figures = m
                .query_map([e.id], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<f64>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                    ))
                })
                .map_err(|err| self.err(err))?;
            for row in figures {
                let (k, v, t) = row.map_err(|err| self.err(err))?;
                e.metrics.insert(k, metric_value(v, t));
            }
            // A result's figures are one short range of the covering index: kept or dropped
            // here rather than asked for by key.
            wanted.keep(&mut e.metrics);
            emit(e)?;
        }
        Ok(())
    }

    /// The distinct values of `column` (of results of `kind`), from `result_names`.
    pub(crate) fn distinct(
        &self,
        column: &str,
        kind: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let (sql, params) = query::distinct_sql(Dialect::Sqlite, column, kind);
        self.strings(&sql, &params)
    }

    /// The first column of every row of `sql`, as text.
    fn strings(&self, sql: &str, params: &[Param]) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params.iter().map(value)), |r| {
                r.get(0)
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The ids `sql` selects.
    pub(crate) fn ids(&self, (sql, params): (String, Vec<Param>)) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params.iter().map(value)), |r| {
                r.get(0)
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The rows of [`query::ranks_sql`]: a key, its value and the three counts.
    pub(crate) fn rank_rows(
        &self,
        (sql, params): (String, Vec<Param>),
    ) -> Result<Vec<(String, f64, [i64; 3])>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params.iter().map(value)), |r| {
                Ok((r.get(0)?, r.get(1)?, [r.get(2)?, r.get(3)?, r.get(4)?]))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The rows of `sql`: a key and a value.
    pub(crate) fn key_values(
        &self,
        (sql, params): (String, Vec<Param>),
    ) -> Result<Vec<(String, Option<f64>)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params.iter().map(value)), |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The rows of `sql`: an id and two texts.
    pub(crate) fn named_ids(
        &self,
        (sql, params): (String, Vec<Param>),
    ) -> Result<Vec<crate::NamedId>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params.iter().map(value)), |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Store every row of `rows` in one transaction (the statements prepared once): what
    /// `insert` stores for each, far faster for many. Returns how many were new.
    pub(crate) fn insert_many(
        &mut self,
        rows: &mut dyn Iterator<Item = Result<Prepared, StoreError>>,
        stored_unix_ms: i64,
    ) -> Result<u64, StoreError> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        let mut new = 0;
        for row in rows {
            if insert_row(&tx, &path, &row?, None, stored_unix_ms)?.new {
                new += 1;
            }
        }
        tx.commit()
            .map_err(|source| StoreError::Sqlite { path, source })?;
        Ok(new)
    }

    /// The SQL plan SQLite chooses for `sql` (`EXPLAIN QUERY PLAN`), one step a line.
    pub(crate) fn plan(&self, sql: &str, params: &[Param]) -> Result<String, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params.iter().map(value)), |r| {
                r.get::<_, String>(3)
            })
            .map_err(|e| self.err(e))?;
        let lines: Vec<String> = rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?;
        Ok(lines.join("\n"))
    }

    pub(crate) fn count(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM results", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// SQLite's `PRAGMA integrity_check`, then its `foreign_key_check` (a figure whose result
    /// is gone): `ok`, or the problems found.
    pub(crate) fn integrity_check(&self) -> Result<String, StoreError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.err(e))?;
        let lines = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        let orphans: i64 = self
            .conn
            .query_row(
                "SELECT (SELECT count(*) FROM pragma_foreign_key_check('metrics'))
                      + (SELECT count(*) FROM pragma_foreign_key_check('standing'))",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        let mut said = lines.join("\n");
        if orphans > 0 {
            if said == "ok" {
                said.clear();
            } else {
                said.push('\n');
            }
            said.push_str(&format!("{orphans} figures without their result"));
        }
        Ok(said)
    }

    /// Every row of the `standing` table: result, group, key, value.
    pub(crate) fn standing_rows(&self) -> Result<Vec<crate::StandingRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT result_id, grp, key, value FROM standing ORDER BY result_id, key")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    /// Every result's id, key and stored text, by id.
    pub(crate) fn raw(&self) -> Result<Vec<(i64, String, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, key, document FROM results ORDER BY id")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }
}

/// A query's parameter as SQLite binds it (a list of names as a JSON array).
fn value(p: &Param) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match p {
        Param::Text(t) => Value::Text(t.clone()),
        Param::Int(i) => Value::Integer(*i),
        Param::Names(n) => Value::Text(serde_json::to_string(n).unwrap_or_else(|_| "[]".into())),
        Param::Real(r) => Value::Real(*r),
    }
}

/// A row of [`query::LISTED`].
fn listed(r: &rusqlite::Row<'_>) -> rusqlite::Result<ListedRow> {
    Ok(ListedRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        started_unix_ms: r.get(2)?,
        started_utc: r.get(3)?,
        device: r.get(4)?,
        soc: r.get(5)?,
        hostname: r.get(6)?,
        label: r.get(7)?,
        valid: r.get(8)?,
        complete: r.get(9)?,
        source: r.get(10)?,
        source_name: r.get(11)?,
    })
}

/// Insert `row` (with `id` when carrying over an old row) and its metrics inside `tx`.
fn insert_row(
    tx: &rusqlite::Transaction<'_>,
    path: &str,
    row: &Prepared,
    id: Option<i64>,
    stored_unix_ms: i64,
) -> Result<Inserted, StoreError> {
    let sq = |source| StoreError::Sqlite {
        path: path.to_string(),
        source,
    };
    // Same key: the same document, unless the texts differ (a SHA-256 collision, never seen);
    // then the key gets a suffix so nothing is dropped.
    let mut key = row.digest.clone();
    for n in 1.. {
        let found: Option<(i64, String)> = tx
            .prepare_cached("SELECT id, document FROM results WHERE key = ?1")
            .and_then(|mut s| {
                s.query_row([&key], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(sq)?;
        match found {
            Some((id, text)) if text == row.json => return Ok(Inserted { id, new: false }),
            Some(_) => key = format!("{}-{n}", row.digest),
            None => break,
        }
    }
    tx.prepare_cached(
        "INSERT INTO results (id, key, kind, stored_unix_ms, started_unix_ms, started_utc, device,
            soc, hostname, label, valid, complete, source, source_name, schema_version,
            truebench_version, document)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    )
    .and_then(|mut s| {
        s.execute(params![
            id,
            key,
            row.kind,
            stored_unix_ms,
            row.started_unix_ms,
            row.started_utc,
            row.device,
            row.soc,
            row.hostname,
            row.label,
            row.valid,
            row.complete,
            row.source,
            row.source_name,
            row.schema_version,
            row.truebench_version,
            row.json,
        ])
    })
    .map_err(sq)?;
    let id = tx.last_insert_rowid();
    let mut figure = tx
        .prepare_cached(
            "INSERT OR REPLACE INTO metrics (result_id, key, value, text, unit)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .map_err(sq)?;
    for m in &row.metrics {
        figure
            .execute(params![id, m.key, m.value, m.text, m.unit])
            .map_err(sq)?;
    }
    // `ON CONFLICT DO UPDATE`, not `INSERT OR REPLACE`: a replaced row would leave the
    // tallies without its delete trigger (`counts.rs`).
    let mut ranked = tx
        .prepare_cached(
            "INSERT INTO standing (result_id, grp, key, value, bucket) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (result_id, key) DO UPDATE
             SET grp = excluded.grp, value = excluded.value, bucket = excluded.bucket",
        )
        .map_err(sq)?;
    let (grp, figures) = &row.standing;
    ranked
        .execute(params![id, grp, "", None::<f64>, None::<i64>])
        .map_err(sq)?;
    for (key, value) in figures {
        ranked
            .execute(params![id, grp, key, value, counts::bucket(*value)])
            .map_err(sq)?;
    }
    Ok(Inserted { id, new: true })
}

/// Gives each figure's row of `standing` that has no bucket (stored before the buckets, or
/// since by a truebench that writes none) its bucket, a batch at a time through the partial
/// index that holds only them; the update trigger adds each to the tallies.
fn bucket_all(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let mut find = tx.prepare(counts::UNBUCKETED_SQLITE)?;
    let mut set = tx.prepare("UPDATE standing SET bucket = ?1 WHERE rowid = ?2")?;
    loop {
        let rows: Vec<(i64, f64)> = find
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        if rows.is_empty() {
            return Ok(());
        }
        for (rowid, value) in rows {
            set.execute(params![counts::bucket(value), rowid])?;
        }
    }
}
