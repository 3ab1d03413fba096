//! Idle states: each CPU's cpuidle `usage` (entries) and `time` (µs) of every state, opened
//! once and re-read with one pread each per tick, summed per group of CPUs offering the same
//! states into the interval's deltas. Nothing is opened, and a tick does nothing, where the
//! machine has no cpuidle.

use crate::reader::bytes::{parse_i64, pread_ok};
use crate::warm::warm_slice;
use std::fs::File;
use truebench_host::cpuidle::state_dir;
use truebench_host::{Host, Inventory};
use truebench_model::timeline::{IdleDelta, IdleGroupHeader};

/// One CPU's state: its two files and their last values.
struct Counter {
    usage: Option<File>,
    time: Option<File>,
    last: [Option<u64>; 2],
}

struct Group {
    /// Per CPU of the group, per state (`cpus × states`, row-major).
    counters: Vec<Counter>,
    states: usize,
}

pub(crate) struct Idle {
    groups: Vec<Group>,
}

/// A sysfs counter file: `123\n`; negative or unreadable is unknown.
#[link_section = "truebench_tick"]
fn value(f: &Option<File>, buf: &mut [u8]) -> Option<u64> {
    let b = pread_ok(f.as_ref()?, buf)?;
    u64::try_from(parse_i64(b)?).ok()
}

/// Add `now − last` to `sum`; a counter that went back (CPU re-plugged) or is unknown adds
/// nothing.
#[link_section = "truebench_tick"]
fn add(sum: &mut Option<u64>, now: Option<u64>, last: Option<u64>) {
    if let Some(v) = now.zip(last).and_then(|(n, l)| n.checked_sub(l)) {
        *sum = Some(sum.unwrap_or(0) + v);
    }
}

impl Idle {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        warm_slice(&self.groups);
        self.groups.iter().for_each(|g| warm_slice(&g.counters));
    }

    /// Open every state's counters of the inventory's idle groups into `header`; None when
    /// the machine has no CPU with idle states.
    pub(crate) fn new(
        host: &Host,
        inv: &Inventory,
        header: &mut Vec<IdleGroupHeader>,
    ) -> Option<Idle> {
        let ci = inv.cpuidle.as_ref()?;
        let mut groups = Vec::new();
        header.clear();
        for g in &ci.groups {
            let mut counters = Vec::with_capacity(g.cpus.len() * g.states.len());
            for &cpu in &g.cpus {
                for k in 0..g.states.len() {
                    let d = state_dir(cpu, k);
                    counters.push(Counter {
                        usage: host.open(format!("{d}/usage")).ok(),
                        time: host.open(format!("{d}/time")).ok(),
                        last: [None; 2],
                    });
                }
            }
            header.push(IdleGroupHeader {
                cpus: g.cpus.clone(),
                states: g.states.iter().map(|s| s.name.clone()).collect(),
                exit_latency_us: g.states.iter().map(|s| s.exit_latency_us).collect(),
            });
            groups.push(Group {
                counters,
                states: g.states.len(),
            });
        }
        (!groups.is_empty()).then_some(Idle { groups })
    }

    /// Read every counter; with `out`, add each group's deltas since the last read to it
    /// (index = group; vectors reused, so a steady tick allocates nothing).
    #[link_section = "truebench_tick"]
    fn read(&mut self, buf: &mut [u8], mut out: Option<&mut Vec<IdleDelta>>) {
        if let Some(o) = out.as_deref_mut() {
            o.resize_with(self.groups.len(), IdleDelta::default);
        }
        for (gi, g) in self.groups.iter_mut().enumerate() {
            let mut delta = out.as_deref_mut().and_then(|o| o.get_mut(gi));
            if let Some(d) = delta.as_deref_mut() {
                d.entries.clear();
                d.entries.resize(g.states, None);
                d.time_us.clear();
                d.time_us.resize(g.states, None);
            }
            for (i, c) in g.counters.iter_mut().enumerate() {
                let k = i % g.states;
                let now = [value(&c.usage, buf), value(&c.time, buf)];
                if let Some(d) = delta.as_deref_mut() {
                    add(&mut d.entries[k], now[0], c.last[0]);
                    add(&mut d.time_us[k], now[1], c.last[1]);
                }
                c.last = now;
            }
        }
    }

    pub(crate) fn baseline(&mut self, buf: &mut [u8]) {
        self.read(buf, None);
    }

    #[link_section = "truebench_tick"]
    pub(crate) fn sample(&mut self, buf: &mut [u8], out: &mut Vec<IdleDelta>) {
        self.read(buf, Some(out));
    }
}
