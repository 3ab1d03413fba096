//! The plan every sweeping kind (`net`, `io`) runs on its Session: every test × repeat in
//! alternating order × every setting of the sweep, each test one phase marked as kernel work,
//! with this side's per-core load from `/proc/stat`, the verdict "CPU-bound" and the clock
//! reached; then the median and spread per test and setting, the sweep's verdicts, the body
//! and each row's marks. What a kind measures, and the row it makes of it, is its [`Measure`].

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use truebench_host::parse::stat::Stat;
use truebench_model::sweep::{
    BusyBy, CoreLoad, CpuBound, Sweep, SweepBody, SweepRow, SweepSummary, SweepTest, TestPhase,
    TestRun, TestSummary,
};
use truebench_model::{BodyKind, PhaseStatus, RowEvidence, Typed};
use truebench_stats::spread_pct;
use truebench_tuning::TuningError;

use super::{apply, phase, reached_mhz, verdicts, Figure, Setting};
use crate::governors::{time_in_state, tis_delta};
use crate::progress::Event;
use crate::session::{self, Finish, Outcome, Session};

/// What a sweeping kind runs: its tests, their length and repeats, the CPU-bound threshold
/// and the sweep's settings.
#[derive(Debug, Clone)]
pub struct Plan<T> {
    /// In the order of the first repeat; even repeats run them reversed.
    pub tests: Vec<T>,
    pub duration: Duration,
    pub repeat: u32,
    /// A core at or above this busy share is the limit.
    pub cpu_bound_pct: f64,
    /// From `sweep::parse` (`as is` first); empty: as is only.
    pub sweep: Vec<Setting>,
}

/// One test as it ended, for the kind to make its row of.
pub struct Measured<T, M, F> {
    /// The test as the kind's measurement knows it.
    pub test: T,
    /// Test, setting, repeat, per-core load, CPU-bound verdict (None unless it completed),
    /// clock reached.
    pub run: TestRun<M>,
    /// Its phase, how it ended and why.
    pub evidence: RowEvidence<TestPhase<M>>,
    /// What the kind's measurement gave; None when it failed. Also there when the test was
    /// interrupted: which of its figures a cut-short test keeps is the kind's to say.
    pub figures: Option<F>,
}

type RowOf<K> = <<K as Measure>::Body as SweepBody>::Row;
type SummaryOf<K> = <<K as Measure>::Body as SweepBody>::Summary;
/// The test as the result names it.
type TestOf<K> = <RowOf<K> as SweepRow>::Test;
/// What [`Measure::row`] gets.
pub type MeasuredOf<K> = Measured<<K as Measure>::Test, TestOf<K>, <K as Measure>::Figures>;

/// What one sweeping kind measures and how it records it.
pub trait Measure {
    /// One test as the kind's measurement knows it (`Direction`, the kernel's `IoTest`).
    type Test: Copy;
    /// What measuring one test gives.
    type Figures;
    /// The kind's body.
    type Body: BodyKind + SweepBody;
    /// The unit of the headline figure, as the verdicts say it (`Mbit/s`).
    const UNIT: &'static str;

    /// The test as the result names it, in rows and phases (`upload`).
    fn test(t: Self::Test) -> TestOf<Self>;
    /// The title of its phase under the setting labelled `setting`, and its threads.
    fn title(&self, t: Self::Test, setting: &str) -> (String, u32);
    /// Run one test until done or `stop`; what it leaves for traceability (raw output, the
    /// kernel's full result) goes into `out`. Err: why it failed.
    fn measure(
        &self,
        t: Self::Test,
        stop: &AtomicBool,
        out: &mut Outcome,
    ) -> Result<Self::Figures, String>;
    /// The row of one test.
    fn row(m: MeasuredOf<Self>) -> RowOf<Self>;
    /// The summary of a test under a setting: `summary` with the medians of `done`, its
    /// completed, valid repeats.
    fn summary(summary: TestSummary<TestOf<Self>>, done: &[&RowOf<Self>]) -> SummaryOf<Self>;
    /// The figures of a row as its step's result says them (`, 940 Mbit/s`).
    fn step_figures(row: &RowOf<Self>) -> String;
    /// The body of the result.
    fn body(&self, sweep: Sweep, rows: Vec<RowOf<Self>>, tests: Vec<SummaryOf<Self>>)
        -> Self::Body;
}

/// Run `plan` on the started session `s`; the result holds what completed, also after
/// Ctrl-C.
pub fn run<K: Measure>(
    mut s: Session<'_>,
    kind: &K,
    plan: &Plan<K::Test>,
    events: &mut dyn FnMut(Event),
) -> Result<Typed<K::Body>, TuningError> {
    let (host, inv) = (s.host(), s.inv());
    let cpus: Vec<u32> = inv.online_cpus().map(|c| c.id).collect();
    let (settings, sweep_note) = begin(&mut s, &plan.sweep)?;
    let rows = each_test(&mut s, kind, plan, &settings, &cpus, events);
    let tests = summaries::<K>(&rows);
    let names: Vec<String> = tests.iter().map(|t| t.summary().test.to_string()).collect();
    let figures: Vec<Figure<'_>> = tests
        .iter()
        .zip(&names)
        .map(|(t, test)| Figure {
            test,
            setting: &t.summary().setting,
            median: t.headline_median(),
            spread_pct: t.summary().spread_pct,
        })
        .collect();
    let sweep = Sweep {
        duration_s: plan.duration.as_secs_f64(),
        repeat: plan.repeat,
        cpu_bound_pct: plan.cpu_bound_pct,
        settings: settings.iter().map(Setting::label).collect(),
        sweep_note,
        verdicts: verdicts(host, inv, &figures, K::UNIT),
    };
    let body = kind.body(sweep, rows, tests);
    let mut result = s.finish(body, Finish { comparable: true });
    let findings = &result.envelope.findings;
    for row in result.body.rows_mut() {
        session::mark(row.evidence_mut(), findings, &[], &[]);
    }
    Ok(result)
}

/// A test's result as progress: status, the kind's figures, why it failed (`ok, 940
/// Mbit/s, CPU-bound (cpu1 97 %, softirq)`).
fn step_result<K: Measure>(row: &RowOf<K>) -> String {
    let e = row.evidence();
    format!(
        "{}{}{}",
        e.status,
        K::step_figures(row),
        e.reason
            .as_ref()
            .map(|w| format!(": {w}"))
            .unwrap_or_default()
    )
}

/// The settings a suite runs: `as is` alone without a sweep, else the sweep when the session
/// may change settings; otherwise `as is` with the reason the sweep did not run.
fn begin(
    s: &mut Session<'_>,
    sweep: &[Setting],
) -> Result<(Vec<Setting>, Option<String>), TuningError> {
    if sweep.len() <= 1 {
        return Ok((vec![Setting::AsIs], None));
    }
    s.begin_tuning(true, None)?;
    if s.tuned() {
        return Ok((sweep.to_vec(), None));
    }
    Ok((
        vec![Setting::AsIs],
        Some(format!(
            "The sweep did not run ({}): the tests ran as the machine is.",
            s.tuning_reason().unwrap_or("no right to change settings")
        )),
    ))
}

/// Every test × repeat (alternating order) under every setting, each setting applied
/// through the Session's Tuning and restored before the next, each test a step of the
/// progress; stops at Ctrl-C. A setting that cannot be set is said, and its tests skipped.
fn each_test<K: Measure>(
    s: &mut Session<'_>,
    kind: &K,
    plan: &Plan<K::Test>,
    settings: &[Setting],
    cpus: &[u32],
    events: &mut dyn FnMut(Event),
) -> Vec<RowOf<K>> {
    let (host, inv) = (s.host(), s.inv());
    let total = settings.len() * plan.tests.len() * plan.repeat as usize;
    let mut rows = Vec::new();
    let mut index = 0;
    'outer: for setting in settings {
        let label = setting.label();
        if let Err(e) = apply(s, host, inv, setting) {
            events(Event::Note(format!("{label}: {e}; its tests are skipped")));
            s.note(format!("sweep setting '{label}' could not be applied: {e}"));
            s.restore_now();
            continue;
        }
        for r in 1..=plan.repeat {
            let mut order = plan.tests.clone();
            if r % 2 == 0 {
                order.reverse();
            }
            for t in order {
                if s.stopped() {
                    let kind_name = <TestOf<K> as SweepTest>::PREFIX;
                    s.interrupted(format!("before {kind_name} test {} of {total}", index + 1));
                    break 'outer;
                }
                index += 1;
                events(Event::step(
                    index,
                    total,
                    format!("{} ({label})", K::test(t)),
                    Some(plan.duration.as_secs_f64()),
                ));
                let row = one_test(s, kind, plan, setting, t, r, cpus);
                events(Event::score(step_result::<K>(&row)));
                rows.push(row);
            }
        }
        // Back to the machine's own settings before the next one.
        s.restore_now();
    }
    rows
}

/// One test under the current setting: a phase, the kind's measurement, this side's
/// per-core load and the clock reached.
fn one_test<K: Measure>(
    s: &mut Session<'_>,
    kind: &K,
    plan: &Plan<K::Test>,
    setting: &Setting,
    t: K::Test,
    r: u32,
    cpus: &[u32],
) -> RowOf<K> {
    let (host, inv, stop) = (s.host(), s.inv(), s.stop_flag());
    let label = setting.label();
    let test = K::test(t);
    let phase = phase(setting, test, r);
    let (title, threads) = kind.title(t, &label);
    let open = s.begin_phase(&phase, &title, Some(threads), cpus.to_vec());
    // TCP and storage reads are kernel work: their %sys is the measurement.
    s.mark_kernel_work();
    let tis_before = time_in_state(host, inv);
    let before = host.stat().ok();
    let mut out = Outcome::default();
    let figures = kind.measure(t, &stop, &mut out);
    let after = host.stat().ok();
    let tis = tis_delta(&tis_before, &time_in_state(host, inv));
    let cores = match (&before, &after) {
        (Some(b), Some(a)) => core_loads(b, a),
        _ => Vec::new(),
    };
    if let Err(e) = &figures {
        out.fail(e.clone());
    }
    let recorded = s.end_phase(open, out);
    let (status, reason) = match (&figures, recorded.status) {
        (_, PhaseStatus::Interrupted) => (PhaseStatus::Interrupted, recorded.reason.clone()),
        (Err(e), _) => (PhaseStatus::Failed, Some(e.clone())),
        (Ok(_), _) => (PhaseStatus::Ok, None),
    };
    // Only a test that ran to its end can have been held back by a core.
    let cpu_bound = match status {
        PhaseStatus::Ok => cpu_bound(&cores, plan.cpu_bound_pct),
        _ => None,
    };
    let mut evidence = RowEvidence::new(phase, status);
    evidence.reason = reason;
    K::row(Measured {
        test: t,
        run: TestRun {
            test,
            setting: label,
            repeat: r,
            cores,
            cpu_bound,
            reached_mhz: reached_mhz(&tis),
        },
        evidence,
        figures: figures.ok(),
    })
}

/// Median and spread per test and setting over the completed, valid repeats.
pub fn summaries<K: Measure>(rows: &[RowOf<K>]) -> Vec<SummaryOf<K>> {
    let mut keys: Vec<(TestOf<K>, &str)> = Vec::new();
    for r in rows {
        let k = (r.run().test, r.run().setting.as_str());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(test, setting)| {
            let done: Vec<&RowOf<K>> = rows
                .iter()
                .filter(|r| {
                    let e = r.evidence();
                    r.run().test == test
                        && r.run().setting == setting
                        && e.status == PhaseStatus::Ok
                        && e.invalid.is_none()
                })
                .collect();
            let headline: Vec<f64> = done.iter().filter_map(|r| r.headline()).collect();
            let summary = TestSummary {
                test,
                setting: setting.into(),
                runs: done.len() as u32,
                spread_pct: spread_pct(&headline),
                cpu_bound_runs: done.iter().filter(|r| r.run().cpu_bound.is_some()).count() as u32,
            };
            K::summary(summary, &done)
        })
        .collect()
}

/// Each CPU's share of the wall time between two reads of `/proc/stat`.
pub fn core_loads(before: &Stat, after: &Stat) -> Vec<CoreLoad> {
    after
        .cpus
        .iter()
        .filter_map(|(cpu, a)| {
            let (_, b) = before.cpus.iter().find(|(c, _)| c == cpu)?;
            let d = a.delta(b);
            let total = d.total();
            (total > 0).then(|| {
                let pct = |v: u64| v as f64 * 100.0 / total as f64;
                let softirq = pct(d.softirq + d.irq);
                let process = pct(d.user + d.nice + d.system);
                CoreLoad {
                    cpu: *cpu,
                    busy_pct: softirq + process,
                    softirq_pct: softirq,
                    process_pct: process,
                }
            })
        })
        .collect()
}

/// The busiest core when it reached `limit_pct`; named by what kept it busy.
pub fn cpu_bound(cores: &[CoreLoad], limit_pct: f64) -> Option<CpuBound> {
    let c = cores
        .iter()
        .max_by(|a, b| a.busy_pct.total_cmp(&b.busy_pct))?;
    (c.busy_pct >= limit_pct).then_some(CpuBound {
        cpu: c.cpu,
        busy_pct: c.busy_pct,
        by: if c.softirq_pct >= c.process_pct {
            BusyBy::Softirq
        } else {
            BusyBy::Process
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_host::parse::stat;

    fn stat_of(lines: &[&str]) -> Stat {
        stat::parse(&lines.join("\n"))
    }

    #[test]
    fn a_core_saturated_by_softirq_is_named() {
        // user nice system idle iowait irq softirq steal: cpu1 spends 60 of 100 ticks in
        // softirq and 37 in the process, cpu0 half idle.
        let b = stat_of(&["cpu0 0 0 0 0 0 0 0 0", "cpu1 0 0 0 0 0 0 0 0"]);
        let a = stat_of(&["cpu0 30 0 20 50 0 0 0 0", "cpu1 20 0 17 3 0 2 58 0"]);
        let cores = core_loads(&b, &a);
        assert_eq!(cores.len(), 2);
        assert_eq!(cores[0].busy_pct, 50.0);
        assert_eq!((cores[1].softirq_pct, cores[1].process_pct), (60.0, 37.0));
        let v = cpu_bound(&cores, 95.0).unwrap();
        assert_eq!((v.cpu, v.by), (1, BusyBy::Softirq));
        assert_eq!(v.busy_pct, 97.0);
        // Steal is time the VM did not get: not busy here.
        let a2 = stat_of(&["cpu0 30 0 20 50 0 0 0 0", "cpu1 50 0 40 0 0 0 0 10"]);
        let c2 = core_loads(&b, &a2);
        assert_eq!(c2[1].busy_pct, 90.0);
        assert!(cpu_bound(&c2, 95.0).is_none());
        // A process-bound core.
        let a3 = stat_of(&["cpu0 90 0 8 2 0 0 0 0", "cpu1 0 0 0 100 0 0 0 0"]);
        let v3 = cpu_bound(&core_loads(&b, &a3), 95.0).unwrap();
        assert_eq!((v3.cpu, v3.by), (0, BusyBy::Process));
        assert!(cpu_bound(&[], 95.0).is_none());
    }
}
