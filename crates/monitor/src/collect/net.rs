//! Network bytes and packets per interface (`/proc/net/dev`), as deltas over each interval.

use crate::reader::bytes::pread_all;
use crate::warm::warm_slice;
use std::fs::File;
use truebench_host::inventory::Missing;
use truebench_host::parse::bytes::counter_delta;
use truebench_host::parse::netdev::{self, NetCounters};
use truebench_host::procfs::NET_DEV;
use truebench_host::Host;
use truebench_model::timeline::NetDelta;

pub(crate) struct Net {
    file: Option<File>,
    names: Vec<Vec<u8>>,
    now: Vec<Option<NetCounters>>,
    last: Vec<Option<NetCounters>>,
}

#[link_section = "truebench_tick"]
fn delta(a: &NetCounters, b: &NetCounters) -> Option<NetDelta> {
    Some(NetDelta {
        rx_bytes: counter_delta(a.rx_bytes, b.rx_bytes)?,
        tx_bytes: counter_delta(a.tx_bytes, b.tx_bytes)?,
        rx_packets: counter_delta(a.rx_packets, b.rx_packets)?,
        tx_packets: counter_delta(a.tx_packets, b.tx_packets)?,
    })
}

impl Net {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        warm_slice(&self.names);
        warm_slice(&self.now);
        warm_slice(&self.last);
    }

    /// Watches every interface present now (loopback included: local benchmarks use it);
    /// their names go to `names`.
    pub(crate) fn new(host: &Host, names: &mut Vec<String>, missing: &mut Vec<Missing>) -> Net {
        names.clear();
        let file = match host.net_dev() {
            Ok(devs) => {
                names.extend(devs.into_iter().map(|d| d.name));
                host.open(NET_DEV).ok()
            }
            Err(e) => {
                missing.push(Missing {
                    what: "network".into(),
                    reason: e.to_string(),
                });
                None
            }
        };
        let n = names.len();
        Net {
            file,
            names: names.iter().map(|s| s.as_bytes().to_vec()).collect(),
            now: vec![None; n],
            last: vec![None; n],
        }
    }

    /// Two header lines and ~130 bytes per interface.
    pub(crate) fn buf_len(&self) -> usize {
        512 + 160 * self.names.len()
    }

    #[link_section = "truebench_tick"]
    fn read(&mut self, buf: &mut [u8]) {
        self.now.iter_mut().for_each(|c| *c = None);
        let Some(text) = self.file.as_ref().and_then(|f| pread_all(f, buf).ok()) else {
            return;
        };
        let (names, now) = (&self.names, &mut self.now);
        netdev::for_each(text, |name, c| {
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
    pub(crate) fn sample(&mut self, buf: &mut [u8], out: &mut Vec<Option<NetDelta>>) {
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
