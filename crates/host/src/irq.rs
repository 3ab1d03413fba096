//! Which CPU takes a device's interrupts: `/proc/interrupts` rows by the names a device's
//! interrupts carry (an interface `eth0`, NVMe queues `nvme0q1`, `mmc1`, `xhci-hcd:usb1`,
//! a controller `fe2c0000.mmc`), for the review and for sweeping the right cluster's OPPs.

use crate::Host;

/// Whether an interrupt label word belongs to `name`: equal, a sub-queue (`eth0-rx-1`,
/// `nvme0q3` for `nvme0q`), or naming it after a colon or in brackets (`xhci-hcd:usb1`,
/// `ahci[0000:00:17.0]`).
fn matches(word: &str, name: &str) -> bool {
    !name.is_empty()
        && (word == name
            || word.starts_with(&format!("{name}-"))
            || (name.ends_with('q')
                && word
                    .strip_prefix(name)
                    .is_some_and(|r| r.chars().all(|c| c.is_ascii_digit())))
            || word.ends_with(&format!(":{name}"))
            || word.contains(&format!("[{name}]")))
}

/// Interrupt counts per CPU of the rows whose label names one of `names`:
/// `(irq numbers, counts per CPU index)`.
pub fn irq_counts(text: &str, names: &[&str]) -> (Vec<String>, Vec<u64>) {
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return (Vec::new(), Vec::new());
    };
    let ncpu = header
        .split_whitespace()
        .filter(|w| w.starts_with("CPU"))
        .count();
    let mut irqs = Vec::new();
    let mut counts = vec![0u64; ncpu];
    for line in lines {
        let Some((irq, rest)) = line.split_once(':') else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        if words.len() <= ncpu {
            continue;
        }
        let label = &words[ncpu..];
        let hit = label
            .iter()
            .flat_map(|w| w.split(','))
            .any(|w| names.iter().any(|n| matches(w, n)));
        if !hit {
            continue;
        }
        irqs.push(irq.trim().to_string());
        for (c, w) in counts.iter_mut().zip(&words[..ncpu]) {
            // A count that would overflow the sum (a broken or edited file, 2^64 − 1: found
            // by fuzzing) is left out, not wrapped.
            *c = w
                .parse::<u64>()
                .ok()
                .and_then(|v| c.checked_add(v))
                .unwrap_or(*c);
        }
    }
    (irqs, counts)
}

/// The CPU with the most interrupts of `names` since boot, and those interrupts' numbers.
pub fn busiest_cpu(host: &Host, names: &[String]) -> Option<(u32, Vec<String>)> {
    let text = host.read_trimmed("proc/interrupts")?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (irqs, counts) = irq_counts(&text, &names);
    let (cpu, n) = counts.iter().enumerate().max_by_key(|(_, c)| **c)?;
    (*n > 0).then_some((cpu as u32, irqs))
}

/// The names a disk's interrupts carry: its NVMe queues, MMC host, USB bus or controller.
pub fn disk_irq_names(host: &Host, disk: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(rest) = disk.strip_prefix("nvme") {
        let ctrl: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        out.push(format!("nvme{ctrl}q"));
    }
    if let Some(link) = host.read_link(format!("sys/block/{disk}")) {
        for part in link.to_string_lossy().split('/') {
            if let Some(n) = part
                .strip_prefix("mmc")
                .filter(|n| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
            {
                out.push(format!("mmc{n}"));
            } else if part.starts_with("usb")
                && part[3..].chars().all(|c| c.is_ascii_digit())
                && part.len() > 3
            {
                out.push(part.to_string());
            } else if part.contains('.') && !part.contains(':') && part != ".." {
                // Platform controllers (`fe2c0000.mmc`, `xhci-hcd.3.auto`).
                out.push(part.to_string());
            } else if part.matches(':').count() == 2 && part.contains('.') {
                // A PCI function (`0000:00:17.0`).
                out.push(part.to_string());
            }
        }
    }
    out.dedup();
    out
}

/// The names a network interface's interrupts carry: its own and its device's.
pub fn iface_irq_names(host: &Host, iface: &str) -> Vec<String> {
    let mut out = vec![iface.to_string()];
    if let Some(dev) = host.read_link(format!("sys/class/net/{iface}/device")) {
        if let Some(n) = dev.file_name() {
            out.push(n.to_string_lossy().into_owned());
        }
    }
    out
}

/// The interface IPv4 traffic to `addr` leaves by, from `/proc/net/route` (longest prefix).
pub fn route_iface(host: &Host, addr: std::net::Ipv4Addr) -> Option<String> {
    let text = host.read_trimmed("proc/net/route")?;
    let a = u32::from(addr);
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // Little-endian hex as the kernel prints it.
            let dest = u32::from_str_radix(f.get(1)?, 16).ok()?.swap_bytes();
            let mask = u32::from_str_radix(f.get(7)?, 16).ok()?.swap_bytes();
            (a & mask == dest & mask).then(|| (mask.count_ones(), f[0].to_string()))
        })
        .max_by_key(|(bits, _)| *bits)
        .map(|(_, iface)| iface)
}

#[cfg(test)]
mod tests {
    /// Found by fuzzing: counts whose sum overflows 64 bits are left out, never a panic.
    #[test]
    fn counts_that_overflow_are_left_out() {
        let t = "  CPU0 CPU1\n 31: 5 18446744073709551615 GICv2 eth0\n 32: 1 2 GICv2 eth0\n";
        let (irqs, counts) = super::irq_counts(t, &["eth0"]);
        assert_eq!(irqs, ["31", "32"]);
        assert_eq!(counts, [6, 18446744073709551615]);
    }

    use super::*;

    #[test]
    fn interrupt_rows_by_name() {
        let text = "           CPU0       CPU1       CPU2\n\
                     23:     100000          5          0     GICv3 110 Level     eth0\n\
                     24:          0          0       300     GICv3 111 Level     eth0-rx-1\n\
                     25:         10         10         10     GICv3 112 Level     eth1\n\
                     40:          0       7000          0     ITS-MSI 524289 Edge   nvme0q1\n\
                     41:          1          0          0     ITS-MSI 524288 Edge   nvme0q0\n\
                     50:          0          0        900     GICv3 140 Level   xhci-hcd:usb1\n\
                    IPI0:        5          5          5       Rescheduling interrupts\n";
        let (irqs, counts) = irq_counts(text, &["eth0", ""]);
        assert_eq!(irqs, ["23", "24"]);
        assert_eq!(counts, [100000, 5, 300]);
        let (irqs, counts) = irq_counts(text, &["nvme0q"]);
        assert_eq!((irqs.len(), counts[1]), (2, 7000));
        assert_eq!(irq_counts(text, &["usb1"]).1, [0, 0, 900]);
        assert_eq!(irq_counts(text, &["eth"]).0.len(), 0, "no partial names");
        assert_eq!(irq_counts("", &["eth0"]).0.len(), 0);
        assert_eq!(irq_counts("garbage\n:::\n", &["eth0"]).1, Vec::<u64>::new());
    }

    #[test]
    fn route_by_longest_prefix() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc/net")).unwrap();
        // A default route via eth0 and 10.0.0.0/8 on wg0, as the kernel prints them.
        std::fs::write(
            d.path().join("proc/net/route"),
            "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n\
             eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n\
             wg0\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n",
        )
        .unwrap();
        let h = Host::new(d.path());
        assert_eq!(
            route_iface(&h, "10.1.2.3".parse().unwrap()).as_deref(),
            Some("wg0")
        );
        assert_eq!(
            route_iface(&h, "8.8.8.8".parse().unwrap()).as_deref(),
            Some("eth0")
        );
    }
}
