//! The history's read queries, the same for both back ends but for their placeholders, each
//! shaped so an index answers it (the tests check the plans with `EXPLAIN`): at a fleet's
//! million results nothing a command runs may read the whole table.
//!
//! - `list` (`history`, `export`, `site`): built from the filters given, never
//!   `(? IS NULL OR …)` (which no planner can answer from an index). `--kind` and `--since`
//!   walk `(kind, started_unix_ms)` or `(started_unix_ms)` in the order listed. `--device`
//!   (a case-insensitive substring of the device, SoC or host name) cannot be answered by a
//!   B-tree as such: the distinct names of the three columns are read first, one range of
//!   `result_names` each ([`distinct_sql`]: a fleet has thousands of machines, not a
//!   million), matched here, and the rows of the names that match fetched through each
//!   column's index.
//! - `latest` (`serve`): one seek of `(kind, source, started_unix_ms)`.
//! - `same_device` (`serve`'s regression of the latest result): the kind's rows of the device
//!   names that are the same board, through `(kind, device, started_unix_ms)`.
//! - `group` (`compare`'s and `report`'s standing): the kind's valid, complete rows of one SoC,
//!   through `(soc, kind, started_unix_ms)`.
//! - `rank` (the standing itself): each figure's place in its group read from the tallies
//!   the database keeps beside `standing` — the rows [`crate::standing::stored`] writes
//!   beside each result — ([`crate::counts`]), so a group of ten thousand results costs what
//!   one of ten does, no document read; `same_result` finds the copies of the result being
//!   ranked through `(started_unix_ms)`, and `ungrouped` the group's rows a truebench older
//!   than the table stored (listed in `standing_missing`; their documents are read).

use crate::Filter;

/// Whose placeholders and casts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
}

/// A value bound to a query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Param {
    Text(String),
    Int(i64),
    /// A list of names: SQLite reads it as a JSON array (`json_each`), PostgreSQL as `text[]`.
    Names(Vec<String>),
    Real(f64),
}

/// The columns of `results` that a listed entry reads ([`crate::ListedRow`]'s order).
pub(crate) const LISTED: &str = "id, kind, started_unix_ms, started_utc, device, soc, hostname, \
                                 label, valid, complete, source, source_name";

/// The columns the `--device` filter matches, each with its own index.
pub(crate) const NAMED: [&str; 3] = ["device", "soc", "hostname"];

/// The names of each column of [`NAMED`] that the `--device` text matches.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Matched {
    pub columns: [Vec<String>; 3],
}

impl Matched {
    pub fn is_empty(&self) -> bool {
        self.columns.iter().all(Vec::is_empty)
    }
}

/// The stored names (`distinct` of a column) that contain `needle`, case ignored.
pub(crate) fn matching(names: Vec<String>, needle: &str) -> Vec<String> {
    let needle = needle.to_lowercase();
    names
        .into_iter()
        .filter(|n| n.to_lowercase().contains(&needle))
        .collect()
}

struct Builder {
    dialect: Dialect,
    params: Vec<Param>,
}

impl Builder {
    /// The next placeholder for `p`, cast as PostgreSQL needs it.
    fn bind(&mut self, p: Param) -> String {
        let cast = match &p {
            Param::Text(_) => "::text",
            Param::Int(_) => "::bigint",
            Param::Names(_) => "::text[]",
            Param::Real(_) => "::float8",
        };
        self.params.push(p);
        let n = self.params.len();
        match self.dialect {
            Dialect::Sqlite => format!("?{n}"),
            Dialect::Postgres => format!("${n}{cast}"),
        }
    }

    /// `column` is one of `names`.
    fn one_of(&mut self, column: &str, names: &[String]) -> String {
        let p = self.bind(Param::Names(names.to_vec()));
        match self.dialect {
            Dialect::Sqlite => format!("{column} IN (SELECT value FROM json_each({p}))"),
            Dialect::Postgres => format!("{column} = ANY({p})"),
        }
    }

    /// A column as a term that no index is chosen for (SQLite's unary `+`), so the planner
    /// takes the one index meant to answer the query.
    fn unindexed(&self, column: &str) -> String {
        match self.dialect {
            Dialect::Sqlite => format!("+{column}"),
            Dialect::Postgres => column.to_string(),
        }
    }
}

fn table(d: Dialect) -> &'static str {
    match d {
        Dialect::Sqlite => "results",
        Dialect::Postgres => "truebench.results",
    }
}

fn standing_table(d: Dialect) -> &'static str {
    match d {
        Dialect::Sqlite => "standing",
        Dialect::Postgres => "truebench.standing",
    }
}

/// The query of `list`: `f`'s filters, with `matched` the names its `--device` matched (None
/// without `--device`; with it, the caller lists nothing when no name matched).
pub(crate) fn list_sql(d: Dialect, f: &Filter, matched: Option<&Matched>) -> (String, Vec<Param>) {
    let mut b = Builder {
        dialect: d,
        params: Vec::new(),
    };
    let mut terms = Vec::new();
    let by_name = matched.is_some();
    if let Some(m) = matched {
        let ors: Vec<String> = NAMED
            .iter()
            .zip(&m.columns)
            .filter(|(_, names)| !names.is_empty())
            .map(|(c, names)| b.one_of(c, names))
            .collect();
        terms.push(format!("({})", ors.join(" OR ")));
    }
    if let Some(k) = &f.kind {
        let col = if by_name {
            b.unindexed("kind")
        } else {
            "kind".into()
        };
        let p = b.bind(Param::Text(k.clone()));
        terms.push(format!("{col} = {p}"));
    }
    if let Some(s) = f.since_unix_ms {
        let col = if by_name {
            b.unindexed("started_unix_ms")
        } else {
            "started_unix_ms".into()
        };
        let p = b.bind(Param::Int(s));
        terms.push(format!("{col} >= {p}"));
    }
    let filter = if terms.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", terms.join(" AND "))
    };
    (
        format!(
            "SELECT {LISTED} FROM {}{filter} ORDER BY started_unix_ms, id",
            table(d)
        ),
        b.params,
    )
}

/// The distinct non-null values of `column` (`device`, `soc` or `hostname`; of results of
/// `kind` when given, for `device` only), in order: one range of `result_names`, which the
/// database keeps ([`crate::counts`]).
pub(crate) fn distinct_sql(d: Dialect, column: &str, kind: Option<&str>) -> (String, Vec<Param>) {
    let mut b = Builder {
        dialect: d,
        params: Vec::new(),
    };
    let c = b.bind(Param::Text(column.to_string()));
    let k = b.bind(Param::Text(kind.unwrap_or_default().to_string()));
    let names = match d {
        Dialect::Sqlite => "result_names",
        Dialect::Postgres => "truebench.result_names",
    };
    (
        format!("SELECT name FROM {names} WHERE col = {c} AND kind = {k} ORDER BY name"),
        b.params,
    )
}

/// The latest result of `kind` that truebench measured (not an imported sbc-bench log, whose
/// `source` is `sbc-bench`; every other row's is `run`).
pub(crate) fn latest_sql(d: Dialect, kind: &str) -> (String, Vec<Param>) {
    let mut b = Builder {
        dialect: d,
        params: Vec::new(),
    };
    let k = b.bind(Param::Text(kind.to_string()));
    let run = b.bind(Param::Text("run".into()));
    (
        format!(
            "SELECT id FROM {} WHERE kind = {k} AND source = {run}
             ORDER BY started_unix_ms DESC, id DESC LIMIT 1",
            table(d)
        ),
        b.params,
    )
}

/// The id, SoC and host name of the results of `kind` whose device is one of `devices`,
/// oldest first (the columns a machine is told by; no document read).
pub(crate) fn same_device_sql(d: Dialect, kind: &str, devices: &[String]) -> (String, Vec<Param>) {
    let mut b = Builder {
        dialect: d,
        params: Vec::new(),
    };
    let k = b.bind(Param::Text(kind.to_string()));
    let names = b.one_of("device", devices);
    // SQLite, without statistics, would rather walk all of the kind in order than sort the
    // board's few rows: told which index (opening a history makes it).
    let indexed = match d {
        Dialect::Sqlite => " INDEXED BY results_kind_device",
        Dialect::Postgres => "",
    };
    (
        format!(
            "SELECT id, soc, hostname FROM {}{indexed} WHERE kind = {k} AND {names}
             ORDER BY started_unix_ms, id",
            table(d)
        ),
        b.params,
    )
}

/// The ids of the valid, complete results of `kind` on SoC `soc`, oldest first.
pub(crate) fn group_sql(d: Dialect, kind: &str, soc: &str) -> (String, Vec<Param>) {
    let mut b = Builder {
        dialect: d,
        params: Vec::new(),
    };
    let s = b.bind(Param::Text(soc.to_string()));
    let k = b.bind(Param::Text(kind.to_string()));
    let yes = match d {
        Dialect::Sqlite => "1",
        Dialect::Postgres => "true",
    };
    (
        format!(
            "SELECT id FROM {} r WHERE soc = {s} AND kind = {k} AND valid = {yes} AND complete = {yes}
             ORDER BY started_unix_ms, id",
            table(d)
        ),
        b.params,
    )
}

/// A result's standing, counted for many figures in one statement: for each `(key, value)`,
/// how many of group `grp`'s results have figure `key`, how many of those have a value below
/// it and how many equal it — one row per pair, keyed by the pair. One round trip instead of
/// one per figure, which a server's history pays in latency. Each count is read from the
/// tallies of [`crate::counts`] (the buckets below the value's, the distinct values of its
/// bucket below it, its own value's tally), plus the few rows without a bucket (stored by a
/// truebench before the tallies after they were made, `standing_unbucketed`): no walk over
/// the group.
pub(crate) fn ranks_sql(d: Dialect, grp: &str, pairs: &[(String, f64)]) -> (String, Vec<Param>) {
    let mut b = Builder {
        dialect: d,
        params: Vec::new(),
    };
    let g = b.bind(Param::Text(grp.to_string()));
    let (st, buckets, values) = match d {
        Dialect::Sqlite => ("standing", "standing_buckets", "standing_values"),
        Dialect::Postgres => (
            "truebench.standing",
            "truebench.standing_buckets",
            "truebench.standing_values",
        ),
    };
    // A count as the same integer type in both back ends (PostgreSQL's sum of BIGINT is
    // NUMERIC).
    let int = |e: String| match d {
        Dialect::Sqlite => e,
        Dialect::Postgres => format!("({e})::bigint"),
    };
    let rows: Vec<String> = pairs
        .iter()
        .map(|(k, v)| {
            let bucket = crate::counts::bucket(*v);
            let k = b.bind(Param::Text(k.clone()));
            let v = b.bind(Param::Real(*v));
            let bk = b.bind(Param::Int(bucket));
            let lo = b.bind(Param::Real(crate::counts::bucket_floor(bucket)));
            let tally = |table: &str, more: &str| {
                format!(
                    "(SELECT coalesce(sum(n), 0) FROM {table} WHERE grp = {g} AND key = {k}{more})"
                )
            };
            let loose = |more: &str| {
                format!(
                    "(SELECT count(*) FROM {st} WHERE grp = {g} AND key = {k} \
                     AND bucket IS NULL AND key <> ''{more})"
                )
            };
            let of = int(format!(
                "{} + {}",
                tally(buckets, ""),
                loose(" AND value IS NOT NULL")
            ));
            let below = int(format!(
                "{} + {} + {}",
                tally(buckets, &format!(" AND bucket < {bk}")),
                tally(values, &format!(" AND value >= {lo} AND value < {v}")),
                loose(&format!(" AND value < {v}"))
            ));
            let equal = int(format!(
                "{} + {}",
                tally(values, &format!(" AND value = {v}")),
                loose(&format!(" AND value = {v}"))
            ));
            format!("SELECT {k}, {v}, {of}, {below}, {equal}")
        })
        .collect();
    (rows.join("\nUNION ALL "), b.params)
}

/// The ranked figures (key and value) of the stored copies of one result — its kind, start,
/// host and board — in group `grp`.
pub(crate) fn same_result_sql(
    d: Dialect,
    grp: &str,
    kind: &str,
    started_unix_ms: i64,
    hostname: Option<&str>,
    device: Option<&str>,
) -> (String, Vec<Param>) {
    let mut b = Builder {
        dialect: d,
        params: Vec::new(),
    };
    let k = b.bind(Param::Text(kind.to_string()));
    let t = b.bind(Param::Int(started_unix_ms));
    let mut is = |column: &str, v: Option<&str>| match v {
        Some(v) => format!("r.{column} = {}", b.bind(Param::Text(v.to_string()))),
        None => format!("r.{column} IS NULL"),
    };
    let h = is("hostname", hostname);
    let dv = is("device", device);
    let g = b.bind(Param::Text(grp.to_string()));
    // The few rows of one start time, not the group's thousands: the group is no index term.
    let grp_column = b.unindexed("s.grp");
    let kind_column = b.unindexed("r.kind");
    (
        format!(
            "SELECT s.key, s.value FROM {} r JOIN {} s ON s.result_id = r.id
             WHERE {kind_column} = {k} AND r.started_unix_ms = {t} AND {h} AND {dv}
               AND {grp_column} = {g}
               AND s.key <> ''",
            table(d),
            standing_table(d)
        ),
        b.params,
    )
}

/// The ids of [`group_sql`]'s rows that have no row in `standing` (stored by a truebench
/// older than it), oldest first: the group's entries of `standing_missing`, which the
/// database keeps ([`crate::counts`]), so the group's other results are not looked at.
pub(crate) fn ungrouped_sql(d: Dialect, kind: &str, soc: &str) -> (String, Vec<Param>) {
    let mut b = Builder {
        dialect: d,
        params: Vec::new(),
    };
    let s = b.bind(Param::Text(soc.to_string()));
    let k = b.bind(Param::Text(kind.to_string()));
    let (yes, missing) = match d {
        Dialect::Sqlite => ("1", "standing_missing"),
        Dialect::Postgres => ("true", "truebench.standing_missing"),
    };
    (
        format!(
            "SELECT r.id FROM {missing} m JOIN {} r ON r.id = m.result_id
             WHERE m.soc = {s} AND m.kind = {k} AND r.valid = {yes} AND r.complete = {yes}
             ORDER BY m.started_unix_ms, m.result_id",
            table(d)
        ),
        b.params,
    )
}

/// The table of each result's group and ranked figures ([`crate::standing::stored`]): one
/// row per figure, and one with the key `''` (no figure) that says the result was stored by a
/// truebench that writes the table — a result in no group has only that row, with the group
/// `''`. A table an older truebench ignores (its results have no rows: [`ungrouped_sql`]).
/// A figure's row has its value's [`crate::counts::bucket`] (a history made before the
/// buckets gets the column when opened: [`crate::counts::add_bucket`]).
pub(crate) fn standing_ddl(d: Dialect) -> String {
    let (id, rest) = match d {
        Dialect::Sqlite => ("INTEGER", ""),
        Dialect::Postgres => ("BIGINT", ", result_id"),
    };
    format!(
        "CREATE TABLE IF NOT EXISTS {st} (
            result_id {id} NOT NULL REFERENCES {t}(id) ON DELETE CASCADE,
            grp TEXT NOT NULL,
            key TEXT NOT NULL,
            value {real},
            bucket {bucket},
            PRIMARY KEY (result_id, key)
         );
         -- No query of this truebench reads it (ranks come from the tallies); kept because
         -- a truebench before the tallies makes it at every open where it is missing, and
         -- would build it again over the whole table after each drop.
         CREATE INDEX IF NOT EXISTS standing_rank ON {st}(grp, key, value{rest});",
        st = standing_table(d),
        t = table(d),
        real = match d {
            Dialect::Sqlite => "REAL",
            Dialect::Postgres => "DOUBLE PRECISION",
        },
        bucket = match d {
            Dialect::Sqlite => "INTEGER",
            Dialect::Postgres => "BIGINT",
        }
    )
}

/// The figures of one listed result (SQLite: one a row, from the `metrics_listed` index
/// alone) and of a batch of them (PostgreSQL: one round trip per batch).
pub(crate) const FIGURES_SQLITE: &str = "SELECT key, value, text FROM metrics WHERE result_id = ?1";
pub(crate) const FIGURES_POSTGRES: &str =
    "SELECT result_id, key, value, text FROM truebench.metrics WHERE result_id = ANY($1)";
/// Only the named figures of a batch (`Figures::Named`): each result's range of the primary
/// key read, the keys kept by a filter. `key = ANY($2)` would be a second condition on the
/// index, a seek per result and key: at 10⁶ results 1.7–2.4 ms per batch of 500 against
/// 0.9 ms for the filter (`EXPLAIN ANALYZE`, PostgreSQL 15).
pub(crate) const FIGURES_NAMED_POSTGRES: &str = "SELECT result_id, key, value, text \
     FROM truebench.metrics WHERE result_id = ANY($1) AND array_position($2, key) IS NOT NULL";

/// The indexes the queries above are answered by, created where missing each time a history
/// is opened (so a history of an older truebench gets them once, on its first open by this
/// one); `results_kind` is dropped: `results_kind_started` begins with the same column.
pub(crate) fn indexes(d: Dialect) -> String {
    let t = table(d);
    let s = match d {
        Dialect::Sqlite => "",
        Dialect::Postgres => "truebench.",
    };
    // SQLite ends every index with the rowid (the id); PostgreSQL needs it named to keep
    // `ORDER BY started_unix_ms, id` in index order.
    let id = match d {
        Dialect::Sqlite => "",
        Dialect::Postgres => ", id",
    };
    // SQLite: a listing in start order (`--since`, `site`, `export`) read from the index
    // alone, and each listed result's figures likewise — at 10⁶ results most of a listing's
    // time was one table seek per row and per figure (92–96 → 62 ms for 10,000 rows, about 560
    // bytes a result on disk). Not in PostgreSQL, whose index entries have a size limit a long
    // label or text figure would exceed, refusing the result. The documents' keys too: the
    // site lists every result's key at each build, and a seek per row reads the row's page,
    // most of it its document (1.0 s at 10⁵ results, 0.04 s from the index). Made anew under
    // another name, as an index's columns are fixed; the one without the keys is dropped.
    let listed = match d {
        Dialect::Sqlite => {
            "DROP INDEX IF EXISTS results_listed;
             CREATE INDEX IF NOT EXISTS results_listed_keyed ON results(started_unix_ms, id, kind,
                 started_utc, device, soc, hostname, label, valid, complete, source, source_name,
                 key);
             CREATE INDEX IF NOT EXISTS metrics_listed ON metrics(result_id, key, value, text);"
        }
        Dialect::Postgres => "",
    };
    format!(
        "{listed}
         CREATE INDEX IF NOT EXISTS results_kind_started ON {t}(kind, started_unix_ms{id});
         CREATE INDEX IF NOT EXISTS results_kind_source ON {t}(kind, source, started_unix_ms{id});
         CREATE INDEX IF NOT EXISTS results_kind_device ON {t}(kind, device, started_unix_ms{id});
         CREATE INDEX IF NOT EXISTS results_soc ON {t}(soc, kind, started_unix_ms{id});
         CREATE INDEX IF NOT EXISTS results_hostname ON {t}(hostname);
         DROP INDEX IF EXISTS {s}results_kind;
         {}",
        standing_ddl(d)
    )
}

/// The names of the indexes [`indexes`] and [`crate::counts::ddl`] make, to tell whether a
/// history has them all (the tallies' tables by their primary keys).
pub(crate) const INDEXES: [&str; 12] = [
    "results_kind_started",
    "results_kind_source",
    "results_kind_device",
    "results_soc",
    "results_hostname",
    "standing_rank",
    "standing_unbucketed",
    "standing_buckets_pkey",
    "standing_values_pkey",
    "standing_missing_pkey",
    "standing_missing_soc",
    "result_names_pkey",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_binds_only_the_filters_given() {
        let (sql, p) = list_sql(Dialect::Sqlite, &Filter::default(), None);
        assert!(!sql.contains("WHERE"), "{sql}");
        assert!(p.is_empty());
        let f = Filter {
            kind: Some("run".into()),
            since_unix_ms: Some(5),
            device: None,
        };
        let (sql, p) = list_sql(Dialect::Postgres, &f, None);
        assert!(
            sql.contains("kind = $1::text AND started_unix_ms >= $2::bigint"),
            "{sql}"
        );
        assert_eq!(p, vec![Param::Text("run".into()), Param::Int(5)]);
        let m = Matched {
            columns: [vec!["ROCK 5B".into()], vec![], vec!["rock5".into()]],
        };
        let (sql, _) = list_sql(Dialect::Sqlite, &f, Some(&m));
        assert!(
            sql.contains("(device IN (SELECT value FROM json_each(?1)) OR hostname IN (SELECT value FROM json_each(?2))) AND +kind = ?3"),
            "{sql}"
        );
    }

    #[test]
    fn names_match_as_substrings_case_ignored() {
        let names = vec!["Radxa ROCK 5B".to_string(), "Raspberry Pi 4".into()];
        assert_eq!(matching(names.clone(), "rock 5"), vec!["Radxa ROCK 5B"]);
        assert!(matching(names, "orange").is_empty());
    }
}
