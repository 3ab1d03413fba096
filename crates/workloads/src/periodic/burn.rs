//! The work a periodic task does: calibrated loops (a fixed amount of work — a slower clock
//! takes longer and misses deadlines, interbench's model) or a fixed wall time (busy until
//! the time is up, the governor study's model).

use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

use truebench_stats::median;

use super::now_ns;

/// `n` iterations of an empty loop the compiler cannot remove: interbench's `burn_loops`,
/// whose body is `asm volatile("" ::: "memory")`, so that one loops-per-ms figure means the
/// same work in both tools (`bench/interactivity_vs_interbench.sh` gives both the same one).
/// Changing the body changes what a cached calibration means: bump [`LOOP_BODY`].
#[inline(never)]
pub fn burn_loops(n: u64) {
    for _ in 0..n {
        barrier();
    }
}

/// Names the loop body and how it is timed; part of the calibration cache's key.
pub const LOOP_BODY: &str = "asm-barrier, cpu-timed";

#[cfg(any(
    target_arch = "x86",
    target_arch = "x86_64",
    target_arch = "arm",
    target_arch = "aarch64",
    target_arch = "riscv32",
    target_arch = "riscv64",
    target_arch = "loongarch64"
))]
#[inline(always)]
fn barrier() {
    // SAFETY: an empty instruction sequence; without `nomem` the compiler must assume it
    // touches memory, as gcc does for interbench's "memory" clobber.
    unsafe { std::arch::asm!("", options(nostack, preserves_flags)) }
}

#[cfg(not(any(
    target_arch = "x86",
    target_arch = "x86_64",
    target_arch = "arm",
    target_arch = "aarch64",
    target_arch = "riscv32",
    target_arch = "riscv64",
    target_arch = "loongarch64"
)))]
#[inline(always)]
fn barrier() {
    // No stable inline assembly here: an opaque no-op serves (one more instruction or so).
    std::hint::black_box(());
}

/// Busy until `ns` of wall time have passed.
pub fn burn_wall(ns: u64) {
    let end = now_ns() + ns;
    while now_ns() < end {
        std::hint::spin_loop();
    }
}

/// How work per period is given.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkKind {
    /// A fixed amount of work: `loops_per_ms` calibrated loops per millisecond wanted.
    Loops { loops_per_ms: u64 },
    /// A fixed wall time, whatever the clock.
    Wall,
}

impl WorkKind {
    /// Do `ns` worth of work.
    pub fn run(&self, ns: u64) {
        match *self {
            WorkKind::Loops { loops_per_ms } => burn_loops(loops_per_ms * ns / 1_000_000),
            WorkKind::Wall => burn_wall(ns),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            WorkKind::Loops { loops_per_ms } => {
                format!("fixed work ({loops_per_ms} loops per ms calibrated)")
            }
            WorkKind::Wall => "fixed wall time".into(),
        }
    }
}

/// A calibration of [`burn_loops`] on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub loops_per_ms: u64,
    /// The CPU it ran on.
    pub cpu: Option<u32>,
    /// Loops per ms of each check, in order.
    pub checks: Vec<u64>,
    /// Largest difference between the final value and a later check, %.
    pub drift_pct: f64,
    /// Attempts made (a drift over 1 % redoes it, up to three times).
    pub attempts: u32,
    /// Within 1 % on its last attempt.
    pub stable: bool,
}

/// Largest difference allowed between two checks, %.
pub const MAX_DRIFT_PCT: f64 = 1.0;

/// Loops per ms from one timed burst of about `ms` milliseconds, timed by the thread's own
/// CPU time: another process sharing the CPU while calibrating does not make the loop look
/// slower (wall time would, and every later period would then do too little work).
fn measure(guess: u64, ms: u64) -> u64 {
    let n = guess.max(1) * ms;
    let t = super::thread_cpu_ns();
    burn_loops(n);
    let el = super::thread_cpu_ns().saturating_sub(t).max(1) as f64;
    ((n as f64) * 1e6 / el).round() as u64
}

/// How exact a calibration is: `repeat` times, after a pause of `pause` (a periodic task
/// wakes from sleep), ask for `work_ms` of work and return the CPU time it took / asked, and
/// the wall time / asked. 1.0 = as calibrated.
pub fn accuracy(loops_per_ms: u64, work_ms: f64, repeat: u32, pause: Duration) -> Vec<(f64, f64)> {
    let n = (loops_per_ms as f64 * work_ms).round() as u64;
    let asked = work_ms * 1e6;
    (0..repeat)
        .map(|_| {
            std::thread::sleep(pause);
            let (c, w) = (super::thread_cpu_ns(), now_ns());
            burn_loops(n);
            let cpu = super::thread_cpu_ns().saturating_sub(c) as f64;
            let wall = now_ns().saturating_sub(w) as f64;
            (cpu / asked, wall / asked)
        })
        .collect()
}

/// Calibrate on the calling thread (pin it first): warm up for `warm_up` so the clock climbs
/// to its maximum, take the median of five 20 ms bursts, pause, check twice more; redo when a
/// check drifts more than 1 %.
pub fn calibrate(cpu: Option<u32>, warm_up: Duration) -> Calibration {
    let start = Instant::now();
    let mut guess = 100_000u64;
    while start.elapsed() < warm_up {
        guess = measure(guess, 10);
    }
    let mut attempts = 0;
    loop {
        attempts += 1;
        // Five and three bursts: the medians exist.
        let v: Vec<u64> = (0..5).map(|_| measure(guess, 20)).collect();
        let lpm = median(&v).unwrap_or(guess);
        let mut checks = vec![lpm];
        let mut drift = 0.0f64;
        for _ in 0..2 {
            // A pause, as interbench does: reproducibility after the CPU went idle.
            std::thread::sleep(Duration::from_millis(100));
            let w: Vec<u64> = (0..3).map(|_| measure(lpm, 20)).collect();
            let c = median(&w).unwrap_or(lpm);
            drift = drift.max((c as f64 - lpm as f64).abs() / lpm as f64 * 100.0);
            checks.push(c);
        }
        let stable = drift <= MAX_DRIFT_PCT;
        if stable || attempts >= 3 {
            return Calibration {
                loops_per_ms: lpm,
                cpu,
                checks,
                drift_pct: drift,
                attempts,
                stable,
            };
        }
        guess = lpm;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibrated_loops_take_about_the_time_asked() {
        let c = calibrate(None, Duration::from_millis(200));
        assert!(c.loops_per_ms > 1000, "{c:?}");
        assert_eq!(c.checks.len(), 3);
        // Plausibility only (a shared machine): 20 ms of work takes 20 ms of this thread's
        // CPU within a factor 3. Its CPU time, not the wall clock: with the other tests on
        // both CPUs the thread waited its turn (62 ms of wall time seen in a suite run).
        let w = WorkKind::Loops {
            loops_per_ms: c.loops_per_ms,
        };
        let t = crate::periodic::thread_cpu_ns();
        w.run(20_000_000);
        let ms = (crate::periodic::thread_cpu_ns() - t) as f64 / 1e6;
        assert!((6.0..60.0).contains(&ms), "{ms} ms of CPU");
    }

    #[test]
    fn accuracy_gives_one_cpu_and_wall_ratio_per_repeat() {
        let c = calibrate(None, Duration::from_millis(100));
        let r = accuracy(c.loops_per_ms, 2.0, 5, Duration::ZERO);
        assert_eq!(r.len(), 5);
        // Plausibility only (a shared machine): within a factor 3 of what was asked, and the
        // wall time never shorter than the thread's CPU time (beyond clock granularity).
        for (cpu, wall) in r {
            assert!((0.33..3.0).contains(&cpu), "{cpu}");
            assert!(wall >= cpu * 0.99, "{cpu} {wall}");
        }
    }

    #[test]
    fn wall_work_lasts_its_time() {
        let t = Instant::now();
        WorkKind::Wall.run(5_000_000);
        assert!(t.elapsed() >= Duration::from_millis(5));
    }
}
