//! `Tuning`: the only code in truebench that writes to /sys (the rule: only Tuning writes to /sys, journaled first, restored always).
//!
//! A session changes settings of one root (`/` or a fixture tree). Before a file is changed
//! for the first time its original bytes go to an append-only journal,
//! `<root>/var/lib/truebench/tuning.journal`, fsync'ed with its directory; only then is the
//! new value written. Everything is put back byte for byte, in reverse order, on
//! [`Tuning::restore`], on drop, on SIGINT/SIGTERM/SIGHUP and on panic ([`install_handlers`]),
//! and — when the process was killed outright or the power failed — by [`recover`] at the
//! start of the next truebench command on that root. Every restored entry is marked in the
//! journal as it is done, and writing an original value twice is harmless, so a restore that
//! is itself interrupted is simply finished by the next one.
//!
//! One session per root at a time: the session holds an exclusive `flock` on the journal
//! directory for its lifetime. A second `begin` on the same root fails at once with
//! [`TuningError::Busy`] naming the holder's pid — it does not wait, because two runs that
//! change clocks under each other would both measure nonsense. The same lock tells a stale
//! journal (its process is dead, so nobody holds the lock) from a live session's, which
//! [`recover`] leaves alone.

mod journal;
mod signals;
mod sysfs;
#[doc(hidden)]
pub mod trace;

use rustix::io::Errno;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use truebench_host::inventory::Cluster;
use truebench_host::Host;

use journal::{DirLock, JournalFile, Record};
use sysfs::{RestoreAction, Step};

pub use signals::{exit, graceful_interrupts, install_handlers, interrupt_fd, pending_signal};

const CPU_DIR: &str = "sys/devices/system/cpu";
const BOOT_ID: &str = "proc/sys/kernel/random/boot_id";

/// Everything that can go wrong while changing or restoring a setting. Paths are real paths
/// (`/sys/…` on the live machine, below the fixture directory otherwise).
#[derive(Debug, thiserror::Error)]
pub enum TuningError {
    /// EACCES/EPERM: changing this setting (or keeping the journal) needs root.
    #[error("permission denied writing {path} (changing system settings needs root)")]
    PermissionDenied { path: PathBuf },
    #[error(
        "{path} is on a read-only file system (is /sys mounted read-only, as in a container?)"
    )]
    ReadOnly { path: PathBuf },
    #[error("{path} does not exist")]
    NotFound { path: PathBuf },
    /// The kernel refused the value (EINVAL, EBUSY, …).
    #[error("writing {value:?} to {path} failed: {source}")]
    Rejected {
        path: PathBuf,
        value: String,
        #[source]
        source: io::Error,
    },
    /// A file whose original value cannot be read is never changed: it could not be restored.
    #[error("cannot read the original value of {path}, so it is left unchanged: {source}")]
    Unreadable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "{rel:?} is not a setting truebench changes (only sys/… and proc/sys/… below the root)"
    )]
    InvalidPath { rel: String },
    #[error("tuning journal {path}: {source}")]
    Journal {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{} is already changing settings on this root (journal {}); two runs at once would \
             disturb each other's measurements: wait for it to finish", holder(*.pid), .path.display())]
    Busy { path: PathBuf, pid: Option<u32> },
    #[error("settings left changed by a killed truebench run{} could not all be restored \
             (journal {}): {}", pid_note(*.pid), .path.display(), list(.failed))]
    StaleJournal {
        path: PathBuf,
        pid: Option<u32>,
        failed: Vec<(String, String)>,
    },
    #[error("cluster {cpus} has no cpufreq policy to tune")]
    NoCpufreq { cpus: String },
    #[error("invalid frequency range: min {min_khz} kHz is above max {max_khz} kHz")]
    InvalidRange { min_khz: u64, max_khz: u64 },
    #[error("{path}: scaling_setspeed needs the userspace governor, the governor is {governor}")]
    NotUserspace { path: PathBuf, governor: String },
    #[error("truebench is exiting after signal {signal}: settings were restored, no new changes")]
    Interrupted { signal: i32 },
}

fn holder(pid: Option<u32>) -> String {
    match pid {
        Some(p) if p == std::process::id() => format!("this truebench process (pid {p})"),
        Some(p) => format!("truebench pid {p}"),
        None => "another truebench process".into(),
    }
}

fn pid_note(pid: Option<u32>) -> String {
    pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
}

fn list(items: &[(String, String)]) -> String {
    items
        .iter()
        .map(|(p, r)| format!("/{p}: {r}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// One write a setter made (or tried), for the caller's record of what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Root-relative path.
    pub path: String,
    pub value: String,
    /// Why it failed; None when it was written.
    pub error: Option<String>,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// Root-relative paths put back to their original value, in the order restored.
    pub restored: Vec<String>,
    /// Root-relative paths that could not be restored, with the reason.
    pub failed: Vec<(String, String)>,
    /// Root-relative paths with nothing to write back, with the reason (`scaling_setspeed`
    /// that read `<unsupported>`; every setting after a reboot, which reset them all).
    pub skipped: Vec<(String, String)>,
    /// Pid of the session that made the changes.
    pub pid: Option<u32>,
    /// When that session started (seconds since the Unix epoch).
    pub started: Option<u64>,
    /// True when some failures may succeed later (as root): the journal was kept for that.
    pub journal_kept: bool,
}

impl RestoreReport {
    pub fn is_empty(&self) -> bool {
        self.restored.is_empty() && self.failed.is_empty() && self.skipped.is_empty()
    }
}

impl fmt::Display for RestoreReport {
    /// One line per file: `restored /sys/…`, `skipped /sys/…: reason`, `FAILED /sys/…: reason`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.restored {
            writeln!(f, "  restored /{p}")?;
        }
        for (p, r) in &self.skipped {
            writeln!(f, "  skipped  /{p}: {r}")?;
        }
        for (p, r) in &self.failed {
            writeln!(f, "  FAILED   /{p}: {r}")?;
        }
        Ok(())
    }
}

#[derive(Debug)]
struct Entry {
    seq: u32,
    rel: String,
    original: Vec<u8>,
    done: bool,
}

/// The state of one session, shared with the signal and panic handlers.
#[derive(Debug)]
struct Inner {
    host: Host,
    journal_path: PathBuf,
    lock: Option<DirLock>,
    journal: Option<JournalFile>,
    entries: Vec<Entry>,
    next_seq: u32,
    started: u64,
    boot_id: Option<String>,
    /// Set after a signal restored everything: the process is exiting, nothing may change.
    closed: Option<i32>,
    /// Set by the test hooks that simulate a kill: neither restore nor drop touch anything.
    abandoned: bool,
    owner: std::thread::ThreadId,
}

/// A session of changes to one root, journaled before every first write and restored on
/// drop. See the crate documentation.
pub struct Tuning {
    inner: Arc<Mutex<Inner>>,
    journal: PathBuf,
    recovered: Option<RestoreReport>,
    /// Every write since the last `take_written`.
    written: Vec<Written>,
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn state_dir(host: &Host) -> PathBuf {
    host.path(journal::DIR)
}

fn journal_file(host: &Host) -> PathBuf {
    state_dir(host).join(journal::FILE)
}

/// Map a failed open/write of a settings file to the error callers act on.
fn write_error(path: &Path, value: &str, e: io::Error) -> TuningError {
    let path = path.to_path_buf();
    if sysfs::needs_privilege(&e) {
        return TuningError::PermissionDenied { path };
    }
    match Errno::from_io_error(&e) {
        Some(Errno::ROFS) => TuningError::ReadOnly { path },
        Some(Errno::NOENT) => TuningError::NotFound { path },
        _ => TuningError::Rejected {
            path,
            value: value.to_string(),
            source: e,
        },
    }
}

fn journal_error(path: &Path, e: io::Error) -> TuningError {
    if sysfs::needs_privilege(&e) {
        return TuningError::PermissionDenied {
            path: path.to_path_buf(),
        };
    }
    match Errno::from_io_error(&e) {
        Some(Errno::ROFS) => TuningError::ReadOnly {
            path: path.to_path_buf(),
        },
        _ => TuningError::Journal {
            path: path.to_path_buf(),
            source: e,
        },
    }
}

/// Create `<root>/var/lib/truebench` durably (each new directory's entry fsync'ed).
fn make_state_dir(dir: &Path) -> Result<(), TuningError> {
    let mut missing = Vec::new();
    let mut d = dir;
    while !d.exists() {
        missing.push(d.to_path_buf());
        match d.parent() {
            Some(p) => d = p,
            None => break,
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| journal_error(dir, e))?;
    for m in missing.iter().rev() {
        trace::mkdir(m);
    }
    for m in missing.iter().rev() {
        journal::sync_parent(m).map_err(|e| journal_error(m, e))?;
    }
    Ok(())
}

fn checked_rel(rel: &str) -> Result<String, TuningError> {
    let r = rel.trim_start_matches('/');
    let ok = (r.starts_with("sys/") || r.starts_with("proc/sys/"))
        && r.split('/').all(|c| !c.is_empty() && c != "." && c != "..");
    if ok {
        Ok(r.to_string())
    } else {
        Err(TuningError::InvalidPath { rel: rel.into() })
    }
}

impl Tuning {
    /// Recover any stale journal on this root first (a previous run killed with SIGKILL /
    /// power loss), then start a new session: take the root's lock and write the journal
    /// header (pid, start time, boot id), durably.
    pub fn begin(host: &Host) -> Result<Tuning, TuningError> {
        let dir = state_dir(host);
        let path = journal_file(host);
        make_state_dir(&dir)?;
        let lock = DirLock::try_lock(&dir)
            .map_err(|e| journal_error(&dir, e))?
            .ok_or_else(|| TuningError::Busy {
                pid: journal::holder_pid(&path),
                path: path.clone(),
            })?;
        let recovered = recover_locked(host, &path)?;
        if let Some(r) = &recovered {
            if r.journal_kept {
                return Err(TuningError::StaleJournal {
                    path,
                    pid: r.pid,
                    failed: r.failed.clone(),
                });
            }
        }
        let mut inner = Inner {
            host: host.clone(),
            journal_path: path.clone(),
            lock: Some(lock),
            journal: None,
            entries: Vec::new(),
            next_seq: 0,
            started: now_unix(),
            boot_id: host.read_trimmed(BOOT_ID),
            closed: None,
            abandoned: false,
            owner: std::thread::current().id(),
        };
        inner.open_journal()?;
        let inner = Arc::new(Mutex::new(inner));
        signals::register(&inner);
        Ok(Tuning {
            inner,
            journal: path,
            recovered,
            written: Vec::new(),
        })
    }

    /// What `begin` restored from a stale journal, if anything.
    pub fn recovered(&self) -> Option<&RestoreReport> {
        self.recovered.as_ref()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves the state consistent (the journal is written
        // before anything else changes), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Journal the file's original bytes (first time this path is touched in this session)
    /// durably, THEN write `value`. `rel` is root-relative (`sys/…` or `proc/sys/…`).
    pub fn write(&mut self, rel: &str, value: &str) -> Result<(), TuningError> {
        let res = self.lock().write(rel, value);
        self.written.push(Written {
            path: rel.to_string(),
            value: value.to_string(),
            error: res.as_ref().err().map(|e| e.to_string()),
        });
        res
    }

    /// The writes made (and tried) since the last call, oldest first: what the typed setters
    /// below touched, for a record of the changes.
    pub fn take_written(&mut self) -> Vec<Written> {
        std::mem::take(&mut self.written)
    }

    /// Root-relative cpufreq directories of every policy of the cluster.
    pub fn policy_dirs(host: &Host, cluster: &Cluster) -> Result<Vec<String>, TuningError> {
        let mut dirs: Vec<String> = cluster
            .policies
            .iter()
            .filter_map(|p| {
                [
                    format!("{CPU_DIR}/cpufreq/policy{p}"),
                    // Kernels before 4.x: cpuN/cpufreq is the policy.
                    format!("{CPU_DIR}/cpu{p}/cpufreq"),
                ]
                .into_iter()
                .find(|d| host.is_dir(d))
            })
            .collect();
        if dirs.is_empty() {
            dirs.extend(cluster.policy_dir.clone());
        }
        if dirs.is_empty() {
            return Err(TuningError::NoCpufreq {
                cpus: cluster.cpu_range(),
            });
        }
        Ok(dirs)
    }

    fn dirs(&self, cluster: &Cluster) -> Result<Vec<String>, TuningError> {
        let host = self.lock().host.clone();
        Self::policy_dirs(&host, cluster)
    }

    /// `scaling_governor` of every policy of the cluster.
    pub fn set_governor(&mut self, cluster: &Cluster, governor: &str) -> Result<(), TuningError> {
        for d in self.dirs(cluster)? {
            self.write(&format!("{d}/scaling_governor"), governor)?;
        }
        Ok(())
    }

    /// Set scaling_min/max so that [min, max] holds, in the order that never leaves min > max
    /// (old kernels reject it): max first unless the new max is below the current min.
    pub fn set_range_khz(
        &mut self,
        cluster: &Cluster,
        min_khz: u64,
        max_khz: u64,
    ) -> Result<(), TuningError> {
        if min_khz > max_khz {
            return Err(TuningError::InvalidRange { min_khz, max_khz });
        }
        for d in self.dirs(cluster)? {
            let (min_f, max_f) = (
                format!("{d}/scaling_min_freq"),
                format!("{d}/scaling_max_freq"),
            );
            let cur_min = self.lock().host.read_u64(&min_f);
            let (min_s, max_s) = (min_khz.to_string(), max_khz.to_string());
            if sysfs::min_first(cur_min, max_khz) {
                self.write(&min_f, &min_s)?;
                self.write(&max_f, &max_s)?;
            } else {
                self.write(&max_f, &max_s)?;
                self.write(&min_f, &min_s)?;
            }
        }
        Ok(())
    }

    /// `scaling_max_freq` of every policy of the cluster (a cap; the minimum is lowered to it
    /// first where it is above, so min ≤ max holds at every step).
    pub fn set_max_khz(&mut self, cluster: &Cluster, khz: u64) -> Result<(), TuningError> {
        for d in self.dirs(cluster)? {
            let min_f = format!("{d}/scaling_min_freq");
            if self.lock().host.read_u64(&min_f).is_some_and(|m| m > khz) {
                self.write(&min_f, &khz.to_string())?;
            }
            self.write(&format!("{d}/scaling_max_freq"), &khz.to_string())?;
        }
        Ok(())
    }

    /// `scaling_min_freq` of every policy of the cluster (a floor, at most its maximum).
    pub fn set_min_khz(&mut self, cluster: &Cluster, khz: u64) -> Result<(), TuningError> {
        for d in self.dirs(cluster)? {
            let max = self.lock().host.read_u64(format!("{d}/scaling_max_freq"));
            let floor = max.map_or(khz, |m| khz.min(m));
            self.write(&format!("{d}/scaling_min_freq"), &floor.to_string())?;
        }
        Ok(())
    }

    /// `scaling_setspeed` of every policy of the cluster. The kernel only takes it under the
    /// userspace governor: set that first ([`Tuning::set_governor`]).
    pub fn set_setspeed_khz(&mut self, cluster: &Cluster, khz: u64) -> Result<(), TuningError> {
        for d in self.dirs(cluster)? {
            let gov = self
                .lock()
                .host
                .read_trimmed(format!("{d}/scaling_governor"));
            if let Some(g) = gov.filter(|g| g != "userspace") {
                let path = self.lock().host.path(format!("{d}/scaling_setspeed"));
                return Err(TuningError::NotUserspace { path, governor: g });
            }
            self.write(&format!("{d}/scaling_setspeed"), &khz.to_string())?;
        }
        Ok(())
    }

    /// Governor of a devfreq device (`sys/class/devfreq/<device>/governor`: GPU, memory
    /// controller, NPU).
    pub fn set_devfreq_governor(
        &mut self,
        device: &str,
        governor: &str,
    ) -> Result<(), TuningError> {
        self.write(&format!("sys/class/devfreq/{device}/governor"), governor)
    }

    /// PCIe ASPM policy (`default`, `performance`, `powersave`, `powersupersave`).
    pub fn set_pcie_aspm_policy(&mut self, policy: &str) -> Result<(), TuningError> {
        self.write("sys/module/pcie_aspm/parameters/policy", policy)
    }

    /// Bring a CPU online or offline.
    pub fn set_cpu_online(&mut self, cpu: u32, online: bool) -> Result<(), TuningError> {
        self.write(
            &format!("{CPU_DIR}/cpu{cpu}/online"),
            if online { "1" } else { "0" },
        )
    }

    /// Restore every touched file byte for byte, in reverse order; idempotent; removes the
    /// journal when all succeeded (or failed for good, e.g. the file is gone: those are in
    /// `failed`). The session stays usable: a later write journals afresh.
    pub fn restore(&mut self) -> Result<RestoreReport, TuningError> {
        Ok(self.lock().restore(None))
    }

    pub fn journal_path(&self) -> &Path {
        &self.journal
    }
}

impl Drop for Tuning {
    fn drop(&mut self) {
        let mut inner = self.lock();
        let report = inner.restore(None);
        print_problems(&report);
        // Release the root's lock now, not when the signal registry lets go of the state.
        inner.lock = None;
    }
}

/// Restore problems go to stderr from drop and the handlers, which cannot return them.
fn print_problems(r: &RestoreReport) {
    if !r.failed.is_empty() {
        eprintln!(
            "truebench: could not restore {} setting(s){}:\n{}",
            r.failed.len(),
            if r.journal_kept {
                " (kept in the journal for the next run)"
            } else {
                ""
            },
            r
        );
    }
}

impl Inner {
    fn open_journal(&mut self) -> Result<(), TuningError> {
        let header = Record::Session {
            pid: std::process::id(),
            started: self.started,
            boot_id: self.boot_id.clone(),
        };
        let jf = JournalFile::create(&self.journal_path, &header)
            .map_err(|e| journal_error(&self.journal_path, e))?;
        self.journal = Some(jf);
        Ok(())
    }

    fn write(&mut self, rel: &str, value: &str) -> Result<(), TuningError> {
        if let Some(signal) = self.closed {
            return Err(TuningError::Interrupted { signal });
        }
        if self.abandoned || self.lock.is_none() {
            return Err(TuningError::Journal {
                path: self.journal_path.clone(),
                source: io::Error::other("session ended"),
            });
        }
        let rel = checked_rel(rel)?;
        let path = self.host.path(&rel);
        let current = match self.host.read_bytes(&rel) {
            Ok(b) => b,
            Err(e) => {
                return Err(match Errno::from_io_error(&e.source) {
                    Some(Errno::NOENT) => TuningError::NotFound { path },
                    _ if sysfs::needs_privilege(&e.source) => {
                        TuningError::PermissionDenied { path }
                    }
                    _ => TuningError::Unreadable {
                        path,
                        source: e.source,
                    },
                })
            }
        };
        // Permission problems show now, before anything is journaled.
        sysfs::check_writable(&path).map_err(|e| write_error(&path, value, e))?;
        let fresh = !self.entries.iter().any(|e| e.rel == rel && !e.done);
        if fresh {
            if self.journal.is_none() {
                self.open_journal()?;
            }
            let seq = self.next_seq;
            let rec = Record::Original {
                seq,
                rel: rel.clone(),
                bytes: current.clone(),
            };
            let jf = self.journal.as_mut().expect("journal opened above");
            jf.append(&rec)
                .map_err(|e| journal_error(&self.journal_path, e))?;
            self.next_seq += 1;
            self.entries.push(Entry {
                seq,
                rel,
                original: current.clone(),
                done: false,
            });
        }
        let pseudo = sysfs::is_pseudo(&path);
        let bytes = if pseudo {
            value.as_bytes().to_vec()
        } else {
            sysfs::emulated_content(&current, value)
        };
        let res = sysfs::write_value(&path, &bytes);
        if let (Err(_), true, true) = (&res, fresh, pseudo) {
            // The kernel refused the value, so the file still holds its original: nothing
            // to restore (and restoring could fail the same way, keeping the journal).
            if let Some(e) = self.entries.last_mut() {
                e.done = true;
                let rec = Record::Skipped {
                    seq: e.seq,
                    reason: "never changed: the kernel refused the new value".into(),
                };
                if let Some(jf) = self.journal.as_mut() {
                    let _ = jf.append(&rec);
                }
            }
        }
        res.map_err(|e| write_error(&path, value, e))
    }

    /// Restore all pending entries (at most `limit` steps: the test hook for a crash in the
    /// middle of a restore).
    fn restore(&mut self, limit: Option<usize>) -> RestoreReport {
        let mut report = RestoreReport {
            pid: Some(std::process::id()),
            started: Some(self.started),
            ..Default::default()
        };
        if self.abandoned {
            return report;
        }
        let complete = run_restore(
            &self.host,
            &mut self.entries,
            self.journal.as_mut(),
            &mut report,
            limit,
        );
        if complete {
            self.entries.clear();
            if let Some(jf) = self.journal.take() {
                if let Err(e) = jf.remove() {
                    report.failed.push((
                        self.journal_path.display().to_string(),
                        format!("cannot remove the journal: {e}"),
                    ));
                }
            }
        }
        report
    }
}

/// Restore the pending entries, marking each in the journal. Returns true when nothing is
/// left that a later attempt could still do (the journal can go).
fn run_restore(
    host: &Host,
    entries: &mut [Entry],
    mut journal: Option<&mut JournalFile>,
    report: &mut RestoreReport,
    limit: Option<usize>,
) -> bool {
    let pending: Vec<(usize, &str)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.done)
        .map(|(i, e)| (i, e.rel.as_str()))
        .collect();
    let steps = sysfs::plan(&pending);
    let mut retry_later = false;
    for (n, step) in steps.iter().enumerate() {
        if limit.is_some_and(|l| n >= l) {
            return false;
        }
        let order = match *step {
            Step::One(i) => vec![i],
            Step::MinMax { min, max } => {
                let cur_max = host.read_u64(&entries[max].rel);
                if sysfs::max_first(&entries[min].original, cur_max) {
                    vec![max, min]
                } else {
                    vec![min, max]
                }
            }
        };
        for i in order {
            let e = &mut entries[i];
            let (mark, retry) = restore_one(host, e, report);
            retry_later |= retry;
            if let (Some(rec), Some(jf)) = (mark, journal.as_deref_mut()) {
                // A lost mark only means the value is written once more next time.
                let _ = jf.append(&rec);
            }
        }
    }
    !retry_later
}

/// Put one entry back. Returns the journal mark to append and whether to keep the journal.
fn restore_one(host: &Host, e: &mut Entry, report: &mut RestoreReport) -> (Option<Record>, bool) {
    let path = host.path(&e.rel);
    let seq = e.seq;
    let pseudo = sysfs::is_pseudo(&path);
    match sysfs::restore_action(&e.original, pseudo) {
        RestoreAction::Skip(reason) => {
            e.done = true;
            report.skipped.push((e.rel.clone(), reason.clone()));
            (Some(Record::Skipped { seq, reason }), false)
        }
        RestoreAction::Write(bytes) => {
            let mut res = sysfs::write_value(&path, &bytes);
            if pseudo && matches!(&res, Err(err) if Errno::from_io_error(err) == Some(Errno::INVAL))
            {
                // Some drivers compare the text exactly and refuse a trailing newline.
                let trimmed = String::from_utf8_lossy(&bytes).trim().to_string();
                if trimmed.as_bytes() != bytes.as_slice() {
                    res = sysfs::write_value(&path, trimmed.as_bytes());
                }
            }
            match res {
                Ok(()) => {
                    e.done = true;
                    report.restored.push(e.rel.clone());
                    (Some(Record::Restored { seq }), false)
                }
                Err(err) => {
                    let shown = String::from_utf8_lossy(&bytes).trim().to_string();
                    let reason = format!("writing {shown:?} back failed: {err}");
                    report.failed.push((e.rel.clone(), reason.clone()));
                    if sysfs::retryable(&err) {
                        report.journal_kept = true;
                        (None, true)
                    } else {
                        e.done = true;
                        (Some(Record::Failed { seq, reason }), false)
                    }
                }
            }
        }
    }
}

/// Called at the start of every truebench command for the given root: restores a journal
/// left by a killed run. `Ok(None)` if there was none, or if it belongs to a session that is
/// still running (its process holds the lock). Cheap when there is no journal: nothing is
/// created.
pub fn recover(host: &Host) -> Result<Option<RestoreReport>, TuningError> {
    recover_steps(host, None)
}

fn recover_steps(host: &Host, limit: Option<usize>) -> Result<Option<RestoreReport>, TuningError> {
    let path = journal_file(host);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let dir = state_dir(host);
    let Some(_lock) = DirLock::try_lock(&dir).map_err(|e| journal_error(&dir, e))? else {
        return Ok(None);
    };
    recover_locked_steps(host, &path, limit)
}

fn recover_locked(host: &Host, path: &Path) -> Result<Option<RestoreReport>, TuningError> {
    recover_locked_steps(host, path, None)
}

/// Restore a journal whose session is dead; the caller holds the directory lock.
fn recover_locked_steps(
    host: &Host,
    path: &Path,
    limit: Option<usize>,
) -> Result<Option<RestoreReport>, TuningError> {
    let (mut jf, parsed) = match JournalFile::open(path) {
        Ok(x) => x,
        // Removed by its session between our look and our lock.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(journal_error(path, e)),
    };
    if !jf.writable() {
        // Cannot mark progress, and almost surely cannot write /sys either.
        return Err(TuningError::PermissionDenied {
            path: path.to_path_buf(),
        });
    }
    let mut report = RestoreReport::default();
    let mut boot_id = None;
    let mut entries: Vec<Entry> = Vec::new();
    for rec in parsed.records {
        match rec {
            Record::Session {
                pid,
                started,
                boot_id: b,
            } => {
                report.pid = Some(pid);
                report.started = Some(started);
                boot_id = b;
            }
            Record::Original { seq, rel, bytes } => entries.push(Entry {
                seq,
                rel,
                original: bytes,
                done: false,
            }),
            Record::Restored { seq } | Record::Skipped { seq, .. } | Record::Failed { seq, .. } => {
                if let Some(e) = entries.iter_mut().find(|e| e.seq == seq) {
                    e.done = true;
                }
            }
        }
    }
    for n in parsed.bad_lines {
        report.failed.push((
            path.display().to_string(),
            format!("line {n} is corrupt and was ignored"),
        ));
    }
    // Only names under sys/ and proc/sys/ are ever journaled; anything else is not ours.
    for e in entries.iter_mut().filter(|e| !e.done) {
        if checked_rel(&e.rel).is_err() {
            e.done = true;
            report
                .failed
                .push((e.rel.clone(), "not a settings path; ignored".into()));
        }
    }
    let rebooted = matches!((&boot_id, host.read_trimmed(BOOT_ID)), (Some(a), Some(b)) if *a != b);
    let complete = if rebooted {
        // Kernel settings do not survive a reboot: the values in force now are the ones the
        // machine booted with, not ours, and writing the old ones would override them.
        for e in entries.iter_mut().filter(|e| !e.done) {
            e.done = true;
            let reason = "not restored: the machine rebooted since, which reset it".to_string();
            let _ = jf.append(&Record::Skipped {
                seq: e.seq,
                reason: reason.clone(),
            });
            report.skipped.push((e.rel.clone(), reason));
        }
        true
    } else {
        run_restore(host, &mut entries, Some(&mut jf), &mut report, limit)
    };
    if complete {
        jf.remove().map_err(|e| journal_error(path, e))?;
    } else {
        report.journal_kept = true;
    }
    Ok((!report.is_empty()).then_some(report))
}

/// Hooks that simulate a process dying at a chosen moment, for the crash tests. Not for use
/// by truebench itself.
#[doc(hidden)]
pub mod testing {
    use super::*;

    /// Drop the session as SIGKILL would: the lock goes, the journal and the changed
    /// settings stay.
    pub fn kill(t: Tuning) {
        let mut inner = t.lock();
        inner.abandoned = true;
        inner.lock = None;
        inner.journal = None;
        drop(inner);
    }

    /// Restore only the first `steps` steps, then die as SIGKILL would.
    pub fn kill_while_restoring(t: Tuning, steps: usize) -> RestoreReport {
        let r = t.lock().restore(Some(steps));
        kill(t);
        r
    }

    /// Recover only the first `steps` steps, then die.
    pub fn recover_then_die(
        host: &Host,
        steps: usize,
    ) -> Result<Option<RestoreReport>, TuningError> {
        recover_steps(host, Some(steps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(code: Errno) -> io::Error {
        code.into()
    }

    #[test]
    fn write_errors_name_the_path_and_the_value() {
        let p =
            &Host::new("/tmp/root").path("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq");
        let e = write_error(p, "2400000", err(Errno::INVAL));
        assert!(matches!(e, TuningError::Rejected { .. }));
        let m = e.to_string();
        assert!(
            m.contains("policy0/scaling_max_freq") && m.contains("\"2400000\""),
            "{m}"
        );
        let e = write_error(p, "1", err(Errno::BUSY));
        assert!(matches!(e, TuningError::Rejected { .. }), "{e}");
        let e = write_error(p, "1", err(Errno::ACCESS));
        assert!(matches!(&e, TuningError::PermissionDenied { path } if path == p));
        assert!(e.to_string().contains("needs root"), "{e}");
        assert!(matches!(
            write_error(p, "1", err(Errno::ROFS)),
            TuningError::ReadOnly { .. }
        ));
        assert!(matches!(
            write_error(p, "1", err(Errno::NOENT)),
            TuningError::NotFound { .. }
        ));
        // EPERM: a permission problem for a user, the kernel's refusal for root.
        let e = write_error(p, "performance", err(Errno::PERM));
        if sysfs::is_root() {
            assert!(matches!(e, TuningError::Rejected { .. }), "{e}");
        } else {
            assert!(matches!(e, TuningError::PermissionDenied { .. }), "{e}");
        }
    }

    #[test]
    fn only_sys_and_proc_sys_paths_are_settings() {
        // A leading slash is tolerated.
        assert_eq!(checked_rel(&format!("/{}", "sys/a/b")).unwrap(), "sys/a/b");
        assert_eq!(
            checked_rel("proc/sys/vm/swappiness").unwrap(),
            "proc/sys/vm/swappiness"
        );
        for bad in [
            "proc/stat",
            "sys",
            "sys/",
            "sys/./a",
            "sys/a/../b",
            "var/lib/x",
            "",
        ] {
            assert!(checked_rel(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_live_sys_is_a_kernel_file_system() {
        let sys = &Host::live().path("sys/kernel");
        if !sys.is_dir() {
            truebench_fixtures::skip!("no /sys/kernel on this machine");
        }
        assert!(sysfs::is_pseudo(sys));
    }
}
