//! `truebench clocks` as a measurement on the Session: the walk is one phase whose evidence
//! (samples, snapshots, kernel log) and findings go into a stored `clocks` document.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use truebench_host::{Host, Inventory};
use truebench_model::clocks::ClocksPhase;
use truebench_model::{self as m, ClocksBody, ClocksResult, PhaseStatus, Scores};
use truebench_workloads::clock::{ClockError, ClockMeasurement};

use crate::clocks::{
    clusters_of, no_walk_reason, planned_points, render_text, run_with, ClockProbe, ClocksOptions,
    ClocksReport, LoadHandle, WalkMode,
};
use crate::progress::Event;
use crate::session::{Finish, Outcome, Session, SessionOptions};

/// Walk the OPPs (or measure at the current clocks) on a Session and return the document;
/// each measurement is a step of the progress told to `events`. Settings are restored before
/// it returns, also when `stop` is raised meanwhile.
pub fn document<P: ClockProbe + ?Sized>(
    host: &Host,
    inv: &Inventory,
    opts: &ClocksOptions,
    probe: &mut P,
    meter: Option<Arc<crate::meter::Meter>>,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<ClocksResult, crate::session::SessionError> {
    let total = planned_points(host, inv, opts);
    events(Event::headline(format!(
        "clocks: {total} measurement(s), one per OPP walked{}",
        if opts.all_cores {
            ", then every CPU at once idle and under load"
        } else {
            ""
        }
    )));
    let mut probe = Shown {
        inner: probe,
        events,
        done: 0,
        total,
    };
    let mut s = Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.sample_interval,
            meter,
            ..Default::default()
        },
        stop,
    )?;
    let wants_walk = opts.tune && clusters_of(inv).iter().any(|c| c.policy_dir.is_some());
    let reason = if wants_walk {
        match s.begin_tuning(true, None) {
            Ok(None) => None,
            Ok(Some(e)) | Err(e) => Some(no_walk_reason(&e)),
        }
    } else {
        let why = if opts.tune {
            "no cpufreq policy: there are no OPPs to walk, each cluster is measured at the clock the hardware runs"
        } else {
            "the OPP walk was switched off"
        };
        let _ = s.begin_tuning(false, Some(why.to_string()));
        // Only a switched-off walk is a reason the clusters' notes repeat; without cpufreq
        // each cluster already says so.
        (!opts.tune).then(|| why.to_string())
    };
    if let Some(r) = &reason {
        s.set_tuning_reason(r);
    }
    let cpus: Vec<u32> = clusters_of(inv)
        .iter()
        .filter_map(|c| c.cpus.first().copied())
        .collect();
    let r = s
        .phase(
            ClocksPhase::Walk,
            "clock check (measured vs advertised for every OPP)",
            Some(1),
            cpus,
            |s| {
                let mut tuning = s.take_tuning();
                let stop = s.stop_flag();
                let r = run_with(
                    s.host(),
                    s.inv(),
                    opts,
                    &mut probe,
                    &mut tuning,
                    reason.clone(),
                    &stop,
                );
                s.give_back_tuning(tuning);
                (outcome(&r, "OPP walk from the highest OPP"), r)
            },
        )
        .value;
    s.set_tuning_applied(r.tuning.applied);
    for f in &r.findings {
        s.finding(f.clone());
    }
    for n in &r.notes {
        s.note(n.clone());
    }
    let walked = r.clusters.iter().any(|c| c.mode == WalkMode::OppWalk);
    Ok(s.finish(
        ClocksBody {
            max_khz: opts.max_khz,
            min_khz: opts.min_khz,
            walked,
            clusters: r.clusters,
            all_cores: r.all_cores,
        },
        Finish { comparable: true },
    ))
}

/// The clock walk as a phase outcome: typed scores, the sbc-bench text as raw output, the
/// report as details.
pub(crate) fn outcome(report: &ClocksReport, what: &str) -> Outcome {
    let clusters = report.clusters.clone();
    let measured = report
        .clusters
        .iter()
        .flat_map(|c| &c.points)
        .any(|p| p.measured_mhz.is_some());
    Outcome {
        status: (!measured).then_some(PhaseStatus::Failed),
        reason: (!measured).then(|| "no clock could be measured".into()),
        raw: vec![m::RawOutput {
            label: "clocks".into(),
            command: format!("built-in clock measurement ({what})"),
            text: render_text(report),
        }],
        scores: Some(Scores::Clocks(m::ClockScores {
            clusters,
            all_cores: None,
        })),
        details: serde_json::to_value(report).unwrap_or_default(),
    }
}

/// The probe the walk uses, saying each measurement as a step of the progress.
struct Shown<'a, P: ?Sized> {
    inner: &'a mut P,
    events: &'a mut dyn FnMut(Event),
    done: usize,
    total: usize,
}

impl<P: ClockProbe + ?Sized> Shown<'_, P> {
    fn next(&mut self, what: String) {
        self.done += 1;
        // The plan counts from the inventory; a walk that finds more says so in the total.
        let total = self.total.max(self.done);
        (self.events)(Event::step(self.done, total, what, None));
    }
}

impl<P: ClockProbe + ?Sized> ClockProbe for Shown<'_, P> {
    fn measure(&mut self, host: &Host, cpu: u32) -> Result<ClockMeasurement, ClockError> {
        let cur = host
            .read_u64(format!(
                "sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_max_freq"
            ))
            .map(|k| format!(" at {} MHz", k / 1000))
            .unwrap_or_default();
        self.next(format!("cpu{cpu}{cur}"));
        let r = self.inner.measure(host, cpu);
        (self.events)(Event::score(match &r {
            Ok(m) => format!("{:.0} MHz measured", m.mhz),
            Err(e) => format!("failed: {e}"),
        }));
        r
    }

    fn measure_many(
        &mut self,
        host: &Host,
        cpus: &[u32],
    ) -> Vec<Result<ClockMeasurement, ClockError>> {
        self.next(format!("{} CPUs at once", cpus.len()));
        let r = self.inner.measure_many(host, cpus);
        let ok = r.iter().filter(|m| m.is_ok()).count();
        (self.events)(Event::score(format!("{ok} of {} measured", cpus.len())));
        r
    }

    fn start_load(&mut self, cpus: &[u32]) -> LoadHandle {
        self.inner.start_load(cpus)
    }

    fn firmware_mhz(&mut self, host: &Host) -> Option<f64> {
        self.inner.firmware_mhz(host)
    }

    fn note(&self, host: &Host) -> Option<String> {
        self.inner.note(host)
    }
}
