//! Putting a built site into its folder: only what changed is written, each file through a
//! new temporary file renamed over it (never written through a link); a file the site no
//! longer has is removed only when this writer wrote it (listed in the folder's manifest) and
//! nobody changed it since; a file in the way that it did not write stops the build before
//! anything is written.
//!
//! Interrupted or out of space, the folder stays a site: every changed file is written to its
//! temporary first, and only when all are whole are they renamed into place (a full disk
//! leaves the earlier site as it was, its temporaries removed); the manifest lists the files
//! about to be renamed before the first rename, so a build killed among the renames is
//! finished or undone by the next one instead of refused as "in the way"; temporaries a killed
//! build left are removed by the next.

use foldhash::{HashMap, HashMapExt};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::Site;

/// The list of files the last build wrote, with their digests: `<sha256>  <path>` per line.
pub const MANIFEST: &str = ".truebench-site";

/// What each file made from rows was made from (its input key: [`crate::Site::keys`]),
/// `<key>  <path>` per line: a rebuild whose inputs for a file are the same leaves it as it is
/// instead of making it again. Only files that are whole are listed (one being replaced is
/// left out until it is in place; one kept is listed as it was when the build began: removed
/// by hand during a build, it is made again by the next, whose `stat` no longer finds it).
pub const KEYS: &str = ".truebench-keys";

#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: in the way and not written by an earlier `truebench site` (not in {MANIFEST}); move it away or choose another folder — nothing was written")]
    Foreign { path: String },
    #[error("{path}: {why} where the site puts a file; nothing was written")]
    NotAFile { path: String, why: String },
    #[error("{path}: not a path inside the site folder")]
    BadPath { path: String },
    /// A kept file not listed in the manifest, or (for [`Writer::finish`], whose sizes are
    /// not known beforehand) not there at the end.
    #[error("{path}: kept from the last build but no longer there or not listed in {MANIFEST}; build again (the page will be made anew)")]
    Missing { path: String },
    #[error("{why}; what the site keeps of each result between builds was not saved (the next build reads every document again)")]
    Kept { why: String },
    #[error("{why}; its shard of what the site keeps between builds was not saved (the next build reads its results' documents again), the others were")]
    KeptShard { why: String },
    #[error("{path}: {source}; nothing was replaced: the folder holds the earlier build, whole")]
    Staging {
        path: String,
        source: std::io::Error,
    },
}

/// What a write did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Written {
    pub written: Vec<String>,
    pub unchanged: usize,
    pub removed: Vec<String>,
    /// Files an earlier build wrote that someone changed since: left in place.
    pub kept: Vec<String>,
    /// The site's size, bytes.
    pub bytes: u64,
}

/// The SHA-256 of `bytes` in hex: a file's digest in the manifest, and the kept rows' keys.
pub(crate) fn hex(bytes: &[u8]) -> String {
    truebench_host::parse::bytes::lower_hex(&Sha256::digest(bytes))
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SiteError + '_ {
    move |source| SiteError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn target(dir: &Path, rel: &str) -> Result<PathBuf, SiteError> {
    let p = Path::new(rel);
    if rel.is_empty() || !p.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(SiteError::BadPath { path: rel.into() });
    }
    Ok(dir.join(p))
}

/// The largest file a site holds: its pages and figures are kilobytes, its data files a few
/// MiB. A larger file where a site file goes is not one the site wrote, and is not read.
const MAX_FILE: u64 = 64 << 20;

/// The bytes of the regular file at `path`, None when nothing is there. Looked at without
/// following a link or waiting on a FIFO (the folder may be shared): a link, a FIFO, a
/// socket, a device or a folder there is refused, saying which; a file larger than
/// [`MAX_FILE`] is `Some(None)`, never read.
fn read_existing(path: &Path) -> Result<Option<Option<Vec<u8>>>, SiteError> {
    match truebench_host::read_if_present(path, MAX_FILE) {
        Ok(b) => Ok(b.map(Some)),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Ok(Some(None)),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Err(SiteError::NotAFile {
            path: path.display().to_string(),
            why: e.to_string(),
        }),
        Err(e) => Err(io(path)(e)),
    }
}

/// The manifest of the last build: path → digests (empty when there was none). A path has
/// two while a build replaces it: what was there and what comes.
fn manifest(dir: &Path) -> Result<BTreeMap<String, Vec<String>>, SiteError> {
    let path = dir.join(MANIFEST);
    let text = match read_existing(&path)? {
        None => return Ok(BTreeMap::new()),
        Some(Some(b)) => String::from_utf8_lossy(&b).into_owned(),
        Some(None) => {
            return Err(SiteError::NotAFile {
                path: path.display().to_string(),
                why: format!(
                    "is larger than {} MiB, so no list the site wrote",
                    MAX_FILE >> 20
                ),
            })
        }
    };
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (d, p) in text.lines().filter_map(|l| l.split_once("  ")) {
        m.entry(p.to_string()).or_default().push(d.to_string());
    }
    Ok(m)
}

/// The manifest's text: `<sha256>  <path>` per line.
fn listing(m: &BTreeMap<String, Vec<String>>) -> String {
    let mut s = String::with_capacity(m.len() * 96);
    for (rel, digests) in m {
        for d in digests {
            line(&mut s, d, rel);
        }
    }
    s
}

/// `<a>  <b>` and a newline onto `s` (a fleet's lists have a hundred thousand of them).
fn line(s: &mut String, a: &str, b: &str) {
    s.push_str(a);
    s.push_str("  ");
    s.push_str(b);
    s.push('\n');
}

/// The input keys of the pages the last build in `dir` made whose files are there: path →
/// key (empty when there is no list or it cannot be read: every page is then made anew).
pub fn keys(dir: &Path) -> BTreeMap<String, String> {
    previous(dir).0
}

/// [`keys`], and the size of each of those files as its `stat` found it: what
/// [`Writer::finish_known`] counts for the files it keeps, without a second `stat` of each.
pub(crate) fn previous(dir: &Path) -> (BTreeMap<String, String>, HashMap<String, u64>) {
    let Ok(Some(Some(b))) = read_existing(&dir.join(KEYS)) else {
        return Default::default();
    };
    let text = String::from_utf8_lossy(&b);
    let listed: Vec<(&str, &str)> = text.lines().filter_map(|l| l.split_once("  ")).collect();
    // A `stat` per file, on every CPU: a fleet's site has hundreds of thousands.
    let there = crate::par::map(listed.len(), 256, |i| {
        target(dir, listed[i].1)
            .ok()
            .and_then(|t| std::fs::symlink_metadata(t).ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
    });
    let mut keys = BTreeMap::new();
    let mut sizes = HashMap::with_capacity(listed.len());
    for ((k, p), there) in listed.into_iter().zip(there) {
        if let Some(len) = there {
            keys.insert(p.to_string(), k.to_string());
            sizes.insert(p.to_string(), len);
        }
    }
    (keys, sizes)
}

fn key_listing<'a>(keys: impl Iterator<Item = (&'a String, &'a String)>) -> String {
    let mut s = String::new();
    for (rel, k) in keys {
        line(&mut s, k, rel);
    }
    s
}

/// The prefix of this writer's temporary files.
const TEMP_PREFIX: &str = ".truebench-site-";

/// Remove the temporaries a killed build left in `dir` (regular files of this writer's
/// prefix; nothing else is touched).
pub(crate) fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let ours = e.file_name().to_string_lossy().starts_with(TEMP_PREFIX);
        if ours && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The digest of the regular file at `path`; None when nothing is there (a file too large to
/// be the site's has a digest that matches nothing).
fn existing(path: &Path) -> Result<Option<String>, SiteError> {
    Ok(read_existing(path)?.map(|b| match b {
        Some(b) => hex(&b),
        None => format!("larger than {} MiB", MAX_FILE >> 20),
    }))
}

/// `bytes` written whole to a new temporary file in `path`'s folder (mode 0644: readable by
/// the web server that publishes the folder), to be renamed over `path`. Removed when dropped.
fn stage(path: &Path, bytes: &[u8]) -> Result<tempfile::TempPath, SiteError> {
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(parent)
        .map_err(io(parent))?;
    // Through the file itself: the error names the page, not the temporary (removed).
    tmp.as_file_mut().write_all(bytes).map_err(io(path))?;
    // The descriptor closed (a site can have more files than a process may keep open).
    Ok(tmp.into_temp_path())
}

/// Write `bytes` to `path` through a temporary file in the same folder, renamed over it.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<(), SiteError> {
    let tmp = stage(path, bytes)?;
    tmp.persist(path).map_err(|e| io(path)(e.error))?;
    Ok(())
}

/// Put a site made in memory into `dir` (see [`Writer`], which this feeds file by file).
pub fn write(site: &Site, dir: &Path) -> Result<Written, SiteError> {
    let mut w = Writer::open(dir)?;
    for (rel, bytes) in &site.files {
        w.file(rel, bytes)?;
    }
    w.finish(&site.reused, &site.keys)
}

/// One file of the site as the writer has it: its digest, its size and, when it changed, the
/// temporary holding its new bytes beside its place (not the bytes: a fleet's pages do not
/// fit in memory).
struct Planned {
    path: PathBuf,
    digest: String,
    bytes: u64,
    staged: Option<tempfile::TempPath>,
}

/// A site written as it is made. Each [`Writer::file`] is checked at once and, when it
/// changed, staged whole beside its place; nothing in the folder is replaced before
/// [`Writer::finish`], so a refusal or a full disk at any file leaves the earlier site as it
/// was (the temporaries are removed when the writer is dropped).
pub struct Writer {
    dir: PathBuf,
    old: BTreeMap<String, Vec<String>>,
    plan: BTreeMap<String, Planned>,
    /// Folders whose leftover temporaries were removed (before the first file staged there).
    swept: std::collections::BTreeSet<PathBuf>,
}

impl Writer {
    /// Start writing a site into `dir` (created when missing): its last manifest is read.
    pub fn open(dir: &Path) -> Result<Writer, SiteError> {
        if let Ok(m) = std::fs::metadata(dir) {
            if !m.is_dir() {
                return Err(io(dir)(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "is {}, not a folder for the site",
                        truebench_host::file_kind(&m.file_type())
                    ),
                )));
            }
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let old = manifest(dir)?;
        Ok(Writer {
            dir: dir.to_path_buf(),
            old,
            plan: BTreeMap::new(),
            swept: Default::default(),
        })
    }

    /// The site's file `rel` is `bytes`: compared with what is there and, when it differs,
    /// staged. A file in the way that an earlier build did not write is refused.
    pub fn file(&mut self, rel: &str, bytes: &[u8]) -> Result<(), SiteError> {
        let path = target(&self.dir, rel)?;
        let digest = hex(bytes);
        let change = match existing(&path)? {
            Some(d) if d == digest => false,
            Some(_) if self.old.contains_key(rel) => true,
            Some(_) => {
                return Err(SiteError::Foreign {
                    path: path.display().to_string(),
                })
            }
            None => true,
        };
        let staged = if change {
            let parent = path.parent().unwrap_or(&self.dir).to_path_buf();
            if self.swept.insert(parent.clone()) {
                sweep(&parent);
            }
            Some(stage(&path, bytes).map_err(|e| match e {
                SiteError::Io { path, source } => SiteError::Staging { path, source },
                e => e,
            })?)
        } else {
            None
        };
        self.plan.insert(
            rel.to_string(),
            Planned {
                path,
                digest,
                bytes: bytes.len() as u64,
                staged,
            },
        );
        Ok(())
    }

    /// Put every changed file in place, keep the `reused` files (which must be there, written
    /// by the last build), list the files' input `keys`, and remove the files the last build
    /// wrote that the site no longer has and nobody changed since.
    pub fn finish(
        self,
        reused: &std::collections::BTreeSet<String>,
        keys: &BTreeMap<String, String>,
    ) -> Result<Written, SiteError> {
        self.finish_known(reused, keys, &HashMap::new())
    }

    /// [`Writer::finish`], where `sizes` has the size of kept files as [`previous`] found
    /// them when the build began: those are not looked at again (a fleet's site keeps
    /// hundreds of thousands). One removed since is made again by the next build, whose
    /// `stat` no longer finds it.
    pub(crate) fn finish_known(
        self,
        reused: &std::collections::BTreeSet<String>,
        keys: &BTreeMap<String, String>,
        sizes: &HashMap<String, u64>,
    ) -> Result<Written, SiteError> {
        let Writer {
            dir,
            old,
            plan,
            mut swept,
        } = self;
        let dir = dir.as_path();
        // Temporaries a killed build left where nothing was staged this time: no file of this
        // build is staged there, so only the leftovers go.
        let folders = plan.values().filter_map(|p| p.path.parent());
        for f in std::iter::once(dir).chain(folders) {
            if !swept.contains(f) {
                sweep(f);
                swept.insert(f.to_path_buf());
            }
        }
        let mut out = Written::default();
        // Pages kept from the last build: there, and listed as this writer's (a `stat` per
        // file, on every CPU).
        let reused: Vec<&String> = reused.iter().collect();
        let found = crate::par::map(reused.len(), 256, |i| {
            let rel = reused[i];
            let path = target(dir, rel)?;
            let there = match sizes.get(rel.as_str()) {
                Some(&len) => Some(len),
                None => std::fs::symlink_metadata(&path)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len()),
            };
            match there {
                Some(len) if old.contains_key(rel.as_str()) => Ok(len),
                _ => Err(SiteError::Missing {
                    path: path.display().to_string(),
                }),
            }
        });
        for size in found {
            out.bytes += size?;
        }
        // The manifest names what is about to be renamed (beside what was there), so a build
        // killed among the renames is finished by the next, not refused as a stranger's files.
        if plan.values().any(|p| p.staged.is_some()) {
            // What was there, then what comes (a path listed twice has both digests).
            let mut during = listing(&old);
            for (rel, p) in plan.iter().filter(|(_, p)| p.staged.is_some()) {
                if !old.get(rel).is_some_and(|d| d.contains(&p.digest)) {
                    line(&mut during, &p.digest, rel);
                }
            }
            replace(&dir.join(MANIFEST), during.as_bytes())?;
            // The keys of the pages about to be replaced go first: a build killed among the
            // renames leaves them to be made again.
            let whole = keys
                .iter()
                .filter(|(rel, _)| plan.get(*rel).is_none_or(|p| p.staged.is_none()));
            replace(&dir.join(KEYS), key_listing(whole).as_bytes())?;
        }
        let mut made = Vec::with_capacity(plan.len());
        for (rel, p) in plan {
            match p.staged {
                Some(tmp) => {
                    tmp.persist(&p.path).map_err(|e| io(&p.path)(e.error))?;
                    out.written.push(rel.clone());
                }
                None => out.unchanged += 1,
            }
            out.bytes += p.bytes;
            made.push((rel, p.digest));
        }
        // The new manifest, by path: each file made, and each kept with what was listed.
        let mut after: Vec<(&str, &str)> =
            made.iter().map(|(r, d)| (r.as_str(), d.as_str())).collect();
        for rel in reused {
            out.unchanged += 1;
            after.extend(old[rel].iter().map(|d| (rel.as_str(), d.as_str())));
        }
        after.sort_unstable();
        let listed = |rel: &str| after.binary_search_by(|(r, _)| (*r).cmp(rel)).is_ok();
        for (rel, digests) in &old {
            if listed(rel) {
                continue;
            }
            let Ok(path) = target(dir, rel) else { continue };
            match existing(&path) {
                Ok(Some(d)) if digests.contains(&d) => {
                    std::fs::remove_file(&path).map_err(io(&path))?;
                    out.removed.push(rel.clone());
                }
                Ok(None) => {}
                _ => out.kept.push(rel.clone()),
            }
        }
        let mut text = String::with_capacity(after.len() * 96);
        for (rel, d) in &after {
            line(&mut text, d, rel);
        }
        replace(&dir.join(MANIFEST), text.as_bytes())?;
        replace(&dir.join(KEYS), key_listing(keys.iter()).as_bytes())?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(files: &[(&str, &str)]) -> Site {
        Site {
            files: files
                .iter()
                .map(|(p, c)| (p.to_string(), c.as_bytes().to_vec()))
                .collect(),
            ..Site::default()
        }
    }

    #[test]
    fn a_rebuild_writes_only_what_changed_and_removes_only_its_own_files() {
        let d = tempfile::tempdir().unwrap();
        let w = write(
            &site(&[("index.html", "a"), ("r/1.html", "1"), ("r/2.html", "2")]),
            d.path(),
        )
        .unwrap();
        assert_eq!(w.written.len(), 3);
        // The user's own file beside the site is never touched.
        std::fs::write(d.path().join("README.txt"), "mine").unwrap();
        // Someone edits a page the site will no longer have: kept.
        std::fs::write(d.path().join("r/2.html"), "edited").unwrap();
        let w = write(&site(&[("index.html", "b"), ("r/1.html", "1")]), d.path()).unwrap();
        assert_eq!(w.written, vec!["index.html"]);
        assert_eq!(w.unchanged, 1);
        assert_eq!(w.kept, vec!["r/2.html"]);
        assert_eq!(
            std::fs::read_to_string(d.path().join("README.txt")).unwrap(),
            "mine"
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join("r/2.html")).unwrap(),
            "edited"
        );
        // A page it wrote and nobody changed goes when the site no longer has it.
        let w = write(&site(&[("index.html", "b")]), d.path()).unwrap();
        assert_eq!(w.removed, vec!["r/1.html"]);
        assert!(!d.path().join("r/1.html").exists());
    }

    /// The folder as a build killed among its renames leaves it: the manifest already names
    /// the new pages (beside the old digests), one new page is in place, one old page is not
    /// yet replaced, and a temporary is left. The next build, of another history, finishes.
    #[test]
    fn a_build_killed_among_its_renames_is_finished_by_the_next() {
        let d = tempfile::tempdir().unwrap();
        write(&site(&[("index.html", "a"), ("old.html", "o")]), d.path()).unwrap();
        let during = format!(
            "{}  index.html\n{}  index.html\n{}  new.html\n{}  old.html\n",
            hex(b"a"),
            hex(b"b"),
            hex(b"n"),
            hex(b"o")
        );
        std::fs::write(d.path().join(MANIFEST), during).unwrap();
        std::fs::write(d.path().join("new.html"), "n").unwrap();
        std::fs::write(d.path().join(".truebench-site-x1Y2z3"), "half").unwrap();
        let w = write(&site(&[("index.html", "c"), ("new.html", "n2")]), d.path()).unwrap();
        assert_eq!(w.written, vec!["index.html", "new.html"]);
        assert_eq!(w.removed, vec!["old.html"]);
        let mut names: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [KEYS, MANIFEST, "index.html", "new.html"]);
        assert_eq!(
            manifest(d.path()).unwrap().get("new.html"),
            Some(&vec![hex(b"n2")])
        );
    }

    #[test]
    fn a_file_in_the_way_stops_the_build_before_anything_is_written() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("index.html"), "someone's page").unwrap();
        let e = write(&site(&[("a.html", "x"), ("index.html", "site")]), d.path()).unwrap_err();
        assert!(matches!(e, SiteError::Foreign { .. }), "{e}");
        assert!(e.to_string().contains("index.html"), "{e}");
        assert!(!d.path().join("a.html").exists());
        assert_eq!(
            std::fs::read_to_string(d.path().join("index.html")).unwrap(),
            "someone's page"
        );
    }

    #[test]
    fn a_link_where_a_page_goes_is_refused_and_its_target_untouched() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let site_dir = d.path().join("site");
        std::fs::create_dir(&site_dir).unwrap();
        std::os::unix::fs::symlink(&victim, site_dir.join("index.html")).unwrap();
        let e = write(&site(&[("index.html", "site")]), &site_dir).unwrap_err();
        assert!(matches!(e, SiteError::NotAFile { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }

    /// A FIFO, socket, device (or a link to one) or a huge file planted where the site puts
    /// a page or its manifest, or in place of its folder: refused with what it is, at once,
    /// nothing written (the read of a FIFO waited for a writer forever).
    #[test]
    fn an_odd_file_where_the_site_goes_is_refused_at_once() {
        use truebench_fixtures::odd::{self, Odd};
        for kind in odd::kinds() {
            for at in ["index.html", MANIFEST, "."] {
                let d = tempfile::tempdir().unwrap();
                let dir = d.path().join("site");
                std::fs::create_dir(&dir).unwrap();
                let planted = if at == "." { dir.clone() } else { dir.join(at) };
                odd::plant(&planted, kind);
                let (tx, rx) = std::sync::mpsc::channel();
                let dir2 = dir.clone();
                std::thread::spawn(move || {
                    let r = write(&site(&[("index.html", "site"), ("a.html", "a")]), &dir2);
                    let _ = tx.send(r.map(|_| ()).map_err(|e| e.to_string()));
                });
                let what = format!("{kind:?} at {at}");
                let r = rx
                    .recv_timeout(std::time::Duration::from_secs(20))
                    .unwrap_or_else(|_| panic!("{what}: still waiting after 20 s"));
                let e = r.expect_err(&what);
                let said = match (kind, at) {
                    (Odd::Huge, ".") => "is a regular file, not a folder".to_string(),
                    (Odd::Huge, MANIFEST) => "is larger than 64 MiB".to_string(),
                    (Odd::Huge, _) => "in the way".to_string(),
                    // Not followed: the link itself is what is there.
                    (Odd::LinkToDevZero, "index.html" | MANIFEST) => "is a symbolic link".into(),
                    _ => format!("is {}", kind.said()),
                };
                assert!(
                    e.contains(&planted.display().to_string()) && e.contains(&said),
                    "{what}: {e}"
                );
                assert!(!dir.join("a.html").exists(), "{what}: written");
            }
        }
    }

    #[test]
    fn paths_stay_inside_the_folder() {
        let d = tempfile::tempdir().unwrap();
        for bad in ["../x.html", "/etc/x", ""] {
            assert!(matches!(
                write(&site(&[(bad, "x")]), d.path()),
                Err(SiteError::BadPath { .. })
            ));
        }
    }
}
