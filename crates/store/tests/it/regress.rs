//! Regressions found from the history, on real series of sbc-bench logs (one board run again
//! with other kernels, distributions and tools): the verdicts written down beforehand in
//! tests/data/regressions.tsv, from the logs' own figures by the stated rule.

use std::collections::BTreeMap;

use truebench_model::finding::FindingKind;
use truebench_model::Document;
use truebench_store::regress;

fn series() -> BTreeMap<String, Document> {
    let wanted = [
        "1lBC.txt", "1ub9.txt", "2sZH.txt", "3DtN.txt", "3R1a.txt", "3X9q.txt", "4vfU.txt",
        "1iSh.txt", "3N6Q.txt", "3N5c.txt", "3Owk.txt", "3Owv.txt",
    ];
    truebench_fixtures::sbc_bench::logs()
        .into_iter()
        .filter(|(n, _)| wanted.contains(&n.as_str()))
        .map(|(n, text)| {
            let log = truebench_sbcbench::parse(&text);
            let doc: Document = truebench_sbcbench::convert::to_run_result(&log, &n).into();
            (n, doc)
        })
        .collect()
}

#[test]
fn verdicts_on_real_series_are_the_ones_written_down() {
    let docs = series();
    assert_eq!(docs.len(), 12);
    let names: Vec<&String> = docs.keys().collect();
    let refs: Vec<&Document> = docs.values().collect();
    let judged = regress::judge_all(&refs);
    let by_name: BTreeMap<&str, &regress::Judgement> = judged
        .iter()
        .map(|(i, j)| (names[*i].as_str(), j))
        .collect();
    let expected = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/regressions.tsv"),
    )
    .unwrap();
    let mut checked = 0;
    for line in expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        let (log, base, metric, verdict, differs) = (f[0], f[1], f[2], f[6], f[7]);
        if base == "-" {
            assert!(
                !by_name.contains_key(log),
                "{log} has no history but was judged"
            );
            checked += 1;
            continue;
        }
        let j = by_name
            .get(log)
            .unwrap_or_else(|| panic!("{log} was not judged"));
        assert_eq!(names[j.baseline].as_str(), base, "{log}: baseline");
        let c = j
            .changes
            .iter()
            .find(|c| c.metric == metric)
            .unwrap_or_else(|| panic!("{log}: no {metric} among {:?}", j.changes));
        let value: f64 = f[4].parse().unwrap();
        assert!(
            (c.value - value).abs() <= value * 0.001,
            "{log} {metric}: {} vs {value}",
            c.value
        );
        let got = match c.verdict {
            Some(FindingKind::Regression) => "regression",
            Some(FindingKind::Improvement) => "improvement",
            _ => "none",
        };
        assert_eq!(got, verdict, "{log} {metric}: {c:?}");
        if differs == "nothing" {
            assert!(j.differs.is_empty(), "{log}: {}", j.differs_text());
            assert_eq!(j.differs_text(), "nothing recorded differs");
        } else if differs != "-" {
            for what in differs.split(',') {
                assert!(
                    j.differs.iter().any(|d| d.what == what),
                    "{log}: {what} not named among {:?}",
                    j.differs
                );
            }
            assert!(!j.only_kernel(), "{log}: {}", j.differs_text());
        }
        checked += 1;
    }
    assert_eq!(checked, 29);
    // A regression's finding says what moved, against which band, and what differs.
    let rp = by_name["2sZH.txt"];
    let f = rp.findings("#2");
    let aes = f
        .iter()
        .find(|f| f.message.starts_with("AES-256-CBC"))
        .unwrap();
    assert_eq!(aes.kind, FindingKind::Improvement);
    assert!(aes.message.contains("+12.5 %"), "{}", aes.message);
    assert!(aes.message.contains("kernel 4.4.154"), "{}", aes.message);
}

/// The same board, the same tools, only another kernel: said as such (KernelCI counts a
/// regression only then); a spread in a longer history widens the band.
#[test]
fn only_the_kernel_differs_and_the_history_sets_the_band() {
    let docs = series();
    let base = docs["3DtN.txt"].clone();
    let mut later = base.clone();
    later.envelope.started.unix_ms += 86_400_000;
    later.envelope.inventory.kernel.release = Some("6.1.0-odroid".into());
    let j = regress::judge(&later, &[&base]).unwrap();
    assert!(j.only_kernel(), "{:?}", j.differs);
    assert!(
        j.differs_text().starts_with("only the kernel differs"),
        "{}",
        j.differs_text()
    );
    assert!(
        j.verdicts().next().is_none(),
        "same figures, no verdict: {:?}",
        j.changes
    );
    // Few earlier values: the floor. Three spread by ±8 %: twice their variation.
    assert_eq!(regress::band_pct(&[100.0, 108.0]), regress::FLOOR_PCT);
    let wide = regress::band_pct(&[92.0, 100.0, 108.0]);
    assert!((wide - 16.0).abs() < 0.01, "{wide}");
    assert_eq!(regress::band_pct(&[100.0, 100.5, 99.5]), regress::FLOOR_PCT);
    let b = regress::better("sevenzip_multi", Some("MIPS"));
    assert_eq!(b, Some(regress::Better::Higher));
    assert_eq!(
        regress::better("latency_us", Some("µs")),
        Some(regress::Better::Lower)
    );
    assert_eq!(regress::better("exit_code", None), None);
    assert_eq!(
        regress::better("settings_to_look_at", None),
        Some(regress::Better::Lower)
    );
    assert_eq!(regress::better("cluster0_opp_mhz", Some("MHz")), None);
    assert_eq!(
        regress::better("cluster0_measured_mhz", Some("MHz")),
        Some(regress::Better::Higher)
    );
}
