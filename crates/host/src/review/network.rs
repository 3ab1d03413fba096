//! Network interfaces with a device behind them: link speed, duplex, driver, and which CPUs
//! take their interrupts.

use super::Setting;
use crate::irq::irq_counts;
use crate::{Host, Inventory};

pub fn review(host: &Host, inv: &Inventory, out: &mut Vec<Setting>) {
    let interrupts = host.read_trimmed("proc/interrupts").unwrap_or_default();
    // The cores that are not the fastest: interrupts there may cap a fast link.
    let top = inv.clusters.iter().filter_map(|c| c.max_mhz).max();
    for iface in host.list("sys/class/net") {
        let n = format!("sys/class/net/{iface}");
        if iface == "lo" || !host.exists(format!("{n}/device")) {
            continue;
        }
        let driver = host
            .read_link(format!("{n}/device/driver"))
            .and_then(|l| l.file_name().map(|f| f.to_string_lossy().into_owned()));
        let device = host
            .read_link(format!("{n}/device"))
            .and_then(|l| l.file_name().map(|f| f.to_string_lossy().into_owned()));
        let state = host
            .read_trimmed(format!("{n}/operstate"))
            .unwrap_or_else(|| "?".into());
        let speed = host
            .read_trimmed(format!("{n}/speed"))
            .and_then(|s| s.parse::<i64>().ok());
        let duplex = host.read_trimmed(format!("{n}/duplex"));
        let wireless = host.exists(format!("{n}/wireless")) || host.exists(format!("{n}/phy80211"));
        let subject = format!(
            "{iface} ({}{})",
            driver.as_deref().unwrap_or("unknown driver"),
            if wireless { ", wireless" } else { "" }
        );
        let value = match (speed, &duplex) {
            (Some(s), Some(d)) if s > 0 => format!("{state}, {s} Mbit/s {d} duplex"),
            _ => state.clone(),
        };
        let s = Setting::new("network", &subject, "link", value).from(format!("{n}/speed"));
        out.push(if duplex.as_deref() == Some("half") && state == "up" {
            s.warn("half duplex: a duplex mismatch or an old hub; throughput collapses under load")
        } else if state == "up" {
            s.ok()
        } else {
            s
        });
        let names = [iface.as_str(), device.as_deref().unwrap_or("")];
        let (irqs, counts) = irq_counts(&interrupts, &names);
        let total: u64 = counts.iter().sum();
        if irqs.is_empty() || total == 0 {
            continue;
        }
        let busiest: Vec<usize> = {
            let mut v: Vec<(usize, u64)> = counts
                .iter()
                .copied()
                .enumerate()
                .filter(|(_, c)| *c > 0)
                .collect();
            v.sort_by_key(|(_, c)| std::cmp::Reverse(*c));
            v.into_iter().take(4).map(|(i, _)| i).collect()
        };
        let cpu_desc = |i: usize| {
            let cl = inv.cluster_of(i as u32);
            let ty = cl
                .and_then(|c| c.core_type.clone())
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            format!(
                "cpu{i}{ty} {:.0} %",
                counts[i] as f64 * 100.0 / total as f64
            )
        };
        let value = format!(
            "IRQ {}: {}",
            irqs.join(","),
            busiest
                .iter()
                .map(|i| cpu_desc(*i))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let s = Setting::new("network", &subject, "interrupts", value).from("proc/interrupts");
        let main = busiest[0] as u32;
        let slow_core = match (top, inv.cluster_of(main).and_then(|c| c.max_mhz)) {
            (Some(t), Some(m)) => m < t,
            _ => false,
        };
        out.push(if slow_core && speed.is_some_and(|s| s >= 1000) {
            s.warn(format!(
                "a {} Mbit/s link served by a slower core (cpu{main}): at full speed softirq work \
                 there can cap throughput (`truebench net` shows it); Armbian moves such IRQs to a \
                 big core",
                speed.unwrap_or(0)
            ))
        } else {
            s.because("interrupt and softirq work for this link runs on these CPUs")
        });
    }
}
