//! An sbc-bench result log ([`SbcBenchLog`]) as a truebench [`RunResult`], so that old results
//! can be stored, compared, drawn and re-judged by truebench's own detectors.
//!
//! What maps where:
//! * header, `lsb_release`, topology table, `SoC guess`, `free`/`swapon` → the inventory;
//! * `Checking cpufreq OPP` (before / after the benchmarks) → `clocks-cold` / `clocks-hot`;
//! * tinymembench (+ ramlat latency) → `memory`, OpenSSL → `aes` (and `aes-parallel`),
//!   7-zip → `compression-single` / `-multi` / `-cluster`, cpuminer or stockfish → `stress`;
//! * every `System health while running X` table → timeline samples in a phase named X;
//! * throttling statistics, dmesg lines → `throttling`, `kernel_log`;
//! * the detectors of `truebench_monitor::detect` run on that evidence → `findings`.
//!
//! The log is the source: an imported result names sbc-bench (with its version and the log
//! file) in `tools`, and the log's own validation bullets in `notes`.

use truebench_host::inventory::{
    Arch, ChosenSensor, Cluster, Cpu, Kernel, Memory, Missing, Swap, SwapDevice, Thermal,
    Virtualization,
};
use truebench_host::soc::SocGuess;
use truebench_host::Inventory;
use truebench_monitor::detect::{self, activity, clocks, cores, memory, power, thermal};
use truebench_monitor::evidence::{PolicyStats, Snapshot, SwapUse};
use truebench_monitor::{CpuPct, Finding, Phase, RpiSample, Sample, Timeline, TimelineHeader};

use crate::model::*;
use crate::sbcbench::{self, MonitorTable, Round, SbcBenchLog, SevenZipKind};

/// Name of the tool entry that marks a result as imported from an sbc-bench log.
pub const SBC_BENCH_TOOL: &str = "sbc-bench";

/// True when `r` was converted from an sbc-bench log (not measured by truebench).
pub fn is_imported<B>(r: View<'_, B>) -> bool {
    r.envelope.tools.iter().any(|t| t.name == SBC_BENCH_TOOL)
}

/// The sbc-bench version and log file name of an imported result.
pub fn import_source<B>(r: View<'_, B>) -> Option<(Option<String>, Option<String>)> {
    r.envelope
        .tools
        .iter()
        .find(|t| t.name == SBC_BENCH_TOOL)
        .map(|t| (t.version.clone(), t.path.clone()))
}

// ---------------------------------------------------------------------------------------
// dates

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `Mon, 13 Mar 2023 18:03:30 +0100` → (Unix seconds, offset seconds east of UTC).
pub fn rfc2822(s: &str) -> Option<(i64, i64)> {
    let s = s.split_once(", ").map_or(s, |(_, rest)| rest);
    let t: Vec<&str> = s.split_whitespace().collect();
    if t.len() < 4 {
        return None;
    }
    let day: u32 = t[0].parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == t[1])? as u32 + 1;
    let year: i64 = t[2].parse().ok()?;
    let secs = crate::import::util::clock_seconds(t[3])? as i64;
    let offset = t
        .get(4)
        .and_then(|o| {
            let sign = match o.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let v: i64 = o.get(1..5)?.parse().ok()?;
            Some(sign * ((v / 100) * 3600 + (v % 100) * 60))
        })
        .unwrap_or(0);
    if !(1..=31).contains(&day) {
        return None;
    }
    Some((
        days_from_civil(year, month, day) * 86_400 + secs - offset,
        offset,
    ))
}

// ---------------------------------------------------------------------------------------
// inventory

/// `cpu0-cpu3`, `0-3`, `cpu4` → CPU numbers.
fn cpus_of(s: &str) -> Vec<u32> {
    truebench_host::parse::cpulist::parse(&s.replace("cpu", ""))
}

/// CPUs, core type and stepping of one cluster.
type Group = (Vec<u32>, Option<String>, Option<String>);

fn group_clusters(log: &SbcBenchLog) -> Vec<Group> {
    // One per cpufreq policy of the topology table (keyed by policy, else cluster id) …
    let mut groups: Vec<(Option<i64>, Group)> = Vec::new();
    for c in &log.topology {
        let key = c.policy.map(i64::from).or(c.cluster.map(|x| 1000 + x));
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1 .0.push(c.cpu),
            None => groups.push((key, (vec![c.cpu], c.core_type.clone(), c.stepping.clone()))),
        }
    }
    if !groups.is_empty() {
        let mut v: Vec<Group> = groups.into_iter().map(|g| g.1).collect();
        v.sort_by_key(|g| g.0.first().copied().unwrap_or(0));
        return v;
    }
    // … else one per `Checking cpufreq OPP for cpuX-cpuY` block, else one for all CPUs.
    let mut v: Vec<Group> = Vec::new();
    for b in log.opp_blocks.iter().filter(|b| b.round == Round::Before) {
        let cpus = b.cpus.as_deref().map(cpus_of).unwrap_or_default();
        if cpus.is_empty() || v.iter().any(|g| g.0 == cpus) {
            continue;
        }
        v.push((cpus, b.core_type.clone(), None));
    }
    if v.is_empty() {
        let n = log.system.cpus.unwrap_or(1).max(1);
        let core = log
            .opp_blocks
            .iter()
            .find_map(|b| b.core_type.clone())
            .or_else(|| log.tinymembench.iter().find_map(|t| t.label.clone()));
        v.push(((0..n).collect(), core, None));
    }
    v.sort_by_key(|g| g.0.first().copied().unwrap_or(0));
    v
}

fn inventory(log: &SbcBenchLog, name: &str) -> Inventory {
    let groups = group_clusters(log);
    let mut clusters = Vec::new();
    let mut cpus = Vec::new();
    for (i, (members, core, stepping)) in groups.iter().enumerate() {
        let topo: Vec<&sbcbench::TopologyCpu> = log
            .topology
            .iter()
            .filter(|t| members.contains(&t.cpu))
            .collect();
        // The OPP block of this cluster: by its CPU range, or the only block.
        let before: Vec<&sbcbench::OppBlock> = log
            .opp_blocks
            .iter()
            .filter(|b| b.round == Round::Before)
            .collect();
        let block = before
            .iter()
            .find(|b| b.cpus.as_deref().is_some_and(|c| cpus_of(c) == *members))
            .or(if before.len() == 1 && groups.len() == 1 {
                before.first()
            } else {
                None
            });
        let mut opps: Vec<u32> = block
            .map(|b| b.points.iter().map(|p| p.opp_mhz).collect())
            .unwrap_or_default();
        opps.sort_unstable();
        opps.dedup();
        let policy = topo.first().and_then(|t| t.policy);
        clusters.push(Cluster {
            id: i,
            cpus: members.clone(),
            core_type: core.clone(),
            policy,
            policies: policy.into_iter().collect(),
            min_mhz: topo
                .iter()
                .filter_map(|t| t.min_mhz)
                .min()
                .or(opps.first().copied()),
            max_mhz: topo
                .iter()
                .filter_map(|t| t.max_mhz)
                .max()
                .or(opps.last().copied()),
            opps_khz: opps.iter().map(|&m| m as u64 * 1000).collect(),
            opps_mhz: opps,
            ..Default::default()
        });
        for &c in members {
            let t = log.topology.iter().find(|t| t.cpu == c);
            cpus.push(Cpu {
                id: c,
                online: true,
                cluster: Some(i),
                policy: t.and_then(|t| t.policy),
                core_type: t.and_then(|t| t.core_type.clone()).or(core.clone()),
                stepping: t.and_then(|t| t.stepping.clone()).or(stepping.clone()),
                package: None,
                core_id: None,
                capacity: None,
            });
        }
    }
    cpus.sort_by_key(|c| c.id);

    let first_free = log.memory.first();
    let swaps = log.swap_devices.first().cloned().unwrap_or_default();
    let swap = Swap {
        devices: swaps
            .iter()
            .map(|d| SwapDevice {
                filename: d.filename.clone(),
                kind: swap_kind(d),
                size_kb: d.size_kb.unwrap_or(0),
                used_kb: d.used_kb.unwrap_or(0),
                priority: d.priority.unwrap_or(0),
                algorithm: None,
                disk: None,
                storage: None,
            })
            .collect(),
        zswap: None,
        total_kb: first_free.and_then(|m| m.swap_total).map(|b| b / 1024),
        used_kb: first_free.and_then(|m| m.swap_used).map(|b| b / 1024),
    };
    let first_temp = log
        .monitoring
        .iter()
        .flat_map(|t| t.samples.iter())
        .find_map(|s| s.temp_c);
    // A sensor without any reading would need a made-up temperature: leave it out (the
    // timeline header still names it).
    let chosen = log
        .thermal_source
        .as_ref()
        .zip(first_temp)
        .map(|(t, temp_c)| ChosenSensor {
            kind: if t.path.contains("hwmon") {
                "hwmon".into()
            } else {
                "thermal_zone".into()
            },
            name: t.name.clone().unwrap_or_else(|| "unknown".into()),
            path: t
                .path
                .trim_start_matches('/')
                .trim_end_matches('/')
                .to_string(),
            temp_c,
            reason: "sbc-bench's `Thermal source:` line".into(),
        });
    let mut missing: Vec<Missing> = log
        .missing
        .iter()
        .map(|m| Missing {
            what: m.what.clone(),
            reason: format!("sbc-bench log: {}", m.reason),
        })
        .collect();
    if log.topology.is_empty() {
        missing.push(Missing {
            what: "topology".into(),
            reason: "sbc-bench log without the `CPU sysfs topology` table (before v0.7): clusters taken from the OPP checks".into(),
        });
    }
    Inventory {
        schema_version: truebench_host::inventory::SCHEMA_VERSION,
        root: format!("sbc-bench log {name}"),
        device: log.header.device.clone(),
        soc: log.system.soc_guess.as_ref().map(|s| SocGuess {
            name: s.clone(),
            evidence: "sbc-bench's `SoC guess:` line".into(),
        }),
        kernel: Kernel {
            release: log.system.kernel.clone(),
            version: None,
        },
        arch: Arch {
            kernel: log.system.kernel_arch.clone(),
            kernel_source: None,
            userland: log
                .system
                .userland
                .clone()
                .or(log.system.architecture.clone()),
        },
        distro: log
            .system
            .os_pretty
            .clone()
            .or(log.system.description.clone()),
        virtualization: Virtualization {
            kind: "unknown".into(),
            name: None,
            evidence: None,
            layers: Vec::new(),
        },
        cpus,
        clusters,
        thermal: Thermal {
            chosen,
            zones: Vec::new(),
            hwmon: Vec::new(),
        },
        memory: Memory {
            total_kb: first_free.and_then(|m| m.mem_total).map(|b| b / 1024),
            available_kb: first_free.and_then(|m| m.mem_available).map(|b| b / 1024),
            page_size: None,
            page_size_source: None,
        },
        swap,
        missing,
    }
}

fn swap_kind(d: &sbcbench::SwapDevice) -> String {
    if d.filename.contains("zram") {
        "zram".into()
    } else if d.kind == "file" {
        "file".into()
    } else {
        "partition".into()
    }
}

// ---------------------------------------------------------------------------------------
// timeline

/// Threads a monitored sbc-bench phase keeps busy (sbc-bench judges background activity on
/// the single-threaded ones).
fn phase_threads(running: &str, ncpus: u32) -> Option<u32> {
    match running {
        "tinymembench" | "ramlat" | "OpenSSL benchmark" | "7-zip single core benchmark" => Some(1),
        "7-zip multi core benchmark"
        | "cpuminer"
        | "stress-ng"
        | "parallel OpenSSL benchmarks"
        | "stockfish" => Some(ncpus),
        _ => None,
    }
}

/// Which cluster each clock column of a table belongs to.
fn column_clusters(t: &MonitorTable, inv: &Inventory) -> Vec<Option<usize>> {
    let last_of_highest = || {
        let max = inv.clusters.iter().filter_map(|c| c.max_mhz).max();
        inv.clusters
            .iter()
            .rev()
            .find(|c| c.max_mhz == max)
            .map(|c| c.id)
    };
    t.clock_labels
        .iter()
        .map(|l| match l.as_str() {
            // sbc-bench prints the clock of the last CPU as "big" and of cpu0 as "LITTLE".
            "big" => last_of_highest().or(inv.clusters.last().map(|c| c.id)),
            "little" => inv.cluster_of(0).map(|c| c.id).or(Some(0)),
            "cpufreq" | "CPU" => inv.cluster_of(0).map(|c| c.id).or(Some(0)),
            other => crate::import::util::cpu_number(other)
                .and_then(|n| inv.cluster_of(n))
                .map(|c| c.id),
        })
        .collect()
}

struct Built {
    timeline: Timeline,
    /// Phase name → (start, end, first unix ms, last unix ms) in timeline seconds.
    spans: Vec<(String, f64, f64, i64, i64)>,
}

fn timeline(log: &SbcBenchLog, inv: &Inventory, start_unix: Option<(i64, i64)>) -> Built {
    let ncpus = inv.cpus.len().max(1) as u32;
    let nclusters = inv.clusters.len();
    let electrical = log
        .monitoring
        .iter()
        .any(|t| t.samples.iter().any(|s| s.power_mw.is_some()));
    let header = TimelineHeader {
        clusters: inv
            .clusters
            .iter()
            .map(|c| match &c.core_type {
                Some(t) => format!("{} ({t})", c.cpu_range()),
                None => c.cpu_range(),
            })
            .collect(),
        temp_sensors: Vec::new(),
        electrical: if electrical {
            vec![("power (external meter)".into(), "W".into())]
        } else {
            Vec::new()
        },
        soc_sensor: log.thermal_source.as_ref().and_then(|t| t.name.clone()),
        interval_s: 0.0,
        measured_clock_source: "none: sbc-bench's monitoring prints the clock cpufreq reports"
            .into(),
    };
    let mut tl = Timeline::new(header);
    let mut spans = Vec::new();
    // Absolute seconds since midnight of the header's (local) day, counting days up when a
    // clock goes backwards by more than 12 hours.
    let header_secs = start_unix.map(|(u, off)| (u + off).rem_euclid(86_400));
    let mut day = 0i64;
    let mut prev: Option<i64> = header_secs;
    let mut origin: Option<i64> = None;
    for table in log.monitoring.iter().filter(|t| t.running != "now") {
        let cols = column_clusters(table, inv);
        let mut first_t: Option<f64> = None;
        let mut last_t: Option<f64> = None;
        let mut first_ms = 0;
        let mut last_ms = 0;
        for s in &table.samples {
            let Some(sec) = s.seconds else { continue };
            let sec = sec as i64;
            if prev.is_some_and(|p| sec + day * 86_400 < p - 12 * 3600) {
                day += 1;
            }
            let abs = sec + day * 86_400;
            prev = Some(abs);
            let o = *origin.get_or_insert(abs);
            let t = (abs - o) as f64;
            let unix_ms = match (start_unix, header_secs) {
                (Some((u, _)), Some(h)) => (u + (abs - h)) * 1000,
                _ => 0,
            };
            let mut cluster_mhz = vec![None; nclusters];
            for (c, v) in cols.iter().zip(&s.clocks_mhz) {
                if let Some(c) = c {
                    if *c < nclusters && cluster_mhz[*c].is_none() {
                        cluster_mhz[*c] = *v;
                    }
                }
            }
            let cpu = s.cpu_pct.map(|cpu| CpuPct {
                cpu,
                sys: s.sys_pct.unwrap_or(0.0),
                usr: s.usr_pct.unwrap_or(0.0),
                nice: s.nice_pct.unwrap_or(0.0),
                io: s.io_pct.unwrap_or(0.0),
                irq: s.irq_pct.unwrap_or(0.0),
                steal: 0.0,
            });
            let rpi = (s.real_mhz.is_some()
                || s.vcore_v.is_some()
                || s.pmic_w.is_some()
                || s.dc_v.is_some())
            .then(|| RpiSample {
                arm_mhz: s.real_mhz.map(f64::from),
                core_volts: s.vcore_v,
                throttled: None,
                pmic_watts: s.pmic_w,
                input_volts: s.dc_v,
            });
            tl.samples.push(Sample {
                t,
                unix_ms,
                cluster_mhz,
                measured_mhz: Vec::new(),
                load1: s.load,
                cpu,
                soc_temp_c: s.temp_c,
                temps_c: Vec::new(),
                electrical: if electrical {
                    vec![s.power_mw.map(|m| m / 1000.0)]
                } else {
                    Vec::new()
                },
                rapl_watts: None,
                swap_used_kb: None,
                cpus_online: Some(ncpus),
                rpi,
            });
            if first_t.is_none() {
                first_t = Some(t);
                first_ms = unix_ms;
            }
            last_t = Some(t);
            last_ms = unix_ms;
        }
        let (Some(a), Some(b)) = (first_t, last_t) else {
            continue;
        };
        // A phase covers its table's samples: [first, last + 0.5).
        tl.phases.push(Phase {
            name: table.running.clone(),
            start: a,
            end: Some(b + 0.5),
            threads: phase_threads(&table.running, ncpus),
        });
        spans.push((table.running.clone(), a, b + 0.5, first_ms, last_ms));
    }
    // Samples must be in time order for `samples_in`; tables are printed in order, but a
    // clock set back in between must not break the slicing.
    tl.samples.sort_by(|a, b| a.t.total_cmp(&b.t));
    let gaps: Vec<f64> = tl
        .samples
        .windows(2)
        .map(|w| w[1].t - w[0].t)
        .filter(|g| *g > 0.0)
        .collect();
    if !gaps.is_empty() {
        let mut g = gaps.clone();
        g.sort_by(f64::total_cmp);
        tl.header.interval_s = g[g.len() / 2];
    }
    Built {
        timeline: tl,
        spans,
    }
}

// ---------------------------------------------------------------------------------------
// phases

fn cluster_for_cpu(inv: &Inventory, cpu: Option<u32>) -> Option<usize> {
    cpu.and_then(|c| inv.cluster_of(c)).map(|c| c.id)
}

fn clock_scores(log: &SbcBenchLog, inv: &Inventory, round: Round) -> Option<ClockScores> {
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
                    reported_mhz: None,
                    firmware_mhz: p.threadx_mhz.map(f64::from),
                    measured_mhz: measured,
                    samples_mhz: p.samples.clone(),
                    deviation_pct: measured
                        .filter(|_| p.opp_mhz > 0)
                        .map(|m| (m - p.opp_mhz as f64) / p.opp_mhz as f64 * 100.0),
                    error: None,
                }
            })
            .collect();
        clusters.push(ClusterClock {
            cluster,
            cpus,
            core_type: b.core_type.clone(),
            measured_cpu: members.first().copied(),
            mode: if round == Round::Before {
                "opp_walk".into()
            } else {
                "max_opp".into()
            },
            points,
            notes: Vec::new(),
        });
    }
    for m in log.no_cpufreq.iter().filter(|m| m.round == round) {
        let cluster = cluster_for_cpu(inv, m.cpu).unwrap_or(0);
        let measured = if m.samples.is_empty() {
            m.measured_mhz.map(f64::from)
        } else {
            Some(m.samples.iter().sum::<f64>() / m.samples.len() as f64)
        };
        clusters.push(ClusterClock {
            cluster,
            cpus: inv
                .clusters
                .get(cluster)
                .map(|c| c.cpu_range())
                .unwrap_or_else(|| format!("cpu{}", m.cpu.unwrap_or(0))),
            core_type: inv.clusters.get(cluster).and_then(|c| c.core_type.clone()),
            measured_cpu: m.cpu,
            mode: "no_cpufreq".into(),
            points: vec![ClockPoint {
                opp_mhz: None,
                reported_mhz: None,
                firmware_mhz: None,
                measured_mhz: measured,
                samples_mhz: m.samples.clone(),
                deviation_pct: None,
                error: None,
            }],
            notes: Vec::new(),
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
                            reported_mhz: c.max_mhz,
                        })
                        .collect::<Vec<_>>()
                })
        };
        match (find("idle"), find("full load")) {
            (None, None) => None,
            (i, l) => Some(AllCoreClocks {
                idle: i.unwrap_or_default(),
                load: l.unwrap_or_default(),
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

fn bandwidth(run: &sbcbench::TinymembenchRun, names: [&str; 2]) -> Option<Bandwidth> {
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

fn memory_scores(
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
            buffer_bytes: 0,
            latency,
        });
    }
    if from_tinymembench {
        notes.push("memory latency from tinymembench's single random read: time on top of an L1 hit, not the full latency".into());
    }
    (!clusters.is_empty()).then_some(MemoryScores { clusters })
}

fn aes_scores(log: &SbcBenchLog, inv: &Inventory, parallel: bool) -> Option<AesScores> {
    let o = log.openssl.as_ref()?;
    let rows: Vec<&sbcbench::OpenSslRow> = o
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

fn compression(
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

fn stress_scores(log: &SbcBenchLog) -> Option<StressScores> {
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
            tool: "cpuminer".into(),
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
        tool: "stockfish".into(),
        version: Some(s.heading.clone()),
        unit: "nodes/s".into(),
        intervals,
        change_pct: change(&v),
    })
}

// ---------------------------------------------------------------------------------------
// evidence for the detectors

fn throttling_text(log: &SbcBenchLog) -> String {
    let mut o = String::new();
    for t in &log.throttling {
        let label = match (&t.cpus, &t.core_type) {
            (Some(c), Some(k)) => format!(" for CPUs {c} ({k})"),
            (Some(c), None) => format!(" for CPUs {c}"),
            _ => String::new(),
        };
        o.push_str(&format!(
            "Throttling statistics (time spent on each cpufreq OPP){label}:\n\n"
        ));
        for (mhz, s) in &t.time_in_state {
            let d = if *s == 0.0 {
                "0".to_string()
            } else {
                format!("{s:.2}")
            };
            o.push_str(&format!("{mhz:>4} MHz: {d:>7} sec\n"));
        }
        o.push('\n');
    }
    o
}

/// Before/after snapshots as far as the log tells: time in state per OPP (the throttling
/// tables hold the difference, so "before" is all zero), swap in use (first and last
/// `free`, `swapon`).
fn snapshots(log: &SbcBenchLog, inv: &Inventory) -> (Snapshot, Snapshot) {
    let mut before = Snapshot::default();
    let mut after = Snapshot::default();
    for (i, t) in log.throttling.iter().enumerate() {
        let members = t.cpus.as_deref().map(cpus_of).unwrap_or_default();
        let cluster = members
            .first()
            .and_then(|&c| inv.cluster_of(c))
            .map(|c| c.id)
            .or((inv.clusters.len() == 1).then_some(0));
        let top = t.time_in_state.iter().map(|r| r.0).max().unwrap_or(0) as u64 * 1000;
        let mk = |after: bool| PolicyStats {
            policy: members.first().copied().unwrap_or(i as u32),
            cluster,
            dir: String::new(),
            // sbc-bench switches every policy to performance for the benchmarks.
            governor: Some("performance".into()),
            scaling_max_khz: Some(top),
            cpuinfo_max_khz: Some(top),
            time_in_state: t
                .time_in_state
                .iter()
                .map(|&(mhz, s)| {
                    (
                        mhz as u64 * 1000,
                        if after {
                            (s * 100.0).round().max(0.0) as u64
                        } else {
                            0
                        },
                    )
                })
                .collect(),
            total_trans: None,
        };
        before.policies.push(mk(false));
        after.policies.push(mk(true));
    }
    let free_first = log.memory.first();
    let free_last = (log.memory.len() > 1).then(|| log.memory.last()).flatten();
    let fill = |s: &mut Snapshot,
                free: Option<&sbcbench::FreeSnapshot>,
                swaps: Option<&Vec<sbcbench::SwapDevice>>| {
        if let Some(f) = free {
            if let (Some(t), Some(u)) = (f.swap_total, f.swap_used) {
                s.swap_total_kb = Some(t / 1024);
                s.swap_free_kb = Some(t.saturating_sub(u) / 1024);
            }
        }
        if let Some(sw) = swaps {
            s.swaps = sw
                .iter()
                .map(|d| SwapUse {
                    filename: d.filename.clone(),
                    kind: swap_kind(d),
                    size_kb: d.size_kb.unwrap_or(0),
                    used_kb: d.used_kb.unwrap_or(0),
                })
                .collect();
            s.zram_swap = sw.iter().any(|d| d.filename.contains("zram"));
        }
    };
    fill(&mut before, free_first, log.swap_devices.first());
    if free_last.is_some() {
        fill(
            &mut after,
            free_last,
            (log.swap_devices.len() > 1)
                .then(|| log.swap_devices.last())
                .flatten(),
        );
    } else {
        // Without a second `free` nothing tells the swap use after: judge no change.
        after.swap_total_kb = before.swap_total_kb;
        after.swap_free_kb = before.swap_free_kb;
        after.swaps = before.swaps.clone();
        after.zram_swap = before.zram_swap;
    }
    // The log shows zswap only through sbc-bench's warning about it (and its `Zswap active
    // using …` line next to it); the swap devices tell whether zram is under it.
    if zswap_warning(log).is_some() {
        before.zswap_enabled = Some(true);
        after.zswap_enabled = Some(true);
    }
    (before, after)
}

fn zswap_warning(log: &SbcBenchLog) -> Option<&String> {
    log.warnings
        .iter()
        .find(|w| w.contains("ZSWAP ON TOP OF ZRAM"))
        .or_else(|| {
            log.validation
                .iter()
                .find(|b| b.starts_with("Zswap combined with ZRAM"))
        })
}

/// truebench's detectors over the evidence an sbc-bench log holds.
pub fn detect(
    log: &SbcBenchLog,
    inv: &Inventory,
    tl: &Timeline,
    scores: &[PhaseResult],
) -> Vec<Finding> {
    let (before, after) = snapshots(log, inv);
    let lines: Vec<String> = log.dmesg.clone().unwrap_or_default();
    let mut f = Vec::new();
    f.extend(detect::throttling::time_in_state(inv, &before, &after));
    f.extend(detect::throttling::hot_clock_drops(inv, tl));
    f.extend(power::undervoltage_log(&lines));
    f.extend(cores::killed_cores(&before, &after, &lines));
    f.extend(memory::swapping(inv, &before, &after, tl));
    f.extend(
        memory::zswap_on_zram(&before, &after)
            .into_iter()
            .map(|mut z| {
                if let Some(w) = zswap_warning(log) {
                    z.evidence = vec![
                        format!("sbc-bench's log: {w}"),
                        format!(
                            "zram swap: {}",
                            after
                                .swaps
                                .iter()
                                .filter(|s| s.is_zram())
                                .map(|s| s.filename.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ];
                }
                z
            }),
    );
    f.extend(memory::oom_kill(&lines));
    f.extend(thermal::thermal_trip(&lines));
    f.extend(activity::background_activity(inv, tl, &[]));
    f.extend(activity::system_activity(tl, &[]));
    // Measured vs advertised at the highest OPP of each cluster, before and after.
    for p in scores {
        let Some(Scores::Clocks(c)) = &p.scores else {
            continue;
        };
        let when = if p.name == "clocks-hot" {
            "after the benchmarks, hot"
        } else {
            "before the benchmarks"
        };
        for cl in &c.clusters {
            let Some(top) = cl
                .points
                .iter()
                .filter(|x| x.opp_mhz.is_some() && x.measured_mhz.is_some())
                .max_by_key(|x| x.opp_mhz)
            else {
                continue;
            };
            let (Some(o), Some(m)) = (top.opp_mhz, top.measured_mhz) else {
                continue;
            };
            if let Some(mut finding) = clocks::clock_deviation(o as f64, m) {
                finding.message = format!("{} {when}: {}", cl.cpus, finding.message);
                f.push(finding);
            }
        }
    }
    if log.dmesg.is_none() {
        f.push(Finding::new(
            truebench_monitor::FindingKind::NotChecked,
            truebench_monitor::Severity::Info,
            "The log has no kernel-log section (sbc-bench added it in later versions), so killed CPU cores, under-voltage, oom-killer and thermal-trip messages were not checked.",
        ));
    }
    detect::sort(&mut f);
    f
}

// ---------------------------------------------------------------------------------------
// the result

fn phase(
    name: &str,
    title: &str,
    span: Option<(f64, f64, i64, i64)>,
    threads: Option<u32>,
    cpus: Vec<u32>,
    scores: Option<Scores>,
    details: serde_json::Value,
) -> PhaseResult {
    let (start, end, ms0, ms1) = span.unwrap_or((0.0, 0.0, 0, 0));
    let ok = scores.is_some();
    PhaseResult {
        name: name.into(),
        title: title.into(),
        started: start,
        ended: Some(end),
        started_unix_ms: ms0,
        ended_unix_ms: Some(ms1),
        threads,
        cpus,
        status: if ok {
            PhaseStatus::Ok
        } else {
            PhaseStatus::Skipped
        },
        reason: (!ok).then(|| "not in the sbc-bench log".to_string()),
        scores,
        raw: Vec::new(),
        details,
    }
}

/// Span of the monitoring tables named in `names`: (start, end, first ms, last ms).
fn span_of(spans: &[(String, f64, f64, i64, i64)], names: &[&str]) -> Option<(f64, f64, i64, i64)> {
    let v: Vec<_> = spans
        .iter()
        .filter(|s| names.contains(&s.0.as_str()))
        .collect();
    let a = v.iter().map(|s| s.1).reduce(f64::min)?;
    let b = v.iter().map(|s| s.2).reduce(f64::max)?;
    let ms0 = v.iter().map(|s| s.3).min()?;
    let ms1 = v.iter().map(|s| s.4).max()?;
    Some((a, b, ms0, ms1))
}

fn json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// Convert one parsed sbc-bench log; `name` is the log's file name (`4qJG.txt`).
pub fn to_run_result(log: &SbcBenchLog, name: &str) -> RunResult {
    let inv = inventory(log, name);
    let start = log.header.date.as_deref().and_then(rfc2822);
    let built = timeline(log, &inv, start);
    let spans = &built.spans;
    let all: Vec<u32> = inv.cpus.iter().map(|c| c.id).collect();
    let ncpus = all.len() as u32;
    let mut notes = vec![format!(
        "Imported from the sbc-bench{} log {name}: scores and monitoring as sbc-bench recorded them; findings by truebench's detectors on that evidence.",
        log.header
            .version
            .as_ref()
            .map(|v| format!(" v{v}"))
            .unwrap_or_default()
    )];
    if start.is_none() {
        notes.push(
            "the log's date is unknown: times are relative to the first monitoring sample".into(),
        );
    }
    let mut phases = Vec::new();
    let t_end = spans.iter().map(|s| s.2).fold(0.0, f64::max);
    let ms_start = start.map_or(0, |s| s.0 * 1000);
    let ms_end = spans.iter().map(|s| s.4).max().unwrap_or(ms_start);
    phases.push(phase(
        "clocks-cold",
        "Checking cpufreq OPP (before the benchmarks)",
        Some((0.0, 0.0, ms_start, ms_start)),
        Some(1),
        Vec::new(),
        clock_scores(log, &inv, Round::Before).map(Scores::Clocks),
        json(
            &log.opp_blocks
                .iter()
                .filter(|b| b.round == Round::Before)
                .collect::<Vec<_>>(),
        ),
    ));
    phases.push(phase(
        "memory",
        "tinymembench and ramlat",
        span_of(spans, &["tinymembench", "ramlat"]),
        Some(1),
        log.tinymembench.iter().filter_map(|t| t.cpu).collect(),
        memory_scores(log, &inv, &mut notes).map(Scores::Memory),
        json(&(&log.tinymembench, &log.ramlat)),
    ));
    phases.push(phase(
        "aes",
        "OpenSSL benchmark",
        span_of(spans, &["OpenSSL benchmark"]),
        Some(1),
        Vec::new(),
        aes_scores(log, &inv, false).map(Scores::Aes),
        json(&log.openssl),
    ));
    if let Some(a) = aes_scores(log, &inv, true) {
        phases.push(phase(
            "aes-parallel",
            "parallel OpenSSL benchmarks",
            span_of(spans, &["parallel OpenSSL benchmarks"]),
            Some(ncpus),
            all.clone(),
            Some(Scores::Aes(a)),
            serde_json::Value::Null,
        ));
    }
    let zip_details = json(&log.sevenzip);
    phases.push(phase(
        "compression-single",
        "7-zip single core benchmark",
        span_of(spans, &["7-zip single core benchmark"]),
        Some(1),
        log.sevenzip
            .iter()
            .flat_map(|z| z.runs.iter())
            .filter(|r| r.kind == SevenZipKind::Single)
            .filter_map(|r| r.cpu)
            .collect(),
        compression(log, &inv, SevenZipKind::Single).map(Scores::Compression),
        zip_details.clone(),
    ));
    phases.push(phase(
        "compression-multi",
        "7-zip multi core benchmark",
        span_of(spans, &["7-zip multi core benchmark"]),
        Some(ncpus),
        all.clone(),
        compression(log, &inv, SevenZipKind::Multi).map(Scores::Compression),
        zip_details,
    ));
    if let Some(c) = compression(log, &inv, SevenZipKind::Cluster) {
        phases.push(phase(
            "compression-cluster",
            "7-zip cluster benchmarks",
            span_of(spans, &["7-zip cluster benchmarks"]),
            None,
            Vec::new(),
            Some(Scores::Compression(c)),
            serde_json::Value::Null,
        ));
    }
    if let Some(s) = stress_scores(log) {
        let title = if s.tool == "cpuminer" {
            "cpuminer"
        } else {
            "stockfish"
        };
        phases.push(phase(
            "stress",
            title,
            span_of(spans, &[title]),
            Some(ncpus),
            all.clone(),
            Some(Scores::Stress(s)),
            json(&(&log.cpuminer, &log.stockfish)),
        ));
    }
    phases.push(phase(
        "clocks-hot",
        "Testing clockspeeds again (after the benchmarks)",
        Some((t_end, t_end, ms_end, ms_end)),
        Some(1),
        Vec::new(),
        clock_scores(log, &inv, Round::After).map(Scores::Clocks),
        json(
            &log.opp_blocks
                .iter()
                .filter(|b| b.round == Round::After)
                .collect::<Vec<_>>(),
        ),
    ));

    let findings = detect(log, &inv, &built.timeline, &phases);
    let lacking: Vec<&str> = ["tinymembench", "openssl", "7-zip"]
        .into_iter()
        .filter(|w| log.is_missing(w))
        .collect();
    let complete = lacking.is_empty();
    let valid = complete && truebench_monitor::finding::is_valid(&findings);
    for v in &log.validation {
        notes.push(format!("sbc-bench's validation: {v}"));
    }
    for w in &log.warnings {
        notes.push(format!("sbc-bench's warning: {w}"));
    }
    for m in &log.missing {
        notes.push(format!("not in the log: {} ({})", m.what, m.reason));
    }

    let mut tools = vec![Tool {
        name: SBC_BENCH_TOOL.into(),
        version: log.header.version.clone(),
        path: Some(name.to_string()),
    }];
    if let Some(t) = log.tinymembench.first() {
        tools.push(Tool {
            name: "tinymembench".into(),
            version: t.version.clone(),
            path: None,
        });
    }
    if let Some(o) = &log.openssl {
        tools.push(Tool {
            name: "openssl".into(),
            version: o.version_line.clone().or(o.version.clone()),
            path: None,
        });
    }
    if let Some(z) = &log.sevenzip {
        tools.push(Tool {
            name: "7-zip".into(),
            version: z.version.clone(),
            path: None,
        });
    }
    if let Some(c) = &log.cpuminer {
        tools.push(Tool {
            name: "cpuminer".into(),
            version: c.version.clone(),
            path: None,
        });
    }

    let started = Stamp::from_unix_ms(ms_start);
    let ended = Stamp::from_unix_ms(ms_end.max(ms_start));
    RunResult {
        body: RunBody {
            mode: match log.header.mode.as_deref() {
                Some("extensive") => Mode::Extensive,
                _ => Mode::Standard,
            },
        },
        envelope: Envelope {
            truebench_version: env!("CARGO_PKG_VERSION").to_string(),
            comparable: true,
            complete,
            incomplete_reason: (!complete)
                .then(|| format!("the log has no usable {} output", lacking.join(", "))),
            valid,
            duration_s: if start.is_some() {
                (ended.unix_ms - started.unix_ms) as f64 / 1000.0
            } else {
                t_end
            },
            started,
            ended,
            hostname: log.system.hostname.clone(),
            os_codename: log.system.codename.clone(),
            inventory: inv,
            tuning: TuningRecord {
                requested: true,
                applied: false,
                reason: Some(
                    "sbc-bench's own tuning (performance governors), not recorded in the log"
                        .into(),
                ),
                ..Default::default()
            },
            tools,
            phases,
            findings,
            timeline: built.timeline,
            kernel_log: KernelLogRecord {
                available: log.dmesg.is_some(),
                reason: log.dmesg.is_none().then(|| {
                    "the log has no `dmesg output while running the benchmarks` section".into()
                }),
                lines: log.dmesg.clone().unwrap_or_default(),
            },
            throttling: throttling_text(log),
            notes,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        // 18:03:30 at +0100 is 17:03:30 UTC.
        let (u, off) = rfc2822("Mon, 13 Mar 2023 18:03:30 +0100").unwrap();
        assert_eq!(off, 3600);
        assert_eq!(rfc3339_utc(u * 1000), "2023-03-13T17:03:30.000Z");
        let (u, _) = rfc2822("Sun, 29 Jul 2018 12:34:58 -0230").unwrap();
        assert_eq!(rfc3339_utc(u * 1000), "2018-07-29T15:04:58.000Z");
        assert!(rfc2822("yesterday").is_none());
        assert!(rfc2822("Mon, 40 Mar 2023 18:03:30 +0100").is_none());
    }
}
