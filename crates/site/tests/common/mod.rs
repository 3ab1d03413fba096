//! What the site's tests share: imported sbc-bench logs as stored results. Each test file
//! uses part of it.
#![allow(dead_code)]

use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;
use truebench_site::Stored;

pub mod site_rows;

/// `(name, text)` logs as stored results, ids from 1 in the given order.
pub fn stored(logs: &[(String, String)]) -> Vec<Stored> {
    logs.iter()
        .enumerate()
        .map(|(i, (name, text))| {
            let doc = to_run_result(&parse(text), name).into_document();
            site_rows::stored_log(i as i64 + 1, doc, name)
        })
        .collect()
}

/// The named logs of the repository's corpus as stored results, in the given order.
pub fn stored_named(names: &[&str]) -> Vec<Stored> {
    let all = truebench_fixtures::sbc_bench::logs();
    let picked: Vec<(String, String)> = names
        .iter()
        .map(|n| {
            all.iter()
                .find(|(x, _)| x == n)
                .cloned()
                .unwrap_or_else(|| panic!("no log {n}"))
        })
        .collect();
    stored(&picked)
}
