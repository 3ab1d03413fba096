//! The monitoring tables of a log as a truebench Timeline with phases.

use truebench_host::Inventory;
use truebench_monitor::{CpuPct, Phase, RpiSample, Sample, Timeline, TimelineHeader};

use crate::log::{MonitorTable, SbcBenchLog};

/// Threads a monitored sbc-bench phase keeps busy (sbc-bench judges background activity on
/// the single-threaded ones).
pub(super) fn phase_threads(running: &str, ncpus: u32) -> Option<u32> {
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
pub(super) fn column_clusters(t: &MonitorTable, inv: &Inventory) -> Vec<Option<usize>> {
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

pub(super) struct Built {
    pub(super) timeline: Timeline,
    /// Phase name → (start, end, first unix ms, last unix ms) in timeline seconds.
    pub(super) spans: Vec<(String, f64, f64, i64, i64)>,
}

pub(super) fn timeline(
    log: &SbcBenchLog,
    inv: &Inventory,
    start_unix: Option<(i64, i64)>,
) -> Built {
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
            ..Default::default()
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
    if let Some(m) = truebench_stats::median(&gaps) {
        tl.header.interval_s = m;
    }
    Built {
        timeline: tl,
        spans,
    }
}
