//! The history: every result of every kind and every imported sbc-bench log in one database —
//! SQLite by default (bundled, nothing to install; `$XDG_DATA_HOME/truebench/history.sqlite`),
//! or PostgreSQL (`postgresql://…`) where many machines store into one.
//!
//! Each result is one row of `results` (kind, machine identity, time, validity, the full
//! document as JSON) plus its headline figures in `metrics` (result, key, value or text,
//! unit), which `history`, `compare` and `rank` read for any kind. Duplicates are found by the
//! SHA-256 of the document and confirmed by comparing its text. Both back ends have the same
//! tables and layout version (`sqlite.rs`, `postgres.rs`); every write is one transaction.
//!
//! `compare` sets results side by side; `rank` places a run among sbc-bench logs.

mod check;
pub mod compare;
mod counts;
pub mod facts;
pub mod fairness;
mod pg_cert;
mod pg_tls;
mod pg_verify;
mod postgres;
mod query;
pub mod rank;
mod ranked;
pub mod regress;
mod sqlite;
pub mod standing;

pub use check::Checked;
pub use pg_tls::set_password_file;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::compare::Metrics;
use truebench_figures as kinds;
use truebench_model::{migrate, BodyKind, Document, Stamp, Typed, View};

/// The layout of the tables (SQLite's `PRAGMA user_version`, PostgreSQL's `truebench.layout`).
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
    #[error("{path}: {source}")]
    Postgres {
        path: String,
        #[source]
        source: ::postgres::Error,
    },
    /// Connecting refused for a reason said in words (a TLS check, a fallback's two tries).
    #[error("{path}: {reason}")]
    Connect { path: String, reason: String },
    #[error("{path}: not a PostgreSQL connection URL ({reason}); expected postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE")]
    BadUrl { path: String, reason: String },
    #[error(
        "{path}: is {what}, not an SQLite history file; give --db the path of one (or of none yet)"
    )]
    NotAFile { path: String, what: &'static str },
    #[error("{path}: is {what} where SQLite keeps a file of the history beside it; move it away")]
    OddCompanion { path: String, what: &'static str },
    #[error("{path}: results waiting for a server are kept in a local SQLite history, not in PostgreSQL")]
    NotLocal { path: String },
    #[error("{path}: its file system is full ({free} bytes free; SQLite said: {source}); the history is as it was before this write: free some space and store again")]
    Full {
        path: String,
        free: u64,
        #[source]
        source: rusqlite::Error,
    },
}

/// Below this many free bytes, a write SQLite could not do is put down to a full disk.
const FULL_BELOW: u64 = 1 << 20;

impl StoreError {
    /// An SQLite write that failed on a full file system (SQLite says "database or disk is
    /// full", or only "disk I/O error" when its shared-memory index could not grow) as
    /// [`StoreError::Full`], naming the free space; any other error as it is.
    fn or_full(self) -> StoreError {
        let StoreError::Sqlite { path, source } = self else {
            return self;
        };
        let io = matches!(
            source.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure)
        );
        let dir = match Path::new(&path).parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        match free_bytes(&dir) {
            Some(free) if io && free < FULL_BELOW => StoreError::Full { path, free, source },
            _ => StoreError::Sqlite { path, source },
        }
    }
}

/// Bytes an unprivileged writer may still use on the file system holding `dir`.
#[allow(clippy::useless_conversion)] // the field types differ between targets
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: a NUL-terminated path and a buffer of the right type, read only on success.
    let st = unsafe {
        if libc::statvfs(c.as_ptr(), st.as_mut_ptr()) != 0 {
            return None;
        }
        st.assume_init()
    };
    Some(u64::from(st.f_bavail) * u64::from(st.f_frsize))
}

/// `url` as messages and the pending list name it: its password replaced by `***`.
pub fn redact_url(url: &str) -> String {
    postgres::redact(url)
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

/// Which figures each listed [`Entry`] carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figures<'a> {
    /// Every stored figure of the result.
    All,
    /// Only the figures of these keys; a result that has none of them carries all of its
    /// figures (an older result of another kind, listed by its own figures instead).
    Named(&'a [&'a str]),
}

impl Figures<'_> {
    /// `figures` as this selection keeps them: the named ones, or all when none is named.
    pub(crate) fn keep(&self, figures: &mut BTreeMap<String, serde_json::Value>) {
        if let Figures::Named(keys) = self {
            if keys.iter().any(|k| figures.contains_key(*k)) {
                figures.retain(|k, _| keys.contains(&k.as_str()));
            }
        }
    }
}

/// A row's id with its SoC and host name.
pub(crate) type NamedId = (i64, Option<String>, Option<String>);

/// What [`Store::plans`] asks the planner about: the list filters by name, and the kind,
/// device and SoC of the other queries.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct Probe {
    pub filters: Vec<(String, Filter)>,
    pub kind: String,
    pub device: String,
    pub soc: String,
}

/// Result of [`Store::insert`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inserted {
    pub id: i64,
    /// False when the same document was already stored (same content).
    pub new: bool,
}

/// The history, in whichever database `--db` names.
pub struct Store {
    db: Db,
}

enum Db {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
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

/// The URL when `--db` names a PostgreSQL database rather than an SQLite file.
pub fn postgres_url(db: &Path) -> Option<&str> {
    db.to_str()
        .filter(|s| s.starts_with("postgresql://") || s.starts_with("postgres://"))
}

impl Store {
    /// Open (creating it, and for SQLite its folder, if needed) the history at `path`: an
    /// SQLite file, or a `postgresql://` URL.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let db = match postgres_url(path) {
            Some(url) => Db::Postgres(postgres::Postgres::connect(url, true)?),
            None => Db::Sqlite(sqlite::Sqlite::open(path).map_err(StoreError::or_full)?),
        };
        Ok(Store { db })
    }

    /// Open an existing history for the commands that only read (history, report, compare):
    /// a path where none is (or a PostgreSQL database without truebench's tables) creates
    /// nothing and is `Missing`.
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        if let Some(url) = postgres_url(path) {
            let db = Db::Postgres(postgres::Postgres::connect(url, false)?);
            return Ok(Store { db });
        }
        let shown = path.display().to_string();
        if path.is_dir() {
            return Err(StoreError::IsDirectory { path: shown });
        }
        if !path.exists() {
            return Err(StoreError::Missing { path: shown });
        }
        Store::open(path)
    }

    /// Where the history is, for messages (a URL without its password).
    pub fn path(&self) -> &str {
        match &self.db {
            Db::Sqlite(s) => s.path(),
            Db::Postgres(p) => p.path(),
        }
    }

    /// Store one result in its own transaction. The same document stored again is not
    /// duplicated: its existing id comes back with `new: false`.
    pub fn insert(&mut self, doc: &impl AsDocument) -> Result<Inserted, StoreError> {
        let doc = doc.as_document();
        let row = Prepared::new(self.path(), &doc, None)?;
        let now = Stamp::now().unix_ms;
        match &mut self.db {
            Db::Sqlite(s) => s.insert(&row, now).map_err(StoreError::or_full),
            Db::Postgres(p) => p.insert(&row, now),
        }
    }

    /// The stored document `id`, migrated to the current model.
    pub fn get(&self, id: i64) -> Result<Option<Document>, StoreError> {
        match &self.db {
            Db::Sqlite(s) => s.get(id),
            Db::Postgres(p) => p.get(id),
        }
    }

    /// [`Store::get`] of a result that must be of kind `B`.
    pub fn get_typed<B: BodyKind>(&self, id: i64) -> Result<Option<Typed<B>>, StoreError> {
        match self.get(id)? {
            None => Ok(None),
            Some(d) => d.into_typed().map(Some).map_err(|d| StoreError::Document {
                path: self.path().to_string(),
                id,
                reason: format!("a {} result, not a {} result", d.kind(), B::KIND),
            }),
        }
    }

    /// Results matching `f`, oldest first, with their metrics.
    pub fn list(&self, f: &Filter) -> Result<Vec<Entry>, StoreError> {
        let mut out = Vec::new();
        self.each_in(f, Figures::All, &mut |e| {
            out.push(e);
            Ok::<(), StoreError>(())
        })?;
        Ok(out)
    }

    /// The ids of the results matching `f`, in [`Store::list`]'s order, each with its stored
    /// document's key (the SHA-256 of its stored text, what `history --check` checks it by):
    /// what tells a stored result unchanged without reading its document or its figures.
    pub fn keys(&self, f: &Filter) -> Result<Vec<(i64, String)>, StoreError> {
        let Some((sql, params)) = self.keys_query(f)? else {
            return Ok(Vec::new());
        };
        let rows = match &self.db {
            Db::Sqlite(s) => s.named_ids((sql, params))?,
            Db::Postgres(p) => p.named_ids((sql, params))?,
        };
        Ok(rows
            .into_iter()
            .map(|(id, key, _)| (id, key.unwrap_or_default()))
            .collect())
    }

    /// [`Store::list`] one entry at a time: each is handed to `emit` as it is read, none kept,
    /// so listing a million results takes the memory of one (`history` prints them so).
    pub fn each<E: From<StoreError>>(
        &mut self,
        f: &Filter,
        mut emit: impl FnMut(Entry) -> Result<(), E>,
    ) -> Result<(), E> {
        self.each_in(f, Figures::All, &mut emit)
    }

    /// [`Store::each`] with only the figures a listing shows (see [`Figures`]): a table of
    /// ten thousand results need not decode their hundred thousand figures.
    pub fn each_with<E: From<StoreError>>(
        &mut self,
        f: &Filter,
        figures: Figures<'_>,
        mut emit: impl FnMut(Entry) -> Result<(), E>,
    ) -> Result<(), E> {
        self.each_in(f, figures, &mut emit)
    }

    fn each_in<E: From<StoreError>>(
        &self,
        f: &Filter,
        figures: Figures<'_>,
        emit: &mut dyn FnMut(Entry) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some(q) = self.list_query(f)? else {
            return Ok(());
        };
        match &self.db {
            Db::Sqlite(s) => s.each(q, figures, emit),
            Db::Postgres(p) => p.each(q, figures, emit),
        }
    }

    fn dialect(&self) -> query::Dialect {
        match &self.db {
            Db::Sqlite(_) => query::Dialect::Sqlite,
            Db::Postgres(_) => query::Dialect::Postgres,
        }
    }

    /// [`Store::keys`]' query: the listing's, for the ids and keys alone.
    fn keys_query(&self, f: &Filter) -> Result<Option<(String, Vec<query::Param>)>, StoreError> {
        Ok(self
            .list_query(f)?
            .map(|(sql, params)| (sql.replacen(query::LISTED, "id, key, kind", 1), params)))
    }

    /// The query `list` runs for `f`; None when its `--device` text matches no stored name.
    fn list_query(&self, f: &Filter) -> Result<Option<(String, Vec<query::Param>)>, StoreError> {
        let matched = match &f.device {
            Some(needle) => {
                let mut m = query::Matched::default();
                for (i, column) in query::NAMED.iter().enumerate() {
                    m.columns[i] = query::matching(self.distinct(column, None)?, needle);
                }
                if m.is_empty() {
                    return Ok(None);
                }
                Some(m)
            }
            None => None,
        };
        Ok(Some(query::list_sql(self.dialect(), f, matched.as_ref())))
    }

    /// The distinct values of `column` (of the results of `kind`), from `result_names`.
    fn distinct(&self, column: &str, kind: Option<&str>) -> Result<Vec<String>, StoreError> {
        match &self.db {
            Db::Sqlite(s) => s.distinct(column, kind),
            Db::Postgres(p) => p.distinct(column, kind),
        }
    }

    fn ids(&self, q: (String, Vec<query::Param>)) -> Result<Vec<i64>, StoreError> {
        match &self.db {
            Db::Sqlite(s) => s.ids(q),
            Db::Postgres(p) => p.ids(q),
        }
    }

    /// The id of the latest result of `kind` that truebench measured here or elsewhere (not
    /// an imported sbc-bench log): one index seek, what `serve` asks at each refresh.
    pub fn latest(&self, kind: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .ids(query::latest_sql(self.dialect(), kind))?
            .into_iter()
            .next())
    }

    /// The ids of the results of `kind` of the machine `doc` was taken on, as
    /// [`regress::same_machine`] tells machines (the board's name by its letters and digits,
    /// case ignored; the SoC and host name where both name one), oldest first: the kind's
    /// device names read from `result_names`, those boards' rows through `(kind, device,
    /// started)`, and the machine's among them told by their columns — no document read.
    pub fn same_machine(
        &self,
        kind: &str,
        doc: &truebench_model::Document,
    ) -> Result<Vec<i64>, StoreError> {
        let e = &doc.envelope;
        let Some(device) = e.inventory.device.as_deref() else {
            return Ok(Vec::new());
        };
        let want = regress::norm(device);
        if want.is_empty() {
            return Ok(Vec::new());
        }
        let names: Vec<String> = self
            .distinct("device", Some(kind))?
            .into_iter()
            .filter(|n| regress::norm(n) == want)
            .collect();
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let q = query::same_device_sql(self.dialect(), kind, &names);
        let rows = match &self.db {
            Db::Sqlite(s) => s.named_ids(q)?,
            Db::Postgres(p) => p.named_ids(q)?,
        };
        let soc = e.inventory.soc.as_ref().map(|s| regress::norm(&s.name));
        let host = e.hostname.as_deref().map(regress::norm);
        let agrees = |mine: &Option<String>, theirs: Option<String>| match (mine, theirs) {
            (Some(a), Some(b)) => *a == regress::norm(&b),
            _ => true,
        };
        Ok(rows
            .into_iter()
            .filter(|(_, s, h)| agrees(&soc, s.clone()) && agrees(&host, h.clone()))
            .map(|(id, _, _)| id)
            .collect())
    }

    /// The ids of the valid, complete results of `kind` on SoC `soc` (the stored name
    /// exactly), oldest first: the candidates of a result's standing group.
    pub fn soc_group(&self, kind: &str, soc: &str) -> Result<Vec<i64>, StoreError> {
        self.ids(query::group_sql(self.dialect(), kind, soc))
    }

    /// The plan the database chooses for each query a command runs at scale, by name (`list
    /// --kind --device`, `latest`, …), for the tests that check an index answers each: SQLite's
    /// `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN` with sequential scans priced out (so a
    /// small test table is planned as a large one; a missing index still shows as a scan).
    #[doc(hidden)]
    pub fn plans(&self, probe: &Probe) -> Result<Vec<(String, String)>, StoreError> {
        let d = self.dialect();
        let mut queries: Vec<(String, (String, Vec<query::Param>))> = Vec::new();
        for (name, f) in &probe.filters {
            if let Some(q) = self.list_query(f)? {
                queries.push((format!("list {name}"), q));
            }
        }
        // The site's: the keys of the results since a date (the probe's filter of a date
        // alone), read from the listing's covering index in SQLite.
        if let Some((name, f)) = probe
            .filters
            .iter()
            .find(|(_, f)| f.since_unix_ms.is_some() && f.kind.is_none() && f.device.is_none())
        {
            if let Some(q) = self.keys_query(f)? {
                queries.push((format!("keys {name}"), q));
            }
        }
        for column in query::NAMED {
            queries.push((
                format!("distinct {column}"),
                query::distinct_sql(d, column, None),
            ));
        }
        queries.push((
            "distinct device of kind".into(),
            query::distinct_sql(d, "device", Some(&probe.kind)),
        ));
        queries.push(("latest".into(), query::latest_sql(d, &probe.kind)));
        queries.push((
            "same board".into(),
            query::same_device_sql(d, &probe.kind, std::slice::from_ref(&probe.device)),
        ));
        queries.push((
            "soc group".into(),
            query::group_sql(d, &probe.kind, &probe.soc),
        ));
        let grp = serde_json::json!([probe.kind, probe.soc, []]).to_string();
        queries.push((
            "standing rank".into(),
            query::ranks_sql(
                d,
                &grp,
                &[("sevenzip_multi".into(), 1000.0), ("memcpy".into(), 900.0)],
            ),
        ));
        queries.push((
            "standing same result".into(),
            query::same_result_sql(d, &grp, &probe.kind, 0, Some("host"), None),
        ));
        queries.push((
            "standing ungrouped".into(),
            query::ungrouped_sql(d, &probe.kind, &probe.soc),
        ));
        // A listed batch's figures: SQLite reads one result's figures whole (its range of the
        // covering index) for both; PostgreSQL a list of ids, which no `Param` is, spelled out.
        let figures = |postgres: &str| match d {
            query::Dialect::Sqlite => (
                query::FIGURES_SQLITE.to_string(),
                vec![query::Param::Int(1)],
            ),
            query::Dialect::Postgres => (
                postgres
                    .replace("$1", "'{1,2}'::bigint[]")
                    .replace("$2", "'{aes,headline}'::text[]"),
                Vec::new(),
            ),
        };
        queries.push(("listed figures".into(), figures(query::FIGURES_POSTGRES)));
        queries.push((
            "listed named figures".into(),
            figures(query::FIGURES_NAMED_POSTGRES),
        ));
        queries.push((
            "standing unbucketed".into(),
            (
                match d {
                    query::Dialect::Sqlite => counts::UNBUCKETED_SQLITE,
                    query::Dialect::Postgres => counts::UNBUCKETED_POSTGRES,
                }
                .to_string(),
                Vec::new(),
            ),
        ));
        let mut out = Vec::new();
        for (name, (sql, params)) in queries {
            let plan = match &self.db {
                Db::Sqlite(s) => s.plan(&sql, &params)?,
                Db::Postgres(p) => p.plan(&sql, &params, true)?,
            };
            out.push((name, plan));
        }
        Ok(out)
    }

    /// Store every document of `docs` in one transaction, each exactly as [`Store::insert`]
    /// stores it (a document already stored is not duplicated), the statements prepared
    /// once: how a large history is filled at once (the fleet-scale tests and bench). All
    /// or nothing. Returns how many were new.
    pub fn insert_many<D: AsDocument>(
        &mut self,
        docs: impl IntoIterator<Item = D>,
    ) -> Result<u64, StoreError> {
        let path = self.path().to_string();
        let mut rows = docs
            .into_iter()
            .map(move |d| Prepared::new(&path, &d.as_document(), None));
        let now = Stamp::now().unix_ms;
        match &mut self.db {
            Db::Sqlite(s) => s.insert_many(&mut rows, now).map_err(StoreError::or_full),
            Db::Postgres(p) => p.insert_many(&mut rows, now),
        }
    }

    pub fn count(&self) -> Result<i64, StoreError> {
        match &self.db {
            Db::Sqlite(s) => s.count(),
            Db::Postgres(p) => p.count(),
        }
    }

    /// Store `doc` in this (local, SQLite) history and keep it for `target`, a server that
    /// could not be reached (`sync` or the next result stored there sends it), in one
    /// transaction: never stored without being pending.
    pub fn insert_pending(
        &mut self,
        doc: &impl AsDocument,
        target: &str,
    ) -> Result<Inserted, StoreError> {
        let doc = doc.as_document();
        let row = Prepared::new(self.path(), &doc, None)?;
        let now = Stamp::now().unix_ms;
        match &mut self.db {
            Db::Sqlite(s) => s
                .insert_pending(&row, now, target)
                .map_err(StoreError::or_full),
            Db::Postgres(p) => Err(StoreError::NotLocal {
                path: p.path().to_string(),
            }),
        }
    }

    /// The results kept for servers that could not be reached: (id, target), oldest first.
    /// None in a PostgreSQL history (it keeps none).
    pub fn pending(&self) -> Result<Vec<(i64, String)>, StoreError> {
        match &self.db {
            Db::Sqlite(s) => s.pending(),
            Db::Postgres(_) => Ok(Vec::new()),
        }
    }

    /// Result `id` reached `target`: no longer pending.
    pub fn clear_pending(&mut self, id: i64, target: &str) -> Result<(), StoreError> {
        match &mut self.db {
            Db::Sqlite(s) => s.clear_pending(id, target),
            Db::Postgres(_) => Ok(()),
        }
    }

    /// `ok`, or the problems found: SQLite's `PRAGMA integrity_check`; in PostgreSQL, figures
    /// without their result and results whose document is not JSON.
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        match &self.db {
            Db::Sqlite(s) => s.integrity_check(),
            Db::Postgres(p) => p.integrity_check(),
        }
    }
}

/// A document ready to store: its text, its digest, and the columns `list` reads.
pub(crate) struct Prepared {
    pub json: String,
    pub digest: String,
    pub kind: String,
    pub started_unix_ms: i64,
    pub started_utc: String,
    pub device: Option<String>,
    pub soc: Option<String>,
    pub hostname: Option<String>,
    pub label: String,
    pub valid: bool,
    pub complete: bool,
    pub source: &'static str,
    pub source_name: Option<String>,
    pub schema_version: i64,
    pub truebench_version: String,
    pub metrics: Vec<kinds::Metric>,
    /// Its group and ranked figures for the `standing` table ([`standing::stored`]).
    pub standing: (String, Vec<(String, f64)>),
}

impl Prepared {
    fn new(path: &str, doc: &Document, id: Option<i64>) -> Result<Prepared, StoreError> {
        let json = serde_json::to_string(doc).map_err(|e| StoreError::Document {
            path: path.to_string(),
            id: id.unwrap_or(0),
            reason: e.to_string(),
        })?;
        let env = &doc.envelope;
        let (source, source_name) = match truebench_sbcbench::convert::import_source(View {
            envelope: env,
            body: &(),
        }) {
            Some((_, name)) => ("sbc-bench", name),
            None => ("run", None),
        };
        // The figures once: stored as they are, and the ranked ones again for `standing`.
        let figures = kinds::metrics(doc);
        let standing = standing::stored(doc, &figures);
        Ok(Prepared {
            digest: digest(&json),
            json,
            kind: doc.kind().to_string(),
            started_unix_ms: env.started.unix_ms,
            started_utc: env.started.utc.clone(),
            device: env.inventory.device.clone(),
            soc: env.inventory.soc.as_ref().map(|s| s.name.clone()),
            hostname: env.hostname.clone(),
            label: kinds::label(doc),
            valid: env.valid,
            complete: env.complete,
            source,
            source_name,
            schema_version: i64::from(doc.schema_version),
            truebench_version: env.truebench_version.clone(),
            metrics: {
                // The headline on one line: what `history` lists for every kind.
                let mut m = figures;
                let h = truebench_figures::headline(doc);
                if !h.is_empty() {
                    m.push(kinds::Metric::text(
                        HEADLINE_KEY,
                        truebench_figures::headline::one_line(&h),
                    ));
                }
                m
            },
            standing,
        })
    }
}

/// A row of the `standing` table: result, group, key (`''`: the group's row), value.
pub(crate) type StandingRow = (i64, String, String, Option<f64>);

/// The stored text metric holding a result's headline on one line (`history` shows it).
pub const HEADLINE_KEY: &str = "headline";

/// The columns of `results` that `list` reads, in both back ends.
pub(crate) struct ListedRow {
    pub id: i64,
    pub kind: String,
    pub started_unix_ms: i64,
    pub started_utc: String,
    pub device: Option<String>,
    pub soc: Option<String>,
    pub hostname: Option<String>,
    pub label: String,
    pub valid: bool,
    pub complete: bool,
    pub source: String,
    pub source_name: Option<String>,
}

impl ListedRow {
    fn into_entry(self) -> Entry {
        Entry {
            id: self.id,
            kind: self.kind,
            started_unix_ms: self.started_unix_ms,
            started_utc: self.started_utc,
            device: self.device,
            soc: self.soc,
            hostname: self.hostname,
            mode: self.label,
            valid: self.valid,
            complete: self.complete,
            source: self.source,
            source_name: self.source_name,
            metrics: BTreeMap::new(),
        }
    }
}

/// A stored figure as JSON: a number, else its text.
fn metric_value(value: Option<f64>, text: Option<String>) -> serde_json::Value {
    match (value, text) {
        // Whole numbers stay integers in JSON (2989, not 2989.0).
        (Some(v), _) if v.fract() == 0.0 && v.abs() < 9.0e15 => (v as i64).into(),
        (Some(v), _) => v.into(),
        (None, Some(t)) => t.into(),
        (None, None) => serde_json::Value::Null,
    }
}

/// A stored document's text, migrated to the current model.
fn parse_document(path: &str, id: i64, text: &str) -> Result<Document, StoreError> {
    let doc = |reason: String| StoreError::Document {
        path: path.to_string(),
        id,
        reason,
    };
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| doc(e.to_string()))?;
    migrate(v).map_err(|e| doc(e.to_string()))
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
/// makes after writing its result folder. Returns where (for messages: a URL without its
/// password) and the id.
pub fn store_result(
    r: &impl AsDocument,
    db: Option<&Path>,
) -> Result<(String, Inserted), StoreError> {
    let path = match db {
        Some(p) => p.to_path_buf(),
        None => default_path()?,
    };
    let mut s = Store::open(&path)?;
    let ins = s.insert(r)?;
    Ok((s.path().to_string(), ins))
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
