//! `truebench thermal` (sbc-bench `-t`/`-T`): bring the SoC to a known start — idle and not
//! still cooling, cooled to `--cool-to C`, or heated to `--heat-to C` with the load itself —
//! then run the load for N minutes on the shared Session, so every second has its clocks,
//! temperatures, throttling evidence and energy. The figures: the score over time, the
//! temperature at start, peak and end, per cluster the clock at the start and the end of the
//! load and the temperature at which it first lost clock, time_in_state over the load.
//!
//! Nothing is written to the machine: the thermal test measures it as it is configured.
//! Ctrl-C ends the running step and gives the partial result.

mod figures;
pub mod load;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use truebench_host::{Host, Inventory};
use truebench_model::thermal::{StartMode, ThermalPhase, ThermalStart};
use truebench_model::PhaseId;
use truebench_model::{ThermalBody, ThermalResult};

use crate::governors::{time_in_state, tis_delta};
use crate::idle::{self, IdleConfig};
use crate::progress::Event;
use crate::session::{Finish, Outcome, Session, SessionOptions};
pub use load::{LiveLoad, Load, LoadRan, LoadRunner};

/// How the load starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Start {
    /// The idle gate: idle and no longer cooling.
    Idle,
    /// Idle, and the SoC at or below this temperature.
    CoolTo(f64),
    /// Run the load until the SoC reaches this temperature, then start counting.
    HeatTo(f64),
}

#[derive(Debug, Clone)]
pub struct ThermalOptions {
    pub load: Load,
    pub minutes: f64,
    /// Seconds per score of the built-in stress.
    pub interval: f64,
    pub start: Start,
    /// Longest wait for the start temperature (cooling or heating), or for an idle machine.
    pub wait_timeout: Duration,
    /// Start after one look at the machine, idle or not (the verdict says so).
    pub force: bool,
    /// The idle gate's window (sbc-bench: 30 s).
    pub idle_window: Duration,
    pub sample_interval: Duration,
    pub idle_power: Duration,
    pub meter: Option<Arc<crate::meter::Meter>>,
    pub truebench_version: String,
}

impl ThermalOptions {
    pub fn new(load: Load, minutes: f64) -> ThermalOptions {
        ThermalOptions {
            load,
            minutes,
            interval: 10.0,
            start: Start::Idle,
            wait_timeout: Duration::from_secs(300),
            force: false,
            idle_window: Duration::from_secs(30),
            sample_interval: Duration::from_secs(1),
            idle_power: Duration::from_secs(10),
            meter: None,
            truebench_version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// The idle gate (with `--cool-to`), then the idle power while a power source is there.
fn idle_phase(
    s: &mut Session,
    opts: &ThermalOptions,
    events: &mut dyn FnMut(Event),
) -> ThermalStart {
    let cool_to = match opts.start {
        Start::CoolTo(c) => Some(c),
        _ => None,
    };
    let has_sensor = s.inv().thermal.chosen.is_some();
    if cool_to.is_some() && !has_sensor {
        let n = "--cool-to: this machine has no temperature sensor, so the test did not wait for the SoC to cool";
        s.note(n);
        events(Event::Note(n.into()));
    }
    let cfg = IdleConfig {
        timeout: if opts.force {
            Duration::ZERO
        } else {
            opts.wait_timeout
        },
        window: opts.idle_window,
        poll: Duration::from_millis(500).min(opts.idle_window / 4),
        cool_to,
    };
    let title = match cool_to {
        Some(c) => format!("idle, cooling to {c:.1} °C"),
        None => "idle gate".to_string(),
    };
    events(Event::waiting(format!(
        "waiting for an idle machine (up to {:.0} s)",
        cfg.timeout.as_secs_f64()
    )));
    let rep = idle::gate_phase(s, &title, &cfg, &mut |w| events(Event::waiting(w)));
    let start = ThermalStart {
        mode: if cool_to.is_some() {
            StartMode::Cool
        } else {
            StartMode::Idle
        },
        target_c: cool_to,
        reached: rep.idle,
        waited_s: rep.waited.as_secs_f64(),
        reason: rep.reason.clone(),
    };
    if !start.reached && !s.stopped() {
        let n = format!(
            "the machine did not become idle{} within {:.0} s ({}); the load started anyway{}",
            cool_to
                .map(|c| format!(" at ≤ {c:.1} °C"))
                .unwrap_or_default(),
            cfg.timeout.as_secs_f64(),
            start.reason,
            if opts.force { " (--force)" } else { "" }
        );
        // Progress says it now; the result says it once, as the verdict below.
        events(Event::Note(n));
        idle::gate_not_reached(s, &rep, opts.force, "thermal test");
    }
    start
}

/// Run the load until the SoC reaches `target` (or the wait times out).
fn heat_phase(
    s: &mut Session,
    opts: &ThermalOptions,
    target: f64,
    runner: &mut dyn LoadRunner,
    events: &mut dyn FnMut(Event),
) -> ThermalStart {
    let (host, inv, stop) = (s.host(), s.inv(), s.stop_flag());
    let t0 = Instant::now();
    let mut start = ThermalStart {
        mode: StartMode::Heat,
        target_c: Some(target),
        reached: false,
        waited_s: 0.0,
        reason: String::new(),
    };
    if s.inv().thermal.chosen.is_none() {
        start.reason = "no temperature sensor: did not heat up".into();
        s.note(format!("--heat-to {target}: {}", start.reason));
        events(Event::Note(start.reason.clone()));
        return start;
    }
    events(Event::waiting(format!(
        "heating up with the load (up to {:.0} s)",
        opts.wait_timeout.as_secs_f64()
    )));
    let ncpus = inv.online_cpus().count() as u32;
    let title = format!("heating to {target:.1} °C with the load");
    let hot = AtomicBool::new(false);
    s.phase(ThermalPhase::Heat, &title, Some(ncpus), Vec::new(), |_| {
        let out = std::thread::scope(|sc| {
            // The watcher ends the load when the SoC is hot enough, on timeout or Ctrl-C.
            sc.spawn(|| {
                while !hot.load(Ordering::SeqCst) {
                    if stop.load(Ordering::SeqCst) || t0.elapsed() >= opts.wait_timeout {
                        break;
                    }
                    if idle::soc_temp(host, inv).is_some_and(|t| t >= target) {
                        start.reached = true;
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(250));
                }
                hot.store(true, Ordering::SeqCst);
            });
            let secs = opts.wait_timeout.as_secs_f64() + 1.0;
            let r = runner.run(&opts.load, secs, opts.interval.min(5.0), &hot, &mut |_| {});
            hot.store(true, Ordering::SeqCst);
            r
        });
        match out {
            Ok(_) => Outcome::default(),
            Err(e) => Outcome::failed(e),
        }
    });
    start.waited_s = t0.elapsed().as_secs_f64();
    let now = idle::soc_temp(host, inv);
    start.reason = match (start.reached, now) {
        (true, Some(t)) => format!("SoC at {t:.1} °C after {:.0} s", start.waited_s),
        (false, Some(t)) => format!(
            "gave up after {:.0} s at {t:.1} °C (wanted ≥ {target:.1} °C)",
            start.waited_s
        ),
        (_, None) => "temperature unreadable".into(),
    };
    if !start.reached && !s.stopped() {
        s.note(format!(
            "--heat-to {target}: {}; the load started anyway",
            start.reason
        ));
        events(Event::Note(start.reason.clone()));
    }
    start
}

/// Run the test. `runner` runs the load (`LiveLoad` for real).
pub fn run(
    host: &Host,
    inv: &Inventory,
    opts: &ThermalOptions,
    runner: &mut dyn LoadRunner,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<ThermalResult, crate::session::SessionError> {
    let mut s = Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.sample_interval,
            truebench_version: opts.truebench_version.clone(),
            meter: opts.meter.clone(),
            idle_power: opts.idle_power,
            ..Default::default()
        },
        stop.clone(),
    )?;
    let mut start = idle_phase(&mut s, opts, events);
    if let (Start::HeatTo(t), false) = (opts.start, s.stopped()) {
        start = heat_phase(&mut s, opts, t, runner, events);
    }
    let seconds = opts.minutes * 60.0;
    let mut scores = Vec::new();
    let mut ran = None;
    let mut tis = Vec::new();
    if !s.stopped() {
        events(Event::step(1, 1, "load", Some(seconds)));
        let before = time_in_state(host, inv);
        let ncpus = inv.online_cpus().count() as u32;
        let title = format!("{} for {:.1} min", opts.load.name(), opts.minutes);
        let p = s.phase(ThermalPhase::Load, &title, Some(ncpus), Vec::new(), |s| {
            // A user's command may read, write or network: its kernel time is its work.
            if matches!(opts.load, Load::Command(_)) {
                s.mark_kernel_work();
            }
            let r = runner.run(&opts.load, seconds, opts.interval, &stop, &mut |p| {
                events(Event::Partial(format!(
                    "{:>6.0} s  score {:.2}",
                    p.end_s, p.score
                )));
                scores.push(p);
            });
            match r {
                Ok(x) => {
                    ran = Some(x);
                    Outcome::default()
                }
                Err(e) => Outcome::failed(e),
            }
        });
        events(Event::status(p.status, p.reason.as_deref()));
        tis = tis_delta(&before, &time_in_state(host, inv));
    }
    if s.stopped() {
        s.interrupted("before the load ended");
    }
    if let Some(r) = &ran {
        s.tool(&r.tool.0, r.tool.1.clone(), r.tool.2.clone());
    }
    let body = ThermalBody {
        load: opts.load.kind(),
        load_detail: ran.as_ref().map_or_else(
            || match &opts.load {
                Load::Command(c) => format!("sh -c '{c}'"),
                l => l.name().to_string(),
            },
            |r| r.detail.clone(),
        ),
        unit: ran.as_ref().and_then(|r| r.unit.clone()),
        minutes: opts.minutes,
        start,
        change_pct: figures::change_pct(&scores),
        scores,
        temp_start_c: None,
        temp_max_c: None,
        temp_end_c: None,
        clusters: Vec::new(),
        time_in_state: tis,
        notes: Vec::new(),
    };
    let mut r = s.finish(body, Finish { comparable: true });
    fill(&mut r, inv);
    let lost_clock = r.body.clusters.iter().any(|c| c.first_loss.is_some());
    if let Some(n) = blame(r.body.change_pct, &r.envelope.findings, lost_clock) {
        r.body.notes.push(n);
    }
    per_watt(&mut r);
    Ok(r)
}

/// A score that fell while other processes took CPU time is their doing before it is heat's:
/// said as such, with what the background check found (and whether a clock was lost too).
pub fn blame(
    change_pct: Option<f64>,
    findings: &[truebench_model::finding::Finding],
    lost_clock: bool,
) -> Option<String> {
    use truebench_model::finding::{FindingKind, Severity};
    let c = change_pct.filter(|c| *c < -3.0)?;
    let others = findings.iter().find(|f| {
        f.kind == FindingKind::BackgroundActivity
            && f.severity >= Severity::Warning
            && f.during(ThermalPhase::Load)
    })?;
    Some(format!(
        "the score fell {:.1} % while other processes took CPU time ({}): {}",
        -c,
        others.message.trim_end_matches('.'),
        if lost_clock {
            "the fall is theirs and the lost clock's together; stop them and run again to see heat alone"
        } else {
            "no clock was lost, so the fall is theirs, not heat's; stop them and run again"
        }
    ))
}

/// The load's mean score per watt (GFLOP/J, MIPS/W, runs/min/W).
fn per_watt(r: &mut ThermalResult) {
    let (Some(e), Some(unit)) = (r.envelope.energy.as_mut(), r.body.unit.as_deref()) else {
        return;
    };
    let n = r.body.scores.len();
    if n == 0 {
        return;
    }
    let mean = r.body.scores.iter().map(|s| s.score).sum::<f64>() / n as f64;
    e.add_per_watt(
        ThermalPhase::Load,
        &format!("{} (mean score)", r.body.load),
        mean,
        unit,
    );
}

/// The figures that need the finished timeline.
fn fill(r: &mut ThermalResult, inv: &Inventory) {
    let tl = &r.envelope.timeline;
    let Some(p) = tl
        .phases
        .iter()
        .rev()
        .find(|p| ThermalPhase::Load.is(&p.name))
    else {
        return;
    };
    let samples = tl.samples_in(p);
    let (a, m, e) = figures::temperatures(samples);
    r.body.temp_start_c = a;
    r.body.temp_max_c = m;
    r.body.temp_end_c = e;
    r.body.clusters = figures::clusters(inv, p, samples);
    if inv.thermal.chosen.is_none() {
        r.body
            .notes
            .push("no SoC temperature sensor: temperatures are unknown".into());
    }
    if inv.clusters.iter().all(|c| c.policy_dir.is_none()) {
        r.body.notes.push(
            "no cpufreq: the kernel reports no clock, so a lost clock cannot be seen (the score over time still shows a slowdown)"
                .into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::blame;
    use truebench_model::finding::{Finding, FindingKind, Severity};
    use truebench_model::thermal::ThermalPhase;

    #[test]
    fn a_fall_beside_other_work_is_blamed_on_it() {
        let others = Finding::new(
            FindingKind::BackgroundActivity,
            Severity::Warning,
            "Other processes (top: cc1) used 48.0 % of all CPUs during 'load': …",
        )
        .in_phase(ThermalPhase::Load);
        let n = blame(Some(-26.7), std::slice::from_ref(&others), false).unwrap();
        assert!(n.contains("fell 26.7 %") && n.contains("cc1"), "{n}");
        assert!(n.contains("not heat's"), "{n}");
        let n = blame(Some(-26.7), std::slice::from_ref(&others), true).unwrap();
        assert!(n.contains("lost clock's together"), "{n}");
        // No fall, or no other work in the load: nothing to blame.
        assert_eq!(
            blame(Some(-1.0), std::slice::from_ref(&others), false),
            None
        );
        assert_eq!(blame(Some(-26.7), &[], false), None);
        let elsewhere = others.clone();
        let mut elsewhere = elsewhere;
        elsewhere.phases = vec![ThermalPhase::Idle.to_string()];
        assert_eq!(blame(Some(-26.7), &[elsewhere], false), None);
    }
}
