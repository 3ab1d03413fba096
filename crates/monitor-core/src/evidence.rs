//! Evidence snapshots: the counters read before and after a run (and at phase boundaries)
//! whose differences the detectors turn into findings. The types and what is computed from
//! them; taking a snapshot reads the machine and is `truebench_monitor::capture`'s.
//!
//! Time: `unix_ms` is always set; `t` is the timeline second (`Sample::t`) when the caller
//! knows it. Detectors that need timeline time use [`Snapshot::timeline_t`], which falls back
//! to aligning `unix_ms` with the timeline's own samples.

use serde::{Deserialize, Serialize};

use truebench_model::timeline::Timeline;

/// One cpufreq policy's statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PolicyStats {
    /// `policyN`'s N.
    pub policy: u32,
    /// Index into `Inventory::clusters`.
    pub cluster: Option<usize>,
    /// Root-relative policy directory.
    pub dir: String,
    pub governor: Option<String>,
    pub scaling_max_khz: Option<u64>,
    pub cpuinfo_max_khz: Option<u64>,
    /// `stats/time_in_state` as `(kHz, ticks)`; ticks are 10 ms units (USER_HZ), not ms.
    pub time_in_state: Vec<(u64, u64)>,
    pub total_trans: Option<u64>,
}

/// A thermal cooling device (`sys/class/thermal/cooling_deviceN`). With
/// CONFIG_THERMAL_STATISTICS its `stats/time_in_state_ms` tells how long the kernel kept it
/// in each state — state > 0 on a `cpufreq` device is the kernel capping the clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CoolingDevice {
    /// `cooling_device0`
    pub name: String,
    /// `type`: `cpufreq-cpu0`, `thermal-cpufreq-0`, `Processor`, `pwm-fan`, …
    pub kind: Option<String>,
    pub cur_state: Option<u64>,
    pub max_state: Option<u64>,
    /// `(state, ms)` from `stats/time_in_state_ms`.
    pub time_in_state_ms: Vec<(u64, u64)>,
    pub total_trans: Option<u64>,
}

impl CoolingDevice {
    /// True for cooling devices that cap CPU clocks (as opposed to fans or devfreq).
    pub fn caps_cpu(&self) -> bool {
        self.kind.as_deref().is_some_and(|k| {
            let k = k.to_ascii_lowercase();
            k.contains("cpufreq") || k == "processor" || k.starts_with("cpu")
        })
    }
}

/// x86 `cpuN/thermal_throttle/{core,package}_throttle_count`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThrottleCount {
    pub cpu: u32,
    pub core: Option<u64>,
    pub package: Option<u64>,
    /// `core_throttle_total_time_ms` (kernels since 5.18 also count the duration).
    #[serde(default)]
    pub core_ms: Option<u64>,
    #[serde(default)]
    pub package_ms: Option<u64>,
}

/// One `proc/swaps` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SwapUse {
    pub filename: String,
    pub kind: String,
    pub size_kb: u64,
    pub used_kb: u64,
}

impl SwapUse {
    pub fn is_zram(&self) -> bool {
        self.filename.starts_with("/dev/zram")
    }
}

/// Busy and total ticks of one CPU from `proc/stat`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuTicks {
    pub cpu: u32,
    /// idle + iowait
    pub idle: u64,
    pub total: u64,
}

/// CPU time of one process from `proc/[pid]/stat`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProcessTimes {
    pub pid: u32,
    pub ppid: u32,
    pub comm: String,
    /// `starttime` (ticks after boot): tells a reused pid from the process seen before.
    pub start: u64,
    /// utime + stime, ticks.
    pub cpu_ticks: u64,
    /// cutime + cstime: children that exited and were waited for, ticks.
    pub children_ticks: u64,
}

/// Every process's CPU time at one moment.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProcessTable {
    /// Ticks per second (`sysconf(_SC_CLK_TCK)` on the live machine, else 100).
    pub clk_tck: u64,
    /// truebench itself (live machine only).
    pub self_pid: Option<u32>,
    /// Roots of process trees that are not background: truebench and the benchmark.
    pub exclude: Vec<u32>,
    /// Sorted by pid.
    pub procs: Vec<ProcessTimes>,
}

/// CPU time one process used between two process tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProcessDelta {
    pub pid: u32,
    pub comm: String,
    /// Own CPU seconds (all threads).
    pub cpu_s: f64,
    /// CPU seconds of children that exited in between (and were waited for).
    pub children_s: f64,
    /// Started after the first table.
    pub new: bool,
}

impl ProcessDelta {
    pub fn total_s(&self) -> f64 {
        self.cpu_s + self.children_s
    }
}

/// `pid (comm) S ppid …` → times. comm may hold spaces and parentheses, so fields are
/// counted from the *last* `)`.
pub fn parse_proc_stat(text: &str) -> Option<ProcessTimes> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    if close < open {
        return None;
    }
    let pid = text[..open].trim().parse().ok()?;
    let comm = text[open + 1..close].to_string();
    let f: Vec<&str> = text[close + 1..].split_whitespace().collect();
    // f[0] = state (field 3); field N is f[N - 3].
    let num = |n: usize| f.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    Some(ProcessTimes {
        pid,
        ppid: num(4)? as u32,
        comm,
        start: num(22).unwrap_or(0),
        cpu_ticks: num(14)? + num(15)?,
        children_ticks: num(16).unwrap_or(0) + num(17).unwrap_or(0),
    })
}

impl ProcessTable {
    pub fn get(&self, pid: u32) -> Option<&ProcessTimes> {
        self.procs
            .binary_search_by_key(&pid, |p| p.pid)
            .ok()
            .map(|i| &self.procs[i])
    }

    /// True when `pid` is one of `roots` or descends from one (by the ppid chain in this
    /// table).
    pub fn in_trees(&self, pid: u32, roots: &[u32]) -> bool {
        let mut p = pid;
        // The chain is bounded: a corrupt table with a ppid cycle must not loop forever.
        for _ in 0..64 {
            if roots.contains(&p) {
                return true;
            }
            match self.get(p) {
                Some(pt) if pt.ppid != p && pt.ppid != 0 => p = pt.ppid,
                _ => return false,
            }
        }
        false
    }

    /// CPU time each process used between `self` and `later`, most first; processes in the
    /// excluded trees (of either table) are left out. Kernel threads stay in: a busy
    /// `kswapd0` or `kworker` is evidence too.
    pub fn delta(&self, later: &ProcessTable) -> Vec<ProcessDelta> {
        let mut roots = self.exclude.clone();
        roots.extend(&later.exclude);
        let hz = later.clk_tck.max(1) as f64;
        let mut out = Vec::new();
        for p in &later.procs {
            if later.in_trees(p.pid, &roots) || self.in_trees(p.pid, &roots) {
                continue;
            }
            let before = self.get(p.pid).filter(|b| b.start == p.start);
            let (cpu, children, new) = match before {
                Some(b) => (
                    p.cpu_ticks.saturating_sub(b.cpu_ticks),
                    p.children_ticks.saturating_sub(b.children_ticks),
                    false,
                ),
                None => (p.cpu_ticks, p.children_ticks, true),
            };
            if cpu + children == 0 {
                continue;
            }
            out.push(ProcessDelta {
                pid: p.pid,
                comm: p.comm.clone(),
                cpu_s: cpu as f64 / hz,
                children_s: children as f64 / hz,
                new,
            });
        }
        out.sort_by(|a, b| b.total_s().total_cmp(&a.total_s()).then(a.pid.cmp(&b.pid)));
        out
    }
}

/// The counters detectors compare before and after.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Snapshot {
    /// Wall clock, Unix milliseconds.
    pub unix_ms: i64,
    /// Timeline seconds, when the caller passed them.
    pub t: Option<f64>,
    pub policies: Vec<PolicyStats>,
    pub cooling: Vec<CoolingDevice>,
    pub throttle_counts: Vec<ThrottleCount>,
    /// `sys/devices/system/cpu/online`.
    pub cpus_online: Option<Vec<u32>>,
    pub cpu_ticks: Vec<CpuTicks>,
    pub swaps: Vec<SwapUse>,
    pub swap_total_kb: Option<u64>,
    pub swap_free_kb: Option<u64>,
    pub zswap_enabled: Option<bool>,
    pub zswap_compressor: Option<String>,
    /// Any swap device is a zram device.
    pub zram_swap: bool,
    /// `proc/vmstat` pages swapped in and out since boot: swapping shows here even when
    /// the swap in use shrinks again before the second snapshot.
    pub pswpin: Option<u64>,
    pub pswpout: Option<u64>,
    /// Raspberry Pi `get_throttled` bits.
    pub rpi_throttled: Option<u32>,
    /// Where `rpi_throttled` came from (`vcgencmd get_throttled` or the sysfs file).
    pub rpi_throttled_source: Option<String>,
    /// `rpi_volt` hwmon `in0_lcrit_alarm` (under-voltage) on Raspberry Pi kernels.
    pub rpi_undervoltage_alarm: Option<bool>,
    pub soc_temp_c: Option<f64>,
    pub soc_sensor: Option<String>,
    pub processes: Option<ProcessTable>,
    /// cpuidle `usage` and `time` of every state of each CPU with idle states; empty
    /// without cpuidle (and in snapshots taken before it was read).
    #[serde(default)]
    pub idle: Vec<truebench_host::cpuidle::IdleCounters>,
    /// intel_pstate's limits and each policy's energy preference; None where the machine has
    /// no x86/ACPI performance control.
    #[serde(default)]
    pub perf_limits: Option<truebench_host::inventory::PerfLimits>,
    /// What could not be read, with the reason.
    pub missing: Vec<String>,
}

/// Root-relative files the detectors also name in their evidence (as `/{path}`).
pub const ONLINE_FILE: &str = "sys/devices/system/cpu/online";
pub const VMSTAT_FILE: &str = "proc/vmstat";
pub const ZSWAP_DIR: &str = "sys/module/zswap/parameters";

/// `50005`, `0x50005`, `throttled=0x50005` → bits. The sysfs file prints hex without `0x`.
pub fn parse_throttled(text: &str) -> Option<u32> {
    let v = text.trim();
    let v = v.rsplit('=').next().unwrap_or(v).trim();
    let hex = v
        .strip_prefix("0x")
        .or_else(|| v.strip_prefix("0X"))
        .unwrap_or(v);
    u32::from_str_radix(hex, 16).ok()
}

impl Snapshot {
    /// Seconds on the timeline's clock: `t` when given, else `unix_ms` aligned through the
    /// timeline's first sample (both clocks tick at the same rate over a run).
    pub fn timeline_t(&self, tl: &Timeline) -> Option<f64> {
        if let Some(t) = self.t {
            return Some(t);
        }
        let s = tl.samples.first()?;
        let origin_ms = s.unix_ms as f64 - s.t * 1000.0;
        Some((self.unix_ms as f64 - origin_ms) / 1000.0)
    }

    /// Swap in use, kB: from meminfo when present (it includes every device), else the sum
    /// of `proc/swaps`.
    pub fn swap_used_kb(&self) -> Option<u64> {
        match (self.swap_total_kb, self.swap_free_kb) {
            (Some(t), Some(f)) => Some(t.saturating_sub(f)),
            _ if !self.swaps.is_empty() => Some(self.swaps.iter().map(|s| s.used_kb).sum()),
            _ => None,
        }
    }

    pub fn policy(&self, policy: u32) -> Option<&PolicyStats> {
        self.policies.iter().find(|p| p.policy == policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_with_odd_comm() {
        let t =
            "1234 (tmux: server) S 1 1234 1234 0 -1 4194560 1 0 0 0 150 50 7 3 20 0 1 0 4242 0 0";
        let p = parse_proc_stat(t).unwrap();
        assert_eq!(p.pid, 1234);
        assert_eq!(p.comm, "tmux: server");
        assert_eq!(p.ppid, 1);
        assert_eq!(p.cpu_ticks, 200);
        assert_eq!(p.children_ticks, 10);
        assert_eq!(p.start, 4242);
        let q = parse_proc_stat("77 (a) b)) R 5 0 0 0 0 0 0 0 0 0 9 1 0 0 20 0 1 0 99").unwrap();
        assert_eq!(q.comm, "a) b)");
        assert_eq!(q.ppid, 5);
        assert_eq!(q.cpu_ticks, 10);
        assert!(parse_proc_stat("garbage").is_none());
        assert!(parse_proc_stat("1 (x) S").is_none());
    }

    #[test]
    fn throttled_values() {
        assert_eq!(parse_throttled("50005\n"), Some(0x50005));
        assert_eq!(parse_throttled("throttled=0x80008"), Some(0x80008));
        assert_eq!(parse_throttled("0x0"), Some(0));
        assert_eq!(parse_throttled("nope"), None);
    }

    fn table(procs: &[(u32, u32, &str, u64, u64)], exclude: &[u32]) -> ProcessTable {
        ProcessTable {
            clk_tck: 100,
            self_pid: None,
            exclude: exclude.to_vec(),
            procs: procs
                .iter()
                .map(|&(pid, ppid, comm, start, cpu)| ProcessTimes {
                    pid,
                    ppid,
                    comm: comm.into(),
                    start,
                    cpu_ticks: cpu,
                    children_ticks: 0,
                })
                .collect(),
        }
    }

    #[test]
    fn deltas_skip_excluded_trees_and_reused_pids() {
        let a = table(
            &[
                (1, 0, "init", 1, 10),
                (50, 1, "cron", 5, 100),
                (60, 1, "tb", 6, 0),
                (61, 60, "bench", 7, 0),
                (70, 1, "old", 8, 30),
            ],
            &[60],
        );
        let b = table(
            &[
                (1, 0, "init", 1, 10),
                (50, 1, "cron", 5, 350),
                (60, 1, "tb", 6, 90),
                (61, 60, "bench", 7, 900),
                (70, 1, "new", 99, 40),
            ],
            &[60],
        );
        let d = a.delta(&b);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].comm, "cron");
        assert!((d[0].cpu_s - 2.5).abs() < 1e-9);
        // pid 70 was reused (other start time): all of its time is new.
        assert_eq!(d[1].comm, "new");
        assert!(d[1].new);
        assert!((d[1].cpu_s - 0.4).abs() < 1e-9);
    }

    /// Another benchmark is background even when it is named like this one: only this
    /// process and its children are excluded, judged by pid, never by name.
    #[test]
    fn another_truebench_and_its_children_are_background() {
        let a = table(
            &[
                (60, 1, "truebench", 6, 0),
                (61, 60, "7zz", 7, 0),
                (80, 1, "truebench", 8, 0),
                (81, 80, "7zz", 9, 0),
            ],
            &[60],
        );
        let b = table(
            &[
                (60, 1, "truebench", 6, 500),
                (61, 60, "7zz", 7, 900),
                (80, 1, "truebench", 8, 400),
                (81, 80, "7zz", 9, 800),
            ],
            &[60],
        );
        let d = a.delta(&b);
        let pids: Vec<u32> = d.iter().map(|d| d.pid).collect();
        assert_eq!(pids, [81, 80], "{d:?}");
    }

    #[test]
    fn ppid_cycles_terminate() {
        let t = table(&[(5, 6, "a", 0, 0), (6, 5, "b", 0, 0)], &[]);
        assert!(!t.in_trees(5, &[9]));
    }
}
