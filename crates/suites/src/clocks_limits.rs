//! An OPP measured short of its label, and the limit that holds it down where the inventory
//! found one (`Cluster::opp_limits`, from `truebench_host::opp::judge`): a cooling device
//! capping the policy, a regulator, the chip's bin.

use truebench_host::inventory::Cluster;
use truebench_host::opp::OppLimit;
use truebench_model::clocks::{ClockPoint, ClusterClocks};
use truebench_model::finding::Finding;
use truebench_monitor_core::clocks_text::SHOWN_DEVIATION_PCT;

/// The limit naming this OPP, if any.
fn limit_of(c: &Cluster, opp_mhz: u32) -> Option<&OppLimit> {
    c.opp_limits
        .iter()
        .find(|l| l.opps_mhz.iter().any(|&m| m.abs_diff(opp_mhz) <= 1))
}

/// `2400 MHz measured 2221 MHz: <reason> (<file>)`, when the point is short and a limit names it.
pub(crate) fn short_reason(c: &Cluster, p: &ClockPoint) -> Option<String> {
    let (opp, measured, dev) = (p.opp_mhz?, p.measured_mhz?, p.deviation_pct?);
    if dev >= -SHOWN_DEVIATION_PCT {
        return None;
    }
    let l = limit_of(c, opp)?;
    Some(format!(
        "{opp} MHz measured {measured:.0} MHz: {} ({})",
        l.reason, l.source
    ))
}

/// A note per OPP measured short with a limit that explains it.
pub(crate) fn notes(c: &Cluster, cc: &mut ClusterClocks) {
    let found: Vec<String> = cc
        .points
        .iter()
        .filter_map(|p| short_reason(c, p))
        .collect();
    cc.notes.extend(found);
}

/// The top OPP's finding gets the limit as evidence.
pub(crate) fn explain_finding(c: Option<&Cluster>, cc: &ClusterClocks, f: &mut Finding) {
    let Some(c) = c else { return };
    let top = cc.points.iter().find(|p| p.measured_mhz.is_some());
    if let Some(r) = top.and_then(|p| short_reason(c, p)) {
        f.evidence.push(r);
    }
}
