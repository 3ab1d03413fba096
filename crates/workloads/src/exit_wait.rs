//! Waiting for a child process without polling its status: its pidfd (Linux 5.3) becomes
//! readable when it exits, so a wait sleeps until then or until the caller must look at
//! something else (a stop flag, a deadline). A loop that woke every few milliseconds to ask
//! `try_wait` would cost the measured machine more than the sampler does, and would time the
//! command to that step.

use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::process::Child;
use std::time::Duration;

/// How long a wait sleeps at most where the kernel has no pidfds: a look every 20 ms.
const WITHOUT_PIDFD: Duration = Duration::from_millis(20);

/// Sleeps until a child exits or a time has passed.
pub struct ExitWait(Option<OwnedFd>);

impl ExitWait {
    pub fn new(child: &Child) -> ExitWait {
        // SAFETY: pidfd_open takes a pid and flags; a non-negative result is a new
        // descriptor, ours alone.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, child.id() as libc::pid_t, 0) };
        // SAFETY: see above.
        ExitWait((fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as i32) }))
    }

    /// Until the child exits (its status then waits for `try_wait`) or `most` has passed —
    /// at most 20 ms where the kernel has no pidfds. A signal may end it sooner.
    pub fn wait(&self, most: Duration) {
        self.wait_or(most, None)
    }

    /// [`ExitWait::wait`], ending sooner too when `also` becomes readable (a stop
    /// requested: `truebench_tuning::interrupt_fd`).
    pub fn wait_or(&self, most: Duration, also: Option<BorrowedFd<'_>>) {
        let Some(fd) = &self.0 else {
            std::thread::sleep(most.min(WITHOUT_PIDFD));
            return;
        };
        let one = |fd: i32| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let mut p = [one(fd.as_raw_fd()), one(also.map_or(-1, |a| a.as_raw_fd()))];
        // Rounded up: a wait of 0.4 ms is one of 1 ms, not a busy loop.
        let ms = most.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: two pollfds (a negative fd is ignored by poll), valid for the call.
        unsafe {
            libc::poll(p.as_mut_ptr(), 2, ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_wait_ends_when_the_child_does_not_at_the_limit() {
        let mut child = std::process::Command::new("sleep")
            .arg("0.2")
            .spawn()
            .unwrap();
        let w = ExitWait::new(&child);
        let t = Instant::now();
        while child.try_wait().unwrap().is_none() {
            w.wait(Duration::from_secs(30));
            assert!(t.elapsed() < Duration::from_secs(20), "still waiting");
        }
        // A pidfd wakes at the exit; without one the loop looked every 20 ms. Either way far
        // from the 30 s limit, and not before the child's 0.2 s.
        assert!(
            t.elapsed() >= Duration::from_millis(150),
            "{:?}",
            t.elapsed()
        );
    }

    /// A stop asked (the descriptor readable) ends the wait at once, the child still running;
    /// a descriptor never written leaves the wait to its limit or the exit.
    #[test]
    fn a_wait_ends_when_the_other_descriptor_becomes_readable() {
        use std::io::Write as _;
        use std::os::fd::AsFd;
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let w = ExitWait::new(&child);
        let (r, mut tx) = std::os::unix::net::UnixStream::pair().unwrap();
        let t = Instant::now();
        w.wait_or(Duration::from_millis(300), Some(r.as_fd()));
        let quiet = t.elapsed();
        tx.write_all(&[1]).unwrap();
        let t = Instant::now();
        w.wait_or(Duration::from_secs(20), Some(r.as_fd()));
        let woken = t.elapsed();
        child.kill().unwrap();
        child.wait().unwrap();
        if w.0.is_some() {
            assert!(quiet >= Duration::from_millis(250), "{quiet:?}");
            assert!(woken < Duration::from_secs(2), "{woken:?}");
        }
    }

    #[test]
    fn a_wait_for_a_child_still_running_lasts_its_limit() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let w = ExitWait::new(&child);
        let t = Instant::now();
        w.wait(Duration::from_millis(100));
        let took = t.elapsed();
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(took >= Duration::from_millis(15), "{took:?}");
        assert!(took < Duration::from_secs(4), "{took:?}");
    }
}
