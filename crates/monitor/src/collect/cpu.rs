//! CPU times (`/proc/stat`), the load average and the online CPUs.

use crate::reader::bytes::{count_cpulist, cpu_pct, load1, parse_stat, pread_ok};
use crate::warm::warm_slice;
use std::fs::File;
use truebench_host::parse::stat::CpuTimes;
use truebench_host::procfs::{LOADAVG, STAT};
use truebench_host::Host;
use truebench_model::timeline::Sample;

const ONLINE: &str = "sys/devices/system/cpu/online";

/// Per-CPU /proc/stat lines (indexed by CPU number) and each CPU's busy share.
pub(crate) struct PerCpu {
    pub(crate) now: Vec<Option<CpuTimes>>,
    pub(crate) last: Vec<Option<CpuTimes>>,
    pub(crate) busy: Vec<f64>,
}

pub(crate) struct Cpu {
    stat: Option<File>,
    last: Option<CpuTimes>,
    /// The reading before `last` when this sample's reading succeeded (see `agg`).
    before: Option<CpuTimes>,
    /// Only kept when a consumer needs per-CPU figures (measured clocks, softirq time).
    pub(crate) per_cpu: Option<PerCpu>,
    loadavg: Option<File>,
    online: Option<File>,
}

impl Cpu {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        if let Some(p) = &self.per_cpu {
            warm_slice(&p.now);
            warm_slice(&p.last);
            warm_slice(&p.busy);
        }
    }

    /// `max_cpu`: highest CPU number + 1; `per_cpu`: also parse every `cpuN` line.
    pub(crate) fn new(host: &Host, max_cpu: usize, per_cpu: bool) -> Cpu {
        Cpu {
            stat: host.open(STAT).ok(),
            last: None,
            before: None,
            per_cpu: per_cpu.then(|| PerCpu {
                now: vec![None; max_cpu],
                last: vec![None; max_cpu],
                busy: vec![0.0; max_cpu],
            }),
            loadavg: host.open(LOADAVG).ok(),
            online: host.open(ONLINE).ok(),
        }
    }

    /// Scratch space `sample` needs: the aggregate line only fits in 4 KiB; every `cpuN`
    /// line is ~80 bytes.
    pub(crate) fn buf_len(&self) -> usize {
        8192 + self.per_cpu.as_ref().map_or(0, |p| 96 * p.now.len())
    }

    #[link_section = "truebench_tick"]
    fn read_stat(&mut self, buf: &mut [u8]) -> Option<CpuTimes> {
        let text = pread_ok(self.stat.as_ref()?, buf)?;
        match self.per_cpu.as_mut() {
            Some(p) => parse_stat(text, Some(&mut p.now)),
            None => parse_stat(text, None),
        }
    }

    /// Take the /proc/stat baseline the first sample's percentages are a delta against.
    pub(crate) fn baseline(&mut self, buf: &mut [u8]) {
        self.last = self.read_stat(buf);
        if let Some(p) = self.per_cpu.as_mut() {
            p.last.clone_from(&p.now);
        }
    }

    /// Fill `cpu`, `load1` and `cpus_online` (and `agg`'s readings).
    #[link_section = "truebench_tick"]
    pub(crate) fn sample(&mut self, buf: &mut [u8], s: &mut Sample) {
        // CPU %: delta against the previous reading (the baseline for the first sample).
        // The readings stay where they are, not paired up in a new value: a pair of them is
        // 160 bytes, copied by a call to the C library's `memcpy` (a page of its own).
        match self.read_stat(buf) {
            Some(now) => {
                s.cpu = self.last.as_ref().and_then(|l| cpu_pct(&now, l));
                self.before = self.last.replace(now);
            }
            None => {
                s.cpu = None;
                self.before = None;
            }
        }
        if let Some(PerCpu { now, last, busy }) = self.per_cpu.as_mut() {
            for (i, b) in busy.iter_mut().enumerate() {
                *b = match (now[i], last[i]) {
                    (Some(n), Some(l)) => {
                        let d = n.delta(&l);
                        let t = d.total();
                        if t == 0 {
                            0.0
                        } else {
                            // Jiffies, far below 2^63: signed conversions, no constants.
                            d.busy() as i64 as f64 / t as i64 as f64
                        }
                    }
                    _ => 0.0,
                };
            }
            // `last` now holds this sample's lines and `now` the previous ones.
            std::mem::swap(now, last);
        }
        s.load1 = self
            .loadavg
            .as_ref()
            .and_then(|f| pread_ok(f, buf))
            .and_then(load1);
        s.cpus_online = self
            .online
            .as_ref()
            .and_then(|f| pread_ok(f, buf))
            .and_then(count_cpulist);
    }

    /// The aggregate /proc/stat times (now, before) of the last sample's interval, when both
    /// readings exist.
    pub(crate) fn agg(&self) -> Option<(CpuTimes, CpuTimes)> {
        self.last.zip(self.before)
    }

    /// CPU `i`'s times over the last interval (when per-CPU lines are kept and the CPU had a
    /// line both times).
    pub(crate) fn per_cpu_delta(&self, i: usize) -> Option<CpuTimes> {
        // After `sample`, `last` holds this sample's lines and `now` the previous ones.
        let p = self.per_cpu.as_ref()?;
        Some(p.last.get(i).copied()??.delta(&p.now.get(i).copied()??))
    }

    /// Each CPU's busy share over the last interval (when per-CPU lines are kept).
    pub(crate) fn busy(&self) -> Option<&[f64]> {
        self.per_cpu.as_ref().map(|p| p.busy.as_slice())
    }
}
