//! CPU affinity: pin the calling thread, run a closure on a pinned thread, or pin a child
//! process before it executes (what `taskset -c` does, without needing `taskset`).

use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
use std::io;
use std::process::Command;

/// Why pinning failed.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("cpu{cpu}: cannot pin to it (sched_setaffinity: {source})")]
    Affinity { cpu: u32, source: io::Error },
    #[error("cpu list is empty")]
    Empty,
    #[error("cpu{0}: beyond the {max} CPUs a cpu_set_t holds", max = CpuSet::MAX_CPU)]
    TooLarge(u32),
    #[error("the pinned worker thread panicked")]
    Panicked,
}

fn cpu_set(cpus: &[u32]) -> Result<CpuSet, PinError> {
    if cpus.is_empty() {
        return Err(PinError::Empty);
    }
    let mut set = CpuSet::new();
    for &cpu in cpus {
        if cpu as usize >= CpuSet::MAX_CPU {
            return Err(PinError::TooLarge(cpu));
        }
        set.set(cpu as usize);
    }
    Ok(set)
}

/// Restrict the calling thread to `cpus`.
pub fn set_current_affinity(cpus: &[u32]) -> Result<(), PinError> {
    let set = cpu_set(cpus)?;
    // None: the calling thread.
    sched_setaffinity(None, &set).map_err(|e| PinError::Affinity {
        cpu: cpus[0],
        source: e.into(),
    })
}

/// Pin the calling thread to one CPU.
pub fn pin_current_thread(cpu: u32) -> Result<(), PinError> {
    set_current_affinity(&[cpu])
}

/// The CPUs the calling thread may run on (its affinity mask), ascending.
pub fn current_affinity() -> Vec<u32> {
    let Ok(set) = sched_getaffinity(None) else {
        return Vec::new();
    };
    (0..CpuSet::MAX_CPU)
        .filter(|&c| set.is_set(c))
        .map(|c| c as u32)
        .collect()
}

/// Run `f` on a new thread pinned to `cpu` (or unpinned with `None`) and return its result.
/// A fresh thread keeps the caller's own affinity untouched.
pub fn run_pinned<T, F>(cpu: Option<u32>, f: F) -> Result<T, PinError>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    std::thread::scope(|s| {
        let handle = s.spawn(move || {
            if let Some(cpu) = cpu {
                pin_current_thread(cpu)?;
            }
            Ok(f())
        });
        handle.join().map_err(|_| PinError::Panicked)?
    })
}

/// Make `cmd`'s child run only on `cpus` from its first instruction (affinity set between fork
/// and exec), like `taskset -c LIST cmd`.
pub fn pin_command(cmd: &mut Command, cpus: &[u32]) -> Result<(), PinError> {
    use std::os::unix::process::CommandExt;
    // Built before fork: the child may only make async-signal-safe calls.
    let set = cpu_set(cpus)?;
    // SAFETY: the closure only calls sched_setaffinity (a raw syscall, async-signal-safe) on a
    // set copied into the closure; it allocates nothing (rustix errors are plain numbers).
    unsafe {
        cmd.pre_exec(move || sched_setaffinity(None, &set).map_err(io::Error::from));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_pinned_really_restricts_the_thread() {
        let cpus = current_affinity();
        assert!(!cpus.is_empty());
        let cpu = *cpus.last().unwrap();
        let seen = run_pinned(Some(cpu), current_affinity).unwrap();
        assert_eq!(seen, vec![cpu]);
        // The caller keeps its mask.
        assert_eq!(current_affinity(), cpus);
    }

    #[test]
    fn pinning_to_an_impossible_cpu_is_an_error() {
        assert!(matches!(
            run_pinned(Some(100_000), || ()),
            Err(PinError::TooLarge(100_000))
        ));
        assert!(matches!(set_current_affinity(&[]), Err(PinError::Empty)));
    }

    #[test]
    fn pinned_child_sees_one_cpu() {
        let cpus = current_affinity();
        let cpu = *cpus.last().unwrap();
        // coreutils `nproc` counts the CPUs in its own affinity mask: checked from the inside.
        let mut cmd = Command::new("nproc");
        pin_command(&mut cmd, &[cpu]).unwrap();
        let out = cmd.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
    }
}
