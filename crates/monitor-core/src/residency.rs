//! A phase's frequency × idle residency from its two boundary snapshots: per cluster, the
//! seconds at each clock (`time_in_state` of its policy) and the entries and CPU-seconds in
//! each idle state (cpuidle counters of its CPUs), and the deepest state entered.

use truebench_host::cpuidle::IdleCounters;
use truebench_host::Inventory;
use truebench_model::residency::{ClusterResidency, DeepestIdle, IdleResidency, PhaseResidency};

use crate::evidence::Snapshot;

/// `after − before` of a counter; None when either is unknown or it went back (a reset).
fn delta(before: Option<u64>, after: Option<u64>) -> Option<u64> {
    after?.checked_sub(before?)
}

fn counters(s: &Snapshot, cpu: u32) -> Option<&IdleCounters> {
    s.idle.iter().find(|c| c.cpu == cpu)
}

/// The residency between `before` and `after` of the CPUs `cpus` (every CPU when empty);
/// None when no cluster has clock statistics or idle counters.
pub fn phase_residency(
    inv: &Inventory,
    before: &Snapshot,
    after: &Snapshot,
    cpus: &[u32],
) -> Option<PhaseResidency> {
    let mut out = PhaseResidency::default();
    for cl in &inv.clusters {
        let mine: Vec<u32> = cl
            .cpus
            .iter()
            .copied()
            .filter(|c| cpus.is_empty() || cpus.contains(c))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let opp_s = cl
            .policy
            .and_then(|p| Some((before.policy(p)?, after.policy(p)?)))
            .map(|(b, a)| opp_seconds(&b.time_in_state, &a.time_in_state))
            .unwrap_or_default();
        let (idle, deepest) = idle_of(inv, before, after, &mine);
        if opp_s.is_empty() && idle.is_empty() {
            continue;
        }
        out.clusters.push(ClusterResidency {
            cpus: mine,
            core_type: cl.core_type.clone(),
            opp_s,
            idle,
            deepest,
        });
    }
    (!out.clusters.is_empty()).then_some(out)
}

/// `(MHz, s)` of the clocks whose ticks (10 ms) grew, ascending.
fn opp_seconds(before: &[(u64, u64)], after: &[(u64, u64)]) -> Vec<(u32, f64)> {
    let mut rows: Vec<(u32, f64)> = after
        .iter()
        .filter_map(|&(khz, t)| {
            let b = before.iter().find(|r| r.0 == khz).map_or(0, |r| r.1);
            let d = t.checked_sub(b).filter(|&d| d > 0)?;
            Some(((khz / 1000) as u32, d as f64 / 100.0))
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    rows
}

/// The states of the group of `cpus[0]`, summed over those of `cpus` with the same states;
/// the deepest entered.
fn idle_of(
    inv: &Inventory,
    before: &Snapshot,
    after: &Snapshot,
    cpus: &[u32],
) -> (Vec<IdleResidency>, Option<DeepestIdle>) {
    let Some(ci) = &inv.cpuidle else {
        return (Vec::new(), None);
    };
    let Some(group) = cpus.iter().find_map(|&c| ci.group_of(c)) else {
        return (Vec::new(), None);
    };
    let mut rows: Vec<IdleResidency> = group
        .states
        .iter()
        .map(|s| IdleResidency {
            state: s.name.clone(),
            exit_latency_us: s.exit_latency_us,
            entries: 0,
            cpu_s: 0.0,
        })
        .collect();
    let mut entered: Vec<Vec<u32>> = vec![Vec::new(); rows.len()];
    let mut read_any = false;
    for &cpu in cpus.iter().filter(|c| group.cpus.contains(c)) {
        let (Some(b), Some(a)) = (counters(before, cpu), counters(after, cpu)) else {
            continue;
        };
        for (k, row) in rows.iter_mut().enumerate() {
            let g = |v: &[Option<u64>]| v.get(k).copied().flatten();
            if let Some(n) = delta(g(&b.usage), g(&a.usage)) {
                read_any = true;
                row.entries += n;
                if n > 0 {
                    entered[k].push(cpu);
                }
            }
            if let Some(us) = delta(g(&b.time_us), g(&a.time_us)) {
                row.cpu_s += us as f64 / 1e6;
            }
        }
    }
    if !read_any {
        return (Vec::new(), None);
    }
    let deepest = (0..rows.len())
        .rev()
        .find(|&k| !entered[k].is_empty())
        .map(|k| DeepestIdle {
            state: rows[k].state.clone(),
            exit_latency_us: rows[k].exit_latency_us,
            cpus: std::mem::take(&mut entered[k]),
        });
    (rows, deepest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opp_rows_are_the_clocks_that_grew() {
        let b = [(600_000, 100), (1_800_000, 50)];
        let a = [(600_000, 100), (1_800_000, 350), (2_000_000, 7)];
        assert_eq!(opp_seconds(&b, &a), [(1800, 3.0), (2000, 0.07)]);
        // A counter that went back (policy re-created) is not a negative time.
        assert!(opp_seconds(&a, &b).is_empty());
    }
}
