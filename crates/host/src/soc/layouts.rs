//! Chips by core layout, from public sources (`data/layouts.tsv`): the device-tree CPU nodes
//! of Linux's SoC include files and hrw/arm-socs-table's cpuinfo captures. Layout matching
//! consults it so that "the only chip of this layout" means the only one any source knows,
//! not the only one the signature rules happen to hold.

use std::collections::BTreeMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../data/layouts.tsv");

/// One chip's layout: core type (lowercase) → count, None where the source gives the core
/// types but not how many of each.
#[derive(Debug)]
pub(super) struct Entry {
    pub vendor: String,
    pub chip: String,
    cores: BTreeMap<String, Option<usize>>,
}

/// Core type → count of a layout given as runs; runs of one type add up (the order of
/// clusters differs between sources).
fn tally<'a>(
    runs: impl Iterator<Item = (Option<usize>, &'a str)>,
) -> BTreeMap<String, Option<usize>> {
    let mut m: BTreeMap<String, Option<usize>> = BTreeMap::new();
    for (n, core) in runs {
        let e = m.entry(core.to_ascii_lowercase()).or_insert(Some(0));
        *e = match (*e, n) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
    m
}

/// Parse the table: `vendor<TAB>chip<TAB>layout<TAB>source`.
pub(super) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let bad = |what: &str| format!("data/layouts.tsv line {}: {what}", i + 1);
        if f.len() != 4 || f.iter().any(|x| x.trim().is_empty()) {
            return Err(bad("expected 4 non-empty tab-separated fields"));
        }
        let mut runs = Vec::new();
        for run in f[2].split('+') {
            let (n, core) = run
                .split_once('x')
                .ok_or_else(|| bad(&format!("run {run:?} lacks '<count>x'")))?;
            let n = match n {
                "*" => None,
                n => Some(
                    n.parse::<usize>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| bad(&format!("bad count {n:?}")))?,
                ),
            };
            runs.push((n, core));
        }
        out.push(Entry {
            vendor: f[0].to_string(),
            chip: f[1].to_string(),
            cores: tally(runs.into_iter()),
        });
    }
    Ok(out)
}

pub(super) fn table() -> &'static [Entry] {
    static T: OnceLock<Vec<Entry>> = OnceLock::new();
    // The unit test `layouts_table_parses` keeps the table clean.
    T.get_or_init(|| parse(TABLE).unwrap_or_default())
}

/// Every chip of the table whose layout fits the machine's (runs of identical core types
/// in CPU order, without revisions): the same core types, and the same count of each where
/// the source gives one.
pub(super) fn chips_with(runs: &[(usize, String)]) -> Vec<&'static Entry> {
    let seen = tally(runs.iter().map(|(n, c)| (Some(*n), c.as_str())));
    table()
        .iter()
        .filter(|e| {
            e.cores.len() == seen.len()
                && e.cores
                    .iter()
                    .all(|(core, n)| seen.get(core).is_some_and(|s| n.is_none() || *n == *s))
        })
        .collect()
}

/// A layout as it reads: `4 × Cortex-A55 + 4 × Cortex-A76`.
pub fn layout_text(runs: &[(usize, String)]) -> String {
    runs.iter()
        .map(|(n, c)| format!("{n} × {c}"))
        .collect::<Vec<_>>()
        .join(" + ")
}
