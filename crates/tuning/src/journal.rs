//! The journal: an append-only text file of original values, written and fsync'ed before the
//! setting it protects is changed.
//!
//! One record per line, `<fields> <crc32>\n`. Values are escaped (`=` then printable ASCII
//! as is, every other byte as `%XX`), so any bytes survive and a line never contains a space
//! or newline of its own. A crash while appending leaves a torn last line: it has no newline
//! or a wrong checksum and is ignored — the setting it would have protected was never
//! written, because the write to /sys only happens after the record is on disk.
//!
//! ```text
//! S 1 <pid> <unix start> =<boot id>        session header (format version 1)
//! O <seq> =<root-relative path> =<bytes>   original bytes of a file, before its first change
//! R <seq>                                  restored
//! K <seq> =<reason>                        nothing to write back (skipped), with the reason
//! F <seq> =<reason>                        restoring failed for good (e.g. the file is gone)
//! ```

use crate::trace;
use rustix::fs::{flock, FlockOperation};
use rustix::io::Errno;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// State directory below the root (`/var/lib/truebench` on the live machine).
pub const DIR: &str = "var/lib/truebench";
/// Journal file name inside [`DIR`].
pub const FILE: &str = "tuning.journal";
const VERSION: u32 = 1;
/// A journal holds a line of at most a few hundred bytes per setting changed: a file past
/// this is not one.
const MAX_LEN: u64 = 16 << 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    Session {
        pid: u32,
        started: u64,
        boot_id: Option<String>,
    },
    Original {
        seq: u32,
        rel: String,
        bytes: Vec<u8>,
    },
    Restored {
        seq: u32,
    },
    Skipped {
        seq: u32,
        reason: String,
    },
    Failed {
        seq: u32,
        reason: String,
    },
}

impl Record {
    pub fn line(&self) -> String {
        let body = match self {
            Record::Session {
                pid,
                started,
                boot_id,
            } => format!(
                "S {VERSION} {pid} {started} {}",
                esc(boot_id.as_deref().unwrap_or("").as_bytes())
            ),
            Record::Original { seq, rel, bytes } => {
                format!("O {seq} {} {}", esc(rel.as_bytes()), esc(bytes))
            }
            Record::Restored { seq } => format!("R {seq}"),
            Record::Skipped { seq, reason } => format!("K {seq} {}", esc(reason.as_bytes())),
            Record::Failed { seq, reason } => format!("F {seq} {}", esc(reason.as_bytes())),
        };
        format!("{body} {:08x}\n", crc32(body.as_bytes()))
    }

    fn parse(line: &str) -> Option<Record> {
        let (body, crc) = line.rsplit_once(' ')?;
        if crc.len() != 8 || u32::from_str_radix(crc, 16).ok()? != crc32(body.as_bytes()) {
            return None;
        }
        let t: Vec<&str> = body.split(' ').collect();
        let num = |i: usize| t.get(i)?.parse::<u32>().ok();
        let text = |i: usize| {
            let b = unesc(t.get(i)?)?;
            String::from_utf8(b).ok()
        };
        let rec = match (t[0], t.len()) {
            ("S", 5) if num(1)? == VERSION => Record::Session {
                pid: num(2)?,
                started: t[3].parse().ok()?,
                boot_id: text(4).filter(|b| !b.is_empty()),
            },
            ("O", 4) => Record::Original {
                seq: num(1)?,
                rel: text(2)?,
                bytes: unesc(t[3])?,
            },
            ("R", 2) => Record::Restored { seq: num(1)? },
            ("K", 3) => Record::Skipped {
                seq: num(1)?,
                reason: text(2)?,
            },
            ("F", 3) => Record::Failed {
                seq: num(1)?,
                reason: text(2)?,
            },
            _ => return None,
        };
        Some(rec)
    }
}

/// What a journal file holds.
#[derive(Debug, Default)]
pub struct Parsed {
    pub records: Vec<Record>,
    /// Length of the complete lines; anything after is a torn append.
    pub valid_len: u64,
    /// 1-based numbers of complete lines that did not parse (corruption).
    pub bad_lines: Vec<usize>,
}

pub fn parse(data: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    let mut pos = 0usize;
    let mut n = 0;
    while let Some(nl) = data[pos..].iter().position(|&b| b == b'\n') {
        n += 1;
        let line = &data[pos..pos + nl];
        match std::str::from_utf8(line).ok().and_then(Record::parse) {
            Some(r) => out.records.push(r),
            None => out.bad_lines.push(n),
        }
        pos += nl + 1;
    }
    out.valid_len = pos as u64;
    out
}

fn esc(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() + 1);
    s.push('=');
    for &c in b {
        if (0x21..=0x7e).contains(&c) && c != b'%' {
            s.push(c as char);
        } else {
            let _ = write!(s, "%{c:02X}");
        }
    }
    s
}

fn unesc(s: &str) -> Option<Vec<u8>> {
    let s = s.strip_prefix('=')?.as_bytes();
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            let hex = std::str::from_utf8(s.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Some(out)
}

/// CRC-32 (IEEE), bitwise: journals are a few hundred bytes.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// An open journal that records are appended to.
#[derive(Debug)]
pub struct JournalFile {
    path: PathBuf,
    file: File,
    /// False when the file could only be opened read-only: nothing can be marked.
    writable: bool,
}

impl JournalFile {
    /// Create a new journal holding `header`, durably (file and directory entry).
    pub fn create(path: &Path, header: &Record) -> io::Result<JournalFile> {
        let mut file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .mode(0o644)
            .open(path)?;
        trace::create(path);
        let line = header.line();
        file.write_all(line.as_bytes())?;
        trace::append(path, line.as_bytes());
        file.sync_all()?;
        trace::fsync(path);
        sync_parent(path)?;
        Ok(JournalFile {
            path: path.to_path_buf(),
            file,
            writable: true,
        })
    }

    /// Open an existing journal, parse it, and cut off a torn last line so that appended
    /// markers start on a fresh line.
    pub fn open(path: &Path) -> io::Result<(JournalFile, Parsed)> {
        // A FIFO, socket, device or link at the name is no journal of ours: refused before it
        // is opened (a FIFO's read would wait forever at the start of every command).
        regular(path)?;
        let flags = libc_flags();
        let (mut file, writable) = match OpenOptions::new()
            .read(true)
            .append(true)
            .custom_flags(flags)
            .open(path)
        {
            Ok(f) => (f, true),
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => (
                OpenOptions::new()
                    .read(true)
                    .custom_flags(flags)
                    .open(path)?,
                false,
            ),
            Err(e) => return Err(e),
        };
        // It may have been swapped between the look and the open.
        let m = file.metadata()?;
        if !m.is_file() {
            return Err(not_regular(&m.file_type()));
        }
        if m.len() > MAX_LEN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "is {} bytes, more than any journal of ours ({} MiB at most): refused unread",
                    m.len(),
                    MAX_LEN >> 20
                ),
            ));
        }
        let mut data = Vec::new();
        file.read_to_end(&mut data)?;
        let parsed = parse(&data);
        if writable && parsed.valid_len < data.len() as u64 {
            file.set_len(parsed.valid_len)?;
            trace::truncate(path, parsed.valid_len);
            file.sync_all()?;
            trace::fsync(path);
        }
        Ok((
            JournalFile {
                path: path.to_path_buf(),
                file,
                writable,
            },
            parsed,
        ))
    }

    pub fn writable(&self) -> bool {
        self.writable
    }

    /// Append one record and make it durable before returning.
    pub fn append(&mut self, rec: &Record) -> io::Result<()> {
        if !self.writable {
            return Err(io::Error::from(io::ErrorKind::PermissionDenied));
        }
        // One write call per line: O_APPEND keeps it whole unless the machine dies mid-way,
        // and then the checksum tells.
        let line = rec.line();
        self.file.write_all(line.as_bytes())?;
        trace::append(&self.path, line.as_bytes());
        self.file.sync_data()?;
        trace::fsync(&self.path);
        Ok(())
    }

    /// Delete the journal (everything in it is dealt with), durably.
    pub fn remove(self) -> io::Result<()> {
        std::fs::remove_file(&self.path)?;
        trace::unlink(&self.path);
        sync_parent(&self.path)
    }
}

/// Opened without following a link or waiting (a FIFO), never as a terminal.
fn libc_flags() -> i32 {
    use rustix::fs::OFlags;
    (OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC).bits() as i32
}

fn not_regular(t: &std::fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "is {}, not a regular file: refused",
            truebench_host::file_kind(t)
        ),
    )
}

/// Ok when `path` is a regular file (not followed if it is a link).
fn regular(path: &Path) -> io::Result<()> {
    let t = std::fs::symlink_metadata(path)?.file_type();
    if t.is_file() {
        Ok(())
    } else {
        Err(not_regular(&t))
    }
}

/// fsync the directory holding `path`, so a created or removed entry survives a power loss.
pub fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) => {
            File::open(dir)?.sync_all()?;
            trace::fsync_dir(dir);
            Ok(())
        }
        None => Ok(()),
    }
}

/// The journal directory's exclusive `flock`, held for a whole session. The kernel drops it
/// when the process dies, however it dies, which is how a stale journal is told from a live
/// one. The directory is locked rather than the journal because the journal is deleted after
/// a restore, and a lock on a deleted file protects nothing.
#[derive(Debug)]
pub struct DirLock {
    _dir: File,
}

impl DirLock {
    /// `Ok(None)` when another open of the directory (another process, or another Tuning in
    /// this one) holds the lock.
    pub fn try_lock(dir: &Path) -> io::Result<Option<DirLock>> {
        let f = File::open(dir)?;
        loop {
            match flock(&f, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(Some(DirLock { _dir: f })),
                Err(Errno::INTR) => continue,
                Err(Errno::WOULDBLOCK) => return Ok(None),
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// Pid in the header of the journal at `path`, if it can be read.
pub fn holder_pid(path: &Path) -> Option<u32> {
    regular(path).ok()?;
    let mut data = Vec::new();
    OpenOptions::new()
        .read(true)
        .custom_flags(libc_flags())
        .open(path)
        .ok()?
        .take(1 << 20)
        .read_to_end(&mut data)
        .ok()?;
    parse(&data).records.iter().find_map(|r| match r {
        Record::Session { pid, .. } => Some(*pid),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips() {
        let all: Vec<u8> = (0..=255u8)
            .chain(b"schedutil\n %=".iter().copied())
            .collect();
        let rec = Record::Original {
            seq: 7,
            rel: "sys/a b/%x".into(),
            bytes: all.clone(),
        };
        let line = rec.line();
        assert_eq!(line.matches('\n').count(), 1, "{line}");
        assert!(line.ends_with('\n'));
        let p = parse(line.as_bytes());
        assert_eq!(p.records, vec![rec]);
        assert!(p.bad_lines.is_empty());
    }

    #[test]
    fn empty_values_and_missing_boot_id() {
        for rec in [
            Record::Session {
                pid: 1,
                started: 2,
                boot_id: None,
            },
            Record::Original {
                seq: 0,
                rel: "sys/x".into(),
                bytes: vec![],
            },
            Record::Skipped {
                seq: 0,
                reason: String::new(),
            },
        ] {
            assert_eq!(parse(rec.line().as_bytes()).records, vec![rec]);
        }
    }

    #[test]
    fn readable_for_humans() {
        let rec = Record::Original {
            seq: 3,
            rel: "sys/devices/system/cpu/cpufreq/policy4/scaling_governor".into(),
            bytes: b"schedutil\n".to_vec(),
        };
        assert!(rec.line().starts_with(
            "O 3 =sys/devices/system/cpu/cpufreq/policy4/scaling_governor =schedutil%0A "
        ));
    }

    #[test]
    fn torn_tail_is_ignored_and_its_length_excluded() {
        let a = Record::Session {
            pid: 42,
            started: 1_700_000_000,
            boot_id: Some("abc-def".into()),
        }
        .line();
        let b = Record::Original {
            seq: 0,
            rel: "sys/x".into(),
            bytes: b"1\n".to_vec(),
        }
        .line();
        for cut in 0..b.len() {
            let data = format!("{a}{}", &b[..cut]);
            let p = parse(data.as_bytes());
            assert_eq!(p.records.len(), 1, "cut at {cut}");
            assert_eq!(p.valid_len, a.len() as u64);
        }
    }

    #[test]
    fn corrupt_line_is_reported_and_the_rest_kept() {
        let a = Record::Restored { seq: 1 }.line();
        let b = Record::Restored { seq: 2 }.line().replace("R 2", "R 3");
        let c = Record::Restored { seq: 4 }.line();
        let p = parse(format!("{a}{b}{c}").as_bytes());
        assert_eq!(
            p.records,
            vec![Record::Restored { seq: 1 }, Record::Restored { seq: 4 }]
        );
        assert_eq!(p.bad_lines, vec![2]);
    }

    #[test]
    fn crc32_matches_the_reference_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn second_lock_on_the_same_directory_is_refused_until_the_first_is_dropped() {
        let d = tempfile::tempdir().unwrap();
        let a = DirLock::try_lock(d.path()).unwrap();
        assert!(a.is_some());
        assert!(DirLock::try_lock(d.path()).unwrap().is_none());
        drop(a);
        assert!(DirLock::try_lock(d.path()).unwrap().is_some());
    }
}
