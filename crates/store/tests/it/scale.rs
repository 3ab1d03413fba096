//! The history at a fleet's scale, bounded for the tests: a generated fleet
//! (`truebench_fixtures::fleet`) stored through `insert_many`, then
//! - every query a command runs at scale gives what reading the whole history and filtering
//!   it here gives (the right device's rows, the `--since` rows, the latest result, the same
//!   board's results, the SoC group);
//! - the database answers each through the index meant for it (SQLite's `EXPLAIN QUERY
//!   PLAN`, PostgreSQL's `EXPLAIN` with sequential scans priced out): no query reads the
//!   whole `results` table, and a missing index fails here by name;
//! - a history missing those indexes (an older truebench's) gets them when next opened.
//!
//! The timings at 10⁵ and 10⁶ results are `bench/history_scale.sh`'s.

use std::path::Path;
use std::sync::OnceLock;

use truebench_fixtures::fleet::{self, Filled, Templates};
use truebench_store::{Entry, Figures, Filter, Probe, Store};

/// Results in the tests' fleet: enough for every machine to have a history of each kind.
const N: u64 = 2000;

pub(crate) fn templates() -> &'static Templates {
    static T: OnceLock<Templates> = OnceLock::new();
    T.get_or_init(Templates::load)
}

/// Whether `e` matches `--device needle` as the history documents it: its device, SoC or
/// host name contains it, case ignored.
fn names(e: &Entry, needle: &str) -> bool {
    let n = needle.to_lowercase();
    [&e.device, &e.soc, &e.hostname]
        .iter()
        .any(|v| v.as_ref().is_some_and(|v| v.to_lowercase().contains(&n)))
}

fn ids(v: &[Entry]) -> Vec<i64> {
    v.iter().map(|e| e.id).collect()
}

/// The queries' answers against the whole history filtered here.
fn answers(s: &Store, filled: &Filled) {
    let all = s.list(&Filter::default()).unwrap();
    assert_eq!(all.len() as u64, N);
    let host = filled.machines[3].hostname.clone();
    let board = filled.machines[3].device.clone().expect("a named board");
    let soc = filled.machines[3].soc.clone().expect("a named SoC");
    // `history --kind run --device HOST`: that machine's runs, in order.
    let got = s
        .list(&Filter {
            kind: Some("run".into()),
            device: Some(host.to_uppercase()),
            ..Default::default()
        })
        .unwrap();
    let want: Vec<&Entry> = all
        .iter()
        .filter(|e| e.kind == "run" && e.hostname.as_deref() == Some(host.as_str()))
        .collect();
    assert!(!got.is_empty());
    assert_eq!(ids(&got), want.iter().map(|e| e.id).collect::<Vec<_>>());
    assert_eq!(
        got,
        want.into_iter().cloned().collect::<Vec<_>>(),
        "the entries whole"
    );
    // A board's name and a SoC's part match every machine that has it, every kind.
    for needle in [board.as_str(), &soc[soc.len() / 2..], "NO SUCH BOARD"] {
        let got = s
            .list(&Filter {
                device: Some(needle.to_string()),
                ..Default::default()
            })
            .unwrap();
        let want: Vec<i64> = all
            .iter()
            .filter(|e| names(e, needle))
            .map(|e| e.id)
            .collect();
        assert_eq!(ids(&got), want, "--device {needle}");
    }
    // `--since`, alone and with the others.
    let since = filled.fleet.started(N - N / 10);
    let got = s
        .list(&Filter {
            since_unix_ms: Some(since),
            ..Default::default()
        })
        .unwrap();
    let want: Vec<i64> = all
        .iter()
        .filter(|e| e.started_unix_ms >= since)
        .map(|e| e.id)
        .collect();
    assert_eq!(ids(&got), want);
    assert_eq!(got.len() as u64, N / 10);
    let got = s
        .list(&Filter {
            since_unix_ms: Some(since),
            kind: Some("monitor".into()),
            device: Some(board.clone()),
        })
        .unwrap();
    let want: Vec<i64> = all
        .iter()
        .filter(|e| e.started_unix_ms >= since && e.kind == "monitor" && names(e, &board))
        .map(|e| e.id)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(ids(&got), want);
    // Streaming gives the same entries as the list.
    let mut streamed = Vec::new();
    let mut w = Store::open_existing(Path::new(s.path())).unwrap_or_else(|_| {
        panic!("reopen {}", s.path());
    });
    w.each(&Filter::default(), |e| {
        streamed.push(e.id);
        Ok::<(), truebench_store::StoreError>(())
    })
    .unwrap();
    assert_eq!(streamed, ids(&all));
    // Only the named figures (the `history` table's): the named ones of a result that has
    // any of them, every figure of one that has none (here every result of another kind).
    for keys in [&["sevenzip_multi"][..], &["aes", "memcpy", "headline"]] {
        let mut got = Vec::new();
        w.each_with(&Filter::default(), Figures::Named(keys), |e| {
            got.push(e);
            Ok::<(), truebench_store::StoreError>(())
        })
        .unwrap();
        let want: Vec<Entry> = all
            .iter()
            .cloned()
            .map(|mut e| {
                if keys.iter().any(|k| e.metrics.contains_key(*k)) {
                    e.metrics.retain(|k, _| keys.contains(&k.as_str()));
                }
                e
            })
            .collect();
        assert_eq!(got, want, "{keys:?}");
        assert!(got
            .iter()
            .zip(&all)
            .any(|(g, a)| g.metrics.len() < a.metrics.len()));
        // Every result of another kind has a headline: only the run's key leaves them whole.
        if keys.len() == 1 {
            assert!(got.iter().any(|e| e.metrics.len() > 1), "none whole");
        }
    }
    // `serve`'s latest own result of each kind.
    for kind in truebench_model::KINDS {
        let want = all
            .iter()
            .filter(|e| e.kind == *kind && e.source != "sbc-bench")
            .max_by_key(|e| (e.started_unix_ms, e.id))
            .map(|e| e.id);
        assert_eq!(s.latest(kind).unwrap(), want, "latest {kind}");
    }
    assert!(s.latest("run").unwrap().is_some());
    // The same machine's results of a kind, told by their columns as `same_machine` tells
    // them by their documents.
    let latest = s.latest("run").unwrap().unwrap();
    let doc = s.get(latest).unwrap().unwrap();
    let want: Vec<i64> = all
        .iter()
        .filter(|e| e.kind == "run")
        .filter(|e| {
            let d = s.get(e.id).unwrap().unwrap();
            truebench_store::regress::same_machine(&d, &doc)
        })
        .map(|e| e.id)
        .collect();
    assert!(want.len() > 10, "{want:?}");
    assert_eq!(s.same_machine("run", &doc).unwrap(), want);
    let mut nameless = doc.clone();
    nameless.envelope.inventory.device = None;
    assert!(s.same_machine("run", &nameless).unwrap().is_empty());
    // The SoC group's candidates: valid, complete, of the kind, that SoC.
    let want: Vec<i64> = all
        .iter()
        .filter(|e| e.kind == "run" && e.soc.as_deref() == Some(soc.as_str()))
        .filter(|e| e.valid && e.complete)
        .map(|e| e.id)
        .collect();
    assert_eq!(s.soc_group("run", &soc).unwrap(), want);
    standing_answers(s);
}

/// A result's standing counted in the history's index is its standing among every stored
/// document: a stored result (its copy left out) and one not stored, in each group the
/// fleet's runs name.
pub(crate) fn standing_answers(s: &Store) {
    let all = s.list(&Filter::default()).unwrap();
    let docs: Vec<truebench_model::Document> =
        all.iter().map(|e| s.get(e.id).unwrap().unwrap()).collect();
    let refs: Vec<&truebench_model::Document> = docs.iter().collect();
    let mut ranked = 0;
    for d in docs.iter().filter(|d| d.kind() == "run").step_by(37) {
        let want = truebench_store::standing::standing(d, &refs);
        assert_eq!(s.standing(d).unwrap(), want, "{:?}", d.envelope.hostname);
        ranked += usize::from(!want.is_empty());
        let mut later = d.clone();
        later.envelope.started.unix_ms += 1;
        assert_eq!(
            s.standing(&later).unwrap(),
            truebench_store::standing::standing(&later, &refs)
        );
    }
    assert!(ranked > 3, "{ranked} results ranked");
}

/// The list filters and other queries, for [`Store::plans`].
fn probe(filled: &Filled) -> Probe {
    let m = &filled.machines[3];
    let since = filled.fleet.started(N - N / 10);
    let f = |kind: bool, device: bool, since_: bool| Filter {
        kind: kind.then(|| "run".to_string()),
        device: device.then(|| m.hostname.clone()),
        since_unix_ms: since_.then_some(since),
    };
    Probe {
        filters: vec![
            ("--kind --device".into(), f(true, true, false)),
            ("--device --since".into(), f(false, true, true)),
            ("--since".into(), f(false, false, true)),
            ("--kind --since".into(), f(true, false, true)),
            ("--kind".into(), f(true, false, false)),
        ],
        kind: "run".into(),
        device: m.device.clone().unwrap(),
        soc: m.soc.clone().unwrap(),
    }
}

/// The index each query must be answered by.
const EXPECTED: [(&str, &[&str]); 19] = [
    ("list --kind --device", &["results_hostname"]),
    ("list --device --since", &["results_hostname"]),
    ("list --since", &["results_listed_keyed"]),
    ("list --kind --since", &["results_kind_started"]),
    ("list --kind", &["results_kind_started"]),
    ("keys --since", &["results_listed_keyed"]),
    ("distinct device", &["result_names"]),
    ("distinct soc", &["result_names"]),
    ("distinct hostname", &["result_names"]),
    ("distinct device of kind", &["result_names"]),
    ("latest", &["results_kind_source"]),
    ("same board", &["results_kind_device"]),
    ("soc group", &["results_soc"]),
    (
        "standing rank",
        &["standing_buckets", "standing_values", "standing_unbucketed"],
    ),
    ("standing same result", &["results_listed_keyed"]),
    ("standing ungrouped", &["standing_missing_soc"]),
    ("listed figures", &["metrics_listed"]),
    ("listed named figures", &["metrics_listed"]),
    ("standing unbucketed", &["standing_unbucketed"]),
];

/// Every query's plan reads `results` through an index, never whole; the problems, named.
/// PostgreSQL's planner weighs its statistics, so at a test's size it may take another
/// index than the one meant (a backward walk of `results_started` for `latest`): only the
/// scan is checked there, with sequential scans priced out.
fn pg_plan_problems(s: &Store, p: &Probe) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, plan) in s.plans(p).unwrap() {
        let scans = plan.lines().any(|l| {
            l.contains("Seq Scan on result")
                || l.contains("Seq Scan on standing")
                || l.contains("Seq Scan on metrics")
        });
        // `Index Scan [Backward] using results_…`, `Index Only Scan …`, `Bitmap Index Scan
        // on results_…`: the planner may take either form for any of the tables (a bitmap
        // scan of `result_names_pkey` was seen for the distinct names in CI).
        const TABLES: [&str; 4] = ["results_", "standing_", "result_names_", "metrics_"];
        let indexed = plan.lines().any(|l| {
            TABLES.iter().any(|t| {
                (l.contains("Index") && l.contains(&format!(" using {t}")))
                    || l.contains(&format!("Bitmap Index Scan on {t}"))
            })
        });
        if scans || !indexed {
            problems.push(format!("{name}: scans the whole table:\n{plan}"));
        }
    }
    problems
}

/// Every query's plan uses its index and never scans `results` whole; the problems, named.
fn plan_problems(s: &Store, p: &Probe, full_scan: &str) -> Vec<String> {
    let plans = s.plans(p).unwrap();
    assert_eq!(plans.len(), EXPECTED.len(), "{plans:#?}");
    let mut problems = Vec::new();
    for ((name, plan), (want_name, indexes)) in plans.iter().zip(EXPECTED) {
        assert_eq!(name, want_name);
        for ix in indexes {
            // `results_kind_started` must not pass for `results_started` and so on.
            let named = plan
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == *ix);
            if !named {
                problems.push(format!("{name}: not through {ix}:\n{plan}"));
            }
        }
        // The site's keys from the index alone: a row's page is mostly its document.
        if name.starts_with("keys") && !plan.contains("COVERING INDEX") {
            problems.push(format!("{name}: reads the table's rows:\n{plan}"));
        }
        // Nor the standing table or its tallies (`SCAN standing`, `SCAN standing_buckets`),
        // but for the partial index that holds only the rows still without a bucket.
        if plan.lines().any(|l| {
            let l = l.trim_start().trim_start_matches("->").trim();
            l.starts_with(full_scan)
                || l.starts_with("SCAN result_names")
                || (l.starts_with("SCAN standing") && !l.contains("INDEX standing_unbucketed"))
        }) {
            problems.push(format!("{name}: scans the whole table:\n{plan}"));
        }
    }
    problems
}

#[test]
fn a_fleet_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let filled = fleet::fill_with(templates(), &db, N).unwrap();
    assert_eq!(filled.stored, N);
    let s = Store::open_existing(&db).unwrap();
    // Each row and its figures exactly what storing its document derives (`history --check`).
    let c = s.check().unwrap();
    assert_eq!((c.results, c.problems), (N as usize, Vec::<String>::new()));
    answers(&s, &filled);
    // A third of the results as a truebench older than the `standing` table stored them (no
    // rows there): ranked by their documents, the same figures.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute("DELETE FROM standing WHERE result_id % 3 = 0", [])
        .unwrap();
    standing_answers(&s);
    let p = probe(&filled);
    let problems = plan_problems(&s, &p, "SCAN results");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    drop(s);
    // A history without the indexes (as an older truebench left it, `results_kind` and all):
    // the checks name what is missing, and the next open makes them.
    let raw = rusqlite::Connection::open(&db).unwrap();
    raw.execute_batch(
        "DROP INDEX results_kind_source; DROP INDEX results_hostname;
         CREATE INDEX results_kind ON results(kind);",
    )
    .unwrap();
    drop(raw);
    let problems = plan_problems(&Store::open_existing(&db).unwrap(), &p, "SCAN results");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let raw = rusqlite::Connection::open(&db).unwrap();
    let kind_ix: i64 = raw
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'results_kind'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kind_ix, 0, "results_kind is kept");
}

/// The checks can fail: without its index, a query's plan is named.
#[test]
fn a_missing_index_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let filled = fleet::fill_with(templates(), &db, 40).unwrap();
    let s = Store::open_existing(&db).unwrap();
    // Dropped behind the open store's back (the next open would make it again).
    let raw = rusqlite::Connection::open(&db).unwrap();
    raw.execute_batch(
        "DROP INDEX results_kind_source; DROP INDEX results_started; DROP INDEX results_listed_keyed;",
    )
    .unwrap();
    let problems = plan_problems(&s, &probe(&filled), "SCAN results");
    let named = |q: &str| problems.iter().any(|p| p.starts_with(&format!("{q}:")));
    assert!(
        named("latest") && named("list --since") && named("keys --since"),
        "{problems:#?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("scans the whole table")),
        "{problems:#?}"
    );
}

#[test]
fn a_fleet_in_postgres() {
    let server = match truebench_fixtures::pg::PgServer::start() {
        Ok(s) => s,
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let url = server.url.clone();
    let filled = fleet::fill_with(templates(), Path::new(&url), N).unwrap();
    assert_eq!(filled.stored, N);
    let s = Store::open_existing(Path::new(&url)).unwrap();
    answers(&s, &filled);
    let p = probe(&filled);
    let problems = pg_plan_problems(&s, &p);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Storing the same results again stores nothing twice.
    let t = templates();
    let again = Store::open(Path::new(&url))
        .unwrap()
        .insert_many((0..20).map(|i| t.result(&filled.fleet, &filled.machines, i)))
        .unwrap();
    assert_eq!(again, 0);
    // Without the indexes (an older layout's, `results_kind` and all) the checks name the
    // queries left to a full scan; the next open makes them again and drops `results_kind`.
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(
            "DROP INDEX truebench.results_kind_source; DROP INDEX truebench.results_kind_started;
             DROP INDEX truebench.results_started; DROP INDEX truebench.results_hostname;
             DROP INDEX truebench.results_kind_device; DROP INDEX truebench.results_soc;
             DROP INDEX truebench.results_device;
             CREATE INDEX results_kind ON truebench.results(kind);",
        )
        .unwrap();
    let problems = pg_plan_problems(&s, &p);
    for q in ["list --since", "list --device --since"] {
        assert!(
            problems.iter().any(|p| p.starts_with(&format!("{q}:"))),
            "{q} not named: {problems:#?}"
        );
    }
    let s = Store::open_existing(Path::new(&url)).unwrap();
    let problems = pg_plan_problems(&s, &p);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let kind_ix: i64 = admin
        .query_one(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = 'truebench' AND indexname = 'results_kind'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(kind_ix, 0);
}
