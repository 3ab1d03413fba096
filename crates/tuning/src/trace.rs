//! Every change the tuning path makes to the disk or to a setting, reported one call at a
//! time to a recorder — the power-cut test (tests/power_cut.rs) replays each prefix of that
//! record as a power cut would leave the disk and checks the next start's recovery. Compiled
//! in only with the `io-trace` feature (the crate's own tests turn it on); without it every
//! call below is an empty inline function.

use std::path::Path;

/// One system call of the tuning path that changes something, after it succeeded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// A directory was created (its entry durable only after its parent's fsync).
    Mkdir(std::path::PathBuf),
    /// An empty file was created (the journal, `O_CREAT|O_EXCL`).
    Create(std::path::PathBuf),
    /// Bytes appended to a file (page cache: durable only after an fsync of the file).
    Append(std::path::PathBuf, Vec<u8>),
    /// A file cut to this length (a torn journal tail dropped).
    Truncate(std::path::PathBuf, u64),
    /// fsync/fdatasync of a file: its data and size are durable.
    Fsync(std::path::PathBuf),
    /// fsync of a directory: its entries (created, removed) are durable.
    FsyncDir(std::path::PathBuf),
    /// A file's name removed.
    Unlink(std::path::PathBuf),
    /// A setting file now holds these bytes (opened with `O_TRUNC`: empty, then the value).
    /// A kernel setting takes effect at once, so this is never "not yet durable".
    Setting(std::path::PathBuf, Vec<u8>),
}

#[cfg(feature = "io-trace")]
mod imp {
    use super::Op;
    use std::cell::RefCell;

    thread_local! {
        static REC: RefCell<Option<Vec<Op>>> = const { RefCell::new(None) };
    }

    pub fn record(op: impl FnOnce() -> Op) {
        REC.with(|r| {
            if let Some(v) = r.borrow_mut().as_mut() {
                v.push(op());
            }
        });
    }

    /// Record the calls `f` makes on this thread (the tuning path runs on its caller's
    /// thread), returning what `f` returned and the calls in order.
    pub fn recording<T>(f: impl FnOnce() -> T) -> (T, Vec<Op>) {
        let prev = REC.with(|r| r.borrow_mut().replace(Vec::new()));
        let out = f();
        let ops = REC.with(|r| std::mem::replace(&mut *r.borrow_mut(), prev));
        (out, ops.unwrap_or_default())
    }
}

#[cfg(feature = "io-trace")]
pub use imp::recording;

#[inline(always)]
pub(crate) fn record(_op: impl FnOnce() -> Op) {
    #[cfg(feature = "io-trace")]
    imp::record(_op);
}

pub(crate) fn mkdir(p: &Path) {
    record(|| Op::Mkdir(p.into()));
}
pub(crate) fn create(p: &Path) {
    record(|| Op::Create(p.into()));
}
pub(crate) fn append(p: &Path, b: &[u8]) {
    record(|| Op::Append(p.into(), b.to_vec()));
}
pub(crate) fn truncate(p: &Path, len: u64) {
    record(|| Op::Truncate(p.into(), len));
}
pub(crate) fn fsync(p: &Path) {
    record(|| Op::Fsync(p.into()));
}
pub(crate) fn fsync_dir(p: &Path) {
    record(|| Op::FsyncDir(p.into()));
}
pub(crate) fn unlink(p: &Path) {
    record(|| Op::Unlink(p.into()));
}
pub(crate) fn setting(p: &Path, b: &[u8]) {
    record(|| Op::Setting(p.into(), b.to_vec()));
}
