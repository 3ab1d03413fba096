//! Reading the kernel log written while truebench runs (into `truebench_monitor_core::kmsg::KernelLog`).
//!
//! On the live machine `dev/kmsg` is a character device: opened non-blocking and positioned
//! with SEEK_END (which on kmsg means "only records logged from now on"), so no marker has
//! to be written into the log (that would need root). Each `read` returns one record
//! `prio,seq,usec,flags;message`, turned into `[ 2877.094811] message` as dmesg prints it.
//!
//! On a fixture root `dev/kmsg` is a regular file: it is read from the length it had at
//! `start`, so a test can append lines while truebench runs. Appended lines may be kmsg
//! records or dmesg lines. `--kernel-log FILE` replays a whole file the same way.

use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

use truebench_host::host::KMSG_DEVICE;
use truebench_host::Host;
use truebench_monitor_core::kmsg::{kmsg_record_to_dmesg, log_line, KernelLog};

/// More lines than this are not kept (a driver spamming the log must not eat memory); the
/// count of dropped lines is reported in a final line.
const MAX_LINES: usize = 50_000;
/// Larger than the kernel's biggest record (CONSOLE_EXT_LOG_MAX = 8 KiB), so a read never
/// fails with EINVAL.
const RECORD_BUF: usize = 16 * 1024;
/// The most of a recorded log read at one poll, the rest left for the next: twice the
/// kernel's largest log buffer (CONFIG_LOG_BUF_SHIFT is at most 25, 32 MiB), so a real log
/// is read whole, and a huge file in a recorded tree never is.
const MAX_READ: u64 = 64 << 20;

enum Source {
    /// The kmsg character device, non-blocking.
    Device(File),
    /// A regular file read from `offset` on (fixture `dev/kmsg`, `--kernel-log FILE`).
    Regular {
        file: File,
        offset: u64,
    },
    Unavailable(String),
    /// Worked, then failed: the lines so far are kept and the reason noted.
    Stopped(String),
}

pub struct KernelLogReader {
    source: Source,
    lines: Vec<String>,
    dropped: usize,
    lost_records: bool,
}

impl std::fmt::Debug for KernelLogReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.source {
            Source::Device(_) => "device".to_string(),
            Source::Regular { offset, .. } => format!("file from byte {offset}"),
            Source::Unavailable(r) => format!("unavailable: {r}"),
            Source::Stopped(r) => format!("stopped: {r}"),
        };
        f.debug_struct("KernelLogReader")
            .field("source", &kind)
            .field("lines", &self.lines.len())
            .finish()
    }
}

impl KernelLogReader {
    fn with(source: Source) -> Self {
        KernelLogReader {
            source,
            lines: Vec::new(),
            dropped: 0,
            lost_records: false,
        }
    }

    /// Start following `<root>/dev/kmsg`. Never fails: a missing device or missing
    /// permission is remembered and reported by `collect` as `Unavailable`.
    pub fn start(host: &Host) -> Self {
        Self::open(host, SeekFrom::End(0))
    }

    /// What the kernel log holds now, from its oldest record (`dmesg`), or why it cannot be
    /// read.
    pub fn snapshot(host: &Host) -> KernelLog {
        Self::open(host, SeekFrom::Start(0)).collect()
    }

    fn open(host: &Host, from: SeekFrom) -> Self {
        let rel = "dev/kmsg";
        let mut file = match host.open_device(rel, KMSG_DEVICE) {
            Ok(f) => f,
            Err(e) => {
                let why = match e.source.kind() {
                    ErrorKind::PermissionDenied => format!(
                        "/{rel}: permission denied (kernel.dmesg_restrict=1?); run as root to check the kernel log"
                    ),
                    ErrorKind::NotFound => format!("/{rel}: not present (container?)"),
                    _ => format!("/{rel}: {}", e.source),
                };
                return Self::with(Source::Unavailable(why));
            }
        };
        let is_device = file
            .metadata()
            .map(|m| m.file_type().is_char_device())
            .unwrap_or(false);
        if is_device {
            // SAFETY: fcntl on a descriptor we own; flags are read before being extended.
            let ok = unsafe {
                let fd = file.as_raw_fd();
                let fl = libc::fcntl(fd, libc::F_GETFL);
                fl >= 0 && libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) >= 0
            };
            if !ok {
                return Self::with(Source::Unavailable(format!(
                    "/{rel}: cannot make non-blocking: {}",
                    std::io::Error::last_os_error()
                )));
            }
            if let Err(e) = file.seek(from) {
                return Self::with(Source::Unavailable(format!("/{rel}: seek: {e}")));
            }
            Self::with(Source::Device(file))
        } else {
            match file.seek(from) {
                Ok(offset) => Self::with(Source::Regular { file, offset }),
                Err(e) => Self::with(Source::Unavailable(format!("/{rel}: {e}"))),
            }
        }
    }

    /// Replay a file of dmesg lines (or kmsg records) from its beginning. Only a regular
    /// file: a FIFO there would block the open, a device be read without end.
    pub fn from_file(path: &Path) -> std::io::Result<Self> {
        let file = truebench_host::open_regular(path)?;
        Ok(Self::with(Source::Regular { file, offset: 0 }))
    }

    /// Read what is new; the number of lines kept so far (`collect()`'s lines up to it were
    /// logged before this call: a phase boundary notes it to know which lines its phase saw).
    pub fn poll(&mut self) -> usize {
        let mut new = Vec::new();
        let err = match &mut self.source {
            Source::Unavailable(_) => return 0,
            Source::Device(f) => read_device(f, &mut new, &mut self.lost_records),
            Source::Regular { file, offset } => read_regular(file, offset, &mut new),
            Source::Stopped(_) => None,
        };
        if let Some(e) = err {
            self.source = Source::Stopped(e);
        }
        for l in new {
            if self.lines.len() < MAX_LINES {
                self.lines.push(l);
            } else {
                self.dropped += 1;
            }
        }
        self.lines.len()
    }

    /// Everything logged since `start` (each call reads what is new and returns the whole
    /// collection so far).
    pub fn collect(&mut self) -> KernelLog {
        if let Source::Unavailable(r) = &self.source {
            return KernelLog::Unavailable(r.clone());
        }
        self.poll();
        let mut out = self.lines.clone();
        if self.lost_records {
            out.push(
                "[truebench: some kernel-log records were overwritten before they could be read]"
                    .into(),
            );
        }
        if let Source::Stopped(why) = &self.source {
            out.push(format!("[truebench: kernel log reading stopped: {why}]"));
        }
        if self.dropped > 0 {
            out.push(format!(
                "[truebench: {} more kernel-log lines not kept]",
                self.dropped
            ));
        }
        KernelLog::Lines(out)
    }
}

/// Read records until EAGAIN. Returns a reason when the device became unreadable.
fn read_device(f: &mut File, out: &mut Vec<String>, lost: &mut bool) -> Option<String> {
    let mut buf = vec![0u8; RECORD_BUF];
    loop {
        match f.read(&mut buf) {
            Ok(0) => return None,
            Ok(n) => {
                let text = String::from_utf8_lossy(&buf[..n]);
                if let Some(l) = kmsg_record_to_dmesg(&text) {
                    out.push(l);
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return None,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            // EPIPE: records were overwritten in the ring buffer; the next read goes on
            // with the oldest record still there.
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) => *lost = true,
            Err(e) => return Some(format!("/dev/kmsg: {e}")),
        }
    }
}

/// Read complete lines after `offset`; a last line without its newline is left for the
/// next call (a writer may be in the middle of it).
fn read_regular(file: &mut File, offset: &mut u64, out: &mut Vec<String>) -> Option<String> {
    if let Err(e) = file.seek(SeekFrom::Start(*offset)) {
        return Some(format!("kernel log: {e}"));
    }
    let mut buf = Vec::new();
    if let Err(e) = file.by_ref().take(MAX_READ).read_to_end(&mut buf) {
        return Some(format!("kernel log: {e}"));
    }
    let complete = match buf.iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        // A whole read without a line end is no kernel log (a huge sparse file in a tree).
        None if buf.len() as u64 == MAX_READ => {
            return Some(format!(
                "kernel log: no line end in {} MiB at byte {offset}: not a kernel log",
                MAX_READ >> 20
            ))
        }
        None => return None,
    };
    *offset += complete as u64;
    for line in String::from_utf8_lossy(&buf[..complete]).lines() {
        if let Some(l) = log_line(line) {
            out.push(l);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn regular_file_reads_from_start_length_and_waits_for_whole_lines() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("dev")).unwrap();
        let p = d.path().join("dev/kmsg");
        std::fs::write(&p, "6,1,100,-;old line before start\n").unwrap();
        let mut r = KernelLogReader::start(&Host::new(d.path()));
        assert_eq!(r.collect(), KernelLog::Lines(vec![]));
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        write!(f, "6,2,2877094811,-;CPU1: shutdown\n SUBSYSTEM=cpu\n[ 2877.116885] psci: CPU1 killed (polled 0 ms)\npartial").unwrap();
        let got = r.collect();
        assert_eq!(
            got,
            KernelLog::Lines(vec![
                "[ 2877.094811] CPU1: shutdown".into(),
                "[ 2877.116885] psci: CPU1 killed (polled 0 ms)".into()
            ])
        );
        writeln!(f, " line").unwrap();
        assert_eq!(r.collect().lines().len(), 3);
        assert_eq!(r.collect().lines()[2], "partial line");
    }

    #[test]
    fn missing_kmsg_is_unavailable_with_reason() {
        let d = tempfile::tempdir().unwrap();
        let mut r = KernelLogReader::start(&Host::new(d.path()));
        match r.collect() {
            KernelLog::Unavailable(why) => assert!(why.contains("/dev/kmsg"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn replay_reads_whole_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("dmesg.txt");
        std::fs::write(&p, "[ 1964.179580] hwmon hwmon1: Undervoltage detected!\n[ 1974.259710] hwmon hwmon1: Voltage normalised\n").unwrap();
        let mut r = KernelLogReader::from_file(&p).unwrap();
        assert_eq!(r.collect().lines().len(), 2);
        assert!(KernelLogReader::from_file(&d.path().join("none")).is_err());
    }

    /// On the machine running the tests: as root the device is followed from its end (no
    /// boot messages, no blocking read); without permission the reason names the device.
    #[test]
    fn live_kmsg_starts_at_the_end_and_never_blocks() {
        let mut r = KernelLogReader::start(&Host::live());
        for _ in 0..2 {
            match r.collect() {
                KernelLog::Lines(l) => {
                    assert!(!l.iter().any(|x| x.contains("Linux version")), "{l:?}");
                }
                KernelLog::Unavailable(why) => assert!(why.contains("/dev/kmsg"), "{why}"),
            }
        }
    }

    /// A FIFO, socket, device node other than the kernel log's own (or a link to one), or a
    /// huge file at a tree's dev/kmsg or given as the log file: said, at once, never read
    /// without end.
    #[test]
    fn an_odd_kernel_log_file_is_refused_or_cut_at_once() {
        use truebench_fixtures::odd::{self, Odd};
        for kind in odd::kinds() {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("dev/kmsg");
            odd::plant(&p, kind);
            let t0 = std::time::Instant::now();
            let snap = KernelLogReader::snapshot(&Host::new(d.path()));
            let file = KernelLogReader::from_file(&p).map(|mut r| r.collect());
            assert!(
                t0.elapsed() < std::time::Duration::from_secs(10),
                "{kind:?}"
            );
            if kind == Odd::Huge {
                for log in [snap, file.unwrap()] {
                    match log {
                        KernelLog::Lines(l) => assert!(
                            l.last()
                                .is_some_and(|x| x.contains("no line end in 64 MiB")),
                            "{kind:?}: {l:?}"
                        ),
                        other => panic!("{kind:?}: {other:?}"),
                    }
                }
                continue;
            }
            match snap {
                KernelLog::Unavailable(why) => {
                    assert!(
                        why.contains("/dev/kmsg") && why.contains(kind.said()),
                        "{why}"
                    )
                }
                other => panic!("{kind:?}: {other:?}"),
            }
            let e = file.expect_err(&format!("{kind:?}")).to_string();
            assert!(e.contains(kind.said()), "{kind:?}: {e}");
        }
    }
}
