//! `truebench site DIR`: every stored result as a static site — one folder that works from
//! `file://` and from any plain web server, with nothing loaded from outside it:
//!
//! - `index.html`: every result in one table (the Results.md columns and the evidence's),
//!   sortable and filterable, the view's state in the address (`#sort=aes:desc&soc=RK3588`).
//!   The page holds the newest [`index::IN_PAGE`] rows as a plain table (readable without
//!   script); the script loads every row from `assets/rows/` shards into a column store and
//!   shows them in a virtualised table (only the rows in view are in the page);
//! - `r/<id>.html`: the result's report page (every kind), linked back and to the results of
//!   the same device and SoC;
//! - `soc/<name>.html`: the results of one chip — the chip a result names (device tree,
//!   cpuinfo, a chip ID, the x86 model name) or a core layout no other known chip has, with
//!   the vendor agreeing — each headline score across boards, and what explains the spread.
//!   Variants of one die (RK3588S, RK3588S2) share their chip's page, noted there; a result
//!   that names no chip (a layout several chips share, a vendor, another tool's guess) is
//!   listed under "Unidentified" in the index with its answer and cores, never dropped;
//! - `compare.html#ids=3,7`: two to four results side by side with `compare`'s differences
//!   and every reason the comparison is unfair;
//! - `assets/`: the stylesheets, the script, and the results' data as shards of [`shards::SHARD`]
//!   ids (`rows/` for the index, `detail/` for compare), so one new result changes one shard.
//!
//! [`build`] makes the files in memory (pure: same input, same bytes); [`write::write`] puts
//! them in the folder, replacing only what changed and never deleting a file it did not write.
//! [`build_to`] does both a file at a time (a fleet's pages do not fit in memory).

mod charts;
mod compare;
mod index;
pub mod kept;
mod par;
mod row;
pub mod shards;
mod soc;
pub mod write;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;

use sha2::{Digest, Sha256};

use truebench_model::Document;
use truebench_sbcbench::row::MarkdownRow;
use truebench_store::Entry;

pub use index::{COLUMNS, IN_PAGE};
pub use kept::Kept;
pub use row::Row;

/// One stored result: its history entry and its document.
pub struct Stored {
    pub entry: Entry,
    pub doc: Document,
}

/// A result's document could not be read for its page, or (`kept`) its kept row could not
/// be read whole ([`Kept::row`]): the caller can build again with that result made anew.
#[derive(Debug, thiserror::Error)]
#[error("result #{id}: {reason}")]
pub struct LoadError {
    pub id: i64,
    pub reason: String,
    /// The kept row, not the document, could not be read.
    pub kept: bool,
}

/// How the site is built.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The index page's title.
    pub title: String,
    /// The rows of a published Results.md: each imported log's published row is shown beside
    /// the row computed from the log where they differ.
    pub published: Vec<MarkdownRow>,
}

/// The site's files: path relative to the folder → content.
#[derive(Debug, Clone, Default)]
pub struct Site {
    pub files: BTreeMap<String, Vec<u8>>,
    /// The input key of each file made from rows (result pages, shards, SoC pages, standing
    /// files): a digest of everything it is made from (the truebench version, the title, its
    /// rows as made and what the build adds to them, a page's neighbours' links).
    pub keys: BTreeMap<String, String>,
    /// Files not made again because the last build made them from the same inputs (kept in
    /// the folder as they are).
    pub reused: BTreeSet<String>,
}

pub(crate) const SITE_CSS: &str = include_str!("assets/site.css");
pub(crate) const SITE_JS: &str = include_str!("assets/site.js");
pub(crate) const STANDING_JS: &str = include_str!("assets/standing.js");

/// `s` cut to `n` characters with an ellipsis.
pub(crate) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() > n {
        let t: String = s.chars().take(n - 1).collect();
        format!("{}…", t.trim_end())
    } else {
        s.to_string()
    }
}

/// Escape text for HTML.
pub(crate) fn esc(s: &str) -> String {
    truebench_render::report::svg::esc(s)
}

/// The head every site page (but the result pages, which the report frames) shares.
pub(crate) fn head(title: &str, up: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><link rel=\"stylesheet\" href=\"{up}assets/report.css\"><link rel=\"stylesheet\" href=\"{up}assets/site.css\"></head><body><main>",
        esc(title)
    )
}

pub(crate) fn foot(up: &str, scripts: bool) -> String {
    let s = if scripts {
        format!("<script src=\"{up}assets/site.js\"></script>")
    } else {
        String::new()
    };
    format!(
        "<footer>truebench {} · a static site: nothing is loaded from outside its folder.</footer></main>{s}</body></html>\n",
        esc(env!("CARGO_PKG_VERSION"))
    )
}

/// The site's navigation bar; `up` leads from the page to the folder (`../`).
pub(crate) fn nav(up: &str, title: &str, extra: &str) -> String {
    format!(
        "<nav class=\"site\"><a href=\"{up}index.html\">{}</a> · <a href=\"{up}index.html#view=socs\">SoCs</a> · <a href=\"{up}compare.html\">Compare</a>{extra}</nav>",
        esc(title)
    )
}

/// A SoC's page name: lower case letters, digits and dashes (`rockchip-rk3588`).
pub(crate) fn slug(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            o.push(c.to_ascii_lowercase());
        } else if !o.ends_with('-') && !o.is_empty() {
            o.push('-');
        }
    }
    let o = o.trim_end_matches('-').to_string();
    if o.is_empty() {
        "unknown".into()
    } else {
        o
    }
}

/// Build every file of the site from the stored results (newest first is the index's order
/// until the reader sorts it).
pub fn build(results: &[Stored], opts: &Options) -> Site {
    build_over(results, opts, &BTreeMap::new())
}

/// [`build`], but a result page whose input key is the one in `previous` (the last build's,
/// [`write::keys`]) is not made again: it is listed in [`Site::reused`] and its file kept. A
/// new result then costs its own page, its shard, the index and the pages it changes.
pub fn build_over(results: &[Stored], opts: &Options, previous: &BTreeMap<String, String>) -> Site {
    let kept: Vec<Kept> = results
        .iter()
        .map(|s| Kept::of(s.entry.id, "", &s.doc, &opts.published))
        .collect();
    let mut at_hand = |i: usize| Ok(Cow::Borrowed(&results[i].doc));
    match build_kept(&kept, opts, previous, &mut at_hand) {
        Ok(site) => site,
        Err(e) => unreachable!("every document is at hand: {e}"),
    }
}

/// [`build_over`] from what the site keeps of each result ([`Kept`]: its row, facts and
/// figures, [`kept::read`] between builds), without the documents: `load(i)` gives the
/// document of `kept[i]` for the pages made again, and is asked for no other.
pub fn build_kept<'d>(
    kept: &[Kept],
    opts: &Options,
    previous: &BTreeMap<String, String>,
    load: &mut dyn FnMut(usize) -> Result<Cow<'d, Document>, String>,
) -> Result<Site, LoadError> {
    let mut files = BTreeMap::new();
    let made = build_into(kept, opts, previous, load, &mut |rel, bytes| {
        files.insert(rel.to_string(), bytes.to_vec());
        Ok(())
    });
    match made {
        Ok(m) => Ok(Site {
            files,
            keys: m.keys,
            reused: m.reused,
        }),
        Err(BuildError::Load(e)) => Err(e),
        Err(BuildError::Write(e)) => unreachable!("kept in memory: {e}"),
    }
}

/// [`build_kept`] written into the folder `dir` as each file is made ([`write::Writer`]):
/// only the changed files, never more than one page in memory — a fleet's pages do not fit
/// in it. The files whose inputs are those of the last build in `dir` are kept.
pub fn build_to<'d>(
    kept: &[Kept],
    opts: &Options,
    dir: &std::path::Path,
    load: &mut dyn FnMut(usize) -> Result<Cow<'d, Document>, String>,
) -> Result<(Made, write::Written), BuildError> {
    let (previous, sizes) = write::previous(dir);
    let mut w = write::Writer::open(dir)?;
    let made = build_into(kept, opts, &previous, load, &mut |rel, bytes| {
        w.file(rel, bytes)
    })?;
    let written = w.finish_known(&made.reused, &made.keys, &sizes)?;
    Ok((made, written))
}

/// What a build made besides its files.
#[derive(Debug, Clone, Default)]
pub struct Made {
    /// As [`Site::keys`].
    pub keys: BTreeMap<String, String>,
    /// As [`Site::reused`].
    pub reused: BTreeSet<String>,
    /// How many files it made (the reused ones not counted).
    pub files: usize,
}

/// A build stopped: a document could not be read, or a file not written.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Write(#[from] write::SiteError),
}

/// Where a build's files go: path relative to the folder, bytes.
type Out<'a> = dyn FnMut(&str, &[u8]) -> Result<(), write::SiteError> + 'a;

/// The build: each file handed to `out` as it is made (path relative to the folder, bytes).
fn build_into<'d>(
    kept: &[Kept],
    opts: &Options,
    previous: &BTreeMap<String, String>,
    load: &mut dyn FnMut(usize) -> Result<Cow<'d, Document>, String>,
    out: &mut Out<'_>,
) -> Result<Made, BuildError> {
    let mut files = 0;
    let mut out = |rel: &str, bytes: &[u8]| {
        files += 1;
        out(rel, bytes)
    };
    let title = if opts.title.trim().is_empty() {
        "truebench results".to_string()
    } else {
        opts.title.clone()
    };
    // What this build adds to each kept row, beside it: a fleet's rows are not copied to add
    // it (a rebuild after one new result makes a handful of files, and only their rows are
    // put together whole, by `full`).
    //
    // One chip spelt in two cases, or with and without its remark ("Amlogic S905" and
    // "Amlogic S905 (GXBB)"), is one chip: named by its longest spelling on every page and
    // filter.
    let mut longest: HashMap<String, &str> = HashMap::default();
    let mut spelt: HashMap<&str, &str> = HashMap::default();
    for s in kept.iter().filter_map(|k| k.brief.soc.as_deref()) {
        if spelt.insert(s, s).is_none() {
            let e = longest.entry(soc::chip_key(s)).or_insert(s);
            if s.len() > e.len() {
                *e = s;
            }
        }
    }
    for (s, name) in spelt.iter_mut() {
        *name = longest[&soc::chip_key(s)];
    }
    let hrefs: HashMap<&str, String> = longest
        .values()
        .map(|&name| (name, format!("soc/{}.html", slug(name))))
        .collect();
    let named: Vec<Named> = kept
        .iter()
        .map(|k| {
            let soc = k.brief.soc.as_deref().map(|s| spelt[s]);
            Named {
                row: &k.brief,
                soc,
                soc_href: soc.map(|n| hrefs[n].as_str()),
            }
        })
        .collect();
    // Each result against its machine's previous one, and where it stands among the site's
    // results of its SoC and tool versions (both in time that grows with the history, not
    // with its square).
    let facts: Vec<&truebench_store::facts::Facts> = kept.iter().map(|k| &k.facts).collect();
    let figures: Vec<&[kept::BriefFigure]> =
        kept.iter().map(|k| k.brief.figures.as_slice()).collect();
    // The two are independent: side by side on two CPUs.
    let (judged, standing) = std::thread::scope(|s| {
        let judged = s.spawn(|| truebench_store::regress::judge_all_of(&facts, &figures));
        let standing = truebench_store::standing::ranks_of(&facts, &figures);
        let judged = judged
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (judged, standing)
    });
    let mut regressions: Vec<Vec<String>> = vec![Vec::new(); kept.len()];
    for (i, j) in judged {
        let base = format!("#{}", kept[j.baseline].id);
        regressions[i] = j.findings(&base).into_iter().map(|f| f.message).collect();
    }
    // A row as this build shows it, put together for a file made again.
    let full = |i: usize| -> Result<Row, LoadError> {
        let mut r = kept[i]
            .row()
            .map_err(|reason| LoadError {
                id: kept[i].id,
                reason,
                kept: true,
            })?
            .into_owned();
        r.soc = named[i].soc.map(str::to_string);
        r.soc_href = named[i].soc_href.map(str::to_string);
        r.regressions = regressions[i].clone();
        r.standing = standing
            .standing(i, figures[i])
            .iter()
            .map(|x| x.text())
            .collect();
        Ok(r)
    };
    let fulls =
        |list: &[usize]| -> Result<Vec<Row>, LoadError> { list.iter().map(|&i| full(i)).collect() };
    let mut keys = BTreeMap::new();
    let mut reused = BTreeSet::new();
    // Every file goes through here. One made from rows has an input key of those rows (their
    // `row_key`s and what this build adds to them): when it is the last build's key, the file
    // is kept, neither made nor read.
    let mut put = |path: String,
                   key: Option<String>,
                   make: &mut dyn FnMut() -> Result<String, BuildError>|
     -> Result<(), BuildError> {
        match key {
            Some(key) if previous.get(&path) == Some(&key) => {
                reused.insert(path.clone());
                keys.insert(path, key);
            }
            key => {
                out(&path, make()?.as_bytes())?;
                if let Some(key) = key {
                    keys.insert(path, key);
                }
            }
        }
        Ok(())
    };
    for (path, text) in [
        ("assets/report.css", truebench_render::report::CSS),
        ("assets/site.css", SITE_CSS),
        ("assets/site.js", SITE_JS),
        ("assets/standing.js", STANDING_JS),
    ] {
        put(path.into(), None, &mut || Ok(text.to_string()))?;
    }
    let mut by_shard: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, k) in kept.iter().enumerate() {
        by_shard.entry(shards::shard_of(k.id)).or_default().push(i);
    }
    for list in by_shard.values_mut() {
        list.sort_by_key(|&i| kept[i].id);
    }
    type ShardJs = fn(i64, &[&Row]) -> String;
    const SHARD_FILES: [(&str, ShardJs); 2] =
        [("rows", shards::rows_js), ("detail", shards::detail_js)];
    // The input keys first, on every CPU (each covers its shard's rows), then the files.
    let shard_list: Vec<(i64, &Vec<usize>)> = by_shard.iter().map(|(k, l)| (*k, l)).collect();
    let shard_keys = par::map(shard_list.len() * SHARD_FILES.len(), 1, |j| {
        let (list, what) = (shard_list[j / 2].1, SHARD_FILES[j % 2].0);
        let mut key = Key::new(&title, what);
        for &i in list.iter() {
            key.row(&kept[i], &named[i], &regressions[i]);
        }
        key.done()
    });
    let mut shard_keys = shard_keys.into_iter();
    for &(k, list) in &shard_list {
        // The shard's two files made again share its rows, put together once.
        let rows = std::cell::OnceCell::new();
        for (what, make) in SHARD_FILES {
            let key = shard_keys.next();
            put(
                format!("assets/{what}/{}", shards::file(k)),
                key,
                &mut || Ok(make(k, &once(&rows, || fulls(list))?)),
            )?;
        }
    }
    let shard_ids: Vec<i64> = by_shard.keys().copied().collect();
    put("index.html".into(), None, &mut || {
        Ok(index::page(&title, &named, &shard_ids, &full)?)
    })?;
    put("compare.html".into(), None, &mut || {
        Ok(compare::page(&title))
    })?;
    // Each result's neighbours on its device's list (in the history's order), found once.
    let mut by_device: HashMap<&str, Vec<usize>> = HashMap::default();
    let mut place = Vec::with_capacity(kept.len());
    for (i, k) in kept.iter().enumerate() {
        let list = by_device.entry(k.brief.device.as_str()).or_default();
        place.push(list.len());
        list.push(i);
    }
    // Each result page's neighbours and input key, on every CPU: a fleet's hundred thousand
    // keys are most of a rebuild's work when it makes a handful of files.
    let pages = par::map(kept.len(), 256, |i| {
        let k = &kept[i];
        let same = &by_device[k.brief.device.as_str()];
        let at = place[i];
        let from = at
            .saturating_sub(row::RELATED / 2)
            .min(same.len().saturating_sub(row::RELATED + 1));
        let near: Vec<usize> = same[from..]
            .iter()
            .copied()
            .filter(|&j| j != i)
            .take(row::RELATED)
            .collect();
        // What the page is made from: the row, its neighbours' links, and what the report
        // shows beyond the row (its phases, findings and timeline, by size). Not its standing:
        // the page loads it from its SoC's standing file.
        let mut key = Key::new(&title, "result page");
        key.row(k, &named[i], &regressions[i]);
        let mut part = Vec::new();
        let mut id = itoa::Buffer::new();
        for &j in &near {
            // `{id} {label}`.
            part.clear();
            part.extend_from_slice(id.format(kept[j].id).as_bytes());
            part.push(b' ');
            part.extend_from_slice(kept[j].brief.label.as_bytes());
            key.part(&part);
        }
        key.part(k.page.as_bytes());
        (near, key.done())
    });
    for (i, (near, key)) in pages.into_iter().enumerate() {
        let k = &kept[i];
        put(format!("r/{}.html", k.id), Some(key), &mut || {
            let doc = load(i).map_err(|reason| LoadError {
                id: k.id,
                reason,
                kept: false,
            })?;
            let near = fulls(&near)?;
            let near: Vec<&Row> = near.iter().collect();
            Ok(row::result_page(&title, &doc, &full(i)?, &near))
        })?;
    }
    let mut members: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, n) in named.iter().enumerate() {
        if let Some(name) = n.soc {
            members.entry(name).or_default().push(i);
        }
    }
    // Each SoC's standing file and page: their input keys on every CPU, then the files.
    let members: Vec<(&str, Vec<usize>)> = members.into_iter().collect();
    let soc_keys = par::map(members.len(), 1, |m| {
        let list = &members[m].1;
        // The standing of each member, as found (its text is made of these).
        let mut key = Key::new(&title, "standing");
        for &i in list {
            key.part(&kept[i].id.to_le_bytes());
            key.part(&standing.of[i].len().to_le_bytes());
            for x in &standing.of[i] {
                let f = &figures[i][x.figure];
                key.part(f.key.as_bytes());
                key.part(f.unit.as_deref().unwrap_or("\0").as_bytes());
                key.part(&x.value.to_bits().to_le_bytes());
                key.part(&x.percentile.to_bits().to_le_bytes());
                key.part(&x.of.to_le_bytes());
                key.part(standing.groups[x.group].as_bytes());
            }
        }
        let standing_key = key.done();
        let mut key = Key::new(&title, members[m].0);
        for &i in list {
            key.row(&kept[i], &named[i], &regressions[i]);
        }
        (standing_key, key.done())
    });
    for ((name, list), (standing_key, page_key)) in members.iter().zip(soc_keys) {
        let href = hrefs[name].clone();
        // Its standing file and page made again share its rows, put together once.
        let rows = std::cell::OnceCell::new();
        put(
            shards::standing_file(&href),
            Some(standing_key),
            &mut || Ok(shards::standing_js(&once(&rows, || fulls(list))?)),
        )?;
        put(href, Some(page_key), &mut || {
            Ok(soc::page(&title, name, &once(&rows, || fulls(list))?))
        })?;
    }
    Ok(Made {
        keys,
        reused,
        files,
    })
}

/// The rows in `cell`, put together by `make` the first time they are asked for.
fn once(
    cell: &std::cell::OnceCell<Vec<Row>>,
    make: impl FnOnce() -> Result<Vec<Row>, LoadError>,
) -> Result<Vec<&Row>, LoadError> {
    if cell.get().is_none() {
        let _ = cell.set(make()?);
    }
    Ok(cell.get().map(|r| r.iter().collect()).unwrap_or_default())
}

/// A kept row as this build names its SoC: by the longest spelling of its chip, and that
/// chip's page.
#[derive(Clone, Copy)]
pub(crate) struct Named<'a> {
    pub row: &'a kept::Brief,
    pub soc: Option<&'a str>,
    pub soc_href: Option<&'a str>,
}

/// The input key of a file the build makes: a digest of everything it is made from, so a
/// file whose key is the last build's is the same and is kept ([`Site::reused`]).
///
/// The parts go through a buffer, hashed a few KiB at a time: a SoC's keys have hundreds of
/// thousands of parts of a few bytes, and the hasher's cost per `update` was more than the
/// hashing of those bytes. The digest is that of the same bytes either way.
struct Key {
    sha: Sha256,
    buf: Vec<u8>,
}

/// The most a key holds before hashing it.
const KEY_BUF: usize = 8 << 10;

impl Key {
    /// A key for the file `what` of this truebench and the site titled `title`.
    fn new(title: &str, what: &str) -> Key {
        let mut k = Key {
            sha: Sha256::new(),
            buf: Vec::with_capacity(512),
        };
        k.part(env!("CARGO_PKG_VERSION").as_bytes());
        k.part(title.as_bytes());
        k.part(what.as_bytes());
        k
    }

    /// One more input, its length first (so no two sequences of inputs run together).
    fn part(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(&(b.len() as u64).to_le_bytes());
        if b.len() >= KEY_BUF {
            // A large part is hashed where it is, not copied.
            self.sha.update(&self.buf);
            self.buf.clear();
            self.sha.update(b);
            return;
        }
        self.buf.extend_from_slice(b);
        if self.buf.len() >= KEY_BUF {
            self.sha.update(&self.buf);
            self.buf.clear();
        }
    }

    /// A row as the build made it: as kept ([`Kept::row_key`]) and what the build adds (its
    /// SoC's name and page, its regressions; its standing goes to the standing files).
    fn row(&mut self, k: &Kept, n: &Named, regressions: &[String]) {
        self.part(k.row_key.as_bytes());
        for s in [n.soc, n.soc_href] {
            match s {
                Some(s) => self.part(s.as_bytes()),
                None => self.part(b"\0"),
            }
        }
        self.part(itoa::Buffer::new().format(regressions.len()).as_bytes());
        for f in regressions {
            self.part(f.as_bytes());
        }
    }

    fn done(mut self) -> String {
        self.sha.update(&self.buf);
        truebench_host::parse::bytes::lower_hex(&self.sha.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_the_digest_of_its_parts_however_many() {
        // Parts of every size, a few larger than the buffer, past its bound several times.
        let parts: Vec<Vec<u8>> = (0..3000)
            .map(|i| vec![i as u8; if i % 997 == 5 { 3 * KEY_BUF } else { i % 37 }])
            .collect();
        let mut key = Key::new("fleet", "standing");
        let mut sha = Sha256::new();
        for p in [env!("CARGO_PKG_VERSION").as_bytes(), b"fleet", b"standing"]
            .into_iter()
            .chain(parts.iter().map(Vec::as_slice))
        {
            sha.update((p.len() as u64).to_le_bytes());
            sha.update(p);
        }
        for p in &parts {
            key.part(p);
        }
        assert!(parts.iter().map(|p| p.len() + 8).sum::<usize>() > 3 * KEY_BUF);
        assert_eq!(key.done(), format!("{:x}", sha.finalize()));
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("Rockchip RK3588/RK3588S"), "rockchip-rk3588-rk3588s");
        assert_eq!(slug("one of A, B"), "one-of-a-b");
        assert_eq!(slug("  "), "unknown");
        assert_eq!(slug("Ünï"), "n");
    }
}
