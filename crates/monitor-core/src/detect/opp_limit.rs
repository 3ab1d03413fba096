//! OPPs never reached and the limit that holds each (`Cluster::opp_limits`, judged by
//! `truebench_host::opp::judge` when the inventory was read, live or from a log): one finding
//! per limit. A cooling device holding the clock down while the measurement ran is a warning
//! (the top OPPs were not measured); the others are facts of the machine.

use truebench_host::opp::{Limit, LoweredBy};
use truebench_host::Inventory;
use truebench_model::finding::{Finding, FindingKind, Severity};

pub fn detect(inv: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    for c in &inv.clusters {
        for l in &c.opp_limits {
            let severity = match &l.limit {
                Limit::ScalingMax {
                    by: LoweredBy::Cooling { .. },
                    ..
                } => Severity::Warning,
                _ => Severity::Info,
            };
            out.push(
                Finding::new(
                    FindingKind::OppLimit,
                    severity,
                    format!(
                        "{} ({}): {}",
                        c.cpu_range(),
                        c.core_type.as_deref().unwrap_or("CPU"),
                        l.reason
                    ),
                )
                .with_evidence([l.source.clone()]),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_host::inventory::Cluster;
    use truebench_host::opp::OppLimit;

    #[test]
    fn one_finding_per_limit_a_cooling_cap_warns() {
        let mut inv = Inventory::probe(&truebench_host::Host::new("/nonexistent"));
        let lim = |limit: Limit| OppLimit {
            opps_mhz: vec![2400],
            limit,
            reason: "2400 MHz is never reached: …".into(),
            source: "sys/class/thermal/cooling_device0/cur_state".into(),
        };
        inv.clusters = vec![Cluster {
            cpus: vec![4, 5],
            core_type: Some("Cortex-A76".into()),
            opp_limits: vec![
                lim(Limit::NotOffered),
                lim(Limit::ScalingMax {
                    scaling_max_mhz: 2208,
                    by: LoweredBy::Cooling {
                        device: "cooling_device0".into(),
                        kind: "cpufreq-cpu4".into(),
                        cur_state: 1,
                        max_state: 13,
                        cap_mhz: Some(2208),
                    },
                }),
            ],
            ..Default::default()
        }];
        let f = detect(&inv);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].severity, Severity::Info);
        assert_eq!(f[1].severity, Severity::Warning);
        assert_eq!(
            f[1].message,
            "cpu4-cpu5 (Cortex-A76): 2400 MHz is never reached: …"
        );
        assert_eq!(
            f[1].evidence,
            ["sys/class/thermal/cooling_device0/cur_state"]
        );
        assert_eq!(f[0].kind.as_str(), "opp_limit");
    }
}
