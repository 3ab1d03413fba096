//! The live reader of [`OppInputs`]: per cluster, the device tree's OPP table and CPU supply
//! (`operating-points-v2` and `cpu-supply` phandles of the cluster's CPU node), the supply's
//! constraints in `/sys/class/regulator` (else the regulator node's own), the cpufreq policy's
//! limits and offered frequencies, and the cooling devices bound to the policy.

use super::dt::{self, Tree};
use super::{Cooling, OppInputs, Supply, TableOpp, Volts};
use crate::inventory::Cluster;
use crate::Host;

const REGULATORS: &str = "sys/class/regulator";
const THERMAL: &str = "sys/class/thermal";

/// The OPP table of a table node (`operating-points-v2`): its OPP child nodes. OPPs with
/// `status = "disabled"` are not part of it (the kernel skips them).
fn table(tree: &Tree, node: &str) -> Vec<TableOpp> {
    let mut out = Vec::new();
    for opp in tree.children(node) {
        let Some(khz) = tree.prop(&opp, "opp-hz").and_then(|b| dt::hz(&b)) else {
            continue;
        };
        let disabled = tree
            .prop(&opp, "status")
            .and_then(|b| dt::string(&b))
            .is_some_and(|s| s != "okay" && s != "ok");
        if disabled {
            continue;
        }
        out.push(TableOpp {
            khz: khz / 1000,
            volts: tree
                .prop(&opp, "opp-microvolt")
                .and_then(|b| dt::microvolt(&b)),
            supported_hw: tree
                .prop(&opp, "opp-supported-hw")
                .and_then(|b| dt::cells(&b))
                .unwrap_or_default(),
        });
    }
    out.sort_by_key(|o| o.khz);
    out
}

/// The kernel's own OPP table in debugfs (`/sys/kernel/debug/opp/cpuN/opp:<Hz>/` with
/// `rate_hz` and `supply-0/u_volt_{target,min,max}`), where it is readable (root, debugfs
/// mounted): what the OPP core parsed, for CPUs whose device tree this root lacks. `available`
/// N entries stay in the table: the kernel disabled them (the rule finds why).
fn debugfs_table(host: &Host, cpus: &[u32]) -> Option<(Vec<TableOpp>, String)> {
    let dir = cpus
        .iter()
        .map(|c| format!("sys/kernel/debug/opp/cpu{c}"))
        .find(|d| host.is_dir(d))?;
    let mut out = Vec::new();
    for e in host.list(&dir) {
        let Some(name_hz) = e.strip_prefix("opp:") else {
            continue;
        };
        let d = format!("{dir}/{e}");
        let hz = host
            .read_u64(format!("{d}/rate_hz"))
            .or_else(|| host.read_u64(format!("{d}/rate_hz_0")))
            .or_else(|| {
                name_hz
                    .split(|c: char| !c.is_ascii_digit())
                    .next()?
                    .parse()
                    .ok()
            });
        let Some(hz) = hz.filter(|&h| h > 0) else {
            continue;
        };
        let supply = host
            .list(&d)
            .into_iter()
            .find(|s| s.starts_with("supply"))
            .map(|s| format!("{d}/{s}"));
        let volts = supply.and_then(|s| {
            let uv = |f: &str| host.read_u64(format!("{s}/{f}"));
            let target = uv("u_volt_target")?;
            let v = Volts {
                target,
                min: uv("u_volt_min").unwrap_or(target),
                max: uv("u_volt_max").unwrap_or(target),
            };
            (v.min <= v.max && v.max > 0).then_some(v)
        });
        out.push(TableOpp {
            khz: hz / 1000,
            volts,
            supported_hw: Vec::new(),
        });
    }
    out.sort_by_key(|o| o.khz);
    (!out.is_empty()).then_some((out, dir))
}

/// `operating-points` (v1): pairs of kHz and µV on the CPU node.
fn table_v1(b: &[u8]) -> Vec<TableOpp> {
    let Some(c) = dt::cells(b) else {
        return Vec::new();
    };
    c.chunks_exact(2)
        .map(|p| TableOpp {
            khz: p[0].into(),
            volts: Some(Volts::exact(p[1].into())),
            supported_hw: Vec::new(),
        })
        .collect()
}

/// The regulator named `name` in `/sys/class/regulator`, with its constraints.
fn sysfs_supply(host: &Host, name: &str) -> Option<Supply> {
    for r in host.list(REGULATORS) {
        let dir = format!("{REGULATORS}/{r}");
        if host.read_trimmed(format!("{dir}/name")).as_deref() != Some(name) {
            continue;
        }
        let max = host.read_u64(format!("{dir}/max_microvolts"));
        let min = host.read_u64(format!("{dir}/min_microvolts"));
        if max.is_none() && min.is_none() {
            continue;
        }
        return Some(Supply {
            name: name.to_string(),
            min_uv: min,
            max_uv: max,
            source: format!("{dir}/max_microvolts"),
        });
    }
    None
}

/// The regulator a CPU consumes by sysfs alone: the kernel links each consumer into its
/// regulator's directory as `<device>-<supply>` (`cpu0-cpu` for `cpu-supply` of cpu0).
fn consumer_supply(host: &Host, cpus: &[u32]) -> Option<Supply> {
    for r in host.list(REGULATORS) {
        let dir = format!("{REGULATORS}/{r}");
        let entries = host.list(&dir);
        if cpus
            .iter()
            .any(|c| entries.iter().any(|e| *e == format!("cpu{c}-cpu")))
        {
            let name = host.read_trimmed(format!("{dir}/name"))?;
            return sysfs_supply(host, &name);
        }
    }
    None
}

/// The supply of a CPU node: `cpu-supply` → regulator node → `regulator-name`, its constraints
/// from sysfs (what the kernel applies), else from the node.
fn supply(host: &Tree, h: &Host, node: &str) -> Option<Supply> {
    let name = host
        .prop(node, "regulator-name")
        .and_then(|b| dt::string(&b))
        .unwrap_or_else(|| node.rsplit('/').next().unwrap_or(node).to_string());
    if let Some(s) = sysfs_supply(h, &name) {
        return Some(s);
    }
    let uv = |p: &str| host.prop(node, p).and_then(|b| dt::cell(&b)).map(u64::from);
    let (min, max) = (uv("regulator-min-microvolt"), uv("regulator-max-microvolt"));
    (min.is_some() || max.is_some()).then(|| Supply {
        name,
        min_uv: min,
        max_uv: max,
        source: format!("{}/regulator-max-microvolt", host.path(node)),
    })
}

/// The cooling devices bound to a cluster's policy: `cpufreq-cpuN` for one of its CPUs, or the
/// k-th `thermal-cpufreq-*` for the k-th cluster with cpufreq (older kernels number them in
/// registration order, which follows the policies).
fn cooling(host: &Host, cl: &Cluster, k: usize) -> Vec<Cooling> {
    let mut out = Vec::new();
    for d in host.list(THERMAL) {
        if !d.starts_with("cooling_device") {
            continue;
        }
        let dir = format!("{THERMAL}/{d}");
        let Some(kind) = host.read_trimmed(format!("{dir}/type")) else {
            continue;
        };
        let bound = if let Some(n) = kind.strip_prefix("cpufreq-cpu") {
            n.parse::<u32>().is_ok_and(|n| cl.cpus.contains(&n))
        } else if kind.starts_with("thermal-cpufreq-") {
            kind.strip_prefix("thermal-cpufreq-")
                .and_then(|n| n.parse::<usize>().ok())
                == Some(k)
        } else {
            false
        };
        let (Some(cur), Some(max)) = (
            host.read_u64(format!("{dir}/cur_state")),
            host.read_u64(format!("{dir}/max_state")),
        ) else {
            continue;
        };
        if bound {
            out.push(Cooling {
                device: d.clone(),
                kind,
                cur_state: cur,
                max_state: max,
                source: format!("{dir}/cur_state"),
            });
        }
    }
    out
}

/// The inputs of every cluster, in cluster order (a cluster without cpufreq and without a
/// device-tree table gets empty inputs).
pub fn inputs(host: &Host, clusters: &[Cluster]) -> Vec<OppInputs> {
    let tree = Tree::locate(host);
    let nodes = tree.as_ref().map(|t| t.cpu_nodes()).unwrap_or_default();
    // CPU nodes by order only where no CPU links its node.
    let by_order = !clusters.iter().flat_map(|c| &c.cpus).any(|c| {
        host.read_link(format!("sys/devices/system/cpu/cpu{c}/of_node"))
            .is_some()
    });
    // Each cluster's CPU node (its first CPU that has one) and the phandles it names.
    let mut per: Vec<(Option<String>, Option<u32>, Option<u32>)> = Vec::new();
    let mut wanted = Vec::new();
    for cl in clusters {
        // The first of its CPUs whose node names a table (one CPU's node may be unreadable).
        let cpu_nodes: Vec<String> = tree
            .as_ref()
            .map(|t| {
                cl.cpus
                    .iter()
                    .filter_map(|&c| t.cpu_node(c, &nodes, by_order))
                    .collect()
            })
            .unwrap_or_default();
        let ph = |n: &str, p: &str| {
            let t = tree.as_ref()?;
            t.prop(n, p).and_then(|b| dt::cell(&b))
        };
        let node = cpu_nodes
            .iter()
            .find(|n| ph(n, "operating-points-v2").is_some())
            .or(cpu_nodes.first())
            .cloned();
        let opp = node.as_deref().and_then(|n| ph(n, "operating-points-v2"));
        let sup = cpu_nodes.iter().find_map(|n| ph(n, "cpu-supply"));
        wanted.extend(opp.into_iter().chain(sup));
        per.push((node, opp, sup));
    }
    wanted.sort_unstable();
    wanted.dedup();
    let found = tree
        .as_ref()
        .map(|t| t.phandles(&wanted))
        .unwrap_or_default();

    let mut k = 0usize;
    clusters
        .iter()
        .zip(per)
        .map(|(cl, (node, opp, sup))| {
            let mut i = OppInputs::default();
            if let Some(t) = &tree {
                if let Some(tn) = opp.and_then(|p| found.get(&p)) {
                    i.table = table(t, tn);
                    i.table_source = t.path(tn);
                } else if let Some(b) = node.as_deref().and_then(|n| t.prop(n, "operating-points"))
                {
                    i.table = table_v1(&b);
                    i.table_source = format!(
                        "{}/operating-points",
                        t.path(node.as_deref().unwrap_or_default())
                    );
                }
                i.supply = sup
                    .and_then(|p| found.get(&p))
                    .and_then(|n| supply(t, host, n));
            }
            if i.supply.is_none() {
                i.supply = consumer_supply(host, &cl.cpus);
            }
            if i.table.is_empty() {
                if let Some((t, src)) = debugfs_table(host, &cl.cpus) {
                    i.table = t;
                    i.table_source = src;
                }
            }
            if let Some(dir) = &cl.policy_dir {
                let khz = |f: &str| host.read_u64(format!("{dir}/{f}"));
                i.cpuinfo_max_khz = khz("cpuinfo_max_freq");
                i.scaling_max_khz = khz("scaling_max_freq");
                i.scaling_max_source = format!("{dir}/scaling_max_freq");
                i.offered_khz = cl.opps_khz.clone();
                i.offered_source = format!("{dir}/scaling_available_frequencies");
                i.cooling = cooling(host, cl, k);
                i.cooling_read = host.is_dir(THERMAL);
                k += 1;
            }
            i
        })
        .collect()
}

/// Fill every cluster's `opp_limits` from the machine.
pub fn fill(host: &Host, clusters: &mut [Cluster]) {
    let all = inputs(host, clusters);
    for (cl, i) in clusters.iter_mut().zip(all) {
        cl.opp_limits = super::judge(&i);
    }
}
