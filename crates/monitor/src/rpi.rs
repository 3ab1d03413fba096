//! Raspberry Pi firmware readings through `vcgencmd` — the sampler's one external call.
//!
//! On a Pi the VideoCore firmware sets the ARM clock and core voltage and decides when to
//! throttle; Linux's cpufreq only sees what it asked for. `vcgencmd` is the only window, so a
//! separate thread runs it at a slow cadence (each call forks and talks to the firmware
//! mailbox; the sampler thread itself never forks) and keeps the latest `RpiSample`.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use truebench_host::Host;
use truebench_model::timeline::RpiSample;

/// Where Raspberry Pi OS and older images install `vcgencmd`, relative to the root.
const VCGENCMD: &[&str] = &["usr/bin/vcgencmd", "opt/vc/bin/vcgencmd"];

/// The `vcgencmd` to run, if this root is the live machine and has one.
pub fn find_vcgencmd(host: &Host) -> Option<PathBuf> {
    if !host.is_live() {
        return None;
    }
    VCGENCMD
        .iter()
        .find(|p| host.exists(p))
        .map(|p| host.path(p))
}

/// Whether a root (live or recorded) has `vcgencmd` installed: a Raspberry Pi image.
pub fn has_vcgencmd(host: &Host) -> bool {
    VCGENCMD.iter().any(|p| host.exists(p))
}

/// `frequency(48)=1500000000` → 1500.0 MHz.
pub fn parse_measure_clock(out: &str) -> Option<f64> {
    let v = out.trim().rsplit_once('=')?.1.trim();
    let hz: f64 = v.parse().ok()?;
    (hz > 0.0).then_some(hz / 1e6)
}

/// `volt=0.8600V` → 0.86 V.
pub fn parse_volts(out: &str) -> Option<f64> {
    let v = out.trim().strip_prefix("volt=")?.trim_end_matches('V');
    v.parse().ok()
}

/// `throttled=0x50005` → 0x50005.
pub fn parse_throttled(out: &str) -> Option<u32> {
    let v = out.trim().strip_prefix("throttled=")?;
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// Pi 5 `pmic_read_adc`: lines like `VDD_CORE_A current(7)=2.10000000A` and
/// `VDD_CORE_V volt(15)=0.80000000V`. Rails are paired by name (the numbers in parentheses
/// are ADC channels and differ between a rail's current and voltage). Returns the summed
/// power of every rail that has both (as sbc-bench's `PMIC` column), the `EXT5V_V` input
/// voltage, and `VDD_CORE_V`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pmic {
    pub watts: Option<f64>,
    pub input_volts: Option<f64>,
    pub core_volts: Option<f64>,
}

pub fn parse_pmic(out: &str) -> Pmic {
    let mut amps: Vec<(&str, f64)> = Vec::new();
    let mut volts: Vec<(&str, f64)> = Vec::new();
    for line in out.lines() {
        let mut it = line.split_whitespace();
        let (Some(name), Some(reading)) = (it.next(), it.next()) else {
            continue;
        };
        let Some((kind, value)) = reading.split_once('=') else {
            continue;
        };
        let (rail, list, unit) = if kind.starts_with("current(") {
            (name.strip_suffix("_A"), &mut amps, 'A')
        } else if kind.starts_with("volt(") {
            (name.strip_suffix("_V"), &mut volts, 'V')
        } else {
            continue;
        };
        let (Some(rail), Ok(v)) = (rail, value.trim_end_matches(unit).parse::<f64>()) else {
            continue;
        };
        if v.is_finite() {
            list.push((rail, v));
        }
    }
    let mut watts = None;
    for (rail, a) in &amps {
        if let Some((_, v)) = volts.iter().find(|(r, _)| r == rail) {
            *watts.get_or_insert(0.0) += a * v;
        }
    }
    let get = |r: &str| volts.iter().find(|(n, _)| *n == r).map(|x| x.1);
    Pmic {
        watts,
        input_volts: get("EXT5V"),
        core_volts: get("VDD_CORE"),
    }
}

pub use truebench_host::review::THROTTLED_BITS;

/// Run `vcgencmd ARGS` with a deadline; stdout on success.
fn run(vcgencmd: &PathBuf, args: &[&str], timeout: Duration) -> Option<String> {
    let mut child = Command::new(vcgencmd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(st)) => {
                let mut s = String::new();
                if let Some(mut o) = child.stdout.take() {
                    let _ = std::io::Read::read_to_string(&mut o, &mut s);
                }
                return st.success().then_some(s);
            }
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// One full reading: clock, core voltage, throttle bits, and on a Pi 5 the PMIC.
pub fn read_once(vcgencmd: &PathBuf, pmic: bool) -> RpiSample {
    let t = Duration::from_secs(2);
    let mut s = RpiSample {
        arm_mhz: run(vcgencmd, &["measure_clock", "arm"], t).and_then(|o| parse_measure_clock(&o)),
        core_volts: run(vcgencmd, &["measure_volts", "core"], t).and_then(|o| parse_volts(&o)),
        throttled: run(vcgencmd, &["get_throttled"], t).and_then(|o| parse_throttled(&o)),
        ..Default::default()
    };
    if pmic {
        if let Some(p) = run(vcgencmd, &["pmic_read_adc"], t).map(|o| parse_pmic(&o)) {
            s.pmic_watts = p.watts;
            s.input_volts = p.input_volts;
        }
    }
    s
}

/// Background poller keeping the latest reading.
pub struct RpiPoller {
    pub latest: Arc<Mutex<Option<RpiSample>>>,
    /// True on a Pi 5 whose firmware answers `pmic_read_adc`.
    pub pmic: bool,
    stop: Arc<(Mutex<bool>, Condvar)>,
    running: Arc<AtomicBool>,
}

impl RpiPoller {
    /// Take a first reading synchronously (so the first sample has one), then poll every
    /// `every` on a thread of its own. None when this is not a live Pi.
    pub fn start(host: &Host, every: Duration) -> Option<RpiPoller> {
        let vc = find_vcgencmd(host)?;
        let pmic = run(&vc, &["pmic_read_adc"], Duration::from_secs(2))
            .map(|o| parse_pmic(&o).watts.is_some())
            .unwrap_or(false);
        let first = read_once(&vc, pmic);
        let latest = Arc::new(Mutex::new(Some(first)));
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let running = Arc::new(AtomicBool::new(true));
        let (l, st, r) = (Arc::clone(&latest), Arc::clone(&stop), Arc::clone(&running));
        let _ = std::thread::Builder::new()
            .name("truebench-vcgencmd".into())
            .spawn(move || {
                loop {
                    let (m, cv) = &*st;
                    let g = m.lock().unwrap_or_else(|e| e.into_inner());
                    let g = cv
                        .wait_timeout_while(g, every, |s| !*s)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                    if *g {
                        break;
                    }
                    drop(g);
                    let s = read_once(&vc, pmic);
                    *l.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
                }
                r.store(false, Ordering::Release);
            });
        Some(RpiPoller {
            latest,
            pmic,
            stop,
            running,
        })
    }

    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }
}

impl Drop for RpiPoller {
    fn drop(&mut self) {
        let (m, cv) = &*self.stop;
        *m.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_output_formats() {
        assert_eq!(
            parse_measure_clock("frequency(48)=1500000000\n"),
            Some(1500.0)
        );
        assert_eq!(
            parse_measure_clock("frequency(48)=1034000000"),
            Some(1034.0)
        );
        assert_eq!(parse_measure_clock("frequency(48)=0"), None);
        assert_eq!(parse_measure_clock("error=1 error_msg=\"x\""), None);
        assert_eq!(parse_volts("volt=0.8600V\n"), Some(0.86));
        assert_eq!(parse_volts("volt=1.3062V"), Some(1.3062));
        assert_eq!(parse_volts("garbage"), None);
        assert_eq!(parse_throttled("throttled=0x50005\n"), Some(0x50005));
        assert_eq!(parse_throttled("throttled=0x0"), Some(0));
        assert_eq!(parse_throttled("throttled=0xZZ"), None);
    }

    #[test]
    fn pmic_pairs_rails_by_name() {
        let out = "   3V7_WL_SW_A current(0)=0.10000000A\n  VDD_CORE_A current(7)=2.10000000A\n    NO_VOLT_A current(9)=0.50000000A\n 3V7_WL_SW_V volt(8)=3.70000000V\n  VDD_CORE_V volt(15)=0.80000000V\n     EXT5V_V volt(24)=5.14800000V\n      BATT_V volt(25)=0.00000000V\n";
        let p = parse_pmic(out);
        let w = p.watts.unwrap();
        assert!((w - (0.1 * 3.7 + 2.1 * 0.8)).abs() < 1e-9, "{w}");
        assert_eq!(p.input_volts, Some(5.148));
        assert_eq!(p.core_volts, Some(0.8));
        // A Pi 4's firmware does not know the command.
        let none = parse_pmic("error=2 error_msg=\"Command not registered\"\n");
        assert_eq!(none, Pmic::default());
    }

    #[test]
    fn not_live_means_no_vcgencmd_run() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("usr/bin")).unwrap();
        std::fs::write(d.path().join("usr/bin/vcgencmd"), "#!/bin/sh\n").unwrap();
        let h = Host::new(d.path());
        assert!(has_vcgencmd(&h));
        assert!(find_vcgencmd(&h).is_none());
        assert!(RpiPoller::start(&h, Duration::from_secs(5)).is_none());
    }
}
