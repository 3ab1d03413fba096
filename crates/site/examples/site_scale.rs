//! The site at a fleet's scale, for `bench/site_scale.sh`: builds the site of `N` generated
//! results into `DIR`, then adds one result and rebuilds, and prints what each took, how many
//! files the rebuild wrote, how many documents it read (those of the pages it made again: what
//! it needs of the others it kept, `.truebench-rows`) and the folder's bytes per result.
//!
//! `cargo run -p truebench-site --example site_scale -- N DIR`
//!
//! `… -- --history N DB` stores the same generated results 1..=N in the history DB (those it
//! does not hold yet), for timing `truebench site` itself, which reads every document.

#[path = "../tests/common/site_rows.rs"]
mod site_rows;

use std::time::Instant;

use truebench_site::{build_kept, build_over, kept, write, Kept, Options};

/// Store results 1..=n in the history `db` (the ones after those it holds).
fn history(n: usize, db: &std::path::Path) {
    let bases = site_rows::bases();
    let mut store = truebench_store::Store::open(db).unwrap_or_else(|e| panic!("{e}"));
    let have = store.count().unwrap_or_else(|e| panic!("{e}")) as usize;
    let t = Instant::now();
    for id in have + 1..=n {
        let s = site_rows::one(&bases, id as i64);
        let got = store.insert(&s.doc).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.id, id as i64, "{}: ids out of step", db.display());
    }
    println!(
        "stored results {}..={n} in {} in {:.2} s",
        have + 1,
        db.display(),
        t.elapsed().as_secs_f64()
    );
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--history") {
        let a: Vec<String> = std::env::args().skip(2).collect();
        let n = a.first().and_then(|a| a.parse().ok());
        match (n, a.get(1)) {
            (Some(n), Some(db)) => history(n, std::path::Path::new(db)),
            _ => panic!("usage: site_scale --history N DB"),
        }
        return;
    }
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .expect("usage: site_scale N DIR");
    let dir = std::path::PathBuf::from(args.next().expect("usage: site_scale N DIR"));
    let bases = site_rows::bases();
    let t = Instant::now();
    let mut results = site_rows::site_rows(&bases, n);
    println!(
        "generated {n} results in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let opts = Options {
        title: "fleet".into(),
        ..Options::default()
    };
    let t = Instant::now();
    let site = build_over(&results, &opts, &write::keys(&dir));
    let built = t.elapsed().as_secs_f64();
    let w = write::write(&site, &dir).unwrap_or_else(|e| panic!("{e}"));
    // What a build keeps of each result, as `truebench site` does (the digest stands for the
    // stored document's).
    let digest = |s: &truebench_site::Stored| format!("generated-{}", s.entry.id);
    let all: Vec<Kept> = results
        .iter()
        .map(|s| Kept::of(s.entry.id, &digest(s), &s.doc, &opts.published))
        .collect();
    kept::save(&dir, &kept::text(&all, &opts.published)).unwrap_or_else(|e| panic!("{e}"));
    drop(all);
    let total = t.elapsed().as_secs_f64();
    println!(
        "build: {total:.2} s ({built:.2} s making the files, {:.2} s writing {} files)",
        total - built,
        w.written.len()
    );
    let mut parts: std::collections::BTreeMap<&str, (usize, u64)> = Default::default();
    // The first build into an empty folder makes every file.
    for (path, bytes) in &site.files {
        let part = match path.split('/').collect::<Vec<_>>().as_slice() {
            ["assets", sub, _] => *sub,
            [dir, _] => *dir,
            _ => path.as_str(),
        };
        let e = parts.entry(part).or_default();
        e.0 += 1;
        e.1 += bytes.len() as u64;
    }
    println!(
        "folder: {} bytes, {} files, {:.0} bytes per result",
        w.bytes,
        site.files.len(),
        w.bytes as f64 / n as f64
    );
    for (part, (files, bytes)) in &parts {
        println!(
            "  {part}: {files} files, {bytes} bytes, {:.0} bytes per result",
            *bytes as f64 / n as f64
        );
    }
    // One more result, as `truebench site` sees it after a run: first in the list.
    results.insert(0, site_rows::one(&bases, n as i64 + 1));
    // Rebuilt as `truebench site` rebuilds: the kept rows read back, the new result's made
    // from its document, and a document asked for only for a page made again.
    let t = Instant::now();
    let mut before = kept::read(&dir, &opts.published).unwrap_or_else(|e| panic!("{e}"));
    let mut list = Vec::with_capacity(results.len());
    let mut loaded = 0;
    let mut fresh = std::collections::HashSet::new();
    for s in &results {
        match before.remove(&s.entry.id) {
            Some(k) if k.digest == digest(s) => list.push(k),
            _ => {
                loaded += 1;
                fresh.insert(s.entry.id);
                list.push(Kept::of(s.entry.id, &digest(s), &s.doc, &opts.published));
            }
        }
    }
    let read = t.elapsed().as_secs_f64();
    let mut load = |i: usize| {
        // A document read for its entry is at hand for its page (as `truebench site` keeps it).
        if !fresh.contains(&results[i].entry.id) {
            loaded += 1;
        }
        Ok(std::borrow::Cow::Borrowed(&results[i].doc))
    };
    let site =
        build_kept(&list, &opts, &write::keys(&dir), &mut load).unwrap_or_else(|e| panic!("{e}"));
    let built = t.elapsed().as_secs_f64();
    let w = write::write(&site, &dir).unwrap_or_else(|e| panic!("{e}"));
    kept::save(&dir, &kept::text(&list, &opts.published)).unwrap_or_else(|e| panic!("{e}"));
    let total = t.elapsed().as_secs_f64();
    println!(
        "rebuild after one new result: {total:.2} s ({read:.2} s reading the kept rows, {:.2} s making the files, {:.2} s writing), {loaded} documents read (the new one's and those of the pages made again), {} files rewritten, {} unchanged",
        built - read,
        total - built,
        w.written.len(),
        w.unchanged
    );
    let shown: Vec<&str> = w.written.iter().take(12).map(String::as_str).collect();
    println!(
        "  rewritten: {}{}",
        shown.join(" "),
        if w.written.len() > shown.len() {
            " …"
        } else {
            ""
        }
    );
    println!(
        "folder after: {} bytes, {:.0} bytes per result",
        w.bytes,
        w.bytes as f64 / (n + 1) as f64
    );
}
