//! Power: RAPL package energy counters (powercap), turned into watts over each interval.

use crate::reader::bytes::energy_delta_uj;
use crate::reader::ints::{IntFiles, IntId};
use crate::timeline::Sample;
use truebench_host::Host;

/// One RAPL package domain.
struct Rapl {
    file: IntId,
    max_range: Option<u64>,
    last: Option<u64>,
}

pub(crate) struct Power {
    rapl: Vec<Rapl>,
}

impl Power {
    pub(crate) fn new(host: &Host, ints: &mut IntFiles) -> Power {
        // RAPL package domains (top level `intel-rapl:N`, not the `:N:M` sub-zones). AMD
        // exposes its package energy under the same powercap name.
        let mut rapl = Vec::new();
        for z in host.powercap_zones() {
            if z.parent.is_some() || !z.id.starts_with("intel-rapl:") {
                continue;
            }
            let file = ints.add(host, &z.energy_file(), false);
            if ints.is_open(file) {
                rapl.push(Rapl {
                    file,
                    max_range: z.max_energy_range_uj,
                    last: None,
                });
            }
        }
        Power { rapl }
    }

    fn energy(ints: &IntFiles, id: IntId) -> Option<u64> {
        ints.get(id).and_then(|v| u64::try_from(v).ok())
    }

    /// Take the counters' baselines (the integer files were just read).
    pub(crate) fn baseline(&mut self, ints: &IntFiles) {
        for r in &mut self.rapl {
            r.last = Self::energy(ints, r.file);
        }
    }

    /// `dt`: seconds since the previous reading.
    pub(crate) fn sample(&mut self, ints: &IntFiles, dt: f64, s: &mut Sample) {
        // RAPL: sum of package power over the interval.
        s.rapl_watts = None;
        if self.rapl.is_empty() || dt <= 0.0 {
            return;
        }
        let mut uj = 0u64;
        let mut ok = true;
        for r in &mut self.rapl {
            let v = Self::energy(ints, r.file);
            match (r.last, v) {
                (Some(l), Some(n)) => match energy_delta_uj(l, n, r.max_range) {
                    Some(d) => uj = uj.saturating_add(d),
                    None => ok = false,
                },
                _ => ok = false,
            }
            r.last = v;
        }
        s.rapl_watts = ok.then(|| uj as f64 / 1e6 / dt);
    }
}
