//! One measurement at a time on a machine, whoever starts it: two runs at once each get about
//! half the CPU and memory bandwidth and would both report their halved scores.
//!
//! The lock is an `flock` on one file in a directory every user of the machine sees, whatever
//! their `TMPDIR`: `/run/lock`, else `/var/lock`, else the temporary directory
//! (`TRUEBENCH_LOCK_DIR` overrides it: tests, containers). The first run creates it readable by
//! all, later runs (of any user) open it read-only when they cannot write it — `flock` does not
//! need write access. The kernel drops the lock when the process dies, so a killed run never
//! leaves the machine locked.
//!
//! That directory is writable by every user, and root runs truebench: the file is opened
//! without following a symbolic link (`O_NOFOLLOW`) and created only exclusively; it is
//! refused unless it is a regular file owned by root or by the user running truebench — or,
//! since every user's run shares it, another user's file that is nothing but a truebench lock
//! (one link, empty or a holder's pid), which is then only locked, never written. The holder's
//! pid is written only into our own file that is empty or holds a pid — never another file's
//! bytes.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The lock file's name in the lock directory.
pub const LOCK_FILE: &str = "truebench-measurement.lock";

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another truebench measurement is running on this machine{holder} (lock {}): two at once halve each other's scores; wait until it has ended", path.display())]
    Busy { path: PathBuf, holder: String },
    #[error("cannot open the lock file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("refusing the lock file {}: {why}; remove it (it is not truebench's) and run again", path.display())]
    Unsafe { path: PathBuf, why: String },
}

/// Held while a measurement runs; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct MeasurementLock {
    _file: File,
    pub path: PathBuf,
}

/// Where the machine's measurement lock lives: `TRUEBENCH_LOCK_DIR`, else `/run/lock`, else
/// `/var/lock`, else the temporary directory.
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("TRUEBENCH_LOCK_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    ["/run/lock", "/var/lock"]
        .iter()
        .map(PathBuf::from)
        .find(|d| d.is_dir())
        .unwrap_or_else(std::env::temp_dir)
}

/// Open without following a link, and without waiting: a FIFO planted at the name would
/// block a read-only open until a writer comes (`O_NONBLOCK`; the file type is checked on the
/// open descriptor before anything is read); create only exclusively. (file, writable,
/// created)
fn open(path: &Path) -> std::io::Result<(File, bool, bool)> {
    let nofollow = |o: &mut OpenOptions| {
        o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK);
    };
    for _ in 0..3 {
        let mut o = OpenOptions::new();
        o.read(true).write(true);
        nofollow(&mut o);
        match o.open(path) {
            Ok(f) => return Ok((f, true, false)),
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                let mut o = OpenOptions::new();
                o.read(true);
                nofollow(&mut o);
                return o.open(path).map(|f| (f, false, false));
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        // Readable by all so every other user can open it to lock it.
        let mut o = OpenOptions::new();
        o.read(true).write(true).create_new(true).mode(0o644);
        nofollow(&mut o);
        match o.open(path) {
            Ok(f) => {
                // The umask may have taken read permissions away.
                let _ = f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
                return Ok((f, true, true));
            }
            // Created by another run meanwhile: open that one.
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    let mut o = OpenOptions::new();
    o.read(true);
    nofollow(&mut o);
    o.open(path).map(|f| (f, false, false))
}

/// `pid 1234`, or nothing: what truebench writes into the lock file.
fn is_holder_text(text: &str) -> bool {
    let t = text.trim();
    t.is_empty()
        || t.strip_prefix("pid ")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

impl MeasurementLock {
    /// Take the lock in `dir` without waiting; `Busy` names the holder when it wrote itself
    /// into the file; `Unsafe` when the file is a link, not a regular file, or another user's.
    pub fn acquire(dir: &Path) -> Result<MeasurementLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let unsafe_file = |why: String| LockError::Unsafe {
            path: path.clone(),
            why,
        };
        // Whatever is not a regular file (a FIFO, a socket, a device node) is refused before
        // it is opened at all: opening a device can have effects of its own.
        if let Ok(m) = std::fs::symlink_metadata(&path) {
            let t = m.file_type();
            if !t.is_file() && !t.is_symlink() {
                return Err(unsafe_file(format!(
                    "it is not a regular file but {}",
                    truebench_host::file_kind(&t)
                )));
            }
        }
        let (mut file, writable, created) = match open(&path) {
            Ok(x) => x,
            // O_NOFOLLOW on a symbolic link.
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                let target = std::fs::read_link(&path)
                    .map(|t| format!(" to {}", t.display()))
                    .unwrap_or_default();
                return Err(unsafe_file(format!("it is a symbolic link{target}")));
            }
            Err(e) => return Err(io(e)),
        };
        let meta = file.metadata().map_err(io)?;
        if !meta.file_type().is_file() {
            return Err(unsafe_file(format!(
                "it is not a regular file but {}",
                truebench_host::file_kind(&meta.file_type())
            )));
        }
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != 0 && meta.uid() != me {
            // Another user's run made it (the lock is shared), or someone planted a file.
            let mut text = String::new();
            let looks_ours = meta.nlink() == 1
                && meta.len() <= 64
                && (&mut file).take(64).read_to_string(&mut text).is_ok()
                && is_holder_text(&text);
            if !looks_ours {
                return Err(unsafe_file(format!(
                    "it belongs to uid {}, neither root nor this user (uid {me}), and is no truebench lock",
                    meta.uid()
                )));
            }
            let _ = file.rewind();
        }
        // SAFETY: flock on a file descriptor we own; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != ErrorKind::WouldBlock {
                return Err(io(e));
            }
            let mut text = String::new();
            let _ = (&mut file).take(256).read_to_string(&mut text);
            let text = text.trim();
            let holder = if is_holder_text(text) && !text.is_empty() {
                format!(" ({text})")
            } else {
                String::new()
            };
            return Err(LockError::Busy { path, holder });
        }
        if writable {
            // Who holds it, for the message another run prints; only into a file that holds
            // nothing but that (best effort).
            let mut text = String::new();
            let ours = created
                || ((&mut file).take(256).read_to_string(&mut text).is_ok()
                    && is_holder_text(&text));
            if ours && meta.uid() == me && meta.nlink() == 1 {
                let _ = file.set_len(0);
                let _ = file.rewind();
                let _ = write!(file, "pid {}", std::process::id());
            }
        }
        Ok(MeasurementLock { _file: file, path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let d = tempfile::tempdir().unwrap();
        let first = MeasurementLock::acquire(d.path()).unwrap();
        let e = MeasurementLock::acquire(d.path()).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, LockError::Busy { .. }), "{msg}");
        assert!(
            msg.contains(&format!("(pid {})", std::process::id())),
            "{msg}"
        );
        assert!(msg.contains(LOCK_FILE), "{msg}");
        drop(first);
        MeasurementLock::acquire(d.path()).unwrap();
    }

    #[test]
    fn a_lock_file_that_cannot_be_written_still_locks() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(LOCK_FILE);
        std::fs::write(&p, "").unwrap();
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o444)).unwrap();
        // As root the mode does not stop writing; read-only opening is what is tested then.
        let (f, _, _) = open(&p).unwrap();
        // SAFETY: flock on an fd we own.
        assert_eq!(
            unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
            0
        );
        let e = MeasurementLock::acquire(d.path()).unwrap_err();
        assert!(matches!(e, LockError::Busy { .. }), "{e}");
    }

    /// A link planted where the lock goes is refused, and its target left as it was.
    #[test]
    fn a_planted_link_is_refused_and_its_target_untouched() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("precious");
        std::fs::write(&target, "root's data\n").unwrap();
        std::os::unix::fs::symlink(&target, d.path().join(LOCK_FILE)).unwrap();
        let e = MeasurementLock::acquire(d.path()).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, LockError::Unsafe { .. }), "{msg}");
        assert!(
            msg.contains("symbolic link") && msg.contains("precious"),
            "{msg}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "root's data\n");
        // A directory in its place is refused too.
        let d2 = tempfile::tempdir().unwrap();
        std::fs::create_dir(d2.path().join(LOCK_FILE)).unwrap();
        assert!(MeasurementLock::acquire(d2.path()).is_err());
    }

    /// A file that holds something else than a pid is locked but never rewritten.
    #[test]
    fn a_file_with_other_content_is_not_truncated() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(LOCK_FILE);
        std::fs::write(&p, "not a pid\n").unwrap();
        let l = MeasurementLock::acquire(d.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "not a pid\n");
        drop(l);
        std::fs::write(&p, "pid 1").unwrap();
        let _l = MeasurementLock::acquire(d.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            format!("pid {}", std::process::id())
        );
        assert!(is_holder_text("") && is_holder_text("pid 42") && !is_holder_text("pid x"));
    }

    /// Another (non-root) user's lock is shared but never written; another user's file that is
    /// no truebench lock is refused, naming the owner.
    #[test]
    fn another_users_file_is_only_locked_or_refused() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            // Only root can give a file to another user; CI runs as root.
            eprintln!("SKIPPED another_users_file_is_only_locked_or_refused: needs root to chown");
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(LOCK_FILE);
        std::fs::write(&p, "pid 7").unwrap();
        std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
        let l = MeasurementLock::acquire(d.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "pid 7");
        drop(l);
        std::fs::write(&p, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
        let e = MeasurementLock::acquire(d.path()).unwrap_err();
        assert!(e.to_string().contains("uid 65534"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "root:x:0:0:root:/root:/bin/bash\n"
        );
    }
}
