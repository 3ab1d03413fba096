//! Where a result stands among stored results of the same SoC and tool versions, on five
//! real Raspberry Pi 5 (BCM2712) logs run with the same 7-zip, OpenSSL and tinymembench.

use truebench_model::Document;
use truebench_store::standing;

fn logs(names: &[&str]) -> Vec<Document> {
    let all = truebench_fixtures::sbc_bench::logs();
    names
        .iter()
        .map(|n| {
            let text = &all.iter().find(|(x, _)| x == n).unwrap().1;
            truebench_sbcbench::convert::to_run_result(&truebench_sbcbench::parse(text), n).into()
        })
        .collect()
}

#[test]
fn percentile_ranks_among_the_same_soc_and_tools() {
    let docs = logs(&[
        "1ULtUe.txt",
        "4JAv.txt",
        "8acvqG.txt",
        "Au3jaA.txt",
        "frdzAn.txt",
    ]);
    let refs: Vec<&Document> = docs.iter().collect();
    let multi = |d: &Document| {
        truebench_figures::metrics(d)
            .into_iter()
            .find(|m| m.key == "sevenzip_multi")
            .and_then(|m| m.value)
            .unwrap()
    };
    let best = docs
        .iter()
        .max_by(|a, b| multi(a).total_cmp(&multi(b)))
        .unwrap();
    let worst = docs
        .iter()
        .min_by(|a, b| multi(a).total_cmp(&multi(b)))
        .unwrap();
    let of = |d: &Document| {
        standing::standing(d, &refs)
            .into_iter()
            .find(|s| s.metric == "sevenzip_multi")
            .unwrap()
    };
    let (b, w) = (of(best), of(worst));
    assert_eq!(b.of, 5, "{b:?}");
    // Better than the four others: (4 + ½) / 5.
    assert!((b.percentile - 90.0).abs() < 1e-9, "{b:?}");
    assert!((w.percentile - 10.0).abs() < 1e-9, "{w:?}");
    assert!(
        b.group.contains("BCM2712") && b.group.contains("7-zip 16.x"),
        "{}",
        b.group
    );
    assert!(b.text().starts_with("sevenzip_multi "), "{}", b.text());
    assert!(b.text().contains(": 90th percentile of 5 "), "{}", b.text());
    // Another SoC's results are no group for it: too few to rank.
    let other = logs(&["3X9q.txt"]);
    assert!(standing::standing(&other[0], &refs).is_empty());
}

/// `standing_all` ranks every result as `standing` does one by one: over every corpus log,
/// with copies of some (loaded twice: counted once) and results that do not count.
#[test]
fn every_results_standing_at_once_is_each_ones_standing() {
    let all = truebench_fixtures::sbc_bench::logs();
    let mut docs: Vec<Document> = all
        .iter()
        .map(|(n, text)| {
            truebench_sbcbench::convert::to_run_result(&truebench_sbcbench::parse(text), n).into()
        })
        .collect();
    let copies: Vec<Document> = docs.iter().step_by(7).cloned().collect();
    docs.extend(copies);
    let refs: Vec<&Document> = docs.iter().collect();
    let at_once = standing::standing_all(&refs);
    let mut ranked = 0;
    for (d, s) in refs.iter().zip(&at_once) {
        assert_eq!(*s, standing::standing(d, &refs));
        ranked += usize::from(!s.is_empty());
    }
    assert!(ranked > 50, "{ranked} results ranked");
}

/// Ranked and judged from each result's facts (as they are kept between builds: through
/// JSON) and figures, without the documents, every corpus log gets the standing and the
/// judgement its document gets.
#[test]
fn standing_and_regressions_from_facts_are_the_documents() {
    use truebench_store::facts::Facts;
    use truebench_store::regress;
    let docs: Vec<Document> = truebench_fixtures::sbc_bench::logs()
        .iter()
        .map(|(n, text)| {
            truebench_sbcbench::convert::to_run_result(&truebench_sbcbench::parse(text), n).into()
        })
        .collect();
    let refs: Vec<&Document> = docs.iter().collect();
    let facts: Vec<Facts> = docs
        .iter()
        .map(|d| {
            let json = serde_json::to_string(&Facts::of(d)).unwrap();
            serde_json::from_str(&json).unwrap()
        })
        .collect();
    let figures: Vec<Vec<truebench_figures::Metric>> =
        docs.iter().map(truebench_figures::metrics).collect();
    let f: Vec<&Facts> = facts.iter().collect();
    let m: Vec<&[truebench_figures::Metric]> = figures.iter().map(Vec::as_slice).collect();
    let standing = standing::standing_all_of(&f, &m);
    for (i, d) in refs.iter().enumerate() {
        assert_eq!(standing[i], standing::standing(d, &refs), "#{i}");
    }
    let ranked = standing.iter().filter(|s| !s.is_empty()).count();
    assert!(ranked > 30, "{ranked} ranked");
    let judged = regress::judge_all_of(&f, &m);
    assert_eq!(judged, regress::judge_all(&refs));
    assert!(judged.len() > 10, "{} judged", judged.len());
    // Each judgement as `judge` gives it from the documents, one by one.
    for (i, j) in &judged {
        let key = |k: usize| (docs[k].envelope.started.unix_ms, k);
        let mut earlier: Vec<usize> = (0..refs.len())
            .filter(|&k| {
                regress::counts(refs[k])
                    && regress::same_machine(refs[k], refs[*i])
                    && refs[k].kind() == refs[*i].kind()
                    && key(k) < key(*i)
            })
            .collect();
        earlier.sort_by_key(|&k| key(k));
        let earlier: Vec<&Document> = earlier.into_iter().map(|k| refs[k]).collect();
        let one = regress::judge(refs[*i], &earlier).expect("judged");
        assert_eq!(one.changes, j.changes, "#{i}");
        assert_eq!(one.differs, j.differs, "#{i}");
    }
}

/// Scores per watt are ranked where energy was measured, better when higher; the power drawn
/// is ranked better when lower. The same five logs, each given a meter's reading for its
/// 7-zip phase: the board drawing least gets the most MIPS per watt.
#[test]
fn scores_per_watt_are_ranked_where_energy_was_measured() {
    use truebench_model::timeline::{EnergyReport, PhaseEnergyRow, PowerKind};
    let mut docs = logs(&[
        "1ULtUe.txt",
        "4JAv.txt",
        "8acvqG.txt",
        "Au3jaA.txt",
        "frdzAn.txt",
    ]);
    for (i, d) in docs.iter_mut().enumerate() {
        let watts = 6.0 + i as f64;
        let mut e = EnergyReport {
            source: "external meter (--power-cmd)".into(),
            kind: PowerKind::External,
            parts: vec!["external".into()],
            covers: "the whole device".into(),
            idle_watts: Some(2.5),
            idle_seconds: Some(10.0),
            idle_note: None,
            phases: vec![PhaseEnergyRow {
                phase: "compression-multi".into(),
                index: 1,
                joules: watts * 60.0,
                mean_watts: watts,
                seconds: 60.0,
                above_idle_watts: Some(watts - 2.5),
                above_idle_joules: Some((watts - 2.5) * 60.0),
                per_watt: Vec::new(),
            }],
            others: Vec::new(),
        };
        e.add_per_watt("compression-multi", "7-zip, all cores", 10_000.0, "MIPS");
        d.envelope.energy = Some(e);
    }
    let refs: Vec<&Document> = docs.iter().collect();
    let of = |d: &Document, key: &str| {
        standing::standing(d, &refs)
            .into_iter()
            .find(|s| s.metric == key)
            .unwrap_or_else(|| panic!("{key} not ranked"))
    };
    let key = "energy_compression_multi_mips_per_w";
    let (first, last) = (of(&docs[0], key), of(&docs[4], key));
    assert_eq!(first.unit.as_deref(), Some("MIPS/W"), "{first:?}");
    assert_eq!(first.of, 5, "{first:?}");
    assert!((first.percentile - 90.0).abs() < 1e-9, "{first:?}");
    assert!((last.percentile - 10.0).abs() < 1e-9, "{last:?}");
    // Less power is better: the 6 W board stands above the 10 W one.
    let (w0, w4) = (
        of(&docs[0], "energy_compression_multi_w"),
        of(&docs[4], "energy_compression_multi_w"),
    );
    assert!(w0.percentile > w4.percentile, "{w0:?} {w4:?}");
}
