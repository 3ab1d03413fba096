//! The idle gate: start benchmarking only on an idle, not-still-cooling machine.
//!
//! sbc-bench starts when the 1-minute load is below 0.1 or %cpu averaged over 30 s is below
//! 2.5 %, and skips the check above 63 cores. Here the allowance scales with the core count
//! instead (0.1 busy core per 8 CPUs, never less than 0.1), so a 192-core server is held to
//! the same per-core standard as a quad-core board rather than not checked at all.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use truebench_host::parse::{loadavg, stat};
use truebench_host::{Host, Inventory};
use truebench_monitor::capture;
use truebench_monitor_core::evidence::ProcessDelta;

#[derive(Debug, Clone)]
pub struct IdleConfig {
    /// Give up after this long (`--idle-timeout`, default 5 min).
    pub timeout: Duration,
    /// %cpu is averaged over this window (30 s as sbc-bench).
    pub window: Duration,
    pub poll: Duration,
    /// Wait until the SoC temperature is at or below this (`--cool-to C`).
    pub cool_to: Option<f64>,
}

impl Default for IdleConfig {
    fn default() -> Self {
        IdleConfig {
            timeout: Duration::from_secs(300),
            window: Duration::from_secs(30),
            poll: Duration::from_secs(1),
            cool_to: None,
        }
    }
}

/// One look at the machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Seconds since the gate started.
    pub t: f64,
    pub load1: Option<f64>,
    /// Busy CPUs (sum over CPUs of the busy fraction) since the previous reading.
    pub busy_cores: Option<f64>,
    pub temp_c: Option<f64>,
}

/// Busy cores allowed for the machine to count as idle.
pub fn allowed_background_cores(ncpus: usize) -> f64 {
    (0.1 * ncpus as f64 / 8.0).max(0.1)
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Idle(String),
    /// Not yet: why.
    Wait(String),
}

/// Decide from the readings so far (oldest first). Pure, so it is tested without a clock.
pub fn decide(readings: &[Reading], ncpus: usize, cfg: &IdleConfig) -> Verdict {
    let Some(last) = readings.last() else {
        return Verdict::Wait("no reading yet".into());
    };
    let allowed = allowed_background_cores(ncpus);
    let window = cfg.window.as_secs_f64();

    // Temperature first: a hot or still-cooling SoC would start the benchmark throttled.
    if let (Some(limit), Some(t)) = (cfg.cool_to, last.temp_c) {
        if t > limit {
            return Verdict::Wait(format!("SoC at {t:.1}°C, waiting to cool to {limit:.1}°C"));
        }
    } else if cfg.cool_to.is_none() {
        // "Still falling": the coolest reading of the last 10 s is more than 1 °C below the
        // warmest of the 10 s before that.
        let recent: Vec<f64> = readings
            .iter()
            .filter(|r| r.t > last.t - 10.0)
            .filter_map(|r| r.temp_c)
            .collect();
        let before: Vec<f64> = readings
            .iter()
            .filter(|r| r.t <= last.t - 10.0 && r.t > last.t - 20.0)
            .filter_map(|r| r.temp_c)
            .collect();
        if let (Some(now), Some(then)) = (
            recent.iter().copied().reduce(f64::min),
            before.iter().copied().reduce(f64::max),
        ) {
            if then - now > 1.0 {
                return Verdict::Wait(format!(
                    "SoC temperature still falling ({then:.1}°C → {now:.1}°C)"
                ));
            }
        }
    }

    if let Some(l) = last.load1 {
        if l < allowed {
            return Verdict::Idle(format!("1-minute load {l:.2} < {allowed:.2}"));
        }
    }
    let in_window: Vec<f64> = readings
        .iter()
        .filter(|r| r.t > last.t - window)
        .filter_map(|r| r.busy_cores)
        .collect();
    let covered = readings
        .first()
        .is_some_and(|f| last.t - f.t >= window * 0.99);
    if covered && !in_window.is_empty() {
        let avg = in_window.iter().sum::<f64>() / in_window.len() as f64;
        let pct = 100.0 * avg / ncpus.max(1) as f64;
        let allowed_pct = 100.0 * allowed / ncpus.max(1) as f64;
        if avg < allowed {
            return Verdict::Idle(format!(
                "%cpu {pct:.1} % over {window:.0} s < {allowed_pct:.1} %"
            ));
        }
        return Verdict::Wait(format!(
            "busy: %cpu {pct:.1} % over {window:.0} s (needs < {allowed_pct:.1} %), load {}",
            last.load1.map_or("unknown".into(), |l| format!("{l:.2}"))
        ));
    }
    Verdict::Wait(format!(
        "load {} (needs < {allowed:.2}); measuring %cpu over {window:.0} s",
        last.load1.map_or("unknown".into(), |l| format!("{l:.2}"))
    ))
}

/// What the gate saw when it ended.
#[derive(Debug, Clone)]
pub struct IdleReport {
    pub idle: bool,
    pub reason: String,
    pub waited: Duration,
    pub last: Option<Reading>,
    /// Processes that used CPU while we waited, busiest first (only when not idle).
    pub busy_processes: Vec<ProcessDelta>,
}

/// Reads load, CPU counters and the SoC temperature through the Host.
struct Probe<'a> {
    host: &'a Host,
    temp_path: Option<String>,
    prev: Option<stat::CpuTimes>,
    /// A recorded tree (`--root`) without a load average: this machine's load and counters are read
    /// instead — the work runs here, and a tree's absent loadavg would never turn idle.
    live: Option<Host>,
}

impl Probe<'_> {
    fn new<'a>(host: &'a Host, inv: &Inventory) -> Probe<'a> {
        let recorded = !host.is_live() && !host.exists("proc/loadavg");
        Probe {
            host,
            temp_path: inv.thermal.chosen.as_ref().map(|c| c.path.clone()),
            prev: None,
            live: recorded.then(Host::live),
        }
    }

    /// Where the load and CPU counters come from, for the gate's reason.
    fn source_note(&self) -> Option<String> {
        self.live.as_ref().map(|_| {
            format!(
                "load and CPU use read from this machine: the tree at {} has none",
                self.host.root().display()
            )
        })
    }

    fn read(&mut self, t: f64) -> Reading {
        let h = self.live.as_ref().unwrap_or(self.host);
        let load1 = h
            .read("proc/loadavg")
            .ok()
            .and_then(|s| loadavg(&s))
            .map(|l| l[0]);
        let st = h.read("proc/stat").ok().map(|s| stat::parse(&s));
        let now = st.as_ref().and_then(|s| s.total);
        // The aggregate line sums the online CPUs: busy fraction × their number = busy cores.
        let ncpus = st.as_ref().map_or(1, |s| s.cpus.len().max(1)) as f64;
        let busy_cores = match (self.prev, now) {
            (Some(a), Some(b)) => {
                let d = b.delta(&a);
                let total = d.total();
                (total > 0).then(|| d.busy() as f64 / total as f64 * ncpus)
            }
            _ => None,
        };
        self.prev = now;
        let temp_c = self
            .temp_path
            .as_ref()
            .and_then(|p| self.host.read_i64(p))
            .map(|m| m as f64 / 1000.0);
        Reading {
            t,
            load1,
            busy_cores,
            temp_c,
        }
    }
}

/// Wait until the machine is idle (or the timeout passes), calling `status` after each
/// reading with the verdict so the caller can show progress and the busy processes.
pub fn wait_until_idle(
    host: &Host,
    inv: &Inventory,
    cfg: &IdleConfig,
    exclude_pids: &[u32],
    status: &mut dyn FnMut(&Reading, &Verdict),
) -> IdleReport {
    wait_until_idle_or_stop(
        host,
        inv,
        cfg,
        exclude_pids,
        &AtomicBool::new(false),
        status,
    )
}

/// [`wait_until_idle`] that also gives up (not idle, `reason` "interrupted") as soon as
/// `stop` is set — Ctrl-C must not wait for the idle timeout.
pub fn wait_until_idle_or_stop(
    host: &Host,
    inv: &Inventory,
    cfg: &IdleConfig,
    exclude_pids: &[u32],
    stop: &AtomicBool,
    status: &mut dyn FnMut(&Reading, &Verdict),
) -> IdleReport {
    let start = Instant::now();
    let mut probe = Probe::new(host, inv);
    let note = probe.source_note();
    // The CPUs whose load is judged: this machine's when its load is read.
    let ncpus = match &probe.live {
        Some(live) => live
            .read("proc/stat")
            .ok()
            .map(|s| stat::parse(&s).cpus.len())
            .unwrap_or(1),
        None => inv.online_cpus().count(),
    }
    .max(1);
    let with_note = |reason: String| match &note {
        Some(n) => format!("{reason} ({n})"),
        None => reason,
    };
    let procs_before = capture::processes(host, exclude_pids);
    let mut readings = vec![probe.read(0.0)];
    loop {
        let verdict = decide(&readings, ncpus, cfg);
        status(readings.last().expect("one reading"), &verdict);
        let waited = start.elapsed();
        match verdict {
            Verdict::Idle(reason) => {
                return IdleReport {
                    idle: true,
                    reason: with_note(reason),
                    waited,
                    last: readings.last().copied(),
                    busy_processes: Vec::new(),
                }
            }
            Verdict::Wait(reason) if waited >= cfg.timeout => {
                let mut busy = procs_before.delta(&capture::processes(host, exclude_pids));
                busy.retain(|p| p.total_s() > 0.0);
                busy.sort_by(|a, b| b.total_s().total_cmp(&a.total_s()));
                busy.truncate(10);
                return IdleReport {
                    idle: false,
                    reason: with_note(reason),
                    waited,
                    last: readings.last().copied(),
                    busy_processes: busy,
                };
            }
            Verdict::Wait(_) => {}
        }
        // Sleep in short steps so a stop request is seen at once.
        let until = Instant::now() + cfg.poll;
        while Instant::now() < until {
            if stop.load(Ordering::Relaxed) {
                return IdleReport {
                    idle: false,
                    reason: "interrupted".into(),
                    waited: start.elapsed(),
                    last: readings.last().copied(),
                    busy_processes: Vec::new(),
                };
            }
            std::thread::sleep(
                until
                    .saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(50)),
            );
        }
        readings.push(probe.read(start.elapsed().as_secs_f64()));
        // Keep what the decision can look at.
        let horizon = cfg.window.as_secs_f64().max(20.0) + 1.0;
        let last_t = readings.last().map_or(0.0, |r| r.t);
        if readings.len() > 2 && readings[1].t < last_t - horizon {
            readings.remove(0);
        }
    }
}

/// The SoC temperature now (the inventory's chosen sensor), °C.
pub fn soc_temp(host: &Host, inv: &Inventory) -> Option<f64> {
    let p = &inv.thermal.chosen.as_ref()?.path;
    host.read_i64(p).map(|m| m as f64 / 1000.0)
}

/// Sleep up to `d` in short steps; false when `stop` was raised.
pub fn pause(d: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    while !stop.load(Ordering::SeqCst) {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
    false
}

/// The `idle` phase of a session (`thermal`, `efficiency`): wait for an idle machine (and the
/// temperature `cfg.cool_to`), then, with a power source, sample the idle power for the
/// session's `idle_power`. `on_wait` sees each new reason to wait. The phase is never marked
/// failed: a machine that stays busy is said by the caller, and the measurement goes on.
pub fn gate_phase(
    s: &mut crate::session::Session,
    title: &str,
    cfg: &IdleConfig,
    on_wait: &mut dyn FnMut(&str),
) -> IdleReport {
    let (host, inv, stop) = (s.host(), s.inv(), s.stop_flag());
    let power = s.has_power_source();
    let idle_power = s.idle_power();
    let mut report = None;
    s.phase(crate::session::IDLE_PHASE, title, None, Vec::new(), |_| {
        let mut last = String::new();
        let rep = wait_until_idle_or_stop(host, inv, cfg, &[], &stop, &mut |_, v| {
            if let Verdict::Wait(why) = v {
                if *why != last {
                    last = why.clone();
                    on_wait(why);
                }
            }
        });
        if rep.idle && power {
            on_wait(&format!(
                "idle; measuring the idle power for {:.0} s",
                idle_power.as_secs_f64()
            ));
            pause(idle_power, &stop);
        }
        let reason = (!rep.idle).then(|| format!("not idle: {}", rep.reason));
        report = Some(rep);
        crate::session::Outcome {
            reason,
            ..Default::default()
        }
    });
    report.expect("the idle phase ran")
}

/// The idle gate of a measurement that starts once it passed (`efficiency`, `power`): the
/// `idle` phase waiting up to `cfg.timeout` — at once with `--force` — then, when the machine
/// was not idle, a note on the progress and [`gate_not_reached`]'s verdict naming `what`.
pub fn gate(
    s: &mut crate::session::Session,
    cfg: &IdleConfig,
    force: bool,
    what: &str,
    events: &mut dyn FnMut(crate::progress::Event),
) -> IdleReport {
    let cfg = IdleConfig {
        timeout: if force { Duration::ZERO } else { cfg.timeout },
        ..cfg.clone()
    };
    let rep = gate_phase(s, "idle gate", &cfg, &mut |w| {
        events(crate::progress::Event::waiting(w))
    });
    if !rep.idle && !s.stopped() {
        // Progress says it now; the result says it once, as the verdict.
        events(crate::progress::Event::Note(format!(
            "the machine was not idle ({}); the {what} went on{}",
            rep.reason,
            if force { " (--force)" } else { "" }
        )));
        gate_not_reached(s, &rep, force, what);
    }
    rep
}

/// The verdict on a start whose idle gate was not reached (`thermal`, `efficiency`): the
/// idle phase's evidence and the busiest processes; with `--force` a warning (the user chose
/// to start anyway), without it critical — the start condition of the measurement is unknown,
/// so its figures are not comparable.
pub fn gate_not_reached(
    s: &mut crate::session::Session,
    rep: &IdleReport,
    force: bool,
    what: &str,
) {
    use truebench_model::finding::{Finding, FindingKind, Severity};
    use truebench_monitor_core::detect::activity;
    let tl = s.timeline();
    let phase = tl.phase(crate::session::IDLE_PHASE).cloned();
    let samples = phase.as_ref().map(|p| tl.samples_in(p)).unwrap_or(&[]);
    let (a, b) = phase
        .as_ref()
        .map_or((0.0, 0.0), |p| (p.start, p.end.unwrap_or(p.start)));
    let mut evidence = activity::not_idle(samples, Some((a, b, &rep.busy_processes)))
        .map(|f| f.evidence)
        .unwrap_or_default();
    evidence.insert(
        0,
        format!(
            "the idle gate after {:.0} s: {}",
            rep.waited.as_secs_f64(),
            rep.reason
        ),
    );
    let (severity, message) = if force {
        (
            Severity::Warning,
            format!(
                "The {what} started with --force although the machine was not idle ({}).",
                rep.reason
            ),
        )
    } else {
        (
            Severity::Critical,
            format!(
                "The machine never became idle before the {what} ({}): its start is unknown, so its figures are not comparable; stop other work (or wait longer with --idle-timeout) and run again.",
                rep.reason
            ),
        )
    };
    s.finding(
        Finding::new(FindingKind::NotIdle, severity, message)
            .with_evidence(evidence)
            .in_phase(crate::session::IDLE_PHASE),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(t: f64, load: f64, busy: Option<f64>, temp: Option<f64>) -> Reading {
        Reading {
            t,
            load1: Some(load),
            busy_cores: busy,
            temp_c: temp,
        }
    }

    fn cfg(window: u64) -> IdleConfig {
        IdleConfig {
            window: Duration::from_secs(window),
            ..Default::default()
        }
    }

    #[test]
    fn allowance_scales_with_cores() {
        assert_eq!(allowed_background_cores(4), 0.1);
        assert_eq!(allowed_background_cores(8), 0.1);
        assert!((allowed_background_cores(192) - 2.4).abs() < 1e-9);
    }

    #[test]
    fn low_load_is_idle_at_once() {
        let v = decide(&[r(0.0, 0.05, None, None)], 4, &cfg(30));
        assert!(matches!(v, Verdict::Idle(_)), "{v:?}");
    }

    #[test]
    fn high_load_needs_a_full_window_of_low_cpu() {
        let mut rs: Vec<Reading> = (0..10)
            .map(|i| r(i as f64, 0.5, Some(0.02), None))
            .collect();
        assert!(matches!(decide(&rs, 4, &cfg(30)), Verdict::Wait(_)));
        rs.extend((10..=31).map(|i| r(i as f64, 0.5, Some(0.02), None)));
        assert!(matches!(decide(&rs, 4, &cfg(30)), Verdict::Idle(_)));
        // The same window with 0.5 busy cores on a quad-core (12.5 %) is busy.
        let busy: Vec<Reading> = (0..=31)
            .map(|i| r(i as f64, 0.5, Some(0.5), None))
            .collect();
        match decide(&busy, 4, &cfg(30)) {
            Verdict::Wait(why) => assert!(why.contains("12.5 %"), "{why}"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn big_machines_are_checked_not_skipped() {
        // 192 CPUs, 3 busy cores: above the 2.4-core allowance.
        let rs: Vec<Reading> = (0..=31)
            .map(|i| r(i as f64, 3.0, Some(3.0), None))
            .collect();
        assert!(matches!(decide(&rs, 192, &cfg(30)), Verdict::Wait(_)));
        let rs: Vec<Reading> = (0..=31)
            .map(|i| r(i as f64, 3.0, Some(1.0), None))
            .collect();
        assert!(matches!(decide(&rs, 192, &cfg(30)), Verdict::Idle(_)));
    }

    #[test]
    fn still_cooling_waits_and_cool_to_waits_for_the_limit() {
        let rs: Vec<Reading> = (0..=20)
            .map(|i| r(i as f64, 0.0, None, Some(60.0 - i as f64 * 0.3)))
            .collect();
        match decide(&rs, 4, &cfg(30)) {
            Verdict::Wait(why) => assert!(why.contains("still falling"), "{why}"),
            v => panic!("{v:?}"),
        }
        let flat: Vec<Reading> = (0..=20)
            .map(|i| r(i as f64, 0.0, None, Some(45.0)))
            .collect();
        assert!(matches!(decide(&flat, 4, &cfg(30)), Verdict::Idle(_)));
        let c = IdleConfig {
            cool_to: Some(40.0),
            ..cfg(30)
        };
        assert!(matches!(decide(&flat, 4, &c), Verdict::Wait(_)));
    }

    #[test]
    fn gate_on_a_fixture_root_times_out_with_a_reason() {
        // A root whose load stays at 2.0 and whose counters never move: never idle.
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(d.path().join("proc/loadavg"), "2.00 1.50 1.00 3/200 999\n").unwrap();
        let host = Host::new(d.path());
        let inv = Inventory::probe(&host);
        let c = IdleConfig {
            timeout: Duration::from_millis(200),
            window: Duration::from_millis(100),
            poll: Duration::from_millis(20),
            cool_to: None,
        };
        let mut calls = 0;
        let rep = wait_until_idle(&host, &inv, &c, &[], &mut |_, _| calls += 1);
        assert!(!rep.idle);
        assert!(rep.reason.contains("load 2.00"), "{}", rep.reason);
        assert!(calls > 2);

        std::fs::write(d.path().join("proc/loadavg"), "0.02 0.10 0.10 1/200 999\n").unwrap();
        let rep = wait_until_idle(&host, &inv, &c, &[], &mut |_, _| {});
        assert!(rep.idle, "{}", rep.reason);
    }

    /// A recorded tree without load or CPU counters: the gate reads this machine's (where
    /// the work runs) and says so, instead of waiting out its timeout on a file that is not
    /// there.
    #[test]
    fn a_tree_without_load_is_judged_by_this_machines() {
        let d = tempfile::tempdir().unwrap();
        let host = Host::new(d.path());
        let inv = Inventory::probe(&host);
        let c = IdleConfig {
            timeout: Duration::from_millis(300),
            window: Duration::from_millis(100),
            poll: Duration::from_millis(20),
            cool_to: None,
        };
        let rep = wait_until_idle(&host, &inv, &c, &[], &mut |_, _| {});
        assert!(
            rep.reason.contains("read from this machine"),
            "{}",
            rep.reason
        );
        // This machine's load was read: the reading has one.
        assert!(rep.last.and_then(|r| r.load1).is_some(), "{:?}", rep.last);
    }
}
