//! Core types the cpuinfo could not tell (old kernels print one `CPU part`, the reading
//! core's), placed on CPUs by the machine's own evidence.
//!
//! The SoC table says *which* cores a chip has ("4 × Cortex-A53 + 2 × Cortex-A72"), never
//! *which CPU* is which: vendors number their clusters either way round. So the layout is
//! placed only through what the machine shows — which CPUs form a cluster (cpufreq policies'
//! `related_cpus`, the topology), which cluster is big (`cpu_capacity`, a clearly higher
//! `cpuinfo_max_freq`) and the parts cpuinfo did print — and only when exactly one placement
//! fits all of it. Otherwise the layout is kept as counts, and the CPUs stay unknown.

use serde::{Deserialize, Serialize};

/// Suffix of a core type that came from the SoC table, not from the CPU itself.
pub const FROM_TABLE: &str = " (from the SoC table)";

/// A maximum clock counts as evidence of the bigger core only this far above the other
/// cluster's: little cores are sometimes clocked as high as big ones or higher (ODROID-N2:
/// Cortex-A53 at 1.9 GHz beside Cortex-A73 at 1.8 GHz), so a small gap says nothing.
const CLOCK_MARGIN: f64 = 1.15;

/// The identified chip's core layout, and whether the machine showed which CPUs have which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CoreLayout {
    /// The chip whose layout this is (the SoC table's name).
    pub soc: String,
    /// Runs of (count, core type), as the SoC table lists them.
    pub runs: Vec<(usize, String)>,
    /// Whether the types were placed on CPUs (then `Cpu::core_type` ends in
    /// "(from the SoC table)" for the CPUs cpuinfo did not describe).
    pub placed: bool,
    /// How they were placed, or why not, in words.
    pub basis: String,
}

impl CoreLayout {
    /// `4 × Cortex-A53 + 2 × Cortex-A72`.
    pub fn counts(&self) -> String {
        self.runs
            .iter()
            .map(|(n, t)| format!("{n} × {t}"))
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// What is known about one cluster of CPUs (CPUs that share a clock domain or a topology
/// cluster), as evidence for placing a layout.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    /// How many CPUs it has.
    pub size: usize,
    /// The core type cpuinfo gave its CPUs (never one from the table), if any.
    pub known: Option<String>,
    /// Its `cpuinfo_max_freq`, kHz.
    pub max_khz: Option<u64>,
    /// Its CPUs' `cpu_capacity` (the largest).
    pub capacity: Option<u32>,
}

/// Rough size class of a core type, for ordering clusters: in-order efficiency cores below
/// the others, Arm's Cortex-X line above them. None where the name says nothing (then only
/// the counts can place it).
fn tier(core: &str) -> Option<u8> {
    const LITTLE: &[&str] = &[
        "Cortex-A5",
        "Cortex-A7",
        "Cortex-A32",
        "Cortex-A34",
        "Cortex-A35",
        "Cortex-A53",
        "Cortex-A55",
        "Cortex-A510",
        "Cortex-A520",
        "Cortex-A320",
    ];
    if LITTLE.contains(&core) || core.ends_with(" Silver") {
        Some(0)
    } else if core.starts_with("Cortex-X") {
        Some(2)
    } else if core.starts_with("Cortex-A") || core.ends_with(" Gold") {
        Some(1)
    } else {
        None
    }
}

/// An ordering the machine shows between two clusters: `Some(Less)` when `a` is clearly the
/// smaller core, by capacity first, else by a clearly lower maximum clock.
fn shown_order(a: &Group, b: &Group) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (a.capacity, b.capacity) {
        if x != y {
            return Some(x.cmp(&y));
        }
    }
    let (x, y) = (a.max_khz? as f64, b.max_khz? as f64);
    if x * CLOCK_MARGIN <= y {
        Some(std::cmp::Ordering::Less)
    } else if y * CLOCK_MARGIN <= x {
        Some(std::cmp::Ordering::Greater)
    } else {
        None
    }
}

/// Place `layout` on `groups`: the core type for each group (the known ones keep theirs),
/// or why it cannot be done. Exactly one assignment must fit the counts, the known parts and
/// every order the machine shows between clusters.
pub fn place(layout: &[(usize, String)], groups: &[Group]) -> Result<Vec<String>, String> {
    let total: usize = layout.iter().map(|(n, _)| n).sum();
    let cpus: usize = groups.iter().map(|g| g.size).sum();
    if total != cpus {
        return Err(format!(
            "the table's layout has {total} CPUs, the machine {cpus}"
        ));
    }
    // What the known clusters leave of each type.
    let mut left: Vec<(usize, &str)> = layout.iter().map(|(n, t)| (*n, t.as_str())).collect();
    for g in groups {
        if let Some(k) = &g.known {
            match left.iter_mut().find(|(_, t)| t == k) {
                Some((n, _)) if *n >= g.size => *n -= g.size,
                _ => {
                    return Err(format!(
                        "cpuinfo names {} × {k}, which the table's layout does not hold",
                        g.size
                    ))
                }
            }
        }
    }
    left.retain(|(n, _)| *n > 0);
    let unknown: Vec<usize> = (0..groups.len())
        .filter(|&i| groups[i].known.is_none())
        .collect();
    if unknown.is_empty() {
        return Ok(groups.iter().filter_map(|g| g.known.clone()).collect());
    }
    // Few clusters and types in any real chip; beyond that, say it cannot be placed rather
    // than search.
    if unknown.len() > 8 || left.len() > 4 {
        return Err("too many clusters to place the layout on".into());
    }
    let mut fits: Vec<Vec<usize>> = Vec::new();
    let mut choice = vec![0usize; unknown.len()];
    loop {
        let counts_fit = (0..left.len()).all(|t| {
            unknown
                .iter()
                .zip(&choice)
                .filter(|(_, &c)| c == t)
                .map(|(&g, _)| groups[g].size)
                .sum::<usize>()
                == left[t].0
        });
        if counts_fit && orders_fit(layout_types(&left, &choice, &unknown, groups), groups) {
            fits.push(choice.clone());
            if fits.len() > 1 {
                break;
            }
        }
        // next assignment (odometer)
        let mut i = 0;
        while i < choice.len() {
            choice[i] += 1;
            if choice[i] < left.len() {
                break;
            }
            choice[i] = 0;
            i += 1;
        }
        if i == choice.len() {
            break;
        }
    }
    match fits.as_slice() {
        [one] => Ok(layout_types(&left, one, &unknown, groups)
            .into_iter()
            .map(str::to_string)
            .collect()),
        [] => Err("no placement fits the clusters' sizes, capacities and clocks".into()),
        _ => Err(
            "its clusters could hold the types either way round (no capacity or clearly different maximum clock tells big from little)"
                .into(),
        ),
    }
}

/// The type of every group under one assignment of the unknown groups.
fn layout_types<'a>(
    left: &[(usize, &'a str)],
    choice: &[usize],
    unknown: &[usize],
    groups: &'a [Group],
) -> Vec<&'a str> {
    groups
        .iter()
        .enumerate()
        .map(|(i, g)| match unknown.iter().position(|&u| u == i) {
            Some(k) => left[choice[k]].1,
            None => g.known.as_deref().unwrap_or(""),
        })
        .collect()
}

/// No order the machine shows between two clusters contradicts their types' size classes
/// (where it shows none, the counts must decide alone: several fits are refused above).
fn orders_fit(types: Vec<&str>, groups: &[Group]) -> bool {
    for i in 0..groups.len() {
        for j in 0..groups.len() {
            if i == j || types[i] == types[j] {
                continue;
            }
            let (Some(a), Some(b)) = (tier(types[i]), tier(types[j])) else {
                continue;
            };
            if a < b && shown_order(&groups[i], &groups[j]) == Some(std::cmp::Ordering::Greater) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(size: usize, known: Option<&str>, max_khz: Option<u64>, capacity: Option<u32>) -> Group {
        Group {
            size,
            known: known.map(str::to_string),
            max_khz,
            capacity,
        }
    }

    fn layout(runs: &[(usize, &str)]) -> Vec<(usize, String)> {
        runs.iter().map(|(n, t)| (*n, t.to_string())).collect()
    }

    /// RK3399 as the table lists it (little first) on a board whose clusters are numbered
    /// big first: the clocks place the A72s on the first cluster, not table order.
    #[test]
    fn the_clocks_place_big_and_little_whatever_the_table_order() {
        let l = layout(&[(4, "Cortex-A53"), (2, "Cortex-A72")]);
        let groups = [
            g(2, None, Some(1_800_000), None),
            g(4, None, Some(1_416_000), None),
        ];
        // The sizes alone already decide here.
        assert_eq!(place(&l, &groups).unwrap(), ["Cortex-A72", "Cortex-A53"]);
        let l = layout(&[(4, "Cortex-A53"), (4, "Cortex-A57")]);
        let groups = [
            g(4, None, Some(1_900_000), None),
            g(4, None, Some(1_300_000), None),
        ];
        assert_eq!(place(&l, &groups).unwrap(), ["Cortex-A57", "Cortex-A53"]);
    }

    /// Equal sizes and no evidence of which is big: no placement, said why.
    #[test]
    fn equal_clusters_without_capacity_or_a_clear_clock_gap_stay_unplaced() {
        let l = layout(&[(4, "Cortex-A73"), (4, "Cortex-A53")]);
        // ODROID-N2-like: the little cluster clocks higher than the big one.
        let groups = [
            g(4, None, Some(1_896_000), None),
            g(4, None, Some(1_800_000), None),
        ];
        let e = place(&l, &groups).unwrap_err();
        assert!(e.contains("either way round"), "{e}");
        // One cluster for all eight CPUs (DynamIQ without cpufreq): sizes cannot fit.
        assert!(place(&l, &[g(8, None, None, None)]).is_err());
        // The capacity decides where clocks do not.
        let groups = [
            g(4, None, Some(1_896_000), Some(602)),
            g(4, None, Some(1_800_000), Some(1024)),
        ];
        assert_eq!(place(&l, &groups).unwrap(), ["Cortex-A53", "Cortex-A73"]);
    }

    /// A printed part places the rest by counting; a part the layout lacks places nothing.
    #[test]
    fn the_parts_cpuinfo_printed_place_the_rest() {
        let l = layout(&[(4, "Cortex-A7"), (4, "Cortex-A15")]);
        let groups = [g(4, Some("Cortex-A7"), None, None), g(4, None, None, None)];
        assert_eq!(place(&l, &groups).unwrap(), ["Cortex-A7", "Cortex-A15"]);
        let groups = [g(4, Some("Cortex-A53"), None, None), g(4, None, None, None)];
        assert!(place(&l, &groups).unwrap_err().contains("does not hold"));
        // A known big cluster first in CPU order, the little one after it.
        let groups = [g(4, Some("Cortex-A15"), None, None), g(4, None, None, None)];
        assert_eq!(place(&l, &groups).unwrap(), ["Cortex-A15", "Cortex-A7"]);
    }

    /// Evidence against the only placement the counts allow: refused, not forced.
    #[test]
    fn a_contradicting_clock_refuses_the_placement() {
        let l = layout(&[(6, "Cortex-A55"), (2, "Cortex-A76")]);
        let groups = [
            g(2, None, Some(1_000_000), None),
            g(6, None, Some(2_000_000), None),
        ];
        assert!(place(&l, &groups).is_err());
        let groups = [
            g(6, None, Some(1_800_000), None),
            g(2, None, Some(2_200_000), None),
        ];
        assert_eq!(place(&l, &groups).unwrap(), ["Cortex-A55", "Cortex-A76"]);
    }

    #[test]
    fn three_tiers() {
        let l = layout(&[(1, "Cortex-X3"), (4, "Cortex-A715"), (3, "Cortex-A510")]);
        let groups = [
            g(3, None, Some(2_016_000), None),
            g(4, None, Some(2_803_000), None),
            g(1, None, Some(3_187_000), None),
        ];
        assert_eq!(
            place(&l, &groups).unwrap(),
            ["Cortex-A510", "Cortex-A715", "Cortex-X3"]
        );
        assert!(place(&l, &[g(4, None, None, None), g(4, None, None, None)]).is_err());
    }
}
