//! Memory bandwidth and latency per cluster.

use super::*;
use truebench_model::phase;

impl<M: Measurements + ?Sized> Run<'_, M> {
    pub(super) fn phase_memory(&mut self) {
        let groups = self.groups.clone();
        let cpus = groups.iter().map(|g| g.first).collect();
        self.phase(
            phase::MEMORY,
            "memory bandwidth and latency, pinned to the first CPU of each cluster",
            Some(1),
            cpus,
            |r| {
                let mut scores = m::MemoryScores::default();
                let mut out = Outcome::default();
                let mut details = Vec::new();
                let n = groups.len() as u32;
                for (i, g) in groups.iter().enumerate() {
                    r.progress.step(
                        i as u32,
                        n,
                        format!("memory on cpu{} ({} of {n})", g.first, i + 1),
                    );
                    let mut opts = r.opts.memory.clone().on_cpu(g.first);
                    // The kernel moves it through its tests and latency sizes.
                    opts.progress = r.progress.clone();
                    match r.m.memory(r.host, &opts, &r.stop) {
                        Ok(res) => {
                            out.raw.push(m::RawOutput {
                                label: format!("memory on cpu{}{}", g.first, core(&g.core_type)),
                                command: format!(
                                    "built-in memory kernel, pinned to cpu{}, {} MiB buffer ({})",
                                    g.first,
                                    res.buffer.bytes >> 20,
                                    res.buffer.reason
                                ),
                                text: res.text(),
                            });
                            scores.clusters.push(memory_cluster(g, &res));
                            if let Some(b) = res.bandwidth.first() {
                                r.s.tool("built-in memory", Some(b.implementation.clone()), None);
                            }
                            details.push(to_json(&res));
                        }
                        Err(KernelError::Interrupted) => break,
                        Err(e) => {
                            out.fail(format!("cpu{}: {e}", g.first));
                        }
                    }
                }
                if !scores.clusters.is_empty() {
                    out.scores = Some(Scores::Memory(scores));
                }
                out.details = serde_json::Value::Array(details);
                out
            },
        );
    }
}

pub(super) fn bandwidth(res: &MemoryResult, t: BandwidthTest) -> Option<m::Bandwidth> {
    res.get(t).map(to_model)
}

fn to_model(b: &truebench_workloads::memory::Bandwidth) -> m::Bandwidth {
    m::Bandwidth {
        mb_s: b.mb_s,
        spread_pct: b.spread_pct,
        samples: b.samples_mb_s.len() as u32,
    }
}

pub(super) fn memory_cluster(g: &Group, res: &MemoryResult) -> m::MemoryCluster {
    m::MemoryCluster {
        cluster: g.cluster,
        cpu: Some(g.first),
        core_type: g.core_type.clone(),
        memcpy: bandwidth(res, BandwidthTest::Memcpy),
        memset: bandwidth(res, BandwidthTest::Memset),
        read: bandwidth(res, BandwidthTest::Read),
        standard_memcpy: res.standard(BandwidthTest::Memcpy).map(to_model),
        standard_memset: res.standard(BandwidthTest::Memset).map(to_model),
        buffer_bytes: res.buffer.bytes,
        latency: res
            .latency
            .as_ref()
            .map(|l| {
                l.points
                    .iter()
                    .map(|p| m::LatencyPoint {
                        bytes: p.bytes,
                        ns: p.ns,
                        ns_hugepages: p.ns_hugepages,
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}
