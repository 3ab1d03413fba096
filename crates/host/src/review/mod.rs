//! `truebench review` (sbc-bench -r): every performance-relevant setting of a machine, with its
//! value, whether it costs performance, why it matters and the file it was read from. Read
//! through `Host` only, so a fixture root is reviewed like the live machine. One file per
//! concern (bottom's one collector per data source).

mod cpu;
mod cpuidle;
mod firmware;
mod memory;
mod network;
mod opp;
mod pcie;
mod perf_control;
mod smart;
mod storage;
mod usb;

use crate::{Host, Inventory};
use serde::{Deserialize, Serialize};

pub use crate::irq::irq_counts;
pub use firmware::{parse_config_txt, THROTTLED_BITS};
pub use smart::smart_setting;
pub use storage::{mmc_cid_signs, MmcCid};

/// How a setting as found bears on performance.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// As it should be for performance.
    Ok,
    /// Worth knowing; not a loss by itself.
    Info,
    /// Costs performance or hides a problem: `why` says what to do.
    Warn,
}

/// One setting as found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Setting {
    /// `cpufreq`, `devfreq`, `gpu`, `pcie`, `memory`, `storage`, `network`, `usb`, `firmware`,
    /// `filesystem`.
    pub area: String,
    /// What it belongs to: `policy0 (cpu0-3)`, `nvme0n1`, `eth0`, `0000:01:00.0`.
    pub subject: String,
    /// `governor`, `io_is_busy`, `link`, `scheduler`…
    pub name: String,
    /// The value as read (`performance`, `5.0 GT/s x1`).
    pub value: String,
    /// How it bears on performance.
    pub severity: Severity,
    /// Why it matters, and what to do when it is a warning.
    pub why: Option<String>,
    /// The file (relative to the root) the value came from.
    pub source: String,
}

impl Setting {
    fn new(area: &str, subject: impl Into<String>, name: &str, value: impl Into<String>) -> Self {
        Setting {
            area: area.into(),
            subject: subject.into(),
            name: name.into(),
            value: value.into(),
            severity: Severity::Info,
            why: None,
            source: String::new(),
        }
    }

    fn from(mut self, source: impl Into<String>) -> Self {
        self.source = source.into();
        self
    }

    fn ok(mut self) -> Self {
        self.severity = Severity::Ok;
        self
    }

    fn warn(mut self, why: impl Into<String>) -> Self {
        self.severity = Severity::Warn;
        self.why = Some(why.into());
        self
    }

    fn because(mut self, why: impl Into<String>) -> Self {
        self.why = Some(why.into());
        self
    }
}

/// The areas in report order.
pub const AREAS: [&str; 11] = [
    "cpufreq",
    "cpuidle",
    "devfreq",
    "gpu",
    "pcie",
    "memory",
    "storage",
    "usb",
    "network",
    "firmware",
    "filesystem",
];

/// Every setting this module knows how to read, in area order.
pub fn review(host: &Host, inv: &Inventory) -> Vec<Setting> {
    let mut out = Vec::new();
    cpu::cpufreq(host, inv, &mut out);
    cpuidle::review(host, inv, &mut out);
    perf_control::review(inv, &mut out);
    opp::limits(inv, &mut out);
    cpu::devfreq(host, &mut out);
    cpu::gpu(host, &mut out);
    pcie::aspm(host, &mut out);
    pcie::links(host, &mut out);
    memory::review(host, inv, &mut out);
    storage::review(host, &mut out);
    usb::review(host, &mut out);
    network::review(host, inv, &mut out);
    firmware::review(host, &mut out);
    storage::filesystems(host, &mut out);
    out.sort_by_key(|s| {
        AREAS
            .iter()
            .position(|a| *a == s.area)
            .unwrap_or(AREAS.len())
    });
    out
}

/// The settings that differ between two reviews of the same machine (by area, subject and
/// name): `(before, after)`; a setting only in one of them is paired with `None`.
pub fn changes(before: &[Setting], after: &[Setting]) -> Vec<(Option<Setting>, Option<Setting>)> {
    let key = |s: &Setting| (s.area.clone(), s.subject.clone(), s.name.clone());
    let mut out = Vec::new();
    for b in before {
        match after.iter().find(|a| key(a) == key(b)) {
            Some(a) if a.value != b.value => out.push((Some(b.clone()), Some(a.clone()))),
            Some(_) => {}
            None => out.push((Some(b.clone()), None)),
        }
    }
    for a in after {
        if !before.iter().any(|b| key(a) == key(b)) {
            out.push((None, Some(a.clone())));
        }
    }
    out
}

/// The disks `smartctl` is worth asking about (not zram, loop, eMMC boot partitions…).
pub fn smart_disks(host: &Host) -> Vec<String> {
    storage::reviewed_disks(host)
        .into_iter()
        .filter(|d| !d.starts_with("mmcblk"))
        .collect()
}

/// `1800000` kHz → `1800 MHz`.
fn mhz(khz: u64) -> String {
    format!("{} MHz", khz / 1000)
}
