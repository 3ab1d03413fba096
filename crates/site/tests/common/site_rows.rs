//! A fleet's history for the site at scale: `n` stored results made from the corpus's
//! sbc-bench logs (each log parsed once), each a copy with its own id, device (a board of the
//! log's SoC, numbered, a few hundred results each), kernel release and date (one result an
//! hour or so, spread over years, in id order). Shared by the site's scale tests and
//! `bench/site_scale.sh` (the `site_scale` example).

use std::collections::BTreeMap;

use truebench_model::Stamp;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;
use truebench_site::Stored;
use truebench_store::Entry;

/// Results per generated board (its number repeats this many times over the history).
pub const PER_BOARD: u64 = 300;

/// The corpus's logs as documents, once: the bases every generated result copies.
pub fn bases() -> Vec<truebench_model::Document> {
    truebench_fixtures::sbc_bench::logs()
        .iter()
        .map(|(name, text)| to_run_result(&parse(text), name).into_document())
        .collect()
}

/// The stored result with id `id` (from 1) built on `bases`.
pub fn one(bases: &[truebench_model::Document], id: i64) -> Stored {
    let k = id as u64;
    // A cheap mix of the id so neighbours differ in every field.
    let h = k.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    let base = (h % bases.len() as u64) as usize;
    let mut doc = bases[base].clone();
    let board = (k / PER_BOARD) * 7 + (h >> 40) % 7;
    let e = &mut doc.envelope;
    let device = format!(
        "{} #{board}",
        e.inventory.device.as_deref().unwrap_or("board").trim()
    );
    e.inventory.device = Some(device);
    e.hostname = Some(format!("node-{board}"));
    let minor = 1 + (h >> 8) % 12;
    e.inventory.kernel.release = Some(format!("6.{minor}.{}-fleet", (h >> 16) % 40));
    // From 2021-01-01, about 47 minutes apart: 10^5 results span about 9 years.
    let ms = 1_609_459_200_000 + id * 2_837_000 + (h % 600_000) as i64;
    e.started = Stamp::from_unix_ms(ms);
    e.ended = Stamp::from_unix_ms(ms + 600_000);
    stored_log(id, doc, &format!("fleet-{id}.txt"))
}

/// `n` results, ids 1..=n, newest first (the order `truebench site` gets them from the store).
pub fn site_rows(bases: &[truebench_model::Document], n: usize) -> Vec<Stored> {
    (1..=n as i64).rev().map(|id| one(bases, id)).collect()
}

/// An imported sbc-bench log's document as the history lists it: its entry holds the
/// document's own kind, start, names and verdicts.
pub fn stored_log(id: i64, doc: truebench_model::Document, name: &str) -> Stored {
    let e = &doc.envelope;
    Stored {
        entry: Entry {
            id,
            kind: doc.kind().to_string(),
            started_unix_ms: e.started.unix_ms,
            started_utc: e.started.utc.clone(),
            device: e.inventory.device.clone(),
            soc: e.inventory.soc.as_ref().map(|s| s.name.clone()),
            hostname: e.hostname.clone(),
            mode: String::new(),
            valid: e.valid,
            complete: e.complete,
            source: "sbc-bench".into(),
            source_name: Some(name.to_string()),
            metrics: BTreeMap::new(),
        },
        doc,
    }
}
