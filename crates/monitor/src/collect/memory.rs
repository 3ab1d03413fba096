//! Memory and swap (`/proc/meminfo`).

use crate::reader::bytes::pread_ok;
use std::fs::File;
use truebench_host::parse::meminfo::{Meminfo, MeminfoLayout};
use truebench_host::procfs::MEMINFO;
use truebench_host::Host;
use truebench_model::timeline::{MemorySample, Sample};

pub(crate) struct Memory {
    file: Option<File>,
    /// Where the fields were in the last reading: the next reads those lines only.
    layout: MeminfoLayout,
    /// The latest reading (all fields None when unreadable).
    pub(crate) last: Meminfo,
}

impl Memory {
    pub(crate) fn new(host: &Host) -> Memory {
        Memory {
            file: host.open(MEMINFO).ok(),
            layout: MeminfoLayout::default(),
            last: Meminfo::default(),
        }
    }

    #[link_section = "truebench_tick"]
    pub(crate) fn sample(&mut self, buf: &mut [u8], s: &mut Sample) {
        let layout = &mut self.layout;
        self.last = self
            .file
            .as_ref()
            .and_then(|f| pread_ok(f, buf))
            .map(|t| layout.parse(t))
            .unwrap_or_default();
        s.swap_used_kb = self.last.swap_used_kb();
    }

    /// The detail beyond swap of the latest reading; None when unreadable.
    pub(crate) fn detail(&self) -> Option<MemorySample> {
        let m = &self.last;
        let d = MemorySample {
            available_kb: m.mem_available_kb,
            free_kb: m.mem_free_kb,
            cached_kb: m.cached_kb,
            dirty_kb: m.dirty_kb,
            writeback_kb: m.writeback_kb,
        };
        (d != MemorySample::default()).then_some(d)
    }
}
