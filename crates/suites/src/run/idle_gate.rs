//! The idle gate: wait for an idle machine (or go on with --force and say so).

use super::*;
use truebench_model::phase;

/// What the idle gate's verdicts are said under.
const IDLE_WAIT: &str = "waiting for an idle system";

impl<M: Measurements + ?Sized> Run<'_, M> {
    pub(super) fn phase_idle(&mut self) -> Result<(), RunError> {
        let mut report = None;
        let mut cfg = self.opts.idle.clone();
        if self.opts.force {
            // --force starts at once: one look at the machine, for the record, no waiting.
            cfg.timeout = Duration::ZERO;
        }
        if let (Some(c), None) = (cfg.cool_to, &self.inv.thermal.chosen) {
            let n = format!(
                "--cool-to {c}: this machine has no temperature sensor, so the run did not wait for the SoC to cool"
            );
            self.s.note(n.clone());
            self.emit(Event::Note(n));
        }
        let t = cfg.timeout.as_secs_f64();
        let title = if self.opts.force {
            "the idle gate: one look (--force)".to_string()
        } else if t >= 10.0 {
            format!("the idle gate, up to {t:.0} s")
        } else {
            format!("the idle gate, up to {t:.1} s")
        };
        self.phase(phase::IDLE, &title, None, Vec::new(), |r| {
            let stop = r.stop.clone();
            let mut last = String::new();
            let events = &mut r.events;
            let rep =
                idle::wait_until_idle_or_stop(r.host, r.inv, &cfg, &[], &stop, &mut |_, v| {
                    if let Verdict::Wait(why) = v {
                        if *why != last {
                            last = why.clone();
                            (events)(Event::Waiting {
                                what: IDLE_WAIT.into(),
                                reason: Some(why.clone()),
                            });
                        }
                    }
                });
            if rep.idle && !r.opts.force && r.s.has_power_source() {
                let d = r.s.idle_power();
                (events)(Event::Waiting {
                    what: IDLE_WAIT.into(),
                    reason: Some(format!(
                        "idle; measuring the idle power for {:.0} s",
                        d.as_secs_f64()
                    )),
                });
                idle::pause(d, &stop);
            }
            let out = Outcome {
                status: Some(if rep.idle || r.opts.force {
                    PhaseStatus::Ok
                } else {
                    PhaseStatus::Failed
                }),
                reason: (!rep.idle).then(|| {
                    if r.opts.force {
                        format!("not idle (forced): {}", rep.reason)
                    } else {
                        rep.reason.clone()
                    }
                }),
                scores: Some(Scores::Idle(m::IdleScores {
                    idle: rep.idle,
                    forced: !rep.idle && r.opts.force,
                    reason: rep.reason.clone(),
                    waited_s: rep.waited.as_secs_f64(),
                    load1: rep.last.and_then(|l| l.load1),
                    busy_pct: rep
                        .last
                        .and_then(|l| l.busy_cores)
                        .map(|b| 100.0 * b / r.inv.online_cpus().count().max(1) as f64),
                    temp_c: rep.last.and_then(|l| l.temp_c),
                    busy_processes: rep
                        .busy_processes
                        .iter()
                        .map(|p| m::BusyProcess {
                            pid: p.pid,
                            comm: p.comm.clone(),
                            cpu_s: p.total_s(),
                        })
                        .collect(),
                })),
                ..Default::default()
            };
            report = Some(rep);
            out
        });
        let rep = report.expect("the idle phase ran");
        if rep.idle {
            return Ok(());
        }
        if self.stopped() {
            return Err(RunError::InterruptedWhileWaiting);
        }
        let busy: Vec<String> = rep
            .busy_processes
            .iter()
            .take(5)
            .map(|p| format!("{} (pid {}) {:.1} s", p.comm, p.pid, p.total_s()))
            .collect();
        if !self.opts.force {
            return Err(RunError::NotIdle {
                reason: rep.reason,
                waited_s: rep.waited.as_secs_f64(),
                busy: if busy.is_empty() {
                    String::new()
                } else {
                    format!("; busiest: {}", busy.join(", "))
                },
            });
        }
        // --force: say so in the result, with the evidence of the idle phase.
        let tl = self.s.timeline();
        let phase = tl.phase(phase::IDLE).cloned();
        let samples = phase.as_ref().map(|p| tl.samples_in(p)).unwrap_or(&[]);
        let (a, b) = phase
            .as_ref()
            .map_or((0.0, 0.0), |p| (p.start, p.end.unwrap_or(p.start)));
        let f =
            activity::not_idle(samples, Some((a, b, &rep.busy_processes))).unwrap_or_else(|| {
                Finding::new(
                    FindingKind::NotIdle,
                    Severity::Warning,
                    format!(
                        "The run was started with --force although the idle gate said: {}.",
                        rep.reason
                    ),
                )
                .with_evidence(busy.clone())
            });
        self.s.finding(f);
        self.emit(Event::Note(format!(
            "not idle ({}); going on because of --force",
            rep.reason
        )));
        Ok(())
    }
}
