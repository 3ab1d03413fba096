//! Throttling: the clock was lowered below what the run asked for.
//!
//! Evidence, strongest first:
//! 1. cpufreq `stats/time_in_state` before/after, printed as sbc-bench's "Throttling
//!    statistics" table. Rule: the reference is the highest OPP the policy allowed when the
//!    run started (`scaling_max_freq`, so OPPs a user or `MaxKHz` disabled are ignored). With
//!    the `performance` governor the clock should never leave it, so any time below it is
//!    throttling — sbc-bench's rule, which warns on any difference. Severity follows the
//!    clock lost: `Σ t·(1 − f/f_ref) / Σ t` ≥ 2 % is critical (scores are visibly lower),
//!    below that a warning (e.g. 3.6 s at 1296 of 676 s at 1368 MHz costs 0.03 %). With a
//!    dynamic governor (schedutil, ondemand, …) low OPPs while idle are normal DVFS: only the
//!    time below the reference that cannot be idle time — more than the least idle CPU of the
//!    policy was idle — is reported, and only as information, since a partly loaded CPU may
//!    legitimately run slower. The suites set `performance` to get a verdict.
//! 2. thermal cooling devices that cap CPU clocks, with their `stats/time_in_state_ms`.
//! 3. `scaling_max_freq` lowered during the run (cpufreq cooling lowers the policy maximum).
//! 4. x86 `thermal_throttle` counters (events, not durations).
//! 5. the timeline: under unchanged load the clock fell while the SoC got hotter (see
//!    [`super::heat`], which tells heat from power limits and jitter).
//!
//! Snapshots must bracket phases without CPU hotplug: a policy whose CPUs are all offline
//! keeps accruing time at its last OPP (sbc-bench's per-cluster tests show this), which would
//! read as throttling.

use truebench_host::Inventory;

use super::{capped, cluster_label};
use crate::evidence::{PolicyStats, Snapshot};
use truebench_model::finding::{Basis, Finding, FindingKind, Severity};
use truebench_model::timeline::Timeline;

/// Time spent per OPP between two readings of one policy.
#[derive(Debug, Clone, PartialEq)]
pub struct OppTable {
    pub policy: u32,
    pub cluster: Option<usize>,
    /// `for CPUs 4-7 (Cortex-A72)`, empty when the machine has a single cluster.
    pub label: String,
    /// The highest OPP allowed when the run started, kHz.
    pub reference_khz: u64,
    /// `(kHz, ticks of 10 ms)`, highest OPP first, OPPs above the reference left out.
    pub rows: Vec<(u64, u64)>,
    /// A counter went backwards (statistics were reset in between).
    pub reset: bool,
    pub governor: Option<String>,
}

impl OppTable {
    pub fn total_ticks(&self) -> u64 {
        self.rows.iter().map(|r| r.1).sum()
    }
    pub fn below_ticks(&self) -> u64 {
        self.rows
            .iter()
            .filter(|r| r.0 < self.reference_khz)
            .map(|r| r.1)
            .sum()
    }
    /// Fraction of the clock lost over the interval (0 = always at the reference).
    pub fn lost_fraction(&self) -> f64 {
        let total = self.total_ticks();
        if total == 0 || self.reference_khz == 0 {
            return 0.0;
        }
        let lost: f64 = self
            .rows
            .iter()
            .map(|&(f, t)| t as f64 * (1.0 - f as f64 / self.reference_khz as f64).max(0.0))
            .sum();
        lost / total as f64
    }

    /// sbc-bench's table: header, blank line, `%4s MHz: %7s sec` rows (MHz truncated as
    /// its `$(( kHz / 1000 ))`, zero printed as `0`).
    pub fn render(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "Throttling statistics (time spent on each cpufreq OPP){}:",
                self.label
            ),
            String::new(),
        ];
        for &(khz, ticks) in &self.rows {
            let d = if ticks == 0 {
                "0".to_string()
            } else {
                format!("{:.2}", ticks as f64 / 100.0)
            };
            v.push(format!("{:>4} MHz: {:>7} sec", khz / 1000, d));
        }
        v
    }
}

/// ` for CPUs 4-7 (Cortex-A72)` as sbc-bench labels a policy on a multi-cluster machine.
fn sbc_bench_label(inv: &Inventory, cluster: Option<usize>) -> String {
    if inv.clusters.len() <= 1 {
        return String::new();
    }
    let Some(c) = cluster.and_then(|c| inv.clusters.get(c)) else {
        return String::new();
    };
    let cpus = truebench_host::parse::cpulist::format(&c.cpus);
    match &c.core_type {
        Some(t) => format!(" for CPUs {cpus} ({t})"),
        None => format!(" for CPUs {cpus}"),
    }
}

/// The table for one policy, or None without statistics.
pub fn opp_table(inv: &Inventory, before: &PolicyStats, after: &PolicyStats) -> Option<OppTable> {
    if before.time_in_state.is_empty() || after.time_in_state.is_empty() {
        return None;
    }
    let ceiling = match (before.scaling_max_khz, before.cpuinfo_max_khz) {
        (Some(s), Some(c)) => s.min(c),
        (Some(s), None) => s,
        (None, Some(c)) => c,
        (None, None) => u64::MAX,
    };
    let reference = before
        .time_in_state
        .iter()
        .map(|r| r.0)
        .filter(|&f| f <= ceiling)
        .max()?;
    let mut reset = false;
    let mut rows: Vec<(u64, u64)> = before
        .time_in_state
        .iter()
        .filter(|r| r.0 <= reference)
        .map(|&(f, t0)| {
            let t1 = after
                .time_in_state
                .iter()
                .find(|r| r.0 == f)
                .map_or(t0, |r| r.1);
            if t1 < t0 {
                reset = true;
            }
            (f, t1.saturating_sub(t0))
        })
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    rows.dedup_by_key(|r| r.0);
    Some(OppTable {
        policy: before.policy,
        cluster: before.cluster,
        label: sbc_bench_label(inv, before.cluster),
        reference_khz: reference,
        rows,
        reset,
        governor: before.governor.clone(),
    })
}

/// Lower bound of the time the policy's clock was below the reference while at least one
/// of its CPUs was busy: below-reference time minus the idle time of its least idle CPU.
fn busy_below_s(inv: &Inventory, t: &OppTable, before: &Snapshot, after: &Snapshot) -> f64 {
    let below = t.below_ticks() as f64 / 100.0;
    let Some(cl) = t.cluster.and_then(|c| inv.clusters.get(c)) else {
        return below;
    };
    let hz = after.processes.as_ref().map_or(100, |p| p.clk_tck).max(1) as f64;
    let min_idle = cl
        .cpus
        .iter()
        .filter_map(|&cpu| {
            let b = before.cpu_ticks.iter().find(|c| c.cpu == cpu)?;
            let a = after.cpu_ticks.iter().find(|c| c.cpu == cpu)?;
            Some(a.idle.saturating_sub(b.idle) as f64 / hz)
        })
        .fold(f64::INFINITY, f64::min);
    if min_idle.is_finite() {
        (below - min_idle).max(0.0)
    } else {
        // Without per-CPU times nothing can be told apart from idle.
        0.0
    }
}

/// Finding from the cpufreq statistics of every policy.
pub fn time_in_state(inv: &Inventory, before: &Snapshot, after: &Snapshot) -> Vec<Finding> {
    let mut out = Vec::new();
    for b in &before.policies {
        let Some(a) = after.policy(b.policy) else {
            continue;
        };
        let Some(t) = opp_table(inv, b, a) else {
            continue;
        };
        let below_s = t.below_ticks() as f64 / 100.0;
        if below_s <= 0.0 {
            continue;
        }
        let who = match t.cluster {
            Some(c) => cluster_label(inv, c),
            None => format!("policy{}", t.policy),
        };
        let reference_mhz = t.reference_khz / 1000;
        let lost = t.lost_fraction();
        let mut ev = t.render();
        ev.push(String::new());
        ev.push(format!(
            "{below_s:.2} s of {:.2} s below {reference_mhz} MHz; {:.2} % of the clock lost (governor {})",
            t.total_ticks() as f64 / 100.0,
            lost * 100.0,
            t.governor.as_deref().unwrap_or("unknown")
        ));
        if t.reset {
            ev.push("a counter went backwards: the statistics were reset during the run, the table undercounts".into());
        }
        let performance = t.governor.as_deref() == Some("performance");
        let f = if performance {
            let sev = if lost >= 0.02 {
                Severity::Critical
            } else {
                Severity::Warning
            };
            Finding::new(
                FindingKind::Throttling,
                sev,
                format!(
                    "Throttling occurred on {who}: {below_s:.2} s below {reference_mhz} MHz (cpufreq statistics); improve cooling and run again."
                ),
            )
        } else {
            let busy = busy_below_s(inv, &t, before, after);
            let wall = t.total_ticks() as f64 / 100.0;
            if busy < 1.0 || busy < 0.05 * wall {
                continue;
            }
            Finding::new(
                FindingKind::Throttling,
                Severity::Info,
                format!(
                    "{who} ran below {reference_mhz} MHz for at least {busy:.1} s while busy under the {} governor; this can be normal frequency scaling — use the performance governor to test for throttling.",
                    t.governor.as_deref().unwrap_or("unknown")
                ),
            )
        };
        out.push(f.with_evidence(ev));
    }
    out
}

/// Cooling devices that cap CPU clocks and spent time in a state above 0.
pub fn cooling_devices(before: &Snapshot, after: &Snapshot) -> Vec<Finding> {
    let wall_ms = (after.unix_ms - before.unix_ms).max(0) as f64;
    let mut ev = Vec::new();
    let mut longest_ms = 0.0f64;
    let mut still = false;
    for a in after.cooling.iter().filter(|c| c.caps_cpu()) {
        let b = before.cooling.iter().find(|c| c.name == a.name);
        let kind = a.kind.as_deref().unwrap_or("?");
        if !a.time_in_state_ms.is_empty() {
            let parts: Vec<String> = a
                .time_in_state_ms
                .iter()
                .filter(|(st, _)| *st > 0)
                .filter_map(|&(st, ms)| {
                    let ms0 = b
                        .and_then(|b| b.time_in_state_ms.iter().find(|r| r.0 == st))
                        .map_or(0, |r| r.1);
                    let d = ms.saturating_sub(ms0);
                    (d > 0).then(|| {
                        longest_ms = longest_ms.max(d as f64);
                        format!("state{st}: {:.2} s", d as f64 / 1000.0)
                    })
                })
                .collect();
            if !parts.is_empty() {
                ev.push(format!("{} ({kind}): {}", a.name, parts.join(", ")));
            }
        }
        if let Some(cur) = a.cur_state.filter(|&c| c > 0) {
            still = true;
            ev.push(format!(
                "{} ({kind}): cur_state {cur} of {} at the end of the run",
                a.name,
                a.max_state.map_or("?".into(), |m| m.to_string())
            ));
        }
    }
    if ev.is_empty() {
        return Vec::new();
    }
    let sev = if longest_ms >= 0.01 * wall_ms || still {
        Severity::Critical
    } else {
        Severity::Warning
    };
    vec![Finding::new(
        FindingKind::Throttling,
        sev,
        "The kernel's thermal framework capped the CPU clock (cooling device above state 0); improve cooling and run again.",
    )
    .with_evidence(ev)]
}

/// `scaling_max_freq` lower after the run than before it.
pub fn scaling_max_lowered(inv: &Inventory, before: &Snapshot, after: &Snapshot) -> Vec<Finding> {
    let mut out = Vec::new();
    for b in &before.policies {
        let Some(a) = after.policy(b.policy) else {
            continue;
        };
        let (Some(x), Some(y)) = (b.scaling_max_khz, a.scaling_max_khz) else {
            continue;
        };
        if y < x {
            let who = b
                .cluster
                .map_or(format!("policy{}", b.policy), |c| cluster_label(inv, c));
            out.push(
                Finding::new(
                    FindingKind::Throttling,
                    Severity::Warning,
                    format!(
                        "The clock ceiling of {who} was lowered during the run ({} → {} MHz), usually by thermal capping; check cooling and run again.",
                        x / 1000,
                        y / 1000
                    ),
                )
                .with_evidence([format!(
                    "/{}/scaling_max_freq: {x} before, {y} after",
                    b.dir
                )]),
            );
        }
    }
    out
}

/// x86 `thermal_throttle/{core,package}_throttle_count` increments. Kernels since 5.18 also
/// keep `*_throttle_total_time_ms`: with it, throttled for ≥ 1 % of the run is critical;
/// with counts alone (how often, not how long) a warning.
pub fn x86_counters(before: &Snapshot, after: &Snapshot) -> Vec<Finding> {
    fn d(a: Option<u64>, b: Option<u64>) -> u64 {
        a.zip(b).map_or(0, |(x, y)| x.saturating_sub(y))
    }
    let mut ev = Vec::new();
    let mut core_events = 0u64;
    let mut pkg_events = 0u64;
    let mut longest_ms: Option<u64> = None;
    for a in &after.throttle_counts {
        let Some(b) = before.throttle_counts.iter().find(|b| b.cpu == a.cpu) else {
            continue;
        };
        let dc = d(a.core, b.core);
        let dp = d(a.package, b.package);
        let dcm = a.core_ms.and(b.core_ms).map(|_| d(a.core_ms, b.core_ms));
        let dpm = a
            .package_ms
            .and(b.package_ms)
            .map(|_| d(a.package_ms, b.package_ms));
        for ms in [dcm, dpm].into_iter().flatten() {
            longest_ms = Some(longest_ms.unwrap_or(0).max(ms));
        }
        let ms = |m: Option<u64>| {
            m.map_or(String::new(), |m| {
                format!(", {:.2} s throttled", m as f64 / 1000.0)
            })
        };
        if dc > 0 {
            core_events = core_events.saturating_add(dc);
            ev.push(format!(
                "cpu{}: core_throttle_count {} → {} (+{dc}{})",
                a.cpu,
                b.core.unwrap_or(0),
                a.core.unwrap_or(0),
                ms(dcm)
            ));
        }
        if dp > 0 {
            // Every CPU of a package shows the same package counter.
            pkg_events = pkg_events.max(dp);
            ev.push(format!(
                "cpu{}: package_throttle_count {} → {} (+{dp}{})",
                a.cpu,
                b.package.unwrap_or(0),
                a.package.unwrap_or(0),
                ms(dpm)
            ));
        }
    }
    if ev.is_empty() {
        return Vec::new();
    }
    let wall_ms = (after.unix_ms - before.unix_ms).max(1) as f64;
    let (sev, how_long) = match longest_ms {
        Some(ms) => (
            if ms as f64 >= 0.01 * wall_ms {
                Severity::Critical
            } else {
                Severity::Warning
            },
            format!("up to {:.2} s throttled", ms as f64 / 1000.0),
        ),
        None => (
            Severity::Warning,
            "the counters tell how often, not for how long".to_string(),
        ),
    };
    vec![Finding::new(
        FindingKind::Throttling,
        sev,
        format!(
            "The CPU reported thermal throttling ({core_events} core and {pkg_events} package events; {how_long}); improve cooling and run again."
        ),
    )
    .with_evidence(capped(ev, 16))]
}

pub use super::heat::hot_clock_drops;

/// Every throttling detector.
pub fn detect(inv: &Inventory, before: &Snapshot, after: &Snapshot, tl: &Timeline) -> Vec<Finding> {
    let mut f = time_in_state(inv, before, after);
    f.extend(cooling_devices(before, after));
    f.extend(scaling_max_lowered(inv, before, after));
    f.extend(x86_counters(before, after));
    f.extend(hot_clock_drops(inv, tl));
    let has_cpufreq = inv.clusters.iter().any(|c| c.driver.is_some());
    let has_stats = before.policies.iter().any(|p| !p.time_in_state.is_empty());
    let is_pi = inv
        .device
        .as_deref()
        .is_some_and(|d| d.contains("Raspberry Pi"));
    if has_cpufreq && !has_stats && !is_pi && before.throttle_counts.is_empty() {
        f.push(Finding::new(
            FindingKind::NotChecked,
            Severity::Info,
            "No cpufreq statistics (kernel without CONFIG_CPU_FREQ_STAT): short throttling between samples cannot be seen, only what the monitoring samples show.",
        ).on(Basis::NoCpufreq));
    }
    if is_pi
        && before.rpi_throttled.is_none()
        && after.rpi_throttled.is_none()
        && !tl
            .samples
            .iter()
            .any(|s| s.rpi.and_then(|r| r.throttled).is_some())
    {
        f.push(Finding::new(
            FindingKind::NotChecked,
            Severity::Info,
            "The Raspberry Pi firmware's throttling and under-voltage state could not be read (no vcgencmd, no get_throttled file): the kernel does not know the real clock on a Pi.",
        ));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pol(tis: &[(u64, u64)], gov: &str, max: u64) -> PolicyStats {
        PolicyStats {
            policy: 4,
            cluster: None,
            dir: "sys/devices/system/cpu/cpufreq/policy4".into(),
            governor: Some(gov.into()),
            scaling_max_khz: Some(max),
            cpuinfo_max_khz: Some(max),
            time_in_state: tis.to_vec(),
            total_trans: None,
        }
    }

    fn empty_inv() -> Inventory {
        Inventory::probe(&truebench_host::Host::new("/nonexistent-root"))
    }

    #[test]
    fn table_renders_like_sbc_bench() {
        let inv = empty_inv();
        let b = pol(
            &[(408000, 10), (1416000, 0), (1800000, 100)],
            "performance",
            1800000,
        );
        let a = pol(
            &[(408000, 10), (1416000, 11769), (1800000, 134539)],
            "performance",
            1800000,
        );
        let t = opp_table(&inv, &b, &a).unwrap();
        assert_eq!(
            t.render(),
            [
                "Throttling statistics (time spent on each cpufreq OPP):",
                "",
                "1800 MHz: 1344.39 sec",
                "1416 MHz:  117.69 sec",
                " 408 MHz:       0 sec"
            ]
        );
        assert_eq!(t.below_ticks(), 11769);
    }

    #[test]
    fn opps_above_scaling_max_are_ignored() {
        let inv = empty_inv();
        let mut b = pol(
            &[(1000000, 0), (1416000, 0), (1800000, 0)],
            "performance",
            1800000,
        );
        b.scaling_max_khz = Some(1416000);
        let a = pol(
            &[(1000000, 0), (1416000, 5000), (1800000, 0)],
            "performance",
            1800000,
        );
        let t = opp_table(&inv, &b, &a).unwrap();
        assert_eq!(t.reference_khz, 1416000);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.below_ticks(), 0);
    }

    #[test]
    fn lost_fraction_weights_by_clock() {
        let t = OppTable {
            policy: 0,
            cluster: None,
            label: String::new(),
            reference_khz: 1368000,
            rows: vec![(1368000, 67297), (1296000, 362)],
            reset: false,
            governor: None,
        };
        assert!(t.lost_fraction() < 0.001);
    }
}
