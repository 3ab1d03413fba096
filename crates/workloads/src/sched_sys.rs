//! The scheduling-class syscalls through `syscall(2)`: musl's `sched_setscheduler`,
//! `sched_getscheduler` and `sched_getparam` are stubs that fail with ENOSYS (POSIX's
//! per-process semantics differ from Linux's per-thread ones), so the static builds must not
//! use the libc wrappers. Pid 0 = the calling thread, on glibc and musl alike.

/// A `sched_param` with `priority` (musl's struct has more fields, all zero here).
pub(crate) fn param(priority: libc::c_int) -> libc::sched_param {
    // SAFETY: sched_param is plain integers; all-zero is valid.
    let mut p: libc::sched_param = unsafe { std::mem::zeroed() };
    p.sched_priority = priority;
    p
}

/// `sched_setscheduler(0, policy, p)`: 0, or -1 with errno set.
pub(crate) fn set_scheduler(policy: libc::c_int, p: &libc::sched_param) -> libc::c_int {
    // SAFETY: the kernel reads one sched_param from a valid reference.
    unsafe {
        libc::syscall(
            libc::SYS_sched_setscheduler,
            0,
            policy,
            p as *const libc::sched_param,
        ) as libc::c_int
    }
}

/// `sched_getscheduler(0)`: the calling thread's policy, or -1.
pub(crate) fn get_scheduler() -> libc::c_int {
    // SAFETY: no pointers.
    unsafe { libc::syscall(libc::SYS_sched_getscheduler, 0) as libc::c_int }
}

/// `sched_getparam(0)`: the calling thread's parameters, or None.
pub(crate) fn get_param() -> Option<libc::sched_param> {
    let mut p = param(0);
    // SAFETY: the kernel writes one sched_param into a valid, exclusive reference.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_getparam,
            0,
            &mut p as *mut libc::sched_param,
        )
    };
    (r == 0).then_some(p)
}
