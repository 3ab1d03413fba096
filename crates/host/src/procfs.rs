//! Typed readers for the /proc files other crates need (one call = one read + a pure parse).
//! The sampler re-reads the same files through open handles and the same parsers.

use crate::parse::diskstats::{self, DiskStat};
use crate::parse::meminfo::Meminfo;
use crate::parse::netdev::{self, NetDev};
use crate::parse::pressure::{self, Pressure};
use crate::parse::softirqs::{self, Softirqs};
use crate::parse::stat::{self, Stat};
use crate::{Host, ReadError};

pub const MEMINFO: &str = "proc/meminfo";
pub const DISKSTATS: &str = "proc/diskstats";
pub const NET_DEV: &str = "proc/net/dev";
pub const SOFTIRQS: &str = "proc/softirqs";
pub const STAT: &str = "proc/stat";
pub const LOADAVG: &str = "proc/loadavg";
pub const HOSTNAME: &str = "proc/sys/kernel/hostname";

/// A PSI resource (`/proc/pressure/<name>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PressureKind {
    Cpu,
    Memory,
    Io,
}

impl PressureKind {
    pub const ALL: [PressureKind; 3] = [PressureKind::Cpu, PressureKind::Memory, PressureKind::Io];

    pub fn path(self) -> &'static str {
        match self {
            PressureKind::Cpu => "proc/pressure/cpu",
            PressureKind::Memory => "proc/pressure/memory",
            PressureKind::Io => "proc/pressure/io",
        }
    }
}

impl Host {
    /// `/proc/meminfo`, typed.
    pub fn meminfo(&self) -> Result<Meminfo, ReadError> {
        self.read_bytes(MEMINFO).map(|b| Meminfo::parse(&b))
    }

    /// The kernel's host name (`/proc/sys/kernel/hostname`), else `/etc/hostname` (recorded
    /// roots often keep only the latter). None when neither is there or both are empty.
    pub fn hostname(&self) -> Option<String> {
        self.read_trimmed(HOSTNAME)
            .or_else(|| self.read_trimmed("etc/hostname"))
    }

    /// The reading process's peak resident memory (`VmHWM` of `/proc/self/status`), KiB: what
    /// the bench examples print of themselves (getrusage's maximum would carry over that of
    /// the process that started them). None when the file or the line is not there.
    pub fn own_peak_kib(&self) -> Option<u64> {
        let status = self.read("proc/self/status").ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    }

    /// Every line of `/proc/diskstats` (disks and partitions alike; see `Host::disks` for the
    /// devices worth watching).
    pub fn diskstats(&self) -> Result<Vec<DiskStat>, ReadError> {
        self.read(DISKSTATS).map(|t| diskstats::parse(&t))
    }

    /// Every interface of `/proc/net/dev`.
    pub fn net_dev(&self) -> Result<Vec<NetDev>, ReadError> {
        self.read(NET_DEV).map(|t| netdev::parse(&t))
    }

    /// `/proc/stat`: total and per-CPU times, context switches, running tasks.
    pub fn stat(&self) -> Result<Stat, ReadError> {
        self.read(STAT).map(|t| stat::parse(&t))
    }

    /// `/proc/softirqs`.
    pub fn softirqs(&self) -> Result<Softirqs, ReadError> {
        self.read(SOFTIRQS).map(|t| softirqs::parse(&t))
    }

    /// `/proc/pressure/<kind>` (missing before 4.20 or with `psi=0`).
    pub fn pressure(&self, kind: PressureKind) -> Result<Pressure, ReadError> {
        self.read_bytes(kind.path()).map(|b| pressure::parse(&b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procfs_fixture_root() {
        let d = truebench_fixtures::prometheus_procfs();
        let h = Host::new(d.path().join("fixtures"));
        let m = h.meminfo().unwrap();
        assert_eq!(m.mem_total_kb, Some(15666184));
        let disks = h.diskstats().unwrap();
        assert!(disks.iter().any(|d| d.name == "sda"), "{disks:?}");
        let net = h.net_dev().unwrap();
        assert_eq!(
            net.iter()
                .find(|n| n.name == "lo")
                .unwrap()
                .counters
                .rx_bytes,
            1664039048
        );
        let s = h.softirqs().unwrap();
        assert_eq!(s.row("NET_TX"), Some(&[2419, 772][..]));
        let p = h.pressure(PressureKind::Memory).unwrap();
        assert_eq!(p.full.unwrap().total_us, 25);
        assert!(h.pressure(PressureKind::Cpu).unwrap().full.is_none());
        let e = Host::new("/nonexistent").meminfo().unwrap_err();
        assert!(e.to_string().contains("proc/meminfo"));
    }

    #[test]
    fn own_peak_from_the_status_file() {
        let d = tempfile::tempdir().unwrap();
        let h = Host::new(d.path());
        assert_eq!(h.own_peak_kib(), None);
        std::fs::create_dir_all(d.path().join("proc/self")).unwrap();
        std::fs::write(
            d.path().join("proc/self/status"),
            "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t  1234 kB\n",
        )
        .unwrap();
        assert_eq!(h.own_peak_kib(), Some(1234));
        assert!(Host::live().own_peak_kib().is_some_and(|k| k > 0));
    }

    #[test]
    fn hostname_from_kernel_then_etc() {
        let d = tempfile::tempdir().unwrap();
        let h = Host::new(d.path());
        assert_eq!(h.hostname(), None);
        std::fs::create_dir_all(d.path().join("etc")).unwrap();
        std::fs::write(d.path().join("etc/hostname"), "rock-5b\n").unwrap();
        assert_eq!(h.hostname().as_deref(), Some("rock-5b"));
        std::fs::create_dir_all(d.path().join("proc/sys/kernel")).unwrap();
        std::fs::write(d.path().join(HOSTNAME), "bench1\n").unwrap();
        assert_eq!(h.hostname().as_deref(), Some("bench1"));
    }
}
