//! The history in PostgreSQL, against a real server (Debian's `postgresql`, started privately
//! by the test on 127.0.0.1): the same round trip as SQLite, a database without truebench's
//! tables, two machines writing at once, and a connection lost in the middle of a write.
//!
//! One test: the server starts once (a few seconds) and is stopped when it ends.

use crate::shared;

use std::path::Path;
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};
use shared::{check_rows, sample_result, variant};
use truebench_fixtures::pg::PgServer;
use truebench_store::{Filter, Store, StoreError};

/// A new, empty database on `server`, by URL.
fn new_db(admin: &mut Client, server: &PgServer, name: &str) -> String {
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    server.url_of(name)
}

#[test]
fn postgres_history() {
    let server = match PgServer::start() {
        Ok(s) => s,
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let mut admin = Client::connect(&server.url, NoTls).expect("admin connection");

    // The same behaviour as the SQLite history.
    let url = new_db(&mut admin, &server, "roundtrip");
    shared::round_trip(Path::new(&url));
    let url = new_db(&mut admin, &server, "kinds");
    shared::every_kind(Path::new(&url));

    // The readers create nothing: a database without truebench's tables is "missing".
    let url = new_db(&mut admin, &server, "empty");
    match Store::open_existing(Path::new(&url)) {
        Err(StoreError::Missing { path }) => assert_eq!(path, url),
        Err(e) => panic!("expected Missing, got {e}"),
        Ok(_) => panic!("expected Missing, got a store"),
    }
    let mut probe = Client::connect(&url, NoTls).unwrap();
    let schemas = probe
        .query_one(
            "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'truebench'",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(schemas, 0, "open_existing created the schema");

    two_machines_at_once(&mut admin, &server);
    connection_lost_mid_write(&mut admin, &server);

    // A server that is not there: a clear error naming the URL (no password) — quickly.
    let t0 = Instant::now();
    let nowhere = "postgresql://bench:secret@127.0.0.1:1/fleet";
    let err = Store::open(Path::new(nowhere))
        .err()
        .expect("no server on port 1");
    let text = err.to_string();
    assert!(
        text.starts_with("postgresql://bench:***@127.0.0.1:1/fleet: "),
        "{text}"
    );
    assert!(!text.contains("secret"), "{text}");
    assert!(t0.elapsed() < Duration::from_secs(15));
    let bad = Store::open(Path::new("postgresql://h:notaport/x"))
        .err()
        .expect("bad URL");
    assert!(
        matches!(bad, StoreError::BadUrl { .. }),
        "{bad}: expected a URL error"
    );
}

/// Two machines store 40 results each at the same moment, and both store one same document:
/// every result once, nothing lost, the shared one once.
fn two_machines_at_once(admin: &mut Client, server: &PgServer) {
    let url = new_db(admin, server, "fleet");
    const N: u64 = 40;
    let base = sample_result();
    let writers: Vec<_> = ["board-a", "board-b"]
        .into_iter()
        .map(|name| {
            let url = url.clone();
            let base = base.clone();
            std::thread::spawn(move || {
                let mut s = Store::open(Path::new(&url)).expect("open");
                let mut ids = Vec::new();
                for n in 0..N {
                    ids.push(s.insert(&variant(&base, name, n)).unwrap());
                }
                let shared = s.insert(&base).unwrap();
                (ids, shared)
            })
        })
        .collect();
    let results: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
    for (ids, _) in &results {
        assert!(ids.iter().all(|i| i.new));
    }
    let (a, b) = (results[0].1, results[1].1);
    assert_eq!(a.id, b.id, "the same document got two rows");
    assert!(a.new != b.new, "exactly one writer stored it: {a:?} {b:?}");
    let s = Store::open_existing(Path::new(&url)).unwrap();
    assert_eq!(s.count().unwrap() as u64, 2 * N + 1);
    assert_eq!(check_rows(&s) as u64, 2 * N + 1);
    for name in ["board-a", "board-b"] {
        let mine = s
            .list(&Filter {
                device: Some(format!("{name}-")),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(mine.len() as u64, N, "{name}");
    }
}

/// The writer's connection is cut after its result row is written and before its figures
/// are: nothing of that result stays, and the history works on.
fn connection_lost_mid_write(admin: &mut Client, server: &PgServer) {
    let url = new_db(admin, server, "cut");
    let base = sample_result();
    Store::open(Path::new(&url)).unwrap().insert(&base).unwrap();
    // Hold the figures table: the writer inserts its result row, then waits on this lock.
    let mut holder = Client::connect(&url, NoTls).unwrap();
    let mut hold = holder.transaction().unwrap();
    hold.batch_execute("LOCK TABLE truebench.metrics IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let victim_url = format!("{url}?application_name=truebench-victim");
    let doomed = variant(&base, "doomed", 1);
    let writer = std::thread::spawn(move || {
        let mut s = Store::open(Path::new(&victim_url)).unwrap();
        s.insert(&doomed)
    });
    let mut watcher = Client::connect(&url, NoTls).unwrap();
    let t0 = Instant::now();
    // Waiting on the lock means its result row is already inserted (same transaction).
    let pid: i32 = loop {
        let row = watcher
            .query_opt(
                "SELECT pid FROM pg_stat_activity
                 WHERE application_name = 'truebench-victim' AND wait_event_type = 'Lock'",
                &[],
            )
            .unwrap();
        if let Some(r) = row {
            break r.get(0);
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the writer never reached the figures"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let killed: bool = watcher
        .query_one("SELECT pg_terminate_backend($1)", &[&pid])
        .unwrap()
        .get(0);
    assert!(killed);
    let err = writer
        .join()
        .unwrap()
        .expect_err("the write succeeded without its connection");
    assert!(err.to_string().starts_with(&url), "{err}");
    hold.rollback().unwrap();
    let s = Store::open_existing(Path::new(&url)).unwrap();
    assert_eq!(s.count().unwrap(), 1, "a half-written result stayed");
    assert_eq!(check_rows(&s), 1);
    let orphans: i64 = watcher
        .query_one(
            "SELECT count(*) FROM truebench.results WHERE hostname LIKE 'doomed%'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(orphans, 0);
    // And the history goes on.
    let mut s = Store::open(Path::new(&url)).unwrap();
    assert!(s.insert(&variant(&base, "after", 2)).unwrap().new);
}
