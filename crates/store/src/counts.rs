//! Counts kept beside the `standing` table so a result's rank in its group costs the same in a
//! group of ten results as in one of ten thousand: counting the values below a figure's in
//! an index is a walk over them (neither back end's B-trees count), which at a fleet's
//! million results made `compare` grow with the group.
//!
//! Each finite figure's row in `standing` carries its value's [`bucket`]: a narrow range of
//! values (1/256 of a power of two), numbered in value order. The database itself keeps two
//! tallies by triggers on `standing` (so every writer, and any row added or removed by hand,
//! keeps them true): `standing_buckets` (group, key, bucket → rows) and `standing_values`
//! (group, key, value → rows). A value `v` in bucket `b` then has below it the tallies of the
//! buckets before `b` (a walk over at most a few hundred buckets: a group's values span a few
//! powers of two) plus the distinct values of `b` below `v` (a walk over one narrow range of
//! distinct values), and equal to it one tally — exact, whatever the group's size.
//!
//! The results with no row in `standing` at all (stored by a truebench before the table),
//! whose documents a standing reads instead, are listed by triggers too: `standing_missing`
//! (SoC, kind, start) holds each result until its group's row (key `''`) is stored, so a
//! group's such results are found without a look at each of the group's results.
//!
//! The same trigger on `results` keeps `result_names`: each device, SoC and host name
//! stored (and each device name per kind), which `history --device` matches its text
//! against — thousands of names read in one range, where a seek per distinct name in the
//! results' indexes cost a round trip each to a server.
//!
//! Rows without a bucket (stored by a truebench that wrote `standing` before the buckets) are
//! given theirs when the tallies are made ([`UNBUCKETED_POSTGRES`]; SQLite, where a look
//! costs nothing, at every open: [`UNBUCKETED_SQLITE`]); one stored by such a truebench after
//! that is counted by a walk over the rows without a bucket, through a partial index that
//! holds only them (`standing_unbucketed`).

use crate::query::Dialect;

/// Bits of an `f64`'s order-preserving integer form dropped for its bucket: the sign, the
/// 11 exponent bits and the 8 highest mantissa bits are kept, so a bucket spans 1/256 of a
/// power of two (0.4–0.8 % of its values).
const DROPPED_BITS: u32 = 44;

/// `v`'s bits as an integer in the same order as the values (negative values' magnitude
/// bits flipped); 0.0 and -0.0, equal values, alike.
fn ordered(v: f64) -> i64 {
    let v = if v == 0.0 { 0.0 } else { v };
    let b = v.to_bits() as i64;
    if b < 0 {
        b ^ i64::MAX
    } else {
        b
    }
}

/// The inverse of [`ordered`].
fn from_ordered(o: i64) -> f64 {
    let b = if o < 0 { o ^ i64::MAX } else { o };
    f64::from_bits(b as u64)
}

/// The bucket of a finite value: buckets are numbered in value order, so every value of a
/// bucket is above every value of the buckets before it.
pub(crate) fn bucket(v: f64) -> i64 {
    ordered(v) >> DROPPED_BITS
}

/// The smallest value of bucket `b` (of a finite value's bucket: itself finite).
pub(crate) fn bucket_floor(b: i64) -> f64 {
    from_ordered(b << DROPPED_BITS)
}

/// A batch of the figure rows without a bucket, through `standing_unbucketed` (the rows
/// given theirs leave it, so the next batch is the next rows).
pub(crate) const UNBUCKETED_SQLITE: &str = "SELECT rowid, value FROM standing
     WHERE bucket IS NULL AND key <> '' AND value IS NOT NULL LIMIT 20000";

/// [`UNBUCKETED_SQLITE`] for PostgreSQL, the rows by their key.
pub(crate) const UNBUCKETED_POSTGRES: &str = "SELECT result_id, key, value FROM truebench.standing
     WHERE bucket IS NULL AND key <> '' AND value IS NOT NULL LIMIT 20000";

/// Fills a new `standing_missing` with the results that have no row in `standing` (stored
/// by a truebench before it, or before the list): run once, when the list is made.
pub(crate) fn fill_missing(d: Dialect) -> &'static str {
    match d {
        Dialect::Sqlite => {
            "INSERT INTO standing_missing
             SELECT r.id, r.soc, r.kind, r.started_unix_ms FROM results r
             WHERE NOT EXISTS (SELECT 1 FROM standing s WHERE s.result_id = r.id AND s.key = '')
             ON CONFLICT (result_id) DO NOTHING"
        }
        Dialect::Postgres => {
            "INSERT INTO truebench.standing_missing
             SELECT r.id, r.soc, r.kind, r.started_unix_ms FROM truebench.results r
             WHERE NOT EXISTS (SELECT 1 FROM truebench.standing s
                               WHERE s.result_id = r.id AND s.key = '')
             ON CONFLICT (result_id) DO NOTHING"
        }
    }
}

/// What `history --check` asks of the lists kept by triggers, each a query of one count of
/// rows that disagree with `standing` and `results`, with what a disagreement means.
pub(crate) fn checks(d: Dialect) -> Vec<(&'static str, String)> {
    let p = match d {
        Dialect::Sqlite => "",
        Dialect::Postgres => "truebench.",
    };
    let differ = |ours: &str, theirs: &str| {
        format!(
            "SELECT count(*) FROM (SELECT * FROM ({ours} EXCEPT {theirs}) x
             UNION ALL SELECT * FROM ({theirs} EXCEPT {ours}) y) d"
        )
    };
    vec![
        (
            "the tallies of buckets differ from the standing table's rows",
            differ(
                &format!("SELECT grp, key, bucket, count(*) FROM {p}standing WHERE bucket IS NOT NULL GROUP BY grp, key, bucket"),
                &format!("SELECT grp, key, bucket, n FROM {p}standing_buckets WHERE n > 0"),
            ),
        ),
        (
            "the tallies of values differ from the standing table's rows",
            differ(
                &format!("SELECT grp, key, value, count(*) FROM {p}standing WHERE bucket IS NOT NULL GROUP BY grp, key, value"),
                &format!("SELECT grp, key, value, n FROM {p}standing_values WHERE n > 0"),
            ),
        ),
        (
            // A name no result holds any more is only looked up in vain: not counted.
            "names the results hold are missing from the list of names",
            format!(
                "SELECT count(*) FROM (SELECT * FROM ({} EXCEPT SELECT col, kind, name FROM {p}result_names) x) d",
                names_held(d)
            ),
        ),
        (
            "the list of results without standing rows differs from the results",
            differ(
                &format!("SELECT r.id FROM {p}results r WHERE NOT EXISTS (SELECT 1 FROM {p}standing s WHERE s.result_id = r.id AND s.key = '')"),
                &format!("SELECT result_id FROM {p}standing_missing"),
            ),
        ),
    ]
}

/// Fills a new `result_names` with the names the results hold (index scans of the columns'
/// own indexes): run once, when the list is made.
pub(crate) fn fill_names(d: Dialect) -> String {
    let p = match d {
        Dialect::Sqlite => "",
        Dialect::Postgres => "truebench.",
    };
    format!(
        "INSERT INTO {p}result_names {} ON CONFLICT (col, kind, name) DO NOTHING",
        names_held(d)
    )
}

/// Each (column, kind, name) the results hold, as `result_names` lists it.
fn names_held(d: Dialect) -> String {
    let t = match d {
        Dialect::Sqlite => "results",
        Dialect::Postgres => "truebench.results",
    };
    format!(
        "SELECT DISTINCT 'device', '', device FROM {t} WHERE device IS NOT NULL
         UNION SELECT DISTINCT 'device', kind, device FROM {t} WHERE device IS NOT NULL
         UNION SELECT DISTINCT 'soc', '', soc FROM {t} WHERE soc IS NOT NULL
         UNION SELECT DISTINCT 'hostname', '', hostname FROM {t} WHERE hostname IS NOT NULL"
    )
}

/// Gives a `standing` table made before the buckets its column (run where it has none).
pub(crate) fn add_bucket(d: Dialect) -> &'static str {
    match d {
        Dialect::Sqlite => "ALTER TABLE standing ADD COLUMN bucket INTEGER",
        Dialect::Postgres => {
            "ALTER TABLE truebench.standing ADD COLUMN IF NOT EXISTS bucket BIGINT"
        }
    }
}

/// The tallies, their triggers and the partial index of rows without a bucket; nothing where
/// they exist. In the layout transaction, after `standing` has its `bucket` column, and
/// before [`Unbucketed`] rows are given theirs (whose updates the triggers count).
pub(crate) fn ddl(d: Dialect) -> String {
    match d {
        Dialect::Sqlite => SQLITE.to_string(),
        Dialect::Postgres => POSTGRES.to_string(),
    }
}

/// SQLite: row triggers (its only kind). `INSERT OR REPLACE` would delete a row without its
/// delete trigger (recursive triggers are off), so `standing` is written with `ON CONFLICT DO
/// UPDATE`, which fires the update trigger.
const SQLITE: &str = "
CREATE TABLE IF NOT EXISTS standing_buckets (
    grp TEXT NOT NULL, key TEXT NOT NULL, bucket INTEGER NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (grp, key, bucket)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS standing_values (
    grp TEXT NOT NULL, key TEXT NOT NULL, value REAL NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (grp, key, value)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS standing_unbucketed ON standing(grp, key, value)
    WHERE bucket IS NULL AND key <> '';
CREATE TABLE IF NOT EXISTS standing_missing (
    result_id INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,
    soc TEXT, kind TEXT NOT NULL, started_unix_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS standing_missing_soc ON standing_missing(soc, kind, started_unix_ms);
CREATE TABLE IF NOT EXISTS result_names (
    col TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    PRIMARY KEY (col, kind, name)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS results_listed AFTER INSERT ON results BEGIN
    INSERT INTO standing_missing VALUES (NEW.id, NEW.soc, NEW.kind, NEW.started_unix_ms)
        ON CONFLICT (result_id) DO NOTHING;
    INSERT INTO result_names
        SELECT c, k, n FROM (SELECT 'device' AS c, '' AS k, NEW.device AS n
                             UNION ALL SELECT 'device', NEW.kind, NEW.device
                             UNION ALL SELECT 'soc', '', NEW.soc
                             UNION ALL SELECT 'hostname', '', NEW.hostname)
        WHERE n IS NOT NULL
        ON CONFLICT (col, kind, name) DO NOTHING;
END;
CREATE TRIGGER IF NOT EXISTS standing_missing_out AFTER INSERT ON standing
WHEN NEW.key = '' BEGIN
    DELETE FROM standing_missing WHERE result_id = NEW.result_id;
END;
CREATE TRIGGER IF NOT EXISTS standing_missing_again AFTER DELETE ON standing
WHEN OLD.key = '' BEGIN
    INSERT INTO standing_missing
        SELECT id, soc, kind, started_unix_ms FROM results WHERE id = OLD.result_id
        ON CONFLICT (result_id) DO NOTHING;
END;
CREATE TRIGGER IF NOT EXISTS standing_counted_in AFTER INSERT ON standing
WHEN NEW.bucket IS NOT NULL BEGIN
    INSERT INTO standing_buckets VALUES (NEW.grp, NEW.key, NEW.bucket, 1)
        ON CONFLICT (grp, key, bucket) DO UPDATE SET n = n + 1;
    INSERT INTO standing_values VALUES (NEW.grp, NEW.key, NEW.value, 1)
        ON CONFLICT (grp, key, value) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS standing_counted_out AFTER DELETE ON standing
WHEN OLD.bucket IS NOT NULL BEGIN
    UPDATE standing_buckets SET n = n - 1
        WHERE grp = OLD.grp AND key = OLD.key AND bucket = OLD.bucket;
    DELETE FROM standing_buckets
        WHERE grp = OLD.grp AND key = OLD.key AND bucket = OLD.bucket AND n <= 0;
    UPDATE standing_values SET n = n - 1
        WHERE grp = OLD.grp AND key = OLD.key AND value = OLD.value;
    DELETE FROM standing_values
        WHERE grp = OLD.grp AND key = OLD.key AND value = OLD.value AND n <= 0;
END;
CREATE TRIGGER IF NOT EXISTS standing_counted_moved AFTER UPDATE ON standing
WHEN OLD.bucket IS NOT NULL OR NEW.bucket IS NOT NULL BEGIN
    UPDATE standing_buckets SET n = n - 1
        WHERE OLD.bucket IS NOT NULL AND grp = OLD.grp AND key = OLD.key AND bucket = OLD.bucket;
    DELETE FROM standing_buckets
        WHERE grp = OLD.grp AND key = OLD.key AND bucket = OLD.bucket AND n <= 0;
    UPDATE standing_values SET n = n - 1
        WHERE OLD.bucket IS NOT NULL AND grp = OLD.grp AND key = OLD.key AND value = OLD.value;
    DELETE FROM standing_values
        WHERE grp = OLD.grp AND key = OLD.key AND value = OLD.value AND n <= 0;
    INSERT INTO standing_buckets SELECT NEW.grp, NEW.key, NEW.bucket, 1
        WHERE NEW.bucket IS NOT NULL
        ON CONFLICT (grp, key, bucket) DO UPDATE SET n = n + 1;
    INSERT INTO standing_values SELECT NEW.grp, NEW.key, NEW.value, 1
        WHERE NEW.bucket IS NOT NULL
        ON CONFLICT (grp, key, value) DO UPDATE SET n = n + 1;
END;
";

/// PostgreSQL: statement triggers over the transition tables, so a result's figures (one
/// multi-row insert) or a backfill's batch are tallied in one statement per table, not one
/// function call per row. Tallies are added in key order, so two results stored at once wait
/// for each other's rows instead of deadlocking.
const POSTGRES: &str = "
CREATE TABLE IF NOT EXISTS truebench.standing_buckets (
    grp TEXT NOT NULL, key TEXT NOT NULL, bucket BIGINT NOT NULL, n BIGINT NOT NULL,
    PRIMARY KEY (grp, key, bucket)
);
CREATE TABLE IF NOT EXISTS truebench.standing_values (
    grp TEXT NOT NULL, key TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, n BIGINT NOT NULL,
    PRIMARY KEY (grp, key, value)
);
CREATE INDEX IF NOT EXISTS standing_unbucketed ON truebench.standing(grp, key, value)
    WHERE bucket IS NULL AND key <> '';
CREATE TABLE IF NOT EXISTS truebench.standing_missing (
    result_id BIGINT PRIMARY KEY REFERENCES truebench.results(id) ON DELETE CASCADE,
    soc TEXT, kind TEXT NOT NULL, started_unix_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS standing_missing_soc
    ON truebench.standing_missing(soc, kind, started_unix_ms, result_id);
CREATE TABLE IF NOT EXISTS truebench.result_names (
    col TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    PRIMARY KEY (col, kind, name)
);
CREATE OR REPLACE FUNCTION truebench.results_listed() RETURNS trigger
LANGUAGE plpgsql AS $f$
BEGIN
    INSERT INTO truebench.standing_missing
        SELECT id, soc, kind, started_unix_ms FROM new_rows ORDER BY id
        ON CONFLICT (result_id) DO NOTHING;
    INSERT INTO truebench.result_names
        SELECT DISTINCT v.c, v.k, v.n FROM new_rows r,
            LATERAL (VALUES ('device', '', r.device), ('device', r.kind, r.device),
                            ('soc', '', r.soc), ('hostname', '', r.hostname)) AS v(c, k, n)
        WHERE v.n IS NOT NULL ORDER BY 1, 2, 3
        ON CONFLICT (col, kind, name) DO NOTHING;
    RETURN NULL;
END
$f$;
DROP TRIGGER IF EXISTS results_listed ON truebench.results;
CREATE TRIGGER results_listed AFTER INSERT ON truebench.results
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION truebench.results_listed();
CREATE OR REPLACE FUNCTION truebench.standing_counted() RETURNS trigger
LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE truebench.standing_buckets c SET n = c.n - o.n
        FROM (SELECT grp, key, bucket, count(*) AS n FROM old_rows
              WHERE bucket IS NOT NULL GROUP BY grp, key, bucket) o
        WHERE c.grp = o.grp AND c.key = o.key AND c.bucket = o.bucket;
        UPDATE truebench.standing_values c SET n = c.n - o.n
        FROM (SELECT grp, key, value, count(*) AS n FROM old_rows
              WHERE bucket IS NOT NULL GROUP BY grp, key, value) o
        WHERE c.grp = o.grp AND c.key = o.key AND c.value = o.value;
        DELETE FROM truebench.standing_buckets WHERE n <= 0
            AND (grp, key, bucket) IN (SELECT grp, key, bucket FROM old_rows);
        DELETE FROM truebench.standing_values WHERE n <= 0
            AND (grp, key, value) IN (SELECT grp, key, value FROM old_rows);
    END IF;
    IF TG_OP = 'DELETE' THEN
        INSERT INTO truebench.standing_missing
            SELECT r.id, r.soc, r.kind, r.started_unix_ms
            FROM old_rows o JOIN truebench.results r ON r.id = o.result_id
            WHERE o.key = '' ORDER BY r.id
            ON CONFLICT (result_id) DO NOTHING;
    END IF;
    IF TG_OP = 'INSERT' THEN
        DELETE FROM truebench.standing_missing
            WHERE result_id IN (SELECT result_id FROM new_rows WHERE key = '');
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO truebench.standing_buckets AS c
            SELECT grp, key, bucket, count(*) FROM new_rows
            WHERE bucket IS NOT NULL GROUP BY grp, key, bucket ORDER BY grp, key, bucket
            ON CONFLICT (grp, key, bucket) DO UPDATE SET n = c.n + EXCLUDED.n;
        INSERT INTO truebench.standing_values AS c
            SELECT grp, key, value, count(*) FROM new_rows
            WHERE bucket IS NOT NULL GROUP BY grp, key, value ORDER BY grp, key, value
            ON CONFLICT (grp, key, value) DO UPDATE SET n = c.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END
$f$;
DROP TRIGGER IF EXISTS standing_counted_in ON truebench.standing;
CREATE TRIGGER standing_counted_in AFTER INSERT ON truebench.standing
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION truebench.standing_counted();
DROP TRIGGER IF EXISTS standing_counted_out ON truebench.standing;
CREATE TRIGGER standing_counted_out AFTER DELETE ON truebench.standing
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION truebench.standing_counted();
DROP TRIGGER IF EXISTS standing_counted_moved ON truebench.standing;
CREATE TRIGGER standing_counted_moved AFTER UPDATE ON truebench.standing
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION truebench.standing_counted();
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_in_value_order_and_narrow() {
        let values = [
            -1e300, -1234.5, -1.0, -1e-300, -0.0, 0.0, 1e-300, 0.5, 1.0, 1.001, 1.01, 2.0, 16250.0,
            16251.0, 1e300,
        ];
        for w in values.windows(2) {
            assert!(bucket(w[0]) <= bucket(w[1]), "{} {}", w[0], w[1]);
        }
        assert_eq!(bucket(-0.0), bucket(0.0));
        // 1/256 of a power of two: 1.0 and 1.003 share one, 1.0 and 1.01 do not.
        assert_eq!(bucket(1.0), bucket(1.003));
        assert_ne!(bucket(1.0), bucket(1.01));
        for v in values {
            let b = bucket(v);
            let lo = bucket_floor(b);
            assert!(lo.is_finite() && lo <= v && bucket(lo) == b, "{v}: {lo}");
            // The value just below the floor is in the bucket before (below 0.0 is -0.0,
            // the same value).
            let below = from_ordered(ordered(lo) - 1);
            assert!(bucket(below) < b || lo == 0.0, "{v}: {below}");
        }
    }
}
