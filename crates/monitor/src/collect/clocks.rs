//! Clocks: what cpufreq reports per cluster (`cpuinfo_cur_freq`, else `scaling_cur_freq`)
//! and, where the machine offers cycle counters, the clock the cores really ran at.

use crate::effective::{self, Effective};
use crate::reader::ints::{IntFiles, IntId};
use crate::warm::warm_slice;
use truebench_host::{Host, Inventory};
use truebench_model::timeline::{Sample, TimelineHeader};

pub(crate) struct Clocks {
    /// `(cluster id, file)` of each cluster with a readable clock file.
    cur: Vec<(usize, IntId)>,
    effective: Option<Effective>,
}

impl Clocks {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        warm_slice(&self.cur);
    }

    pub(crate) fn new(
        host: &Host,
        inv: &Inventory,
        ints: &mut IntFiles,
        header: &mut TimelineHeader,
    ) -> Clocks {
        let mut cur = Vec::new();
        for cl in &inv.clusters {
            header.clusters.push(format!(
                "{}{}",
                cl.cpu_range(),
                cl.core_type
                    .as_ref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default()
            ));
            let Some(rel) = &cl.cur_freq_file else {
                continue;
            };
            // cpuinfo_cur_freq when readable (root only on most kernels), else
            // scaling_cur_freq, as sbc-bench does.
            let mut candidates = vec![rel.clone()];
            if rel.ends_with("/cpuinfo_cur_freq") {
                candidates.push(rel.replace("/cpuinfo_cur_freq", "/scaling_cur_freq"));
            }
            for rel in candidates {
                if host.open(&rel).is_ok() {
                    // cpuinfo_cur_freq asks the hardware (a CPPC mailbox or SCMI message on
                    // servers and new ARM SoCs — known to take seconds or hang).
                    let slow = rel.ends_with("/cpuinfo_cur_freq");
                    cur.push((cl.id, ints.add(host, &rel, slow)));
                    break;
                }
            }
        }
        let (effective, source) = effective::probe(host, inv);
        header.measured_clock_source = source;
        Clocks { cur, effective }
    }

    /// True when the measured clocks need each CPU's busy share from /proc/stat.
    pub(crate) fn needs_busy(&self) -> bool {
        self.effective.as_ref().is_some_and(|e| e.needs_busy())
    }

    pub(crate) fn baseline(&mut self) {
        if let Some(e) = self.effective.as_mut() {
            e.baseline();
        }
    }

    #[link_section = "truebench_tick"]
    pub(crate) fn sample(&mut self, ints: &IntFiles, busy: Option<&[f64]>, s: &mut Sample) {
        for &(cl, id) in &self.cur {
            if let Some(slot) = s.cluster_mhz.get_mut(cl) {
                *slot = ints.get(id).map(|khz| (khz as f64 / 1e3).round() as u32);
            }
        }
        if let Some(e) = self.effective.as_mut() {
            e.sample(busy, &mut s.measured_mhz);
        }
    }
}
