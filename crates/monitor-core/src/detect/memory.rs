//! Memory pressure: swapping, zswap stacked on zram, the oom-killer.

use truebench_host::Inventory;

use super::capped;
use super::kernel_log::matching;
use crate::evidence::{Snapshot, VMSTAT_FILE, ZSWAP_DIR};
use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::timeline::Timeline;

fn human_kb(kb: u64) -> String {
    if kb >= 1024 * 1024 {
        format!("{:.1} GiB", kb as f64 / 1048576.0)
    } else if kb >= 1024 {
        format!("{:.1} MiB", kb as f64 / 1024.0)
    } else {
        format!("{kb} KiB")
    }
}

/// Swap in use grew, or pages were swapped out, while the run was watched. Swap on a disk
/// (SD card above all) is critical: random I/O there is orders of magnitude slower than
/// RAM. zram only costs CPU time for compression: a warning.
pub fn swapping(
    inv: &Inventory,
    before: &Snapshot,
    after: &Snapshot,
    tl: &Timeline,
) -> Vec<Finding> {
    let used_b = before.swap_used_kb();
    let used_a = after.swap_used_kb();
    let peak = tl
        .samples
        .iter()
        .filter_map(|s| s.swap_used_kb.map(|u| (u, s.t)))
        .max_by_key(|p| p.0);
    let grew_to = match (used_b, used_a, peak) {
        (Some(b), a, p) => {
            let top = a.unwrap_or(0).max(p.map_or(0, |p| p.0));
            (top > b).then_some((b, top))
        }
        _ => None,
    };
    let swapped_out = before
        .pswpout
        .zip(after.pswpout)
        .map_or(0, |(b, a)| a.saturating_sub(b));
    if grew_to.is_none() && swapped_out == 0 {
        return Vec::new();
    }
    let mut ev = Vec::new();
    if let (Some(b), Some(a)) = (used_b, used_a) {
        ev.push(format!(
            "Swap used: {} before, {} after",
            human_kb(b),
            human_kb(a)
        ));
    }
    if let Some((u, t)) = peak {
        ev.push(format!(
            "Peak swap used while sampling: {} at t={t:.1}s",
            human_kb(u)
        ));
    }
    if swapped_out > 0 {
        let pin = before
            .pswpin
            .zip(after.pswpin)
            .map_or(0, |(b, a)| a.saturating_sub(b));
        ev.push(format!(
            "/{VMSTAT_FILE}: {swapped_out} pages swapped out, {pin} swapped in"
        ));
    }
    // Which devices took the pages, and what storage is under them.
    let mut on_disk = Vec::new();
    let mut on_zram = false;
    for a in &after.swaps {
        let b = before.swaps.iter().find(|b| b.filename == a.filename);
        let grew = a.used_kb > b.map_or(0, |b| b.used_kb);
        let dev = inv.swap.devices.iter().find(|d| d.filename == a.filename);
        let storage = if a.is_zram() {
            "zram (compressed RAM)".to_string()
        } else {
            dev.and_then(|d| d.storage.clone())
                .unwrap_or_else(|| format!("{} on unknown storage", a.kind))
        };
        ev.push(format!(
            "{} ({storage}): {} → {} used of {}",
            a.filename,
            human_kb(b.map_or(0, |b| b.used_kb)),
            human_kb(a.used_kb),
            human_kb(a.size_kb)
        ));
        if grew || (swapped_out > 0 && a.used_kb > 0) {
            if a.is_zram() {
                on_zram = true;
            } else {
                on_disk.push(storage);
            }
        }
    }
    let max_io = tl
        .samples
        .iter()
        .filter_map(|s| s.cpu.map(|c| c.io))
        .fold(0.0f64, f64::max);
    if max_io > 0.0 {
        ev.push(format!("Highest %iowait while sampling: {max_io:.0} %"));
    }
    let (sev, msg) = if !on_disk.is_empty() || (!on_zram && !after.zram_swap) {
        let where_ = if on_disk.is_empty() {
            "to disk".to_string()
        } else {
            format!("to {}", on_disk.join(", "))
        };
        (
            Severity::Critical,
            format!(
                "The system swapped {where_} during the run: results are invalid; free memory (stop services, use a smaller workload) or test on a board with more RAM."
            ),
        )
    } else {
        (
            Severity::Warning,
            "The system swapped to zram during the run: compression took CPU time from the benchmark; free memory or test on a board with more RAM.".to_string(),
        )
    };
    vec![Finding::new(FindingKind::Swapping, sev, msg).with_evidence(ev)]
}

/// zswap enabled while a zram device is the swap: pages get compressed twice once swapping
/// starts. A warning when swapping happened, else information about the configuration.
pub fn zswap_on_zram(before: &Snapshot, after: &Snapshot) -> Vec<Finding> {
    let s = after;
    if s.zswap_enabled != Some(true) || !s.zram_swap {
        return Vec::new();
    }
    let swapped = before
        .pswpout
        .zip(after.pswpout)
        .is_some_and(|(b, a)| a > b)
        || after.swap_used_kb() > before.swap_used_kb();
    let zram: Vec<String> = s
        .swaps
        .iter()
        .filter(|d| d.is_zram())
        .map(|d| format!("{} ({} used)", d.filename, human_kb(d.used_kb)))
        .collect();
    let mut ev = vec![format!(
        "/{ZSWAP_DIR}/enabled: Y (compressor {})",
        s.zswap_compressor.as_deref().unwrap_or("unknown")
    )];
    ev.push(format!("zram swap: {}", zram.join(", ")));
    let sev = if swapped {
        Severity::Warning
    } else {
        Severity::Info
    };
    vec![Finding::new(
        FindingKind::ZswapOnZram,
        sev,
        "zswap is enabled on top of zram swap, so swapped pages are compressed twice; disable one of them (zswap.enabled=0 on the kernel command line, or swap to disk behind zswap).",
    )
    .with_evidence(ev)]
}

/// oom-killer invocations in the kernel log.
pub fn oom_kill(lines: &[String]) -> Vec<Finding> {
    let invoked = matching(lines, &["invoked oom-killer"]);
    let killed = matching(
        lines,
        &[
            "out of memory: kill",
            "killed process",
            "oom-kill:",
            "memory cgroup out of memory",
        ],
    );
    if invoked.is_empty() && killed.is_empty() {
        return Vec::new();
    }
    let n = if invoked.is_empty() {
        killed.len()
    } else {
        invoked.len()
    };
    // The invocation line and the kill lines tell what happened; the backtrace and the task
    // dump between them do not.
    let ev: Vec<String> = lines
        .iter()
        .filter(|l| invoked.contains(l) || killed.contains(l))
        .cloned()
        .collect();
    vec![Finding::new(
        FindingKind::OomKill,
        Severity::Critical,
        format!(
            "The kernel ran out of memory and the oom-killer was invoked {n} time(s): a process was killed, results are missing or invalid; stop memory-hungry processes or configure (more) swap and run again."
        ),
    )
    .with_evidence(capped(ev, 20))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(human_kb(512), "512 KiB");
        assert_eq!(human_kb(34816), "34.0 MiB");
        assert_eq!(human_kb(3 * 1048576), "3.0 GiB");
    }
}
