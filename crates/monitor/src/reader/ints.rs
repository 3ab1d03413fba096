//! Integer files (clocks, temperatures, hwmon readings, energy counters): each opened once and
//! read once per sample, whichever collectors use it. Fast files are read inline; files that
//! ask hardware or firmware on every read go to the `SlowReader` helper thread, which the
//! sampler waits for at most a deadline.

use super::bytes::{parse_i64, pread_ok};
use super::slow::SlowReader;
use crate::warm::warm_slice;
use std::fs::File;
use std::time::Duration;
use truebench_host::Host;

/// A registered file; its value is `IntFiles::get(id)` after each `read`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IntId(usize);

#[derive(Debug, Clone, Copy)]
enum At {
    Fast(usize),
    Slow(usize),
}

pub(crate) struct IntFiles {
    /// Root-relative path of each file: registering a path twice yields the same id.
    paths: Vec<String>,
    at: Vec<At>,
    fast: Vec<Option<File>>,
    /// Slow files until `start` hands them to the helper thread.
    slow_files: Vec<Option<File>>,
    slow_names: Vec<String>,
    slow: Option<SlowReader>,
    slow_vals: Vec<Option<i64>>,
    values: Vec<Option<i64>>,
    deadline: Duration,
}

impl IntFiles {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        warm_slice(&self.at);
        warm_slice(&self.fast);
        warm_slice(&self.values);
        warm_slice(&self.slow_vals);
    }

    /// `deadline`: how long a sample waits for the slow files.
    pub(crate) fn new(deadline: Duration) -> IntFiles {
        IntFiles {
            paths: Vec::new(),
            at: Vec::new(),
            fast: Vec::new(),
            slow_files: Vec::new(),
            slow_names: Vec::new(),
            slow: None,
            slow_vals: Vec::new(),
            values: Vec::new(),
            deadline,
        }
    }

    /// Open `rel` (once) for reading at every sample; `slow` puts it on the helper thread.
    /// A file that cannot be opened reads as None.
    pub(crate) fn add(&mut self, host: &Host, rel: &str, slow: bool) -> IntId {
        if let Some(i) = self.paths.iter().position(|p| p == rel) {
            return IntId(i);
        }
        let f = host.open(rel).ok();
        let at = if slow {
            self.slow_files.push(f);
            self.slow_names.push(rel.to_string());
            At::Slow(self.slow_names.len() - 1)
        } else {
            self.fast.push(f);
            At::Fast(self.fast.len() - 1)
        };
        self.paths.push(rel.to_string());
        self.at.push(at);
        self.values.push(None);
        IntId(self.paths.len() - 1)
    }

    /// Start the helper thread when there are slow files. Call once, after the last `add`.
    pub(crate) fn start(&mut self) {
        if !self.slow_names.is_empty() && self.slow.is_none() {
            self.slow_vals = vec![None; self.slow_names.len()];
            self.slow = Some(SlowReader::start(
                std::mem::take(&mut self.slow_files),
                self.slow_names.clone(),
            ));
        }
    }

    /// Read every file now (`buf`: scratch space of at least 64 bytes).
    #[link_section = "truebench_tick"]
    pub(crate) fn read(&mut self, buf: &mut [u8]) {
        if let Some(slow) = self.slow.as_mut() {
            slow.collect(self.deadline, &mut self.slow_vals);
        }
        let small = &mut buf[..64];
        for (v, at) in self.values.iter_mut().zip(&self.at) {
            *v = match *at {
                At::Fast(i) => self.fast[i]
                    .as_ref()
                    .and_then(|f| pread_ok(f, small))
                    .and_then(parse_i64),
                At::Slow(i) => self.slow_vals.get(i).copied().flatten(),
            };
        }
    }

    pub(crate) fn get(&self, id: IntId) -> Option<i64> {
        self.values[id.0]
    }

    /// Files disabled after a read timed out, for the report.
    pub(crate) fn disabled(&self) -> &[String] {
        self.slow.as_ref().map_or(&[], |s| &s.timed_out)
    }
}
