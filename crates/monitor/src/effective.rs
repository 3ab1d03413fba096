//! Effective (measured) clock per cluster while work runs, from what the kernel offers:
//!
//! 1. `cpuinfo_avg_freq` in the cpufreq policy directory (Linux 6.14+): the kernel's own
//!    average from hardware feedback (APERF/MPERF, ARM AMU) — no privileges needed.
//! 2. `perf_event_open` CPU_CYCLES counters, one per CPU (live machine; needs
//!    `perf_event_paranoid` ≤ 0 or root, and a PMU driver).
//! 3. APERF/MPERF through `/dev/cpu/N/msr` on x86 (live machine, root, msr module).
//!
//! `scaling_cur_freq` is what the governor asked for; firmware (Raspberry Pi), hypervisors and
//! x86 package limits can run the cores slower without the kernel knowing. These counters
//! measure what the cores really did. Without any of them, `probe` says why.

use crate::reader::{parse_i64, pread_all};
use std::fs::File;
use std::io::Read;
use std::os::unix::io::FromRawFd;
use std::time::Instant;
use truebench_host::host::MSR_DEVICE;
use truebench_host::{Host, Inventory};

/// A CPU counts as busy for the average when it ran at least this share of the interval:
/// below it, the tick-based busy fraction from /proc/stat is too coarse to scale by.
pub const MIN_BUSY: f64 = 0.5;

/// Per-CPU clock from a cycle counter over one interval, MHz.
///
/// Cycle counters stop while a core idles, so cycles / elapsed time is the clock times the
/// busy share; dividing by the busy share (from /proc/stat) recovers the clock the core ran
/// at while it ran. `running < enabled` means the PMU was multiplexed: scale up as perf does.
pub fn perf_cpu_mhz(d_cycles: u64, d_enabled_ns: u64, d_running_ns: u64, busy: f64) -> Option<f64> {
    if d_running_ns == 0 || d_enabled_ns == 0 || busy < MIN_BUSY {
        return None;
    }
    let cycles = d_cycles as f64 * d_enabled_ns as f64 / d_running_ns as f64;
    let busy_s = d_enabled_ns as f64 / 1e9 * busy.min(1.0);
    Some(cycles / busy_s / 1e6)
}

/// Per-CPU clock from APERF/MPERF: MPERF ticks at the TSC rate while the core is in C0,
/// APERF at the actual clock, so clock = TSC rate × ΔAPERF/ΔMPERF. Returns None for a CPU
/// that was in C0 for less than `MIN_BUSY` of the interval (ΔMPERF/ΔTSC).
pub fn aperf_mperf_mhz(d_aperf: u64, d_mperf: u64, d_tsc: u64, tsc_hz: f64) -> Option<f64> {
    if d_mperf == 0 || d_tsc == 0 || (d_mperf as f64 / d_tsc as f64) < MIN_BUSY {
        return None;
    }
    Some(tsc_hz * d_aperf as f64 / d_mperf as f64 / 1e6)
}

/// Mean of the per-CPU clocks that exist.
pub fn mean(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u32);
    for v in values.into_iter().flatten() {
        sum += v;
        n += 1;
    }
    (n > 0).then(|| sum / n as f64)
}

/// `cpuinfo_avg_freq` content (kHz) → MHz. The kernel answers EAGAIN for an idle policy,
/// which reaches us as a read error, hence None.
pub fn avg_freq_mhz(text: &[u8]) -> Option<f64> {
    let khz = parse_i64(text)?;
    (khz > 0).then(|| khz as f64 / 1000.0)
}

pub struct PerfCpu {
    cpu: u32,
    cluster: usize,
    fd: File,
    last: Option<[u64; 3]>,
}

pub struct MsrCpu {
    cluster: usize,
    file: File,
    last: Option<(u64, u64)>,
}

/// An open source of measured clocks.
pub enum Effective {
    AvgFreq {
        files: Vec<Option<File>>,
        buf: [u8; 64],
    },
    Perf {
        cpus: Vec<PerfCpu>,
        vals: Vec<Option<f64>>,
    },
    Msr {
        cpus: Vec<MsrCpu>,
        vals: Vec<Option<f64>>,
        last_tsc: Option<(u64, Instant)>,
    },
}

impl Effective {
    /// Whether `sample` needs per-CPU busy fractions.
    pub fn needs_busy(&self) -> bool {
        matches!(self, Effective::Perf { .. })
    }

    pub fn baseline(&mut self) {
        let mut ignore = Vec::new();
        self.sample(None, &mut ignore);
    }

    /// Fill `out[cluster]` with measured MHz. `busy[cpu]` is each CPU's busy share over the
    /// interval (perf only).
    pub fn sample(&mut self, busy: Option<&[f64]>, out: &mut [Option<f64>]) {
        match self {
            Effective::AvgFreq { files, buf } => {
                for (o, f) in out.iter_mut().zip(files.iter()) {
                    *o = f
                        .as_ref()
                        .and_then(|f| pread_all(f, buf).ok())
                        .and_then(avg_freq_mhz);
                }
            }
            Effective::Perf { cpus, vals } => {
                for (i, c) in cpus.iter_mut().enumerate() {
                    let mut raw = [0u8; 24];
                    let now = (&c.fd).read_exact(&mut raw).ok().map(|_| {
                        let w = |k: usize| {
                            u64::from_ne_bytes(raw[k * 8..k * 8 + 8].try_into().unwrap_or([0; 8]))
                        };
                        [w(0), w(1), w(2)]
                    });
                    vals[i] = match (c.last, now, busy) {
                        (Some(l), Some(n), Some(b)) => perf_cpu_mhz(
                            n[0].wrapping_sub(l[0]),
                            n[1].saturating_sub(l[1]),
                            n[2].saturating_sub(l[2]),
                            b.get(c.cpu as usize).copied().unwrap_or(0.0),
                        ),
                        _ => None,
                    };
                    c.last = now;
                }
                for (k, o) in out.iter_mut().enumerate() {
                    *o = mean(
                        cpus.iter()
                            .zip(vals.iter())
                            .filter(|(c, _)| c.cluster == k)
                            .map(|(_, v)| *v),
                    );
                }
            }
            Effective::Msr {
                cpus,
                vals,
                last_tsc,
            } => {
                let now_tsc = (rdtsc(), Instant::now());
                let tsc = last_tsc.map(|(t, i)| {
                    let d = now_tsc.0.wrapping_sub(t);
                    (
                        d,
                        d as f64 / now_tsc.1.duration_since(i).as_secs_f64().max(1e-9),
                    )
                });
                *last_tsc = Some(now_tsc);
                for (i, c) in cpus.iter_mut().enumerate() {
                    let rd = |off: u64| {
                        let mut b = [0u8; 8];
                        std::os::unix::fs::FileExt::read_exact_at(&c.file, &mut b, off)
                            .ok()
                            .map(|_| u64::from_ne_bytes(b))
                    };
                    let now = rd(MSR_APERF).zip(rd(MSR_MPERF));
                    vals[i] = match (c.last, now, tsc) {
                        (Some(l), Some(n), Some((d_tsc, hz))) => {
                            aperf_mperf_mhz(n.0.wrapping_sub(l.0), n.1.wrapping_sub(l.1), d_tsc, hz)
                        }
                        _ => None,
                    };
                    c.last = now;
                }
                for (k, o) in out.iter_mut().enumerate() {
                    *o = mean(
                        cpus.iter()
                            .zip(vals.iter())
                            .filter(|(c, _)| c.cluster == k)
                            .map(|(_, v)| *v),
                    );
                }
            }
        }
    }
}

const MSR_MPERF: u64 = 0xE7;
const MSR_APERF: u64 = 0xE8;

#[cfg(target_arch = "x86_64")]
fn rdtsc() -> u64 {
    // SAFETY: RDTSC has no preconditions on x86_64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
fn rdtsc() -> u64 {
    0
}

/// `perf_event_attr` up to PERF_ATTR_SIZE_VER5 (112 bytes); libc does not define it.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: i32,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    reserved: u16,
}

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const PERF_FORMAT_TOTAL_TIME_ENABLED: u64 = 1;
const PERF_FORMAT_TOTAL_TIME_RUNNING: u64 = 2;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;

/// Open a counting (not sampling) cycles counter on `cpu` for all tasks.
fn perf_open_cycles(cpu: u32) -> std::io::Result<File> {
    let attr = PerfEventAttr {
        type_: PERF_TYPE_HARDWARE,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config: PERF_COUNT_HW_CPU_CYCLES,
        read_format: PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
        ..Default::default()
    };
    // SAFETY: attr is a valid, fully initialised perf_event_attr of the size it declares;
    // pid -1 + cpu N = every task on that CPU; no group.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            -1 as libc::pid_t,
            cpu as libc::c_int,
            -1 as libc::c_int,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the syscall returned a new file descriptor we own.
    Ok(unsafe { File::from_raw_fd(fd as libc::c_int) })
}

fn errno_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) => {
            "not supported (no PMU driver exposes CPU cycles here)".into()
        }
        Some(libc::EACCES) | Some(libc::EPERM) => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Find the best source. Returns it (or None) and a description: the source's name, or
/// why each candidate is unavailable.
pub fn probe(host: &Host, inv: &Inventory) -> (Option<Effective>, String) {
    let mut why = Vec::new();

    // 1. cpuinfo_avg_freq (also works on recorded roots: it is a file).
    let files: Vec<Option<File>> = inv
        .clusters
        .iter()
        .map(|c| {
            c.policy_dir
                .as_ref()
                .and_then(|d| host.open(format!("{d}/cpuinfo_avg_freq")).ok())
        })
        .collect();
    if files.iter().any(|f| f.is_some()) {
        return (
            Some(Effective::AvgFreq {
                files,
                buf: [0; 64],
            }),
            "cpuinfo_avg_freq (kernel average from hardware feedback)".into(),
        );
    }
    why.push(if inv.has_cpufreq() {
        "no cpuinfo_avg_freq (kernel before 6.14 or no hardware feedback)".to_string()
    } else {
        "no cpufreq, so no cpuinfo_avg_freq".to_string()
    });

    if !host.is_live() {
        why.push("cycle counters are only read on the live machine".into());
        return (None, format!("none: {}", why.join("; ")));
    }

    let online: Vec<(u32, usize)> = inv
        .online_cpus()
        .map(|c| (c.id, c.cluster.unwrap_or(0)))
        .collect();

    // 2. perf_event cycles.
    let paranoid = host
        .read_trimmed("proc/sys/kernel/perf_event_paranoid")
        .and_then(|v| v.parse::<i32>().ok());
    let mut perf = Vec::new();
    let mut perf_err = None;
    for &(cpu, cluster) in &online {
        match perf_open_cycles(cpu) {
            Ok(fd) => perf.push(PerfCpu {
                cpu,
                cluster,
                fd,
                last: None,
            }),
            Err(e) => {
                perf_err = Some(e);
                break;
            }
        }
    }
    match perf_err {
        None if !perf.is_empty() => {
            let n = perf.len();
            return (
                Some(Effective::Perf {
                    cpus: perf,
                    vals: vec![None; n],
                }),
                "perf_event cycles".into(),
            );
        }
        Some(e) => {
            let mut r = format!("perf_event_open cycles: {}", errno_reason(&e));
            if matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM)) {
                if let Some(p) = paranoid {
                    r.push_str(&format!(
                        " (perf_event_paranoid is {p}; per-CPU counters need ≤ 0 or root)"
                    ));
                }
            }
            why.push(r);
        }
        None => why.push("perf_event_open cycles: no online CPU".into()),
    }

    // 3. APERF/MPERF via the msr driver (x86 only).
    if cfg!(target_arch = "x86_64") {
        let mut msr = Vec::new();
        let mut msr_err = None;
        for &(cpu, cluster) in &online {
            let rel = format!("dev/cpu/{cpu}/msr");
            let r = host
                .open_device(&rel, MSR_DEVICE)
                .map_err(|e| e.source)
                .and_then(|f| {
                    let mut b = [0u8; 8];
                    std::os::unix::fs::FileExt::read_exact_at(&f, &mut b, MSR_APERF).map(|_| f)
                });
            match r {
                Ok(file) => msr.push(MsrCpu {
                    cluster,
                    file,
                    last: None,
                }),
                Err(e) => {
                    msr_err = Some(format!(
                        "/{rel}: {}",
                        match e.kind() {
                            std::io::ErrorKind::NotFound =>
                                "not present (msr module not loaded)".to_string(),
                            std::io::ErrorKind::PermissionDenied =>
                                "permission denied (needs root)".to_string(),
                            _ => format!("APERF not readable ({e})"),
                        }
                    ));
                    break;
                }
            }
        }
        match msr_err {
            None if !msr.is_empty() => {
                let n = msr.len();
                return (
                    Some(Effective::Msr {
                        cpus: msr,
                        vals: vec![None; n],
                        last_tsc: None,
                    }),
                    "APERF/MPERF (msr)".into(),
                );
            }
            Some(e) => why.push(e),
            None => {}
        }
    }
    (None, format!("none: {}", why.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_arithmetic() {
        // 1.8e9 cycles in 1 s fully busy = 1800 MHz.
        let f = perf_cpu_mhz(1_800_000_000, 1_000_000_000, 1_000_000_000, 1.0).unwrap();
        assert!((f - 1800.0).abs() < 1e-6);
        // Half the time multiplexed away: scaled back up.
        let f = perf_cpu_mhz(900_000_000, 1_000_000_000, 500_000_000, 1.0).unwrap();
        assert!((f - 1800.0).abs() < 1e-6);
        // 80 % busy: 1.44e9 cycles → still 1800 MHz while running.
        let f = perf_cpu_mhz(1_440_000_000, 1_000_000_000, 1_000_000_000, 0.8).unwrap();
        assert!((f - 1800.0).abs() < 1e-6);
        // Mostly idle CPUs and never-scheduled counters give nothing.
        assert!(perf_cpu_mhz(1_000, 1_000_000_000, 1_000_000_000, 0.1).is_none());
        assert!(perf_cpu_mhz(1_000, 1_000_000_000, 0, 1.0).is_none());
    }

    #[test]
    fn aperf_mperf_arithmetic() {
        // TSC 2.1 GHz, core ran 20 % faster than TSC while in C0, C0 for the whole second.
        let f = aperf_mperf_mhz(2_520_000_000, 2_100_000_000, 2_100_000_000, 2.1e9).unwrap();
        assert!((f - 2520.0).abs() < 1e-6);
        // Throttled to half while busy.
        let f = aperf_mperf_mhz(1_050_000_000, 2_100_000_000, 2_100_000_000, 2.1e9).unwrap();
        assert!((f - 1050.0).abs() < 1e-6);
        // In C0 only 10 % of the time.
        assert!(aperf_mperf_mhz(210_000_000, 210_000_000, 2_100_000_000, 2.1e9).is_none());
    }

    #[test]
    fn means_and_avg_freq() {
        assert_eq!(mean([Some(1000.0), None, Some(2000.0)]), Some(1500.0));
        assert_eq!(mean([None, None]), None);
        assert_eq!(avg_freq_mhz(b"2208000\n"), Some(2208.0));
        assert_eq!(avg_freq_mhz(b"0\n"), None);
        assert_eq!(avg_freq_mhz(b"garbage"), None);
    }

    #[test]
    fn avg_freq_files_are_used_on_a_recorded_root() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let cpu = root.join("sys/devices/system/cpu");
        for (p, cpus, cur) in [("policy0", "0 1", "1416000"), ("policy2", "2 3", "2208000")] {
            let pd = cpu.join("cpufreq").join(p);
            std::fs::create_dir_all(&pd).unwrap();
            std::fs::write(pd.join("related_cpus"), cpus).unwrap();
            std::fs::write(pd.join("scaling_cur_freq"), "1800000\n").unwrap();
            std::fs::write(pd.join("cpuinfo_avg_freq"), format!("{cur}\n")).unwrap();
        }
        std::fs::write(cpu.join("present"), "0-3\n").unwrap();
        std::fs::write(cpu.join("online"), "0-3\n").unwrap();
        let host = Host::new(root);
        let inv = Inventory::probe(&host);
        assert_eq!(inv.clusters.len(), 2);
        let (e, src) = probe(&host, &inv);
        assert!(src.starts_with("cpuinfo_avg_freq"), "{src}");
        let mut e = e.unwrap();
        let mut out = vec![None; 2];
        e.sample(None, &mut out);
        assert_eq!(out, [Some(1416.0), Some(2208.0)]);
        // The file changes (the kernel's average moved): the next read sees it.
        std::fs::write(cpu.join("cpufreq/policy2/cpuinfo_avg_freq"), "1008000\n").unwrap();
        e.sample(None, &mut out);
        assert_eq!(out[1], Some(1008.0));
    }

    #[test]
    fn a_recorded_root_without_avg_freq_says_why() {
        let d = tempfile::tempdir().unwrap();
        let host = Host::new(d.path());
        let inv = Inventory::probe(&host);
        let (e, src) = probe(&host, &inv);
        assert!(e.is_none());
        assert!(src.starts_with("none: "), "{src}");
        assert!(src.contains("live machine"), "{src}");
    }
}
