//! Restore on SIGINT/SIGTERM/SIGHUP and on panic.
//!
//! The signal handler itself only queues the signal (signal-hook's self-pipe); a normal
//! thread then restores every live session — taking locks and writing files is not allowed
//! in a handler — and exits with 128+signal, as a shell expects of a killed process.

use std::io::Write as _;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::panic;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, OnceLock, TryLockError, Weak};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::{print_problems, Inner};

/// Every session not yet dropped. Weak, so a registry entry never keeps a session alive.
static REGISTRY: Mutex<Vec<Weak<Mutex<Inner>>>> = Mutex::new(Vec::new());
static PENDING: AtomicI32 = AtomicI32::new(0);
static INSTALL: Once = Once::new();
static GRACEFUL: OnceLock<Arc<AtomicBool>> = OnceLock::new();
/// A connected pair whose first end becomes readable when the graceful flag is set: a wait
/// sleeps on it beside what it waits for instead of waking to look at the flag.
static WAKE: OnceLock<Option<(UnixStream, UnixStream)>> = OnceLock::new();

fn registry() -> MutexGuard<'static, Vec<Weak<Mutex<Inner>>>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn register(inner: &Arc<Mutex<Inner>>) {
    let mut r = registry();
    r.retain(|w| w.strong_count() > 0);
    r.push(Arc::downgrade(inner));
}

fn live() -> Vec<Arc<Mutex<Inner>>> {
    registry().iter().filter_map(Weak::upgrade).collect()
}

/// The signal the process is exiting on, once the handler thread has started restoring:
/// a command that sees a [`crate::TuningError::Interrupted`] should exit with 128+signal
/// too instead of reporting an error.
pub fn pending_signal() -> Option<i32> {
    let s = PENDING.load(Ordering::SeqCst);
    (s != 0).then_some(s)
}

/// For a command that stops by itself on Ctrl-C (a monitor printing its summary): from now
/// on the first SIGINT/SIGTERM/SIGHUP only sets the returned flag; the command polls it,
/// winds down and drops its Tuning, which restores. A second signal restores and exits at
/// once, as without this call. Call after [`install_handlers`].
pub fn graceful_interrupts() -> Arc<AtomicBool> {
    WAKE.get_or_init(|| UnixStream::pair().ok());
    GRACEFUL
        .get_or_init(|| Arc::new(AtomicBool::new(false)))
        .clone()
}

/// When `flag` is [`graceful_interrupts`]'s: a descriptor that becomes readable (and stays
/// so) once that flag is set, for a wait to sleep on with what it waits for — a look at the
/// flag every few hundred milliseconds is a wake-up the measured machine pays for.
pub fn interrupt_fd(flag: &AtomicBool) -> Option<BorrowedFd<'static>> {
    let ours = GRACEFUL.get().is_some_and(|g| std::ptr::eq(&**g, flag));
    if !ours {
        return None;
    }
    WAKE.get()?.as_ref().map(|(r, _)| r.as_fd())
}

/// Exit the process with `code` — unless a signal arrived and its handler thread is
/// restoring settings: then wait for it, and it exits with 128+signal once everything is
/// back. A program that uses [`install_handlers`] ends through this instead of
/// `std::process::exit`, so the main thread cannot end the process in the middle of a
/// restore.
pub fn exit(code: i32) -> ! {
    if pending_signal().is_some() {
        loop {
            std::thread::park();
        }
    }
    std::process::exit(code)
}

fn name(sig: i32) -> String {
    match sig {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        n => format!("signal {n}"),
    }
}

/// SIGINT/SIGTERM/SIGHUP → restore every live Tuning, then exit with 128+signal. Panics →
/// restore too (a panic hook that restores, then runs the previous hook). Call once at the
/// start of the program; later calls do nothing.
pub fn install_handlers() {
    INSTALL.call_once(|| {
        match Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(mut signals) => {
                let spawned = std::thread::Builder::new()
                    .name("truebench-signals".into())
                    .spawn(move || {
                        for sig in signals.forever() {
                            if let Some(flag) = GRACEFUL.get() {
                                if !flag.swap(true, Ordering::SeqCst) {
                                    // First signal of a command that stops by itself: set,
                                    // and its waits woken.
                                    if let Some(Some((_, w))) = WAKE.get() {
                                        let _ = (&*w).write(&[1]);
                                    }
                                    continue;
                                }
                            }
                            on_signal(sig);
                        }
                    });
                if let Err(e) = spawned {
                    eprintln!("truebench: cannot start the signal thread: {e}");
                }
            }
            Err(e) => eprintln!(
                "truebench: cannot install signal handlers ({e}); settings changed by an \
                 interrupted run will be restored at the next start"
            ),
        }
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            on_panic();
            previous(info);
        }));
    });
}

fn on_signal(sig: i32) -> ! {
    PENDING.store(sig, Ordering::SeqCst);
    let mut restored = 0;
    for t in live() {
        // Blocks only while another thread finishes one write: a session's lock is never
        // held for long.
        let mut g = t.lock().unwrap_or_else(|e| e.into_inner());
        let r = g.restore(None);
        // The process is going: the program's threads must not change anything now.
        g.closed = Some(sig);
        restored += r.restored.len() + r.skipped.len();
        print_problems(&r);
    }
    if restored > 0 {
        eprintln!(
            "truebench: {}: restored {restored} changed setting(s)",
            name(sig)
        );
    }
    std::process::exit(128 + sig)
}

fn on_panic() {
    let me = std::thread::current().id();
    for t in live() {
        let mut g = match t.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            // The panicking thread itself is inside a Tuning call: unwinding will drop the
            // guard and the Tuning's drop restores.
            Err(TryLockError::WouldBlock) => continue,
        };
        // With unwinding, a panic ends only its own thread: restore what that thread owns
        // (other threads' sessions go on). With abort, the whole process is about to die.
        if !cfg!(panic = "abort") && g.owner != me {
            continue;
        }
        let r = g.restore(None);
        if !r.restored.is_empty() {
            eprintln!(
                "truebench: panic: restored {} changed setting(s)",
                r.restored.len()
            );
        }
        print_problems(&r);
    }
}
