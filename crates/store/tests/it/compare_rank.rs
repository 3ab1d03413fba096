//! compare (side by side, unfair comparisons flagged) and rank (where a result stands among
//! the corpus) on real logs.

use truebench_fixtures::sbc_bench as common;

use truebench_model::Mode;
use truebench_model::RunResult;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;
use truebench_store::compare::{compare, metrics, Metric};
use truebench_store::rank::{load_corpus, rank};

fn result(name: &str) -> RunResult {
    let logs = common::logs();
    let (n, text) = logs.iter().find(|(n, _)| n == name).unwrap();
    to_run_result(&parse(text), n)
}

#[test]
fn side_by_side_with_reasons() {
    // Two ROCK 5B logs of the same day: 4qJG throttled (OpenSSL 3.0.7), 4qJr not (1.1.1f).
    let a = result("4qJG.txt");
    let b = result("4qJr.txt");
    let c = compare(&[("a".into(), a.clone()), ("b".into(), b.clone())]);
    let row = |m: Metric| c.rows.iter().find(|r| r.metric == m).unwrap();
    let multi = row(Metric::SevenzipMulti);
    assert_eq!(multi.values, [Some(16060), Some(16410)]);
    let rel = multi.relative_pct[1].unwrap();
    assert!((rel - (16410.0 - 16060.0) / 16060.0 * 100.0).abs() < 1e-9);
    assert!(multi.invalid.is_empty(), "same 7-zip: {:?}", multi.invalid);
    assert!(!row(Metric::Aes).invalid.is_empty(), "OpenSSL 3.0 vs 1.1");
    assert!(!c.valid);
    assert!(
        c.warnings.iter().any(|w| w.starts_with("A (a): throttled")),
        "{:?}",
        c.warnings
    );
    assert!(!c.warnings.iter().any(|w| w.starts_with("B (b): throttled")));
    assert!(c
        .warnings
        .iter()
        .any(|w| w.contains("different OpenSSL versions")));

    // Quick mode, another 7-zip and truebench's own tuning are each flagged.
    let mut q = b.clone();
    q.body.mode = Mode::Quick;
    q.envelope.comparable = false;
    q.envelope.tools.retain(|t| t.name != "sbc-bench");
    q.envelope.tuning.applied = true;
    for p in q.body.scores.iter_mut() {
        if let truebench_model::Scores::Compression(z) = &mut p.scores {
            z.version = Some("26.02".into());
        }
    }
    let c = compare(&[("b".into(), b), ("q".into(), q)]);
    let w = c.warnings.join("\n");
    assert!(w.contains("quick mode"), "{w}");
    assert!(
        w.contains("different tuning (A: sbc-bench's, B: truebench's)"),
        "{w}"
    );
    assert!(
        w.contains("different 7-zip versions (A: 16.02, B: 26.02)"),
        "{w}"
    );
    assert!(!c.rows[0].invalid.is_empty());
    // The same result twice compares cleanly to itself except for its own findings.
    let c = compare(&[
        ("x".into(), result("4qJr.txt")),
        ("y".into(), result("4qJr.txt")),
    ]);
    assert!(c
        .rows
        .iter()
        .all(|r| r.relative_pct[1] == Some(0.0) || r.values[1].is_none()));
}

#[test]
fn ranks_among_the_corpus() {
    let archive = common::data_dir().join("results.tar.gz");
    let corpus = load_corpus(&archive).unwrap();
    assert_eq!(corpus.len(), common::logs().len());
    let m = metrics((result("4qJG.txt")).view());
    let ranks = rank(&m, &corpus, 2);
    for r in &ranks {
        let v = r.value.unwrap();
        // Independently: 1 + the logs of the pool with a higher value.
        let pool: Vec<u64> = corpus
            .iter()
            .filter(|e| {
                !r.metric.sevenzip()
                    || e.metrics
                        .sevenzip_version
                        .as_deref()
                        .map(truebench_store::compare::sevenzip_family)
                        == Some("16.x".into())
            })
            .filter_map(|e| r.metric.get(&e.metrics))
            .collect();
        let higher = pool.iter().filter(|x| **x > v).count();
        assert_eq!(r.rank, Some(higher + 1), "{:?}", r.metric);
        assert_eq!(r.of, pool.len() + 1, "{:?}", r.metric);
        assert!(r.above.iter().all(|x| x.value > v));
        assert!(r.below.iter().all(|x| x.value <= v));
        assert!(r.above.windows(2).all(|w| w[0].value >= w[1].value));
        assert_eq!(r.above.len(), 2.min(higher));
        if r.metric.sevenzip() {
            assert_eq!(r.family.as_deref(), Some("16.x"));
            assert!(r.note.is_none());
        }
    }
    // The log itself is in the corpus: a result equal to it ranks right above it.
    let multi = &ranks[0];
    assert_eq!(multi.below[0].name, "4qJG.txt");
}

/// One computation of an imported log's scores: the Results.md row `import --row` prints
/// (sbc-bench's rules applied to the log) is what compare, history and rank use, for every
/// log of the corpus (issue 10, item 10).
#[test]
fn an_imported_logs_scores_are_its_results_md_row_everywhere() {
    let mut differ = Vec::new();
    let logs = common::logs();
    for (name, text) in &logs {
        let log = parse(text);
        if !truebench_sbcbench::import::is_sbc_bench_log(&log) {
            continue;
        }
        let row = truebench_sbcbench::results_row(&log);
        let r = to_run_result(&log, name);
        let m = metrics(r.view());
        let got = [
            m.sevenzip_multi,
            m.sevenzip_single,
            m.aes,
            m.memcpy,
            m.memset,
        ];
        let want = [
            row.sevenzip_multi,
            row.sevenzip_single,
            row.aes,
            row.memcpy,
            row.memset,
        ];
        if got != want {
            differ.push(format!("{name}: row {want:?}, compare/history {got:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} logs:\n{}",
        differ.len(),
        logs.len(),
        differ.join("\n")
    );
}
