//! The periodic-task engine: tasks that wake at **absolute** times
//! (`clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, so a late wake-up never shifts later
//! periods), do their work, and record per period the wake-up latency (intended wake →
//! running), the slack to the deadline, and whether it was met. Used by `interactivity`
//! (interbench's simulated Audio/Video/X/Gaming tasks and its loads) and the governor study.
//!
//! A period whose deadline passed before the task even woke is dropped whole — its work is
//! not done, and every interval that passed counts as a missed deadline (interbench's rule:
//! a late frame is dropped to catch up). A period whose work ends after the deadline counts
//! one missed deadline; the next period then starts late, and its lateness is its latency.
//!
//! Recording allocates nothing and takes no lock: each task owns its statistics.

pub mod burn;
pub mod sched;
pub mod slack;
pub mod stats;
pub mod taskset;

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::Duration;

pub use burn::{calibrate, Calibration, WorkKind};
pub use sched::Policy;
pub use slack::{SlackStats, SlackSummary};
pub use stats::{LatencySummary, PeriodStats};

/// Monotonic clock, ns.
pub fn now_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Sleep until the monotonic clock reads `ns` (returns at once when it already has).
pub fn sleep_until(ns: u64) {
    let ts = rustix::time::Timespec {
        tv_sec: (ns / 1_000_000_000) as _,
        tv_nsec: (ns % 1_000_000_000) as _,
    };
    // EINTR: sleep again to the same absolute time.
    while let Err(rustix::io::Errno::INTR) =
        rustix::thread::clock_nanosleep_absolute(rustix::time::ClockId::Monotonic, &ts)
    {}
}

/// CPU time of the calling thread, ns.
pub fn thread_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// What a task does each period.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "pattern", rename_all = "snake_case")]
pub enum Pattern {
    /// `run_ns` of work every `period_ns`, due by the end of the period.
    Periodic { run_ns: u64, period_ns: u64 },
    /// interbench's X: frames of `frame_ns`; the work rises from 0 to the whole frame in
    /// `steps` + 1 steps (0 %, 1 %, … 100 % of the frame) and starts again.
    Sweep { frame_ns: u64, steps: u32 },
    /// interbench's Gaming: chunks of `chunk_ns` of work back to back, no sleep and no
    /// deadline; the latency is how much longer than `chunk_ns` a chunk took.
    Continuous { chunk_ns: u64 },
}

impl Pattern {
    /// Work and period of period number `k`.
    fn at(&self, k: u64) -> (u64, u64) {
        match *self {
            Pattern::Periodic { run_ns, period_ns } => (run_ns, period_ns),
            Pattern::Sweep { frame_ns, steps } => {
                let i = k % (steps as u64 + 1);
                (frame_ns * i / steps.max(1) as u64, frame_ns)
            }
            Pattern::Continuous { chunk_ns } => (chunk_ns, chunk_ns),
        }
    }

    /// The share of one CPU the task asks for, %.
    pub fn cpu_pct(&self) -> f64 {
        match *self {
            Pattern::Periodic { run_ns, period_ns } => run_ns as f64 / period_ns as f64 * 100.0,
            Pattern::Sweep { .. } => 50.0,
            Pattern::Continuous { .. } => 100.0,
        }
    }

    pub fn has_deadlines(&self) -> bool {
        !matches!(self, Pattern::Continuous { .. })
    }
}

/// One periodic task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSpec {
    pub name: String,
    pub pattern: Pattern,
    pub work: WorkKind,
    pub policy: Policy,
    /// Pin to these CPUs; None = wherever the scheduler puts it.
    pub cpus: Option<Vec<u32>>,
    /// What a late task does with the periods it is behind on.
    #[serde(default)]
    pub late: Late,
}

/// What happens to periods whose start has passed when the task runs again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Late {
    /// interbench: whole periods that passed are dropped (counted as missed, their work not
    /// done) to catch up.
    #[default]
    Drop,
    /// rt-app's absolute timer, the governor study: every period's work is done, one after
    /// the other without sleeping while behind; each period's signed slack is recorded.
    RunAll,
}

/// What a task run produced.
#[derive(Debug, Clone)]
pub struct TaskOutcome {
    pub stats: PeriodStats,
    /// The policy the task ran with, and why it is not the one asked for.
    pub policy: Policy,
    pub policy_refused: Option<String>,
    pub periods: u64,
    /// CPU time of the task's thread, and the part spent in the work itself, ns.
    pub cpu_ns: u64,
    pub work_ns: u64,
    pub wall_ns: u64,
    /// Signed slack per period ([`Late::RunAll`] only).
    pub slack: Option<SlackStats>,
}

impl TaskOutcome {
    /// CPU the engine itself used per period (time keeping, sleeping, recording), ns.
    pub fn overhead_ns_per_period(&self) -> f64 {
        if self.periods == 0 {
            0.0
        } else {
            self.cpu_ns.saturating_sub(self.work_ns) as f64 / self.periods as f64
        }
    }
}

/// Run `spec` on the calling thread for `duration` (or until `stop`). `start` lines several
/// tasks up so they begin together.
pub fn run_task(
    spec: &TaskSpec,
    duration: Duration,
    stop: &AtomicBool,
    start: Option<&Barrier>,
) -> TaskOutcome {
    if let Some(c) = &spec.cpus {
        let _ = crate::pin::set_current_affinity(c);
    }
    let (policy, refused) = match sched::apply(&spec.policy) {
        Ok(()) => (spec.policy, None),
        Err(e) => {
            let _ = sched::apply(&Policy::default());
            (Policy::default(), Some(e.to_string()))
        }
    };
    if let Some(b) = start {
        b.wait();
    }
    let mut stats = PeriodStats::default();
    let (cpu0, t0) = (thread_cpu_ns(), now_ns());
    let end = t0 + duration.as_nanos() as u64;
    let mut work_ns = 0u64;
    let mut k = 0u64;
    let mut periods = 0u64;
    let mut slack = None;
    match spec.pattern {
        Pattern::Continuous { chunk_ns } => {
            while now_ns() < end && !stop.load(Ordering::Relaxed) {
                let a = now_ns();
                spec.work.run(chunk_ns);
                let took = now_ns() - a;
                work_ns += took;
                stats.latency(took.saturating_sub(chunk_ns));
                // interbench: wanted work is the chunk, what the delay cost is "missed".
                stats.work_done += chunk_ns / 1000;
                stats.work_dropped += took.saturating_sub(chunk_ns) / 1000;
                periods += 1;
            }
        }
        _ => {
            // rt-app's absolute timer records every period's signed slack and drops none;
            // interbench's drops whole periods that passed to catch up.
            let run_all = spec.late == Late::RunAll;
            let mut sl = run_all.then(SlackStats::default);
            // The first wake a little ahead, so every task of a cell starts from a sleep.
            let mut wake = t0 + 1_000_000;
            // A run-all task that is behind never catches up: it ends at the wall-clock end.
            while wake < end && (!run_all || now_ns() < end) && !stop.load(Ordering::Relaxed) {
                // Returns at once when the wake-up time has passed.
                sleep_until(wake);
                let woke = now_ns();
                stats.latency(woke.saturating_sub(wake));
                periods += 1;
                if !run_all {
                    loop {
                        let (_, period) = spec.pattern.at(k);
                        if woke < wake + period {
                            break;
                        }
                        stats.missed(1, 1);
                        wake += period;
                        k += 1;
                    }
                }
                let (run, period) = spec.pattern.at(k);
                let deadline = wake + period;
                if run > 0 {
                    let a = now_ns();
                    spec.work.run(run);
                    work_ns += now_ns() - a;
                }
                let done = now_ns();
                stats.work_done += 1;
                if let Some(sl) = sl.as_mut() {
                    sl.record(deadline as i64 - done as i64);
                }
                if done <= deadline {
                    stats.met(deadline - done);
                } else {
                    stats.missed(1, 0);
                }
                wake = deadline;
                k += 1;
            }
            slack = sl;
        }
    }
    let cpu_ns = thread_cpu_ns() - cpu0;
    TaskOutcome {
        stats,
        policy,
        policy_refused: refused,
        periods,
        cpu_ns,
        work_ns,
        wall_ns: now_ns() - t0,
        slack,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pattern: Pattern) -> TaskSpec {
        TaskSpec {
            name: "t".into(),
            pattern,
            work: WorkKind::Wall,
            policy: Policy::default(),
            cpus: None,
            late: Late::Drop,
        }
    }

    #[test]
    fn wakes_at_absolute_times_and_meets_easy_deadlines() {
        // 0.2 ms of work every 10 ms for 300 ms: ~30 periods, all but a few met on any
        // machine (plausibility, not timing).
        let stop = AtomicBool::new(false);
        let o = run_task(
            &spec(Pattern::Periodic {
                run_ns: 200_000,
                period_ns: 10_000_000,
            }),
            Duration::from_millis(300),
            &stop,
            None,
        );
        assert!((25..=31).contains(&o.periods), "{}", o.periods);
        assert!(
            o.stats.deadlines_met_pct() > 80.0,
            "{:?}",
            o.stats.summary()
        );
        assert!(o.work_ns >= 25 * 200_000);
        assert_eq!(o.policy, Policy::default());
    }

    #[test]
    fn work_longer_than_the_period_misses_every_deadline() {
        let stop = AtomicBool::new(false);
        let o = run_task(
            &spec(Pattern::Periodic {
                run_ns: 3_000_000,
                period_ns: 2_000_000,
            }),
            Duration::from_millis(100),
            &stop,
            None,
        );
        let s = o.stats.summary();
        assert_eq!(s.deadlines_met, 0, "{s:?}");
        assert!(s.deadlines_missed > 0);
        // Late starts drop whole periods: less work done than wanted.
        assert!(s.desired_cpu_pct < 100.0, "{s:?}");
    }

    #[test]
    fn run_all_does_every_period_and_records_negative_slacks() {
        // 3 ms of work every 2 ms: every period late, none dropped (rt-app's absolute timer).
        let stop = AtomicBool::new(false);
        let mut s = spec(Pattern::Periodic {
            run_ns: 3_000_000,
            period_ns: 2_000_000,
        });
        s.late = Late::RunAll;
        let o = run_task(&s, Duration::from_millis(100), &stop, None);
        let sl = o.slack.expect("slack recorded");
        assert_eq!(sl.count(), o.periods);
        assert_eq!(sl.miss_ratio(), Some(1.0));
        let m = o.stats.summary();
        assert_eq!(m.work_dropped, 0, "{m:?}");
        // Lateness grows by ≥ 1 ms a period: the last is the worst.
        assert!(sl.summary().min_us.unwrap() < -1000.0 * (o.periods as f64 - 1.0) * 0.9);
        // Easy periods under RunAll: slacks positive.
        s.pattern = Pattern::Periodic {
            run_ns: 100_000,
            period_ns: 10_000_000,
        };
        let o = run_task(&s, Duration::from_millis(100), &stop, None);
        assert!(o.slack.unwrap().miss_ratio().unwrap() < 0.2);
    }

    #[test]
    fn sweep_rises_from_nothing_to_the_whole_frame() {
        let p = Pattern::Sweep {
            frame_ns: 100,
            steps: 100,
        };
        assert_eq!(p.at(0), (0, 100));
        assert_eq!(p.at(37), (37, 100));
        assert_eq!(p.at(100), (100, 100));
        assert_eq!(p.at(101), (0, 100));
    }

    #[test]
    fn continuous_work_has_no_deadlines() {
        let stop = AtomicBool::new(false);
        let o = run_task(
            &spec(Pattern::Continuous {
                chunk_ns: 5_000_000,
            }),
            // ~50 chunks; at least 5 however long a busy machine keeps the thread off a CPU
            // (50 ms allowed only 10, and a loaded test run saw fewer than 5).
            Duration::from_millis(250),
            &stop,
            None,
        );
        assert!(o.periods >= 5, "{} chunks", o.periods);
        assert_eq!(o.stats.summary().deadlines_met_pct, None);
    }

    #[test]
    fn the_stop_flag_ends_a_task_early() {
        let stop = AtomicBool::new(true);
        let o = run_task(
            &spec(Pattern::Periodic {
                run_ns: 0,
                period_ns: 1_000_000,
            }),
            Duration::from_secs(60),
            &stop,
            None,
        );
        assert_eq!(o.periods, 0);
        assert!(o.wall_ns < 1_000_000_000);
    }

    #[test]
    fn a_refused_real_time_class_runs_ordinary_and_says_why() {
        let stop = AtomicBool::new(false);
        let mut s = spec(Pattern::Periodic {
            run_ns: 0,
            period_ns: 1_000_000,
        });
        s.policy = Policy::Fifo { priority: 1000 };
        let o = std::thread::spawn(move || run_task(&s, Duration::from_millis(5), &stop, None))
            .join()
            .unwrap();
        assert_eq!(o.policy, Policy::default());
        assert!(o.policy_refused.unwrap().contains("SCHED_FIFO"));
    }
}
