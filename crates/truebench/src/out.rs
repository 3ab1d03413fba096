//! Standard output, for every command: all of it goes through [`stdout`] (or the `out!` and
//! `outln!` macros; `print!` and `eprint!` are denied by clippy in this crate), and `main`
//! asks [`finish`] what became of it.
//!
//! A write that fails is remembered here, whatever the command does with the error (the
//! monitor stops quietly, the others return it with `?`):
//! - the reader closed the pipe (`truebench history --json | head -1`): EPIPE — the process
//!   ignores SIGPIPE, as every Rust program does — and `main` exits 0 without a word, like
//!   most command-line tools;
//! - anything else (`> /dev/full`): `main` reports `writing to standard output: No space left
//!   on device` and exits non-zero, instead of losing the output silently.

use std::fmt;
use std::io::{self, Write};
use std::sync::Mutex;

/// The first write to standard output that failed in this process: its kind and message.
static FAILED: Mutex<Option<(io::ErrorKind, String)>> = Mutex::new(None);

/// Why standard output could not be written: the error every failed write returns, inside an
/// `io::Error` of the same kind.
#[derive(Debug)]
pub struct StdoutError(io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string();
        // "No space left on device (os error 28)": the number adds nothing for a reader.
        let text = match text.rfind(" (os error ") {
            Some(i) if text.ends_with(')') => &text[..i],
            _ => &text,
        };
        write!(f, "writing to standard output: {text}")
    }
}

/// No `source`: the message already holds the OS error, and `{:#}` would print it twice.
impl std::error::Error for StdoutError {}

fn failed(e: io::Error) -> io::Error {
    let kind = e.kind();
    let e = StdoutError(e);
    let mut first = FAILED.lock().unwrap_or_else(|p| p.into_inner());
    first.get_or_insert_with(|| (kind, e.to_string()));
    io::Error::new(kind, e)
}

/// Write `bytes` to standard output with write(2) directly, not through std's line buffer:
/// for the monitor's line every tick, where the lock, the copy into the buffer and the search
/// for the newline were code and data a sleeping sampler touches cold each time. Whatever
/// went through [`stdout`] before must be flushed first. Errors are remembered as there.
#[link_section = "truebench_tick"]
pub fn write_direct(mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // File descriptor 1 as such, not `io::stdout()`: that reads a static `OnceLock`, a
        // page of its own the sampler would touch every tick. A closed descriptor 1 is an
        // error from write(2) like any other.
        // SAFETY: a borrow of descriptor 1 for one call; nothing closes it meanwhile.
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(1) };
        match rustix::io::write(fd, bytes) {
            Ok(0) => return Err(failed(io::ErrorKind::WriteZero.into())),
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(failed(e.into())),
        }
    }
    Ok(())
}

/// Standard output, locked while the value lives; errors are remembered for [`finish`] and
/// name standard output.
pub struct Stdout(io::StdoutLock<'static>);

pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(failed)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(failed)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(failed)
    }
}

/// `write!` to standard output: `out!("{x}")?`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        ::std::write!($crate::out::stdout(), $($arg)*)
    }};
}

/// `writeln!` to standard output: `outln!("{x}")?`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        ::std::writeln!($crate::out::stdout(), $($arg)*)
    }};
}

/// `eprint!` that cannot panic: messages and progress on standard error are best effort
/// (`truebench run 2>&1 | head -3` must not end the run); nothing could report their loss.
/// Formatted first and written by one call: standard error is unbuffered, so `write!` would
/// write each piece on its own — a process killed between two (a crash trial's SIGKILL) left
/// `stored in the history as #` without its number, and two processes' lines interleave.
macro_rules! err {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::io::stderr().write_all(::std::format!($($arg)*).as_bytes());
    }};
}

/// `eprintln!` that cannot panic, a line written whole (see [`err!`]).
macro_rules! errln {
    () => {{
        use ::std::io::Write as _;
        let _ = ::std::io::stderr().write_all(b"\n");
    }};
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let mut line = ::std::format!($($arg)*);
        line.push('\n');
        let _ = ::std::io::stderr().write_all(line.as_bytes());
    }};
}

/// What became of standard output, after the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Everything written.
    Written,
    /// The reader went away: stop quietly, exit 0.
    Closed,
    /// Output was lost: report this (it names standard output) and exit non-zero.
    Failed(String),
}

/// Flush what is buffered (Rust flushes at exit too, but ignores the error there) and say
/// what became of the output.
pub fn finish() -> Outcome {
    let _ = stdout().flush();
    let first = FAILED.lock().unwrap_or_else(|p| p.into_inner()).clone();
    match first {
        None => Outcome::Written,
        Some((io::ErrorKind::BrokenPipe, _)) => Outcome::Closed,
        Some((_, message)) => Outcome::Failed(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_standard_output_without_the_errno() {
        let e = failed(io::Error::from_raw_os_error(28));
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert_eq!(
            e.to_string(),
            "writing to standard output: No space left on device"
        );
        let e = StdoutError(io::Error::other("odd (text)"));
        assert_eq!(e.to_string(), "writing to standard output: odd (text)");
    }
}

/// An error and its causes, `a: b: c`, each cause left out when the message before already
/// says it: library errors often print their source themselves (`{path}: {source}`), and
/// anyhow's `{:#}` would repeat it (`not a database: not a database`).
pub fn chain(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if msg.is_empty() {
            msg = c;
        } else if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}

#[cfg(test)]
mod chain_tests {
    #[test]
    fn causes_already_said_are_not_repeated() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let said = io.to_string();
        #[derive(Debug)]
        struct Wrapped {
            source: std::io::Error,
        }
        impl std::fmt::Display for Wrapped {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "x.db: {}", self.source)
            }
        }
        impl std::error::Error for Wrapped {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.source)
            }
        }
        let e = anyhow::Error::new(Wrapped { source: io }).context("reading history");
        assert_eq!(super::chain(&e), format!("reading history: x.db: {said}"));
    }
}
