//! Background loads for `interactivity` (interbench's loads, each a real one): None, Video,
//! X, Burn, Write, Read, Compile, Memload, Hack, Custom. A load starts its threads, runs until
//! stopped, and on stop (also when dropped: Ctrl-C unwinds through it) joins them and removes
//! its scratch files. Scratch directories carry the pid, so one left by a killed run is
//! removed by the next ([`remove_stale_scratch`]).

mod disk;
mod hack;
mod memload;

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::periodic::{self, TaskSpec};

/// The loads, in interbench's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadKind {
    None,
    Video,
    X,
    Burn,
    Write,
    Read,
    Compile,
    Memload,
    Hack,
    Custom,
}

impl LoadKind {
    pub const ALL: [LoadKind; 10] = [
        LoadKind::None,
        LoadKind::Video,
        LoadKind::X,
        LoadKind::Burn,
        LoadKind::Write,
        LoadKind::Read,
        LoadKind::Compile,
        LoadKind::Memload,
        LoadKind::Hack,
        LoadKind::Custom,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            LoadKind::None => "none",
            LoadKind::Video => "video",
            LoadKind::X => "x",
            LoadKind::Burn => "burn",
            LoadKind::Write => "write",
            LoadKind::Read => "read",
            LoadKind::Compile => "compile",
            LoadKind::Memload => "memload",
            LoadKind::Hack => "hack",
            LoadKind::Custom => "custom",
        }
    }

    /// interbench's label.
    pub fn label(&self) -> &'static str {
        match self {
            LoadKind::None => "None",
            LoadKind::Video => "Video",
            LoadKind::X => "X",
            LoadKind::Burn => "Burn",
            LoadKind::Write => "Write",
            LoadKind::Read => "Read",
            LoadKind::Compile => "Compile",
            LoadKind::Memload => "Memload",
            LoadKind::Hack => "Hack",
            LoadKind::Custom => "Custom",
        }
    }

    pub fn parse(s: &str) -> Option<LoadKind> {
        LoadKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// What a load needs to know about the machine and the run.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Burn threads (interbench's `-L`; default: online CPUs).
    pub burn_threads: u32,
    /// Where Write and Read put their files (a directory of its own is made inside).
    pub scratch_dir: PathBuf,
    /// Size of Write's file and the bound of Read's, bytes (from RAM, free space, duration).
    pub file_bytes: u64,
    /// Memload: bytes to allocate (110 % of MemAvailable); None = no swap, not run.
    pub memload_bytes: Option<u64>,
    /// The periodic task Video, X and Custom run as a load (at the load's nice level).
    pub task: Option<TaskSpec>,
    /// Nice level of the load's threads.
    pub nice: i32,
}

/// Why a load could not start.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("skipped: {0}")]
    Skipped(String),
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A load that runs until [`RunningLoad::stop`] (or drop).
pub struct RunningLoad {
    pub kind: LoadKind,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    scratch: Option<PathBuf>,
    /// What it does, for the result: `4 threads burning`, `writing 8.0 GiB to /var/tmp …`.
    pub description: String,
}

impl RunningLoad {
    /// Stop the threads, wait for them, remove the scratch files.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        if let Some(d) = self.scratch.take() {
            let _ = std::fs::remove_dir_all(&d);
        }
    }

    pub fn scratch(&self) -> Option<&Path> {
        self.scratch.as_deref()
    }
}

impl Drop for RunningLoad {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The scratch directory's name prefix; the pid follows.
pub const SCRATCH_PREFIX: &str = "truebench-load-";

/// Remove scratch directories in `dir` left by runs that no longer exist (killed with -9).
/// Returns the directories removed.
pub fn remove_stale_scratch(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return removed;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(SCRATCH_PREFIX)
            .and_then(|p| p.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        // Only our own directories (not a link, not another user's).
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        let ours = std::fs::symlink_metadata(e.path()).is_ok_and(|m| {
            use std::os::unix::fs::MetadataExt;
            m.is_dir() && m.uid() == me
        });
        // SAFETY: kill with signal 0 only asks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        if ours && !alive && std::fs::remove_dir_all(e.path()).is_ok() {
            removed.push(e.path());
        }
    }
    removed
}

/// A new scratch directory in `base` (often a shared `/var/tmp`): created exclusively with an
/// unpredictable suffix and mode 0700, so a directory or link planted under a guessable name
/// is never used. The pid in its name lets the next run remove it after a kill -9.
fn scratch_dir(base: &Path, kind: LoadKind) -> Result<PathBuf, LoadError> {
    let prefix = format!("{SCRATCH_PREFIX}{}-{}-", std::process::id(), kind.name());
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(&prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(base)
        .map(|d| d.keep())
        .map_err(|source| LoadError::Io {
            what: "cannot create the scratch directory",
            path: base.join(&prefix),
            source,
        })
}

fn spawn(
    threads: &mut Vec<JoinHandle<()>>,
    nice: i32,
    stop: &Arc<AtomicBool>,
    f: impl FnOnce(&AtomicBool) + Send + 'static,
) {
    let stop = stop.clone();
    threads.push(std::thread::spawn(move || {
        let _ = periodic::sched::apply(&periodic::Policy::Other { nice });
        f(&stop)
    }));
}

fn burn_threads(threads: &mut Vec<JoinHandle<()>>, n: u32, nice: i32, stop: &Arc<AtomicBool>) {
    for _ in 0..n {
        spawn(threads, nice, stop, |stop| {
            while !stop.load(Ordering::Relaxed) {
                periodic::burn::burn_loops(100_000);
            }
        });
    }
}

/// Start `kind`. Memload without swap is `Skipped`, as in interbench.
pub fn start(kind: LoadKind, opts: &LoadOptions) -> Result<RunningLoad, LoadError> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    let mut scratch = None;
    let description = match kind {
        LoadKind::None => "no load".to_string(),
        LoadKind::Video | LoadKind::X | LoadKind::Custom => {
            let Some(mut task) = opts.task.clone() else {
                return Err(LoadError::Skipped(format!(
                    "no task given for the {} load",
                    kind.label()
                )));
            };
            task.policy = periodic::Policy::Other { nice: opts.nice };
            let d = format!(
                "the {} task ({:.0} % of a CPU)",
                task.name,
                task.pattern.cpu_pct()
            );
            let s = stop.clone();
            threads.push(std::thread::spawn(move || {
                // Long enough for any cell; the stop flag ends it.
                periodic::run_task(&task, Duration::from_secs(86_400), &s, None);
            }));
            d
        }
        LoadKind::Burn => {
            burn_threads(&mut threads, opts.burn_threads, opts.nice, &stop);
            format!("{} threads burning CPU", opts.burn_threads)
        }
        LoadKind::Write => {
            let d = scratch_dir(&opts.scratch_dir, kind)?;
            let desc = disk::start_write(&mut threads, &d, opts, &stop)?;
            scratch = Some(d);
            desc
        }
        LoadKind::Read => {
            let d = scratch_dir(&opts.scratch_dir, kind)?;
            let desc = match disk::start_read(&mut threads, &d, opts, &stop) {
                Ok(desc) => desc,
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&d);
                    return Err(e);
                }
            };
            scratch = Some(d);
            desc
        }
        LoadKind::Compile => {
            let d = scratch_dir(&opts.scratch_dir, kind)?;
            burn_threads(&mut threads, opts.burn_threads, opts.nice, &stop);
            let w = disk::start_write(&mut threads, &d, opts, &stop);
            let r = w.and_then(|w| disk::start_read(&mut threads, &d, opts, &stop).map(|r| (w, r)));
            match r {
                Ok((w, r)) => {
                    scratch = Some(d);
                    format!("{} threads burning CPU, {w}, {r}", opts.burn_threads)
                }
                Err(e) => {
                    stop.store(true, Ordering::SeqCst);
                    for t in threads.drain(..) {
                        let _ = t.join();
                    }
                    let _ = std::fs::remove_dir_all(&d);
                    return Err(e);
                }
            }
        }
        LoadKind::Memload => {
            let Some(bytes) = opts.memload_bytes else {
                return Err(LoadError::Skipped(
                    "no swap: Memload moves 110 % of the available RAM around, which needs swap"
                        .into(),
                ));
            };
            memload::start(&mut threads, bytes, opts.nice, &stop)
        }
        LoadKind::Hack => hack::start(&mut threads, opts.nice, &stop),
    };
    Ok(RunningLoad {
        kind,
        stop,
        threads,
        scratch,
        description,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn opts(dir: &Path) -> LoadOptions {
        LoadOptions {
            burn_threads: 1,
            scratch_dir: dir.to_path_buf(),
            file_bytes: 8 << 20,
            memload_bytes: None,
            task: None,
            nice: 0,
        }
    }

    #[test]
    fn names_parse_back() {
        for k in LoadKind::ALL {
            assert_eq!(LoadKind::parse(k.name()), Some(k));
        }
        assert_eq!(LoadKind::parse("Burn"), Some(LoadKind::Burn));
        assert_eq!(LoadKind::parse("nope"), None);
    }

    #[test]
    fn memload_without_swap_is_skipped_with_the_reason() {
        let d = tempfile::tempdir().unwrap();
        let e = start(LoadKind::Memload, &opts(d.path())).err().unwrap();
        assert!(e.to_string().contains("no swap"), "{e}");
    }

    #[test]
    fn compile_leaves_no_scratch_file_behind() {
        let d = tempfile::tempdir().unwrap();
        let l = start(LoadKind::Compile, &opts(d.path())).unwrap();
        let scratch = l.scratch().unwrap().to_path_buf();
        std::thread::sleep(Duration::from_millis(200));
        assert!(scratch.exists());
        l.stop();
        assert!(!scratch.exists());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn dropping_a_load_stops_it_and_cleans_up() {
        let d = tempfile::tempdir().unwrap();
        let scratch = {
            let l = start(LoadKind::Write, &opts(d.path())).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            l.scratch().unwrap().to_path_buf()
        };
        assert!(!scratch.exists());
    }

    #[test]
    fn stale_scratch_of_a_dead_process_is_removed_live_ones_kept() {
        let d = tempfile::tempdir().unwrap();
        // pid 0x7ffffff0 does not exist; our own pid does.
        let dead = d
            .path()
            .join(format!("{SCRATCH_PREFIX}{}-write", 0x7fff_fff0));
        let live = d
            .path()
            .join(format!("{SCRATCH_PREFIX}{}-read", std::process::id()));
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::create_dir_all(&live).unwrap();
        assert_eq!(remove_stale_scratch(d.path()), vec![dead.clone()]);
        assert!(!dead.exists() && live.exists());
    }

    #[test]
    fn burn_and_hack_run_and_stop() {
        let d = tempfile::tempdir().unwrap();
        for k in [LoadKind::Burn, LoadKind::Hack, LoadKind::None] {
            let l = start(k, &opts(d.path())).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            l.stop();
        }
    }

    /// A directory or link planted under the old, guessable name is never used: the scratch
    /// directory is new, unpredictable, a real directory and the user's alone.
    #[test]
    fn scratch_directories_are_new_and_private() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let target = tempfile::tempdir().unwrap();
        let guess = base.path().join(format!(
            "{SCRATCH_PREFIX}{}-{}",
            std::process::id(),
            LoadKind::Write.name()
        ));
        std::os::unix::fs::symlink(target.path(), &guess).unwrap();
        let d = scratch_dir(base.path(), LoadKind::Write).unwrap();
        assert_ne!(d, guess);
        let m = std::fs::symlink_metadata(&d).unwrap();
        assert!(
            m.is_dir() && m.permissions().mode() & 0o777 == 0o700,
            "{m:?}"
        );
        assert!(std::fs::read_dir(target.path()).unwrap().next().is_none());
        // A later run removes it once this pid is gone; the planted link is no directory of
        // ours and stays.
        std::fs::remove_dir_all(&d).unwrap();
        assert!(guess.exists());
    }
}
