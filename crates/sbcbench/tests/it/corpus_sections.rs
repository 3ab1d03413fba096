//! Every corpus log parses without panicking, and each section is found wherever the log
//! contains its marker. Expected counts come from plain line matching on the raw text, so a
//! parser that drops or invents entries fails here.

use truebench_fixtures::sbc_bench as common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use truebench_sbcbench::log::{Round, SevenZipKind};
use truebench_sbcbench::{parse, results_row, SbcBenchLog};

fn count(text: &str, pred: impl Fn(&str) -> bool) -> usize {
    text.lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| pred(l))
        .count()
}

fn is_sample_line(l: &str) -> bool {
    let b = l.as_bytes();
    b.len() > 9
        && b[2] == b':'
        && b[5] == b':'
        && b[8] == b':'
        && b[..2].iter().all(u8::is_ascii_digit)
}

struct Check {
    failures: Vec<String>,
}

impl Check {
    fn eq(&mut self, log: &str, what: &str, got: usize, want: usize) {
        if got != want {
            self.failures
                .push(format!("{log}: {what}: parsed {got}, log has {want}"));
        }
    }
    fn ok(&mut self, log: &str, what: &str, cond: bool) {
        if !cond {
            self.failures.push(format!("{log}: {what}"));
        }
    }
}

#[test]
fn every_log_parses_and_every_section_is_found() {
    let logs = common::logs();
    assert_eq!(logs.len(), 260, "the archive holds the 260 corpus logs");
    let mut c = Check {
        failures: Vec::new(),
    };
    let mut parsed: Vec<(String, SbcBenchLog)> = Vec::new();
    for (name, text) in &logs {
        match catch_unwind(AssertUnwindSafe(|| {
            let log = parse(text);
            let _ = results_row(&log);
            log
        })) {
            Ok(log) => parsed.push((name.clone(), log)),
            Err(_) => c.failures.push(format!("{name}: parser panicked")),
        }
    }
    for ((name, text), (_, log)) in logs.iter().zip(&parsed) {
        let n = name.as_str();
        // header and identification
        if text.starts_with("sbc-bench v") {
            c.ok(n, "version", log.header.version.is_some());
        } else {
            c.ok(n, "missing header recorded", log.is_missing("header"));
        }
        c.ok(n, "kernel release", log.system.kernel.is_some());
        if text.contains("\nDescription:") {
            c.ok(n, "distro description", log.system.description.is_some());
        }
        if text
            .lines()
            .any(|l| l.starts_with("SoC guess:") && l.len() > 11)
        {
            c.ok(n, "SoC guess", log.system.soc_guess.is_some());
        }
        let topo_lines = text
            .lines()
            .position(|l| l.starts_with("CPU sysfs topology") || l.starts_with("CPU topology"));
        if topo_lines.is_some() {
            c.ok(n, "topology rows", !log.topology.is_empty());
        }

        // clocks
        let headings = count(text, |l| l.starts_with("Checking cpufreq OPP"));
        c.eq(n, "OPP blocks", log.opp_blocks.len(), headings);
        c.eq(
            n,
            "OPP points",
            log.opp_blocks.iter().map(|b| b.points.len()).sum(),
            count(text, |l| l.starts_with("Cpufreq OPP:")),
        );
        c.ok(
            n,
            "every OPP point has a measured clock",
            log.opp_blocks
                .iter()
                .flat_map(|b| &b.points)
                .all(|p| p.measured_mhz.is_some()),
        );
        c.eq(
            n,
            "no-cpufreq measurements",
            log.no_cpufreq.len(),
            count(text, |l| l.starts_with("No cpufreq support")),
        );
        let again = text
            .find("Testing clockspeeds again")
            .or_else(|| text.find("Testing maximum cpufreq again"));
        if again.is_some_and(|i| {
            text[i..].contains("Checking cpufreq OPP") || text[i..].contains("No cpufreq support")
        }) {
            let after = log
                .opp_blocks
                .iter()
                .filter(|b| b.round == Round::After)
                .count()
                + log
                    .no_cpufreq
                    .iter()
                    .filter(|m| m.round == Round::After)
                    .count();
            c.ok(n, "clocks checked again after the benchmarks", after > 0);
        }

        // memory benchmarks
        c.eq(
            n,
            "tinymembench runs",
            log.tinymembench.len(),
            count(text, |l| l.starts_with("tinymembench v")),
        );
        c.eq(
            n,
            "tinymembench MB/s lines",
            log.tinymembench.iter().map(|r| r.results.len()).sum(),
            count(text, |l| {
                l.contains(" : ") && l.contains(" MB/s") && !l.starts_with("  *")
            }),
        );
        c.eq(
            n,
            "latency tables",
            log.tinymembench.iter().map(|r| r.latency.len()).sum(),
            count(text, |l| l.starts_with("block size :")),
        );
        c.eq(
            n,
            "ramlat runs",
            log.ramlat.len(),
            count(text, |l| l.starts_with("Executing ramlat on ")),
        );
        c.ok(
            n,
            "ramlat rows",
            log.ramlat
                .iter()
                .all(|r| !r.rows.is_empty() && !r.columns.is_empty()),
        );

        // OpenSSL, 7-zip, cpuminer, stockfish
        let aes_lines = count(text, |l| l.starts_with("aes-"));
        c.eq(
            n,
            "openssl rows",
            log.openssl.as_ref().map_or(0, |o| o.rows.len()),
            aes_lines,
        );
        if aes_lines > 0 {
            let o = log.openssl.as_ref();
            c.ok(n, "openssl version", o.is_some_and(|o| o.version.is_some()));
            c.ok(
                n,
                "openssl block sizes",
                o.is_some_and(|o| o.block_sizes.len() >= 5),
            );
            c.ok(
                n,
                "openssl row widths",
                o.is_some_and(|o| {
                    o.rows
                        .iter()
                        .all(|r| r.kbytes_per_s.len() == o.block_sizes.len())
                }),
            );
        }
        let tots = count(text, |l| l.starts_with("Tot:"));
        let z = log.sevenzip.as_ref();
        c.eq(
            n,
            "7-zip Tot: lines",
            z.map_or(0, |z| z.runs.iter().filter(|r| r.tot.is_some()).count()),
            tots,
        );
        if tots > 0 {
            c.ok(n, "7-zip version", z.is_some_and(|z| z.version.is_some()));
        }
        if text.contains("Executing benchmark single-threaded on") {
            c.ok(
                n,
                "7-zip single-threaded run",
                z.is_some_and(|z| z.runs.iter().any(|r| r.kind == SevenZipKind::Single)),
            );
        }
        let summary_line = text
            .lines()
            .find(|l| l.starts_with("Total:") && !l.contains("kH/s"));
        if let Some(line) = summary_line.filter(|l| l.len() > 7) {
            let want = line[6..]
                .split(',')
                .filter(|v| !v.trim().is_empty())
                .count();
            let s = z.and_then(|z| z.summary.as_ref());
            c.ok(n, "7-zip summary", s.is_some_and(|s| s.total.len() == want));
            // the summary lists the multi-threaded runs (or, on one core, the single one)
            let kinds = |k: SevenZipKind| {
                z.map_or(0, |z| {
                    z.runs
                        .iter()
                        .filter(|r| r.kind == k && r.tot.is_some())
                        .count()
                })
            };
            let multi = kinds(SevenZipKind::Multi);
            c.ok(
                n,
                &format!("7-zip multi-threaded runs ({multi}) match the summary ({want})"),
                multi == want || (multi == 0 && kinds(SevenZipKind::Single) == want),
            );
        }
        if text
            .lines()
            .any(|l| l.starts_with("Total Scores: ") && l.len() > 14)
        {
            c.ok(
                n,
                "cpuminer scores",
                log.cpuminer
                    .as_ref()
                    .is_some_and(|m| !m.total_scores.is_empty()),
            );
            c.eq(
                n,
                "cpuminer Total: lines",
                log.cpuminer.as_ref().map_or(0, |m| m.totals_khs.len()),
                count(text, |l| {
                    l.contains(" Total: ") && l.trim_end().ends_with("kH/s")
                }),
            );
        }
        if text.contains("Executing Stockfish") {
            c.ok(
                n,
                "stockfish runs",
                log.stockfish
                    .as_ref()
                    .is_some_and(|s| !s.runs.is_empty() && !s.total_scores.is_empty()),
            );
        }

        // monitoring
        let health = count(text, |l| {
            l.starts_with("System health while running ")
                || l.trim_end().ends_with("System health now:")
        });
        c.eq(n, "monitoring tables", log.monitoring.len(), health);
        c.eq(
            n,
            "monitoring samples",
            log.monitoring.iter().map(|t| t.samples.len()).sum(),
            count(text, is_sample_line),
        );
        for t in &log.monitoring {
            for s in &t.samples {
                let complete = s.load.is_some()
                    && s.cpu_pct.is_some()
                    && s.sys_pct.is_some()
                    && s.irq_pct.is_some();
                c.ok(
                    n,
                    &format!("complete sample {} in {}", s.time, t.running),
                    complete,
                );
                c.ok(
                    n,
                    &format!("clock values match labels at {}", s.time),
                    s.clocks_mhz.len() == t.clock_labels.len()
                        || s.clocks_mhz.iter().all(|v| v.is_none()),
                );
            }
        }
        let throttling = count(text, |l| {
            l.starts_with("Throttling statistics")
                || l.starts_with("Throttling occured. Cpufreq statistics")
        });
        c.eq(n, "throttling tables", log.throttling.len(), throttling);
        c.ok(
            n,
            "throttling rows",
            log.throttling.iter().all(|t| !t.time_in_state.is_empty()),
        );

        // system state
        if text.contains("dmesg output while running the benchmarks") {
            c.ok(
                n,
                "dmesg lines",
                log.dmesg.as_ref().is_some_and(|d| !d.is_empty()),
            );
        }
        c.ok(
            n,
            "free before",
            log.memory
                .first()
                .is_some_and(|m| m.mem_total.is_some() && m.swap_total.is_some()),
        );
        c.eq(
            n,
            "free outputs",
            log.memory.len(),
            count(text, |l| l.starts_with("Mem:") || l.starts_with("Память:")),
        );
        if text.contains("Thermal source:") {
            c.ok(n, "thermal source", log.thermal_source.is_some());
        }
        if text.contains("Hardware sensors:") {
            c.ok(n, "sensors", !log.sensors.is_empty());
        }
        if let Some(i) = text.find("Results validation:") {
            let next = text[i + 19..]
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            c.ok(
                n,
                "validation bullets",
                next.starts_with("  * ") != log.validation.is_empty(),
            );
        } else {
            c.ok(
                n,
                "validation recorded as missing",
                log.is_missing("validation"),
            );
        }
        if text
            .lines()
            .any(|l| l.starts_with("| ") && l.matches('|').count() >= 11)
        {
            c.ok(
                n,
                "embedded row",
                log.embedded_row
                    .as_ref()
                    .is_some_and(|r| r.cells.len() >= 10),
            );
        }
        // the model survives a JSON round trip
        let json = serde_json::to_string(log).expect("serialize");
        let back: SbcBenchLog = serde_json::from_str(&json).expect("deserialize");
        c.ok(n, "JSON round trip", &back == log);
    }
    assert!(
        c.failures.is_empty(),
        "{} problems:\n{}",
        c.failures.len(),
        c.failures.join("\n")
    );
}

/// Damaged logs (cut short, lines dropped, digits garbled) give partial results, never a panic.
#[test]
fn damaged_logs_never_panic() {
    let mut panics = Vec::new();
    for (name, text) in common::logs() {
        let lines: Vec<&str> = text.lines().collect();
        let variants = [
            lines[..lines.len() / 3].join("\n"),
            lines[..lines.len() * 2 / 3].join("\n"),
            lines
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 5 != 2)
                .map(|(_, l)| *l)
                .collect::<Vec<_>>()
                .join("\n"),
            text.replace('5', "x").replace(" MHz", "MHz:"),
        ];
        for (i, v) in variants.iter().enumerate() {
            let ok = catch_unwind(AssertUnwindSafe(|| {
                let log = parse(v);
                let _ = results_row(&log);
                let _ = truebench_sbcbench::import::summary(&name, &log);
            }))
            .is_ok();
            if !ok {
                panics.push(format!("{name} variant {i}"));
            }
        }
    }
    assert!(panics.is_empty(), "panics: {panics:?}");
}
