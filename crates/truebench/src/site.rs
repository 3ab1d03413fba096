//! `truebench site DIR`: the history as a static site (see the `truebench-site` crate).

use anyhow::Context;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct SiteArgs {
    /// The folder to write the site into (created when missing). Rebuilding over it replaces
    /// only what changed and never deletes a file an earlier build did not write.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub select: crate::history::Select,
    /// The index page's title.
    #[arg(long, value_name = "TEXT", default_value = "truebench results")]
    pub title: String,
    /// sbc-bench's published Results.md: where an imported log's published row differs from
    /// the row computed from the log, the site shows both.
    #[arg(long, value_name = "FILE")]
    pub results_md: Option<PathBuf>,
    /// History database (default $XDG_DATA_HOME/truebench/history.sqlite).
    /// A postgresql://USER@HOST/DB URL uses that PostgreSQL database instead.
    #[arg(long, value_name = "PATH|URL", env = "TRUEBENCH_DB")]
    pub db: Option<PathBuf>,
}

/// How many documents read for their rows are held for their pages: all of a rebuild's few new
/// ones; a first build's thousands are read again, one page at a time.
const FRESH_HELD: usize = 256;

pub fn run(args: SiteArgs) -> anyhow::Result<i32> {
    let t0 = std::time::Instant::now();
    let published = match &args.results_md {
        Some(p) => {
            let bytes = crate::files::read_input(p)
                .with_context(|| format!("reading {}", p.display()))?;
            let rows =
                truebench_sbcbench::row::parse_results_md(&String::from_utf8_lossy(&bytes));
            if rows.is_empty() {
                anyhow::bail!(
                    "{}: no Results.md table row linking a log (`| [Device](results/NAME.txt) | … |`)",
                    p.display()
                );
            }
            rows
        }
        None => Vec::new(),
    };
    // What the last build kept of each result (only the documents that are new or changed
    // since are read whole, and those of the pages made again), read beside the history's
    // list: a fleet's kept rows are hundreds of MB, its list an index scan.
    let (listing, kept_read) = std::thread::scope(|s| {
        let reading = s.spawn(|| truebench_site::kept::read(&args.dir, &published));
        let listing = (|| -> anyhow::Result<_> {
            let store = crate::report::open_db_read(args.db.as_deref())?;
            // Each listed result with its stored document's digest: one indexed query, no
            // document.
            let listed = store.keys(&args.select.filter()?)?;
            Ok((store, listed))
        })();
        let read = reading
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (listing, read)
    });
    let (store, listed) = listing?;
    if listed.is_empty() {
        anyhow::bail!(
            "no stored result matches in {} (store results with `truebench run`, `truebench import LOG…`)",
            store.path()
        );
    }
    let mut before = kept_read.unwrap_or_else(|why| {
        errln!("truebench: warning: {why}; every result's document is read again");
        Default::default()
    });
    // Once more from the history alone when a kept row turns out unreadable.
    let mut again = false;
    let (kept, site, w, read, skipped, changed) = loop {
        let had = before.len();
        let mut kept = Vec::with_capacity(listed.len());
        let mut fresh = std::collections::HashMap::new();
        let mut skipped = 0;
        let mut read = 0;
        // Results made anew whose documents were not held for their pages.
        let mut made = 0;
        for (id, digest) in &listed {
            match before.remove(id) {
                Some(k) if k.digest == *digest => kept.push(*k),
                _ => {
                    read += 1;
                    match store.get(*id) {
                        Ok(Some(doc)) => {
                            kept.push(truebench_site::Kept::of(*id, digest, &doc, &published));
                            // Held for its page up to a bound: a first build of a fleet reads
                            // each document again for its page rather than hold them all.
                            if fresh.len() < FRESH_HELD {
                                fresh.insert(*id, doc);
                            } else {
                                made += 1;
                            }
                        }
                        Ok(None) => {}
                        Err(e) => {
                            errln!("truebench: warning: result #{id} left out of the site: {e}");
                            skipped += 1;
                        }
                    }
                }
            }
        }
        // The list is written again when a result was made anew, or one it held is gone.
        let changed = made > 0 || !fresh.is_empty() || !before.is_empty() || had != kept.len();
        let mut load = |i: usize| {
            let id = kept[i].id;
            if let Some(doc) = fresh.get(&id) {
                return Ok(std::borrow::Cow::Borrowed(doc));
            }
            read += 1;
            match store.get(id) {
                Ok(Some(doc)) => Ok(std::borrow::Cow::Owned(doc)),
                Ok(None) => Err(format!("no longer in {}", store.path())),
                Err(e) => Err(e.to_string()),
            }
        };
        // The pages the last build made from the same inputs are kept, not made again; the
        // others are written as they are made.
        match truebench_site::build_to(
            &kept,
            &truebench_site::Options {
                title: args.title.clone(),
                published: published.clone(),
            },
            &args.dir,
            &mut load,
        ) {
            // A kept row that cannot be read whole (its brief part could): everything is made
            // anew from the history, once, and the kept files are written again.
            Err(truebench_site::BuildError::Load(e)) if e.kept && !again => {
                errln!("truebench: warning: {e}; every result's document is read again");
                before = Default::default();
                again = true;
            }
            built => {
                let (site, w) = built?;
                break (kept, site, w, read, skipped, changed);
            }
        }
    };
    if changed {
        // The site is whole without it: what is not kept costs the next build time only.
        if let Err(e) = truebench_site::kept::save(&args.dir, &kept, &published) {
            errln!("truebench: warning: {e}");
        }
    }
    let results = kept;
    outln!(
        "{}: {} result{}, {} files, {:.1} MB ({} written, {} unchanged, {} removed{}; {} document{} read) in {:.1} s — open {}",
        args.dir.display(),
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        site.files + site.reused.len(),
        w.bytes as f64 / 1e6,
        w.written.len(),
        w.unchanged,
        w.removed.len(),
        if w.kept.is_empty() {
            String::new()
        } else {
            format!(
                "; kept {} changed since the last build: {}",
                w.kept.len(),
                w.kept.join(", ")
            )
        },
        read,
        if read == 1 { "" } else { "s" },
        t0.elapsed().as_secs_f64(),
        args.dir.join("index.html").display()
    )?;
    // The process ends with this command: a fleet's entries, keys and listing (millions of
    // allocations, a few tenths of a second to free one by one) go back with it at once.
    std::mem::forget((results, site, listed));
    Ok(if skipped > 0 { crate::exit::ERROR } else { 0 })
}
