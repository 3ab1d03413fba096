//! Knowledge compiled in as data (knowledge lives in data files, not in match arms): CPU core names, thermal sensor
//! preferences, virtualization signatures. The tables live in `crates/host/data/*.tsv`;
//! this module only loads and queries them. Malformed lines are skipped at run time and
//! reported by [`table_errors`], which a unit test asserts is empty.

use std::collections::HashMap;
use std::sync::OnceLock;

const ARM_IMPLEMENTERS: &str = include_str!("../data/arm_implementers.tsv");
const ARM_CORES: &str = include_str!("../data/arm_cores.tsv");
const RISCV_CORES: &str = include_str!("../data/riscv_cores.tsv");
const RISCV_UARCH: &str = include_str!("../data/riscv_uarch.tsv");
const THERMAL_SOURCES: &str = include_str!("../data/thermal_sources.tsv");
const VIRTUALIZATION: &str = include_str!("../data/virtualization.tsv");
const S390_MACHINES: &str = include_str!("../data/s390_machines.tsv");

/// Rows of a TSV table: `#` comments and blank lines skipped; each row split on tabs (empty
/// cells between tabs are kept so columns stay aligned). Returns rows with their line number.
fn rows(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines().enumerate().filter_map(|(i, l)| {
        let l = l.trim_end_matches('\r');
        if l.trim().is_empty() || l.trim_start().starts_with('#') {
            None
        } else {
            Some((i + 1, l.split('\t').map(str::trim).collect()))
        }
    })
}

fn hex(s: &str) -> Option<u64> {
    crate::parse::cpuinfo::parse_num(s)
}

struct Tables {
    arm_implementers: HashMap<u64, String>,
    arm_cores: HashMap<(u64, u64), String>,
    riscv_ids: Vec<(u64, u64, Option<u64>, String)>,
    riscv_uarch: HashMap<String, String>,
    thermal: Vec<ThermalRule>,
    virt: Vec<VirtRule>,
    s390: HashMap<String, String>,
    errors: Vec<String>,
}

/// One row of `thermal_sources.tsv`.
#[derive(Debug, Clone)]
pub struct ThermalRule {
    pub kind: String,
    pub pattern: String,
    pub score: u32,
    pub why: String,
}

/// One row of `virtualization.tsv`.
#[derive(Debug, Clone)]
pub struct VirtRule {
    pub source: String,
    pub pattern: String,
    pub kind: String,
    pub name: String,
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(load)
}

fn load() -> Tables {
    let mut errors = Vec::new();
    let mut bad = |file: &str, line: usize, what: &str| {
        errors.push(format!("{file}:{line}: {what}"));
    };

    let mut arm_implementers = HashMap::new();
    for (n, r) in rows(ARM_IMPLEMENTERS) {
        match (r.first().and_then(|s| hex(s)), r.get(1)) {
            (Some(id), Some(name)) if !name.is_empty() => {
                arm_implementers.insert(id, name.to_string());
            }
            _ => bad("arm_implementers.tsv", n, "expected `0xNN<TAB>name`"),
        }
    }

    let mut arm_cores = HashMap::new();
    for (n, r) in rows(ARM_CORES) {
        match (
            r.first().and_then(|s| hex(s)),
            r.get(1).and_then(|s| hex(s)),
            r.get(2),
        ) {
            (Some(i), Some(p), Some(name)) if !name.is_empty() => {
                if arm_cores.insert((i, p), name.to_string()).is_some() {
                    bad("arm_cores.tsv", n, "duplicate implementer/part");
                }
            }
            _ => bad("arm_cores.tsv", n, "expected `0xNN<TAB>0xNNN<TAB>name`"),
        }
    }

    let mut riscv_ids = Vec::new();
    for (n, r) in rows(RISCV_CORES) {
        let mimpid = r.get(2).map(|s| {
            if *s == "*" {
                Ok(None)
            } else {
                hex(s).map(Some).ok_or(())
            }
        });
        match (
            r.first().and_then(|s| hex(s)),
            r.get(1).and_then(|s| hex(s)),
            mimpid,
            r.get(3),
        ) {
            (Some(v), Some(a), Some(Ok(i)), Some(name)) if !name.is_empty() => {
                riscv_ids.push((v, a, i, name.to_string()))
            }
            _ => bad(
                "riscv_cores.tsv",
                n,
                "expected `mvendorid<TAB>marchid<TAB>mimpid|*<TAB>name`",
            ),
        }
    }

    let mut riscv_uarch = HashMap::new();
    for (n, r) in rows(RISCV_UARCH) {
        match (r.first(), r.get(1)) {
            (Some(u), Some(name)) if !u.is_empty() && !name.is_empty() => {
                riscv_uarch.insert(u.to_ascii_lowercase(), name.to_string());
            }
            _ => bad("riscv_uarch.tsv", n, "expected `uarch<TAB>name`"),
        }
    }

    let mut thermal = Vec::new();
    for (n, r) in rows(THERMAL_SOURCES) {
        match (
            r.first().copied(),
            r.get(1),
            r.get(2).and_then(|s| s.parse().ok()),
            r.get(3),
        ) {
            (Some(k @ ("zone" | "hwmon")), Some(p), Some(score), Some(why)) => {
                thermal.push(ThermalRule {
                    kind: k.to_string(),
                    pattern: p.to_ascii_lowercase(),
                    score,
                    why: why.to_string(),
                })
            }
            _ => bad(
                "thermal_sources.tsv",
                n,
                "expected `zone|hwmon<TAB>pattern<TAB>score<TAB>why`",
            ),
        }
    }

    const VIRT_SOURCES: &[&str] = &[
        "dmi",
        "hypervisor_type",
        "cpuinfo_flag",
        "cpuinfo",
        "osrelease",
        "dt_hypervisor",
        "dt_compatible",
        "sysinfo",
        "exists",
        "container_file",
        "tracer",
    ];
    let mut virt = Vec::new();
    for (n, r) in rows(VIRTUALIZATION) {
        match (r.first(), r.get(1), r.get(2).copied(), r.get(3)) {
            (Some(s), Some(p), Some(k @ ("vm" | "container" | "wsl" | "none")), Some(name))
                if VIRT_SOURCES.contains(s) =>
            {
                virt.push(VirtRule {
                    source: s.to_string(),
                    pattern: p.to_ascii_lowercase(),
                    kind: k.to_string(),
                    name: name.to_string(),
                })
            }
            _ => bad(
                "virtualization.tsv",
                n,
                "expected `source<TAB>pattern<TAB>vm|container|wsl|none<TAB>name` with a known source",
            ),
        }
    }

    let mut s390 = HashMap::new();
    for (n, r) in rows(S390_MACHINES) {
        match (r.first(), r.get(1)) {
            (Some(m), Some(name)) if m.len() == 4 && !name.is_empty() => {
                s390.insert(m.to_string(), name.to_string());
            }
            _ => bad("s390_machines.tsv", n, "expected `NNNN<TAB>name`"),
        }
    }

    Tables {
        s390,
        arm_implementers,
        arm_cores,
        riscv_ids,
        riscv_uarch,
        thermal,
        virt,
        errors,
    }
}

/// Problems found in the compiled-in tables (empty when all is well).
pub fn table_errors() -> &'static [String] {
    &tables().errors
}

pub fn arm_implementer(id: u64) -> Option<&'static str> {
    tables().arm_implementers.get(&id).map(String::as_str)
}

pub fn arm_core(implementer: u64, part: u64) -> Option<&'static str> {
    tables()
        .arm_cores
        .get(&(implementer, part))
        .map(String::as_str)
}

pub fn arm_core_count() -> usize {
    tables().arm_cores.len()
}

/// RISC-V core from the cpuinfo `uarch` field (`sifive,u74-mc`).
pub fn riscv_by_uarch(uarch: &str) -> Option<&'static str> {
    tables()
        .riscv_uarch
        .get(&uarch.trim().to_ascii_lowercase())
        .map(String::as_str)
}

/// RISC-V core from the machine ids. An exact mimpid row wins over a `*` row.
pub fn riscv_by_ids(mvendorid: u64, marchid: u64, mimpid: Option<u64>) -> Option<&'static str> {
    let t = tables();
    let exact = t
        .riscv_ids
        .iter()
        .find(|(v, a, i, _)| *v == mvendorid && *a == marchid && i.is_some() && *i == mimpid);
    let any = || {
        t.riscv_ids
            .iter()
            .find(|(v, a, i, _)| *v == mvendorid && *a == marchid && i.is_none())
    };
    exact.or_else(any).map(|r| r.3.as_str())
}

/// IBM Z model from the machine type (`2964` → `z13`).
pub fn s390_machine(machine: &str) -> Option<&'static str> {
    tables().s390.get(machine.trim()).map(String::as_str)
}

pub fn thermal_rules() -> &'static [ThermalRule] {
    &tables().thermal
}

pub fn virt_rules() -> &'static [VirtRule] {
    &tables().virt
}

/// Case-insensitive glob: `*` matches any run of characters. `pattern` must be lowercase.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let mut pos = 0;
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        if i == 0 {
            if !text.starts_with(part) {
                return false;
            }
            pos = part.len();
        } else if i == parts.len() - 1 {
            return text.len() >= pos + part.len() && text[pos..].ends_with(part);
        } else {
            match text[pos..].find(part) {
                Some(off) => pos += off + part.len(),
                None => return false,
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_no_errors() {
        assert_eq!(table_errors(), &[] as &[String]);
    }

    #[test]
    fn well_over_200_arm_cores() {
        assert!(arm_core_count() > 200, "only {} cores", arm_core_count());
    }

    #[test]
    fn common_cores() {
        assert_eq!(arm_core(0x41, 0xd03), Some("Cortex-A53"));
        assert_eq!(arm_core(0x41, 0xd0b), Some("Cortex-A76"));
        assert_eq!(arm_core(0x41, 0xc07), Some("Cortex-A7"));
        assert_eq!(arm_core(0x41, 0xc0f), Some("Cortex-A15"));
        assert_eq!(arm_core(0x41, 0xb76), Some("ARM1176"));
        assert_eq!(arm_implementer(0x41), Some("ARM"));
        assert_eq!(arm_core(0x41, 0xfff), None);
    }

    #[test]
    fn riscv() {
        assert!(riscv_by_uarch("sifive,u74-mc").unwrap().contains("U74"));
        assert!(riscv_by_ids(0x489, 0x8000000000000007, Some(0x4210427))
            .unwrap()
            .contains("U74"));
    }

    #[test]
    fn globs() {
        assert!(glob_match("cpu*-thermal", "CPU0-thermal"));
        assert!(glob_match("*soc*", "my_soc_zone"));
        assert!(glob_match("k10temp:tctl", "k10temp:Tctl"));
        assert!(!glob_match("cpu*-thermal", "gpu-thermal"));
        assert!(glob_match("*|vmware*", "whatever|VMware Virtual Platform"));
        assert!(!glob_match("a*b*c", "acb"));
        assert!(glob_match("*", ""));
    }
}
