//! The commands on a generated fleet's history (`truebench_fixtures::fleet`: many machines,
//! SoCs, kernels and dates, every kind), bounded for the tests: `history --kind --device`
//! and `--since` list exactly the rows they name, as a table and as JSON; `compare` sets two
//! stored runs side by side; `serve` shows each kind's latest own result with its regression
//! judged against the same machine's previous result. (Their plans and timings at 10⁵–10⁶
//! results: the store's tests and `bench/history_scale.sh`.)

use std::path::Path;

use truebench_fixtures::fleet;
use truebench_store::{Filter, Store};

const N: u64 = 600;

fn tb(db: &Path, args: &[&str]) -> std::process::Output {
    crate::common::with_db(db, args)
}

fn json_ids(out: &std::process::Output) -> Vec<i64> {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v.as_array()
        .expect("an array")
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn history_compare_and_serve_on_a_fleet() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("history.sqlite");
    let filled = fleet::fill(&db, N).unwrap();
    assert_eq!(filled.stored, N);
    let store = Store::open_existing(&db).unwrap();
    let all = store.list(&Filter::default()).unwrap();
    let host = filled.machines[7].hostname.clone();

    // One machine's runs, named by its host name in another case.
    let out = tb(
        &db,
        &[
            "history",
            "--kind",
            "run",
            "--device",
            &host.to_uppercase(),
            "--json",
        ],
    );
    let want: Vec<i64> = all
        .iter()
        .filter(|e| e.kind == "run" && e.hostname.as_deref() == Some(host.as_str()))
        .map(|e| e.id)
        .collect();
    assert!(want.len() >= 20, "{want:?}");
    assert_eq!(json_ids(&out), want);
    // The JSON is what `list` gives, whole (figures included).
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed: Vec<serde_json::Value> = all
        .iter()
        .filter(|e| want.contains(&e.id))
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(v, serde_json::Value::Array(listed));
    // The table: the header and one line per result, each naming its id.
    let table = String::from_utf8(tb(&db, &["history", "--kind", "run", "--device", &host]).stdout)
        .unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), want.len() + 1, "{table}");
    assert!(lines[0].trim_start().starts_with("id"));
    for (l, id) in lines[1..].iter().zip(&want) {
        assert!(l.trim_start().starts_with(&format!("{id} ")), "{l}");
    }

    // `--since` a date: the results started since, every kind and machine.
    let since = filled.fleet.started(N - N / 10);
    let date = truebench_model::rfc3339_utc(since)[..16].to_string();
    let out = tb(&db, &["history", "--since", &date, "--json"]);
    let cut = truebench_store::parse_since(&date, 0).unwrap();
    let want: Vec<i64> = all
        .iter()
        .filter(|e| e.started_unix_ms >= cut)
        .map(|e| e.id)
        .collect();
    assert!(want.len() >= (N / 10) as usize, "{}", want.len());
    assert_eq!(json_ids(&out), want);
    // Nothing matches: an empty array, and the table says so on stderr.
    let out = tb(&db, &["history", "--device", "no such board", "--json"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");

    // compare: that machine's last two runs, by id.
    let runs: Vec<i64> = all
        .iter()
        .filter(|e| e.kind == "run" && e.hostname.as_deref() == Some(host.as_str()))
        .map(|e| e.id)
        .collect();
    let (a, b) = (runs[runs.len() - 2], runs[runs.len() - 1]);
    let out = tb(&db, &["compare", &a.to_string(), &b.to_string(), "--json"]);
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = c.to_string();
    assert!(
        text.contains(&format!("\"#{a}\"")) && text.contains(&format!("\"#{b}\"")),
        "{text}"
    );

    // serve: the latest own run, judged against its own machine's previous counting run.
    let latest = store.latest("run").unwrap().unwrap();
    let doc = store.get(latest).unwrap().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let s = crate::serve::start_with(root.path(), &["--db", db.to_str().unwrap()]);
    let (_, _, body) = crate::serve::get(&s.addr, "/metrics", None);
    assert!(
        body.contains(&format!(
            "truebench_result_valid{{kind=\"run\",id=\"{latest}\"}}"
        )),
        "the latest run #{latest} is not served"
    );
    assert!(
        body.contains("truebench_regression{kind=\"run\""),
        "no run judged against its machine's history"
    );
    let baselines: Vec<i64> = body
        .lines()
        .filter(|l| {
            l.starts_with(&format!(
                "truebench_regression{{kind=\"run\",id=\"{latest}\""
            ))
        })
        .filter_map(|l| {
            let b = l.split("baseline_id=\"").nth(1)?;
            b[..b.find('"')?].parse().ok()
        })
        .collect();
    let previous = all
        .iter()
        .filter(|e| e.kind == "run" && e.id != latest)
        .filter_map(|e| Some((e, store.get(e.id).ok()??)))
        .filter(|(_, d)| truebench_store::regress::same_machine(d, &doc))
        .filter(|(_, d)| truebench_store::regress::counts(d))
        .map(|(e, _)| e.id)
        .last();
    // A latest run that does not count (an imported log's is not valid) is judged by none.
    match previous.filter(|_| truebench_store::regress::counts(&doc)) {
        Some(p) => {
            assert!(!baselines.is_empty(), "no regression samples for #{latest}");
            assert!(
                baselines.iter().all(|&b| b == p),
                "{baselines:?} against #{p}"
            );
        }
        None => assert!(baselines.is_empty(), "{baselines:?}"),
    }
}
