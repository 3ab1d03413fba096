//! A power cut at every point of the tuning path. The path (begin, change settings of every
//! kind, restore, journal removal) runs once on a fixture root while the crate's `io-trace`
//! recorder notes each system call that changes the disk or a setting. Then, for every
//! prefix of that record — a cut between any two calls, including after the last — the
//! disk is rebuilt as a power cut may leave it, in every way the rules of fsync allow:
//!
//! - a directory entry (created or removed) survives only if its directory was fsync'ed
//!   after the change — or it may survive anyway;
//! - a file's data survives only up to its last fsync — or all of it, or half of the
//!   unsynced tail, or a tail of zeros (the size got out before the data);
//! - a setting is the kernel's: it takes effect at once and stays.
//!
//! On each such tree the next start's recovery must leave every file byte for byte as it
//! was before the session, remove the journal and let a new session begin. Recovery's own
//! calls are recorded too and cut the same way at every point (the power fails again while
//! restoring), with the start after that checked likewise. Finally the machine may have
//! rebooted (the settings back to their boot values, a new boot id): then nothing is written
//! back and the journal still goes.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::*;
use truebench_host::{Host, Inventory};
use truebench_tuning::trace::{recording, Op};
use truebench_tuning::{recover, testing, RestoreReport, Tuning, TuningError};

const BOOT_ID: &str = "proc/sys/kernel/random/boot_id";
const STATE: &str = "var/lib/truebench";

/// What the disk holds in one place: a directory or a file (by inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Node {
    Dir,
    File(usize),
}

/// The truebench state directory as the file system knows it — what is in the page cache
/// (`cur`) and what is on the platter (`dur`) — plus the settings written. Paths are
/// root-relative.
#[derive(Debug, Clone, Default)]
struct Model {
    cur: BTreeMap<PathBuf, Node>,
    dur: BTreeMap<PathBuf, Node>,
    /// Per inode: (data in the cache, data on the disk).
    data: Vec<(Vec<u8>, Vec<u8>)>,
    settings: BTreeMap<PathBuf, Vec<u8>>,
}

/// One way the state directory may look after the cut: path → None for a directory, the
/// bytes for a file; plus the settings.
type Image = (
    BTreeMap<PathBuf, Option<Vec<u8>>>,
    BTreeMap<PathBuf, Vec<u8>>,
);

impl Model {
    /// The state directory of `root` as it is, all of it durable.
    fn scan(root: &Path) -> Model {
        let mut m = Model::default();
        let mut rel = PathBuf::new();
        for c in Path::new(STATE).components() {
            rel.push(c);
            let p = root.join(&rel);
            if !p.is_dir() {
                return m;
            }
            m.cur.insert(rel.clone(), Node::Dir);
        }
        for e in fs::read_dir(root.join(STATE)).unwrap() {
            let e = e.unwrap();
            assert!(e.file_type().unwrap().is_file(), "{:?}", e.path());
            let b = fs::read(e.path()).unwrap();
            m.data.push((b.clone(), b));
            m.cur.insert(
                Path::new(STATE).join(e.file_name()),
                Node::File(m.data.len() - 1),
            );
        }
        m.dur = m.cur.clone();
        m
    }

    fn inode(&self, p: &Path) -> usize {
        match self.cur.get(p) {
            Some(Node::File(i)) => *i,
            other => panic!("{p:?} is not a file in the model: {other:?}"),
        }
    }

    fn apply(&mut self, root: &Path, op: &Op) {
        let rel = |p: &Path| p.strip_prefix(root).unwrap().to_path_buf();
        match op {
            Op::Mkdir(p) => {
                self.cur.insert(rel(p), Node::Dir);
            }
            Op::Create(p) => {
                self.data.push((Vec::new(), Vec::new()));
                self.cur.insert(rel(p), Node::File(self.data.len() - 1));
            }
            Op::Append(p, b) => {
                let i = self.inode(&rel(p));
                self.data[i].0.extend_from_slice(b);
            }
            Op::Truncate(p, n) => {
                let i = self.inode(&rel(p));
                self.data[i].0.truncate(*n as usize);
            }
            Op::Fsync(p) => {
                let i = self.inode(&rel(p));
                self.data[i].1 = self.data[i].0.clone();
            }
            Op::FsyncDir(d) => {
                let d = rel(d);
                let here = |p: &PathBuf| p.parent() == Some(d.as_path());
                self.dur.retain(|p, _| !here(p));
                for (p, n) in &self.cur {
                    if here(p) {
                        self.dur.insert(p.clone(), *n);
                    }
                }
            }
            Op::Unlink(p) => {
                self.cur.remove(&rel(p));
            }
            Op::Setting(p, b) => {
                let p = rel(p);
                assert!(
                    !p.starts_with(STATE),
                    "a setting in the state directory: {p:?}"
                );
                self.settings.insert(p, b.clone());
            }
        }
    }

    /// The disk as a power cut may leave it: names as in `entries`, each file's data as
    /// `data` says (0: up to its last fsync, 1: all written, 2: half the unsynced tail,
    /// 3: the unsynced tail as zeros).
    fn image(&self, entries: &BTreeMap<PathBuf, Node>, data: u8) -> Image {
        let mut img = BTreeMap::new();
        for (p, n) in entries {
            // A name whose directory did not survive is gone with it.
            let parent_ok = p
                .ancestors()
                .skip(1)
                .filter(|a| !a.as_os_str().is_empty())
                .all(|a| entries.contains_key(a));
            if !parent_ok {
                continue;
            }
            let v = match *n {
                Node::Dir => None,
                Node::File(i) => {
                    let (cur, dur) = &self.data[i];
                    let tail = cur.strip_prefix(dur.as_slice()).filter(|t| !t.is_empty());
                    Some(match (data, tail) {
                        (0, _) => dur.clone(),
                        (2, Some(t)) => [dur.as_slice(), &t[..t.len() / 2]].concat(),
                        (3, Some(t)) => [dur.clone(), vec![0; t.len()]].concat(),
                        _ => cur.clone(),
                    })
                }
            };
            img.insert(p.clone(), v);
        }
        (img, self.settings.clone())
    }

    /// The disk as the running system sees it (a kill, not a power cut, leaves this).
    fn now(&self) -> Image {
        self.image(&self.cur, 1)
    }

    /// Every distinct way a power cut now may leave the disk.
    fn images(&self) -> Vec<Image> {
        let mut out: Vec<Image> = Vec::new();
        for entries in [&self.cur, &self.dur] {
            for data in 0..4 {
                let img = self.image(entries, data);
                if !out.contains(&img) {
                    out.push(img);
                }
            }
        }
        out
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let ft = e.file_type().unwrap();
        if ft.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src).unwrap(), &dst).unwrap();
        } else if ft.is_dir() {
            copy_tree(&src, &dst);
        } else {
            fs::copy(&src, &dst).unwrap();
        }
    }
}

/// `base` with the state directory and the settings of `img`, in a new directory.
fn materialize(base: &Path, img: &Image) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    copy_tree(base, d.path());
    // The fixture has nothing else below var/: the image says all of it.
    let state = d.path().join("var");
    if state.exists() {
        fs::remove_dir_all(&state).unwrap();
    }
    for (p, v) in &img.0 {
        match v {
            None => fs::create_dir_all(d.path().join(p)).unwrap(),
            Some(b) => fs::write(d.path().join(p), b).unwrap(),
        }
    }
    for (p, b) in &img.1 {
        fs::write(d.path().join(p), b).unwrap();
    }
    d
}

/// Every file of a tree (path, bytes) and its state directory's names.
type Fingerprint = Vec<(String, Vec<u8>)>;

/// Every file of the tree and the state directory's names, for telling trees apart.
fn fingerprint(root: &Path) -> Fingerprint {
    let mut v: Vec<_> = snapshot(root).into_iter().collect();
    if let Ok(rd) = fs::read_dir(root.join(STATE)) {
        for e in rd {
            let e = e.unwrap();
            v.push((
                format!("{STATE}/{}", e.file_name().to_string_lossy()),
                fs::read(e.path()).unwrap_or_default(),
            ));
        }
    }
    v
}

/// The next start on `root` after its recovery returned `r`: the tree is as `before`, no
/// journal, and a new session can begin (and end) there.
fn check_recovered(
    root: &Path,
    r: Result<Option<RestoreReport>, TuningError>,
    before: &BTreeMap<String, Vec<u8>>,
    what: &str,
) {
    let r = r.unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(r) = &r {
        assert!(r.failed.is_empty() && !r.journal_kept, "{what}: {r}");
    }
    assert_eq!(
        changed(before, &snapshot(root)),
        Vec::<String>::new(),
        "{what}: not restored byte for byte (report: {r:?})"
    );
    assert!(
        !journal(root).exists(),
        "{what}: the journal is still there"
    );
    let host = Host::new(root);
    let t = Tuning::begin(&host).unwrap_or_else(|e| panic!("{what}: begin after recovery: {e}"));
    drop(t);
    assert!(
        !journal(root).exists(),
        "{what}: a new session left its journal"
    );
}

/// The whole tuning path of one session, on a fixture root: every kind of setting, a file
/// written twice, an odd value, then the session's own restore — or a SIGKILL instead.
fn session(host: &Host, killed: bool) {
    let clusters = Inventory::probe(host).clusters;
    assert!(clusters.len() >= 2, "{clusters:#?}");
    let mut t = Tuning::begin(host).unwrap();
    for c in &clusters {
        t.set_governor(c, "performance").unwrap();
        t.set_range_khz(c, 1_008_000, 1_008_000).unwrap();
    }
    t.set_governor(&clusters[0], "userspace").unwrap();
    t.set_setspeed_khz(&clusters[0], 816_000).unwrap();
    t.set_devfreq_governor("dmc", "performance").unwrap();
    t.set_pcie_aspm_policy("powersave").unwrap();
    t.set_cpu_online(7, false).unwrap();
    t.write(ODD, "plain\n").unwrap();
    if killed {
        testing::kill(t);
        return;
    }
    let r = t.restore().unwrap();
    assert!(r.failed.is_empty(), "{r}");
    drop(t);
}

#[test]
fn every_cut_of_the_tuning_path_is_recovered_byte_for_byte() {
    let pristine = temp_rock5b();
    fs::create_dir_all(pristine.path().join("proc/sys/kernel/random")).unwrap();
    fs::write(
        pristine.path().join(BOOT_ID),
        "6c1f0e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b\n",
    )
    .unwrap();
    let before = snapshot(pristine.path());

    let run = tempfile::tempdir().unwrap();
    copy_tree(pristine.path(), run.path());
    let ((), ops) = recording(|| session(&Host::new(run.path()), false));
    assert_eq!(
        changed(&before, &snapshot(run.path())),
        Vec::<String>::new()
    );

    // The record is complete: replayed as the running system sees it, it gives the tree
    // the session left — checked on a session killed before its restore, whose tree holds
    // the journal and every changed setting.
    let killed = tempfile::tempdir().unwrap();
    copy_tree(pristine.path(), killed.path());
    let ((), kops) = recording(|| session(&Host::new(killed.path()), true));
    let mut m = Model::scan(pristine.path());
    for op in &kops {
        m.apply(killed.path(), op);
    }
    let replayed = materialize(pristine.path(), &m.now());
    assert_eq!(fingerprint(replayed.path()), fingerprint(killed.path()));
    assert!(changed(&before, &snapshot(killed.path())).len() >= 10);

    // The calls the issue names are all in the record, in the order durability needs.
    let pos = |f: &dyn Fn(&Op) -> bool| ops.iter().position(f);
    let is_journal = |p: &Path| p.ends_with("tuning.journal");
    let created = pos(&|o| matches!(o, Op::Create(p) if is_journal(p))).unwrap();
    let file_synced = pos(&|o| matches!(o, Op::Fsync(p) if is_journal(p))).unwrap();
    let dir_synced = pos(&|o| matches!(o, Op::FsyncDir(p) if p.ends_with(STATE))).unwrap();
    let first_setting = pos(&|o| matches!(o, Op::Setting(..))).unwrap();
    let removed = pos(&|o| matches!(o, Op::Unlink(p) if is_journal(p))).unwrap();
    assert!(created < file_synced && file_synced < dir_synced && dir_synced < first_setting);
    assert!(first_setting < removed && removed < ops.len() - 1);
    // Every setting is first written after its journal record is synced.
    let (mut appended, mut synced) = (Vec::new(), Vec::new());
    let mut settings = 0;
    for op in &ops[..removed] {
        match op {
            Op::Append(_, line) => appended.push(String::from_utf8_lossy(line).into_owned()),
            Op::Fsync(p) if is_journal(p) => synced.append(&mut appended),
            Op::Setting(p, _) => {
                settings += 1;
                let rel = p.strip_prefix(run.path()).unwrap().to_string_lossy();
                assert!(
                    synced
                        .iter()
                        .any(|l| l.starts_with("O ") && l.contains(&format!(" ={rel} "))),
                    "{rel} written before its original was synced: {ops:#?}"
                );
            }
            _ => {}
        }
    }
    assert!(settings >= 30, "{settings} setting writes: {ops:#?}");

    // Every image after every call of the session, in order; then checked on every CPU
    // (each check copies trees and runs a recovery: 9 s on one CPU).
    let mut model = Model::scan(pristine.path());
    let mut cases = Vec::new();
    for k in 0..=ops.len() {
        if k > 0 {
            model.apply(run.path(), &ops[k - 1]);
        }
        for (v, img) in model.images().into_iter().enumerate() {
            let what = format!(
                "cut after call {k} of {} (image {v}): {:?}",
                ops.len(),
                ops.get(k.wrapping_sub(1))
            );
            cases.push((what, img));
        }
    }
    // Trees already checked: after a first cut (whose recovery is then cut at every
    // point), and after a second cut in a recovery.
    let seen: Mutex<HashSet<Fingerprint>> = Mutex::default();
    let seen2: Mutex<HashSet<Fingerprint>> = Mutex::default();
    let (states, nested, next) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let first_time = |set: &Mutex<HashSet<_>>, root: &Path| {
        set.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(fingerprint(root))
    };
    let check = |what: &str, img: &Image| {
        let cut = materialize(pristine.path(), img);
        if !first_time(&seen, cut.path()) {
            return;
        }
        states.fetch_add(1, Ordering::Relaxed);
        let trial = tempfile::tempdir().unwrap();
        copy_tree(cut.path(), trial.path());
        let (res, rops) = recording(|| recover(&Host::new(trial.path())));
        check_recovered(trial.path(), res, &before, what);
        // The power fails again at every point of that recovery.
        let mut m2 = Model::scan(cut.path());
        for (j, rop) in rops.iter().enumerate() {
            m2.apply(trial.path(), rop);
            for img2 in m2.images() {
                let again = materialize(cut.path(), &img2);
                if !first_time(&seen2, again.path()) {
                    continue;
                }
                nested.fetch_add(1, Ordering::Relaxed);
                let r = recover(&Host::new(again.path()));
                check_recovered(
                    again.path(),
                    r,
                    &before,
                    &format!(
                        "{what}, then a cut after recovery's call {} ({:?})",
                        j + 1,
                        rop
                    ),
                );
            }
        }

        // Or the machine rebooted: the kernel's settings are its boot values again.
        let rebooted = materialize(pristine.path(), &(img.0.clone(), BTreeMap::new()));
        fs::write(rebooted.path().join(BOOT_ID), "another boot\n").unwrap();
        let mut expect = before.clone();
        expect.insert(BOOT_ID.into(), b"another boot\n".to_vec());
        let host = Host::new(rebooted.path());
        let r = recover(&host).unwrap_or_else(|e| panic!("{what}, rebooted: {e}"));
        if let Some(r) = &r {
            assert!(
                r.restored.is_empty() && r.failed.is_empty(),
                "{what}, rebooted: {r}"
            );
        }
        assert_eq!(
            changed(&expect, &snapshot(rebooted.path())),
            Vec::<String>::new()
        );
        assert!(!journal(rebooted.path()).exists(), "{what}, rebooted");
    };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while let Some((what, img)) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    check(what, img);
                }
            });
        }
    });
    let (states, nested) = (states.into_inner(), nested.into_inner());
    eprintln!(
        "power cut: {} calls, {states} distinct trees after a cut, {nested} after a second cut in recovery",
        ops.len()
    );
    assert!(states > ops.len() / 2, "{states}");
}
