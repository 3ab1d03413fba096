//! Why an OPP is never reached: what the kernel offers for a cluster (its device-tree OPP
//! table, `scaling_available_frequencies`, `cpuinfo_max_freq`) against what limits it (the CPU
//! supply's voltage constraints, the chip's `opp-supported-hw` bits, `scaling_max_freq` and who
//! lowered it: a cpufreq cooling device, a user's MaxKHz).
//!
//! [`judge`] is the rule: pure, over [`OppInputs`] that the live reader ([`read`]) fills from
//! the device tree, `/sys/class/regulator` and `/sys/class/thermal`, and that the sbc-bench
//! importer fills from a log's regulator and OPP-table sections — the same rule judges both.

pub mod dt;
pub mod read;

use crate::parse::cpufreq::khz_to_mhz;
use serde::{Deserialize, Serialize};

/// The voltage an OPP asks of its supply (`opp-microvolt`: one value, or target/min/max).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Volts {
    pub target: u64,
    pub min: u64,
    pub max: u64,
}

impl Volts {
    /// One value: the supply must give exactly it.
    pub fn exact(uv: u64) -> Volts {
        Volts {
            target: uv,
            min: uv,
            max: uv,
        }
    }
}

/// One entry of a device-tree OPP table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOpp {
    /// `opp-hz` in kHz.
    pub khz: u64,
    /// `opp-microvolt`; None when the table gives none (or only per-bin variants).
    pub volts: Option<Volts>,
    /// `opp-supported-hw` cells; empty when absent (the OPP suits every chip).
    pub supported_hw: Vec<u32>,
}

/// The constraints of the regulator that feeds a cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Supply {
    /// `regulator-name` / sysfs `name`; several names joined with " or " when a log lists
    /// several CPU regulators without saying which feeds which cluster.
    pub name: String,
    /// Lowest voltage allowed, µV (sysfs `min_microvolts`); None or 0: unknown.
    pub min_uv: Option<u64>,
    /// Highest voltage allowed, µV (sysfs `max_microvolts`); None or 0: unknown.
    pub max_uv: Option<u64>,
    /// The file that shows the limit.
    pub source: String,
}

/// A thermal cooling device bound to the cluster's cpufreq policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cooling {
    /// `cooling_deviceN`.
    pub device: String,
    /// Its `type` (`cpufreq-cpu4`, `thermal-cpufreq-0`).
    pub kind: String,
    pub cur_state: u64,
    pub max_state: u64,
    /// Its `cur_state` file, relative to the root.
    pub source: String,
}

/// Everything the rule weighs for one cluster.
#[derive(Debug, Clone, Default)]
pub struct OppInputs {
    /// The device-tree OPP table of the cluster's CPUs (empty: unknown).
    pub table: Vec<TableOpp>,
    /// Where the table was read (a device-tree node, a log section).
    pub table_source: String,
    /// The CPU supply, when known.
    pub supply: Option<Supply>,
    /// `cpuinfo_max_freq`, kHz.
    pub cpuinfo_max_khz: Option<u64>,
    /// `scaling_max_freq`, kHz, and its file.
    pub scaling_max_khz: Option<u64>,
    pub scaling_max_source: String,
    /// `scaling_available_frequencies` (∪ boost), kHz; empty: unknown.
    pub offered_khz: Vec<u64>,
    /// Where the offered list was read.
    pub offered_source: String,
    /// Cooling devices bound to the policy.
    pub cooling: Vec<Cooling>,
    /// Whether cooling devices could be looked for at all (`/sys/class/thermal` readable).
    pub cooling_read: bool,
    /// A MaxKHz truebench was asked to hold the cluster at.
    pub user_max_khz: Option<u64>,
}

/// Who lowered `scaling_max_freq`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum LoweredBy {
    /// A thermal cooling device bound to the policy, in a state above 0.
    Cooling {
        /// `cooling_deviceN`.
        device: String,
        /// Its `type`.
        kind: String,
        /// Its `cur_state`.
        cur_state: u64,
        /// Its `max_state`.
        max_state: u64,
        /// The clock that state caps at (the state-th OPP from the top), MHz, where derivable.
        cap_mhz: Option<u32>,
    },
    /// The MaxKHz limit truebench was given.
    User {
        /// The limit, MHz.
        max_mhz: u32,
    },
    /// No cooling device of the policy is active and no MaxKHz was given: a program, a user
    /// or firmware wrote it.
    Unknown,
}

/// What keeps an OPP from being reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Limit {
    /// The CPU supply cannot give the OPP's voltage: the kernel drops the OPP (its OPP core
    /// keeps only OPPs whose voltage range the regulator supports).
    Regulator {
        /// The regulator's name.
        supply: String,
        /// The lowest voltage the OPP accepts, µV.
        needs_uv: u64,
        /// The regulator's highest allowed voltage, µV.
        max_uv: Option<u64>,
        /// The regulator's lowest allowed voltage, µV.
        min_uv: Option<u64>,
    },
    /// The OPP's `opp-supported-hw` bits exclude this chip (its speed bin or version).
    SupportedHw {
        /// The OPP's `opp-supported-hw` cells.
        mask: Vec<u32>,
        /// The bits every OPP the kernel offers shares, per cell (the chip's bin is among
        /// them); empty when a mask cell is 0 (no chip at all).
        offered: Vec<u32>,
    },
    /// `scaling_max_freq` is below the OPP.
    ScalingMax {
        /// `scaling_max_freq`, MHz.
        scaling_max_mhz: u32,
        /// Who lowered it.
        #[serde(flatten)]
        by: LoweredBy,
    },
    /// In the device tree but not offered by cpufreq, and no limit explains it.
    NotOffered,
}

/// OPPs never reached, and the limit that holds the clock down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OppLimit {
    /// The OPPs (MHz) this limit keeps the clock from, ascending.
    pub opps_mhz: Vec<u32>,
    /// What holds them down.
    pub limit: Limit,
    /// Why, in one sentence ("2400 MHz is never reached: it needs 1.29 V and the regulator
    /// vdd_cpu_b allows at most 1.288 V").
    pub reason: String,
    /// The file that shows it (relative to the root), or the log section of an import.
    pub source: String,
}

/// `1290000` µV → `1.29 V`, `1288000` → `1.288 V`.
pub fn volts(uv: u64) -> String {
    let mv = (uv + 500) / 1000;
    let s = format!("{}.{:03}", mv / 1000, mv % 1000);
    let s = s.trim_end_matches('0');
    let s = s
        .strip_suffix('.')
        .map(|s| format!("{s}.0"))
        .unwrap_or(s.into());
    format!("{s} V")
}

fn mhz_list(m: &[u32]) -> String {
    let v: Vec<String> = m.iter().map(|m| m.to_string()).collect();
    format!("{} MHz", v.join(", "))
}

fn is_are(m: &[u32]) -> (&'static str, &'static str) {
    if m.len() == 1 {
        ("is", "it needs")
    } else {
        ("are", "they need at least")
    }
}

/// Whether the supply can give some voltage in the OPP's range; None when its constraints are
/// unknown. The kernel's test (`regulator_is_supported_voltage`) asks for a selectable voltage
/// inside both ranges; the constraints are what can be told from outside.
fn supports(s: &Supply, v: Volts) -> Option<bool> {
    let max = s.max_uv.filter(|&m| m > 0);
    let min = s.min_uv.filter(|&m| m > 0);
    if max.is_none() && min.is_none() {
        return None;
    }
    Some(!(max.is_some_and(|m| v.min > m) || min.is_some_and(|m| v.max < m)))
}

fn near(a: u32, b: u32) -> bool {
    a.abs_diff(b) <= 1
}

/// Per cell, the bits every offered OPP's `opp-supported-hw` shares (OPPs whose frequency has a
/// single table entry; several entries at one frequency are alternatives for different bins).
fn offered_common(table: &[TableOpp], offered: &[u32]) -> Option<Vec<u32>> {
    let mut common: Option<Vec<u32>> = None;
    for &f in offered {
        let at: Vec<&TableOpp> = table
            .iter()
            .filter(|o| near(khz_to_mhz(o.khz), f))
            .collect();
        let [one] = at[..] else { continue };
        if one.supported_hw.is_empty() {
            continue;
        }
        common = Some(match common {
            None => one.supported_hw.clone(),
            Some(c) => c
                .iter()
                .zip(&one.supported_hw)
                .map(|(a, b)| a & b)
                .collect(),
        });
    }
    common.filter(|c| !c.is_empty())
}

/// The rule: the OPPs of one cluster that are never reached and what holds each down.
pub fn judge(i: &OppInputs) -> Vec<OppLimit> {
    let mut out: Vec<OppLimit> = Vec::new();
    let mut offered: Vec<u32> = i.offered_khz.iter().map(|&k| khz_to_mhz(k)).collect();
    offered.sort_unstable();
    offered.dedup();
    let mut freqs: Vec<u32> = i.table.iter().map(|o| khz_to_mhz(o.khz)).collect();
    freqs.sort_unstable();
    freqs.dedup();
    let common = offered_common(&i.table, &offered);

    // Device-tree OPPs the kernel does not offer (or, with the offered list unknown, cannot).
    let mut hw: Vec<(u32, Vec<u32>)> = Vec::new();
    // (MHz, the voltage it needs at least / accepts at most, above the supply's maximum)
    let mut reg: Vec<(u32, u64, bool)> = Vec::new();
    let mut unexplained: Vec<u32> = Vec::new();
    for &f in &freqs {
        if offered.iter().any(|&o| near(o, f)) {
            continue;
        }
        let at: Vec<&TableOpp> = i
            .table
            .iter()
            .filter(|o| near(khz_to_mhz(o.khz), f))
            .collect();
        let excluded = |o: &TableOpp| {
            !o.supported_hw.is_empty()
                && (o.supported_hw.contains(&0)
                    || common
                        .as_ref()
                        .is_some_and(|c| c.iter().zip(&o.supported_hw).any(|(c, m)| c & m == 0)))
        };
        let fitting: Vec<&&TableOpp> = at.iter().filter(|o| !excluded(o)).collect();
        if fitting.is_empty() {
            hw.push((f, at[0].supported_hw.clone()));
            continue;
        }
        // Every fitting entry out of the supply's reach, all on one side of it.
        let by_supply = i.supply.as_ref().and_then(|s| {
            let vs: Vec<Volts> = fitting.iter().filter_map(|o| o.volts).collect();
            if vs.len() != fitting.len() || !vs.iter().all(|&v| supports(s, v) == Some(false)) {
                return None;
            }
            let high = s.max_uv.filter(|&m| m > 0);
            if vs.iter().all(|v| high.is_some_and(|m| v.min > m)) {
                vs.iter().map(|v| v.min).min().map(|n| (n, true))
            } else if vs.iter().all(|v| high.is_none_or(|m| v.min <= m)) {
                vs.iter().map(|v| v.max).max().map(|n| (n, false))
            } else {
                None
            }
        });
        match by_supply {
            Some((needs, high)) => reg.push((f, needs, high)),
            None if !offered.is_empty() => unexplained.push(f),
            None => {}
        }
    }
    if !hw.is_empty() {
        // One finding per distinct mask.
        let mut masks: Vec<Vec<u32>> = hw.iter().map(|h| h.1.clone()).collect();
        masks.dedup();
        let mut seen: Vec<Vec<u32>> = Vec::new();
        for m in masks {
            if seen.contains(&m) {
                continue;
            }
            seen.push(m.clone());
            let opps: Vec<u32> = hw.iter().filter(|h| h.1 == m).map(|h| h.0).collect();
            let hex = |v: &[u32]| {
                v.iter()
                    .map(|c| format!("{c:#06x}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let (is, _) = is_are(&opps);
            let why = if m.contains(&0) {
                format!(
                    "its opp-supported-hw <{}> has a cell of 0, which no chip matches",
                    hex(&m)
                )
            } else {
                let c = common.clone().unwrap_or_default();
                format!(
                    "its opp-supported-hw <{}> shares no bit with <{}>, the bits of every OPP \
                     the kernel offers (the chip's speed bin or version picks the OPPs)",
                    hex(&m),
                    hex(&c)
                )
            };
            out.push(OppLimit {
                reason: format!(
                    "{} {is} never reached: in the device tree but not offered; {why}",
                    mhz_list(&opps)
                ),
                limit: Limit::SupportedHw {
                    offered: if m.contains(&0) {
                        Vec::new()
                    } else {
                        common.clone().unwrap_or_default()
                    },
                    mask: m,
                },
                opps_mhz: opps,
                source: i.table_source.clone(),
            });
        }
    }
    if let Some(s) = &i.supply {
        for high in [false, true] {
            let part: Vec<&(u32, u64, bool)> = reg.iter().filter(|r| r.2 == high).collect();
            if part.is_empty() {
                continue;
            }
            out.push(regulator_limit(s, &part, high));
        }
    }
    if !unexplained.is_empty() {
        let (is, _) = is_are(&unexplained);
        out.push(OppLimit {
            reason: format!(
                "{} {is} in the device tree ({}) but not offered by cpufreq ({}); no limit \
                 read here explains it",
                mhz_list(&unexplained),
                i.table_source,
                i.offered_source
            ),
            limit: Limit::NotOffered,
            opps_mhz: unexplained,
            source: i.offered_source.clone(),
        });
    }
    if let Some(l) = scaling_max(i, &offered, &freqs) {
        out.push(l);
    }
    out
}

/// OPPs the supply cannot feed, all above its maximum (`high`) or all below its minimum.
fn regulator_limit(s: &Supply, part: &[&(u32, u64, bool)], high: bool) -> OppLimit {
    let opps: Vec<u32> = part.iter().map(|r| r.0).collect();
    let many = s.name.contains(" or ");
    let who = if many {
        format!("none of the regulators {} allows", s.name)
    } else {
        format!("the regulator {} allows", s.name)
    };
    let (is, it) = if opps.len() == 1 {
        ("is", "it needs")
    } else {
        ("are", "they need")
    };
    let (needs, text) = if high {
        let n = part.iter().map(|r| r.1).min().unwrap_or(0);
        let max = s.max_uv.unwrap_or(0);
        let least = if opps.len() == 1 { "" } else { " at least" };
        let most = if many { "more than" } else { "at most" };
        (
            n,
            format!("{it}{least} {} and {who} {most} {}", volts(n), volts(max)),
        )
    } else {
        let n = part.iter().map(|r| r.1).max().unwrap_or(0);
        let min = s.min_uv.unwrap_or(0);
        (
            n,
            format!(
                "{it} at most {} and {who} no less than {}",
                volts(n),
                volts(min)
            ),
        )
    };
    OppLimit {
        reason: format!("{} {is} never reached: {text}", mhz_list(&opps)),
        limit: Limit::Regulator {
            supply: s.name.clone(),
            needs_uv: needs,
            max_uv: s.max_uv,
            min_uv: s.min_uv,
        },
        opps_mhz: opps,
        // The file of the bound that holds it.
        source: if high {
            s.source.clone()
        } else {
            s.source
                .replace("max_microvolts", "min_microvolts")
                .replace("regulator-max-microvolt", "regulator-min-microvolt")
        },
    }
}

/// `scaling_max_freq` below `cpuinfo_max_freq`: the offered OPPs above it, and who lowered it.
fn scaling_max(i: &OppInputs, offered: &[u32], freqs: &[u32]) -> Option<OppLimit> {
    let smax = khz_to_mhz(i.scaling_max_khz?);
    let hwmax = khz_to_mhz(i.cpuinfo_max_khz?);
    if smax >= hwmax {
        return None;
    }
    let pool = if offered.is_empty() { freqs } else { offered };
    let mut opps: Vec<u32> = pool
        .iter()
        .copied()
        .filter(|&f| f > smax && f <= hwmax)
        .collect();
    if opps.is_empty() {
        opps.push(hwmax);
    }
    // cpufreq cooling: state k caps the clock at the k-th OPP from the top.
    let cap = |state: u64| -> Option<u32> {
        let desc: Vec<u32> = offered.iter().rev().copied().collect();
        desc.get(usize::try_from(state).ok()?).copied()
    };
    let active: Vec<&Cooling> = i.cooling.iter().filter(|c| c.cur_state > 0).collect();
    let user = i.user_max_khz.map(khz_to_mhz).filter(|&u| near(u, smax));
    let (by, source, who) = if let Some(u) = user {
        (
            LoweredBy::User { max_mhz: u },
            i.scaling_max_source.clone(),
            format!("the MaxKHz limit of {u} MHz set it"),
        )
    } else if let Some(c) = active
        .iter()
        .find(|c| cap(c.cur_state).is_some_and(|m| near(m, smax)))
        .or(active.first())
    {
        let cap_mhz = cap(c.cur_state);
        (
            LoweredBy::Cooling {
                device: c.device.clone(),
                kind: c.kind.clone(),
                cur_state: c.cur_state,
                max_state: c.max_state,
                cap_mhz,
            },
            c.source.clone(),
            format!(
                "the thermal cooling device {} ({}) is at state {} of {}{}",
                c.device,
                c.kind,
                c.cur_state,
                c.max_state,
                cap_mhz
                    .map(|m| format!(", which caps the clock at {m} MHz"))
                    .unwrap_or_default()
            ),
        )
    } else {
        let why = if !i.cooling_read {
            "who lowered it is unknown: no cooling devices could be read (/sys/class/thermal) \
             and no MaxKHz was given"
                .to_string()
        } else if i.cooling.is_empty() {
            "no cooling device is bound to this policy and no MaxKHz was given: a program, a \
             user or firmware lowered it"
                .to_string()
        } else {
            format!(
                "its cooling device{} ({}) {} at state 0 and no MaxKHz was given: a program, a \
                 user or firmware lowered it",
                if i.cooling.len() == 1 { "" } else { "s" },
                i.cooling
                    .iter()
                    .map(|c| c.device.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                if i.cooling.len() == 1 { "is" } else { "are" }
            )
        };
        (LoweredBy::Unknown, i.scaling_max_source.clone(), why)
    };
    let (is, _) = is_are(&opps);
    Some(OppLimit {
        reason: format!(
            "{} {is} never reached: scaling_max_freq is {smax} MHz, below cpuinfo_max_freq \
             {hwmax} MHz; {who}",
            mhz_list(&opps)
        ),
        limit: Limit::ScalingMax {
            scaling_max_mhz: smax,
            by,
        },
        opps_mhz: opps,
        source,
    })
}

#[cfg(test)]
mod tests;
