//! What a flag's value may be, one rule per quantity, each defined here once and used by clap
//! (`value_parser = values::SAMPLE_INTERVAL`), so a bad value is refused before anything
//! starts, with the same words wherever the quantity appears. `main` prints a refusal as
//! `--flag VALUE: expected …`, naming the flag as the user typed it.
//!
//! No command checks a range by hand: a quantity that needs a new bound gets a new constant
//! here, and its help text says the range.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use clap::builder::TypedValueParser;
use clap::error::{ContextKind, ContextValue, Error, ErrorKind};

/// A number in `[lo, hi]` (`lo` excluded when `open`), in `unit`.
#[derive(Debug, Clone, Copy)]
pub struct Within {
    lo: f64,
    hi: f64,
    /// The lower bound itself is refused (a share above 0 %).
    open: bool,
    unit: &'static str,
}

impl Within {
    /// The expectation as the refusal says it.
    pub fn expected(&self) -> String {
        if self.open {
            format!(
                "expected {} above {} and at most {}",
                self.unit, self.lo, self.hi
            )
        } else {
            format!("expected {} between {} and {}", self.unit, self.lo, self.hi)
        }
    }

    fn admits(&self, v: f64) -> bool {
        v.is_finite() && v <= self.hi && if self.open { v > self.lo } else { v >= self.lo }
    }
}

const fn within(lo: f64, hi: f64, unit: &'static str) -> Within {
    Within {
        lo,
        hi,
        open: false,
        unit,
    }
}

/// Seconds between monitoring samples: the evidence's resolution, on every measuring command.
pub const SAMPLE_INTERVAL: Within = within(0.01, 3600.0, "seconds");
/// Seconds between an external power meter's readings.
pub const POWER_INTERVAL: Within = within(0.05, 3600.0, "seconds");
/// Longest wait for a state of the machine (idle, a temperature), seconds.
pub const TIMEOUT: Within = within(0.0, 86400.0, "seconds");
/// How long something is held before measuring (load to heat, a stress phase), seconds.
pub const HOLD: Within = within(0.0, 86400.0, "seconds");
/// Seconds one periodic-task test runs (interactivity's cells, governors' sets, net's
/// transfers): long enough for several periods of the slowest task.
pub const TEST_SECONDS: Within = within(0.5, 86400.0, "seconds");
/// Seconds one storage test reads.
pub const IO_SECONDS: Within = within(0.2, 86400.0, "seconds");
/// A length of time above zero, seconds (how long to monitor; how long a kernel of the
/// hidden `measure` helper runs).
pub const POSITIVE_SECONDS: Within = Within {
    lo: 0.0,
    hi: 1e9,
    open: true,
    unit: "seconds",
};
/// Milliseconds of work per period.
pub const POSITIVE_MS: Within = Within {
    lo: 0.0,
    hi: 1e9,
    open: true,
    unit: "ms",
};
/// Minutes of load of the thermal test.
pub const MINUTES: Within = within(0.01, 1440.0, "minutes");
/// Seconds per score of the built-in stress.
pub const SCORE_INTERVAL: Within = within(0.1, 600.0, "seconds");
/// A temperature a command waits for, °C.
pub const CELSIUS: Within = within(-40.0, 150.0, "°C");
/// A share of one CPU's time, %.
pub const PERCENT: Within = Within {
    lo: 0.0,
    hi: 100.0,
    open: true,
    unit: "%",
};

impl TypedValueParser for Within {
    type Value = f64;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<f64, Error> {
        let text = value.to_string_lossy();
        match text.trim().parse::<f64>() {
            Ok(v) if self.admits(v) => Ok(v),
            _ => Err(refused(cmd, arg, &text, &self.expected())),
        }
    }
}

/// A whole number in `[lo, hi]`.
#[derive(Debug, Clone, Copy)]
pub struct Count {
    lo: u64,
    hi: u64,
    what: &'static str,
}

/// Repeats, runs, streams, sets, tasks: at least one.
pub const AT_LEAST_ONE: Count = Count {
    lo: 1,
    hi: u32::MAX as u64,
    what: "a whole number of at least 1",
};
/// Runs of the work per OPP.
pub const RUNS: Count = Count {
    lo: 1,
    hi: 100,
    what: "a whole number of runs from 1 to 100",
};
/// The period of a custom interactivity task, µs: what the scheduler can still time.
pub const PERIOD_US: Count = Count {
    lo: 100,
    hi: u32::MAX as u64,
    what: "at least 100 µs",
};

impl TypedValueParser for Count {
    type Value = u64;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<u64, Error> {
        let text = value.to_string_lossy();
        match text.trim().parse::<u64>() {
            Ok(v) if (self.lo..=self.hi).contains(&v) => Ok(v),
            _ => Err(refused(cmd, arg, &text, &format!("expected {}", self.what))),
        }
    }
}

/// Text that must not be empty (a command line, a load's name).
#[derive(Debug, Clone, Copy)]
pub struct NotEmpty(pub &'static str);

impl TypedValueParser for NotEmpty {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, Error> {
        let text = value.to_string_lossy();
        if text.trim().is_empty() {
            return Err(refused(cmd, arg, &text, &format!("expected {}", self.0)));
        }
        Ok(text.trim().to_string())
    }
}

/// A path that passes a check of the file system (`Err` says what it is instead).
#[derive(Debug, Clone, Copy)]
pub struct PathThat(fn(&Path) -> Result<(), String>);

impl TypedValueParser for PathThat {
    type Value = PathBuf;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<PathBuf, Error> {
        let p = PathBuf::from(value);
        (self.0)(&p).map_err(|why| refused(cmd, arg, &value.to_string_lossy(), &why))?;
        Ok(p)
    }
}

/// A directory.
pub const DIRECTORY: PathThat = PathThat(|p| {
    if p.is_dir() {
        Ok(())
    } else {
        Err("not a directory".into())
    }
});

/// A regular file, or nothing yet (a scratch file is made there).
pub const FILE_OR_ABSENT: PathThat = PathThat(|p| match std::fs::metadata(p) {
    Ok(m) if !m.is_file() => Err("not a regular file".into()),
    _ => Ok(()),
});

/// A block device.
pub const BLOCK_DEVICE: PathThat = PathThat(|p| {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::metadata(p) {
        Err(e) => Err(e.to_string()),
        Ok(m) if !m.file_type().is_block_device() => {
            Err("not a block device (use --file for files)".into())
        }
        Ok(_) => Ok(()),
    }
});

/// Nothing yet: a file truebench creates and never overwrites (a link counts as something).
pub const NEW_FILE: PathThat = PathThat(|p| match std::fs::symlink_metadata(p) {
    Ok(_) => Err("exists; not overwriting".into()),
    Err(_) => Ok(()),
});

/// A refusal carrying the flag, the value and the expectation, for `main` to print as
/// `--flag VALUE: expected …`.
fn refused(cmd: &clap::Command, arg: Option<&clap::Arg>, value: &str, expected: &str) -> Error {
    let mut e = Error::new(ErrorKind::ValueValidation).with_cmd(cmd);
    if let Some(a) = arg {
        e.insert(ContextKind::InvalidArg, ContextValue::String(a.to_string()));
    }
    e.insert(
        ContextKind::InvalidValue,
        ContextValue::String(value.to_string()),
    );
    e.insert(
        ContextKind::Custom,
        ContextValue::String(expected.to_string()),
    );
    e
}

/// A refused value as the project words every bad value: `--flag VALUE: expected …`, the flag
/// as the user typed it (an alias too; `cmd` is the whole CLI, where its aliases are found).
/// None for every other clap error, which clap prints.
pub fn refusal_text(e: &Error, argv: &[String], cmd: &clap::Command) -> Option<String> {
    if e.kind() != ErrorKind::ValueValidation && e.kind() != ErrorKind::InvalidValue {
        return None;
    }
    let string = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let arg = string(ContextKind::InvalidArg)?;
    let value = string(ContextKind::InvalidValue).unwrap_or_default();
    let expected = match (string(ContextKind::Custom), e.get(ContextKind::ValidValue)) {
        (Some(c), _) => c,
        (None, Some(ContextValue::Strings(v))) => format!("expected one of {}", v.join(", ")),
        // A parser that is a function: its own error says what was expected.
        _ if std::error::Error::source(e).is_some() => std::error::Error::source(e)
            .map(|s| s.to_string())
            .unwrap_or_default(),
        // A parser of clap's own (a number that is no number): its message says it.
        _ => {
            let text = e.render().to_string();
            let line = text.lines().next().unwrap_or_default().to_string();
            line.rsplit_once(": ")
                .map_or(line.clone(), |(_, why)| why.to_string())
        }
    };
    // `--interval <S>` → `interval`, then every long name of that flag in the CLI.
    let primary = arg.split_whitespace().next().unwrap_or(&arg);
    let primary = primary.trim_start_matches('-');
    let mut names = vec![primary.to_string()];
    let mut stack = vec![cmd];
    while let Some(c) = stack.pop() {
        stack.extend(c.get_subcommands());
        for a in c.get_arguments().filter(|a| a.get_long() == Some(primary)) {
            names.extend(a.get_all_aliases().into_iter().flatten().map(String::from));
        }
    }
    let typed = argv
        .iter()
        .filter_map(|a| a.strip_prefix("--"))
        .map(|a| a.split_once('=').map_or(a, |(n, _)| n))
        .find(|n| names.iter().any(|x| x == n) && has_value(argv, n, &value))
        .unwrap_or(primary);
    Some(format!("--{typed} {value}: {expected}"))
}

/// `--name value` or `--name=value` is in `argv`.
fn has_value(argv: &[String], name: &str, value: &str) -> bool {
    let flag = format!("--{name}");
    argv.windows(2).any(|w| w[0] == flag && w[1] == value)
        || argv.iter().any(|a| *a == format!("{flag}={value}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct T {
        #[arg(long, alias = "interval", value_parser = SAMPLE_INTERVAL)]
        sample_interval: Option<f64>,
        #[arg(long, value_parser = PERCENT)]
        share: Option<f64>,
        #[arg(long, value_parser = RUNS)]
        runs: Option<u64>,
    }

    fn refusal(args: &[&str]) -> String {
        let argv: Vec<String> = std::iter::once("t")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        let e = T::try_parse_from(&argv).unwrap_err();
        refusal_text(&e, &argv, &<T as clap::CommandFactory>::command())
            .unwrap_or_else(|| panic!("{args:?}: {e}"))
    }

    #[test]
    fn a_refusal_names_the_flag_as_typed_the_value_and_the_range() {
        assert_eq!(
            refusal(&["--sample-interval", "0"]),
            "--sample-interval 0: expected seconds between 0.01 and 3600"
        );
        assert_eq!(
            refusal(&["--interval", "0"]),
            "--interval 0: expected seconds between 0.01 and 3600"
        );
        assert_eq!(
            refusal(&["--interval=nan"]),
            "--interval nan: expected seconds between 0.01 and 3600"
        );
        assert_eq!(
            refusal(&["--share", "0"]),
            "--share 0: expected % above 0 and at most 100"
        );
        assert_eq!(
            refusal(&["--runs", "101"]),
            "--runs 101: expected a whole number of runs from 1 to 100"
        );
    }

    #[test]
    fn the_bounds_are_admitted_and_their_neighbours_not() {
        for (w, ok, bad) in [
            (SAMPLE_INTERVAL, [0.01, 3600.0], [0.0099, 3600.1]),
            (PERCENT, [1e-9, 100.0], [0.0, 100.5]),
            (CELSIUS, [-40.0, 150.0], [-40.5, f64::INFINITY]),
        ] {
            for v in ok {
                assert!(w.admits(v), "{v} {}", w.expected());
            }
            for v in bad {
                assert!(!w.admits(v), "{v} {}", w.expected());
            }
        }
        let t = T::try_parse_from(["t", "--interval", "0.5", "--runs", "100"]).unwrap();
        assert_eq!((t.sample_interval, t.runs), (Some(0.5), Some(100)));
    }
}
