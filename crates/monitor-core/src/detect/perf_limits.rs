//! Performance limits of the CPU's frequency driver set while measuring: intel_pstate's
//! `max_perf_pct` below 100 or `no_turbo` set, and energy preferences that favour saving power
//! (Linux `Documentation/admin-guide/pm/intel_pstate.rst`, `amd-pstate.rst`). Each caps or
//! slows the clock without any throttling the kernel counts: the results are of a limited
//! CPU. Judged from the snapshots at the measurement's (or a phase's) two ends, so a limit
//! set or lifted while it ran is seen and the phases it held in are marked.

use truebench_host::inventory::{epp_saves_power, PerfLimits, INTEL_PSTATE_DIR};
use truebench_host::parse::cpulist;
use truebench_host::Inventory;
use truebench_model::finding::{Finding, FindingKind, Severity};

use crate::evidence::Snapshot;

/// `before → after`, or the one value when it did not change.
fn values<T: PartialEq + std::fmt::Display>(a: Option<T>, b: Option<T>, unit: &str) -> String {
    let show = |v: &Option<T>| {
        v.as_ref()
            .map_or("unknown".into(), |v| format!("{v}{unit}"))
    };
    if a == b {
        show(&a)
    } else {
        format!("{} at the start, {} at the end", show(&a), show(&b))
    }
}

/// The findings for one pair of snapshots (the whole measurement or one phase). `no_turbo`
/// on a CPU without turbo P-states (`PerfControl::has_turbo`) forbids nothing and is not one.
pub fn detect(inv: &Inventory, before: &Snapshot, after: &Snapshot) -> Vec<Finding> {
    let (Some(a), Some(b)) = (before.perf_limits.as_ref(), after.perf_limits.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    max_perf(a, b, &mut out);
    let turbo = inv.perf_control.as_ref().and_then(|p| p.has_turbo());
    if turbo != Some(false) {
        no_turbo(a, b, &mut out);
    }
    preference(a, b, &mut out);
    out
}

fn max_perf(a: &PerfLimits, b: &PerfLimits, out: &mut Vec<Finding>) {
    let low = [a.max_perf_pct, b.max_perf_pct]
        .into_iter()
        .flatten()
        .filter(|&p| p < 100)
        .min();
    let Some(pct) = low else { return };
    out.push(
        Finding::new(
            FindingKind::PerfLimit,
            Severity::Warning,
            format!(
                "intel_pstate's max_perf_pct was {pct} % while measuring: the CPU could not go \
                 above {pct} % of its highest turbo P-state, so these are the results of a \
                 capped CPU. Write 100 to /{INTEL_PSTATE_DIR}/max_perf_pct, stop what lowered \
                 it (TLP's CPU_MAX_PERF_ON_AC/BAT, thermald, a power profile daemon) and run \
                 again."
            ),
        )
        .with_evidence([format!(
            // Root-relative, as every file of the evidence: the tree read may be a recorded one.
            "{INTEL_PSTATE_DIR}/max_perf_pct: {}",
            values(a.max_perf_pct, b.max_perf_pct, " %")
        )]),
    );
}

fn no_turbo(a: &PerfLimits, b: &PerfLimits, out: &mut Vec<Finding>) {
    if a.no_turbo != Some(true) && b.no_turbo != Some(true) {
        return;
    }
    let bit = |v: Option<bool>| v.map(u8::from);
    out.push(
        Finding::new(
            FindingKind::PerfLimit,
            Severity::Warning,
            format!(
                "intel_pstate's no_turbo was set while measuring: turbo P-states were \
                 forbidden, so the CPU ran at or below its base clock. Write 0 to \
                 /{INTEL_PSTATE_DIR}/no_turbo and run again (or state that the results are \
                 without turbo)."
            ),
        )
        .with_evidence([format!(
            "{INTEL_PSTATE_DIR}/no_turbo: {}",
            values(bit(a.no_turbo), bit(b.no_turbo), "")
        )]),
    );
}

fn preference(a: &PerfLimits, b: &PerfLimits, out: &mut Vec<Finding>) {
    // Each policy whose preference saved power at either end, with both values.
    let mut saving: Vec<(u32, String)> = Vec::new();
    let mut lines = Vec::new();
    for (policy, after) in &b.epp {
        let before = a
            .epp
            .iter()
            .find(|(p, _)| p == policy)
            .map(|(_, e)| e.as_str());
        if epp_saves_power(after) || before.is_some_and(epp_saves_power) {
            let shown = match before {
                Some(x) if x != after => format!("{x} at the start, {after} at the end"),
                _ => after.clone(),
            };
            saving.push((*policy, shown));
        }
    }
    if saving.is_empty() {
        return;
    }
    // One evidence line per distinct value, with the policies holding it.
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for (p, v) in &saving {
        match groups.iter_mut().find(|g| &g.0 == v) {
            Some(g) => g.1.push(*p),
            None => groups.push((v.clone(), vec![*p])),
        }
    }
    for (v, ps) in &groups {
        lines.push(format!(
            "energy_performance_preference of policy{}: {v}",
            cpulist::format(ps)
        ));
    }
    let values: Vec<&str> = groups.iter().map(|g| g.0.as_str()).collect();
    out.push(
        Finding::new(
            FindingKind::PerfLimit,
            Severity::Warning,
            format!(
                "An energy preference that saves power ({}) held on {} of {} cpufreq \
                 policies while measuring: the CPU raised its clock reluctantly, so \
                 benchmarks ran slower. Write `performance` to each policy's \
                 energy_performance_preference (the performance governor does it under \
                 intel_pstate) and run again.",
                values.join(", "),
                saving.len(),
                b.epp.len()
            ),
        )
        .with_evidence(lines),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(max: u32, no_turbo: bool, epp: &[(u32, &str)]) -> Snapshot {
        Snapshot {
            perf_limits: Some(PerfLimits {
                max_perf_pct: Some(max),
                min_perf_pct: Some(8),
                no_turbo: Some(no_turbo),
                epp: epp.iter().map(|(p, e)| (*p, e.to_string())).collect(),
            }),
            ..Default::default()
        }
    }

    /// An inventory whose intel_pstate says `turbo_pct`.
    fn inventory(turbo_pct: Option<u32>) -> Inventory {
        let mut inv: Inventory = serde_json::from_str(
            r#"{"schema_version":1,"root":"/","device":null,"soc":null,
                "kernel":{"release":null,"version":null},
                "arch":{"kernel":null,"kernel_source":null,"userland":null},"distro":null,
                "virtualization":{"kind":"none","name":null,"evidence":null,"layers":[]},
                "cpus":[],"clusters":[],"thermal":{"chosen":null,"zones":[],"hwmon":[]},
                "memory":{"total_kb":null,"available_kb":null,"page_size":null,
                          "page_size_source":null},
                "swap":{"devices":[],"zswap":null,"total_kb":null,"used_kb":null},
                "missing":[]}"#,
        )
        .unwrap();
        inv.perf_control = Some(truebench_host::inventory::PerfControl {
            intel_pstate: Some(truebench_host::inventory::IntelPstate {
                turbo_pct,
                ..Default::default()
            }),
            ..Default::default()
        });
        inv
    }

    /// A Celeron without turbo reads no_turbo 1 (turbo_pct 0): nothing is forbidden.
    #[test]
    fn no_turbo_without_turbo_p_states_is_nothing() {
        let s = snap(100, true, &[]);
        assert!(detect(&inventory(Some(0)), &s, &s).is_empty());
        assert_eq!(detect(&inventory(Some(80)), &s, &s).len(), 1);
        assert_eq!(detect(&inventory(None), &s, &s).len(), 1, "unknown: said");
    }

    #[test]
    fn nothing_when_unlimited_or_unknown() {
        let s = snap(
            100,
            false,
            &[(0, "performance"), (1, "balance_performance")],
        );
        let inv = inventory(Some(80));
        assert!(detect(&inv, &s, &s).is_empty());
        assert!(detect(&inv, &Snapshot::default(), &Snapshot::default()).is_empty());
    }

    #[test]
    fn a_limit_set_while_measuring_is_seen_with_both_values() {
        let a = snap(100, false, &[(0, "performance"), (1, "performance")]);
        let b = snap(60, true, &[(0, "performance"), (1, "power")]);
        let f = detect(&inventory(Some(80)), &a, &b);
        assert_eq!(f.len(), 3, "{f:#?}");
        assert!(f.iter().all(|x| x.kind == FindingKind::PerfLimit));
        assert!(f[0].message.contains("max_perf_pct was 60 %"));
        assert_eq!(
            f[0].evidence,
            ["sys/devices/system/cpu/intel_pstate/max_perf_pct: 100 % at the start, 60 % at the end"]
        );
        assert!(f[1].evidence[0].ends_with("no_turbo: 0 at the start, 1 at the end"));
        assert!(
            f[2].message
                .contains("(performance at the start, power at the end) held on 1 of 2"),
            "{}",
            f[2].message
        );
        assert_eq!(
            f[2].evidence,
            ["energy_performance_preference of policy1: performance at the start, power at the end"]
        );
    }
}
