//! `truebench clocks`: measured vs advertised clock for every OPP of every cluster (sbc-bench's
//! "Checking cpufreq OPP" with wtarreau's `mhz`).
//!
//! Per cluster: pin to its first online CPU, performance governor, walk every OPP from the
//! highest by setting scaling_max_freq (and scaling_min_freq where needed) through [`Tuning`],
//! measure, and finally restore everything. The measurement is a [`ClockProbe`] so the walk can
//! be tested on fixture roots whose cpufreq files do not change any real clock.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use truebench_host::inventory::Cluster;
use truebench_host::{Host, Inventory};
pub use truebench_model::clocks::{
    AllCores, ClockPoint, ClusterClocks, CoreClock, TurboClocks, WalkMode,
};
use truebench_model::finding::Finding;
use truebench_monitor_core::clocks_text;
use truebench_monitor_core::detect::clock_walk::{judge_walk, WalkVerdict};
use truebench_monitor_core::detect::clocks::{judge_cold, ClockCheck};
use truebench_monitor_core::detect::turbo_clock::judge_turbo;
use truebench_tuning::{Tuning, TuningError};
use truebench_workloads::clock::{self, ClockError, ClockMeasurement, ClockOptions};

pub const SCHEMA_VERSION: u32 = 1;

/// Drivers for which scaling_max_freq is only a request to hardware or firmware.
const HINT_DRIVERS: &[&str] = &[
    "intel_pstate",
    "amd-pstate",
    "amd-pstate-epp",
    "amd_pstate",
    "amd_pstate_epp",
    "cppc_cpufreq",
];

/// What measures a clock. Production: [`KernelProbe`]; tests: a fake that answers by the
/// cpufreq files it finds in the fixture root.
pub trait ClockProbe {
    /// Measure `cpu` at whatever clock it runs now.
    fn measure(&mut self, host: &Host, cpu: u32) -> Result<ClockMeasurement, ClockError>;
    /// Measure all `cpus` at the same time.
    fn measure_many(
        &mut self,
        host: &Host,
        cpus: &[u32],
    ) -> Vec<Result<ClockMeasurement, ClockError>>;
    /// Put a load on `cpus` until the handle is dropped.
    fn start_load(&mut self, cpus: &[u32]) -> LoadHandle;
    /// The firmware's own idea of the ARM clock (Raspberry Pi: `vcgencmd measure_clock arm`).
    fn firmware_mhz(&mut self, _host: &Host) -> Option<f64> {
        None
    }
    /// Something the reader must know about where the measurement ran.
    fn note(&self, _host: &Host) -> Option<String> {
        None
    }
}

/// Busy threads that stop and are joined on drop.
pub struct LoadHandle {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl LoadHandle {
    /// No load (for probes that simulate it).
    pub fn none() -> LoadHandle {
        LoadHandle {
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
        }
    }

    /// One spinning thread per CPU, pinned when possible.
    pub fn spin(cpus: &[u32]) -> LoadHandle {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = cpus
            .iter()
            .map(|&cpu| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    // An unpinnable CPU still gets load from the scheduler's placement.
                    if clock::spin(Some(cpu), &stop).is_err() {
                        let _ = clock::spin(None, &stop);
                    }
                })
            })
            .collect();
        LoadHandle { stop, threads }
    }
}

impl Drop for LoadHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The real measurement: [`truebench_workloads::clock`].
pub struct KernelProbe {
    pub opts: ClockOptions,
    live: Host,
}

impl KernelProbe {
    pub fn new(opts: ClockOptions) -> Self {
        KernelProbe {
            opts,
            live: Host::live(),
        }
    }

    /// A recorded root's CPU numbers mean nothing here: measure on a CPU of this machine.
    fn real_cpu(&self, host: &Host, cpu: u32, i: usize) -> u32 {
        if host.is_live() {
            return cpu;
        }
        let allowed = clock::allowed_cpus();
        if allowed.is_empty() {
            0
        } else {
            allowed[i % allowed.len()]
        }
    }
}

impl ClockProbe for KernelProbe {
    fn measure(&mut self, host: &Host, cpu: u32) -> Result<ClockMeasurement, ClockError> {
        let real = self.real_cpu(host, cpu, 0);
        clock::measure(&self.live, real, &self.opts).map(|mut m| {
            m.cpu = cpu;
            m
        })
    }

    fn measure_many(
        &mut self,
        host: &Host,
        cpus: &[u32],
    ) -> Vec<Result<ClockMeasurement, ClockError>> {
        let real: Vec<u32> = cpus
            .iter()
            .enumerate()
            .map(|(i, &c)| self.real_cpu(host, c, i))
            .collect();
        let mut out = clock::measure_many(&self.live, &real, &self.opts);
        for (r, &cpu) in out.iter_mut().zip(cpus) {
            if let Ok(m) = r {
                m.cpu = cpu;
            }
        }
        out
    }

    fn start_load(&mut self, cpus: &[u32]) -> LoadHandle {
        LoadHandle::spin(cpus)
    }

    fn firmware_mhz(&mut self, host: &Host) -> Option<f64> {
        let v: PathBuf = truebench_monitor::rpi::find_vcgencmd(host)?;
        truebench_monitor::rpi::read_once(&v, false).arm_mhz
    }

    fn note(&self, host: &Host) -> Option<String> {
        (!host.is_live()).then(|| {
            format!(
                "{} is a recorded machine: OPPs are set in its files, but every clock is \
                 measured on this machine's CPUs",
                host.root().display()
            )
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClocksOptions {
    /// Skip OPPs above this (sbc-bench's `MaxKHz`).
    pub max_khz: Option<u64>,
    /// Skip OPPs below this (`MinKHz`).
    pub min_khz: Option<u64>,
    /// Also measure every CPU at once, idle and under load.
    pub all_cores: bool,
    /// How long the load runs before the under-load measurement (heats the SoC).
    pub load_heat: Duration,
    /// Walk the OPPs (needs Tuning). Off: measure at the current clock only.
    pub tune: bool,
    /// Between the monitoring's samples (`clocks`' own Session; a run samples at its own).
    pub sample_interval: Duration,
}

impl Default for ClocksOptions {
    fn default() -> Self {
        ClocksOptions {
            max_khz: None,
            min_khz: None,
            all_cores: false,
            load_heat: Duration::from_secs(5),
            tune: true,
            sample_interval: Duration::from_millis(250),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClocksReport {
    pub schema_version: u32,
    pub root: String,
    pub clusters: Vec<ClusterClocks>,
    pub all_cores: Option<AllCores>,
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    pub tuning: TuningSummary,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TuningSummary {
    /// Whether settings were changed.
    pub applied: bool,
    /// Why not, when they were not.
    pub reason: Option<String>,
    pub restored: Vec<String>,
    pub failed: Vec<(String, String)>,
}

/// The walk inside a session the caller owns (`truebench run` keeps one Tuning for the whole
/// run): changes go through `tuning` and are NOT restored here — the walk leaves each cluster
/// at its lowest OPP, so the caller restores before measuring anything else. Without a
/// session (`None`), every cluster is measured at its current clock and `reason` says why.
/// `stop` raised (Ctrl-C, SIGTERM) ends the walk before its next OPP: the report holds what
/// was measured, and the caller's phase is marked interrupted.
pub fn run_with<P: ClockProbe + ?Sized>(
    host: &Host,
    inv: &Inventory,
    opts: &ClocksOptions,
    probe: &mut P,
    tuning: &mut Option<Tuning>,
    reason: Option<String>,
    stop: &AtomicBool,
) -> ClocksReport {
    let mut report = measure(host, inv, opts, probe, tuning, reason, stop);
    report.tuning.applied = tuning.is_some();
    report
}

fn measure<P: ClockProbe + ?Sized>(
    host: &Host,
    inv: &Inventory,
    opts: &ClocksOptions,
    probe: &mut P,
    tuning: &mut Option<Tuning>,
    reason: Option<String>,
    stop: &AtomicBool,
) -> ClocksReport {
    let mut notes = Vec::new();
    let mut summary = TuningSummary {
        reason,
        ..Default::default()
    };
    notes.extend(probe.note(host));

    let clusters = clusters_of(inv);
    if let Some(r) = summary.reason.as_ref().filter(|_| tuning.is_none()) {
        if clusters.iter().any(|c| c.policy_dir.is_some()) {
            notes.push(format!(
                "{r}; every cluster is measured at its current clock"
            ));
        }
    }

    let mut out = Vec::new();
    for c in &clusters {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        out.push(check_cluster(
            host,
            inv,
            c,
            opts,
            probe,
            tuning,
            &mut summary,
            stop,
        ));
    }

    let all_cores = (opts.all_cores && !stop.load(Ordering::SeqCst))
        .then(|| check_all_cores(host, inv, &clusters, opts, probe, tuning));

    let findings = out
        .iter()
        .filter_map(|cc| {
            let mut f = deviation_finding(cc)?;
            let c = clusters.iter().find(|c| c.id == cc.id);
            crate::clocks_limits::explain_finding(c, cc, &mut f);
            Some(f)
        })
        .collect();
    ClocksReport {
        schema_version: SCHEMA_VERSION,
        root: host.root().display().to_string(),
        clusters: out,
        all_cores,
        findings,
        notes,
        tuning: summary,
    }
}

/// Every CPU at once, idle and after `opts.load_heat` of load on all of them, at the highest
/// allowed OPP (set through `tuning` when there is one) — sbc-bench's extensive-mode check.
pub fn all_cores<P: ClockProbe + ?Sized>(
    host: &Host,
    inv: &Inventory,
    opts: &ClocksOptions,
    probe: &mut P,
    tuning: &mut Option<Tuning>,
) -> AllCores {
    check_all_cores(host, inv, &clusters_of(inv), opts, probe, tuning)
}

/// The inventory's clusters; a machine without cpufreq or topology still has its CPUs.
pub(crate) fn clusters_of(inv: &Inventory) -> Vec<Cluster> {
    if !inv.clusters.is_empty() {
        return inv.clusters.clone();
    }
    let mut cpus: Vec<u32> = inv.cpus.iter().map(|c| c.id).collect();
    if cpus.is_empty() {
        cpus = clock::allowed_cpus();
    }
    if cpus.is_empty() {
        cpus.push(0);
    }
    vec![Cluster {
        id: 0,
        core_type: inv.cpus.first().and_then(|c| c.core_type.clone()),
        cpus,
        ..Default::default()
    }]
}

pub(crate) fn no_walk_reason(e: &TuningError) -> String {
    match e {
        TuningError::PermissionDenied { .. } | TuningError::ReadOnly { .. } => {
            format!("the OPP walk needs root: {e}")
        }
        TuningError::Journal { source, .. }
            if source.kind() == std::io::ErrorKind::PermissionDenied =>
        {
            format!("the OPP walk needs root: {e}")
        }
        _ => format!("the OPP walk was not possible: {e}"),
    }
}

fn is_permission(e: &TuningError) -> bool {
    matches!(
        e,
        TuningError::PermissionDenied { .. } | TuningError::ReadOnly { .. }
    )
}

fn is_online(inv: &Inventory, id: u32) -> bool {
    inv.cpus
        .iter()
        .find(|cpu| cpu.id == id)
        .is_none_or(|cpu| cpu.online)
}

/// The cluster's first online CPU — on the live machine the first one this process may also
/// run on (a container's cpuset or `taskset` can exclude some).
fn first_online(host: &Host, inv: &Inventory, c: &Cluster) -> Option<u32> {
    let allowed = if host.is_live() {
        clock::allowed_cpus()
    } else {
        Vec::new()
    };
    let usable = |id: &u32| allowed.is_empty() || allowed.contains(id);
    let online = || c.cpus.iter().copied().filter(|&id| is_online(inv, id));
    online().find(usable).or_else(|| online().next())
}

fn read_khz(host: &Host, dir: &str, file: &str) -> Option<u64> {
    host.read_u64(format!("{dir}/{file}"))
}

/// The current clock cpufreq reports for a cluster, MHz.
fn reported_mhz(host: &Host, c: &Cluster) -> Option<u32> {
    let f = c.cur_freq_file.as_ref()?;
    host.read_u64(f).map(|k| (k / 1000) as u32)
}

/// OPPs to walk, highest first, after MaxKHz/MinKHz.
/// How many clocks the walk will measure (one per OPP walked, one per cluster without a walk,
/// and every CPU twice with `--all-cores`): the length of its progress.
pub fn planned_points(host: &Host, inv: &Inventory, opts: &ClocksOptions) -> usize {
    let walked: usize = clusters_of(inv)
        .iter()
        .map(|c| match c.policy_dir.as_deref().filter(|_| opts.tune) {
            Some(dir) => opps_to_walk(host, c, dir, opts, base_khz(turbo_clocks(inv, c).as_ref()))
                .len()
                .max(1),
            None => 1,
        })
        .sum();
    walked + if opts.all_cores { 2 } else { 0 }
}

/// The base clock of a cluster without a frequency table, kHz (both sources give whole MHz).
fn base_khz(t: Option<&TurboClocks>) -> Option<u64> {
    t.map(|t| t.base_mhz as u64 * 1000)
}

fn opps_to_walk(
    host: &Host,
    c: &Cluster,
    dir: &str,
    opts: &ClocksOptions,
    base_khz: Option<u64>,
) -> Vec<u64> {
    let mut opps: Vec<u64> = c.opps_khz.clone();
    if opps.is_empty() {
        // No frequency table (intel_pstate, amd-pstate, cppc): the limits are all there is,
        // and the base clock between them where the driver gives it.
        let max = read_khz(host, dir, "cpuinfo_max_freq");
        let min = read_khz(host, dir, "cpuinfo_min_freq").filter(|&m| m > 0);
        opps.extend(max);
        opps.extend(min.filter(|m| Some(*m) != max));
        opps.extend(base_khz.filter(|&b| max.is_none_or(|m| b < m) && min.is_none_or(|m| b > m)));
    }
    opps.sort_unstable_by(|a, b| b.cmp(a));
    opps.dedup();
    opps.retain(|&k| opts.max_khz.is_none_or(|m| k <= m) && opts.min_khz.is_none_or(|m| k >= m));
    opps
}

pub(crate) fn point_from(
    m: Result<ClockMeasurement, ClockError>,
    opp_khz: Option<u64>,
    reported: Option<u32>,
    firmware: Option<f64>,
) -> ClockPoint {
    let opp_mhz = opp_khz.map(|k| (k / 1000) as u32);
    match m {
        Ok(m) => ClockPoint {
            opp_mhz,
            opp_khz,
            reported_mhz: reported,
            firmware_mhz: firmware,
            measured_mhz: Some(m.mhz),
            deviation_pct: opp_mhz
                .filter(|&o| o > 0)
                .map(|o| (m.mhz - o as f64) / o as f64 * 100.0),
            samples_mhz: m.samples_mhz,
            effective_mhz: Some(m.effective_mhz),
            rejected: Some(m.rejected),
            duration_ms: Some(m.duration_ms),
            error: None,
        },
        Err(e) => ClockPoint {
            opp_mhz,
            opp_khz,
            reported_mhz: reported,
            firmware_mhz: firmware,
            measured_mhz: None,
            samples_mhz: Vec::new(),
            effective_mhz: None,
            deviation_pct: None,
            rejected: None,
            duration_ms: None,
            error: Some(e.to_string()),
        },
    }
}

#[allow(clippy::too_many_arguments)]
fn check_cluster<P: ClockProbe + ?Sized>(
    host: &Host,
    inv: &Inventory,
    c: &Cluster,
    opts: &ClocksOptions,
    probe: &mut P,
    tuning: &mut Option<Tuning>,
    summary: &mut TuningSummary,
    stop: &AtomicBool,
) -> ClusterClocks {
    let mut cc = ClusterClocks {
        id: c.id,
        cpus: c.cpus.clone(),
        cpu_range: c.cpu_range(),
        core_type: c.core_type.clone(),
        driver: c.driver.clone(),
        measured_cpu: first_online(host, inv, c),
        mode: WalkMode::NoCpufreq,
        enforced: None,
        points: Vec::new(),
        notes: Vec::new(),
        turbo: turbo_clocks(inv, c),
    };
    if let Some(t) = &cc.turbo {
        cc.notes.push(format!(
            "no frequency table: the highest limit is the {} MHz boost clock, the base clock \
             {} MHz ({}); the clock is judged against both",
            t.boost_mhz, t.base_mhz, t.from
        ));
    }
    let Some(cpu) = cc.measured_cpu else {
        cc.mode = WalkMode::Offline;
        cc.notes.push("every CPU of this cluster is offline".into());
        return cc;
    };
    let Some(dir) = c.policy_dir.clone() else {
        cc.mode = WalkMode::NoCpufreq;
        let m = probe.measure(host, cpu);
        let fw = probe.firmware_mhz(host);
        cc.points.push(point_from(m, None, None, fw));
        let fw = probe_has_firmware(&cc);
        explain(host, inv, c, &mut cc, fw);
        return cc;
    };

    let mut walked = false;
    if let Some(t) = tuning.as_mut() {
        walked = walk(host, c, &dir, cpu, opts, probe, t, &mut cc, summary, stop);
    }
    if !walked {
        cc.mode = WalkMode::CurrentClock;
        let needs_root = summary
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("the OPP walk needs root"));
        cc.notes.push(if needs_root {
            "measured at the current clock only: the OPP walk needs root".into()
        } else {
            "measured at the current clock only".into()
        });
        let m = probe.measure(host, cpu);
        let reported = reported_mhz(host, c);
        let fw = probe.firmware_mhz(host);
        cc.points.push(point_from(m, None, reported, fw));
    }
    let fw = probe_has_firmware(&cc);
    explain(host, inv, c, &mut cc, fw);
    cc
}

fn probe_has_firmware(cc: &ClusterClocks) -> bool {
    cc.points.iter().any(|p| p.firmware_mhz.is_some())
}

/// Walk the OPPs; false when nothing could be set (then the caller measures the current clock).
#[allow(clippy::too_many_arguments)]
fn walk<P: ClockProbe + ?Sized>(
    host: &Host,
    c: &Cluster,
    dir: &str,
    cpu: u32,
    opts: &ClocksOptions,
    probe: &mut P,
    t: &mut Tuning,
    cc: &mut ClusterClocks,
    summary: &mut TuningSummary,
    stop: &AtomicBool,
) -> bool {
    let opps = opps_to_walk(host, c, dir, opts, base_khz(cc.turbo.as_ref()));
    if opps.is_empty() {
        cc.notes.push(match (opts.max_khz, opts.min_khz) {
            (None, None) => "cpufreq lists no OPPs for this cluster".into(),
            _ => "no OPP within MinKHz/MaxKHz".into(),
        });
        return false;
    }
    // With the performance governor the clock follows scaling_max_freq; without it, min and
    // max both pin each OPP.
    let performance = c.governors.iter().any(|g| g == "performance");
    if performance {
        if let Err(e) = t.set_governor(c, "performance") {
            return tuning_failed(e, cc, summary);
        }
    } else {
        cc.notes.push(format!(
            "no performance governor (available: {}): scaling_min_freq and scaling_max_freq \
             both set to each OPP",
            if c.governors.is_empty() {
                "none listed".to_string()
            } else {
                c.governors.join(" ")
            }
        ));
    }
    let lowest = read_khz(host, dir, "cpuinfo_min_freq")
        .filter(|&k| k > 0)
        .or_else(|| c.opps_khz.iter().copied().min())
        .unwrap_or(0);
    cc.mode = WalkMode::OppWalk;
    for (i, &khz) in opps.iter().enumerate() {
        // Each OPP's measurement takes a while (on a slow board seconds): Ctrl-C ends the walk
        // here rather than after every OPP.
        if stop.load(Ordering::SeqCst) {
            cc.notes
                .push(format!("interrupted after {i} of {} OPPs", opps.len()));
            break;
        }
        let min = if performance { lowest.min(khz) } else { khz };
        if let Err(e) = t.set_range_khz(c, min, khz) {
            if i == 0 && is_permission(&e) {
                return tuning_failed(e, cc, summary);
            }
            cc.points.push(point_from(
                Err(ClockError::Options(format!("setting the OPP failed: {e}"))),
                Some(khz),
                None,
                None,
            ));
            continue;
        }
        let m = probe.measure(host, cpu);
        let reported = reported_mhz(host, c);
        let fw = probe.firmware_mhz(host);
        cc.points.push(point_from(m, Some(khz), reported, fw));
    }
    true
}

fn tuning_failed(e: TuningError, cc: &mut ClusterClocks, summary: &mut TuningSummary) -> bool {
    let reason = no_walk_reason(&e);
    if summary.reason.is_none() {
        summary.reason = Some(reason.clone());
    }
    cc.notes.push(reason);
    false
}

/// Decide whether the measured clock follows scaling_max_freq, and say why not.
fn explain(host: &Host, inv: &Inventory, c: &Cluster, cc: &mut ClusterClocks, firmware: bool) {
    let driver = c.driver.as_deref().unwrap_or("");
    let mut why: Vec<String> = Vec::new();
    if HINT_DRIVERS.contains(&driver) {
        why.push(format!(
            "the {driver} driver passes scaling_max_freq to the hardware as a request; turbo and \
             power limits decide the clock"
        ));
    }
    // A container inside a VM still runs on the VM's vCPUs: look at every layer.
    let vm_name = if inv.virtualization.kind == "vm" {
        Some(inv.virtualization.name.clone())
    } else {
        inv.virtualization
            .layers
            .iter()
            .find(|l| l.kind == "vm")
            .map(|l| Some(l.name.clone()))
    };
    if let Some(name) = vm_name {
        why.push(format!(
            "this is a virtual machine{}: the host, not this kernel, sets the clock",
            name.map(|n| format!(" ({n})")).unwrap_or_default()
        ));
    }
    let rpi = driver.contains("raspberrypi")
        || truebench_monitor::rpi::has_vcgencmd(host)
        || inv
            .device
            .as_deref()
            .is_some_and(|d| d.contains("Raspberry Pi"));
    if rpi {
        cc.notes.push(format!(
            "Raspberry Pi: the VideoCore firmware sets the ARM clock and cpufreq only asks; \
             the firmware's view is `vcgencmd measure_clock arm`{}",
            if firmware {
                " (ThreadX column)"
            } else {
                ", not available here"
            }
        ));
    }

    if cc.mode == WalkMode::OppWalk {
        cc.enforced = enforcement(&cc.points);
    }
    // Where the clock follows the OPPs, a short one may have a known limit.
    if cc.enforced != Some(false) {
        crate::clocks_limits::notes(c, cc);
    }
    if cc.enforced == Some(false) {
        let top = cc
            .points
            .iter()
            .filter_map(|p| p.measured_mhz)
            .fold(f64::NAN, f64::max);
        let lowest = cc
            .points
            .iter()
            .rev()
            .find(|p| p.measured_mhz.is_some())
            .and_then(|p| p.opp_mhz)
            .unwrap_or(0);
        let cause = if why.is_empty() {
            "the clock does not follow scaling_max_freq".to_string()
        } else {
            why.join("; ")
        };
        cc.notes.push(format!(
            "the kernel cannot enforce OPPs here: every OPP down to {lowest} MHz measured about \
             {top:.0} MHz ({cause}); the deviations are not shown"
        ));
    } else if !why.is_empty() && cc.mode != WalkMode::Offline {
        for w in why {
            cc.notes.push(format!("note: {w}"));
        }
    }
}

/// Lower OPPs (≤ 95 % of the highest) that all measure the highest's clock within 2 % while
/// missing their own nominal value by more than 5 % mean the clock ignores scaling_max_freq.
/// A fake top OPP (Tinkerboard: 1992/1920/1896 all measure 1793) is not this: its lower OPPs
/// follow their nominal values. One lower OPP is enough when it is far below (≤ 80 %).
fn enforcement(points: &[ClockPoint]) -> Option<bool> {
    let measured: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|p| Some((p.opp_khz? as f64 / 1000.0, p.measured_mhz?)))
        .collect();
    follows_opps(&measured)
}

/// Whether the measured clock follows the OPPs set: `(OPP MHz, measured MHz)`, highest OPP
/// first. `Some(false)` when every lower OPP (at least two, or one ≤ 80 % of the top) was
/// measured within 2 % of the top's clock and more than 5 % away from its own — a VM, a
/// recorded tree, or firmware that ignores cpufreq; `None` when there are too few to tell.
pub fn follows_opps(measured: &[(f64, f64)]) -> Option<bool> {
    let &(top_opp, top_measured) = measured.first()?;
    let lower: Vec<&(f64, f64)> = measured[1..]
        .iter()
        .filter(|(o, _)| *o <= 0.95 * top_opp)
        .collect();
    let far = lower.iter().any(|(o, _)| *o <= 0.8 * top_opp);
    if lower.len() < 2 && !far {
        return None;
    }
    let ignores = lower
        .iter()
        .all(|(o, m)| (m / top_measured - 1.0).abs() <= 0.02 && (m / o - 1.0).abs() > 0.05);
    Some(!ignores)
}

/// The highest OPP measured, as the clock judge takes it.
pub fn top_check(cc: &ClusterClocks) -> Option<ClockCheck> {
    if cc.mode != WalkMode::OppWalk {
        return None;
    }
    let p = cc.points.iter().find(|p| p.measured_mhz.is_some())?;
    ClockCheck::new(p.opp_mhz? as f64, p.measured_mhz?, &p.samples_mhz)
}

/// The cluster as findings name it: `cpu4-7 (Cortex-A76)`.
pub fn cluster_label(cc: &ClusterClocks) -> String {
    format!(
        "{} ({})",
        cc.cpu_range,
        cc.core_type.as_deref().unwrap_or("CPU")
    )
}

/// Base and boost clocks of a cluster whose driver has no frequency table, where its
/// intel_pstate or ACPI CPPC files give both (`Inventory::perf_control`).
pub(crate) fn turbo_clocks(inv: &Inventory, c: &Cluster) -> Option<TurboClocks> {
    if !c.opps_khz.is_empty() {
        return None;
    }
    let p = inv.perf_of(c)?;
    let (base, boost) = (p.nominal_khz?, p.boost_khz?);
    (base > 0 && boost >= base).then(|| TurboClocks {
        base_mhz: (base / 1000) as u32,
        boost_mhz: (boost / 1000) as u32,
        from: p.clocks_from.clone().unwrap_or_default(),
    })
}

/// The advertised clock judged by this (cold) walk's highest OPP — unless the whole walk
/// shows the same MHz missing at every OPP, which is lost cycles, not the label's. Without a
/// frequency table the highest limit is the boost clock, judged against base and boost.
fn deviation_finding(cc: &ClusterClocks) -> Option<Finding> {
    let top = top_check(cc)?;
    let walk: Vec<ClockCheck> = cc
        .points
        .iter()
        .filter_map(|p| ClockCheck::new(p.opp_mhz? as f64, p.measured_mhz?, &p.samples_mhz))
        .collect();
    if let Some(WalkVerdict::LostCycles(f)) = judge_walk(&cluster_label(cc), &walk, None) {
        return Some(f);
    }
    // The turbo judgement holds for the boost limit only (not a walk capped by MaxKHz).
    let turbo = cc
        .turbo
        .as_ref()
        .filter(|t| top.opp_mhz >= t.boost_mhz as f64);
    let mut f = match turbo {
        Some(t) => judge_turbo(
            &cluster_label(cc),
            &top,
            t.base_mhz as f64,
            t.boost_mhz as f64,
            &t.from,
        )?,
        None => judge_cold(&cluster_label(cc), &top, None)?,
    };
    if cc.enforced == Some(false) {
        f.evidence
            .push("the kernel cannot enforce OPPs on this cluster (see notes)".into());
    }
    Some(f)
}

fn check_all_cores<P: ClockProbe + ?Sized>(
    host: &Host,
    inv: &Inventory,
    clusters: &[Cluster],
    opts: &ClocksOptions,
    probe: &mut P,
    tuning: &mut Option<Tuning>,
) -> AllCores {
    // Highest allowed clock everywhere (the walk left each cluster at its lowest OPP).
    if let Some(t) = tuning.as_mut() {
        for c in clusters {
            let Some(dir) = c.policy_dir.as_deref() else {
                continue;
            };
            let base = base_khz(turbo_clocks(inv, c).as_ref());
            let Some(&top) = opps_to_walk(host, c, dir, opts, base).first() else {
                continue;
            };
            let lowest = read_khz(host, dir, "cpuinfo_min_freq")
                .filter(|&k| k > 0 && k <= top)
                .unwrap_or(top);
            let _ = t.set_range_khz(c, lowest, top);
        }
    }
    let mut cpus: Vec<u32> = inv.cpus.iter().filter(|c| c.online).map(|c| c.id).collect();
    if cpus.is_empty() {
        cpus = clusters.iter().flat_map(|c| c.cpus.clone()).collect();
    }
    if host.is_live() {
        // CPUs outside this process's affinity mask cannot be measured.
        let allowed = clock::allowed_cpus();
        if !allowed.is_empty() {
            cpus.retain(|c| allowed.contains(c));
        }
    }
    let cluster_of = |cpu: u32| clusters.iter().find(|c| c.cpus.contains(&cpu));
    let collect = |probe: &mut P| -> Vec<CoreClock> {
        let res = probe.measure_many(host, &cpus);
        cpus.iter()
            .zip(res)
            .map(|(&cpu, r)| {
                let reported = cluster_of(cpu).and_then(|c| reported_mhz(host, c));
                match r {
                    Ok(m) => CoreClock {
                        cpu,
                        measured_mhz: Some(m.mhz),
                        samples_mhz: m.samples_mhz,
                        reported_mhz: reported,
                        error: None,
                    },
                    Err(e) => CoreClock {
                        cpu,
                        measured_mhz: None,
                        samples_mhz: Vec::new(),
                        reported_mhz: reported,
                        error: Some(e.to_string()),
                    },
                }
            })
            .collect()
    };
    let idle = collect(probe);
    let load = {
        let _load = probe.start_load(&cpus);
        std::thread::sleep(opts.load_heat);
        collect(probe)
    };
    AllCores {
        idle,
        load,
        load_heat_s: Some(opts.load_heat.as_secs_f64()),
    }
}

/// The text sbc-bench users know, plus notes and findings.
pub fn render_text(r: &ClocksReport) -> String {
    clocks_text::text(&r.notes, &r.clusters, r.all_cores.as_ref(), &r.findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(opp: u32, measured: f64) -> ClockPoint {
        ClockPoint::at_opp(opp, vec![measured + 0.5, measured, measured - 0.5], 1.0)
    }

    #[test]
    fn permission_problems_say_that_the_walk_needs_root() {
        let e = TuningError::PermissionDenied {
            path: std::path::Path::new("/")
                .join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor"),
        };
        let r = no_walk_reason(&e);
        assert!(r.starts_with("the OPP walk needs root: "), "{r}");
        assert!(r.contains("policy0/scaling_governor"), "{r}");
        let e = TuningError::Journal {
            path: "/var/lib/truebench".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        assert!(no_walk_reason(&e).starts_with("the OPP walk needs root"));
        let e = TuningError::Busy {
            path: "/var/lib/truebench/tuning.journal".into(),
            pid: Some(42),
        };
        let r = no_walk_reason(&e);
        assert!(r.starts_with("the OPP walk was not possible: "), "{r}");
        assert!(r.contains("42"), "{r}");
    }

    #[test]
    fn enforcement_verdicts() {
        // Tinkerboard (sbc-bench's README): fake top OPPs, the lower ones follow → enforced.
        let tinker = [
            point(1992, 1793.0),
            point(1920, 1792.0),
            point(1896, 1793.0),
            point(1800, 1793.0),
            point(1704, 1698.0),
        ];
        assert_eq!(enforcement(&tinker), Some(true));
        // S905L2: 2016…1200 all measure 1197, and 1200 is real → enforced.
        let s905 = [
            point(2016, 1197.0),
            point(1752, 1196.0),
            point(1536, 1196.0),
            point(1416, 1196.0),
            point(1200, 1197.0),
        ];
        assert_eq!(enforcement(&s905), Some(true));
        // intel_pstate in a VM: 4700 and 400 both measure 3593 → ignored.
        assert_eq!(
            enforcement(&[point(4700, 3593.0), point(400, 3590.0)]),
            Some(false)
        );
        // Two nearby OPPs only: not testable.
        assert_eq!(
            enforcement(&[point(2000, 1990.0), point(1900, 1990.0)]),
            None
        );
        assert_eq!(enforcement(&[point(2000, 1990.0)]), None);
        assert_eq!(enforcement(&[]), None);
    }
}
