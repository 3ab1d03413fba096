//! One exit-code table for every command (also in `truebench --help` and README).
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | done; a measurement's result is valid |
//! | 1 | it ran, but a test or phase failed (nothing to measure with, a tool broke) |
//! | 2 | usage or I/O error: a bad option, an unreadable file, a result that could not be written |
//! | 3 | it ran, but the result is invalid: a critical finding (throttling, swapping, background activity…) |
//! | 4 | another measurement is running on this machine; nothing was done |
//! | 130 | interrupted (Ctrl-C, SIGTERM); the partial result was kept |
//!
//! `monitor -- COMMAND` exits with the command's own code (126/127 when it could not be run).

use truebench_model::{Document, Outcome};
use truebench_suites::lock::{self, LockError, MeasurementLock};

pub const VALID: i32 = 0;
pub const FAILED: i32 = 1;
pub const ERROR: i32 = 2;
pub const INVALID: i32 = 3;
pub const BUSY: i32 = 4;
pub const INTERRUPTED: i32 = 130;

/// The table as `--help` shows it.
pub const HELP: &str = "Exit codes: 0 valid, 1 a test failed, 2 usage or I/O error, 3 ran but invalid (see the findings), 4 another measurement is running, 130 interrupted (partial result kept); monitor -- COMMAND exits with the command's code.";

/// The code of a finished measurement, from its document ([`Document::outcome`]: interrupted
/// first, then a failed test or phase, then validity) — the same rule for every kind.
pub fn of(doc: &Document) -> i32 {
    match doc.outcome() {
        Outcome::Interrupted => INTERRUPTED,
        Outcome::Failed => FAILED,
        Outcome::Invalid => INVALID,
        Outcome::Valid => VALID,
    }
}

/// The measurement lock every measuring command takes before it starts: while one
/// measurement runs, every other refuses with the same message and `BUSY`.
pub fn lock() -> anyhow::Result<MeasurementLock> {
    Ok(MeasurementLock::acquire(&lock::default_dir())?)
}

/// The exit code of an error that ended a command.
pub fn of_error(e: &anyhow::Error) -> i32 {
    match e.downcast_ref::<LockError>() {
        Some(LockError::Busy { .. }) => BUSY,
        _ => ERROR,
    }
}
