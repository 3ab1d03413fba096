//! The verdict patterns of issue 11 over every corpus log (real boards' sbc-bench logs, in the
//! repo's test data): each rule holds on every log, and each pattern occurs in some.

use truebench_fixtures::sbc_bench as common;

use truebench_model::finding::{Finding, FindingKind};
use truebench_model::RunResult;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::verdict;
use truebench_sbcbench::{parse, SbcBenchLog};

fn corpus() -> Vec<(String, SbcBenchLog, RunResult)> {
    common::logs()
        .into_iter()
        .map(|(name, text)| {
            let log = parse(&text);
            let r = to_run_result(&log, &name);
            (name, log, r)
        })
        .collect()
}

/// `(+1.3%)` and `tolerance ±1.5 %` of an evidence line.
fn deviation_and_tolerance(line: &str) -> Option<(f64, f64)> {
    let open = line.find(" (")?;
    let dev: f64 = line[open + 2..].split("%)").next()?.parse().ok()?;
    let tol: f64 = line
        .split("tolerance ±")
        .nth(1)?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    Some((dev, tol))
}

fn findings(r: &RunResult, kind: FindingKind) -> Vec<&Finding> {
    r.envelope
        .findings
        .iter()
        .filter(|f| f.kind == kind)
        .collect()
}

#[test]
fn the_advertised_clock_is_judged_cold_beyond_the_measurements_tolerance() {
    let mut hot_only = 0;
    let mut above = 0;
    for (name, _, r) in corpus() {
        for f in findings(&r, FindingKind::ClockDeviation) {
            // A cap at the top OPP alone is named under the floor, by the whole walk.
            if f.message.contains("while the lower OPPs fall short") {
                continue;
            }
            let cold = f
                .evidence
                .iter()
                .find(|e| e.starts_with("cold"))
                .unwrap_or_else(|| panic!("{name}: no cold figure in {f:?}"));
            let (dev, tol) = deviation_and_tolerance(cold).unwrap();
            // Both printed to one decimal.
            assert!(dev < -tol + 0.05, "{name}: {cold}");
        }
        for f in findings(&r, FindingKind::ClockAbove) {
            let (dev, tol) = deviation_and_tolerance(&f.evidence[0]).unwrap();
            assert!(dev > tol - 0.05, "{name}: {:?}", f.evidence);
            above += 1;
        }
        for f in findings(&r, FindingKind::Throttling) {
            if let Some(hot) = f.evidence.iter().find(|e| e.starts_with("hot, after")) {
                // Both figures, and the hot one clearly below the cold one.
                let cold = f.evidence.iter().find(|e| e.starts_with("cold")).unwrap();
                let m = |l: &str| -> f64 {
                    l.split("Measured: ")
                        .nth(1)
                        .unwrap()
                        .split(' ')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap()
                };
                assert!(m(hot) < m(cold), "{name}: {:?}", f.evidence);
                hot_only += 1;
            }
        }
    }
    assert!(hot_only >= 2, "{hot_only} hot-only shortfalls");
    assert!(above >= 5, "{above} clocks above the label");
}

#[test]
fn timeline_drops_on_x86_far_below_its_limits_are_power_limits() {
    let (mut x86_power, mut x86_logs) = (0, 0);
    for (name, _, r) in corpus() {
        let x86 = r
            .envelope
            .inventory
            .arch
            .kernel
            .as_deref()
            .is_some_and(|a| a.starts_with("x86"));
        if !x86 {
            continue;
        }
        x86_logs += 1;
        x86_power += findings(&r, FindingKind::PowerLimit).len();
        for f in findings(&r, FindingKind::Throttling) {
            if !f.message.contains("got hotter") {
                continue;
            }
            // Blamed on heat only at 80 °C or more (no trip point in a log).
            for e in f.evidence.iter().filter(|e| e.contains(" — ")) {
                let temp: f64 = e
                    .split(" — ")
                    .next()
                    .unwrap()
                    .rsplit(' ')
                    .next()
                    .unwrap()
                    .trim_end_matches("°C")
                    .parse()
                    .unwrap();
                assert!(temp >= 80.0, "{name}: {e}");
            }
        }
    }
    assert!(x86_logs >= 10, "{x86_logs} x86 logs");
    assert!(x86_power >= 5, "{x86_power} power-limit findings on x86");
}

#[test]
fn every_known_sbc_bench_error_occurs_and_fits_its_versions() {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for (name, log, r) in corpus() {
        for c in verdict::compare(&log, r.view()) {
            let Some(k) = c.known_error else { continue };
            *seen.entry(k.id.clone()).or_default() += 1;
            match k.id.as_str() {
                "throttling-without-cpufreq-statistics" => {
                    assert!(log.at_least("0.9.41") && !log.at_least("0.9.46"), "{name}");
                    assert!(log.throttling.is_empty(), "{name}");
                }
                "background-threshold" => {
                    assert_eq!(k.label, truebench_sbcbench::known::Label::Threshold);
                    assert!(
                        k.explanation.contains("points"),
                        "{name}: {}",
                        k.explanation
                    );
                }
                _ => {}
            }
            assert!(!k.explanation.is_empty());
        }
    }
    for id in [
        "throttling-without-cpufreq-statistics",
        "throttling-table-below-cpuinfo-max",
        "throttling-by-cpufreq-statistics-only",
        "background-threshold",
        "activity-averaged-over-the-run",
        "clock-deviation-needs-both-checks",
    ] {
        assert!(seen.contains_key(id), "{id} never seen: {seen:?}");
    }
}

/// The whole OPP walk over the corpus: how many clusters lose a constant number of MHz at
/// every OPP (lost cycles, which replace a clock-deviation finding) and how many have a cap
/// at the top OPP alone that the single-reading floor would miss. Printed for the record;
/// each such finding carries its fit.
#[test]
fn opp_walks_over_the_corpus() {
    let (mut lost, mut caps) = (Vec::new(), Vec::new());
    for (name, _, r) in corpus() {
        for f in &r.envelope.findings {
            if f.kind == FindingKind::LostCycles {
                assert!(f.evidence[0].starts_with("fit over "), "{name}: {f:?}");
                lost.push(format!("{name}: {}", f.message));
            }
            if f.kind == FindingKind::ClockDeviation
                && f.message.contains("while the lower OPPs fall short")
            {
                assert!(f.evidence.iter().any(|e| e.starts_with("hot")), "{name}");
                caps.push(format!("{name}: {}", f.message));
            }
        }
    }
    println!("lost cycles: {}", lost.len());
    for l in &lost {
        println!("  {l}");
    }
    println!("top-OPP caps: {}", caps.len());
    for c in &caps {
        println!("  {c}");
    }
}
