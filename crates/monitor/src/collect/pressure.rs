//! Pressure stall information (`/proc/pressure/{cpu,memory,io}`, Linux 4.20+).

use crate::reader::bytes::pread_all;
use std::fs::File;
use truebench_host::inventory::Missing;
use truebench_host::parse::pressure;
use truebench_host::procfs::PressureKind;
use truebench_host::Host;
use truebench_model::timeline::PressureSample;

pub(crate) struct Pressure {
    /// cpu, memory, io.
    files: [Option<File>; 3],
    /// `(some, full)` stall totals of the previous reading, µs.
    last: [(Option<u64>, Option<u64>); 3],
}

impl Pressure {
    pub(crate) fn new(host: &Host, missing: &mut Vec<Missing>) -> Pressure {
        let files = PressureKind::ALL.map(|k| match host.open(k.path()) {
            Ok(f) => Some(f),
            Err(e) => {
                missing.push(Missing {
                    what: format!("pressure: {}", k.path()),
                    reason: if e.is_not_found() {
                        format!("{e} (kernel before 4.20, or booted with psi=0)")
                    } else {
                        e.to_string()
                    },
                });
                None
            }
        });
        Pressure {
            files,
            last: [(None, None); 3],
        }
    }

    #[link_section = "truebench_tick"]
    fn read(&mut self, buf: &mut [u8]) -> [(Option<u64>, Option<u64>); 3] {
        let mut now = [(None, None); 3];
        for (n, f) in now.iter_mut().zip(&self.files) {
            if let Some(text) = f.as_ref().and_then(|f| pread_all(f, buf).ok()) {
                // Only the totals: the kernel's averages beside them are not kept, and their
                // decimals were a quarter of a session tick's instructions.
                *n = pressure::totals(text);
            }
        }
        now
    }

    pub(crate) fn baseline(&mut self, buf: &mut [u8]) {
        self.last = self.read(buf);
    }

    #[link_section = "truebench_tick"]
    pub(crate) fn sample(&mut self, buf: &mut [u8], dt: f64) -> Option<PressureSample> {
        let now = self.read(buf);
        let pct = |a: Option<u64>, b: Option<u64>| -> Option<f64> {
            let d = b?.checked_sub(a?)?;
            (dt > 0.0).then(|| d as f64 / (dt * 1e6) * 100.0)
        };
        let l = self.last;
        self.last = now;
        let p = PressureSample {
            cpu_some: pct(l[0].0, now[0].0),
            memory_some: pct(l[1].0, now[1].0),
            memory_full: pct(l[1].1, now[1].1),
            io_some: pct(l[2].0, now[2].0),
            io_full: pct(l[2].1, now[2].1),
        };
        (p != PressureSample::default()).then_some(p)
    }
}
