//! The Results.md row computed from each corpus log agrees with upstream's Results.md and with
//! the row sbc-bench embedded in the log itself, column by column, except for the listed and
//! explained exceptions (`tests/data/row_exceptions.tsv`,
//! `tests/data/embedded_row_exceptions.tsv`). A stale exception (one that no longer describes a
//! disagreement) fails the test as well, so the lists stay exact.
//!
//! `TRUEBENCH_ROW_REPORT=1 cargo test -p truebench-sbcbench --test results_md_agreement -- --nocapture`
//! prints every comparison.

use truebench_fixtures::sbc_bench as common;

use std::collections::{BTreeMap, HashMap};
use truebench_sbcbench::row::{cell_agrees, parse_results_md, COLUMNS};
use truebench_sbcbench::{parse, results_row, ResultsRow, SbcBenchLog};

/// Columns compared with Results.md. The device column is not: upstream writes it by hand
/// (`Rock64 (RK3328)` instead of sbc-bench's `Pine64 Rock64`), for every row.
const COMPARED: [usize; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 9];

/// The distribution's other names in the log (lsb, os-release), for the distro cell.
fn distro_names(log: &SbcBenchLog) -> Vec<&str> {
    let s = &log.system;
    [&s.codename, &s.description, &s.distributor_id, &s.os_pretty]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect()
}

fn agrees(col: usize, ours: &str, theirs: &str, log: &SbcBenchLog, loose_distro: bool) -> bool {
    if loose_distro {
        cell_agrees(col, ours, theirs, &distro_names(log))
    } else {
        ours == theirs
    }
}

struct Exceptions {
    /// (log, column) → (ours, theirs, reason)
    map: HashMap<(String, String), (String, String, String)>,
}

impl Exceptions {
    fn load(name: &str) -> Self {
        let mut map = HashMap::new();
        for (i, row) in common::tsv(name).into_iter().enumerate() {
            assert_eq!(
                row.len(),
                5,
                "{name} line {}: log, column, ours, theirs, reason",
                i + 2
            );
            assert!(
                row[4].split_whitespace().count() >= 4,
                "{name}: exception {}/{} needs a real reason",
                row[0],
                row[1]
            );
            let key = (row[0].clone(), row[1].clone());
            let dup = map.insert(key, (row[2].clone(), row[3].clone(), row[4].clone()));
            assert!(
                dup.is_none(),
                "{name}: duplicate exception {}/{}",
                row[0],
                row[1]
            );
        }
        Exceptions { map }
    }
}

/// Per-row outcome for the summary: (row made by sbc-bench v0.8.4+, agreement per column).
type RowOutcome = (bool, Vec<(usize, bool)>);

#[derive(Default)]
struct Tally {
    /// Compare the distro column the Results.md way (hand-shortened) instead of exactly.
    loose_distro: bool,
    /// Print every disagreement (`TRUEBENCH_ROW_REPORT`).
    report: bool,
    rows: usize,
    full: usize,
    outcomes: Vec<RowOutcome>,
    per_column: BTreeMap<usize, (usize, usize)>, // column → (agree, compared)
    problems: Vec<String>,
    used: Vec<(String, String)>,
}

impl Tally {
    fn compare(
        &mut self,
        log_name: &str,
        log: &SbcBenchLog,
        ours: &[String],
        theirs: &[String],
        columns: &[usize],
        exc: &Exceptions,
    ) {
        self.rows += 1;
        let mut all = true;
        let mut outcome = Vec::new();
        for &col in columns {
            let (Some(o), Some(t)) = (ours.get(col), theirs.get(col)) else {
                continue;
            };
            let e = self.per_column.entry(col).or_default();
            e.1 += 1;
            let name = COLUMNS[col];
            if agrees(col, o, t, log, self.loose_distro) {
                e.0 += 1;
                outcome.push((col, true));
                continue;
            }
            outcome.push((col, false));
            all = false;
            let key = (log_name.to_string(), name.to_string());
            match exc.map.get(&key) {
                Some((eo, et, _)) if eo == o && et == t => self.used.push(key),
                Some((eo, et, _)) => self.problems.push(format!(
                    "{log_name} {name}: ours {o:?} theirs {t:?}, but the exception says ours {eo:?} theirs {et:?}"
                )),
                None => self.problems.push(format!(
                    "{log_name}\t{name}\t{o}\t{t}\t(unexplained disagreement)"
                )),
            }
            if self.report {
                println!("  {log_name:12} {name:13} ours {o:<40} theirs {t}");
            }
        }
        if all {
            self.full += 1;
        }
        self.outcomes.push((log.at_least("0.8.4"), outcome));
    }

    /// `rows fully agree / rows whose six scores agree / rows` for rows of logs written by
    /// sbc-bench v0.8.4+ (which printed the row itself) and of older logs (rows made by hand).
    fn by_era(&self) -> String {
        let mut s = String::new();
        for (era, label) in [
            (true, "logs of v0.8.4+"),
            (false, "older logs (hand-made rows)"),
        ] {
            let rows: Vec<&RowOutcome> = self.outcomes.iter().filter(|o| o.0 == era).collect();
            let full = rows.iter().filter(|o| o.1.iter().all(|c| c.1)).count();
            let scores = rows
                .iter()
                .filter(|o| o.1.iter().filter(|c| c.0 >= 4).all(|c| c.1))
                .count();
            s.push_str(&format!(
                "\n  {label}: {full}/{n} rows fully agree, {scores}/{n} agree in all six scores",
                n = rows.len()
            ));
        }
        s
    }

    fn finish(&mut self, what: &str, exc: &Exceptions) -> String {
        for key in exc.map.keys() {
            if !self.used.contains(key) {
                self.problems.push(format!(
                    "stale exception {}/{}: the columns agree now",
                    key.0, key.1
                ));
            }
        }
        let mut s = format!(
            "{what}: {}/{} rows fully agree; per column:",
            self.full, self.rows
        );
        for (col, (a, n)) in &self.per_column {
            s.push_str(&format!(" {} {a}/{n};", COLUMNS[*col]));
        }
        s.push_str(&format!(" {} listed exceptions", exc.map.len()));
        s
    }
}

fn parsed_logs() -> HashMap<String, SbcBenchLog> {
    common::logs()
        .into_iter()
        .map(|(name, text)| (name, parse(&text)))
        .collect()
}

fn report() -> bool {
    std::env::var_os("TRUEBENCH_ROW_REPORT").is_some()
}

#[test]
fn rows_agree_with_results_md() {
    let logs = parsed_logs();
    let exc = Exceptions::load("row_exceptions.tsv");
    let md = parse_results_md(&common::results_md());
    assert_eq!(md.len(), 258, "Results.md rows with a log link");
    let mut t = Tally {
        loose_distro: true,
        report: report(),
        ..Default::default()
    };
    let mut device_same = 0;
    for r in &md {
        let name = r.log.clone().unwrap_or_default();
        let Some(log) = logs.get(&name) else {
            continue;
        };
        let row: ResultsRow = results_row(log);
        let ours: Vec<String> = row.cells().to_vec();
        if report() {
            println!(
                "{name}: {row}\n{:>w$}  {}",
                "",
                r.cells.join(" | "),
                w = name.len()
            );
        }
        if ours[0] == r.device {
            device_same += 1;
        }
        t.compare(&name, log, &ours, &r.cells, &COMPARED, &exc);
    }
    assert_eq!(t.rows, 184, "Results.md rows whose log is in the archive");
    let summary = t.finish("Results.md", &exc);
    println!(
        "{summary}; device column identical in {device_same}/{} (not compared){}",
        t.rows,
        t.by_era()
    );
    assert!(
        t.problems.is_empty(),
        "{summary}\n{} problems (log, column, ours, theirs):\n{}",
        t.problems.len(),
        t.problems.join("\n")
    );
}

/// sbc-bench v0.8.4+ appended its own row to the log. That row is the exact output of the
/// code this crate re-implements, so it is the strict check of the computation; Results.md
/// rows are often edited by hand afterwards.
#[test]
fn rows_agree_with_the_row_sbc_bench_wrote_into_the_log() {
    let logs = parsed_logs();
    let exc = Exceptions::load("embedded_row_exceptions.tsv");
    let mut names: Vec<&String> = logs.keys().collect();
    names.sort();
    let mut t = Tally {
        report: report(),
        ..Default::default()
    };
    for name in names {
        let log = &logs[name];
        let Some(e) = &log.embedded_row else {
            continue;
        };
        let row = results_row(log);
        let mut ours: Vec<String> = row.cells().to_vec();
        if row.throttled {
            ours[1].push_str(" (throttled)");
        }
        // Map the embedded cells onto the ten Results.md columns.
        let c = &e.cells;
        let get = |i: usize| c.get(i).cloned().unwrap_or_default();
        let (theirs, columns): (Vec<String>, Vec<usize>) = if e.layout == "aes128" {
            // | dev | clock | kernel | distro | zip | AES-128 16 B | AES-256 | memcpy | memset | kH/s |
            let v = vec![
                get(0),
                get(1),
                get(2),
                get(3),
                get(4),
                String::new(),
                get(6),
                get(7),
                get(8),
                get(9),
            ];
            (v, vec![0, 1, 2, 3, 4, 6, 7, 8, 9])
        } else {
            ((0..10).map(get).collect(), (0..10).collect())
        };
        if report() {
            println!(
                "{name}: {}\n{:>w$}  {}",
                ours.join(" | "),
                "",
                theirs.join(" | "),
                w = name.len()
            );
        }
        t.compare(name, log, &ours, &theirs, &columns, &exc);
    }
    let summary = t.finish("embedded rows", &exc);
    println!("{summary}{}", t.by_era());
    assert!(t.rows >= 130, "logs with an embedded row: {}", t.rows);
    assert!(
        t.problems.is_empty(),
        "{summary}\n{} problems (log, column, ours, theirs):\n{}",
        t.problems.len(),
        t.problems.join("\n")
    );
}

/// An imported log's row in every command (history, compare, the site) is the row sbc-bench's
/// rules give for the log itself, cell for cell — not a recomputation from the converted
/// phases, which differs for clocks of many versions.
#[test]
fn an_imported_log_keeps_its_own_row() {
    let mut checked = 0;
    for (name, log) in parsed_logs() {
        if !truebench_sbcbench::import::is_sbc_bench_log(&log) {
            continue;
        }
        let doc = truebench_sbcbench::convert::to_run_result(&log, &name);
        let kept = truebench_sbcbench::from_result::row(doc.view());
        let own = results_row(&log);
        assert_eq!(kept.cells()[1..], own.cells()[1..], "{name}");
        assert_eq!(kept.throttled, own.throttled, "{name}");
        checked += 1;
    }
    assert!(checked > 250, "{checked} logs");
}
