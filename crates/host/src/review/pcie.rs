//! PCIe: the ASPM policy and every device's negotiated link against what it and its slot can do.

use super::Setting;
use crate::Host;

const PCI: &str = "sys/bus/pci/devices";

pub fn aspm(host: &Host, out: &mut Vec<Setting>) {
    let Some(p) = host.pcie_aspm() else { return };
    let active = p.active.clone().unwrap_or_else(|| "?".into());
    let s = Setting::new("pcie", "all links", "ASPM policy", &active)
        .from(crate::devices::PCIE_ASPM_POLICY);
    out.push(match active.as_str() {
        "performance" => s.ok(),
        "powersave" | "powersupersave" => s.warn(
            "links sleep whenever idle: NVMe and network latency rise (sbc-bench sets \
             performance while benchmarking)",
        ),
        _ => s.because(format!(
            "`default` keeps what the firmware set per link (choices: {})",
            p.available.join(" ")
        )),
    });
}

/// `8.0 GT/s PCIe` → 8.0.
fn gts(s: &str) -> Option<f64> {
    s.split_whitespace().next()?.parse().ok()
}

fn class_name(class: u32) -> &'static str {
    match class >> 16 {
        0x01 => match (class >> 8) & 0xff {
            0x08 => "NVMe",
            0x06 => "SATA",
            _ => "storage",
        },
        0x02 => "network",
        0x03 => "display",
        0x04 => "multimedia",
        0x06 => "bridge",
        0x0c => match (class >> 8) & 0xff {
            0x03 => "USB",
            _ => "serial bus",
        },
        0x0d => "wireless",
        _ => "device",
    }
}

pub fn links(host: &Host, out: &mut Vec<Setting>) {
    for addr in host.list(PCI) {
        let d = format!("{PCI}/{addr}");
        let class = host
            .read_trimmed(format!("{d}/class"))
            .and_then(|c| u32::from_str_radix(c.trim_start_matches("0x"), 16).ok());
        let Some(class) = class else { continue };
        let kind = class_name(class);
        if kind == "bridge" {
            continue;
        }
        let (Some(cur), Some(max)) = (
            host.read_trimmed(format!("{d}/current_link_speed")),
            host.read_trimmed(format!("{d}/max_link_speed")),
        ) else {
            continue;
        };
        let cw = host.read_u64(format!("{d}/current_link_width"));
        let mw = host.read_u64(format!("{d}/max_link_width"));
        let driver = host
            .read_link(format!("{d}/driver"))
            .and_then(|l| l.file_name().map(|f| f.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "no driver".into());
        let ids = format!(
            "{}:{}",
            host.read_trimmed(format!("{d}/vendor"))
                .unwrap_or_default()
                .trim_start_matches("0x"),
            host.read_trimmed(format!("{d}/device"))
                .unwrap_or_default()
                .trim_start_matches("0x"),
        );
        let subject = format!("{addr} ({kind} {ids}, {driver})");
        let width = |w: Option<u64>| w.map(|w| format!(" x{w}")).unwrap_or_default();
        let value = format!("{cur}{}", width(cw));
        let s =
            Setting::new("pcie", subject, "link", value).from(format!("{d}/current_link_speed"));
        // The slot above the device: its port's own maximum is the ceiling of the link.
        let port_max = host
            .read_link(PCI.to_string() + "/" + &addr)
            .and_then(|l| {
                l.parent()
                    .and_then(|p| p.file_name())
                    .map(|f| f.to_string_lossy().into_owned())
            })
            .filter(|p| p.contains(':') && p.contains('.'))
            .and_then(|p| host.read_trimmed(format!("{PCI}/{p}/max_link_speed")));
        let slower = matches!((gts(&cur), gts(&max)), (Some(c), Some(m)) if c < m);
        let narrower = matches!((cw, mw), (Some(c), Some(m)) if c < m);
        let slot_limit = port_max
            .as_deref()
            .and_then(gts)
            .zip(gts(&cur))
            .is_some_and(|(p, c)| p <= c);
        out.push(if narrower {
            s.warn(format!(
                "negotiated{} of{} possible: half the lanes or fewer carry the traffic (cable, \
                 riser or slot)",
                width(cw),
                width(mw)
            ))
        } else if slower && slot_limit {
            s.because(format!(
                "the device could do {max}; the slot's port cannot ({})",
                port_max.unwrap_or_default()
            ))
        } else if slower {
            s.warn(format!(
                "negotiated below the {max} both ends support: a link trained down (signal \
                 quality) — or a device that slows its link when idle (GPUs): check under load"
            ))
        } else {
            s.ok()
        });
    }
}
