//! The machine of a log: clusters, CPUs, OPPs, memory, swap, kernel, SoC — as an Inventory.

use truebench_host::inventory::{
    Arch, ChosenSensor, Cluster, Cpu, Kernel, Memory, Missing, Swap, SwapDevice, Thermal,
    Virtualization,
};
use truebench_host::Inventory;

use crate::log::{self, Round, SbcBenchLog};

/// `cpu0-cpu3`, `0-3`, `cpu4` → CPU numbers.
pub(super) fn cpus_of(s: &str) -> Vec<u32> {
    truebench_host::parse::cpulist::parse(&s.replace("cpu", ""))
}

/// CPUs, core type and stepping of one cluster.
type Group = (Vec<u32>, Option<String>, Option<String>);

/// A core type as sbc-bench labels a cluster for people (`little core`, `big cores`) is no
/// core type.
fn is_core_name(s: &str) -> bool {
    let l = s.trim().to_ascii_lowercase();
    !(l.is_empty()
        || [
            "little",
            "big",
            "middle",
            "prime",
            "performance",
            "efficiency",
        ]
        .iter()
        .any(|w| l == *w || l.starts_with(&format!("{w} core"))))
}

pub(super) fn group_clusters(log: &SbcBenchLog) -> Vec<Group> {
    // One per cpufreq policy of the topology table … unless the policies say nothing about
    // clusters: one policy for every CPU, or one per CPU. Then the table's cluster column and
    // core types group them.
    let rows = &log.topology;
    let mut policies: Vec<Option<u32>> = rows.iter().map(|c| c.policy).collect();
    policies.sort_unstable();
    policies.dedup();
    let uninformative = rows.len() > 1 && (policies.len() == 1 || policies.len() == rows.len());
    let mut clusters: Vec<Option<i64>> = rows.iter().map(|c| c.cluster).collect();
    clusters.sort_unstable();
    clusters.dedup();
    let mut types: Vec<&str> = rows.iter().filter_map(|c| c.core_type.as_deref()).collect();
    types.sort_unstable();
    types.dedup();
    let mut groups: Vec<(String, Group)> = Vec::new();
    for c in rows {
        let key = if uninformative && clusters.len() > 1 {
            format!("cluster {:?}", c.cluster)
        } else if uninformative {
            // By core type; a row without one (offline) joins the only type there is.
            match (c.core_type.as_deref(), types.as_slice()) {
                (Some(t), _) | (None, &[t]) => format!("type {t}"),
                (None, _) => "type ?".into(),
            }
        } else {
            match c.policy {
                Some(p) => format!("policy {p}"),
                None => format!("cluster {:?}", c.cluster),
            }
        };
        let core = c.core_type.clone().filter(|t| is_core_name(t));
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => {
                g.1 .0.push(c.cpu);
                // A mixed cluster never gets one core type.
                if g.1 .1 != core {
                    g.1 .1 = None;
                    g.1 .2 = None;
                } else if g.1 .2 != c.stepping {
                    g.1 .2 = None;
                }
            }
            None => groups.push((key, (vec![c.cpu], core, c.stepping.clone()))),
        }
    }
    if !groups.is_empty() {
        let mut v: Vec<Group> = groups.into_iter().map(|g| g.1).collect();
        v.sort_by_key(|g| g.0.first().copied().unwrap_or(0));
        return v;
    }
    // … else one per `Checking cpufreq OPP for cpuX-cpuY` block, else one for all CPUs.
    let mut v: Vec<Group> = Vec::new();
    for b in log.opp_blocks.iter().filter(|b| b.round == Round::Before) {
        let cpus = b.cpus.as_deref().map(cpus_of).unwrap_or_default();
        if cpus.is_empty() || v.iter().any(|g| g.0 == cpus) {
            continue;
        }
        v.push((cpus, b.core_type.clone().filter(|t| is_core_name(t)), None));
    }
    if v.is_empty() {
        let n = log.system.cpus.unwrap_or(1).max(1);
        let core = log
            .opp_blocks
            .iter()
            .find_map(|b| b.core_type.clone())
            .or_else(|| log.tinymembench.iter().find_map(|t| t.label.clone()))
            .filter(|t| is_core_name(t));
        v.push(((0..n).collect(), core, None));
    }
    v.sort_by_key(|g| g.0.first().copied().unwrap_or(0));
    v
}

pub(super) fn inventory(log: &SbcBenchLog, name: &str) -> Inventory {
    let groups = group_clusters(log);
    let mut clusters = Vec::new();
    let mut cpus = Vec::new();
    for (i, (members, core, stepping)) in groups.iter().enumerate() {
        let topo: Vec<&log::TopologyCpu> = log
            .topology
            .iter()
            .filter(|t| members.contains(&t.cpu))
            .collect();
        // The OPP block of this cluster: by its CPU range, or the only block.
        let before: Vec<&log::OppBlock> = log
            .opp_blocks
            .iter()
            .filter(|b| b.round == Round::Before)
            .collect();
        let block = before
            .iter()
            .find(|b| b.cpus.as_deref().is_some_and(|c| cpus_of(c) == *members))
            .or(if before.len() == 1 && groups.len() == 1 {
                before.first()
            } else {
                None
            });
        let mut opps: Vec<u32> = block
            .map(|b| b.points.iter().map(|p| p.opp_mhz).collect())
            .unwrap_or_default();
        opps.sort_unstable();
        opps.dedup();
        let policy = topo.first().and_then(|t| t.policy);
        clusters.push(Cluster {
            id: i,
            cpus: members.clone(),
            core_type: core.clone(),
            policy,
            policies: policy.into_iter().collect(),
            min_mhz: topo
                .iter()
                .filter_map(|t| t.min_mhz)
                .min()
                .or(opps.first().copied()),
            max_mhz: topo
                .iter()
                .filter_map(|t| t.max_mhz)
                .max()
                .or(opps.last().copied()),
            opps_khz: opps.iter().map(|&m| m as u64 * 1000).collect(),
            opps_mhz: opps,
            ..Default::default()
        });
        for &c in members {
            let t = log.topology.iter().find(|t| t.cpu == c);
            cpus.push(Cpu {
                id: c,
                online: true,
                cluster: Some(i),
                policy: t.and_then(|t| t.policy),
                core_type: t.and_then(|t| t.core_type.clone()).or(core.clone()),
                stepping: t.and_then(|t| t.stepping.clone()).or(stepping.clone()),
                package: None,
                core_id: None,
                capacity: None,
            });
        }
    }
    cpus.sort_by_key(|c| c.id);
    let soc = super::soc::soc_of(
        log,
        &cpus
            .iter()
            .map(|c| (c.core_type.clone(), c.stepping.clone()))
            .collect::<Vec<_>>(),
    );
    // x86: the processor is the chip, and each CPU one of its cores — where the log shows
    // one kind of core (a hybrid's P and E cores are not one core type).
    let by_model = truebench_host::soc::SocBasis::Named {
        source: truebench_host::soc::NamedBy::CpuModelName,
    };
    if let Some(g) = soc
        .as_ref()
        .filter(|g| g.basis == Some(by_model) && clusters.len() == 1)
    {
        for c in cpus.iter_mut().filter(|c| c.core_type.is_none()) {
            c.core_type = Some(g.name.clone());
        }
        for cl in clusters.iter_mut().filter(|cl| cl.core_type.is_none()) {
            cl.core_type = Some(g.name.clone());
        }
    }
    super::opp_limits::fill(log, &mut clusters);

    let first_free = log.memory.first();
    let swaps = log.swap_devices.first().cloned().unwrap_or_default();
    let swap = Swap {
        devices: swaps
            .iter()
            .map(|d| SwapDevice {
                filename: d.filename.clone(),
                kind: swap_kind(d),
                size_kb: d.size_kb.unwrap_or(0),
                used_kb: d.used_kb.unwrap_or(0),
                priority: d.priority.unwrap_or(0),
                algorithm: None,
                disk: None,
                storage: None,
            })
            .collect(),
        zswap: None,
        total_kb: first_free.and_then(|m| m.swap_total).map(|b| b / 1024),
        used_kb: first_free.and_then(|m| m.swap_used).map(|b| b / 1024),
    };
    let first_temp = log
        .monitoring
        .iter()
        .flat_map(|t| t.samples.iter())
        .find_map(|s| s.temp_c);
    // A sensor without any reading would need a made-up temperature: leave it out (the
    // timeline header still names it).
    let chosen = log
        .thermal_source
        .as_ref()
        .zip(first_temp)
        .map(|(t, temp_c)| ChosenSensor {
            kind: if t.path.contains("hwmon") {
                "hwmon".into()
            } else {
                "thermal_zone".into()
            },
            name: t.name.clone().unwrap_or_else(|| "unknown".into()),
            path: t
                .path
                .trim_start_matches('/')
                .trim_end_matches('/')
                .to_string(),
            temp_c,
            reason: "sbc-bench's `Thermal source:` line".into(),
        });
    let mut missing: Vec<Missing> = log
        .missing
        .iter()
        .map(|m| Missing {
            what: m.what.clone(),
            reason: format!("sbc-bench log: {}", m.reason),
        })
        .collect();
    if log.topology.is_empty() {
        missing.push(Missing {
            what: "topology".into(),
            reason: "sbc-bench log without the `CPU sysfs topology` table (before v0.7): clusters taken from the OPP checks".into(),
        });
    }
    Inventory {
        schema_version: truebench_host::inventory::SCHEMA_VERSION,
        root: format!("sbc-bench log {name}"),
        device: log.header.device.clone(),
        soc,
        kernel: Kernel {
            release: log.system.kernel.clone(),
            version: None,
        },
        arch: Arch {
            kernel: log.system.kernel_arch.clone(),
            kernel_source: None,
            userland: log
                .system
                .userland
                .clone()
                .or(log.system.architecture.clone()),
        },
        distro: log
            .system
            .os_pretty
            .clone()
            .or(log.system.description.clone()),
        virtualization: Virtualization {
            kind: "unknown".into(),
            name: None,
            evidence: None,
            layers: Vec::new(),
        },
        cpus,
        clusters,
        // The log's topology table gives sbc-bench's core types as they are.
        core_layout: None,
        // sbc-bench's logs do not print the device tree's compatible list.
        compatible: Vec::new(),
        thermal: Thermal {
            chosen,
            zones: Vec::new(),
            hwmon: Vec::new(),
        },
        memory: Memory {
            total_kb: first_free.and_then(|m| m.mem_total).map(|b| b / 1024),
            available_kb: first_free.and_then(|m| m.mem_available).map(|b| b / 1024),
            page_size: None,
            page_size_source: None,
        },
        swap,
        cpuidle: None,
        perf_control: None,
        missing,
    }
}

pub(super) fn swap_kind(d: &log::SwapDevice) -> String {
    if d.filename.contains("zram") {
        "zram".into()
    } else if d.kind == "file" {
        "file".into()
    } else {
        "partition".into()
    }
}
