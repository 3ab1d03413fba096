//! Killed CPU cores: CPUs that went offline while the run was watched (Allwinner and Amlogic
//! BSP kernels switch cores off when hot and may bring them back later).
//!
//! The suites must not take CPUs offline themselves inside a watched window, or the kernel
//! log would blame heat for it.

use super::capped;
use super::kernel_log::number_between;
use crate::evidence::{Snapshot, ONLINE_FILE};
use truebench_host::parse::cpulist;
use truebench_model::finding::{Finding, FindingKind, Severity};

/// CPUs named by `CPUn: shutdown` or `psci: CPUn killed` lines, and those lines.
pub fn killed_in_log(lines: &[String]) -> (Vec<u32>, Vec<String>) {
    let mut cpus = Vec::new();
    let mut ev = Vec::new();
    for l in lines {
        let n = number_between(l, "CPU", ": shutdown")
            .or_else(|| number_between(l, "psci: CPU", " killed"));
        if let Some(n) = n {
            cpus.push(n);
            ev.push(l.clone());
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    (cpus, ev)
}

pub fn killed_cores(before: &Snapshot, after: &Snapshot, lines: &[String]) -> Vec<Finding> {
    let gone: Vec<u32> = match (&before.cpus_online, &after.cpus_online) {
        (Some(b), Some(a)) => b.iter().copied().filter(|c| !a.contains(c)).collect(),
        _ => Vec::new(),
    };
    let (logged, log_lines) = killed_in_log(lines);
    if gone.is_empty() && logged.is_empty() {
        return Vec::new();
    }
    let mut all: Vec<u32> = gone.iter().chain(&logged).copied().collect();
    all.sort_unstable();
    all.dedup();
    let mut ev = Vec::new();
    if let (Some(b), Some(a)) = (&before.cpus_online, &after.cpus_online) {
        ev.push(format!(
            "/{ONLINE_FILE}: {} before, {} after",
            cpulist::format(b),
            cpulist::format(a)
        ));
    }
    ev.extend(capped(log_lines, 20));
    let back = !logged.is_empty() && gone.is_empty();
    let msg = format!(
        "CPU core(s) {} were switched off during the run{} (overheating protection on many BSP kernels): results are invalid; improve cooling and run again.",
        cpulist::format(&all),
        if back { " and brought back later" } else { "" }
    );
    vec![Finding::new(FindingKind::KilledCores, Severity::Critical, msg).with_evidence(ev)]
}
