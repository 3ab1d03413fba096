//! What the kinds that sweep share (`net`, `io`): the cpufreq settings of `--sweep` (`max`,
//! `min`, `governor:X`, every OPP of the cluster that takes the device's interrupts), each
//! applied through the Session's Tuning and restored before the next, the clock reached, the
//! verdict "the governor does not raise the clock for I/O" (the Arndale measurements: eMMC
//! reads went from 29 to 44 MB/s with the CPU forced to its top clock), and in `driver.rs`
//! the plan of phases both run, generic over what they measure.

mod driver;

pub use driver::{core_loads, cpu_bound, run, summaries, Measure, Measured, MeasuredOf, Plan};

use truebench_host::inventory::Cluster;
use truebench_host::{Host, Inventory};
use truebench_model::governors::PolicyTimeInState;
use truebench_model::sweep::{SweepTest, TestPhase};

use crate::session::Session;

/// One machine setting of the sweep.
#[derive(Debug, Clone, PartialEq)]
pub enum Setting {
    /// The machine as it was (its own governor): always first.
    AsIs,
    /// Every policy at its top clock (`performance`).
    Max,
    /// Every policy at its lowest clock (`powersave`).
    Min,
    Governor(String),
    /// One cluster (index in the inventory) pinned to one OPP (kHz).
    Opp(usize, u64),
}

impl Setting {
    pub fn label(&self) -> String {
        match self {
            Setting::AsIs => "as is".into(),
            Setting::Max => "max".into(),
            Setting::Min => "min".into(),
            Setting::Governor(g) => format!("governor:{g}"),
            Setting::Opp(_, k) => format!("opp:{} MHz", k / 1000),
        }
    }
}

/// The cluster whose OPPs `opps` walks: the one holding `irq_cpu` (the CPU that takes the
/// device's interrupts), else the one holding CPU 0, where most boards take them by default.
pub fn irq_cluster(inv: &Inventory, irq_cpu: Option<u32>) -> Option<&Cluster> {
    let with = |cpu: u32| {
        inv.clusters
            .iter()
            .filter(|c| c.policy_dir.is_some())
            .find(|c| c.cpus.contains(&cpu))
    };
    irq_cpu
        .and_then(with)
        .or_else(|| with(0))
        .or_else(|| inv.clusters.iter().find(|c| c.policy_dir.is_some()))
}

/// Parse `--sweep max,min,governor:ondemand,opps`; "as is" is always the first setting.
/// Governors must be offered by some cluster; `opps` needs an OPP table and walks the cluster
/// of `irq_cpu` (see [`irq_cluster`]).
pub fn parse(spec: &str, inv: &Inventory, irq_cpu: Option<u32>) -> Result<Vec<Setting>, String> {
    let has_cpufreq = inv.clusters.iter().any(|c| c.policy_dir.is_some());
    if !has_cpufreq {
        return Err(format!(
            "--sweep {spec}: this machine has no cpufreq policy to change (a VM, or firmware sets the clock)"
        ));
    }
    let offered: Vec<&String> = inv.clusters.iter().flat_map(|c| &c.governors).collect();
    let mut out = vec![Setting::AsIs];
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let add: Vec<Setting> = match item {
            "max" => vec![Setting::Max],
            "min" => vec![Setting::Min],
            "opps" => {
                let c = irq_cluster(inv, irq_cpu).ok_or("no cpufreq cluster")?;
                if c.opps_khz.is_empty() {
                    return Err(format!(
                        "--sweep opps: cluster {} (cpu {}) has no OPP table",
                        c.id,
                        c.cpu_range()
                    ));
                }
                let i = inv.clusters.iter().position(|x| x.id == c.id).unwrap_or(0);
                c.opps_khz.iter().map(|&k| Setting::Opp(i, k)).collect()
            }
            g if g.starts_with("governor:") => {
                let g = &g["governor:".len()..];
                if !offered.iter().any(|o| o.as_str() == g) {
                    let mut all: Vec<&str> = offered.iter().map(|s| s.as_str()).collect();
                    all.sort_unstable();
                    all.dedup();
                    return Err(format!(
                        "--sweep governor:{g}: no cluster offers it (available: {})",
                        all.join(", ")
                    ));
                }
                vec![Setting::Governor(g.to_string())]
            }
            other => {
                return Err(format!(
                    "--sweep {other}: expected max, min, governor:NAME or opps"
                ))
            }
        };
        for a in add {
            if !out.contains(&a) {
                out.push(a);
            }
        }
    }
    Ok(out)
}

/// Write `setting` through the Session's Tuning (journaled); Err: what could not be set.
pub fn apply(
    s: &mut Session<'_>,
    host: &Host,
    inv: &Inventory,
    setting: &Setting,
) -> Result<(), String> {
    let mut failed: Vec<String> = Vec::new();
    let mut any = false;
    let mut gov_everywhere = |s: &mut Session<'_>, g: &str| {
        for c in inv
            .clusters
            .iter()
            .filter(|c| c.governors.iter().any(|x| x == g))
            .filter(|c| truebench_tuning::Tuning::policy_dirs(host, c).is_ok())
        {
            any = true;
            if let Err(e) = s.set_governor(c, g) {
                failed.push(e);
            }
        }
    };
    match setting {
        Setting::AsIs => return Ok(()),
        Setting::Max => gov_everywhere(s, "performance"),
        Setting::Min => gov_everywhere(s, "powersave"),
        Setting::Governor(g) => gov_everywhere(s, g),
        Setting::Opp(i, khz) => {
            let c = inv.clusters.get(*i).ok_or("no such cpufreq cluster")?;
            truebench_tuning::Tuning::policy_dirs(host, c).map_err(|e| e.to_string())?;
            any = true;
            let res = if c.governors.iter().any(|g| g == "userspace") {
                s.set_governor(c, "userspace")
                    .and_then(|()| s.set_setspeed_khz(c, *khz))
            } else {
                // min ≤ max at every step (Tuning writes them in that order).
                s.set_range_khz(c, *khz, *khz)
            };
            if let Err(e) = res {
                failed.push(e);
            }
        }
    }
    if !any {
        return Err(format!(
            "no cpufreq policy offers what '{}' needs",
            setting.label()
        ));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("could not set {}", failed.join("; ")))
    }
}

/// Which CPU takes the interrupts of a link or a disk, for `--sweep opps` (it walks that
/// CPU's cluster): the device (interface or disk) found, and the CPU with its IRQ numbers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IrqCpu {
    pub device: Option<String>,
    pub cpu: Option<(u32, Vec<String>)>,
}

/// The CPU serving the interface a peer at `ip` is reached by (the IPv4 route).
pub fn link_irq_cpu(host: &Host, ip: Option<std::net::Ipv4Addr>) -> IrqCpu {
    use truebench_host::irq;
    let device = ip.and_then(|ip| irq::route_iface(host, ip));
    let cpu = device
        .as_deref()
        .and_then(|i| irq::busiest_cpu(host, &irq::iface_irq_names(host, i)));
    IrqCpu { device, cpu }
}

/// The CPU serving the disk under `target` (a device, a file, or the folder a scratch file
/// will be written in).
pub fn disk_irq_cpu(host: &Host, target: &str) -> IrqCpu {
    use truebench_host::irq;
    let device = truebench_host::inventory::storage_under(host, target).map(|s| s.disk);
    let cpu = device
        .as_deref()
        .and_then(|d| irq::busiest_cpu(host, &irq::disk_irq_names(host, d)));
    IrqCpu { device, cpu }
}

/// Time-weighted mean clock per policy from time_in_state deltas, MHz.
pub fn reached_mhz(tis: &[PolicyTimeInState]) -> Vec<(String, f64)> {
    tis.iter()
        .filter_map(|p| {
            let secs: f64 = p.seconds.iter().map(|x| x.1).sum();
            (secs > 0.0).then(|| {
                let mhz = p
                    .seconds
                    .iter()
                    .map(|(k, s)| *k as f64 / 1000.0 * s)
                    .sum::<f64>()
                    / secs;
                (p.policy.clone(), mhz)
            })
        })
        .collect()
}

/// ondemand's I/O setting and sampling period as the verdict shows them.
fn ondemand_settings(host: &Host, inv: &Inventory) -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec!["sys/devices/system/cpu/cpufreq/ondemand".to_string()];
    for c in &inv.clusters {
        if let Some(d) = &c.policy_dir {
            dirs.push(format!("{d}/ondemand"));
        }
    }
    for d in dirs {
        for f in ["io_is_busy", "sampling_rate", "up_threshold"] {
            if let Some(v) = host.read_trimmed(format!("{d}/{f}")) {
                out.push(format!("{d}/{f} = {v}"));
            }
        }
    }
    out
}

/// One test's median under one setting, as the sweep's verdict reads it.
#[derive(Debug, Clone, Copy)]
pub struct Figure<'a> {
    pub test: &'a str,
    pub setting: &'a str,
    pub median: Option<f64>,
    pub spread_pct: Option<f64>,
}

/// "The governor does not raise the clock for I/O": a test slower at the machine's own
/// governor than at `max`, by more than the spread of either. `unit` names the figures.
pub fn verdicts(host: &Host, inv: &Inventory, figures: &[Figure<'_>], unit: &str) -> Vec<String> {
    let governor = inv
        .clusters
        .iter()
        .find_map(|c| c.governor.clone())
        .unwrap_or_else(|| "the current governor".into());
    let mut out = Vec::new();
    for t in figures.iter().filter(|t| t.setting == "as is") {
        let Some(max) = figures
            .iter()
            .find(|m| m.test == t.test && m.setting == "max")
        else {
            continue;
        };
        let (Some(a), Some(b)) = (t.median, max.median) else {
            continue;
        };
        let spread = t
            .spread_pct
            .unwrap_or(0.0)
            .max(max.spread_pct.unwrap_or(0.0));
        let loss = (b - a) / b * 100.0;
        if b > 0.0 && loss > spread.max(1.0) {
            let mut v = format!(
                "The governor does not raise the clock for I/O: {} at {governor} {a:.0} {unit}, at max {b:.0} {unit} ({loss:.1} % less; spread {spread:.1} %).",
                t.test
            );
            let od = ondemand_settings(host, inv);
            if governor == "ondemand" || !od.is_empty() {
                v.push_str(" ondemand counts I/O wait as load only with io_is_busy = 1");
                if !od.is_empty() {
                    v.push_str(&format!(" ({})", od.join(", ")));
                }
                v.push('.');
            }
            out.push(v);
        }
    }
    out
}

/// A test's phase: `net-upload-1`, or with the setting `net-opp-1800-MHz-upload-1`.
pub fn phase<T: SweepTest>(setting: &Setting, test: T, repeat: u32) -> TestPhase<T> {
    let label = (*setting != Setting::AsIs).then(|| setting.label());
    TestPhase::new(label.as_deref(), test, repeat)
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_model::io::IoTest;
    use truebench_model::net::NetTest;

    fn tests_of<'a>(rows: &[(&'a str, &'a str, f64, f64)]) -> Vec<Figure<'a>> {
        rows.iter()
            .map(|&(test, setting, m, sp)| Figure {
                test,
                setting,
                median: Some(m),
                spread_pct: Some(sp),
            })
            .collect()
    }

    #[test]
    fn medians_spreads_and_phase_names() {
        // A test's summary: the median of its completed repeats and their spread ((max −
        // min) / median, %, from two values on).
        let median_spread =
            |v: Vec<f64>| (truebench_stats::median(&v), truebench_stats::spread_pct(&v));
        assert_eq!(
            median_spread(vec![1000.0, 900.0, 950.0]),
            (Some(950.0), Some(100.0 / 950.0 * 100.0))
        );
        assert_eq!(median_spread(vec![500.0]), (Some(500.0), None));
        assert_eq!(median_spread(vec![]), (None, None));
        assert_eq!(median_spread(vec![1.0, 3.0]).0, Some(2.0));
        assert_eq!(
            phase(&Setting::AsIs, NetTest::Upload, 2).to_string(),
            "net-upload-2"
        );
        assert_eq!(
            phase(&Setting::Opp(0, 1_800_000), IoTest::Random, 1).to_string(),
            "io-opp-1800-MHz-random-1"
        );
    }

    #[test]
    fn reached_clock_is_time_weighted() {
        let t = [PolicyTimeInState {
            policy: "policy0".into(),
            seconds: vec![(408_000, 1.0), (1_800_000, 3.0)],
        }];
        let r = reached_mhz(&t);
        assert_eq!(r[0].0, "policy0");
        assert!((r[0].1 - (408.0 + 3.0 * 1800.0) / 4.0).abs() < 1e-9);
        assert!(reached_mhz(&[PolicyTimeInState {
            policy: "p".into(),
            seconds: vec![]
        }])
        .is_empty());
    }

    #[test]
    fn settings_parse_against_the_machine() {
        let root = truebench_fixtures::root("rk3588-rock5b");
        let host = Host::new(root.path());
        let inv = Inventory::probe(&host);
        let s = parse("max, min,governor:schedutil,max", &inv, None).unwrap();
        assert_eq!(
            s,
            [
                Setting::AsIs,
                Setting::Max,
                Setting::Min,
                Setting::Governor("schedutil".into())
            ]
        );
        let opps = parse("opps", &inv, None).unwrap();
        let c0 = inv.clusters.iter().find(|c| c.cpus.contains(&0)).unwrap();
        assert_eq!(opps.len(), 1 + c0.opps_khz.len());
        assert_eq!(
            opps[1].label(),
            format!("opp:{} MHz", c0.opps_khz[0] / 1000)
        );
        // The device's interrupts on cpu6 (an A76 cluster): that cluster's OPPs, to 2400 MHz.
        let opps = parse("opps", &inv, Some(6)).unwrap();
        let i = inv
            .clusters
            .iter()
            .position(|c| c.cpus.contains(&6))
            .unwrap();
        assert_eq!(opps.last(), Some(&Setting::Opp(i, 2_400_000)));
        let e = parse("governor:turbo", &inv, None).unwrap_err();
        assert!(
            e.contains("governor:turbo") && e.contains("schedutil"),
            "{e}"
        );
        let e = parse("fast", &inv, None).unwrap_err();
        assert!(e.contains("--sweep fast"), "{e}");
        let vm = Inventory::probe(&Host::new(tempfile::tempdir().unwrap().path()));
        assert!(parse("max", &vm, None).unwrap_err().contains("no cpufreq"));
    }

    #[test]
    fn slower_at_the_own_governor_than_at_max_is_a_verdict() {
        let root = truebench_fixtures::root("rk3588-rock5b");
        let host = Host::new(root.path());
        let inv = Inventory::probe(&host);
        let slow = tests_of(&[
            ("download", "as is", 290.0, 2.0),
            ("download", "max", 440.0, 3.0),
        ]);
        let v = verdicts(&host, &inv, &slow, "MB/s");
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].contains("does not raise the clock for I/O") && v[0].contains("download"));
        assert!(
            v[0].contains("290 MB/s") && v[0].contains("440 MB/s"),
            "{v:?}"
        );
        // Within the spread: no verdict.
        let same = tests_of(&[
            ("upload", "as is", 430.0, 4.0),
            ("upload", "max", 440.0, 4.0),
        ]);
        assert!(verdicts(&host, &inv, &same, "MB/s").is_empty());
    }
}
