//! The site at a fleet's scale, for `bench/site_scale.sh`: builds the site of `N` generated
//! results into `DIR`, then adds one result and rebuilds, and prints what each took, how many
//! files the rebuild wrote, how many documents it read (those of the pages it made again: what
//! it needs of the others it kept, `.truebench-rows`) and the folder's bytes per result.
//!
//! `cargo run -p truebench-site --example site_scale -- N DIR`
//!
//! `… -- --rebuild DIR` rebuilds the site in DIR with one result more than it holds.
//!
//! `… -- --history N DB` stores the same generated results 1..=N in the history DB (those it
//! does not hold yet), for timing `truebench site` itself, which reads every document.

#[path = "../tests/common/site_rows.rs"]
#[allow(dead_code)] // the tests use all of it, this example one part
mod site_rows;

use std::time::Instant;

use std::borrow::Cow;

use truebench_site::{build_to, kept, Kept, Options};

/// Store results 1..=n in the history `db` (the ones after those it holds).
fn history(n: usize, db: &std::path::Path) {
    let bases = site_rows::bases();
    let mut store = truebench_store::Store::open(db).unwrap_or_else(|e| die(e));
    let have = store.count().unwrap_or_else(|e| die(e)) as usize;
    let t = Instant::now();
    for id in have + 1..=n {
        let s = site_rows::one(&bases, id as i64);
        let got = store.insert(&s.doc).unwrap_or_else(|e| die(e));
        if got.id != id as i64 {
            die(format!(
                "{}: stored as #{} where #{id} was next: the history holds other results",
                db.display(),
                got.id
            ));
        }
    }
    println!(
        "stored results {}..={n} in {} in {:.2} s",
        have + 1,
        db.display(),
        t.elapsed().as_secs_f64()
    );
}

/// The ways to run it, on standard error, and exit 2 (bad arguments).
fn usage() -> ! {
    eprintln!(
        "usage: site_scale N DIR | site_scale --rebuild DIR | site_scale --history N DB\n\
         (N: how many generated results, a whole number)"
    );
    std::process::exit(2)
}

/// What went wrong, on standard error, and exit 1.
fn die(e: impl std::fmt::Display) -> ! {
    eprintln!("site_scale: {e}");
    std::process::exit(1)
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--history") {
        let a: Vec<String> = std::env::args().skip(2).collect();
        let n = a.first().and_then(|a| a.parse().ok());
        match (n, a.get(1)) {
            (Some(n), Some(db)) => history(n, std::path::Path::new(db)),
            _ => usage(),
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("--rebuild") {
        // The site in DIR again, with one result more than it holds.
        let dir = std::path::PathBuf::from(std::env::args().nth(2).unwrap_or_else(|| usage()));
        let opts = Options {
            title: "fleet".into(),
            ..Options::default()
        };
        let held = kept::read(&dir, &opts.published).unwrap_or_else(|e| die(e));
        let Some(&last) = held.keys().next_back() else {
            die(format!(
                "{}: nothing kept there (build it first: site_scale N DIR)",
                dir.display()
            ));
        };
        let n = last as usize;
        drop(held);
        rebuild(&dir, n, &site_rows::bases(), &opts);
        return;
    }
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| usage());
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| usage()));
    let bases = site_rows::bases();
    let opts = Options {
        title: "fleet".into(),
        ..Options::default()
    };
    // What a build keeps of each result, as `truebench site` does (the digest stands for the
    // stored document's). Each document is made when asked for and dropped, as `truebench
    // site` reads one from the history: a fleet's documents do not fit in memory.
    let digest = |id: i64| format!("generated-{id}");
    let t = Instant::now();
    // Newest first, the order `truebench site` gets them in from the store.
    let all: Vec<Kept> = (1..=n as i64)
        .rev()
        .map(|id| {
            Kept::of(
                id,
                &digest(id),
                &site_rows::one(&bases, id).doc,
                &opts.published,
            )
        })
        .collect();
    println!(
        "generated {n} results and their rows in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let mut load = |i: usize| Ok(Cow::Owned(site_rows::one(&bases, all[i].id).doc));
    let (made, w) = build_to(&all, &opts, &dir, &mut load).unwrap_or_else(|e| die(e));
    kept::save(&dir, &all, &opts.published).unwrap_or_else(|e| die(e));
    println!(
        "build: {:.2} s (each document made again for its page, {} files made and written as made), peak memory {} MiB",
        t.elapsed().as_secs_f64(),
        w.written.len(),
        peak_mib()
    );
    let mut parts: std::collections::BTreeMap<&str, (usize, u64)> = Default::default();
    // The first build into an empty folder writes every file.
    for path in &w.written {
        let part = match path.split('/').collect::<Vec<_>>().as_slice() {
            ["assets", sub, _] => *sub,
            [dir, _] => *dir,
            _ => path.as_str(),
        };
        let bytes = std::fs::metadata(dir.join(path)).map_or(0, |m| m.len());
        let e = parts.entry(part).or_default();
        e.0 += 1;
        e.1 += bytes;
    }
    println!(
        "folder: {} bytes, {} files, {:.0} bytes per result",
        w.bytes,
        made.files,
        w.bytes as f64 / n as f64
    );
    for (part, (files, bytes)) in &parts {
        println!(
            "  {part}: {files} files, {bytes} bytes, {:.0} bytes per result",
            *bytes as f64 / n as f64
        );
    }
    drop(all);
    rebuild(&dir, n, &bases, &opts);
}

/// One more result than the `n` the site in `dir` holds, as `truebench site` sees it after a
/// run: first in the list. Rebuilt as `truebench site` rebuilds: the kept rows read back, the
/// new result's made from its document, and a document asked for only for a page made again.
fn rebuild(dir: &std::path::Path, n: usize, bases: &[truebench_model::Document], opts: &Options) {
    let digest = |id: i64| format!("generated-{id}");
    let t = Instant::now();
    let mut before = kept::read(dir, &opts.published).unwrap_or_else(|e| die(e));
    let mut list = Vec::with_capacity(n + 1);
    let mut loaded = 0;
    let mut fresh = std::collections::HashMap::new();
    for id in (1..=n as i64 + 1).rev() {
        match before.remove(&id) {
            Some(k) if k.digest == digest(id) => list.push(*k),
            _ => {
                loaded += 1;
                let doc = site_rows::one(bases, id).doc;
                list.push(Kept::of(id, &digest(id), &doc, &opts.published));
                fresh.insert(id, doc);
            }
        }
    }
    let read = t.elapsed().as_secs_f64();
    let mut load = |i: usize| {
        // A document read for its entry is at hand for its page (as `truebench site` keeps it).
        let id = list[i].id;
        Ok(match fresh.get(&id) {
            Some(doc) => Cow::Borrowed(doc),
            None => {
                loaded += 1;
                Cow::Owned(site_rows::one(bases, id).doc)
            }
        })
    };
    let (_, w) = build_to(&list, opts, dir, &mut load).unwrap_or_else(|e| die(e));
    let built = t.elapsed().as_secs_f64();
    kept::save(dir, &list, &opts.published).unwrap_or_else(|e| die(e));
    let total = t.elapsed().as_secs_f64();
    println!(
        "rebuild after one new result: {total:.2} s ({read:.2} s reading the kept rows, {:.2} s making and writing the files, {:.2} s saving the rows), {loaded} documents read (the new one's and those of the pages made again), {} files rewritten, {} unchanged",
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

/// This process's peak resident memory, MiB, read through `Host` like every other file.
fn peak_mib() -> u64 {
    truebench_host::Host::live().own_peak_kib().unwrap_or(0) / 1024
}
