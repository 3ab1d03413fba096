//! Scheduling class and memory locking of the calling thread: what a periodic task asks for,
//! and what it got (without the right it runs as an ordinary task and says so).

use serde::{Deserialize, Serialize};

/// How a task is scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum Policy {
    /// SCHED_OTHER at a nice level (−20 … 19).
    Other { nice: i32 },
    /// SCHED_FIFO at a priority (1 … 99).
    Fifo { priority: i32 },
    /// SCHED_RR at a priority (1 … 99).
    Rr { priority: i32 },
    /// SCHED_DEADLINE: `runtime` of CPU every `period`, done by `deadline` (ns).
    Deadline {
        runtime_ns: u64,
        deadline_ns: u64,
        period_ns: u64,
    },
}

impl Default for Policy {
    fn default() -> Self {
        Policy::Other { nice: 0 }
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Policy::Other { nice } => write!(f, "SCHED_OTHER nice {nice}"),
            Policy::Fifo { priority } => write!(f, "SCHED_FIFO {priority}"),
            Policy::Rr { priority } => write!(f, "SCHED_RR {priority}"),
            Policy::Deadline {
                runtime_ns,
                deadline_ns,
                period_ns,
            } => write!(
                f,
                "SCHED_DEADLINE {}/{}/{} µs",
                runtime_ns / 1000,
                deadline_ns / 1000,
                period_ns / 1000
            ),
        }
    }
}

/// Why a policy could not be applied.
#[derive(Debug, thiserror::Error)]
#[error("cannot set {policy}: {source}{hint}")]
pub struct PolicyError {
    pub policy: String,
    pub source: std::io::Error,
    pub hint: &'static str,
}

// struct sched_attr (linux/sched/types.h), for SCHED_DEADLINE.
#[repr(C)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
}

const SCHED_DEADLINE: u32 = 6;

fn check(rc: libc::c_int, policy: &Policy) -> Result<(), PolicyError> {
    if rc == 0 {
        return Ok(());
    }
    let source = std::io::Error::last_os_error();
    let hint = match source.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => {
            " (needs root or CAP_SYS_NICE; RLIMIT_RTPRIO for real-time classes)"
        }
        Some(libc::EBUSY) => " (the kernel's deadline admission control refused the bandwidth)",
        Some(libc::EINVAL) => " (not supported by this kernel or these values)",
        _ => "",
    };
    Err(PolicyError {
        policy: policy.to_string(),
        source,
        hint,
    })
}

/// Put the calling thread into `policy`.
pub fn apply(policy: &Policy) -> Result<(), PolicyError> {
    // SAFETY: plain syscalls on the calling thread (tid 0 / pid 0 = self) with valid,
    // initialised arguments.
    unsafe {
        match *policy {
            Policy::Other { nice } => {
                let p = crate::sched_sys::param(0);
                check(
                    crate::sched_sys::set_scheduler(libc::SCHED_OTHER, &p),
                    policy,
                )?;
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                check(libc::setpriority(libc::PRIO_PROCESS, tid, nice), policy)
            }
            Policy::Fifo { priority } | Policy::Rr { priority } => {
                let class = if matches!(policy, Policy::Fifo { .. }) {
                    libc::SCHED_FIFO
                } else {
                    libc::SCHED_RR
                };
                let p = crate::sched_sys::param(priority);
                check(crate::sched_sys::set_scheduler(class, &p), policy)
            }
            Policy::Deadline {
                runtime_ns,
                deadline_ns,
                period_ns,
            } => {
                let attr = SchedAttr {
                    size: std::mem::size_of::<SchedAttr>() as u32,
                    sched_policy: SCHED_DEADLINE,
                    sched_flags: 0,
                    sched_nice: 0,
                    sched_priority: 0,
                    sched_runtime: runtime_ns,
                    sched_deadline: deadline_ns,
                    sched_period: period_ns,
                };
                let rc = libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0);
                check(rc as libc::c_int, policy)
            }
        }
    }
}

/// Lock all current and future pages in memory, so a page fault cannot delay a wake-up.
pub fn lock_memory() -> Result<(), std::io::Error> {
    // SAFETY: mlockall takes flags only.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Ask the kernel to keep CPUs out of deep idle states (a PM QoS request of 0 µs through
/// `/dev/cpu_dma_latency`, as cyclictest does): waking from them costs tens of µs. The
/// request lasts while the returned file is open and ends when it is closed — also when the
/// process dies — so there is nothing to restore.
pub fn hold_low_latency() -> Result<std::fs::File, std::io::Error> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/cpu_dma_latency")?;
    f.write_all(&0i32.to_ne_bytes())?;
    Ok(f)
}

/// Undo [`lock_memory`].
pub fn unlock_memory() {
    // SAFETY: no arguments.
    unsafe {
        libc::munlockall();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_nice_levels_work_for_anyone_raising_them() {
        // Raising one's own nice needs no privilege; run in a thread so the test thread
        // keeps its level.
        std::thread::spawn(|| apply(&Policy::Other { nice: 5 }).unwrap())
            .join()
            .unwrap();
    }

    #[test]
    fn a_refusal_names_the_policy_and_what_it_needs() {
        let r = std::thread::spawn(|| {
            apply(&Policy::Fifo { priority: 1000 }).map_err(|e| e.to_string())
        })
        .join()
        .unwrap();
        let e = r.unwrap_err();
        assert!(e.contains("SCHED_FIFO 1000"), "{e}");
    }

    #[test]
    fn display_names_the_class() {
        assert_eq!(Policy::default().to_string(), "SCHED_OTHER nice 0");
        let d = Policy::Deadline {
            runtime_ns: 2_500_000,
            deadline_ns: 50_000_000,
            period_ns: 50_000_000,
        };
        assert_eq!(d.to_string(), "SCHED_DEADLINE 2500/50000/50000 µs");
    }
}
