//! The PostgreSQL history (`--db postgresql://…`): many machines store into one database.
//!
//! The same two tables as SQLite, in their own schema `truebench` (so a shared database's
//! other tables are never touched), with the layout version in `truebench.layout`. Creating
//! or upgrading the layout holds a transaction-scoped advisory lock, so two machines opening
//! a new database at once do not race. Every result is one transaction: a connection lost
//! mid-write leaves nothing (the server rolls the transaction back). Two writers storing the
//! same document at once get one row (`ON CONFLICT (key)` waits for the other's commit).
//!
//! TLS (`sslmode`, `sslrootcert`) and the password file as libpq means them: `pg_tls.rs`.

use std::cell::RefCell;
use std::time::Duration;

use postgres::{Client, Config};

use truebench_model::Document;

use crate::counts;
use crate::query::{self, Dialect, Param};
use crate::{metric_value, parse_document, Entry, Inserted, ListedRow, Prepared};
use crate::{StoreError, LAYOUT_VERSION};

/// Rows fetched from the server at a time while listing: the memory of a listing, whatever
/// the number of results.
const BATCH: i32 = 500;

/// How long connecting may take when the URL does not say (`connect_timeout=`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The advisory lock that serialises creating the layout ("truebench" in ASCII).
const LAYOUT_LOCK: i64 = 0x7472_7565_6265_6e63;

const CREATE: &str = "CREATE TABLE IF NOT EXISTS truebench.results (
        id BIGSERIAL PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        stored_unix_ms BIGINT NOT NULL,
        started_unix_ms BIGINT NOT NULL,
        started_utc TEXT NOT NULL,
        device TEXT,
        soc TEXT,
        hostname TEXT,
        label TEXT NOT NULL,
        valid BOOLEAN NOT NULL,
        complete BOOLEAN NOT NULL,
        source TEXT NOT NULL,
        source_name TEXT,
        schema_version BIGINT NOT NULL,
        truebench_version TEXT NOT NULL,
        document TEXT NOT NULL
     );
     CREATE INDEX IF NOT EXISTS results_started ON truebench.results(started_unix_ms);
     CREATE INDEX IF NOT EXISTS results_device ON truebench.results(device);
     CREATE INDEX IF NOT EXISTS results_kind ON truebench.results(kind);
     CREATE TABLE IF NOT EXISTS truebench.metrics (
        result_id BIGINT NOT NULL REFERENCES truebench.results(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value DOUBLE PRECISION,
        text TEXT,
        unit TEXT,
        PRIMARY KEY (result_id, key)
     );";

pub(crate) struct Postgres {
    /// `postgres::Client` queries through `&mut`; the store's readers take `&self`.
    client: RefCell<Client>,
    /// The URL without its password.
    path: String,
}

/// `url` with the password (if any, in the authority or as `password=`) replaced by `***` —
/// every occurrence, also in a malformed URL (`postgresql://postgresql://u:p@h`, found by
/// fuzzing) or a `key=value` string.
pub(crate) fn redact(url: &str) -> String {
    // `password=…` (blanks allowed around `=` in a `key=value` string, the value maybe
    // quoted) up to the next `&` in a URL, the next blank or closing quote otherwise.
    // `scheme://user:password@host`: after each `://`, everything from the first `:` to the
    // last `@` before the query (or the next `://`) is taken as the password, however
    // malformed the URL in between (`postgresql://u:p…resql://u:p@h`, a URL pasted twice:
    // found by fuzzing).
    // The whole span from the first `://` to the last `@` first, before anything else is
    // cut out (the client reads `postgres://u://x@h` as user `u`, password `//x`, and takes
    // the credentials up to the first `@` even inside the query: `…&password=@…`, found by
    // fuzzing), then each `://` part on its own. (The last `@` anywhere: a `?` or `/` may be
    // part of a password; showing less of a query that holds an `@` is the lesser harm.)
    let mut spanned = url.to_string();
    if let (Some(s), Some(at)) = (url.find("://"), url.rfind('@')) {
        if s + 3 <= at {
            if let Some(colon) = url[s + 3..at].find(':') {
                spanned = format!("{}:***{}", &url[..s + 3 + colon], &url[at..]);
            }
        }
    }
    let url = spanned.as_str();
    let url_form = url.contains("://");
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(i) = rest.find("password") {
        let key_end = i + "password".len();
        let after_key = &rest[key_end..];
        let trimmed = after_key.trim_start();
        let Some(value) = trimmed.strip_prefix('=') else {
            out.push_str(&rest[..key_end]);
            rest = after_key;
            continue;
        };
        let value = if url_form { value } else { value.trim_start() };
        out.push_str(&rest[..key_end]);
        out.push_str("=***");
        let end = if url_form {
            value.find('&').unwrap_or(value.len())
        } else if let Some(q) = value.strip_prefix('\'') {
            // Up to the closing quote (`\'` inside is escaped).
            let mut prev = ' ';
            q.char_indices()
                .find(|&(_, c)| {
                    let close = c == '\'' && prev != '\\';
                    prev = c;
                    close
                })
                .map_or(value.len(), |(k, _)| k + 2)
        } else {
            value.find(char::is_whitespace).unwrap_or(value.len())
        };
        rest = &value[end..];
    }
    out.push_str(rest);
    let parts: Vec<&str> = out.split("://").collect();
    let mut res = String::with_capacity(out.len());
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            res.push_str("://");
        }
        let query = part.find('?').unwrap_or(part.len());
        match part[..query].rfind('@') {
            Some(at) if i > 0 => match part[..at].find(':') {
                Some(colon) => {
                    res.push_str(&part[..colon + 1]);
                    res.push_str("***");
                    res.push_str(&part[at..]);
                }
                None => res.push_str(part),
            },
            _ => res.push_str(part),
        }
    }
    // Anything else shaped `:secret@` (no `/`, `?` or blank between): not a URL at all, but
    // still no place to show a password.
    let b = res.as_bytes();
    let mut out = String::with_capacity(res.len());
    let mut from = 0;
    for (at, _) in res.match_indices('@') {
        let start = res[from..at]
            .rfind(|c: char| c == '/' || c == '?' || c.is_whitespace() || c == ':')
            .map(|i| from + i);
        match start {
            Some(c) if b[c] == b':' && &res[c + 1..at] != "***" && c + 1 < at => {
                out.push_str(&res[from..=c]);
                out.push_str("***");
            }
            _ => out.push_str(&res[from..at]),
        }
        from = at;
    }
    out.push_str(&res[from..]);
    out
}

impl Postgres {
    /// Connect; with `create`, make (or upgrade) the layout, else a database without it is
    /// `Missing`.
    pub(crate) fn connect(url: &str, create: bool) -> Result<Postgres, StoreError> {
        let path = redact(url);
        let bad = |reason: String| StoreError::BadUrl {
            path: path.clone(),
            reason,
        };
        let (url, tls) = crate::pg_tls::split(url).map_err(bad)?;
        let mut config: Config = url
            .parse()
            .map_err(|e: postgres::Error| StoreError::BadUrl {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("truebench");
        }
        if config.get_password().is_none() {
            let host = match config.get_hosts().first() {
                Some(postgres::config::Host::Tcp(h)) => h.clone(),
                Some(postgres::config::Host::Unix(p)) => p.display().to_string(),
                None => "localhost".into(),
            };
            let port = config.get_ports().first().copied().unwrap_or(5432);
            let user = config.get_user().unwrap_or("").to_string();
            let db = config.get_dbname().unwrap_or(&user).to_string();
            if let Some(p) = crate::pg_tls::password(&host, port, &db, &user).map_err(bad)? {
                config.password(p);
            }
        }
        let client = crate::pg_tls::connect(&config, &tls).map_err(|f| match f {
            crate::pg_tls::Failed::Client(source) => StoreError::Postgres {
                path: path.clone(),
                source,
            },
            crate::pg_tls::Failed::Said(reason) => StoreError::Connect {
                path: path.clone(),
                reason,
            },
        })?;
        let pg = Postgres {
            client: RefCell::new(client),
            path,
        };
        pg.layout(create)?;
        Ok(pg)
    }

    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    fn err(&self, source: postgres::Error) -> StoreError {
        StoreError::Postgres {
            path: self.path.clone(),
            source,
        }
    }

    fn layout(&self, create: bool) -> Result<(), StoreError> {
        let mut client = self.client.borrow_mut();
        let sq = |source| StoreError::Postgres {
            path: self.path.clone(),
            source,
        };
        if !create {
            let found: Option<String> = client
                .query_one("SELECT to_regclass('truebench.layout')::text", &[])
                .and_then(|r| r.try_get(0))
                .map_err(sq)?;
            if found.is_none() {
                return Err(StoreError::Missing {
                    path: self.path.clone(),
                });
            }
        }
        let mut tx = client.transaction().map_err(sq)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LAYOUT_LOCK])
            .map_err(sq)?;
        tx.batch_execute(
            "CREATE SCHEMA IF NOT EXISTS truebench;
             CREATE TABLE IF NOT EXISTS truebench.layout (version BIGINT NOT NULL);",
        )
        .map_err(sq)?;
        let version: Option<i64> = tx
            .query_opt("SELECT max(version) FROM truebench.layout", &[])
            .map_err(sq)?
            .and_then(|r| r.get(0));
        match version {
            Some(v) if v > LAYOUT_VERSION => {
                return Err(StoreError::NewerLayout {
                    path: self.path.clone(),
                    found: v,
                })
            }
            Some(v) if v == LAYOUT_VERSION => {}
            // Layout 2 is the first PostgreSQL layout: there is nothing older to carry over.
            _ => {
                tx.batch_execute(CREATE).map_err(sq)?;
                tx.execute("DELETE FROM truebench.layout", &[])
                    .map_err(sq)?;
                tx.execute(
                    "INSERT INTO truebench.layout (version) VALUES ($1)",
                    &[&LAYOUT_VERSION],
                )
                .map_err(sq)?;
            }
        }
        // The indexes the queries need (`query.rs`), made once: `CREATE INDEX IF NOT EXISTS`
        // would lock the table against writers at every connection.
        let names: Vec<String> = tx
            .query(
                "SELECT indexname::text FROM pg_indexes WHERE schemaname = 'truebench'",
                &[],
            )
            .map_err(sq)?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let has = |n: &str| names.iter().any(|x| x == n);
        if !query::INDEXES.iter().all(|n| has(n)) || has("results_kind") {
            tx.batch_execute(&query::indexes(Dialect::Postgres))
                .map_err(sq)?;
            // The tallies that rank a result without a walk over its group (`counts.rs`),
            // on a `standing` table that has the bucket column.
            tx.batch_execute(counts::add_bucket(Dialect::Postgres))
                .map_err(sq)?;
            tx.batch_execute(&counts::ddl(Dialect::Postgres))
                .map_err(sq)?;
            tx.execute(counts::fill_missing(Dialect::Postgres), &[])
                .map_err(sq)?;
            tx.execute(&counts::fill_names(Dialect::Postgres), &[])
                .map_err(sq)?;
            // Only here, not at every connection: rows given their bucket stay in the
            // partial index as dead entries until vacuumed, and a look for more walked ten
            // million of them at every open after a 10⁶ history's migration (0.9 s). Rows an
            // older truebench stores later are counted without a bucket.
            let given = bucket_all(&mut tx).map_err(sq)?;
            tx.commit().map_err(sq)?;
            if given > 0 {
                // Those dead entries gone and the planner's statistics renewed now, not when
                // autovacuum comes to them: until then each rank walks its group's share.
                client
                    .batch_execute("VACUUM (ANALYZE) truebench.standing")
                    .map_err(sq)?;
            }
            return Ok(());
        }
        tx.commit().map_err(sq)
    }

    pub(crate) fn insert(
        &mut self,
        row: &Prepared,
        stored_unix_ms: i64,
    ) -> Result<Inserted, StoreError> {
        let mut rows = std::iter::once(Ok(row));
        let mut got = None;
        self.insert_each(&mut rows, stored_unix_ms, &mut |ins| got = Some(ins))?;
        got.ok_or_else(|| StoreError::Connect {
            path: self.path.clone(),
            reason: "nothing stored".into(),
        })
    }

    /// Store every row of `rows` in one transaction: what `insert` stores for each, far
    /// faster for many. Returns how many were new.
    pub(crate) fn insert_many(
        &mut self,
        rows: &mut dyn Iterator<Item = Result<Prepared, StoreError>>,
        stored_unix_ms: i64,
    ) -> Result<u64, StoreError> {
        let mut new = 0;
        let mut owned = rows.map(|r| r.map(Box::new));
        self.insert_each(&mut owned, stored_unix_ms, &mut |ins| {
            new += u64::from(ins.new)
        })?;
        // The planner's statistics after a bulk load, as PostgreSQL's manual advises ("Populating
        // a Database"): until autovacuum gets to it, it would plan for the table as it was.
        self.client
            .get_mut()
            .batch_execute("ANALYZE truebench.results, truebench.metrics, truebench.standing")
            .map_err(|e| self.err(e))?;
        Ok(new)
    }

    /// Insert each row of `rows` in one transaction, the statements prepared once.
    fn insert_each<R: std::ops::Deref<Target = Prepared>>(
        &mut self,
        rows: &mut dyn Iterator<Item = Result<R, StoreError>>,
        stored_unix_ms: i64,
        done: &mut dyn FnMut(Inserted),
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sq = |source| StoreError::Postgres {
            path: path.clone(),
            source,
        };
        let mut tx = self.client.get_mut().transaction().map_err(sq)?;
        let mut st = Statements::prepare(&mut tx).map_err(sq)?;
        for row in rows {
            let row = row?;
            done(insert_in(&mut tx, &mut st, &row, stored_unix_ms).map_err(sq)?);
        }
        tx.commit().map_err(sq)
    }
}

/// A query's parameter as PostgreSQL binds it.
fn value(p: &Param) -> Box<dyn postgres::types::ToSql + Sync> {
    match p {
        Param::Text(t) => Box::new(t.clone()),
        Param::Int(i) => Box::new(*i),
        Param::Names(n) => Box::new(n.clone()),
        Param::Real(r) => Box::new(*r),
    }
}

/// A row of [`query::LISTED`].
fn listed(r: &postgres::Row) -> Result<ListedRow, postgres::Error> {
    Ok(ListedRow {
        id: r.try_get(0)?,
        kind: r.try_get(1)?,
        started_unix_ms: r.try_get(2)?,
        started_utc: r.try_get(3)?,
        device: r.try_get(4)?,
        soc: r.try_get(5)?,
        hostname: r.try_get(6)?,
        label: r.try_get(7)?,
        valid: r.try_get(8)?,
        complete: r.try_get(9)?,
        source: r.try_get(10)?,
        source_name: r.try_get(11)?,
    })
}

/// The statements that store a result, prepared once per transaction (the figures' when
/// first needed: after the first result row is written, as a plain insert orders it).
struct Statements {
    insert: postgres::Statement,
    find: postgres::Statement,
    figures: Option<postgres::Statement>,
    ranked: Option<postgres::Statement>,
}

impl Statements {
    fn prepare(tx: &mut postgres::Transaction<'_>) -> Result<Statements, postgres::Error> {
        Ok(Statements {
            insert: tx.prepare(
                "INSERT INTO truebench.results (key, kind, stored_unix_ms, started_unix_ms,
                    started_utc, device, soc, hostname, label, valid, complete, source,
                    source_name, schema_version, truebench_version, document)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
                 ON CONFLICT (key) DO NOTHING RETURNING id",
            )?,
            find: tx.prepare("SELECT id, document FROM truebench.results WHERE key = $1")?,
            figures: None,
            ranked: None,
        })
    }

    /// A result's rows of the `standing` table in one statement.
    fn ranked(
        &mut self,
        tx: &mut postgres::Transaction<'_>,
    ) -> Result<&postgres::Statement, postgres::Error> {
        if self.ranked.is_none() {
            self.ranked = Some(tx.prepare(
                "INSERT INTO truebench.standing (result_id, grp, key, value, bucket)
                 SELECT $1::bigint, $2::text, k, v, b
                 FROM unnest($3::text[], $4::float8[], $5::bigint[]) AS f(k, v, b)
                 ON CONFLICT (result_id, key) DO UPDATE
                 SET grp = EXCLUDED.grp, value = EXCLUDED.value, bucket = EXCLUDED.bucket",
            )?);
        }
        Ok(self.ranked.as_ref().expect("prepared above"))
    }

    /// Every figure of a result in one statement (one round trip, however many); the last of
    /// a key given twice wins, as one row after another would leave it.
    fn figures(
        &mut self,
        tx: &mut postgres::Transaction<'_>,
    ) -> Result<&postgres::Statement, postgres::Error> {
        if self.figures.is_none() {
            self.figures = Some(tx.prepare(
                "INSERT INTO truebench.metrics (result_id, key, value, text, unit)
                 SELECT DISTINCT ON (k) $1::bigint, k, v, t, u
                 FROM unnest($2::text[], $3::float8[], $4::text[], $5::text[])
                      WITH ORDINALITY AS f(k, v, t, u, i)
                 ORDER BY k, i DESC
                 ON CONFLICT (result_id, key) DO UPDATE
                 SET value = EXCLUDED.value, text = EXCLUDED.text, unit = EXCLUDED.unit",
            )?);
        }
        Ok(self.figures.as_ref().expect("prepared above"))
    }
}

/// Insert `row` and its figures in `tx`, or find the same document stored before (then
/// nothing is written).
fn insert_in(
    tx: &mut postgres::Transaction<'_>,
    st: &mut Statements,
    row: &Prepared,
    stored_unix_ms: i64,
) -> Result<Inserted, postgres::Error> {
    // Same key: the same document, unless the texts differ (a SHA-256 collision, never
    // seen); then the key gets a suffix so nothing is dropped.
    let mut key = row.digest.clone();
    let mut n = 0;
    let id: i64 = loop {
        let inserted = tx.query_opt(
            &st.insert,
            &[
                &key,
                &row.kind,
                &stored_unix_ms,
                &row.started_unix_ms,
                &row.started_utc,
                &row.device,
                &row.soc,
                &row.hostname,
                &row.label,
                &row.valid,
                &row.complete,
                &row.source,
                &row.source_name,
                &row.schema_version,
                &row.truebench_version,
                &row.json,
            ],
        )?;
        if let Some(r) = inserted {
            break r.get(0);
        }
        let existing = tx.query_one(&st.find, &[&key])?;
        let text: String = existing.get(1);
        if text == row.json {
            return Ok(Inserted {
                id: existing.get(0),
                new: false,
            });
        }
        n += 1;
        key = format!("{}-{n}", row.digest);
    };
    if !row.metrics.is_empty() {
        let keys: Vec<&str> = row.metrics.iter().map(|m| m.key.as_str()).collect();
        let values: Vec<Option<f64>> = row.metrics.iter().map(|m| m.value).collect();
        let texts: Vec<Option<&str>> = row.metrics.iter().map(|m| m.text.as_deref()).collect();
        let units: Vec<Option<&str>> = row.metrics.iter().map(|m| m.unit.as_deref()).collect();
        let figures = st.figures(tx)?.clone();
        tx.execute(&figures, &[&id, &keys, &values, &texts, &units])?;
    }
    // The group's row (key '') first, then each ranked figure.
    let (grp, figures) = &row.standing;
    let mut keys: Vec<&str> = vec![""];
    let mut values: Vec<Option<f64>> = vec![None];
    let mut buckets: Vec<Option<i64>> = vec![None];
    for (k, v) in figures {
        keys.push(k);
        values.push(Some(*v));
        buckets.push(Some(counts::bucket(*v)));
    }
    let ranked = st.ranked(tx)?.clone();
    tx.execute(&ranked, &[&id, grp, &keys, &values, &buckets])?;
    Ok(Inserted { id, new: true })
}

impl Postgres {
    pub(crate) fn get(&self, id: i64) -> Result<Option<Document>, StoreError> {
        let row = self
            .client
            .borrow_mut()
            .query_opt(
                "SELECT document FROM truebench.results WHERE id = $1",
                &[&id],
            )
            .map_err(|e| self.err(e))?;
        row.map(|r| parse_document(&self.path, id, &r.get::<_, String>(0)))
            .transpose()
    }

    /// Each result the query of `list_sql` selects, with its figures, handed to `emit` as it is
    /// read: the rows come [`BATCH`] at a time through a cursor, each batch's figures in one
    /// round trip (a remote server is slow to ask once per result).
    pub(crate) fn each<E: From<StoreError>>(
        &self,
        (sql, params): (String, Vec<Param>),
        figures: crate::Figures<'_>,
        emit: &mut dyn FnMut(Entry) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(|e| self.err(e))?;
        let bound: Vec<Box<dyn postgres::types::ToSql + Sync>> = params.iter().map(value).collect();
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = bound.iter().map(|b| &**b).collect();
        let portal = tx.bind(sql.as_str(), &refs).map_err(|e| self.err(e))?;
        let all = tx
            .prepare(query::FIGURES_POSTGRES)
            .map_err(|e| self.err(e))?;
        let named = match figures {
            crate::Figures::All => None,
            crate::Figures::Named(keys) => Some((
                tx.prepare(query::FIGURES_NAMED_POSTGRES)
                    .map_err(|e| self.err(e))?,
                keys.to_vec(),
            )),
        };
        loop {
            let rows = tx.query_portal(&portal, BATCH).map_err(|e| self.err(e))?;
            if rows.is_empty() {
                break;
            }
            let mut entries = rows
                .iter()
                .map(|r| listed(r).map(ListedRow::into_entry))
                .collect::<Result<Vec<_>, postgres::Error>>()
                .map_err(|e| self.err(e))?;
            let ids: Vec<i64> = entries.iter().map(|e| e.id).collect();
            let at: std::collections::HashMap<i64, usize> =
                ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
            let found = match &named {
                None => tx.query(&all, &[&ids]),
                Some((stmt, keys)) => tx.query(stmt, &[&ids, keys]),
            }
            .map_err(|e| self.err(e))?;
            let put = |entries: &mut [Entry], found: Vec<postgres::Row>| {
                for r in found {
                    let id: i64 = r.get(0);
                    if let Some(&i) = at.get(&id) {
                        entries[i]
                            .metrics
                            .insert(r.get(1), metric_value(r.get(2), r.get(3)));
                    }
                }
            };
            put(&mut entries, found);
            if named.is_some() {
                // The results with none of the named figures carry all of theirs.
                let bare: Vec<i64> = entries
                    .iter()
                    .filter(|e| e.metrics.is_empty())
                    .map(|e| e.id)
                    .collect();
                if !bare.is_empty() {
                    put(
                        &mut entries,
                        tx.query(&all, &[&bare]).map_err(|e| self.err(e))?,
                    );
                }
            }
            for e in entries {
                emit(e)?;
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The distinct values of `column` (of results of `kind`), from `result_names`.
    pub(crate) fn distinct(
        &self,
        column: &str,
        kind: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let (sql, params) = query::distinct_sql(Dialect::Postgres, column, kind);
        Ok(self.rows(&sql, &params)?.iter().map(|r| r.get(0)).collect())
    }

    fn rows(&self, sql: &str, params: &[Param]) -> Result<Vec<postgres::Row>, StoreError> {
        let bound: Vec<Box<dyn postgres::types::ToSql + Sync>> = params.iter().map(value).collect();
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = bound.iter().map(|b| &**b).collect();
        self.client
            .borrow_mut()
            .query(sql, &refs)
            .map_err(|e| self.err(e))
    }

    /// The ids `sql` selects.
    pub(crate) fn ids(&self, (sql, params): (String, Vec<Param>)) -> Result<Vec<i64>, StoreError> {
        Ok(self.rows(&sql, &params)?.iter().map(|r| r.get(0)).collect())
    }

    /// The rows of [`query::ranks_sql`]: a key, its value and the three counts.
    pub(crate) fn rank_rows(
        &self,
        (sql, params): (String, Vec<Param>),
    ) -> Result<Vec<(String, f64, [i64; 3])>, StoreError> {
        Ok(self
            .rows(&sql, &params)?
            .iter()
            .map(|r| (r.get(0), r.get(1), [r.get(2), r.get(3), r.get(4)]))
            .collect())
    }

    /// The rows of `sql`: a key and a value.
    pub(crate) fn key_values(
        &self,
        (sql, params): (String, Vec<Param>),
    ) -> Result<Vec<(String, Option<f64>)>, StoreError> {
        Ok(self
            .rows(&sql, &params)?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }

    /// The rows of `sql`: an id and two texts.
    pub(crate) fn named_ids(
        &self,
        (sql, params): (String, Vec<Param>),
    ) -> Result<Vec<crate::NamedId>, StoreError> {
        Ok(self
            .rows(&sql, &params)?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }

    /// The plan PostgreSQL chooses for `sql` (`EXPLAIN`), one node a line; with `no_seqscan`,
    /// as it plans when a sequential scan costs more than any index (`enable_seqscan = off`:
    /// a test's small table then shows the plan a large one gets).
    pub(crate) fn plan(
        &self,
        sql: &str,
        params: &[Param],
        no_seqscan: bool,
    ) -> Result<String, StoreError> {
        let bound: Vec<Box<dyn postgres::types::ToSql + Sync>> = params.iter().map(value).collect();
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = bound.iter().map(|b| &**b).collect();
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(|e| self.err(e))?;
        if no_seqscan {
            tx.batch_execute("SET LOCAL enable_seqscan = off")
                .map_err(|e| self.err(e))?;
        }
        let lines: Vec<String> = tx
            .query(&format!("EXPLAIN {sql}"), &refs)
            .map_err(|e| self.err(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        tx.rollback().map_err(|e| self.err(e))?;
        Ok(lines.join("\n"))
    }

    pub(crate) fn count(&self) -> Result<i64, StoreError> {
        self.client
            .borrow_mut()
            .query_one("SELECT count(*) FROM truebench.results", &[])
            .map(|r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Every result's id, key and stored text, by id.
    pub(crate) fn raw(&self) -> Result<Vec<(i64, String, String)>, StoreError> {
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT id, key, document FROM truebench.results ORDER BY id",
                &[],
            )
            .map_err(|e| self.err(e))?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }

    /// Every row of the `standing` table: result, group, key, value.
    pub(crate) fn standing_rows(&self) -> Result<Vec<crate::StandingRow>, StoreError> {
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT result_id, grp, key, value FROM truebench.standing
                 ORDER BY result_id, key",
                &[],
            )
            .map_err(|e| self.err(e))?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
    }

    /// `ok`, or the figures whose result is gone.
    pub(crate) fn integrity_check(&self) -> Result<String, StoreError> {
        let orphans: i64 = self
            .client
            .borrow_mut()
            .query_one(
                "SELECT (SELECT count(*) FROM truebench.metrics m
                  WHERE NOT EXISTS (SELECT 1 FROM truebench.results r WHERE r.id = m.result_id))
                  + (SELECT count(*) FROM truebench.standing m
                  WHERE NOT EXISTS (SELECT 1 FROM truebench.results r WHERE r.id = m.result_id))",
                &[],
            )
            .map(|r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(if orphans == 0 {
            "ok".to_string()
        } else {
            format!("{orphans} figures without their result")
        })
    }
}

/// Gives each figure's row of `standing` that has no bucket (stored before the buckets) its
/// bucket, a batch at a time through the partial index that holds only them; the update
/// trigger adds each batch to the tallies. How many rows were given one.
fn bucket_all(tx: &mut postgres::Transaction<'_>) -> Result<u64, postgres::Error> {
    let mut given = 0;
    loop {
        let rows = tx.query(counts::UNBUCKETED_POSTGRES, &[])?;
        if rows.is_empty() {
            return Ok(given);
        }
        given += rows.len() as u64;
        let ids: Vec<i64> = rows.iter().map(|r| r.get(0)).collect();
        let keys: Vec<String> = rows.iter().map(|r| r.get(1)).collect();
        let buckets: Vec<i64> = rows
            .iter()
            .map(|r| counts::bucket(r.get::<_, f64>(2)))
            .collect();
        tx.execute(
            "UPDATE truebench.standing s SET bucket = u.b
             FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS u(id, k, b)
             WHERE s.result_id = u.id AND s.key = u.k",
            &[&ids, &keys, &buckets],
        )?;
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    /// Found by fuzzing `--db` URLs: every one of these once showed the password.
    #[test]
    fn malformed_urls_hide_their_password_too() {
        for u in [
            "postgresql://postgresql://bench:s3cret@10.0.0.5:5433/fleet?sslmode=require",
            "postgresql://bench:s3cret@h:5433/fleet?postgresql://bench:s3cret@h:5433/fleet",
            "postgresql\0//bench:s3cret@dbhost/fleet",
            "postgresql://bench:?3cret@",
            "postgres://res://s3cret@",
            "postgresql:///fleet?host=/run/postgresql&user=bench&password=\r\ns3cret",
            "host=dbhost user=bench password\r\n=s3cret dbname=fleet sslmode=require",
            "host=dbhost password = 's3 cret' dbname=fleet",
        ] {
            let shown = redact(u);
            assert!(
                !shown.contains("s3cret") && !shown.contains("3cret") && !shown.contains("cret'"),
                "{u:?} → {shown:?}"
            );
        }
        // The client takes the credentials up to the first `@`, in the query too: user
        // `postgresql`, password `//NaN/fleet?host=…&password=`.
        let u = "postgresql://postgresql://NaN/fleet?host=/run/postgresql&user=bench&password=@\0@s3cret";
        let shown = redact(u);
        assert!(!shown.contains("//NaN/fleet?host="), "{u:?} → {shown:?}");
    }

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(
            redact("postgresql://bench:s3cret@db.lan:5432/fleet"),
            "postgresql://bench:***@db.lan:5432/fleet"
        );
        assert_eq!(
            redact("postgresql://bench@db.lan/fleet"),
            "postgresql://bench@db.lan/fleet"
        );
        assert_eq!(
            redact("postgres://a:b@h/x?user=y"),
            "postgres://a:***@h/x?user=y"
        );
        assert_eq!(redact("postgresql:///fleet"), "postgresql:///fleet");
        assert_eq!(
            redact("postgresql://h/x?password=p&user=u"),
            "postgresql://h/x?password=***&user=u"
        );
    }
}
