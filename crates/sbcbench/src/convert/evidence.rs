//! Evidence for truebench's detectors from what a log recorded (snapshots, throttling tables).

use truebench_host::Inventory;
use truebench_model::finding::Finding;
use truebench_model::phase;
use truebench_model::timeline::Timeline;
use truebench_monitor_core::detect::{self, clock_walk, clocks};
use truebench_monitor_core::evidence::{PolicyStats, Snapshot, SwapUse};
use truebench_monitor_core::kmsg::KernelLog;

use crate::log::{self, SbcBenchLog};
use truebench_model::*;

use super::*;

/// Before/after snapshots as far as the log tells: time in state per OPP (the throttling
/// tables hold the difference, so "before" is all zero), swap in use (first and last
/// `free`, `swapon`).
pub(super) fn snapshots(log: &SbcBenchLog, inv: &Inventory) -> (Snapshot, Snapshot) {
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
                free: Option<&log::FreeSnapshot>,
                swaps: Option<&Vec<log::SwapDevice>>| {
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

pub(super) fn zswap_warning(log: &SbcBenchLog) -> Option<&String> {
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
    scores: &[PhaseScores],
) -> Vec<Finding> {
    let (before, after) = snapshots(log, inv);
    let klog = match &log.dmesg {
        Some(lines) => KernelLog::Lines(lines.clone()),
        None => KernelLog::Unavailable(
            "the log has no kernel-log section (sbc-bench added it in later versions)".into(),
        ),
    };
    // The same pipeline as every measurement of truebench's own; the log has no process
    // tables, so background activity is judged from the monitoring lines alone.
    let mut f = detect::run(&detect::Context {
        inv,
        before: &before,
        after: &after,
        boundaries: &[&before, &after],
        timeline: tl,
        log: &klog,
    });
    // A log with an OPP walk, a throttling table or sbc-bench's "No throttling" (written only
    // where cpufreq statistics exist) had cpufreq: what it checked was checked.
    let had_cpufreq = !log.opp_blocks.is_empty()
        || !log.throttling.is_empty()
        || log
            .validation
            .iter()
            .any(|b| b.starts_with("No throttling"));
    if had_cpufreq {
        f.retain(|x| {
            !(x.kind == truebench_model::finding::FindingKind::NotChecked
                && x.rests_on(truebench_model::finding::Basis::NoCpufreq))
        });
    }
    // sbc-bench's own words on zswap over zram are the better evidence.
    if let Some(w) = zswap_warning(log) {
        for z in f
            .iter_mut()
            .filter(|z| z.kind == truebench_model::finding::FindingKind::ZswapOnZram)
        {
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
    }
    // Measured vs advertised at the highest OPP of each cluster: the label judged by the
    // measurement before the benchmarks, a shortfall only after them is throttling.
    f.extend(clock_findings(scores));
    detect::sort(&mut f);
    f
}

/// The top-OPP measurement of every cluster in one clock phase, by CPU range.
fn top_checks(p: &PhaseScores) -> Vec<(String, clocks::ClockCheck)> {
    let Scores::Clocks(c) = &p.scores else {
        return Vec::new();
    };
    c.clusters
        .iter()
        .filter_map(|cl| {
            let top = cl
                .points
                .iter()
                .filter(|x| x.opp_mhz.is_some() && x.measured_mhz.is_some())
                .max_by_key(|x| x.opp_mhz)?;
            let check =
                clocks::ClockCheck::new(top.opp_mhz? as f64, top.measured_mhz?, &top.samples_mhz)?;
            Some((cl.cpu_range.clone(), check))
        })
        .collect()
}

/// Every OPP measured in one clock phase, by CPU range (the whole walk).
fn walk_checks(p: &PhaseScores) -> Vec<(String, Vec<clocks::ClockCheck>)> {
    let Scores::Clocks(c) = &p.scores else {
        return Vec::new();
    };
    c.clusters
        .iter()
        .map(|cl| {
            let checks = cl
                .points
                .iter()
                .filter_map(|x| {
                    clocks::ClockCheck::new(x.opp_mhz? as f64, x.measured_mhz?, &x.samples_mhz)
                })
                .collect();
            (cl.cpu_range.clone(), checks)
        })
        .collect()
}

fn clock_findings(scores: &[PhaseScores]) -> Vec<Finding> {
    let cold: Vec<(String, clocks::ClockCheck)> = scores
        .iter()
        .filter(|p| !phase::CLOCKS_HOT.is(&p.phase))
        .flat_map(top_checks)
        .collect();
    let hot: Vec<(String, clocks::ClockCheck)> = scores
        .iter()
        .filter(|p| phase::CLOCKS_HOT.is(&p.phase))
        .flat_map(top_checks)
        .collect();
    let walks: Vec<(String, Vec<clocks::ClockCheck>)> = scores
        .iter()
        .filter(|p| !phase::CLOCKS_HOT.is(&p.phase))
        .flat_map(walk_checks)
        .collect();
    let find = |v: &[(String, clocks::ClockCheck)], cpus: &str| {
        v.iter().find(|(c, _)| c == cpus).map(|(_, x)| x.clone())
    };
    let mut f = Vec::new();
    for (cpus, c) in &cold {
        let h = find(&hot, cpus);
        // The whole walk first: a constant shortfall is lost cycles, not the label's; a cap
        // specific to the top OPP is named even under the single reading's floor.
        let walk = walks
            .iter()
            .find(|(c, _)| c == cpus)
            .and_then(|(_, w)| clock_walk::judge_walk(cpus, w, h.as_ref()));
        match walk {
            Some(clock_walk::WalkVerdict::LostCycles(x)) => f.push(x),
            Some(clock_walk::WalkVerdict::TopCap(x)) => {
                f.extend(clocks::judge_cold(cpus, c, h.as_ref()));
                f.push(x);
            }
            None => f.extend(clocks::judge_cold(cpus, c, h.as_ref())),
        }
    }
    for (cpus, h) in &hot {
        f.extend(clocks::judge_hot(cpus, find(&cold, cpus).as_ref(), h));
    }
    f
}
