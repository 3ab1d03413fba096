//! CPU affinity: pin the calling thread, run a closure on a pinned thread, or pin a child
//! process before it executes (what `taskset -c` does, without needing `taskset`).

use std::io;
use std::process::Command;

/// Why pinning failed.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("cpu{cpu}: cannot pin to it (sched_setaffinity: {source})")]
    Affinity { cpu: u32, source: io::Error },
    #[error("cpu list is empty")]
    Empty,
    #[error("cpu{0}: beyond the {max} CPUs a cpu_set_t holds", max = libc::CPU_SETSIZE)]
    TooLarge(u32),
    #[error("the pinned worker thread panicked")]
    Panicked,
}

fn cpu_set(cpus: &[u32]) -> Result<libc::cpu_set_t, PinError> {
    if cpus.is_empty() {
        return Err(PinError::Empty);
    }
    // SAFETY: cpu_set_t is a plain bit array; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu as usize >= libc::CPU_SETSIZE as usize {
            return Err(PinError::TooLarge(cpu));
        }
        // SAFETY: index checked against CPU_SETSIZE above.
        unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    }
    Ok(set)
}

/// Restrict the calling thread to `cpus`.
pub fn set_current_affinity(cpus: &[u32]) -> Result<(), PinError> {
    let set = cpu_set(cpus)?;
    // SAFETY: pid 0 = calling thread; the set lives for the call.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(PinError::Affinity {
            cpu: cpus[0],
            source: io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// Pin the calling thread to one CPU.
pub fn pin_current_thread(cpu: u32) -> Result<(), PinError> {
    set_current_affinity(&[cpu])
}

/// The CPUs the calling thread may run on (its affinity mask), ascending.
pub fn current_affinity() -> Vec<u32> {
    // SAFETY: all-zero is a valid empty set; the kernel fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as u32)
        // SAFETY: index below CPU_SETSIZE.
        .filter(|&c| unsafe { libc::CPU_ISSET(c as usize, &set) })
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
    // set copied into the closure; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
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
