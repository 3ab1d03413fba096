//! Disk I/O per whole disk (`/proc/diskstats`), as deltas over each interval.

use crate::reader::bytes::pread_all;
use crate::warm::warm_slice;
use std::fs::File;
use truebench_host::inventory::Missing;
use truebench_host::parse::bytes::counter_delta;
use truebench_host::parse::diskstats::{self, DiskCounters};
use truebench_host::procfs::DISKSTATS;
use truebench_host::Host;
use truebench_model::timeline::DiskDelta;

pub(crate) struct Disks {
    file: Option<File>,
    names: Vec<Vec<u8>>,
    now: Vec<Option<DiskCounters>>,
    last: Vec<Option<DiskCounters>>,
}

#[link_section = "truebench_tick"]
fn delta(a: &DiskCounters, b: &DiskCounters) -> Option<DiskDelta> {
    Some(DiskDelta {
        reads: counter_delta(a.reads, b.reads)?,
        writes: counter_delta(a.writes, b.writes)?,
        read_bytes: counter_delta(a.sectors_read, b.sectors_read)?.saturating_mul(512),
        write_bytes: counter_delta(a.sectors_written, b.sectors_written)?.saturating_mul(512),
        io_ms: counter_delta(a.io_ms, b.io_ms)?,
    })
}

impl Disks {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        warm_slice(&self.names);
        warm_slice(&self.now);
        warm_slice(&self.last);
    }

    /// Watches `Host::disks()`; their names go to `names`.
    pub(crate) fn new(host: &Host, names: &mut Vec<String>, missing: &mut Vec<Missing>) -> Disks {
        let file = match host.open(DISKSTATS) {
            Ok(f) => Some(f),
            Err(e) => {
                missing.push(Missing {
                    what: "disks".into(),
                    reason: e.to_string(),
                });
                None
            }
        };
        *names = if file.is_some() {
            host.disks()
        } else {
            Vec::new()
        };
        let n = names.len();
        Disks {
            file,
            names: names.iter().map(|s| s.as_bytes().to_vec()).collect(),
            now: vec![None; n],
            last: vec![None; n],
        }
    }

    /// /proc/diskstats grows ~100 bytes per device (partitions and loop devices included).
    pub(crate) fn buf_len(&self) -> usize {
        64 * 1024
    }

    #[link_section = "truebench_tick"]
    fn read(&mut self, buf: &mut [u8]) {
        self.now.iter_mut().for_each(|c| *c = None);
        let Some(text) = self.file.as_ref().and_then(|f| pread_all(f, buf).ok()) else {
            return;
        };
        let (names, now) = (&self.names, &mut self.now);
        diskstats::for_each(text, |_, _, name, c| {
            if let Some(i) = names.iter().position(|n| n == name) {
                now[i] = Some(*c);
            }
        });
    }

    pub(crate) fn baseline(&mut self, buf: &mut [u8]) {
        self.read(buf);
        std::mem::swap(&mut self.now, &mut self.last);
    }

    #[link_section = "truebench_tick"]
    pub(crate) fn sample(&mut self, buf: &mut [u8], out: &mut Vec<Option<DiskDelta>>) {
        self.read(buf);
        out.clear();
        out.extend(
            self.last
                .iter()
                .zip(&self.now)
                .map(|(l, n)| delta(l.as_ref()?, n.as_ref()?)),
        );
        std::mem::swap(&mut self.now, &mut self.last);
    }
}
