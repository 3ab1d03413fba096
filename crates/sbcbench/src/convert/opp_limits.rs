//! Why an OPP is never reached, judged on a log by the rule the live reader uses
//! (`truebench_host::opp::judge`): the log's OPP tables and CPU regulators against the OPPs each
//! policy offers.

use truebench_host::inventory::Cluster;
use truebench_host::opp::{judge, OppInputs, Supply, TableOpp, Volts};

use crate::log::{LogOppTable, SbcBenchLog};

/// One voltage per row: the only one, or the speed bins' when they all agree (which bin the
/// chip is in is not printed).
fn row_volts(mv: &[f64]) -> Option<Volts> {
    let first = *mv.first()?;
    mv.iter()
        .all(|&v| v == first)
        .then(|| Volts::exact((first * 1000.0).round() as u64))
}

/// The CPU regulators the log lists (`vdd_cpu`, `cpu_vdd`, `vdd_cpu_big0_s0`; not Allwinner's
/// `cpus` LDO, which feeds the management core), as one supply: a log does not say which feeds
/// which cluster, so an OPP is held only when every one of them is too low for it.
fn cpu_supply(log: &SbcBenchLog) -> Option<Supply> {
    let regs: Vec<_> = log
        .dt_opp
        .as_ref()?
        .regulators
        .iter()
        .filter(|r| r.name.contains("cpu") && !r.name.contains("cpus"))
        .filter(|r| r.max_mv.is_some_and(|m| m > 0))
        .collect();
    let max = regs.iter().filter_map(|r| r.max_mv).max()?;
    Some(Supply {
        name: regs
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>()
            .join(" or "),
        min_uv: None,
        max_uv: Some(u64::from(max) * 1000),
        source: format!(
            "sbc-bench log: {}",
            regs.iter()
                .map(|r| format!(
                    "`{}: {} mV ({} mV max)`",
                    r.name,
                    r.mv,
                    r.max_mv.unwrap_or(0)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// The table of a cluster: one holding every OPP the cluster offers — the one named after
/// the cluster (`cluster1-opp-table`, `opp-table-cpu4`) when there is one, else the one with
/// the fewest other OPPs (big.LITTLE tables share their low OPPs).
fn table_of<'a>(
    tables: &'a [LogOppTable],
    offered: &[u32],
    cl: &Cluster,
) -> Option<&'a LogOppTable> {
    let fits: Vec<&LogOppTable> = tables
        .iter()
        .filter(|t| {
            offered
                .iter()
                .all(|&f| t.rows.iter().any(|r| r.mhz.abs_diff(f) <= 1))
        })
        .collect();
    let named = |t: &&LogOppTable| {
        let first = cl.cpus.first().copied().unwrap_or(0);
        [format!("cluster{}", cl.id), format!("cpu{first}")]
            .iter()
            .any(|k| {
                t.name.match_indices(k.as_str()).any(|(at, _)| {
                    !t.name[at + k.len()..].starts_with(|c: char| c.is_ascii_digit())
                })
            })
    };
    fits.iter()
        .find(|t| named(t))
        .or_else(|| {
            fits.iter().min_by_key(|t| {
                let mut f: Vec<u32> = t.rows.iter().map(|r| r.mhz).collect();
                f.dedup();
                f.len()
            })
        })
        .copied()
}

/// The rule's inputs for each cluster of the converted inventory.
pub(super) fn inputs(log: &SbcBenchLog, clusters: &[Cluster]) -> Vec<OppInputs> {
    let tables: &[LogOppTable] = log.dt_opp.as_ref().map_or(&[], |d| &d.tables[..]);
    let supply = cpu_supply(log);
    clusters
        .iter()
        .map(|cl| {
            let first = cl.cpus.first().copied();
            let line = log
                .policies
                .iter()
                .find(|p| Some(p.policy) == cl.policy.or(first));
            let (offered, offered_source) = match line {
                Some(p) => (
                    p.offered_mhz.clone(),
                    format!("sbc-bench log: cpufreq-policy{} line", p.policy),
                ),
                None => (
                    cl.opps_mhz.clone(),
                    "sbc-bench log: Checking cpufreq OPP block".to_string(),
                ),
            };
            let mut i = OppInputs::default();
            if offered.len() < 2 {
                return i;
            }
            let Some(t) = table_of(tables, &offered, cl) else {
                return i;
            };
            i.table = t
                .rows
                .iter()
                .map(|r| TableOpp {
                    khz: u64::from(r.mhz) * 1000,
                    volts: row_volts(&r.mv),
                    supported_hw: r.supported_hw.clone(),
                })
                .collect();
            i.table_source = format!("sbc-bench log: OPP table {}", t.name);
            i.offered_khz = offered.iter().map(|&m| u64::from(m) * 1000).collect();
            i.offered_source = offered_source;
            i.supply = supply.clone();
            i
        })
        .collect()
}

/// Every cluster's `opp_limits` from the log.
pub(super) fn fill(log: &SbcBenchLog, clusters: &mut [Cluster]) {
    let all = inputs(log, clusters);
    for (cl, i) in clusters.iter_mut().zip(all) {
        cl.opp_limits = judge(&i);
    }
}

/// The limits of a log's clusters as its summary lists them: `(cpu range, limit)`.
pub fn of_log(log: &SbcBenchLog) -> Vec<(String, truebench_host::opp::OppLimit)> {
    let inv = super::inventory::inventory(log, "");
    inv.clusters
        .iter()
        .flat_map(|c| c.opp_limits.iter().map(|l| (c.cpu_range(), l.clone())))
        .collect()
}
