//! Write and Read: streaming I/O that reaches the device.
//!
//! Write rewrites one file of `file_bytes` (sized by the caller from RAM, free space and the
//! cell's duration) in 1 MiB blocks, over and over. Read reads a file with `O_DIRECT`, so no
//! page cache answers for the device; where the filesystem refuses `O_DIRECT` (tmpfs), it
//! reads through the cache and drops the file's pages before each pass, and says so.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::{spawn, LoadError, LoadOptions};

const BLOCK: usize = 1 << 20;
/// Read's file: enough to keep a device busy; O_DIRECT makes a larger one unnecessary.
const READ_FILE_MAX: u64 = 256 << 20;

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> LoadError + 'a {
    move |source| LoadError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}

pub(super) fn start_write(
    threads: &mut Vec<JoinHandle<()>>,
    dir: &Path,
    opts: &LoadOptions,
    stop: &Arc<AtomicBool>,
) -> Result<String, LoadError> {
    let path = dir.join("write.dat");
    // Fail here, naming the file, rather than silently in the thread.
    File::create(&path).map_err(io("cannot create", &path))?;
    let size = opts.file_bytes.max(BLOCK as u64);
    let p = path.clone();
    spawn(threads, opts.nice, stop, move |stop| {
        let buf = vec![0x5au8; BLOCK];
        'outer: while !stop.load(Ordering::Relaxed) {
            let Ok(mut f) = File::create(&p) else { break };
            let mut written = 0u64;
            while written < size {
                if stop.load(Ordering::Relaxed) || f.write_all(&buf).is_err() {
                    break 'outer;
                }
                written += BLOCK as u64;
            }
        }
    });
    Ok(format!("rewriting {} to {}", gib(size), path.display()))
}

/// An aligned buffer for O_DIRECT.
struct Aligned {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

// SAFETY: the buffer is owned by one thread at a time.
unsafe impl Send for Aligned {}

impl Aligned {
    fn new(len: usize) -> Aligned {
        let layout = std::alloc::Layout::from_size_align(len, 4096).expect("valid layout");
        // SAFETY: non-zero size, valid alignment.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory for a 1 MiB read buffer");
        Aligned { ptr, layout }
    }
    fn slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr is valid for layout.size() bytes and exclusively borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

pub(super) fn start_read(
    threads: &mut Vec<JoinHandle<()>>,
    dir: &Path,
    opts: &LoadOptions,
    stop: &Arc<AtomicBool>,
) -> Result<String, LoadError> {
    let path = dir.join("read.dat");
    let size = opts.file_bytes.clamp(BLOCK as u64, READ_FILE_MAX);
    {
        let mut f = File::create(&path).map_err(io("cannot create", &path))?;
        let buf = vec![0xa5u8; BLOCK];
        let mut n = 0;
        while n < size {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            f.write_all(&buf).map_err(io("cannot write", &path))?;
            n += BLOCK as u64;
        }
        f.sync_all().map_err(io("cannot sync", &path))?;
    }
    let direct = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&path)
        .is_ok_and(|mut f| {
            let mut b = Aligned::new(BLOCK);
            f.read(b.slice()).is_ok()
        });
    let p = path.clone();
    spawn(threads, opts.nice, stop, move |stop| {
        let mut buf = Aligned::new(BLOCK);
        let mut o = OpenOptions::new();
        o.read(true);
        if direct {
            o.custom_flags(libc::O_DIRECT);
        }
        let Ok(mut f) = o.open(&p) else { return };
        while !stop.load(Ordering::Relaxed) {
            if !direct {
                // SAFETY: a valid fd; advice only.
                unsafe {
                    libc::posix_fadvise(
                        std::os::fd::AsRawFd::as_raw_fd(&f),
                        0,
                        0,
                        libc::POSIX_FADV_DONTNEED,
                    );
                }
            }
            loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                match f.read(buf.slice()) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            if f.seek(SeekFrom::Start(0)).is_err() {
                return;
            }
        }
    });
    Ok(format!(
        "reading {} from {} {}",
        gib(size),
        path.display(),
        if direct {
            "with O_DIRECT"
        } else {
            "through the page cache, dropped before each pass (the filesystem refuses O_DIRECT)"
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::super::tests::opts;
    use super::super::{start, LoadKind};
    use std::time::Duration;

    #[test]
    fn read_reports_how_it_reaches_the_device() {
        let d = tempfile::tempdir().unwrap();
        let l = start(LoadKind::Read, &opts(d.path())).unwrap();
        assert!(
            l.description.contains("reading 0.0 GiB"),
            "{}",
            l.description
        );
        assert!(l.description.contains("O_DIRECT"), "{}", l.description);
        std::thread::sleep(Duration::from_millis(100));
        l.stop();
    }

    #[test]
    fn an_unwritable_scratch_dir_is_an_error_naming_it() {
        // Below a regular file: no directory can be made there, not even by root.
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let dir = file.join("scratch");
        let e = start(LoadKind::Write, &opts(&dir)).err().unwrap();
        assert!(e.to_string().contains(&*dir.to_string_lossy()), "{e}");
    }
}
