//! Softirq work per CPU: time in softirq context (the `softirq` column of each `cpuN` line
//! of /proc/stat) and how many NET_RX, NET_TX and BLOCK softirqs ran (`/proc/softirqs`).
//! Network and storage throughput on small boards is often bounded by the one CPU that
//! takes these.

use super::cpu::Cpu;
use crate::reader::bytes::{pread_all, share_pct};
use crate::warm::warm_slice;
use std::fs::File;
use truebench_host::inventory::Missing;
use truebench_host::parse::bytes::counter_delta;
use truebench_host::parse::softirqs;
use truebench_host::parse::stat::CpuTimes;
use truebench_host::procfs::SOFTIRQS;
use truebench_host::Host;
use truebench_model::timeline::{CpuSoftirq, SoftirqSample};

const ROWS: [&[u8]; 3] = [b"NET_RX", b"NET_TX", b"BLOCK"];

pub(crate) struct Softirq {
    file: Option<File>,
    /// CPU number of each column.
    cpus: Vec<u32>,
    /// Per row of `ROWS`, per column.
    now: [Vec<Option<u64>>; 3],
    last: [Vec<Option<u64>>; 3],
}

#[link_section = "truebench_tick"]
fn pct(d: &CpuTimes) -> Option<f64> {
    let total = d.total();
    (total > 0).then(|| share_pct(d.softirq, total))
}

impl Softirq {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        warm_slice(&self.cpus);
        self.now
            .iter()
            .chain(&self.last)
            .for_each(|v| warm_slice(v));
    }

    /// The CPUs of /proc/softirqs' columns go to `cpus`.
    pub(crate) fn new(host: &Host, cpus: &mut Vec<u32>, missing: &mut Vec<Missing>) -> Softirq {
        cpus.clear();
        let file = match host.read_bytes(SOFTIRQS) {
            Ok(text) => {
                softirqs::for_each_column(&text, |c| cpus.push(c));
                host.open(SOFTIRQS).ok()
            }
            Err(e) => {
                missing.push(Missing {
                    what: "softirqs".into(),
                    reason: e.to_string(),
                });
                None
            }
        };
        let n = cpus.len();
        Softirq {
            file,
            cpus: cpus.clone(),
            now: std::array::from_fn(|_| vec![None; n]),
            last: std::array::from_fn(|_| vec![None; n]),
        }
    }

    /// One header line and ten rows of ~11 bytes per CPU.
    pub(crate) fn buf_len(&self) -> usize {
        1024 + 12 * 11 * self.cpus.len()
    }

    #[link_section = "truebench_tick"]
    fn read(&mut self, buf: &mut [u8]) {
        match self.file.as_ref().and_then(|f| pread_all(f, buf).ok()) {
            Some(t) => softirqs::fill_rows(t, &ROWS, &mut self.now),
            None => self.now.iter_mut().flatten().for_each(|v| *v = None),
        }
    }

    pub(crate) fn baseline(&mut self, buf: &mut [u8]) {
        self.read(buf);
        std::mem::swap(&mut self.now, &mut self.last);
    }

    /// `agg`: the aggregate /proc/stat times (now, before) of this interval; `cpu` has its
    /// per-CPU lines of this sample.
    #[link_section = "truebench_tick"]
    pub(crate) fn sample(
        &mut self,
        buf: &mut [u8],
        agg: Option<(CpuTimes, CpuTimes)>,
        cpu: &Cpu,
        out: &mut SoftirqSample,
    ) {
        self.read(buf);
        out.pct = agg.and_then(|(n, l)| pct(&n.delta(&l)));
        out.cpus.clear();
        for (col, &c) in self.cpus.iter().enumerate() {
            let d = |row: usize| counter_delta(self.last[row][col]?, self.now[row][col]?);
            out.cpus.push(CpuSoftirq {
                pct: cpu.per_cpu_delta(c as usize).as_ref().and_then(pct),
                net_rx: d(0),
                net_tx: d(1),
                block: d(2),
            });
        }
        std::mem::swap(&mut self.now, &mut self.last);
    }
}
