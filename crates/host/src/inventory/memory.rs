//! Memory, swap devices (and the storage under them), zswap.

use super::{note, Missing};
use crate::parse::{bracketed_choice, meminfo, swaps};
use crate::Host;
use serde::{Deserialize, Serialize};

/// RAM and page size.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Memory {
    /// `MemTotal`, kB.
    pub total_kb: Option<u64>,
    /// `MemAvailable` when probed, kB.
    pub available_kb: Option<u64>,
    /// Base page size, bytes.
    pub page_size: Option<u64>,
    /// How the page size was found.
    pub page_size_source: Option<String>,
}

/// One line of `/proc/swaps`, with what lies under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SwapDevice {
    /// The swap's path (`/dev/zram0`, `/swapfile`).
    pub filename: String,
    /// `zram`, `partition` or `file`.
    pub kind: String,
    /// Size, kB.
    pub size_kb: u64,
    /// In use, kB.
    pub used_kb: u64,
    /// Swap priority (higher is used first).
    pub priority: i64,
    /// zram compression algorithm.
    pub algorithm: Option<String>,
    /// Block device under a partition or file (`mmcblk0`, `nvme0n1`).
    pub disk: Option<String>,
    /// SD card, eMMC, NVMe SSD, HDD, SSD, USB storage, virtual disk, …
    pub storage: Option<String>,
}

/// The zswap compressed swap cache (`sys/module/zswap/parameters`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Zswap {
    /// `enabled` is Y.
    pub enabled: bool,
    /// `compressor`; None when unreadable.
    pub compressor: Option<String>,
    /// `max_pool_percent`: the pool's limit, % of RAM; None when unreadable.
    pub max_pool_percent: Option<u64>,
}

/// Swap as probed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Swap {
    /// Every swap device or file.
    pub devices: Vec<SwapDevice>,
    /// zswap's settings; None when the kernel has no zswap.
    pub zswap: Option<Zswap>,
    /// `SwapTotal`, kB.
    pub total_kb: Option<u64>,
    /// `SwapTotal` − `SwapFree`, kB.
    pub used_kb: Option<u64>,
}

/// PMD-sized transparent huge page → base page size (4 KiB pages map 2 MiB per PMD, 16 KiB
/// pages 32 MiB, 64 KiB pages 512 MiB). Lets a recorded root tell its page size.
fn page_size_from_pmd(pmd: u64) -> Option<u64> {
    match pmd {
        0x20_0000 => Some(4096),
        0x200_0000 => Some(16384),
        0x2000_0000 => Some(65536),
        _ => None,
    }
}

/// `nvme0n1p3` → `nvme0n1`, `mmcblk0p2` → `mmcblk0`, `sda3` → `sda`.
pub fn disk_of_partition(part: &str) -> String {
    let trimmed = part.trim_end_matches(|c: char| c.is_ascii_digit());
    if trimmed.len() < part.len() {
        if let Some(base) = trimmed.strip_suffix('p') {
            // nvme0n1p3, mmcblk0p2, loop0p1: the disk name itself ends in a digit.
            if base.ends_with(|c: char| c.is_ascii_digit()) {
                return base.to_string();
            }
        }
        if !(part.starts_with("nvme") || part.starts_with("mmcblk") || part.starts_with("zram")) {
            return trimmed.to_string();
        }
    }
    part.to_string()
}

/// What kind of storage a disk is.
pub(crate) fn storage_kind(host: &Host, disk: &str) -> Option<String> {
    let b = format!("sys/block/{disk}");
    if disk.starts_with("mmcblk") {
        return Some(
            match host.read_trimmed(format!("{b}/device/type")).as_deref() {
                Some("SD") => "SD card",
                Some("MMC") => "eMMC",
                Some("SDIO") => "SDIO",
                _ => "SD card or eMMC",
            }
            .into(),
        );
    }
    if disk.starts_with("nvme") {
        return Some("NVMe SSD".into());
    }
    if disk.starts_with("zram") {
        return Some("zram".into());
    }
    if disk.starts_with("vd") || disk.starts_with("xvd") {
        return Some("virtual disk".into());
    }
    if disk.starts_with("dm-") || disk.starts_with("md") {
        let slaves = host.list(format!("{b}/slaves"));
        let under: Vec<String> = slaves
            .iter()
            .map(|s| {
                let d = disk_of_partition(s);
                storage_kind(host, &d).map_or(d.clone(), |k| format!("{k} {d}"))
            })
            .collect();
        let what = if disk.starts_with("md") {
            "software RAID"
        } else {
            "device-mapper"
        };
        return Some(if under.is_empty() {
            what.into()
        } else {
            format!("{what} on {}", under.join(", "))
        });
    }
    // sdX and friends: USB sticks and HDDs both look like SCSI disks.
    let usb = host
        .read_link(&b)
        .map(|p| p.to_string_lossy().contains("/usb"))
        .unwrap_or(false);
    let rotational = host.read_trimmed(format!("{b}/queue/rotational"));
    let kind = match (usb, rotational.as_deref()) {
        (true, Some("1")) => "USB HDD",
        (true, _) => "USB storage",
        (false, Some("1")) => "HDD",
        (false, Some("0")) => "SSD",
        _ => return None,
    };
    Some(kind.into())
}

/// The block device holding `path`, from the longest matching mount point in proc/mounts.
pub(crate) fn device_of_file(host: &Host, path: &str) -> Option<String> {
    let mounts = host
        .read("proc/self/mounts")
        .or_else(|_| host.read("proc/mounts"))
        .ok()?;
    let mut best: Option<(usize, String)> = None;
    for l in mounts.lines() {
        let mut f = l.split_whitespace();
        let (Some(dev), Some(mp)) = (f.next(), f.next()) else {
            continue;
        };
        let mp = mp.replace("\\040", " ");
        let inside =
            path == mp || mp == "/" || path.starts_with(&format!("{}/", mp.trim_end_matches('/')));
        if inside && dev.starts_with("/dev/") && best.as_ref().is_none_or(|(l, _)| mp.len() > *l) {
            best = Some((mp.len(), dev.to_string()));
        }
    }
    best.map(|(_, d)| d)
}

fn classify(host: &Host, e: swaps::SwapEntry) -> SwapDevice {
    let name = e
        .filename
        .rsplit('/')
        .next()
        .unwrap_or(&e.filename)
        .to_string();
    let mut d = SwapDevice {
        kind: e.kind.clone(),
        filename: e.filename.clone(),
        size_kb: e.size_kb,
        used_kb: e.used_kb,
        priority: e.priority,
        algorithm: None,
        disk: None,
        storage: None,
    };
    if e.filename.starts_with("/dev/zram") {
        d.kind = "zram".into();
        d.algorithm = host
            .read_trimmed(format!("sys/block/{name}/comp_algorithm"))
            .map(|t| bracketed_choice(&t).map(str::to_string).unwrap_or(t));
        d.storage = Some("zram (compressed RAM)".into());
        return d;
    }
    let dev = if e.kind == "partition" {
        Some(e.filename.clone())
    } else {
        device_of_file(host, &e.filename)
    };
    if let Some(dev) = dev {
        let part = dev.rsplit('/').next().unwrap_or(&dev).to_string();
        // /dev/mapper/x and /dev/root are links; the mount table may name dm-N directly.
        let disk = if host.exists(format!("sys/block/{part}")) {
            part
        } else {
            disk_of_partition(&part)
        };
        d.storage = storage_kind(host, &disk);
        d.disk = Some(disk);
    }
    d
}

fn page_size(host: &Host) -> (Option<u64>, Option<String>) {
    if host.is_live() {
        // SAFETY: sysconf has no preconditions.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if p > 0 {
            return (Some(p as u64), Some("sysconf".into()));
        }
    }
    match host
        .read_u64("sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
        .and_then(page_size_from_pmd)
    {
        Some(p) => (Some(p), Some("transparent_hugepage/hpage_pmd_size".into())),
        None => (None, None),
    }
}

pub(super) fn probe(host: &Host, missing: &mut Vec<Missing>) -> (Memory, Swap) {
    let mi = match host.read("proc/meminfo") {
        Ok(t) => meminfo::parse(&t),
        Err(e) => {
            note(missing, "memory", e.to_string());
            Default::default()
        }
    };
    let (page_size, page_size_source) = page_size(host);
    if page_size.is_none() {
        note(
            missing,
            "page size",
            "not the live machine and no sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
        );
    }
    let memory = Memory {
        total_kb: mi.get("MemTotal").copied(),
        available_kb: mi.get("MemAvailable").copied(),
        page_size,
        page_size_source,
    };
    let devices = match host.read("proc/swaps") {
        Ok(t) => swaps::parse(&t)
            .into_iter()
            .map(|e| classify(host, e))
            .collect(),
        Err(e) => {
            note(missing, "swap", e.to_string());
            Vec::new()
        }
    };
    let zp = "sys/module/zswap/parameters";
    let zswap = host.read_trimmed(format!("{zp}/enabled")).map(|v| Zswap {
        enabled: matches!(v.as_str(), "Y" | "y" | "1"),
        compressor: host.read_trimmed(format!("{zp}/compressor")),
        max_pool_percent: host.read_u64(format!("{zp}/max_pool_percent")),
    });
    let total = mi.get("SwapTotal").copied();
    let swap = Swap {
        devices,
        zswap,
        total_kb: total,
        used_kb: total
            .zip(mi.get("SwapFree").copied())
            .map(|(t, f)| t.saturating_sub(f)),
    };
    (memory, swap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_to_disks() {
        assert_eq!(disk_of_partition("nvme0n1p3"), "nvme0n1");
        assert_eq!(disk_of_partition("mmcblk0p2"), "mmcblk0");
        assert_eq!(disk_of_partition("sda3"), "sda");
        assert_eq!(disk_of_partition("sda"), "sda");
        assert_eq!(disk_of_partition("mmcblk1"), "mmcblk1");
        assert_eq!(disk_of_partition("nvme0n1"), "nvme0n1");
        assert_eq!(disk_of_partition("zram0"), "zram0");
    }

    #[test]
    fn pmd_sizes() {
        assert_eq!(page_size_from_pmd(2097152), Some(4096));
        assert_eq!(page_size_from_pmd(536870912), Some(65536));
        assert_eq!(page_size_from_pmd(5), None);
    }
}
