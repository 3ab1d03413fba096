//! Swap, zram, zswap, transparent huge pages, swappiness.

use super::Setting;
use crate::parse::bracketed_choice;
use crate::{Host, Inventory};

const THP: &str = "sys/kernel/mm/transparent_hugepage";

pub fn review(host: &Host, inv: &Inventory, out: &mut Vec<Setting>) {
    let swap = &inv.swap;
    if swap.devices.is_empty() {
        out.push(
            Setting::new("memory", "swap", "devices", "none")
                .from("proc/swaps")
                .because(
                    "no swap: when memory runs out the kernel kills a process (sbc-bench's \
                     7-zip runs end in `Killed` on small boards) instead of slowing down",
                ),
        );
    }
    let has_zram = swap.devices.iter().any(|d| d.kind == "zram");
    for d in &swap.devices {
        let mut value = format!(
            "{} {} MiB, priority {}",
            d.kind,
            d.size_kb / 1024,
            d.priority
        );
        if let Some(a) = &d.algorithm {
            value.push_str(&format!(", {a}"));
        }
        let storage = d.storage.as_deref().unwrap_or("");
        let s = Setting::new("memory", &d.filename, "swap", value).from("proc/swaps");
        let slow = ["SD card", "eMMC", "USB", "HDD"]
            .iter()
            .find(|k| storage.contains(**k));
        out.push(match (d.kind.as_str(), slow) {
            ("zram", _) => s.ok().because("compressed RAM: fast, costs CPU time"),
            (_, Some(k)) => {
                let wear = if *k == "HDD" {
                    ""
                } else {
                    " and wears the flash"
                };
                s.warn(format!(
                    "swapping to {storage} is slow{wear}; zram swaps faster"
                ))
            }
            _ => s.because(format!(
                "on {}",
                if storage.is_empty() {
                    "unknown storage"
                } else {
                    storage
                }
            )),
        });
    }
    if let Some(z) = &swap.zswap {
        let s = Setting::new(
            "memory",
            "zswap",
            "enabled",
            format!(
                "{}{}",
                if z.enabled { "yes" } else { "no" },
                z.compressor
                    .as_ref()
                    .map(|c| format!(", {c}"))
                    .unwrap_or_default()
            ),
        )
        .from("sys/module/zswap/parameters/enabled");
        out.push(if z.enabled && has_zram {
            s.warn("zswap on top of zram compresses every swapped page twice: use one of them")
        } else {
            s.ok()
        });
    }
    if let Some(text) = host.read_trimmed(format!("{THP}/enabled")) {
        let v = bracketed_choice(&text).unwrap_or(&text).to_string();
        let s = Setting::new("memory", "transparent huge pages", "enabled", &v)
            .from(format!("{THP}/enabled"));
        out.push(match v.as_str() {
            "never" => s.because(
                "never: large-memory benchmarks take more TLB misses (sbc-bench and tinymembench \
                 results depend on this)",
            ),
            _ => s.ok(),
        });
    }
    if let Some(text) = host.read_trimmed(format!("{THP}/defrag")) {
        let v = bracketed_choice(&text).unwrap_or(&text).to_string();
        let s = Setting::new("memory", "transparent huge pages", "defrag", &v)
            .from(format!("{THP}/defrag"));
        out.push(if v == "always" {
            s.warn("always: allocations stall to compact memory; latency spikes")
        } else {
            s.ok()
        });
    }
    if let Some(v) = host.read_trimmed("proc/sys/vm/swappiness") {
        out.push(
            Setting::new("memory", "vm", "swappiness", &v)
                .from("proc/sys/vm/swappiness")
                .because("how eagerly anonymous memory is swapped (zram setups often use 100+)"),
        );
    }
}
