//! What storage is under a path (`truebench io`): the disk, its kind (SD card, eMMC, NVMe,
//! USB…), driver, I/O scheduler, read-ahead and, for USB, the negotiated speed.

use serde::{Deserialize, Serialize};

use super::memory::{device_of_file, disk_of_partition, storage_kind};
use crate::Host;

/// The storage under a path: disk, kind, driver and queue settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageInfo {
    /// `/dev/mmcblk0p2` or the block device given.
    pub device: String,
    /// The whole disk (`mmcblk0`).
    pub disk: String,
    /// `SD card`, `eMMC`, `NVMe SSD`, `USB storage`, `virtual disk`…
    pub kind: Option<String>,
    /// The disk's driver (`mmcblk`, `nvme`, `virtio_blk`, `usb-storage`, `uas`).
    pub driver: Option<String>,
    /// The disk's `device/model` (else `device/name`); None when sysfs has neither.
    pub model: Option<String>,
    /// The active I/O scheduler (`mq-deadline`).
    pub scheduler: Option<String>,
    /// `queue/read_ahead_kb`; None when unreadable.
    pub read_ahead_kb: Option<u64>,
    /// USB only: the negotiated speed, Mbit/s (480 = USB 2, 5000 = USB 3).
    pub usb_mbit_s: Option<u64>,
    /// `queue/rotational`: a spinning disk; None when unreadable.
    pub rotational: Option<bool>,
}

/// The storage holding `path` (absolute, on the live machine's mounts), or the block device
/// `path` names. None when no block device is found (tmpfs, network filesystems).
pub fn storage_under(host: &Host, path: &str) -> Option<StorageInfo> {
    let device = if path.starts_with("/dev/") {
        path.to_string()
    } else {
        device_of_file(host, path)?
    };
    let name = device.rsplit('/').next().unwrap_or(&device).to_string();
    // /dev/root and /dev/mapper/x: the kernel's name is behind the link.
    // A whole disk is also under sys/block (recorded roots may lack sys/class/block).
    let known = |n: &str| {
        host.exists(format!("sys/class/block/{n}")) || host.exists(format!("sys/block/{n}"))
    };
    let name = if known(&name) {
        name
    } else {
        host.read_link(device.trim_start_matches('/'))
            .and_then(|l| l.file_name().map(|f| f.to_string_lossy().into_owned()))
            .filter(|n| known(n))?
    };
    let disk = if host.exists(format!("sys/block/{name}")) {
        name.clone()
    } else {
        disk_of_partition(&name)
    };
    let b = format!("sys/block/{disk}");
    let driver = host
        .read_link(format!("{b}/device/driver"))
        .or_else(|| host.read_link(format!("{b}/device/device/driver")))
        .and_then(|l| l.file_name().map(|f| f.to_string_lossy().into_owned()));
    let scheduler = host.read_trimmed(format!("{b}/queue/scheduler")).map(|t| {
        t.split_whitespace()
            .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
            .unwrap_or(&t)
            .to_string()
    });
    // A USB disk's sysfs path runs through its USB device, which holds `speed`.
    let usb_mbit_s = host.read_link(&b).and_then(|l| {
        let l = l.to_string_lossy().into_owned();
        let mut dir = l.trim_start_matches("../").to_string();
        while let Some(i) = dir.rfind('/') {
            dir.truncate(i);
            if dir.contains("/usb") {
                if let Some(v) = host.read_trimmed(format!("sys/{dir}/speed")) {
                    return v.parse::<f64>().ok().map(|v| v as u64);
                }
            }
        }
        None
    });
    Some(StorageInfo {
        device,
        kind: storage_kind(host, &disk),
        driver,
        model: host
            .read_trimmed(format!("{b}/device/model"))
            .or_else(|| host.read_trimmed(format!("{b}/device/name"))),
        scheduler,
        read_ahead_kb: host.read_u64(format!("{b}/queue/read_ahead_kb")),
        usb_mbit_s,
        rotational: host
            .read_trimmed(format!("{b}/queue/rotational"))
            .map(|r| r == "1"),
        disk,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Write `text` at `rel` under `root`, making its folders (shared with the other
    /// inventory tests).
    pub(in crate::inventory) fn put(root: &std::path::Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// An eMMC root filesystem and a USB 3 disk, as a board's sysfs lays them out.
    #[test]
    fn emmc_and_usb_disks_are_described() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        put(
            r,
            "proc/mounts",
            "/dev/mmcblk0p2 / ext4 rw 0 0\n/dev/sda1 /mnt/usb ext4 rw 0 0\n",
        );
        put(r, "sys/class/block/mmcblk0p2/partition", "2");
        put(r, "sys/block/mmcblk0/device/type", "MMC");
        put(r, "sys/block/mmcblk0/device/name", "8GTF4R");
        put(r, "sys/block/mmcblk0/queue/scheduler", "[mq-deadline] none");
        put(r, "sys/block/mmcblk0/queue/read_ahead_kb", "128");
        put(r, "sys/bus/mmc/drivers/mmcblk/bind", "");
        std::os::unix::fs::symlink(
            "../../../bus/mmc/drivers/mmcblk",
            r.join("sys/block/mmcblk0/device/driver"),
        )
        .unwrap();
        let usb = "devices/platform/xhci/usb2/2-1/2-1:1.0/host0/target0:0:0/0:0:0:0/block/sda";
        put(r, &format!("sys/{usb}/queue/rotational"), "0");
        put(r, &format!("sys/{usb}/queue/scheduler"), "none [bfq]");
        put(r, "sys/devices/platform/xhci/usb2/2-1/speed", "5000");
        put(r, "sys/class/block/sda1/partition", "1");
        std::os::unix::fs::symlink(format!("../{usb}"), r.join("sys/block/sda")).unwrap();
        let h = Host::new(r);

        let e = storage_under(&h, "/home/user/file").unwrap();
        assert_eq!(
            (e.device.as_str(), e.disk.as_str()),
            ("/dev/mmcblk0p2", "mmcblk0")
        );
        assert_eq!(e.kind.as_deref(), Some("eMMC"));
        assert_eq!(e.driver.as_deref(), Some("mmcblk"));
        assert_eq!(e.model.as_deref(), Some("8GTF4R"));
        assert_eq!(e.scheduler.as_deref(), Some("mq-deadline"));
        assert_eq!((e.read_ahead_kb, e.usb_mbit_s), (Some(128), None));

        let u = storage_under(&h, "/mnt/usb/x").unwrap();
        assert_eq!(u.disk, "sda");
        assert_eq!(u.kind.as_deref(), Some("USB storage"));
        assert_eq!(u.usb_mbit_s, Some(5000));
        assert_eq!(u.scheduler.as_deref(), Some("bfq"));
        assert_eq!(u.rotational, Some(false));
        // A block device named directly.
        assert_eq!(storage_under(&h, "/dev/sda1").unwrap().disk, "sda");
    }

    #[test]
    fn the_live_root_filesystem_has_a_disk_or_none() {
        // Containers and VMs differ; what is found must be consistent.
        let h = Host::live();
        if let Some(s) = storage_under(&h, "/") {
            assert!(h.exists(format!("sys/block/{}", s.disk)), "{s:?}");
            assert!(s.device.starts_with("/dev/"), "{s:?}");
        }
        assert!(storage_under(&h, "/dev/no-such-disk").is_none());
    }
}
