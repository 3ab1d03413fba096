//! Typed readers for devices outside the CPU inventory: CPU caches, devfreq devices (memory
//! controllers, GPUs, NPUs), the PCIe ASPM policy, powercap (RAPL) energy zones and the block
//! devices worth watching. Missing files give empty lists or `None`, never an error.

use crate::parse::{bracketed_choice, bytes};
use crate::{Host, ReadError};
use serde::{Deserialize, Serialize};

pub const DEVFREQ_DIR: &str = "sys/class/devfreq";
pub const PCIE_ASPM_POLICY: &str = "sys/module/pcie_aspm/parameters/policy";
pub const POWERCAP_DIR: &str = "sys/class/powercap";

/// One cache of a CPU, from `sys/devices/system/cpu/cpuN/cache/index*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CacheLevel {
    pub level: u32,
    /// `Data`, `Instruction` or `Unified`.
    pub kind: String,
    pub bytes: u64,
    pub line_bytes: Option<u64>,
    /// CPUs sharing it (`shared_cpu_list`), as the kernel wrote it.
    pub shared_cpu_list: Option<String>,
}

/// Parse a cache `size` file: `48K`, `2048K`, `1M`, `491520K`, or plain bytes. None when
/// malformed or too large for a u64.
pub fn parse_cache_size(text: &str) -> Option<u64> {
    const KIB: u64 = 1024;
    let t = text.trim();
    let (num, mult) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], KIB),
        'M' | 'm' => (&t[..t.len() - 1], KIB * KIB),
        'G' | 'g' => (&t[..t.len() - 1], KIB * KIB * KIB),
        _ => (t, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// A devfreq device (`sys/class/devfreq/<name>`): a memory controller (`dmc`), GPU or NPU
/// whose clock a governor scales. Frequencies in Hz.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DevfreqDevice {
    /// `dmc`, `fb000000.gpu`, …
    pub name: String,
    /// The directory, relative to the root.
    pub path: String,
    pub governor: Option<String>,
    pub available_governors: Vec<String>,
    pub cur_hz: Option<u64>,
    pub min_hz: Option<u64>,
    pub max_hz: Option<u64>,
    pub available_hz: Vec<u64>,
}

impl DevfreqDevice {
    /// True when the device offers the `performance` governor and is not using it yet.
    pub fn can_switch_to_performance(&self) -> bool {
        self.available_governors.iter().any(|g| g == "performance")
            && self.governor.as_deref() != Some("performance")
    }
}

/// The PCIe Active State Power Management policy (`[default] performance powersave …`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AspmPolicy {
    /// The bracketed choice; None when the file shows none.
    pub active: Option<String>,
    pub available: Vec<String>,
}

/// A powercap zone with an energy counter: a RAPL domain on Intel and AMD (`intel-rapl:0`
/// package-0, `intel-rapl:0:0` core, `intel-rapl:1` psys…).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PowercapZone {
    /// `intel-rapl:0`, `intel-rapl:0:1`.
    pub id: String,
    /// The zone's `name` file: `package-0`, `core`, `uncore`, `dram`, `psys`.
    pub name: Option<String>,
    /// The zone's directory, relative to the root.
    pub path: String,
    /// The enclosing zone (`intel-rapl:0` for `intel-rapl:0:1`); its energy includes ours.
    pub parent: Option<String>,
    /// Where `energy_uj` wraps to 0.
    pub max_energy_range_uj: Option<u64>,
    /// Why `energy_uj` cannot be read; None when it can.
    pub unreadable: Option<String>,
}

impl PowercapZone {
    pub fn energy_file(&self) -> String {
        format!("{}/energy_uj", self.path)
    }

    /// `intel-rapl:0 package-0` — for labels.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("{} {n}", self.id),
            None => self.id.clone(),
        }
    }

    /// A `psys` zone measures the whole platform (SoC, memory, and more), so it must not be
    /// added to package zones.
    pub fn is_platform(&self) -> bool {
        self.name.as_deref() == Some("psys")
    }
}

/// Why an `energy_uj` file could not be read, in words a user can act on.
pub fn energy_unreadable_reason(e: &ReadError) -> String {
    match e.source.kind() {
        std::io::ErrorKind::PermissionDenied => format!(
            "{}: permission denied (RAPL energy counters are readable by root only since Linux \
             5.10, the PLATYPUS fix CVE-2020-8694): run as root to measure power",
            e.path.display()
        ),
        _ => e.to_string(),
    }
}

/// `intel-rapl:0:1` → `intel-rapl:0`; top-level zones have no parent.
fn zone_parent(id: &str) -> Option<String> {
    let (control, rest) = id.split_once(':')?;
    let (parent, _) = rest.rsplit_once(':')?;
    Some(format!("{control}:{parent}"))
}

impl Host {
    /// The caches the kernel reports for `cpu` (empty when the directory is missing, as on
    /// many ARM boards without cache information in the device tree).
    pub fn cpu_caches(&self, cpu: u32) -> Vec<CacheLevel> {
        let dir = format!("sys/devices/system/cpu/cpu{cpu}/cache");
        let mut out = Vec::new();
        for entry in self.list(&dir) {
            if !entry.starts_with("index") {
                continue;
            }
            let base = format!("{dir}/{entry}");
            let level = self
                .read_u64(format!("{base}/level"))
                .and_then(|l| u32::try_from(l).ok());
            let bytes = self
                .read_trimmed(format!("{base}/size"))
                .and_then(|s| parse_cache_size(&s));
            if let (Some(level), Some(bytes)) = (level, bytes) {
                out.push(CacheLevel {
                    level,
                    kind: self
                        .read_trimmed(format!("{base}/type"))
                        .unwrap_or_else(|| "unknown".into()),
                    bytes,
                    line_bytes: self.read_u64(format!("{base}/coherency_line_size")),
                    shared_cpu_list: self.read_trimmed(format!("{base}/shared_cpu_list")),
                });
            }
        }
        out
    }

    /// Every devfreq device, in natural name order.
    pub fn devfreq(&self) -> Vec<DevfreqDevice> {
        self.list(DEVFREQ_DIR)
            .into_iter()
            .map(|name| {
                let d = format!("{DEVFREQ_DIR}/{name}");
                let words = |f: &str| -> Vec<String> {
                    self.read_trimmed(format!("{d}/{f}"))
                        .map(|s| s.split_whitespace().map(str::to_string).collect())
                        .unwrap_or_default()
                };
                let mut available_hz: Vec<u64> = words("available_frequencies")
                    .iter()
                    .filter_map(|w| w.parse().ok())
                    .collect();
                available_hz.sort_unstable();
                available_hz.dedup();
                DevfreqDevice {
                    governor: self.read_trimmed(format!("{d}/governor")),
                    available_governors: words("available_governors"),
                    cur_hz: self.read_u64(format!("{d}/cur_freq")),
                    min_hz: self.read_u64(format!("{d}/min_freq")),
                    max_hz: self.read_u64(format!("{d}/max_freq")),
                    available_hz,
                    path: d,
                    name,
                }
            })
            .collect()
    }

    /// The PCIe ASPM policy; None when the kernel has no `pcie_aspm` module parameters.
    pub fn pcie_aspm(&self) -> Option<AspmPolicy> {
        let text = self.read_trimmed(PCIE_ASPM_POLICY)?;
        Some(AspmPolicy {
            active: bracketed_choice(&text).map(str::to_string),
            available: text
                .split_whitespace()
                .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
                .filter(|w| !w.is_empty())
                .collect(),
        })
    }

    /// Powercap zones with an `energy_uj` file (control types such as `intel-rapl` itself and
    /// zones without an energy counter are left out). Each counter is read once here so a
    /// zone that cannot be read says why.
    pub fn powercap_zones(&self) -> Vec<PowercapZone> {
        let mut out = Vec::new();
        for id in self.list(POWERCAP_DIR) {
            if !id.contains(':') {
                continue;
            }
            let path = format!("{POWERCAP_DIR}/{id}");
            let energy = format!("{path}/energy_uj");
            if !self.exists(&energy) {
                continue;
            }
            let unreadable = match self.read_bytes(&energy) {
                Ok(b) if bytes::i64_of(&b).is_some_and(|v| v >= 0) => None,
                Ok(b) => Some(format!(
                    "{}: unexpected content {:?}",
                    self.path(&energy).display(),
                    String::from_utf8_lossy(&b).trim()
                )),
                Err(e) => Some(energy_unreadable_reason(&e)),
            };
            out.push(PowercapZone {
                name: self.read_trimmed(format!("{path}/name")),
                max_energy_range_uj: self.read_u64(format!("{path}/max_energy_range_uj")),
                parent: zone_parent(&id),
                unreadable,
                path,
                id,
            });
        }
        out
    }

    /// Whole block devices worth watching for I/O, by kernel name (`sda`, `nvme0n1`,
    /// `mmcblk0`, `zram0`, `dm-0`): partitions are left out (their I/O is counted on the disk),
    /// and so are devices of nothing — RAM disks, and loop devices or card readers without a
    /// medium (size 0). With a `sys/block` directory its entries are the disks; a recorded
    /// root with only /proc is judged from `/proc/diskstats` names and counters alone.
    pub fn disks(&self) -> Vec<String> {
        let block = self.list("sys/block");
        if !block.is_empty() {
            return block
                .into_iter()
                .filter(|d| !d.starts_with("ram"))
                .filter(|d| self.read_u64(format!("sys/block/{d}/size")) != Some(0))
                .collect();
        }
        let Ok(text) = self.read_bytes(crate::procfs::DISKSTATS) else {
            return Vec::new();
        };
        let mut all: Vec<(String, bool)> = Vec::new();
        crate::parse::diskstats::for_each(&text, |_, _, name, c| {
            let idle = c.reads == 0 && c.writes == 0;
            all.push((String::from_utf8_lossy(name).into_owned(), idle));
        });
        let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
        all.iter()
            .filter(|(n, idle)| {
                let nothing = *idle && (n.starts_with("ram") || n.starts_with("loop"));
                !nothing && !n.starts_with("ram") && !is_partition(n, &names)
            })
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// `sda1` of `sda`, `nvme0n1p2` of `nvme0n1`, `mmcblk0p1` of `mmcblk0`: a name that is another
/// listed device's name plus a partition number.
fn is_partition(name: &str, all: &[&str]) -> bool {
    all.iter().any(|d| {
        let Some(rest) = name.strip_prefix(d) else {
            return false;
        };
        // A disk name ending in a digit takes `p` before the partition number.
        let num = if d.ends_with(|c: char| c.is_ascii_digit()) {
            rest.strip_prefix('p')
        } else {
            Some(rest)
        };
        num.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(root: &std::path::Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    // Moved here with the parser from truebench-workloads (its memory kernel's test).
    #[test]
    fn cache_sizes() {
        assert_eq!(parse_cache_size("48K"), Some(48 * 1024));
        assert_eq!(parse_cache_size("491520K\n"), Some(480 << 20));
        assert_eq!(parse_cache_size("1M"), Some(1 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("garbage"), None);
        assert_eq!(parse_cache_size(""), None);
        assert_eq!(parse_cache_size("18446744073709551615K"), None);
    }

    #[test]
    fn caches_of_the_epyc_dump() {
        let d = truebench_fixtures::sysfs_dump("x86_64-epyc_7451");
        let h = Host::new(d.path().join("x86_64-epyc_7451"));
        let c = h.cpu_caches(0);
        assert_eq!(c.len(), 4, "{c:?}");
        let l3 = c.iter().find(|c| c.level == 3).unwrap();
        assert_eq!(l3.bytes, 8 << 20);
        assert_eq!(l3.kind, "Unified");
        assert!(h.cpu_caches(100_000).is_empty());
    }

    #[test]
    fn devfreq_and_aspm_of_a_rk3588_board() {
        // Models a Radxa ROCK 5B (RK3588): the Mali GPU and the DMC under devfreq, ASPM as
        // Armbian's vendor kernel ships it.
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        let g = "sys/class/devfreq/fb000000.gpu";
        w(r, &format!("{g}/governor"), "simple_ondemand\n");
        w(
            r,
            &format!("{g}/available_governors"),
            "userspace powersave performance simple_ondemand\n",
        );
        w(r, &format!("{g}/cur_freq"), "300000000\n");
        w(r, &format!("{g}/min_freq"), "300000000\n");
        w(r, &format!("{g}/max_freq"), "1000000000\n");
        w(
            r,
            &format!("{g}/available_frequencies"),
            "1000000000 300000000 400000000 600000000 800000000 900000000\n",
        );
        w(r, "sys/class/devfreq/dmc/governor", "performance\n");
        w(
            r,
            "sys/class/devfreq/dmc/available_governors",
            "dmc_ondemand userspace powersave performance simple_ondemand\n",
        );
        w(
            r,
            PCIE_ASPM_POLICY,
            "[default] performance powersave powersupersave \n",
        );
        let h = Host::new(r);
        let dev = h.devfreq();
        assert_eq!(dev.len(), 2);
        assert_eq!(dev[0].name, "dmc");
        assert!(!dev[0].can_switch_to_performance());
        assert_eq!(dev[1].cur_hz, Some(300_000_000));
        assert_eq!(dev[1].available_hz.first(), Some(&300_000_000));
        assert_eq!(dev[1].available_hz.len(), 6);
        assert!(dev[1].can_switch_to_performance());
        let a = h.pcie_aspm().unwrap();
        assert_eq!(a.active.as_deref(), Some("default"));
        assert_eq!(
            a.available,
            ["default", "performance", "powersave", "powersupersave"]
        );
        assert!(Host::new("/nonexistent").pcie_aspm().is_none());
        assert!(Host::new("/nonexistent").devfreq().is_empty());
    }

    #[test]
    fn rapl_zones_of_node_exporter_fixture() {
        let d = truebench_fixtures::prometheus_sys();
        let h = Host::new(d.path());
        let z = h.powercap_zones();
        assert_eq!(z.len(), 2, "{z:?}");
        assert_eq!(z[0].id, "intel-rapl:0");
        assert_eq!(z[0].name.as_deref(), Some("package-0"));
        assert_eq!(z[0].max_energy_range_uj, Some(262143328850));
        assert_eq!(z[0].parent, None);
        assert_eq!(z[1].parent.as_deref(), Some("intel-rapl:0"));
        assert_eq!(z[1].label(), "intel-rapl:0:0 core");
        assert!(z.iter().all(|z| z.unreadable.is_none()));
    }

    #[test]
    fn unreadable_rapl_says_why() {
        let e = ReadError {
            path: "/sys/class/powercap/intel-rapl:0/energy_uj".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        let r = energy_unreadable_reason(&e);
        assert!(r.contains("root only since Linux 5.10"), "{r}");
        assert!(r.contains("intel-rapl:0/energy_uj"), "{r}");
        // A counter that does not hold a number is reported, not skipped.
        let d = tempfile::tempdir().unwrap();
        w(
            d.path(),
            "sys/class/powercap/intel-rapl:0/energy_uj",
            "garbage\n",
        );
        let z = Host::new(d.path()).powercap_zones();
        assert!(z[0]
            .unreadable
            .as_deref()
            .unwrap()
            .contains("unexpected content"));
        assert_eq!(
            zone_parent("intel-rapl:0:1").as_deref(),
            Some("intel-rapl:0")
        );
        assert_eq!(zone_parent("intel-rapl:1"), None);
    }

    #[test]
    fn disks_from_sysfs_and_from_proc_only() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for (dev, size) in [
            ("loop0", "0"),
            ("loop1", "2048"),
            ("ram0", "8192"),
            ("sda", "100"),
        ] {
            w(r, &format!("sys/block/{dev}/size"), &format!("{size}\n"));
        }
        w(r, "sys/block/mmcblk0/size", "x\n");
        assert_eq!(Host::new(r).disks(), ["loop1", "mmcblk0", "sda"]);
        // procfs' fixture diskstats alone, as in a recorded root with /proc but no sys/block.
        let p = truebench_fixtures::prometheus_procfs();
        let only = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(p.path().join("fixtures/proc/diskstats")).unwrap();
        w(only.path(), "proc/diskstats", &text);
        let disks = Host::new(only.path()).disks();
        assert!(disks.contains(&"sda".to_string()), "{disks:?}");
        assert!(disks.contains(&"nvme0n1".to_string()), "{disks:?}");
        assert!(disks.contains(&"mmcblk0".to_string()), "{disks:?}");
        assert!(!disks.iter().any(|d| d.starts_with("ram")), "{disks:?}");
        for part in ["sda1", "nvme0n1p1", "mmcblk0p2", "vda1"] {
            assert!(!disks.contains(&part.to_string()), "{part} in {disks:?}");
        }
        assert!(is_partition("sdc2", &["sdc", "sdc2"]));
        assert!(!is_partition("sdc", &["sdc", "sdc2"]));
        assert!(!is_partition("nvme0n10", &["nvme0n1"]));
        assert!(is_partition("nvme0n1p10", &["nvme0n1"]));
        assert!(!is_partition("dm-10", &["dm-1"]));
    }
}
