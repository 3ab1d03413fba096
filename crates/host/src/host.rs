//! `Host`: the one read-only door to a machine's /proc, /sys, /dev and /etc.
//!
//! Every path is relative to a root directory (`/` for the live machine, a fixture tree in
//! tests), so the whole tool can be run against recordings of real machines.

use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// An error reading one file below the root, with the path that failed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct ReadError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl ReadError {
    pub fn is_not_found(&self) -> bool {
        self.source.kind() == std::io::ErrorKind::NotFound
    }
    /// Short human reason: "not present", "permission denied", …
    pub fn reason(&self) -> String {
        match self.source.kind() {
            std::io::ErrorKind::NotFound => "not present".into(),
            std::io::ErrorKind::PermissionDenied => "permission denied".into(),
            _ => self.source.to_string(),
        }
    }
}

/// Files in /proc and /sys are small; anything bigger than this is not what we expect and is
/// cut off rather than read whole (a fixture or a device file could be huge).
const MAX_READ: u64 = 4 << 20;

/// `/dev/kmsg`'s device number, major and minor (Linux Documentation/admin-guide/devices.txt:
/// 1:11 among the memory devices, whose 1:5 is `/dev/zero`).
pub const KMSG_DEVICE: (u32, Option<u32>) = (1, Some(11));
/// `/dev/cpu/N/msr`'s, the x86 model-specific registers (same list: major 202, minor N).
pub const MSR_DEVICE: (u32, Option<u32>) = (202, None);

/// A read-only view of one machine rooted at a directory.
#[derive(Debug, Clone)]
pub struct Host {
    root: PathBuf,
    cpuinfo: Option<PathBuf>,
}

/// See [`Host::filesystem_space`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsSpace {
    pub free_bytes: u64,
    pub in_memory: bool,
}

impl Host {
    /// The machine rooted at `root` (`/` for the live machine).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Host {
            root: root.into(),
            cpuinfo: None,
        }
    }

    /// The live machine.
    pub fn live() -> Self {
        Host::new("/")
    }

    /// Replace `/proc/cpuinfo` with another file (sbc-bench's `CPUINFOFILE`). The path is
    /// taken as given, not below the root.
    pub fn with_cpuinfo(mut self, path: Option<PathBuf>) -> Self {
        self.cpuinfo = path;
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// True when this Host looks at the machine we are running on.
    pub fn is_live(&self) -> bool {
        self.root == Path::new("/")
    }

    /// Space free to an ordinary user on the filesystem holding `path` (an absolute path
    /// on the machine we run on, e.g. a scratch directory), and whether that filesystem
    /// lives in memory (tmpfs/ramfs: writes there never reach a device).
    pub fn filesystem_space(&self, path: &Path) -> Option<FsSpace> {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: a valid NUL-terminated path and a zeroed out-parameter.
        if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
            return None;
        }
        const TMPFS: i64 = 0x0102_1994;
        const RAMFS: i64 = 0x8584_58f6;
        let magic = st.f_type as i64;
        Some(FsSpace {
            free_bytes: st.f_bavail as u64 * st.f_bsize as u64,
            in_memory: magic == TMPFS || magic == RAMFS,
        })
    }

    pub fn cpuinfo_override(&self) -> Option<&Path> {
        self.cpuinfo.as_deref()
    }

    /// The real path of `rel` ("proc/stat" or "/proc/stat") below the root. Parent components
    /// are dropped so a relative path can never escape the root.
    pub fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        let mut p = self.root.clone();
        for c in rel.as_ref().components() {
            if let Component::Normal(n) = c {
                p.push(n);
            }
        }
        p
    }

    /// Whole file as bytes (capped at 4 MiB).
    pub fn read_bytes(&self, rel: impl AsRef<Path>) -> Result<Vec<u8>, ReadError> {
        let path = self.path(rel);
        read_capped(&path).map_err(|source| ReadError { path, source })
    }

    /// Whole file as text; invalid UTF-8 is replaced, never an error.
    pub fn read(&self, rel: impl AsRef<Path>) -> Result<String, ReadError> {
        self.read_bytes(rel)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// Trimmed text, or None when the file is missing, unreadable or empty.
    pub fn read_trimmed(&self, rel: impl AsRef<Path>) -> Option<String> {
        let s = self.read(rel).ok()?;
        let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        (!t.is_empty()).then(|| t.to_string())
    }

    /// A file holding one integer.
    pub fn read_u64(&self, rel: impl AsRef<Path>) -> Option<u64> {
        self.read_trimmed(rel)?.parse().ok()
    }

    /// A file holding one signed integer (temperatures can be negative).
    pub fn read_i64(&self, rel: impl AsRef<Path>) -> Option<i64> {
        self.read_trimmed(rel)?.parse().ok()
    }

    pub fn exists(&self, rel: impl AsRef<Path>) -> bool {
        // symlink_metadata: a dangling link (common in fixture roots copied out of context)
        // still "exists" as an entry.
        std::fs::symlink_metadata(self.path(rel)).is_ok()
    }

    pub fn is_dir(&self, rel: impl AsRef<Path>) -> bool {
        self.path(rel).is_dir()
    }

    /// Names in a directory, sorted naturally ("cpu2" before "cpu10"); empty when missing.
    pub fn list(&self, rel: impl AsRef<Path>) -> Vec<String> {
        let mut names: Vec<String> = match std::fs::read_dir(self.path(rel)) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        };
        names.sort_by(|a, b| natural_cmp(a, b));
        names
    }

    /// Target of a symlink below the root, as stored (usually relative).
    pub fn read_link(&self, rel: impl AsRef<Path>) -> Option<PathBuf> {
        std::fs::read_link(self.path(rel)).ok()
    }

    /// Open a file for repeated reads (the sampler keeps handles open). Only a regular file
    /// is opened (see [`open_regular`]): the checks cost nothing per read.
    pub fn open(&self, rel: impl AsRef<Path>) -> Result<File, ReadError> {
        let path = self.path(rel);
        open_regular(&path).map_err(|source| ReadError { path, source })
    }

    /// Open a device node the kernel provides (`dev/kmsg`, `dev/cpu/N/msr`): a character
    /// device of the given major and (if given) minor number ([`KMSG_DEVICE`],
    /// [`MSR_DEVICE`]), or a regular file standing in for it in a recorded tree. Anything
    /// else (a FIFO, a socket, another device) is refused unopened.
    pub fn open_device(
        &self,
        rel: impl AsRef<Path>,
        (major, minor): (u32, Option<u32>),
    ) -> Result<File, ReadError> {
        let path = self.path(rel);
        open_checked(&path, true, |m| {
            use std::os::unix::fs::{FileTypeExt, MetadataExt};
            let dev = m.rdev();
            m.is_file()
                || (m.file_type().is_char_device()
                    && libc::major(dev) == major
                    && minor.is_none_or(|n| libc::minor(dev) == n))
        })
        .map_err(|source| ReadError { path, source })
    }

    /// `/proc/cpuinfo`, or the file given with `--cpuinfo` / `CPUINFOFILE`.
    pub fn cpuinfo(&self) -> Result<String, ReadError> {
        match &self.cpuinfo {
            Some(p) => read_capped(p)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .map_err(|source| ReadError {
                    path: p.clone(),
                    source,
                }),
            None => self.read("proc/cpuinfo"),
        }
    }
}

fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    read_regular(path, MAX_READ)
}

/// `1 GiB`, `4 MiB`, `512 bytes`: a size in the largest binary unit that divides it (or KiB,
/// MiB, GiB with one decimal).
fn human_size(b: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (u, name) in UNITS {
        if b >= u {
            return if b % u == 0 {
                format!("{} {name}", b / u)
            } else {
                format!("{:.1} {name}", b as f64 / u as f64)
            };
        }
    }
    format!("{b} bytes")
}

/// What a file that is not a regular one is, in words: "a FIFO", "a socket", "a character
/// device", "a block device", "a directory".
pub fn file_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "something else"
    }
}

/// The error for a file that is not what may be read there: `is a FIFO, not a regular file`.
fn refused(t: &std::fs::FileType) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("is {}, not a regular file: refused", file_kind(t)),
    )
}

/// Open `path` for reading as every file that someone else may have put there is opened:
/// its type looked at first (following links) and anything but a regular file refused
/// unopened — a FIFO would block the open, a device could be read forever, and opening
/// some devices does something (a watchdog starts, a tape rewinds); then opened without
/// waiting or taking a terminal, and the open descriptor checked to be that same file (it
/// may have been swapped between the look and the open).
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    open_checked(path, true, |m| m.is_file())
}

fn open_checked(
    path: &Path,
    follow: bool,
    ok: impl Fn(&std::fs::Metadata) -> bool,
) -> std::io::Result<File> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let before = if follow {
        std::fs::metadata(path)?
    } else {
        std::fs::symlink_metadata(path)?
    };
    if !ok(&before) {
        return Err(refused(&before.file_type()));
    }
    let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC | nofollow)
        .open(path)?;
    let now = f.metadata()?;
    if !ok(&now) {
        return Err(refused(&now.file_type()));
    }
    if (now.dev(), now.ino()) != (before.dev(), before.ino()) {
        return Err(std::io::Error::other(
            "was replaced by another file while being opened: refused",
        ));
    }
    Ok(f)
}

/// At most `max` bytes of the regular file at `path` (opened by [`open_regular`]). A file
/// whose size says it is larger (a 1 GiB sparse one in a recorded tree) is refused unread;
/// one that tells no size (a /proc file) is read up to the limit, never past it.
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    read_limited(open_regular(path)?, max)
}

/// What is at `path` in a folder where others may write too, where truebench puts files of
/// its own (a site, an export): `None` when nothing is there; a regular file's bytes (at
/// most `max`, as [`read_regular`]); anything else — a link, even to a regular file, a FIFO,
/// a socket, a device, a folder — refused unopened with what it is.
pub fn read_if_present(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    match open_checked(path, false, |m| m.is_file()) {
        Ok(f) => read_limited(f, max).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The regular file at `path` opened for reading, as [`read_if_present`] opens it: `None`
/// when nothing is there; anything but a regular file (a link too) refused unopened.
pub fn open_if_present(path: &Path) -> std::io::Result<Option<File>> {
    match open_checked(path, false, |m| m.is_file()) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn read_limited(f: File, max: u64) -> std::io::Result<Vec<u8>> {
    let size = f.metadata()?.len();
    if size > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "is {}, larger than the {} this file is read up to: refused",
                human_size(size),
                human_size(max)
            ),
        ));
    }
    // Its size as the capacity (and a byte to see the end): a file of hundreds of MB read
    // into a growing buffer is copied again at each doubling.
    let mut buf = Vec::with_capacity(usize::try_from(size).map_or(0, |s| s.saturating_add(1)));
    f.take(max).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Compare strings so that embedded numbers sort by value: cpu2 < cpu10, hwmon9 < hwmon10.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let na = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let nb = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (da, db) = (&a[..na], &b[..nb]);
                let ta = trim_zeros(da);
                let tb = trim_zeros(db);
                let ord = ta.len().cmp(&tb.len()).then_with(|| ta.cmp(tb));
                if ord != std::cmp::Ordering::Equal {
                    return ord;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let z = d.iter().take_while(|&&c| c == b'0').count();
    if z == d.len() {
        &d[d.len().saturating_sub(1)..]
    } else {
        &d[z..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_escape_the_root() {
        let h = Host::new("/tmp/fixture");
        assert_eq!(h.path("/proc/stat"), Path::new("/tmp/fixture/proc/stat"));
        assert_eq!(
            h.path("../../etc/passwd"),
            Path::new("/tmp/fixture/etc/passwd")
        );
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["cpu10", "cpu2", "cpu1", "cpufreq", "cpu0"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["cpu0", "cpu1", "cpu2", "cpu10", "cpufreq"]);
    }

    #[test]
    fn missing_files_are_none_not_errors() {
        let d = tempfile::tempdir().unwrap();
        let h = Host::new(d.path());
        assert!(h.read_trimmed("proc/nothing").is_none());
        assert!(h.list("sys/none").is_empty());
        let e = h.read("proc/nothing").unwrap_err();
        assert!(e.is_not_found());
        assert!(e.to_string().contains("proc/nothing"));
    }

    #[test]
    fn cpuinfo_override_is_read_instead() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("x.cpuinfo");
        std::fs::write(&f, "processor : 0\n").unwrap();
        let h = Host::new("/nonexistent").with_cpuinfo(Some(f));
        assert!(h.cpuinfo().unwrap().contains("processor"));
    }
}
