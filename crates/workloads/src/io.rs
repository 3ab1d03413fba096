//! Storage read throughput, the kernel of `truebench io` (the Arndale measurements: eMMC reads 29 → 44 MB/s
//! with the CPU forced to its top clock). Three tests, each in MB/s (10^6 bytes) and IOPS with
//! the CPU time this thread spent per I/O:
//!
//! - **cached**: 2 MiB read again and again from the page cache (what `hdparm -T` reports: the
//!   memory and CPU path, no device);
//! - **sequential**: 2 MiB reads with `O_DIRECT` from the start on (`hdparm -t --direct`);
//! - **random**: 4 KiB reads with `O_DIRECT` at random 4 KiB-aligned offsets, one at a time
//!   (fio `--rw=randread --bs=4k --ioengine=psync --iodepth=1 --direct=1`), with latency
//!   percentiles (nearest rank, `truebench_stats::percentile`).
//!
//! Reads only. A scratch file is written only when the caller asks for one ([`Scratch`]), and
//! removed when it is dropped.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use truebench_stats::Sorted;

use crate::rng::SplitMix64;

/// One sequential or cached read, as hdparm.
pub const SEQ_BLOCK: usize = 2 * 1024 * 1024;
/// One random read, as fio's `--bs=4k`.
pub const RANDOM_BLOCK: usize = 4096;
/// O_DIRECT needs buffers, offsets and lengths aligned to the logical block size; 4 KiB covers
/// every common device. The cached test uses the same alignment: on AMD Zen the kernel's copy
/// into a buffer that is not cache-line aligned ran ten times slower (1.8 vs 22 GB/s, see
/// BENCHMARKS.md), which would measure the buffer, not the page cache.
const ALIGN: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum IoError {
    #[error("{path}: cannot open for reading: {source}{hint}")]
    Open {
        path: PathBuf,
        source: std::io::Error,
        hint: String,
    },
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot write the scratch file: {source}")]
    Scratch {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {size} bytes is too small to test (at least {min} bytes)")]
    TooSmall { path: PathBuf, size: u64, min: u64 },
}

/// Which test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IoTest {
    Cached,
    Sequential,
    Random,
}

impl IoTest {
    pub const ALL: [IoTest; 3] = [IoTest::Cached, IoTest::Sequential, IoTest::Random];

    pub fn name(self) -> &'static str {
        match self {
            IoTest::Cached => "cached",
            IoTest::Sequential => "sequential",
            IoTest::Random => "random",
        }
    }
}

/// What one test measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IoResult {
    pub test: IoTest,
    /// Whether O_DIRECT was in effect (false for `cached`, and where the filesystem refused it).
    pub direct: bool,
    pub block_bytes: u64,
    pub ios: u64,
    pub bytes: u64,
    pub seconds: f64,
    pub mb_s: f64,
    pub iops: f64,
    /// CPU time of the reading thread per I/O, µs.
    pub cpu_us_per_io: Option<f64>,
    /// Per-I/O latency (random test only), µs.
    pub latency_p50_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    pub latency_max_us: Option<f64>,
}

/// A file created for the test, removed on drop. Beside it a marker (`PATH.truebench-scratch`,
/// holding the pid) says it is ours, so a run killed with -9 leaves nothing the next run cannot
/// recognise and remove ([`Scratch::remove_stale`]).
pub struct Scratch {
    pub path: PathBuf,
}

fn marker(path: &Path) -> PathBuf {
    let mut m = path.as_os_str().to_owned();
    m.push(".truebench-scratch");
    PathBuf::from(m)
}

impl Scratch {
    /// Remove `path` when a dead truebench run left it as its scratch file (its marker names a
    /// process that no longer exists). True when something was removed.
    pub fn remove_stale(path: &Path) -> bool {
        let m = marker(path);
        // Only a marker truebench itself wrote: a regular file of this user, not a link
        // someone planted beside a file of theirs to have it removed.
        let Ok(mut f) = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&m)
        else {
            return false;
        };
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        match f.metadata() {
            Ok(md) if md.is_file() && md.uid() == me && md.len() < 64 => {}
            _ => return false,
        }
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut f, &mut text);
        let Ok(pid) = text.trim().parse::<i32>() else {
            return false;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        if alive {
            return false;
        }
        let _ = std::fs::remove_file(path);
        std::fs::remove_file(&m).is_ok()
    }

    /// Create `path` (which must not exist: never over the user's data, never through a
    /// link) with `bytes` of pseudo-random content, flushed to the device.
    pub fn create(path: &Path, bytes: u64) -> Result<Scratch, IoError> {
        let err = |source| IoError::Scratch {
            path: path.to_path_buf(),
            source,
        };
        // O_EXCL: a file or a link already at either name is refused, never written through.
        let new = |p: &Path| {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW)
                .mode(0o644)
                .open(p)
        };
        let mut f = new(path).map_err(err)?;
        let m = marker(path);
        let mut mf = match new(&m) {
            Ok(mf) => mf,
            Err(source) => {
                // Only the file made here goes; whatever is at the marker's name is not ours.
                let _ = std::fs::remove_file(path);
                return Err(IoError::Scratch { path: m, source });
            }
        };
        let s = Scratch {
            path: path.to_path_buf(),
        };
        mf.write_all(std::process::id().to_string().as_bytes())
            .map_err(err)?;
        let mut rng = SplitMix64::new(0x5eed);
        let mut buf = vec![0u8; SEQ_BLOCK];
        let mut left = bytes;
        while left > 0 {
            for w in buf.chunks_exact_mut(8) {
                w.copy_from_slice(&rng.next_u64().to_le_bytes());
            }
            let n = left.min(buf.len() as u64) as usize;
            f.write_all(&buf[..n]).map_err(err)?;
            left -= n as u64;
        }
        f.sync_all().map_err(err)?;
        Ok(s)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_file(marker(&self.path));
    }
}

/// A buffer aligned for O_DIRECT.
struct Aligned {
    ptr: *mut u8,
    layout: Layout,
}

impl Aligned {
    fn new(len: usize) -> Aligned {
        let layout = Layout::from_size_align(len, ALIGN).expect("valid layout");
        // SAFETY: non-zero size; checked for null below.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory for a {len}-byte buffer");
        Aligned { ptr, layout }
    }

    fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: ptr is a live allocation of layout.size() bytes owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr, self.layout) };
    }
}

/// CPU time of the calling thread, seconds.
fn thread_cpu() -> Option<f64> {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_THREAD fills the struct we own.
    let r = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    (r == 0).then(|| {
        let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
        t(ru.ru_utime) + t(ru.ru_stime)
    })
}

/// Open for reading, with O_DIRECT when asked and allowed (tmpfs refuses it: then without,
/// and the result says so).
fn open(path: &Path, direct: bool) -> Result<(File, bool), IoError> {
    let plain = || OpenOptions::new().read(true).open(path);
    let res = if direct {
        match OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
        {
            Ok(f) => Ok((f, true)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => plain().map(|f| (f, false)),
            Err(e) => Err(e),
        }
    } else {
        plain().map(|f| (f, false))
    };
    res.map_err(|source| IoError::Open {
        hint: match source.raw_os_error() {
            Some(libc::EACCES) => {
                " (reading a block device needs root or membership of its group, usually `disk`)"
                    .into()
            }
            // Root gets EPERM where a container, a security module or the device itself
            // forbids the open.
            Some(libc::EPERM) => {
                " (refused even with the right permissions: a container, a security module or the device forbids it)"
                    .into()
            }
            _ => String::new(),
        },
        path: path.to_path_buf(),
        source,
    })
}

/// Whether `path` can be read with O_DIRECT (tmpfs and some FUSE filesystems refuse it).
pub fn direct_supported(path: &Path) -> Result<bool, IoError> {
    open(path, true).map(|(_, d)| d)
}

/// Size of a regular file or block device, bytes.
pub fn size_of(path: &Path) -> Result<u64, IoError> {
    let (f, _) = open(path, false)?;
    let read = |source| IoError::Read {
        path: path.to_path_buf(),
        source,
    };
    let meta = f.metadata().map_err(read)?;
    if meta.is_file() {
        return Ok(meta.len());
    }
    // A block device: its size is where seeking to the end lands.
    use std::io::Seek;
    let mut f = f;
    f.seek(std::io::SeekFrom::End(0)).map_err(read)
}

/// Run `test` on `path` (of `size` bytes, only the first `size` read) for about `seconds`,
/// or until `stop`.
pub fn run(
    path: &Path,
    size: u64,
    test: IoTest,
    seconds: f64,
    stop: &AtomicBool,
) -> Result<IoResult, IoError> {
    let block = match test {
        IoTest::Random => RANDOM_BLOCK,
        _ => SEQ_BLOCK,
    };
    if size < (block as u64) * 2 {
        return Err(IoError::TooSmall {
            path: path.to_path_buf(),
            size,
            min: block as u64 * 2,
        });
    }
    let (f, direct) = open(path, test != IoTest::Cached)?;
    let read_err = |source| IoError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut buf = Aligned::new(block);
    let blocks = size / block as u64;
    let mut rng = SplitMix64::new(size ^ 0x10);
    let mut lat: Vec<f64> = Vec::new();
    if test == IoTest::Cached {
        // Into the page cache first, untimed.
        f.read_at(buf.as_mut(), 0).map_err(read_err)?;
    }
    let limit = Duration::from_secs_f64(seconds.max(0.01));
    let cpu0 = thread_cpu();
    let t0 = Instant::now();
    let (mut ios, mut bytes, mut next) = (0u64, 0u64, 0u64);
    while t0.elapsed() < limit && !stop.load(Ordering::Relaxed) {
        let off = match test {
            IoTest::Cached => 0,
            IoTest::Sequential => {
                let o = next * block as u64;
                next = (next + 1) % blocks;
                o
            }
            IoTest::Random => rng.next_u64() % blocks * block as u64,
        };
        // Only the random test keeps per-I/O latency: no clock read around the others.
        let t = (test == IoTest::Random).then(Instant::now);
        let n = f.read_at(buf.as_mut(), off).map_err(read_err)?;
        if let Some(t) = t {
            lat.push(t.elapsed().as_secs_f64() * 1e6);
        }
        ios += 1;
        bytes += n as u64;
    }
    let secs = t0.elapsed().as_secs_f64().max(1e-9);
    let cpu = match (cpu0, thread_cpu()) {
        (Some(a), Some(b)) if ios > 0 => Some((b - a) * 1e6 / ios as f64),
        _ => None,
    };
    let lat = Sorted::new(lat);
    Ok(IoResult {
        test,
        direct,
        block_bytes: block as u64,
        ios,
        bytes,
        seconds: secs,
        mb_s: bytes as f64 / secs / 1e6,
        iops: ios as f64 / secs,
        cpu_us_per_io: cpu,
        latency_p50_us: lat.percentile(50.0),
        latency_p99_us: lat.percentile(99.0),
        latency_max_us: lat.max(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory on a disk filesystem (tmpfs refuses O_DIRECT): /var/tmp, which the FHS
    /// keeps on disk.
    fn disk_dir() -> &'static str {
        "/var/tmp"
    }

    #[test]
    fn every_test_reads_a_scratch_file_and_it_is_removed() {
        let dir = tempfile::tempdir_in(disk_dir()).unwrap();
        let path = dir.path().join("scratch");
        let s = Scratch::create(&path, 8 * 1024 * 1024).unwrap();
        assert_eq!(size_of(&path).unwrap(), 8 * 1024 * 1024);
        // Never over an existing file.
        let e = Scratch::create(&path, 4096).err().unwrap().to_string();
        assert!(e.contains("scratch"), "{e}");
        let stop = AtomicBool::new(false);
        for t in IoTest::ALL {
            let r = run(&path, 8 * 1024 * 1024, t, 0.2, &stop).unwrap();
            assert!(r.ios > 0 && r.mb_s > 0.0 && r.iops > 0.0, "{r:?}");
            assert_eq!(r.bytes, r.ios * r.block_bytes, "{r:?}");
            assert_eq!(r.direct, t != IoTest::Cached, "{r:?}");
            assert_eq!(r.latency_p50_us.is_some(), t == IoTest::Random, "{r:?}");
        }
        assert!(marker(&path).exists());
        drop(s);
        assert!(!path.exists() && !marker(&path).exists());
    }

    #[test]
    fn a_dead_run_s_scratch_file_is_removed_a_live_one_and_user_files_kept() {
        let dir = tempfile::tempdir_in(disk_dir()).unwrap();
        let (dead, live, user) = (
            dir.path().join("dead"),
            dir.path().join("live"),
            dir.path().join("user"),
        );
        for p in [&dead, &live, &user] {
            std::fs::write(p, b"data").unwrap();
        }
        // pid 0x7ffffffe does not exist; this process does.
        std::fs::write(marker(&dead), "2147483646").unwrap();
        std::fs::write(marker(&live), std::process::id().to_string()).unwrap();
        assert!(Scratch::remove_stale(&dead));
        assert!(!dead.exists() && !marker(&dead).exists());
        assert!(!Scratch::remove_stale(&live) && live.exists());
        assert!(!Scratch::remove_stale(&user) && user.exists());
    }

    /// A user of the machine plants links where root's scratch file and its marker go: the
    /// link targets stay untouched, the run refuses with the name, and only what the run made
    /// is removed.
    #[test]
    fn planted_links_are_never_written_through() {
        let dir = tempfile::tempdir_in(disk_dir()).unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        // At the scratch file's own name.
        let path = dir.path().join("scratch");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        assert!(Scratch::create(&path, 4096).is_err());
        // At the marker's name (a dangling link: O_CREAT alone would create its target).
        let path2 = dir.path().join("scratch2");
        let target = dir.path().join("would-be-created");
        std::os::unix::fs::symlink(&target, marker(&path2)).unwrap();
        let e = Scratch::create(&path2, 4096).err().unwrap().to_string();
        assert!(e.contains("truebench-scratch"), "{e}");
        assert!(!target.exists() && !path2.exists());
        assert!(
            std::fs::symlink_metadata(marker(&path2)).is_ok(),
            "not ours to remove"
        );
        // A marker that is a link to a file holding a dead pid does not get a file removed.
        let user = dir.path().join("user");
        std::fs::write(&user, b"data").unwrap();
        let fake = dir.path().join("fake-marker");
        std::fs::write(&fake, "2147483646").unwrap();
        std::os::unix::fs::symlink(&fake, marker(&user)).unwrap();
        assert!(!Scratch::remove_stale(&user) && user.exists());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    }

    #[test]
    fn errors_name_the_file() {
        let stop = AtomicBool::new(false);
        let e = run(
            Path::new("/no/such/file"),
            1 << 30,
            IoTest::Random,
            0.1,
            &stop,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("/no/such/file") && e.contains("cannot open"),
            "{e}"
        );
        let dir = tempfile::tempdir_in(disk_dir()).unwrap();
        let small = dir.path().join("small");
        std::fs::write(&small, [0u8; 100]).unwrap();
        let e = run(&small, 100, IoTest::Sequential, 0.1, &stop)
            .unwrap_err()
            .to_string();
        assert!(e.contains("too small"), "{e}");
    }
}
