//! Taking evidence snapshots: the counters of `truebench_monitor_core::evidence`, read from
//! the machine before and after a run (and at phase boundaries).
//!
//! A snapshot is cheap enough to take at every phase boundary (a few dozen sysfs files plus
//! one `proc/[pid]/stat` per process) but is *not* a sampler tick: it lists every process.

use truebench_host::parse::{cpufreq, cpulist, stat, swaps};
use truebench_host::{Host, Inventory};
use truebench_monitor_core::evidence::{
    parse_proc_stat, parse_throttled, CoolingDevice, CpuTicks, PolicyStats, ProcessTable,
    ProcessTimes, Snapshot, SwapUse, ThrottleCount, ONLINE_FILE, VMSTAT_FILE, ZSWAP_DIR,
};

/// What the caller can add to a snapshot.
#[derive(Debug, Clone, Default)]
pub struct SnapshotOptions {
    /// Timeline seconds (`Sample::t`) at which the snapshot is taken.
    pub t: Option<f64>,
    /// `vcgencmd get_throttled`, when the caller (the sampler's vcgencmd thread) has it.
    pub rpi_throttled: Option<u32>,
    /// Process trees that are not background (the benchmark's pids). truebench's own pid is
    /// always excluded on the live machine.
    pub exclude_pids: Vec<u32>,
    /// Do not list processes (saves the `proc/[pid]/stat` walk).
    pub skip_processes: bool,
}

const CPU_DIR: &str = "sys/devices/system/cpu";

/// Read every `proc/[pid]/stat`. Processes that vanish while we list are skipped.
pub fn processes(host: &Host, exclude: &[u32]) -> ProcessTable {
    let live = host.is_live();
    let clk_tck = if live {
        // SAFETY: sysconf has no preconditions.
        let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if t > 0 {
            t as u64
        } else {
            100
        }
    } else {
        100
    };
    let self_pid = live.then(std::process::id);
    let mut procs: Vec<ProcessTimes> = host
        .list("proc")
        .into_iter()
        .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|n| host.read(format!("proc/{n}/stat")).ok())
        .filter_map(|t| parse_proc_stat(&t))
        .collect();
    procs.sort_by_key(|p| p.pid);
    let mut ex: Vec<u32> = exclude.to_vec();
    ex.extend(self_pid);
    ex.sort_unstable();
    ex.dedup();
    ProcessTable {
        clk_tck,
        self_pid,
        exclude: ex,
        procs,
    }
}

fn now_unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The firmware's `get_throttled` file: `soc:firmware` on Pi 1–4 kernels, below
/// `soc@107c000000` on a Pi 5 — so search the platform bus rather than fix one path.
fn throttled_file(host: &Host) -> Option<String> {
    let fixed = "sys/devices/platform/soc/soc:firmware/get_throttled";
    if host.exists(fixed) {
        return Some(fixed.to_string());
    }
    let base = "sys/devices/platform";
    for soc in host.list(base).into_iter().filter(|n| n.starts_with("soc")) {
        let d = format!("{base}/{soc}");
        for fw in host
            .list(&d)
            .into_iter()
            .filter(|n| n.ends_with("firmware"))
        {
            let f = format!("{d}/{fw}/get_throttled");
            if host.exists(&f) {
                return Some(f);
            }
        }
    }
    None
}

/// Take a snapshot with default options (no timeline time, no vcgencmd value, only
/// truebench's own processes excluded).
pub fn snapshot(host: &Host, inv: &Inventory) -> Snapshot {
    snapshot_with(host, inv, &SnapshotOptions::default())
}

pub fn snapshot_with(host: &Host, inv: &Inventory, opts: &SnapshotOptions) -> Snapshot {
    let mut s = Snapshot {
        unix_ms: now_unix_ms(),
        t: opts.t,
        ..Default::default()
    };
    read_policies(&mut s, host, inv);
    read_cooling(&mut s, host);
    read_throttle_counts(&mut s, host, inv);
    match host.read(ONLINE_FILE) {
        Ok(t) => s.cpus_online = Some(cpulist::parse(&t)),
        Err(e) => s.missing.push(format!("online CPUs: {e}")),
    }
    match host.read("proc/stat") {
        Ok(t) => {
            s.cpu_ticks = stat::parse(&t)
                .cpus
                .into_iter()
                .map(|(cpu, c)| CpuTicks {
                    cpu,
                    idle: c.idle + c.iowait,
                    total: c.total(),
                })
                .collect()
        }
        Err(e) => s.missing.push(format!("CPU times: {e}")),
    }
    read_swap(&mut s, host);
    read_idle(&mut s, host, inv);
    read_rpi(&mut s, host, inv, opts.rpi_throttled);
    if let Some(c) = &inv.thermal.chosen {
        s.soc_sensor = Some(c.name.clone());
        s.soc_temp_c = host.read_i64(&c.path).map(|m| m as f64 / 1000.0);
    }
    if let Some(pc) = &inv.perf_control {
        let dirs: Vec<(u32, String)> = pc
            .policies
            .iter()
            .map(|p| (p.policy, p.dir.clone()))
            .collect();
        s.perf_limits = Some(truebench_host::inventory::perf_limits(host, &dirs));
    }
    if !opts.skip_processes {
        s.processes = Some(processes(host, &opts.exclude_pids));
    }
    s
}

fn read_policies(snap: &mut Snapshot, host: &Host, inv: &Inventory) {
    for cl in &inv.clusters {
        for &pol in &cl.policies {
            let dir = match (&cl.policy_dir, cl.policy) {
                // The cluster's own directory may be a legacy cpuN/cpufreq path.
                (Some(d), Some(p)) if p == pol => d.clone(),
                _ => format!("{CPU_DIR}/cpufreq/policy{pol}"),
            };
            let tis = host
                .read(format!("{dir}/stats/time_in_state"))
                .map(|t| cpufreq::time_in_state(&t))
                .unwrap_or_default();
            snap.policies.push(PolicyStats {
                policy: pol,
                cluster: Some(cl.id),
                governor: host.read_trimmed(format!("{dir}/scaling_governor")),
                scaling_max_khz: host.read_u64(format!("{dir}/scaling_max_freq")),
                cpuinfo_max_khz: host.read_u64(format!("{dir}/cpuinfo_max_freq")),
                total_trans: host.read_u64(format!("{dir}/stats/total_trans")),
                time_in_state: tis,
                dir,
            });
        }
    }
}

/// The cpuidle counters of every CPU with idle states (nothing without cpuidle).
fn read_idle(snap: &mut Snapshot, host: &Host, inv: &Inventory) {
    let Some(ci) = &inv.cpuidle else { return };
    for g in &ci.groups {
        for &cpu in &g.cpus {
            snap.idle
                .push(truebench_host::cpuidle::counters(host, cpu, g.states.len()));
        }
    }
}

fn read_cooling(snap: &mut Snapshot, host: &Host) {
    let base = "sys/class/thermal";
    for name in host.list(base) {
        if !name.starts_with("cooling_device") {
            continue;
        }
        let d = format!("{base}/{name}");
        let tis = host
            .read(format!("{d}/stats/time_in_state_ms"))
            .map(|t| {
                t.lines()
                    .filter_map(|l| {
                        // `state0\t12345` (ms)
                        let mut it = l.split_whitespace();
                        let st = it.next()?.strip_prefix("state")?.parse().ok()?;
                        Some((st, it.next()?.parse().ok()?))
                    })
                    .collect()
            })
            .unwrap_or_default();
        snap.cooling.push(CoolingDevice {
            kind: host.read_trimmed(format!("{d}/type")),
            cur_state: host.read_u64(format!("{d}/cur_state")),
            max_state: host.read_u64(format!("{d}/max_state")),
            total_trans: host.read_u64(format!("{d}/stats/total_trans")),
            time_in_state_ms: tis,
            name,
        });
    }
}

fn read_throttle_counts(snap: &mut Snapshot, host: &Host, inv: &Inventory) {
    for cpu in &inv.cpus {
        let d = format!("{CPU_DIR}/cpu{}/thermal_throttle", cpu.id);
        let core = host.read_u64(format!("{d}/core_throttle_count"));
        let package = host.read_u64(format!("{d}/package_throttle_count"));
        if core.is_some() || package.is_some() {
            snap.throttle_counts.push(ThrottleCount {
                cpu: cpu.id,
                core,
                package,
                core_ms: host.read_u64(format!("{d}/core_throttle_total_time_ms")),
                package_ms: host.read_u64(format!("{d}/package_throttle_total_time_ms")),
            });
        }
    }
}

fn read_swap(snap: &mut Snapshot, host: &Host) {
    match host.read("proc/swaps") {
        Ok(t) => {
            snap.swaps = swaps::parse(&t)
                .into_iter()
                .map(|e| SwapUse {
                    filename: e.filename,
                    kind: e.kind,
                    size_kb: e.size_kb,
                    used_kb: e.used_kb,
                })
                .collect()
        }
        Err(e) => snap.missing.push(format!("swap: {e}")),
    }
    snap.zram_swap = snap.swaps.iter().any(SwapUse::is_zram);
    match host.meminfo() {
        Ok(mi) => {
            snap.swap_total_kb = mi.swap_total_kb;
            snap.swap_free_kb = mi.swap_free_kb;
        }
        Err(e) => snap.missing.push(format!("memory: {e}")),
    }
    if let Ok(t) = host.read(VMSTAT_FILE) {
        for l in t.lines() {
            let mut it = l.split_whitespace();
            match (it.next(), it.next().and_then(|v| v.parse().ok())) {
                (Some("pswpin"), v) => snap.pswpin = v,
                (Some("pswpout"), v) => snap.pswpout = v,
                _ => {}
            }
        }
    }
    let zp = ZSWAP_DIR;
    snap.zswap_enabled = host
        .read_trimmed(format!("{zp}/enabled"))
        .map(|v| matches!(v.as_str(), "Y" | "y" | "1"));
    snap.zswap_compressor = host.read_trimmed(format!("{zp}/compressor"));
}

fn read_rpi(snap: &mut Snapshot, host: &Host, inv: &Inventory, given: Option<u32>) {
    if let Some(v) = given {
        snap.rpi_throttled = Some(v);
        snap.rpi_throttled_source = Some("vcgencmd get_throttled".into());
    } else if let Some(f) = throttled_file(host) {
        match host.read(&f) {
            Ok(t) => match parse_throttled(&t) {
                Some(v) => {
                    snap.rpi_throttled = Some(v);
                    snap.rpi_throttled_source = Some(format!("/{f}"));
                }
                None => snap
                    .missing
                    .push(format!("/{f}: unexpected content {:?}", t.trim())),
            },
            Err(e) => snap.missing.push(format!("get_throttled: {e}")),
        }
    }
    if let Some(chip) = inv
        .thermal
        .hwmon
        .iter()
        .find(|c| c.name.as_deref() == Some("rpi_volt"))
    {
        snap.rpi_undervoltage_alarm = host
            .read_u64(format!("{}/in0_lcrit_alarm", chip.path))
            .map(|v| v != 0);
    }
}
