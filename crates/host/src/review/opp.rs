//! OPPs a cluster never reaches, and the limit that holds each down (`opp::judge`, read into
//! `Cluster::opp_limits` by the inventory).

use super::Setting;
use crate::opp::Limit;
use crate::Inventory;

pub fn limits(inv: &Inventory, out: &mut Vec<Setting>) {
    // A policy spanning two core types is two clusters with the same limits: said once.
    let mut said: Vec<(Option<&str>, &str)> = Vec::new();
    for c in &inv.clusters {
        let subject = match &c.policy_dir {
            Some(dir) => format!(
                "{} ({})",
                dir.rsplit('/').next().unwrap_or(dir),
                c.cpu_range()
            ),
            None => c.cpu_range(),
        };
        for l in &c.opp_limits {
            let key = (c.policy_dir.as_deref(), l.reason.as_str());
            if c.policy_dir.is_some() && said.contains(&key) {
                continue;
            }
            said.push(key);
            let value = l
                .opps_mhz
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(", ")
                + " MHz";
            let name = match &l.limit {
                Limit::Regulator { .. } => "OPP limit: regulator",
                Limit::SupportedHw { .. } => "OPP limit: opp-supported-hw",
                Limit::ScalingMax { .. } => "OPP limit: scaling_max_freq",
                Limit::NotOffered => "OPP not offered",
            };
            out.push(
                Setting::new("cpufreq", &subject, name, value)
                    .from(&l.source)
                    .warn(&l.reason),
            );
        }
    }
}
