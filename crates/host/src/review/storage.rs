//! Block devices (kind, driver, scheduler, read-ahead; USB storage UAS or mass storage and its
//! speed; SD/eMMC CID with counterfeit signs) and filesystems that cost performance (NTFS
//! through FUSE).

use super::Setting;
use crate::inventory::storage_under;
use crate::Host;
use serde::{Deserialize, Serialize};

const CID_TABLE: &str = include_str!("../../data/mmc_cid.tsv");

/// What an SD card's or eMMC's CID says (`sys/block/mmcblkN/device/*`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MmcCid {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub manfid: Option<String>,
    pub oemid: Option<String>,
    pub serial: Option<String>,
    pub date: Option<String>,
}

/// The maker the CID names and any counterfeit signs, from `data/mmc_cid.tsv` and sbc-bench's
/// name and serial rules. `(maker, signs)`.
pub fn mmc_cid_signs(cid: &MmcCid) -> (Option<String>, Vec<String>) {
    let mut signs = Vec::new();
    let mut maker = None;
    let (m, o) = (
        cid.manfid.as_deref().unwrap_or("").to_ascii_lowercase(),
        cid.oemid.as_deref().unwrap_or("").to_ascii_lowercase(),
    );
    for line in CID_TABLE.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        if c.len() != 5 {
            continue;
        }
        let hit = |pat: &str, v: &str| pat == "*" || pat.eq_ignore_ascii_case(v);
        if hit(c[0], &m) && hit(c[1], &o) {
            match c[2] {
                "counterfeit" => signs.push(format!("manfid/oemid {m}/{o}: {}", c[4])),
                _ if c[3] != "-" => maker = Some(c[3].to_string()),
                _ => {}
            }
            break;
        }
    }
    let serial = cid.serial.as_deref().unwrap_or("");
    if serial == "0x00000000" {
        signs.push("serial number 0".into());
    } else if serial.starts_with("0x0000") {
        signs.push(format!(
            "very low serial number {serial} (probable counterfeit)"
        ));
    }
    let name = cid.name.as_deref().unwrap_or("");
    // Samsung's own SD cards use 00000 too; sbc-bench counts it as a sign all the same.
    if ["00000", "SMI", "ASTC", "AS"].contains(&name) && maker.as_deref() != Some("Samsung") {
        signs.push(format!(
            "product name \"{name}\" is one counterfeit cards use"
        ));
    }
    (maker, signs)
}

fn is_reviewed_disk(d: &str) -> bool {
    !["loop", "ram", "zram", "dm-", "md", "mtdblock", "nbd", "sr"]
        .iter()
        .any(|p| d.starts_with(p))
        && !d.ends_with("boot0")
        && !d.ends_with("boot1")
        && !d.ends_with("rpmb")
}

/// The driver of the USB interface a disk hangs off (`uas`, `usb-storage`): the disk's own
/// driver is SCSI's `sd`.
fn usb_interface_driver(host: &Host, disk: &str) -> Option<String> {
    let link = host.read_link(format!("sys/block/{disk}"))?;
    let path = link.to_string_lossy().trim_start_matches("../").to_string();
    let mut dir = path.as_str();
    while let Some(i) = dir.rfind('/') {
        dir = &dir[..i];
        let last = dir.rsplit('/').next().unwrap_or("");
        // `2-1:1.0`: bus-port:config.interface
        if last.contains(':') && last.contains('-') && !last.contains("host") {
            return host
                .read_link(format!("sys/{dir}/driver"))
                .and_then(|l| l.file_name().map(|f| f.to_string_lossy().into_owned()));
        }
    }
    None
}

pub fn reviewed_disks(host: &Host) -> Vec<String> {
    host.disks()
        .into_iter()
        .filter(|d| is_reviewed_disk(d))
        .collect()
}

pub fn review(host: &Host, out: &mut Vec<Setting>) {
    for disk in reviewed_disks(host) {
        let Some(info) = storage_under(host, &format!("/dev/{disk}")) else {
            continue;
        };
        let b = format!("sys/block/{disk}");
        let kind = info.kind.clone().unwrap_or_else(|| "unknown kind".into());
        let driver = usb_interface_driver(host, &disk)
            .or(info.driver.clone())
            .unwrap_or_else(|| "unknown driver".into());
        let mut value = format!("{kind}, {driver}");
        if let Some(m) = &info.model {
            value.push_str(&format!(", {m}"));
        }
        let s = Setting::new("storage", &disk, "device", value).from(format!("{b}/device"));
        out.push(if driver == "usb-storage" {
            s.warn(
                "USB mass storage (Bulk-Only) instead of UAS: one command at a time, slower \
                 random I/O — the bridge lacks UAS or the kernel disabled it by a quirk",
            )
        } else {
            s.ok()
        });
        if let Some(mbit) = info.usb_mbit_s {
            let s = Setting::new("storage", &disk, "USB speed", format!("{mbit} Mbit/s"))
                .from(format!("{b}/device"));
            out.push(if mbit <= 480 {
                s.warn(
                    "USB 2 (or slower): at most about 40 MB/s; a USB 3 port and cable would \
                     allow ten times that",
                )
            } else {
                s.ok()
            });
        }
        if let Some(sch) = &info.scheduler {
            let fast = kind.contains("NVMe");
            let s = Setting::new("storage", &disk, "I/O scheduler", sch)
                .from(format!("{b}/queue/scheduler"));
            out.push(match (sch.as_str(), fast, info.rotational) {
                ("none", _, Some(true)) => {
                    s.because("no scheduler on a spinning disk: seeks are not merged")
                }
                ("bfq", true, _) => s.because(
                    "bfq costs CPU per I/O on a fast NVMe drive; none or mq-deadline are usual",
                ),
                _ => s.ok(),
            });
        }
        if let Some(ra) = info.read_ahead_kb {
            let s = Setting::new("storage", &disk, "read-ahead", format!("{ra} KiB"))
                .from(format!("{b}/queue/read_ahead_kb"));
            out.push(if ra < 128 {
                s.because("below the kernel's 128 KiB default: sequential reads take more requests")
            } else {
                s.ok()
            });
        }
        if disk.starts_with("mmcblk") {
            cid(host, &disk, out);
        }
    }
}

fn cid(host: &Host, disk: &str, out: &mut Vec<Setting>) {
    let d = format!("sys/block/{disk}/device");
    let r = |f: &str| host.read_trimmed(format!("{d}/{f}"));
    let cid = MmcCid {
        kind: r("type"),
        name: r("name"),
        manfid: r("manfid"),
        oemid: r("oemid"),
        serial: r("serial"),
        date: r("date"),
    };
    if cid.manfid.is_none() && cid.name.is_none() {
        return;
    }
    let (maker, signs) = mmc_cid_signs(&cid);
    let value = format!(
        "{}\"{}\" {}, date {}, manfid/oemid {}/{}",
        maker.map(|m| m + " ").unwrap_or_default(),
        cid.name.as_deref().unwrap_or("?"),
        cid.kind.as_deref().unwrap_or("card"),
        cid.date.as_deref().unwrap_or("?"),
        cid.manfid.as_deref().unwrap_or("?"),
        cid.oemid.as_deref().unwrap_or("?"),
    );
    let s = Setting::new("storage", disk, "CID", value).from(format!("{d}/manfid"));
    out.push(if signs.is_empty() {
        s.ok()
    } else {
        s.warn(format!(
            "counterfeit signs: {} — such cards are often smaller and slower than labelled",
            signs.join("; ")
        ))
    });
}

/// NTFS mounted through FUSE (ntfs-3g) instead of the kernel's ntfs3.
pub fn filesystems(host: &Host, out: &mut Vec<Setting>) {
    let Some(mounts) = host.read_trimmed("proc/mounts") else {
        return;
    };
    for line in mounts.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            continue;
        }
        let (dev, mnt, fs) = (f[0], f[1], f[2]);
        let s =
            Setting::new("filesystem", mnt, "type", format!("{fs} on {dev}")).from("proc/mounts");
        match fs {
            "fuseblk" | "fuse.ntfs-3g" | "fuse.ntfs" => out.push(s.warn(
                "NTFS through FUSE (ntfs-3g): every I/O crosses into user space, CPU-bound and \
                 slow on small boards; the kernel's ntfs3 driver (5.15+) is several times faster",
            )),
            "ntfs3" => out.push(s.ok()),
            "ntfs" => out
                .push(s.because("the old read-only-capable ntfs driver; ntfs3 is the current one")),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cid(manfid: &str, oemid: &str, name: &str, serial: &str) -> MmcCid {
        MmcCid {
            kind: Some("SD".into()),
            name: Some(name.into()),
            manfid: Some(manfid.into()),
            oemid: Some(oemid.into()),
            serial: Some(serial.into()),
            date: Some("06/2021".into()),
        }
    }

    #[test]
    fn makers_and_counterfeit_signs() {
        let (m, s) = mmc_cid_signs(&cid("0x000003", "0x5344", "SC64G", "0x8a2b1c3d"));
        assert_eq!((m.as_deref(), s.len()), (Some("SanDisk"), 0));
        let (m, s) = mmc_cid_signs(&cid("0x000012", "0x3456", "SD16G", "0x8a2b1c3d"));
        assert_eq!(m, None);
        assert!(s[0].contains("fake Kingston"), "{s:?}");
        let (_, s) = mmc_cid_signs(&cid("0x000074", "0x4a60", "ASTC", "0x00001234"));
        assert_eq!(s.len(), 2, "{s:?}");
        // Kingston's oemid with another id.
        let (_, s) = mmc_cid_signs(&cid("0x000099", "0x3432", "SD32G", "0x12345678"));
        assert_eq!(s.len(), 1, "{s:?}");
        // Samsung's own 00000 is not held against it.
        let (m, s) = mmc_cid_signs(&cid("0x00001b", "0x534d", "00000", "0x9a8b7c6d"));
        assert_eq!((m.as_deref(), s.len()), (Some("Samsung"), 0));
        // Nothing known: no maker, no sign.
        let (m, s) = mmc_cid_signs(&MmcCid::default());
        assert_eq!((m, s.len()), (None, 0));
    }

    #[test]
    fn the_table_is_well_formed() {
        for (i, line) in CID_TABLE.lines().enumerate() {
            if line.starts_with('#') {
                continue;
            }
            let c: Vec<&str> = line.split('\t').collect();
            assert_eq!(c.len(), 5, "mmc_cid.tsv:{}: {line}", i + 1);
            assert!(
                ["maker", "counterfeit", "none"].contains(&c[2]),
                "mmc_cid.tsv:{}",
                i + 1
            );
        }
    }
}
