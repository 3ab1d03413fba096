//! The scores of each phase of a log, typed as truebench Scores.

use truebench_host::Inventory;

use crate::log::{self, Round, SbcBenchLog, SevenZipKind};
use truebench_model::clocks::{AllCores, ClockPoint, ClusterClocks, CoreClock, WalkMode};
use truebench_model::*;

use super::*;

pub(super) fn cluster_for_cpu(inv: &Inventory, cpu: Option<u32>) -> Option<usize> {
    cpu.and_then(|c| inv.cluster_of(c)).map(|c| c.id)
}

pub(super) fn clock_scores(
    log: &SbcBenchLog,
    inv: &Inventory,
    round: Round,
) -> Option<ClockScores> {
    let mut clusters = Vec::new();
    for (i, b) in log
        .opp_blocks
        .iter()
        .filter(|b| b.round == round)
        .enumerate()
    {
        let members = b.cpus.as_deref().map(cpus_of).unwrap_or_default();
        let cluster = inv
            .clusters
            .iter()
            .find(|c| !members.is_empty() && c.cpus == members)
            .map(|c| c.id)
            .unwrap_or(i.min(inv.clusters.len().saturating_sub(1)));
        let cpus = b
            .cpus
            .clone()
            .or_else(|| inv.clusters.get(cluster).map(|c| c.cpu_range()))
            .unwrap_or_else(|| "cpu0".into());
        let points = b
            .points
            .iter()
            .map(|p| {
                let measured = if p.samples.is_empty() {
                    p.measured_mhz.map(f64::from)
                } else {
                    Some(p.samples.iter().sum::<f64>() / p.samples.len() as f64)
                };
                ClockPoint {
                    opp_mhz: Some(p.opp_mhz),
                    opp_khz: Some(u64::from(p.opp_mhz) * 1000),
                    reported_mhz: None,
                    firmware_mhz: p.threadx_mhz.map(f64::from),
                    measured_mhz: measured,
                    samples_mhz: p.samples.clone(),
                    effective_mhz: None,
                    deviation_pct: measured
                        .filter(|_| p.opp_mhz > 0)
                        .map(|m| (m - p.opp_mhz as f64) / p.opp_mhz as f64 * 100.0),
                    rejected: None,
                    duration_ms: None,
                    error: None,
                }
            })
            .collect();
        clusters.push(ClusterClocks {
            id: cluster,
            cpus: members.clone(),
            cpu_range: cpus,
            core_type: b.core_type.clone(),
            driver: None,
            measured_cpu: members.first().copied(),
            mode: if round == Round::Before {
                WalkMode::OppWalk
            } else {
                WalkMode::MaxOpp
            },
            enforced: None,
            points,
            notes: Vec::new(),
            turbo: None,
        });
    }
    for m in log.no_cpufreq.iter().filter(|m| m.round == round) {
        let cluster = cluster_for_cpu(inv, m.cpu).unwrap_or(0);
        let measured = if m.samples.is_empty() {
            m.measured_mhz.map(f64::from)
        } else {
            Some(m.samples.iter().sum::<f64>() / m.samples.len() as f64)
        };
        let known = inv.clusters.get(cluster);
        clusters.push(ClusterClocks {
            id: cluster,
            cpus: known.map_or_else(|| m.cpu.into_iter().collect(), |c| c.cpus.clone()),
            cpu_range: known
                .map(|c| c.cpu_range())
                .unwrap_or_else(|| format!("cpu{}", m.cpu.unwrap_or(0))),
            core_type: known.and_then(|c| c.core_type.clone()),
            driver: None,
            measured_cpu: m.cpu,
            mode: WalkMode::NoCpufreq,
            enforced: None,
            points: vec![ClockPoint {
                opp_mhz: None,
                opp_khz: None,
                reported_mhz: None,
                firmware_mhz: None,
                measured_mhz: measured,
                samples_mhz: m.samples.clone(),
                effective_mhz: None,
                deviation_pct: None,
                rejected: None,
                duration_ms: None,
                error: None,
            }],
            notes: Vec::new(),
            turbo: None,
        });
    }
    let all_cores = if round == Round::After {
        let find = |cond: &str| {
            log.parallel_clocks
                .iter()
                .find(|p| p.condition == cond)
                .map(|p| {
                    p.cpus
                        .iter()
                        .map(|c| CoreClock {
                            cpu: c.cpu,
                            measured_mhz: if c.samples.is_empty() {
                                c.measured_mhz.map(f64::from)
                            } else {
                                Some(c.samples.iter().sum::<f64>() / c.samples.len() as f64)
                            },
                            samples_mhz: c.samples.clone(),
                            reported_mhz: c.max_mhz,
                            error: None,
                        })
                        .collect::<Vec<_>>()
                })
        };
        match (find("idle"), find("full load")) {
            (None, None) => None,
            (i, l) => Some(AllCores {
                idle: i.unwrap_or_default(),
                load: l.unwrap_or_default(),
                load_heat_s: None,
            }),
        }
    } else {
        None
    };
    (!clusters.is_empty() || all_cores.is_some()).then_some(ClockScores {
        clusters,
        all_cores,
    })
}

pub(super) fn bandwidth(run: &log::TinymembenchRun, names: [&str; 2]) -> Option<Bandwidth> {
    let r = run
        .results
        .iter()
        .find(|r| !r.framebuffer && names.contains(&r.name.as_str()))?;
    Some(Bandwidth {
        mb_s: r.mb_per_s,
        spread_pct: r.sd_pct.unwrap_or(0.0),
        samples: r.repeats.unwrap_or(1),
    })
}

pub(super) fn memory_scores(
    log: &SbcBenchLog,
    inv: &Inventory,
    notes: &mut Vec<String>,
) -> Option<MemoryScores> {
    let mut clusters = Vec::new();
    let mut from_tinymembench = false;
    for run in &log.tinymembench {
        let ramlat = log.ramlat.iter().find(|r| r.cpu == run.cpu).or(
            if log.tinymembench.len() == 1 && log.ramlat.len() == 1 {
                log.ramlat.first()
            } else {
                None
            },
        );
        // ramlat's `1xPTR` column chases pointers like truebench's latency kernel; without
        // ramlat, tinymembench's single random read (time on top of an L1 hit).
        let mut latency: Vec<LatencyPoint> = Vec::new();
        if let Some(r) = ramlat {
            let col = r
                .columns
                .iter()
                .position(|c| c == "1xPTR")
                .or_else(|| r.columns.iter().position(|c| c == "1x64"))
                .unwrap_or(0);
            latency = r
                .rows
                .iter()
                .filter_map(|row| {
                    Some(LatencyPoint {
                        bytes: row.size_kib * 1024,
                        ns: row.ns.get(col).copied().flatten()?,
                        ns_hugepages: None,
                    })
                })
                .collect();
        } else if let Some(t) = run
            .latency
            .iter()
            .find(|t| t.variant.as_deref() != Some("MADV_HUGEPAGE"))
        {
            let huge = run
                .latency
                .iter()
                .find(|t| t.variant.as_deref() == Some("MADV_HUGEPAGE"));
            from_tinymembench = true;
            latency = t
                .rows
                .iter()
                .map(|row| LatencyPoint {
                    bytes: row.block_bytes,
                    ns: row.single_ns,
                    ns_hugepages: huge.and_then(|h| {
                        h.rows
                            .iter()
                            .find(|x| x.block_bytes == row.block_bytes)
                            .map(|x| x.single_ns)
                    }),
                })
                .collect();
        }
        let cluster = cluster_for_cpu(inv, run.cpu);
        clusters.push(MemoryCluster {
            cluster,
            cpu: run.cpu,
            core_type: run
                .label
                .clone()
                .or_else(|| cluster.and_then(|c| inv.clusters[c].core_type.clone())),
            memcpy: bandwidth(run, ["libc memcpy copy", "standard memcpy"]),
            memset: bandwidth(run, ["libc memset fill", "standard memset"]),
            read: None,
            // Both names are tinymembench's libc measure (`libc memcpy copy` in the nuumio
            // build sbc-bench uses on some systems): the standard figures are the same.
            standard_memcpy: bandwidth(run, ["libc memcpy copy", "standard memcpy"]),
            standard_memset: bandwidth(run, ["libc memset fill", "standard memset"]),
            buffer_bytes: 0,
            latency,
        });
    }
    if from_tinymembench {
        notes.push("memory latency from tinymembench's single random read: time on top of an L1 hit, not the full latency".into());
    }
    (!clusters.is_empty()).then_some(MemoryScores { clusters })
}

pub(super) fn aes_scores(log: &SbcBenchLog, inv: &Inventory, parallel: bool) -> Option<AesScores> {
    let o = log.openssl.as_ref()?;
    let rows: Vec<&log::OpenSslRow> = o
        .rows
        .iter()
        .filter(|r| (r.label.as_deref() == Some("fully parallel")) == parallel)
        .collect();
    if rows.is_empty() {
        return None;
    }
    // Rows come per algorithm, one per cluster in cluster order: the n-th row of each
    // algorithm belongs to the n-th table.
    let mut tables: Vec<AesTable> = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for r in rows {
        let n = match seen.iter_mut().find(|s| s.0 == r.algorithm) {
            Some(s) => {
                s.1 += 1;
                s.1 - 1
            }
            None => {
                seen.push((r.algorithm.clone(), 1));
                0
            }
        };
        while tables.len() <= n {
            let i = tables.len();
            let cluster = if parallel {
                None
            } else if inv.clusters.len() > 1 {
                Some(i.min(inv.clusters.len() - 1))
            } else {
                Some(0)
            };
            tables.push(AesTable {
                cluster,
                cpus: if parallel {
                    inv.cpus.iter().map(|c| c.id).collect()
                } else {
                    cluster
                        .and_then(|c| inv.clusters.get(c))
                        .and_then(|c| c.cpus.first().copied())
                        .into_iter()
                        .collect()
                },
                core_type: None,
                rows: Vec::new(),
            });
        }
        if tables[n].core_type.is_none() && !parallel {
            tables[n].core_type = r.label.clone();
        }
        tables[n].rows.push(AesRow {
            cipher: r.algorithm.clone(),
            k: r.kbytes_per_s.clone(),
        });
    }
    Some(AesScores {
        source: AesSourceKind::Openssl,
        version: o.version_line.clone().or(o.version.clone()),
        has_aes_instructions: None,
        aes_instructions: None,
        parallel,
        sizes: o.block_sizes.clone(),
        tables,
    })
}

pub(super) fn compression(
    log: &SbcBenchLog,
    inv: &Inventory,
    kind: SevenZipKind,
) -> Option<CompressionScores> {
    let z = log.sevenzip.as_ref()?;
    let ncpus = inv.cpus.len().max(1) as u32;
    let runs: Vec<CompressionRun> = z
        .runs
        .iter()
        .filter(|r| r.kind == kind && r.tot.is_some())
        .map(|r| {
            let cpus: Vec<u32> = match kind {
                SevenZipKind::Single => r.cpu.into_iter().collect(),
                SevenZipKind::Multi => inv.cpus.iter().map(|c| c.id).collect(),
                SevenZipKind::Cluster => r.label.as_deref().map(cpus_of).unwrap_or_default(),
            };
            CompressionRun {
                kind: match kind {
                    SevenZipKind::Single => RunKind::Single,
                    SevenZipKind::Multi => RunKind::Multi,
                    SevenZipKind::Cluster => RunKind::Cluster,
                },
                cluster: cluster_for_cpu(inv, cpus.first().copied()),
                threads: r.threads.unwrap_or(match kind {
                    SevenZipKind::Single => 1,
                    _ => ncpus,
                }),
                cpus,
                dict_log2: None,
                dictionary_reason: None,
                compress_mips: r.avr.map(|a| a[2]),
                decompress_mips: r.avr.map(|a| a[5]),
                total_mips: r.rating(),
                compress_mb_s: None,
                decompress_mb_s: None,
                ratio: None,
            }
        })
        .collect();
    (!runs.is_empty()).then(|| CompressionScores {
        tool: CompressionTool::SevenZip,
        version: z.version.clone(),
        program: z.banner.clone(),
        runs,
    })
}

pub(super) fn stress_scores(log: &SbcBenchLog) -> Option<StressScores> {
    let change = |v: &[f64]| -> Option<f64> {
        let (a, b) = (v.first()?, v.last()?);
        (v.len() > 1 && *a > 0.0).then(|| (b - a) / a * 100.0)
    };
    if let Some(c) = log.cpuminer.as_ref().filter(|c| !c.totals_khs.is_empty()) {
        // cpuminer prints a total about every 5 seconds.
        let intervals = c
            .totals_khs
            .iter()
            .enumerate()
            .map(|(i, &k)| StressInterval {
                start_s: i as f64 * 5.0,
                end_s: (i + 1) as f64 * 5.0,
                score: k,
            })
            .collect();
        return Some(StressScores {
            tool: StressTool::Cpuminer,
            version: c.version.clone(),
            unit: "kH/s".into(),
            intervals,
            change_pct: change(&c.totals_khs),
        });
    }
    let s = log.stockfish.as_ref()?;
    let v: Vec<f64> = s
        .runs
        .iter()
        .filter_map(|r| r.nodes_per_second.map(|n| n as f64))
        .collect();
    if v.is_empty() {
        return None;
    }
    let mut t = 0.0;
    let intervals = s
        .runs
        .iter()
        .filter_map(|r| {
            let nps = r.nodes_per_second? as f64;
            let d = r.total_time_ms.map_or(1.0, |ms| ms as f64 / 1000.0);
            let i = StressInterval {
                start_s: t,
                end_s: t + d,
                score: nps,
            };
            t += d;
            Some(i)
        })
        .collect();
    Some(StressScores {
        tool: StressTool::Stockfish,
        version: Some(s.heading.clone()),
        unit: "nodes/s".into(),
        intervals,
        change_pct: change(&v),
    })
}
