//! CPUs, their core types, cpufreq policies and clusters.

use super::placement::{self, CoreLayout};
use super::{note, Missing};
use crate::knowledge;
use crate::parse::cpufreq::{freq_list_khz, khz_to_mhz};
use crate::parse::cpuinfo::{self, parse_num, Cpuinfo};
use crate::parse::cpulist;
use crate::Host;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const CPU_DIR: &str = "sys/devices/system/cpu";

/// One present CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cpu {
    /// CPU number.
    pub id: u32,
    /// Online (`sys/devices/system/cpu/online`, else `cpuN/online`, else listed in cpuinfo).
    pub online: bool,
    /// Index into `Inventory::clusters`; None when it belongs to none.
    pub cluster: Option<usize>,
    /// cpufreq policy number (`policyN`); None without cpufreq.
    pub policy: Option<u32>,
    /// `Cortex-A76`, `Intel Core i7-8650U (P-core)`…; None when unknown.
    pub core_type: Option<String>,
    /// ARM `rNpM`; x86 `family F model M stepping S`; RISC-V mimpid; None when unknown.
    pub stepping: Option<String>,
    /// Topology `physical_package_id`; None when unknown.
    pub package: Option<u32>,
    /// Topology `core_id`; None when unknown.
    pub core_id: Option<u32>,
    /// `cpu_capacity` (ARM/RISC-V asymmetric systems: 1024 = biggest core).
    pub capacity: Option<u32>,
}

/// CPUs of one core type sharing a cpufreq policy (without cpufreq: one core type and
/// package).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cluster {
    /// Cluster number, ordered by first CPU.
    pub id: usize,
    /// Member CPU numbers.
    pub cpus: Vec<u32>,
    /// Core type, as in `Cpu::core_type`.
    pub core_type: Option<String>,
    /// The policy the cluster's first CPU belongs to.
    pub policy: Option<u32>,
    /// All policies in this cluster (several when per-core policies were merged).
    pub policies: Vec<u32>,
    /// sysfs directory of the policy, relative to the root.
    pub policy_dir: Option<String>,
    /// `scaling_driver`; None without cpufreq.
    pub driver: Option<String>,
    /// `scaling_governor`; None without cpufreq.
    pub governor: Option<String>,
    /// `scaling_available_governors`.
    pub governors: Vec<String>,
    /// Hardware lower limit (`cpuinfo_min_freq`), MHz.
    pub min_mhz: Option<u32>,
    /// Hardware upper limit (`cpuinfo_max_freq`), MHz.
    pub max_mhz: Option<u32>,
    /// Current software lower limit (`scaling_min_freq`), MHz.
    pub scaling_min_mhz: Option<u32>,
    /// Current software upper limit (`scaling_max_freq`), MHz.
    pub scaling_max_mhz: Option<u32>,
    /// `scaling_available_frequencies` ∪ `scaling_boost_frequencies`, ascending.
    pub opps_mhz: Vec<u32>,
    /// The same in kHz, exactly as the kernel lists them (for writing back).
    pub opps_khz: Vec<u64>,
    /// The boost-only subset in kHz.
    pub boost_khz: Vec<u64>,
    /// Whether `stats/time_in_state` exists (throttling statistics possible).
    pub time_in_state: bool,
    /// Which file reports the current clock: `cpuinfo_cur_freq` (hardware) or
    /// `scaling_cur_freq` (what the governor asked for).
    pub cur_freq_file: Option<String>,
    /// OPPs never reached and the limit that holds each down (regulator, opp-supported-hw,
    /// scaling_max_freq and who lowered it), from `opp::judge`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opp_limits: Vec<crate::opp::OppLimit>,
}

impl Cluster {
    /// `cpu4-cpu7` as sbc-bench names a cluster (or `cpu4,cpu6` for a gap).
    pub fn cpu_range(&self) -> String {
        cpulist::format(&self.cpus)
            .split(',')
            .map(|p| match p.split_once('-') {
                Some((a, b)) => format!("cpu{a}-cpu{b}"),
                None => format!("cpu{p}"),
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// What the CPU part of the probe found, including what other parts reuse.
pub(super) struct CpuPart {
    pub cpus: Vec<Cpu>,
    pub clusters: Vec<Cluster>,
    pub cpuinfo: Option<Cpuinfo>,
    /// The one core type an old kernel's cpuinfo printed once, outside the processor blocks:
    /// that of whichever CPU read the file, so of no CPU in particular.
    pub one_part: Option<String>,
}

/// A cpufreq policy directory and what it says.
struct Policy {
    id: u32,
    dir: String,
    related: Vec<u32>,
}

fn policies(host: &Host) -> Vec<Policy> {
    let mut out = Vec::new();
    let base = format!("{CPU_DIR}/cpufreq");
    for name in host.list(&base) {
        let Some(id) = name.strip_prefix("policy").and_then(|n| n.parse().ok()) else {
            continue;
        };
        let dir = format!("{base}/{name}");
        let related = host
            .read(format!("{dir}/related_cpus"))
            .or_else(|_| host.read(format!("{dir}/affected_cpus")))
            .map(|t| cpulist::parse(&t))
            .unwrap_or_default();
        out.push(Policy {
            id,
            dir,
            related: if related.is_empty() {
                vec![id]
            } else {
                related
            },
        });
    }
    if out.is_empty() {
        // Kernels before 4.x have no policyN directories: cpuN/cpufreq is the policy (or a
        // link to the policy owner's). The policy is named after its first related CPU.
        for name in host.list(CPU_DIR) {
            let Some(n) = cpu_number(&name) else { continue };
            let dir = format!("{CPU_DIR}/{name}/cpufreq");
            if !host.is_dir(&dir) {
                continue;
            }
            let related = host
                .read(format!("{dir}/related_cpus"))
                .or_else(|_| host.read(format!("{dir}/affected_cpus")))
                .map(|t| cpulist::parse(&t))
                .unwrap_or_default();
            let first = related.first().copied().unwrap_or(n);
            if first == n || !out.iter().any(|p: &Policy| p.id == first) {
                out.push(Policy {
                    id: first,
                    dir: format!("{CPU_DIR}/cpu{first}/cpufreq"),
                    related: if related.is_empty() { vec![n] } else { related },
                });
            }
        }
    }
    out
}

fn cpu_number(name: &str) -> Option<u32> {
    name.strip_prefix("cpu")?.parse().ok()
}

/// Core type and stepping of one CPU.
fn identify(host: &Host, ci: Option<&Cpuinfo>, cpu: u32) -> (Option<String>, Option<String>) {
    let field = |k: &str| ci.and_then(|c| c.field(cpu, k));
    // ARM: implementer/part from cpuinfo, else from the MIDR sysfs register (which also covers
    // CPUs that cpuinfo does not list).
    let arm = match (field("CPU implementer"), field("CPU part")) {
        (Some(i), Some(p)) => parse_num(i).zip(parse_num(p)).map(|(i, p)| {
            let v = field("CPU variant").and_then(parse_num);
            let r = field("CPU revision").and_then(parse_num);
            (i, p, v, r)
        }),
        _ => host
            .read_trimmed(format!("{CPU_DIR}/cpu{cpu}/regs/identification/midr_el1"))
            .and_then(|m| parse_num(&m))
            .map(|m| {
                (
                    (m >> 24) & 0xff,
                    (m >> 4) & 0xfff,
                    Some((m >> 20) & 0xf),
                    Some(m & 0xf),
                )
            }),
    };
    if let Some((imp, part, var, rev)) = arm {
        let name = match knowledge::arm_core(imp, part) {
            Some(n) => n.to_string(),
            None => match knowledge::arm_implementer(imp) {
                Some(v) => format!("{v} part {part:#05x}"),
                None => format!("implementer {imp:#04x} part {part:#05x}"),
            },
        };
        let stepping = match (var, rev) {
            (Some(v), Some(r)) => Some(format!("r{v}p{r}")),
            _ => None,
        };
        return (Some(name), stepping);
    }

    // RISC-V: `uarch` names the core; the ids are shared by different T-Head cores.
    // (LoongArch also has an `ISA` line; RISC-V isa strings start with rv32/rv64.)
    if let Some(isa) = field("isa").filter(|i| i.starts_with("rv")) {
        let by_uarch = field("uarch").map(|u| {
            knowledge::riscv_by_uarch(u)
                .map(str::to_string)
                .unwrap_or_else(|| u.to_string())
        });
        let by_ids = || {
            let v = field("mvendorid").and_then(parse_num)?;
            let a = field("marchid").and_then(parse_num)?;
            let i = field("mimpid").and_then(parse_num);
            knowledge::riscv_by_ids(v, a, i).map(str::to_string)
        };
        let name = by_uarch
            .or_else(by_ids)
            .unwrap_or_else(|| format!("RISC-V {}", isa.split('_').next().unwrap_or(isa)));
        return (Some(name), field("mimpid").map(str::to_string));
    }

    // x86: the marketing name, cleaned; hybrid P/E cores told apart by the PMU devices.
    if let Some(model) = field("model name").filter(|_| field("vendor_id").is_some()) {
        let mut name = clean_x86_model(model);
        if let Some(kind) = hybrid_kind(host, cpu) {
            name = format!("{name} ({kind})");
        }
        let stepping = match (field("cpu family"), field("model"), field("stepping")) {
            (Some(f), Some(m), Some(s)) => Some(format!("family {f} model {m} stepping {s}")),
            _ => None,
        };
        return (Some(name), stepping);
    }

    // s390: `processor N: version = FF,  identification = 29AA14,  machine = 2817`.
    if let Some(c) = ci.filter(|c| c.global("vendor_id").is_some_and(|v| v.contains("S390"))) {
        let line = c
            .global
            .iter()
            .find(|(k, _)| k == &format!("processor {cpu}"))
            .or_else(|| c.global.iter().find(|(k, _)| k.starts_with("processor ")));
        let machine = line.and_then(|(_, v)| {
            v.split(',')
                .find_map(|kv| kv.trim().strip_prefix("machine = ").map(str::trim))
        });
        if let Some(m) = machine {
            let name = match knowledge::s390_machine(m) {
                Some(n) => format!("IBM {n} ({m})"),
                None => format!("IBM machine type {m}"),
            };
            return (Some(name), None);
        }
    }

    // LoongArch, POWER, s390, SPARC and anything else that names its CPU somewhere.
    for k in ["Model Name", "cpu model", "cpu", "model name", "vendor_id"] {
        if let Some(v) = field(k) {
            let v = v.split(',').next().unwrap_or(v).trim();
            let v = v.split_whitespace().collect::<Vec<_>>().join(" ");
            if !v.is_empty() {
                let stepping = field("CPU Revision")
                    .or_else(|| field("revision"))
                    .map(str::to_string);
                return (Some(v.to_string()), stepping);
            }
        }
    }
    (None, None)
}

/// `Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz` → `Intel Core i7-8650U`.
pub fn clean_x86_model(model: &str) -> String {
    let mut s = model
        .replace("(R)", "")
        .replace("(r)", "")
        .replace("(TM)", "")
        .replace("(tm)", "");
    if let Some(at) = s.find(" @ ") {
        s.truncate(at);
    }
    let words: Vec<&str> = s
        .split_whitespace()
        .filter(|w| *w != "CPU" && *w != "Processor")
        .collect();
    let s = words.join(" ");
    // AMD appends "N-Core Processor"; keep the model only.
    match s.find("-Core") {
        Some(i) => s[..i]
            .rsplit_once(' ')
            .map(|(a, _)| a.to_string())
            .unwrap_or(s),
        None => s,
    }
}

/// Intel hybrid parts list their P-cores in /sys/devices/cpu_core/cpus and E-cores in
/// /sys/devices/cpu_atom/cpus.
fn hybrid_kind(host: &Host, cpu: u32) -> Option<&'static str> {
    let has = |dev: &str| {
        host.read(format!("sys/devices/{dev}/cpus"))
            .map(|t| cpulist::parse(&t).contains(&cpu))
            .unwrap_or(false)
    };
    if has("cpu_core") {
        Some("P-core")
    } else if has("cpu_atom") {
        Some("E-core")
    } else {
        None
    }
}

pub(super) fn probe(host: &Host, missing: &mut Vec<Missing>) -> CpuPart {
    let cpuinfo = match host.cpuinfo() {
        Ok(t) => Some(cpuinfo::parse(&t)),
        Err(e) => {
            note(missing, "cpuinfo", e.to_string());
            None
        }
    };
    let ci = cpuinfo.as_ref();

    // Which CPUs exist: present ∪ cpuN directories ∪ what cpuinfo lists.
    let mut ids: Vec<u32> = host
        .read(format!("{CPU_DIR}/present"))
        .map(|t| cpulist::parse(&t))
        .unwrap_or_default();
    if ids.is_empty() {
        ids = host
            .list(CPU_DIR)
            .iter()
            .filter_map(|n| cpu_number(n))
            .collect();
    }
    if let Some(c) = ci {
        ids.extend(c.indices());
    }
    if ids.is_empty() {
        // SPARC and s390 list no processor blocks; count what they say.
        if let Some(n) = ci
            .and_then(|c| {
                c.global("ncpus active")
                    .or_else(|| c.global("# processors"))
            })
            .and_then(|n| n.parse::<u32>().ok())
        {
            ids.extend(0..n.min(1 << 16));
        }
    }
    if ids.is_empty() && ci.is_some_and(|c| !c.global.is_empty()) {
        // A uniprocessor ARM kernel prints no `processor : N` line at all.
        ids.push(0);
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        note(
            missing,
            "cpus",
            "no CPU listed in sys/devices/system/cpu or cpuinfo",
        );
    }

    let online_list = host
        .read(format!("{CPU_DIR}/online"))
        .ok()
        .map(|t| cpulist::parse(&t));
    let listed = ci.map(|c| c.indices()).unwrap_or_default();

    let pols = policies(host);
    if pols.is_empty() && !ids.is_empty() {
        note(
            missing,
            "cpufreq",
            format!("no {CPU_DIR}/cpufreq policies: the kernel exposes no cpufreq driver"),
        );
    }
    let policy_of = |cpu: u32| pols.iter().find(|p| p.related.contains(&cpu));

    let mut cpus: Vec<Cpu> = ids
        .iter()
        .map(|&id| {
            let online = match &online_list {
                Some(l) => l.contains(&id),
                None => match host.read_trimmed(format!("{CPU_DIR}/cpu{id}/online")) {
                    Some(v) => v == "1",
                    None => listed.is_empty() || listed.contains(&id),
                },
            };
            let (core_type, stepping) = identify(host, ci, id);
            let topo = |f: &str| host.read_u64(format!("{CPU_DIR}/cpu{id}/topology/{f}"));
            Cpu {
                id,
                online,
                cluster: None,
                policy: policy_of(id).map(|p| p.id),
                core_type,
                stepping,
                package: topo("physical_package_id").map(|v| v as u32),
                core_id: topo("core_id").map(|v| v as u32),
                capacity: host
                    .read_u64(format!("{CPU_DIR}/cpu{id}/cpu_capacity"))
                    .map(|v| v as u32),
            }
        })
        .collect();

    let one_part = ci.and_then(|c| old_format_parts(host, c, &mut cpus, &pols));
    if let Some(t) = &one_part {
        if cpus.iter().all(|c| c.core_type.is_none()) && cpus.len() > 1 {
            note(
                missing,
                "core types",
                format!(
                    "cpuinfo prints one CPU part ({t}), that of whichever CPU read the file, and the CPUs form several clock domains: which CPUs are {t} is unknown"
                ),
            );
        }
    }

    // An offline CPU is missing from cpuinfo; it shares its policy siblings' core type when
    // they all agree.
    for i in 0..cpus.len() {
        if cpus[i].core_type.is_some() {
            continue;
        }
        let Some(p) = cpus[i].policy else { continue };
        let mut types = cpus
            .iter()
            .filter(|c| c.policy == Some(p) && c.core_type.is_some())
            .map(|c| (c.core_type.clone(), c.stepping.clone()));
        if let Some(first) = types.next() {
            if types.all(|t| t.0 == first.0) {
                cpus[i].core_type = first.0;
                cpus[i].stepping = first.1;
            }
        }
    }

    let x86 = ci.is_some_and(|c| {
        c.field(c.indices().first().copied().unwrap_or(0), "vendor_id")
            .is_some()
            && c.field(c.indices().first().copied().unwrap_or(0), "flags")
                .is_some()
    });
    let clusters = build_clusters(host, &mut cpus, &pols, x86);
    CpuPart {
        cpus,
        clusters,
        cpuinfo,
        one_part,
    }
}

/// Old ARM kernels print `CPU part` once, outside the processor blocks: the part of
/// whichever CPU read the file (`read_cpuid_id()` in their `c_show`) — or, on some
/// big.LITTLE vendor kernels, all parts in one line (`0xc07 & 0xc0f`). One part holds for
/// every CPU only where they form one clock domain (or no cpufreq tells otherwise); with
/// several domains it is given to none, since the reader may have run on any of them.
/// Several parts are given to the domains in CPU order when their numbers agree, and
/// otherwise no CPU gets one (a mixed cluster never gets one type). Returns the one part's
/// name when the line holds one part and the CPUs' types come from it.
fn old_format_parts(
    host: &Host,
    ci: &Cpuinfo,
    cpus: &mut [Cpu],
    pols: &[Policy],
) -> Option<String> {
    if ci.processors.iter().any(|p| p.get("CPU part").is_some()) {
        return None;
    }
    let line = ci.global("CPU part")?;
    let parts: Vec<u64> = line
        .split('&')
        .filter_map(|p| parse_num(p.trim()))
        .collect();
    let imp = ci.global("CPU implementer").and_then(parse_num)?;
    let name = |part: u64| {
        knowledge::arm_core(imp, part)
            .map(str::to_string)
            .unwrap_or_else(|| format!("implementer {imp:#04x} part {part:#05x}"))
    };
    // Which CPUs got their type from this line (not from MIDR in sysfs).
    let from_line = |c: &Cpu| {
        host.read_trimmed(format!(
            "{CPU_DIR}/cpu{}/regs/identification/midr_el1",
            c.id
        ))
        .is_none()
    };
    let one = (parts.len() == 1 && cpus.iter().any(from_line)).then(|| name(parts[0]));
    let max_khz = |p: &Policy| host.read_u64(format!("{}/cpuinfo_max_freq", p.dir));
    let per_core = pols.iter().all(|p| p.related.len() == 1);
    // A clock domain per CPU: its policy's related CPUs, or its maximum clock.
    let domain = |cpu: u32| -> Option<String> {
        let p = pols.iter().find(|p| p.related.contains(&cpu))?;
        Some(if per_core {
            format!("max {:?}", max_khz(p))
        } else {
            format!("{:?}", p.related)
        })
    };
    let mut domains: Vec<String> = Vec::new();
    for c in cpus.iter() {
        if let Some(d) = domain(c.id) {
            if !domains.contains(&d) {
                domains.push(d);
            }
        }
    }
    if domains.len() <= 1 && parts.len() <= 1 {
        return one; // one domain (or no cpufreq) and one part: it holds for every CPU
    }
    for c in cpus.iter_mut().filter(|c| from_line(c)) {
        let d = domain(c.id);
        let part = if parts.len() == domains.len() && parts.len() > 1 {
            d.as_ref()
                .and_then(|d| domains.iter().position(|x| x == d))
                .map(|i| parts[i])
        } else {
            None
        };
        // Variant and revision printed with the line belong to the CPU that read it.
        c.stepping = None;
        c.core_type = part.map(name);
    }
    one
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    /// A policy shared by several CPUs: a clock domain.
    Policy(u32),
    /// Per-core policies (x86, CPPC servers) merged by package.
    PerCore(Option<u32>),
    /// No cpufreq: package/cluster topology.
    Topology(Option<u32>, Option<u32>),
}

/// For each CPU (by index into `ids`), the CPU whose topology describes it: itself when it has a
/// topology directory, else (an offline CPU) the first sibling whose cluster, core or package
/// list names it — the narrowest list first: on arm64 core_siblings_list is the whole package.
/// Each list is read at most once, and only from CPUs that have the directory: with n CPUs and
/// no topology at all (a capture without sysfs) a search per CPU over every sibling's lists
/// was 3·n² failed reads — 110 000 for 192 CPUs — where there is nothing to read.
fn topology_sources(host: &Host, ids: &[u32]) -> Vec<usize> {
    const LISTS: [&str; 3] = [
        "cluster_cpus_list",
        "core_siblings_list",
        "package_cpus_list",
    ];
    let has_topo: Vec<bool> = ids
        .iter()
        .map(|id| host.exists(format!("{CPU_DIR}/cpu{id}/topology")))
        .collect();
    // lists[k][j]: LISTS[k] of CPU j, once read (None inside: unreadable).
    let mut lists: [Vec<Option<Option<Vec<u32>>>>; 3] =
        std::array::from_fn(|_| vec![None; ids.len()]);
    let mut src = Vec::with_capacity(ids.len());
    for (i, &id) in ids.iter().enumerate() {
        let mut found = i;
        if !has_topo[i] {
            'lists: for (k, f) in LISTS.iter().enumerate() {
                for j in (0..ids.len()).filter(|&j| j != i && has_topo[j]) {
                    let list = lists[k][j].get_or_insert_with(|| {
                        host.read(format!("{CPU_DIR}/cpu{}/topology/{f}", ids[j]))
                            .ok()
                            .map(|t| cpulist::parse(&t))
                    });
                    if list.as_ref().is_some_and(|l| l.contains(&id)) {
                        found = j;
                        break 'lists;
                    }
                }
            }
        }
        src.push(found);
    }
    src
}

fn build_clusters(host: &Host, cpus: &mut [Cpu], pols: &[Policy], x86: bool) -> Vec<Cluster> {
    // Group key per CPU, in CPU order; clusters are numbered by their first CPU.
    let mut order: Vec<(Group, Option<String>)> = Vec::new();
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let ids: Vec<u32> = cpus.iter().map(|c| c.id).collect();
    let topo_src = topology_sources(host, &ids);
    // Its core type too, when only its cluster siblings could tell (cpuinfo lists online
    // CPUs only, and no shared policy gave it one).
    for i in 0..cpus.len() {
        let j = topo_src[i];
        if j != i && cpus[i].core_type.is_none() {
            cpus[i].core_type = cpus[j].core_type.clone();
            cpus[i].stepping = cpus[j].stepping.clone();
        }
    }
    for (i, c) in cpus.iter().enumerate() {
        let src = &cpus[topo_src[i]];
        let package = c.package.or(src.package);
        let group = match c.policy.and_then(|p| pols.iter().find(|x| x.id == p)) {
            Some(p) if p.related.len() > 1 => Group::Policy(p.id),
            Some(_) => Group::PerCore(package),
            // On x86 cluster_id is the L2 group (one per core), not a CPU cluster.
            None => Group::Topology(
                package,
                (!x86)
                    .then(|| host.read_u64(format!("{CPU_DIR}/cpu{}/topology/cluster_id", src.id)))
                    .flatten()
                    .map(|v| v as u32),
            ),
        };
        let key = (group, c.core_type.clone());
        let idx = match order.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                order.push(key);
                order.len() - 1
            }
        };
        members.entry(idx).or_default().push(i);
    }

    let mut clusters = Vec::new();
    for (idx, m) in members {
        let ids: Vec<u32> = m.iter().map(|&i| cpus[i].id).collect();
        let mut policies: Vec<u32> = m.iter().filter_map(|&i| cpus[i].policy).collect();
        policies.sort_unstable();
        policies.dedup();
        for &i in &m {
            cpus[i].cluster = Some(idx);
        }
        // The first member with a policy (an offline first CPU may have none listed).
        let first_policy = m.iter().find_map(|&i| cpus[i].policy);
        let pol = first_policy.and_then(|p| pols.iter().find(|x| x.id == p));
        let mut cl = Cluster {
            id: idx,
            cpus: ids,
            core_type: order[idx].1.clone(),
            policy: first_policy,
            policies: policies.clone(),
            policy_dir: pol.map(|p| p.dir.clone()),
            ..Default::default()
        };
        if let Some(p) = pol {
            fill_policy(host, &mut cl, p, pols, &policies);
        }
        clusters.push(cl);
    }
    clusters
}

fn fill_policy(host: &Host, cl: &mut Cluster, p: &Policy, pols: &[Policy], ids: &[u32]) {
    let d = &p.dir;
    let khz = |f: &str| host.read_u64(format!("{d}/{f}"));
    cl.driver = host.read_trimmed(format!("{d}/scaling_driver"));
    cl.governor = host.read_trimmed(format!("{d}/scaling_governor"));
    cl.governors = host
        .read_trimmed(format!("{d}/scaling_available_governors"))
        .map(|g| g.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    // Merged per-core policies may differ in their limits (favoured cores): report the range.
    let all: Vec<&Policy> = pols.iter().filter(|x| ids.contains(&x.id)).collect();
    let over = |f: &str| -> Vec<u64> {
        all.iter()
            .filter_map(|x| host.read_u64(format!("{}/{f}", x.dir)))
            .collect()
    };
    cl.min_mhz = over("cpuinfo_min_freq").into_iter().min().map(khz_to_mhz);
    cl.max_mhz = over("cpuinfo_max_freq").into_iter().max().map(khz_to_mhz);
    cl.scaling_min_mhz = khz("scaling_min_freq").map(khz_to_mhz);
    cl.scaling_max_mhz = khz("scaling_max_freq").map(khz_to_mhz);
    let avail = host
        .read(format!("{d}/scaling_available_frequencies"))
        .map(|t| freq_list_khz(&t))
        .unwrap_or_default();
    cl.boost_khz = host
        .read(format!("{d}/scaling_boost_frequencies"))
        .map(|t| freq_list_khz(&t))
        .unwrap_or_default();
    let mut opps = avail;
    opps.extend(&cl.boost_khz);
    opps.sort_unstable();
    opps.dedup();
    cl.opps_mhz = opps.iter().map(|&k| khz_to_mhz(k)).collect();
    cl.opps_mhz.dedup();
    cl.opps_khz = opps;
    cl.time_in_state = host.exists(format!("{d}/stats/time_in_state"));
    cl.cur_freq_file = ["cpuinfo_cur_freq", "scaling_cur_freq"]
        .into_iter()
        .find(|f| host.exists(format!("{d}/{f}")))
        .map(|f| format!("{d}/{f}"));
}

/// Core types cpuinfo could not tell, from the identified SoC's layout, placed on CPUs only
/// by the machine's evidence (see `placement`); a cluster whose CPUs all got one type takes
/// it too. Returns the layout and whether (or why not) it was placed; None when the table
/// knows no layout for the chip or cpuinfo told every CPU's type anyway.
pub(super) fn fill_core_types_from_soc(
    host: &Host,
    part: &mut CpuPart,
    soc: &crate::soc::SocGuess,
) -> Option<CoreLayout> {
    if !soc.candidates.is_empty() {
        return None;
    }
    let runs = crate::soc::layout_of(&soc.name)?;
    let mut layout = CoreLayout {
        soc: soc.name.clone(),
        runs: runs.clone(),
        placed: false,
        basis: String::new(),
    };
    if let Some(printed) = part.one_part.clone() {
        if !runs.iter().any(|(_, t)| *t == printed) {
            layout.basis = format!(
                "which CPUs unknown: cpuinfo prints a {printed}, which the table's layout does not hold"
            );
            return Some(layout);
        }
        // The one printed part was extended to every CPU for want of a second clock domain;
        // on a chip of several core types that is an invention: the reader was one CPU.
        if runs.iter().any(|(_, t)| *t != printed) {
            for c in part.cpus.iter_mut() {
                let midr = format!("{CPU_DIR}/cpu{}/regs/identification/midr_el1", c.id);
                if c.core_type.as_deref() == Some(&printed) && host.read_trimmed(midr).is_none() {
                    c.core_type = None;
                    c.stepping = None;
                }
            }
            refresh_cluster_types(part);
        }
    }
    if part.cpus.iter().all(|c| c.core_type.is_some()) {
        return None;
    }
    let groups: Vec<placement::Group> = part
        .clusters
        .iter()
        .map(|cl| placement::Group {
            size: cl.cpus.len(),
            known: cl
                .core_type
                .clone()
                .filter(|t| !t.ends_with(placement::FROM_TABLE)),
            max_khz: cl.max_mhz.map(|m| u64::from(m) * 1000),
            capacity: cl
                .cpus
                .iter()
                .filter_map(|id| part.cpus.iter().find(|c| c.id == *id)?.capacity)
                .max(),
        })
        .collect();
    match placement::place(&runs, &groups) {
        Ok(types) => {
            for (cl, t) in part.clusters.iter().zip(&types) {
                for id in &cl.cpus {
                    if let Some(c) = part.cpus.iter_mut().find(|c| c.id == *id) {
                        if c.core_type.is_none() {
                            c.core_type = Some(format!("{t}{}", placement::FROM_TABLE));
                        }
                    }
                }
            }
            refresh_cluster_types(part);
            layout.placed = true;
            layout.basis = placed_by(part);
        }
        Err(why) => layout.basis = format!("which CPUs unknown: {why}"),
    }
    Some(layout)
}

/// A cluster takes the type all its CPUs share, and none when they differ or one is unknown.
fn refresh_cluster_types(part: &mut CpuPart) {
    for cl in part.clusters.iter_mut() {
        let mut of_cpus = cl.cpus.iter().map(|id| {
            part.cpus
                .iter()
                .find(|c| c.id == *id)
                .and_then(|c| c.core_type.clone())
        });
        let first = of_cpus.next().flatten();
        cl.core_type = if first.is_some() && of_cpus.all(|t| t == first) {
            first
        } else {
            None
        };
    }
}

/// The evidence a placement used, in words.
fn placed_by(part: &CpuPart) -> String {
    let mut by = vec!["the clusters' sizes"];
    if part.clusters.iter().any(|c| c.policy.is_some()) {
        by.push("cpufreq policies' related CPUs");
    }
    if part.cpus.iter().any(|c| c.capacity.is_some()) {
        by.push("cpu_capacity");
    }
    if part.clusters.iter().filter(|c| c.max_mhz.is_some()).count() > 1 {
        by.push("their maximum clocks");
    }
    if part.clusters.iter().any(|c| {
        c.core_type
            .as_ref()
            .is_some_and(|t| !t.ends_with(placement::FROM_TABLE))
    }) {
        by.push("the parts cpuinfo printed");
    }
    format!("placed by {}", by.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_names() {
        assert_eq!(
            clean_x86_model("Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz"),
            "Intel Core i7-8650U"
        );
        assert_eq!(
            clean_x86_model("AMD EPYC 7451 24-Core Processor"),
            "AMD EPYC 7451"
        );
        assert_eq!(
            clean_x86_model("Intel(R) Core(TM) i5 CPU       M 520  @ 2.40GHz"),
            "Intel Core i5 M 520"
        );
    }

    /// Offline CPUs (no topology folder) take the narrowest sibling list naming them; a CPU
    /// no list names, and every CPU of a root without topology, stands for itself.
    #[test]
    fn topology_sources_take_the_narrowest_list_naming_an_offline_cpu() {
        let d = tempfile::tempdir().unwrap();
        let put = |rel: &str, text: &str| super::super::storage::tests::put(d.path(), rel, text);
        for n in [0, 1, 3, 4, 6, 7] {
            let t = format!("{CPU_DIR}/cpu{n}/topology");
            let cluster = if n < 4 { "0-3\n" } else { "4-7\n" };
            // cpu1's cluster list is unreadable: cpu2 is still found through cpu0's.
            if n != 1 {
                put(&format!("{t}/cluster_cpus_list"), cluster);
            }
            put(&format!("{t}/core_siblings_list"), "0-7\n");
        }
        let host = Host::new(d.path());
        let ids = [0, 1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(
            topology_sources(&host, &ids),
            [0, 1, 0, 3, 4, 4, 6, 7, 8],
            "cpu2 and cpu5 from their clusters, cpu8 named by no list"
        );
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(
            topology_sources(&Host::new(empty.path()), &ids),
            [0, 1, 2, 3, 4, 5, 6, 7, 8]
        );
    }

    #[test]
    fn cluster_range_names() {
        let mut c = Cluster {
            cpus: vec![4, 5, 6, 7],
            ..Default::default()
        };
        assert_eq!(c.cpu_range(), "cpu4-cpu7");
        c.cpus = vec![0, 2];
        assert_eq!(c.cpu_range(), "cpu0,cpu2");
    }
}
