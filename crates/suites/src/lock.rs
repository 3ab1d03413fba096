//! One measurement at a time on a machine, whoever starts it: two runs at once each get about
//! half the CPU and memory bandwidth and would both report their halved scores.
//!
//! The lock is an `flock` on one file in the temporary directory, shared by every user: the
//! first run creates it readable by all, later runs (of any user) open it read-only when they
//! cannot write it — `flock` does not need write access. Tuning's journal lock cannot serve:
//! it exists only when settings are changed, which needs root. The kernel drops the lock when
//! the process dies, so a killed run never leaves the machine locked.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The lock file's name in the temporary directory.
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
}

/// Held while a measurement runs; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct MeasurementLock {
    _file: File,
    pub path: PathBuf,
}

/// `$TMPDIR` (else `/tmp`): the one directory every user of the machine can write.
pub fn default_dir() -> PathBuf {
    std::env::temp_dir()
}

fn open(path: &Path) -> std::io::Result<(File, bool)> {
    for _ in 0..3 {
        match OpenOptions::new().read(true).write(true).open(path) {
            Ok(f) => return Ok((f, true)),
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                return File::open(path).map(|f| (f, false));
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        // Readable by all so every other user can open it to lock it.
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(path)
        {
            Ok(f) => {
                // The umask may have taken read permissions away.
                let _ = f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
                return Ok((f, true));
            }
            // Created by another run meanwhile: open that one.
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    File::open(path).map(|f| (f, false))
}

impl MeasurementLock {
    /// Take the lock in `dir` without waiting; `Busy` names the holder when it wrote itself
    /// into the file.
    pub fn acquire(dir: &Path) -> Result<MeasurementLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let (mut file, writable) = open(&path).map_err(io)?;
        // SAFETY: flock on a file descriptor we own; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != ErrorKind::WouldBlock {
                return Err(io(e));
            }
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let text = text.trim();
            let holder = if text.is_empty() {
                String::new()
            } else {
                format!(" ({text})")
            };
            return Err(LockError::Busy { path, holder });
        }
        if writable {
            // Who holds it, for the message another run prints; best effort.
            let _ = file.set_len(0);
            let _ = file.rewind();
            let _ = write!(file, "pid {}", std::process::id());
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
        let (f, _) = open(&p).unwrap();
        // SAFETY: flock on an fd we own.
        assert_eq!(
            unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
            0
        );
        let e = MeasurementLock::acquire(d.path()).unwrap_err();
        assert!(matches!(e, LockError::Busy { .. }), "{e}");
    }
}
