//! The tallies and the list the database keeps beside `standing` by triggers (the store's
//! `counts.rs`), which rank a result without a walk over its group: a history from a
//! truebench before them gets them when opened, figures stored since by such a truebench
//! (no bucket) are still counted, `history --check` finds them whole — and names them when
//! they are not. Ranks are checked against ranking among every stored document
//! (`scale::standing_answers`).

use std::path::Path;

use truebench_fixtures::fleet;
use truebench_store::{Filter, Store};

use crate::scale::{standing_answers, templates};

/// Results: enough for groups of tens of results.
const N: u64 = 600;

fn problems(s: &Store) -> Vec<String> {
    s.check().unwrap().problems
}

#[test]
fn an_sqlite_history_from_before_the_tallies_gets_them_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    fleet::fill_with(templates(), &db, N).unwrap();
    // As the truebench before the tallies left it: no tallies, list, triggers or bucket
    // column, and a third of the results stored before `standing` (no rows there).
    let raw = rusqlite::Connection::open(&db).unwrap();
    raw.execute_batch(
        "DROP TRIGGER standing_counted_in; DROP TRIGGER standing_counted_out;
         DROP TRIGGER standing_counted_moved; DROP TRIGGER results_listed;
         DROP TRIGGER standing_missing_out; DROP TRIGGER standing_missing_again;
         DROP TABLE standing_buckets; DROP TABLE standing_values; DROP TABLE standing_missing;
         DROP TABLE result_names;
         DROP INDEX standing_unbucketed;
         ALTER TABLE standing DROP COLUMN bucket;
         DELETE FROM standing WHERE result_id % 3 = 0;",
    )
    .unwrap();
    drop(raw);
    let s = Store::open_existing(&db).unwrap();
    assert_eq!(problems(&s), Vec::<String>::new());
    standing_answers(&s);
    names_answer(&s);
    // Figures stored by such a truebench while this one has the history open: no bucket.
    // The rank counts them by their rows; the next open gives them their buckets.
    let raw = rusqlite::Connection::open(&db).unwrap();
    let loose = raw
        .execute(
            "UPDATE standing SET bucket = NULL WHERE result_id % 5 = 1 AND key <> ''",
            [],
        )
        .unwrap();
    assert!(loose > 100, "{loose} rows");
    standing_answers(&s);
    drop(s);
    let s = Store::open_existing(&db).unwrap();
    let left: i64 = raw
        .query_row(
            "SELECT count(*) FROM standing WHERE bucket IS NULL AND key <> ''",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
    assert_eq!(problems(&s), Vec::<String>::new());
    standing_answers(&s);
}

/// `history --device` finds each machine's results by its host name, board or SoC, as
/// filtering the whole history does.
fn names_answer(s: &Store) {
    let all = s.list(&Filter::default()).unwrap();
    for e in all.iter().step_by(41) {
        for needle in [&e.hostname, &e.device, &e.soc].into_iter().flatten() {
            let got: Vec<i64> = s
                .list(&Filter {
                    device: Some(needle.to_lowercase()),
                    ..Default::default()
                })
                .unwrap()
                .iter()
                .map(|x| x.id)
                .collect();
            let n = needle.to_lowercase();
            let want: Vec<i64> = all
                .iter()
                .filter(|x| {
                    [&x.hostname, &x.device, &x.soc]
                        .into_iter()
                        .flatten()
                        .any(|v| v.to_lowercase().contains(&n))
                })
                .map(|x| x.id)
                .collect();
            assert_eq!(got, want, "{needle}");
        }
    }
}

#[test]
fn check_names_a_tally_that_disagrees() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    fleet::fill_with(templates(), &db, 60).unwrap();
    let s = Store::open_existing(&db).unwrap();
    assert_eq!(problems(&s), Vec::<String>::new());
    let raw = rusqlite::Connection::open(&db).unwrap();
    // One bucket counted once too often; one result listed that has its rows, one without
    // them not listed.
    raw.execute_batch(
        "UPDATE standing_buckets SET n = n + 1
         WHERE (grp, key, bucket) = (SELECT grp, key, bucket FROM standing_buckets LIMIT 1);
         DELETE FROM standing WHERE result_id = 7;
         DELETE FROM standing_missing WHERE result_id = 7;
         INSERT INTO standing_missing SELECT id, soc, kind, started_unix_ms FROM results
             WHERE id = 8;
         DELETE FROM result_names WHERE col = 'hostname'
             AND name = (SELECT hostname FROM results WHERE id = 9);",
    )
    .unwrap();
    let found = problems(&s);
    assert!(
        found.iter().any(|p| p.contains("tallies of buckets")),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|p| p.contains("without standing rows")),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|p| p.contains("list of names")),
        "{found:#?}"
    );
}

#[test]
fn a_postgres_history_from_before_the_tallies_gets_them_when_opened() {
    let server = match truebench_fixtures::pg::PgServer::start() {
        Ok(s) => s,
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let url = server.url.clone();
    fleet::fill_with(templates(), Path::new(&url), N).unwrap();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(
            "DROP TRIGGER standing_counted_in ON truebench.standing;
             DROP TRIGGER standing_counted_out ON truebench.standing;
             DROP TRIGGER standing_counted_moved ON truebench.standing;
             DROP TRIGGER results_listed ON truebench.results;
             DROP TABLE truebench.standing_buckets, truebench.standing_values,
                        truebench.standing_missing, truebench.result_names;
             DROP INDEX truebench.standing_unbucketed;
             ALTER TABLE truebench.standing DROP COLUMN bucket;
             DELETE FROM truebench.standing WHERE result_id % 3 = 0;",
        )
        .unwrap();
    let s = Store::open_existing(Path::new(&url)).unwrap();
    assert_eq!(problems(&s), Vec::<String>::new());
    standing_answers(&s);
    names_answer(&s);
    let loose = admin
        .execute(
            "UPDATE truebench.standing SET bucket = NULL WHERE result_id % 5 = 1 AND key <> ''",
            &[],
        )
        .unwrap();
    assert!(loose > 100, "{loose} rows");
    standing_answers(&s);
    // A tally off by one is named.
    admin
        .batch_execute(
            "UPDATE truebench.standing_values SET n = n + 1
             WHERE (grp, key, value) = (SELECT grp, key, value FROM truebench.standing_values LIMIT 1);",
        )
        .unwrap();
    let found = problems(&s);
    assert!(
        found.iter().any(|p| p.contains("tallies of values")),
        "{found:#?}"
    );
    // PostgreSQL gives rows their bucket only when it makes the tallies (a look at every
    // open walked the partial index's dead entries): the loose rows stay loose, counted.
    drop(s);
    let s = Store::open_existing(Path::new(&url)).unwrap();
    let left: i64 = admin
        .query_one(
            "SELECT count(*) FROM truebench.standing WHERE bucket IS NULL AND key <> ''",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(left as u64, loose);
    standing_answers(&s);
}
