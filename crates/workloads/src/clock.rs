//! Clock measurement: how fast a core really clocks, without privileges or performance counters.
//!
//! The method follows the idea of wtarreau's `mhz` (own implementation): a chain of dependent
//! integer additions retires one addition per cycle on every mainstream core, so timing a
//! known number of them gives the clock. Two loops run the *same* number of iterations, one
//! with a short chain and one with a long chain per iteration; subtracting their times cancels
//! everything they share (loop counter, branch, call, timer reads):
//!
//! `MHz = iterations × (LONG_CHAIN − SHORT_CHAIN) / (t_long − t_short)`
//!
//! Disturbances (interrupts, preemption, a hypervisor stealing the vCPU) only ever make a loop
//! *slower*, so each sample takes a robust minimum (the third-fastest of hundreds of short
//! trials) of each loop. Trials during which the thread was context-switched
//! (`getrusage(RUSAGE_THREAD)`) are rejected outright; a sample with too few clean trials or
//! with much steal time (`/proc/stat`) is repeated. The measuring thread is pinned to its CPU
//! and runs `SCHED_FIFO` when permitted.
//!
//! Besides the clock (`mhz`), every measurement also reports `effective_mhz`: the same cycles
//! over the *mean* loop times, disturbances included — what a plain timed-loop probe (7-Zip's
//! `CPU Freq`) would see. The gap between the two is time the core did not run our code.

use rustix::io::Errno;
use rustix::thread::{sched_setaffinity, CpuSet};
use rustix::time::{clock_gettime, clock_gettime_dynamic, ClockId, DynamicClockId};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::Duration;
use truebench_host::Host;

/// Dependent additions per iteration of the short loop.
pub const SHORT_CHAIN: usize = 40;
/// Dependent additions per iteration of the long loop (800 bytes of code on ARM: fits any L1).
pub const LONG_CHAIN: usize = 200;

/// Which loop body is timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Inline assembly: one register `add` per step, one cycle each.
    Asm,
    /// Plain Rust `a += a >> 3` steps (shift + add, assumed two cycles); only approximate, used
    /// where no assembly is written for the architecture.
    Portable,
}

impl Method {
    /// The best method this build has.
    pub fn native() -> Method {
        if cfg!(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "arm",
            target_arch = "riscv64"
        )) {
            Method::Asm
        } else {
            Method::Portable
        }
    }

    /// Cycles one chain step takes.
    pub fn cycles_per_step(self) -> f64 {
        match self {
            Method::Asm => 1.0,
            Method::Portable => 2.0,
        }
    }

    fn run(self, long: bool, n: usize) {
        match (self, long) {
            (Method::Asm, false) => chain::asm::<SHORT_CHAIN>(n),
            (Method::Asm, true) => chain::asm::<LONG_CHAIN>(n),
            (Method::Portable, false) => chain::portable::<SHORT_CHAIN>(n),
            (Method::Portable, true) => chain::portable::<LONG_CHAIN>(n),
        }
    }
}

mod chain {
    //! The loops. `#[inline(never)]` keeps each one a separate, identical-every-call body.

    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    pub fn asm<const L: usize>(n: usize) {
        if n == 0 {
            return;
        }
        // SAFETY: registers only; no memory, no stack.
        unsafe {
            core::arch::asm!(
                ".p2align 6",
                "2:",
                ".rept {len}",
                "add {a}, {b}",
                ".endr",
                "dec {n}",
                "jnz 2b",
                len = const L,
                a = inout(reg) 0usize => _,
                b = in(reg) 1usize,
                n = inout(reg) n => _,
                options(nomem, nostack),
            );
        }
    }

    #[cfg(target_arch = "aarch64")]
    #[inline(never)]
    pub fn asm<const L: usize>(n: usize) {
        if n == 0 {
            return;
        }
        // SAFETY: registers only; no memory, no stack.
        unsafe {
            core::arch::asm!(
                ".p2align 6",
                "2:",
                ".rept {len}",
                "add {a}, {a}, {b}",
                ".endr",
                "subs {n}, {n}, #1",
                "b.ne 2b",
                len = const L,
                a = inout(reg) 0usize => _,
                b = in(reg) 1usize,
                n = inout(reg) n => _,
                options(nomem, nostack),
            );
        }
    }

    #[cfg(target_arch = "arm")]
    #[inline(never)]
    pub fn asm<const L: usize>(n: usize) {
        if n == 0 {
            return;
        }
        // SAFETY: registers only; no memory, no stack.
        unsafe {
            core::arch::asm!(
                ".p2align 5",
                "2:",
                ".rept {len}",
                "add {a}, {a}, {b}",
                ".endr",
                "subs {n}, {n}, #1",
                "bne 2b",
                len = const L,
                a = inout(reg) 0usize => _,
                b = in(reg) 1usize,
                n = inout(reg) n => _,
                options(nomem, nostack),
            );
        }
    }

    #[cfg(target_arch = "riscv64")]
    #[inline(never)]
    pub fn asm<const L: usize>(n: usize) {
        if n == 0 {
            return;
        }
        // SAFETY: registers only; no memory, no stack.
        unsafe {
            core::arch::asm!(
                ".p2align 6",
                "2:",
                ".rept {len}",
                "add {a}, {a}, {b}",
                ".endr",
                "addi {n}, {n}, -1",
                "bnez {n}, 2b",
                len = const L,
                a = inout(reg) 0usize => _,
                b = in(reg) 1usize,
                n = inout(reg) n => _,
                options(nomem, nostack),
            );
        }
    }

    #[cfg(not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64"
    )))]
    pub fn asm<const L: usize>(n: usize) {
        portable::<L>(n)
    }

    /// `a += a >> 3` cannot be folded into fewer operations by the compiler (unlike `a += b`,
    /// which becomes one multiply); `black_box` once per iteration keeps the loop alive.
    #[inline(never)]
    pub fn portable<const L: usize>(n: usize) {
        let mut a = core::hint::black_box(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..n {
            for _ in 0..L {
                a = a.wrapping_add(a >> 3);
            }
            a = core::hint::black_box(a);
        }
        core::hint::black_box(a);
    }
}

/// Tuning knobs of one measurement. `Default` is what `truebench clocks` uses per OPP point:
/// about 10 ms warm-up + 3 × 30 ms (≈ 100 ms per OPP point).
#[derive(Debug, Clone, PartialEq)]
pub struct ClockOptions {
    /// Reported repetitions (sbc-bench shows three).
    pub samples: usize,
    /// Time spent collecting trials for one sample.
    pub sample_budget: Duration,
    /// Busy time before the first sample, so an idle-clocked core ramps up.
    pub warmup: Duration,
    /// Wanted duration of the long loop of one trial; raised on coarse timers.
    pub trial: Duration,
    /// Clean trials a sample needs; fewer and the sample is repeated.
    pub min_clean_trials: usize,
    /// How often a disturbed sample is repeated before it is kept anyway (flagged).
    pub max_retries: u32,
    /// A sample is repeated when the hypervisor stole more than this share of its time.
    pub max_steal_share: f64,
    /// Try `SCHED_FIFO` (silently skipped without permission).
    pub realtime: bool,
    /// Pin the measuring thread to the CPU (off only for tests of the arithmetic).
    pub pin: bool,
    pub method: Method,
}

impl Default for ClockOptions {
    fn default() -> Self {
        ClockOptions {
            samples: 3,
            sample_budget: Duration::from_millis(30),
            warmup: Duration::from_millis(10),
            trial: Duration::from_micros(40),
            min_clean_trials: 8,
            max_retries: 4,
            max_steal_share: 0.25,
            realtime: true,
            pin: true,
            method: Method::native(),
        }
    }
}

/// One measured clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockMeasurement {
    pub cpu: u32,
    /// Median of `samples_mhz`.
    pub mhz: f64,
    /// The repetitions, highest first (sbc-bench order).
    pub samples_mhz: Vec<f64>,
    /// Cycles over mean loop times, disturbances included (what a plain probe sees).
    pub effective_mhz: f64,
    /// Trials timed (short + long loop each).
    pub trials: u32,
    /// Trials rejected for a context switch, plus samples repeated for too few clean trials or
    /// too much steal time.
    pub rejected: u32,
    /// True when some sample stayed disturbed after every retry and was kept anyway.
    pub disturbed: bool,
    /// Steal time of this CPU during the samples (`/proc/stat`, 1/USER_HZ resolution).
    pub steal_ms: Option<f64>,
    /// Time the measuring thread waited on a run queue (`schedstat`).
    pub run_delay_ms: Option<f64>,
    pub realtime: bool,
    pub pinned: bool,
    pub method: Method,
    /// Loop iterations per trial.
    pub iterations: u64,
    /// Wall time of the whole measurement (calibration and warm-up included).
    pub duration_ms: f64,
}

impl ClockMeasurement {
    /// `1793 (1796.339/1793.356/1789.489)` — the number is the rounded median.
    pub fn sbc_bench_text(&self) -> String {
        format!("{:.0} ({})", self.mhz, self.samples_text())
    }

    /// `1796.339/1793.356/1789.489`
    pub fn samples_text(&self) -> String {
        self.samples_mhz
            .iter()
            .map(|m| format!("{m:.3}"))
            .collect::<Vec<_>>()
            .join("/")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClockError {
    #[error("cannot pin the measuring thread to cpu{cpu}: {source}")]
    Pin {
        cpu: u32,
        #[source]
        source: std::io::Error,
    },
    #[error("clock_gettime(CLOCK_MONOTONIC_RAW) failed: {0}")]
    Timer(std::io::Error),
    #[error("cpu{cpu}: no usable sample in {attempts} attempts (disturbed every time)")]
    Disturbed { cpu: u32, attempts: u32 },
    #[error("the measuring thread for cpu{cpu} panicked")]
    Thread { cpu: u32 },
    #[error("invalid options: {0}")]
    Options(String),
}

/// Measure `cpu`'s clock on a dedicated thread (pinned, real-time when allowed); the caller's
/// own scheduling is untouched. `host` supplies `/proc` for steal and run-delay accounting.
pub fn measure(host: &Host, cpu: u32, opts: &ClockOptions) -> Result<ClockMeasurement, ClockError> {
    validate(opts)?;
    std::thread::scope(|s| {
        s.spawn(|| measure_here(host, cpu, opts, None))
            .join()
            .unwrap_or(Err(ClockError::Thread { cpu }))
    })
}

/// Measure several CPUs at the same time, one pinned thread each, started together.
pub fn measure_many(
    host: &Host,
    cpus: &[u32],
    opts: &ClockOptions,
) -> Vec<Result<ClockMeasurement, ClockError>> {
    if let Err(e) = validate(opts) {
        return cpus
            .iter()
            .map(|_| Err(ClockError::Options(e.to_string())))
            .collect();
    }
    let barrier = Barrier::new(cpus.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                let b = &barrier;
                (cpu, s.spawn(move || measure_here(host, cpu, opts, Some(b))))
            })
            .collect();
        handles
            .into_iter()
            .map(|(cpu, h)| h.join().unwrap_or(Err(ClockError::Thread { cpu })))
            .collect()
    })
}

/// Keep `cpu` busy with the long chain until `stop` is set (a light, steady load).
pub fn spin(cpu: Option<u32>, stop: &AtomicBool) -> Result<(), ClockError> {
    if let Some(cpu) = cpu {
        pin_current(cpu).map_err(|source| ClockError::Pin { cpu, source })?;
    }
    let m = Method::native();
    while !stop.load(Ordering::Relaxed) {
        m.run(true, 10_000);
    }
    Ok(())
}

fn validate(opts: &ClockOptions) -> Result<(), ClockError> {
    if opts.samples == 0 {
        return Err(ClockError::Options("samples must be at least 1".into()));
    }
    if opts.min_clean_trials == 0 {
        return Err(ClockError::Options(
            "min_clean_trials must be at least 1".into(),
        ));
    }
    Ok(())
}

/// Runs on the measuring thread.
fn measure_here(
    host: &Host,
    cpu: u32,
    opts: &ClockOptions,
    start_together: Option<&Barrier>,
) -> Result<ClockMeasurement, ClockError> {
    // Pin first (and fail before waiting on the others would deadlock: wait in any case).
    let pinned = if opts.pin {
        pin_current(cpu).map_err(|source| ClockError::Pin { cpu, source })
    } else {
        Ok(())
    };
    if let Some(b) = start_together {
        b.wait();
    }
    pinned?;
    let _rt = opts.realtime.then(Realtime::enter);
    let realtime = _rt.as_ref().is_some_and(|g| g.active);
    check_timer()?;
    let t_start = now_ns();

    let method = opts.method;
    // A coarse timer needs longer trials (quantisation below 0.05 %), but never beyond 20 ms:
    // a jiffies-only clock must not turn one point into minutes.
    let target_ns = (opts.trial.as_nanos() as u64)
        .max(2000 * timer_granularity_ns())
        .min(MAX_TRIAL_NS);
    let n = calibrate(method, target_ns);
    // Room for the clean trials a sample needs, however long a trial came out.
    let budget_ns = (opts.sample_budget.as_nanos() as u64)
        .max(target_ns * 12 / 10 * opts.min_clean_trials as u64);
    let warm_until = now_ns() + opts.warmup.as_nanos() as u64;
    while now_ns() < warm_until {
        method.run(true, n);
    }

    let mut acct = Accounting::open(host, cpu);
    let mut samples = Vec::with_capacity(opts.samples);
    let (mut trials, mut rejected, mut disturbed) = (0u32, 0u32, false);
    let (mut sum_short, mut sum_long, mut count_all) = (0u128, 0u128, 0u64);
    let (mut steal_ns, mut delay_ns) = (Some(0u64), Some(0u64));
    let (mut attempts, mut repeated) = (0u32, 0u32);
    while samples.len() < opts.samples {
        attempts += 1;
        let before = acct.snapshot();
        let s = run_sample(method, n, budget_ns, opts.min_clean_trials);
        let after = acct.snapshot();
        trials += s.trials;
        rejected += s.switched;
        sum_short += s.sum_short as u128;
        sum_long += s.sum_long as u128;
        count_all += s.trials as u64;
        let stolen = after
            .steal_ns
            .zip(before.steal_ns)
            .map(|(a, b)| a.saturating_sub(b));
        let delayed = after
            .run_delay_ns
            .zip(before.run_delay_ns)
            .map(|(a, b)| a.saturating_sub(b));
        steal_ns = steal_ns.zip(stolen).map(|(a, b)| a + b);
        delay_ns = delay_ns.zip(delayed).map(|(a, b)| a + b);

        let too_much_steal =
            stolen.is_some_and(|st| st as f64 > opts.max_steal_share * s.wall_ns.max(1) as f64);
        let usable = s.mhz(method, n).filter(|m| m.is_finite() && *m > 0.0);
        let clean_enough = s.clean >= opts.min_clean_trials && !too_much_steal;
        let retries_left = repeated < opts.max_retries * opts.samples as u32;
        match usable {
            Some(mhz) if clean_enough => samples.push(mhz),
            _ if retries_left => {
                repeated += 1;
                rejected += 1;
            }
            Some(mhz) => {
                disturbed = true;
                samples.push(mhz);
            }
            None => return Err(ClockError::Disturbed { cpu, attempts }),
        }
    }
    samples.sort_by(|a, b| b.total_cmp(a));
    // Never empty: zero samples is refused before measuring, and the loop ends with as many
    // as asked or an error.
    let mhz = truebench_stats::median(&samples).unwrap_or(0.0);
    let cycles = n as f64 * (LONG_CHAIN - SHORT_CHAIN) as f64 * method.cycles_per_step();
    let mean_diff = (sum_long as f64 - sum_short as f64) / count_all.max(1) as f64;
    let effective_mhz = if mean_diff > 0.0 {
        cycles / mean_diff * 1000.0
    } else {
        0.0
    };
    Ok(ClockMeasurement {
        cpu,
        mhz,
        samples_mhz: samples,
        effective_mhz,
        trials,
        rejected,
        disturbed,
        steal_ms: steal_ns.map(|n| n as f64 / 1e6),
        run_delay_ms: delay_ns.map(|n| n as f64 / 1e6),
        realtime,
        pinned: opts.pin,
        method,
        iterations: n as u64,
        duration_ms: (now_ns() - t_start) as f64 / 1e6,
    })
}

/// What one sample collected.
struct Sample {
    short: Vec<u64>,
    long: Vec<u64>,
    trials: u32,
    clean: usize,
    switched: u32,
    sum_short: u64,
    sum_long: u64,
    wall_ns: u64,
}

/// Longest trial (long loop) the kernel uses, whatever the timer.
const MAX_TRIAL_NS: u64 = 20_000_000;

/// The k-th fastest clean time is the undisturbed one; k > 1 so that a single timer glitch
/// (a too-short reading) cannot set the result.
const ROBUST_RANK: usize = 3;

impl Sample {
    fn mhz(&self, method: Method, n: usize) -> Option<f64> {
        let ts = kth_smallest(&self.short, ROBUST_RANK)?;
        let tl = kth_smallest(&self.long, ROBUST_RANK)?;
        if tl <= ts {
            return None;
        }
        let cycles = n as f64 * (LONG_CHAIN - SHORT_CHAIN) as f64 * method.cycles_per_step();
        Some(cycles / (tl - ts) as f64 * 1000.0)
    }
}

fn run_sample(method: Method, n: usize, budget: u64, min_clean: usize) -> Sample {
    let mut s = Sample {
        short: Vec::with_capacity(1024),
        long: Vec::with_capacity(1024),
        trials: 0,
        clean: 0,
        switched: 0,
        sum_short: 0,
        sum_long: 0,
        wall_ns: 0,
    };
    let start = now_ns();
    loop {
        let cs0 = context_switches();
        let t0 = now_ns();
        method.run(false, n);
        let t1 = now_ns();
        method.run(true, n);
        let t2 = now_ns();
        let cs1 = context_switches();
        s.trials += 1;
        s.sum_short += t1 - t0;
        s.sum_long += t2 - t1;
        if cs0 == cs1 {
            s.short.push(t1 - t0);
            s.long.push(t2 - t1);
            s.clean += 1;
        } else {
            s.switched += 1;
        }
        let elapsed = t2 - start;
        // Past 4× the budget a sample ends even with too few clean trials (then it is
        // repeated or flagged): a machine that never lets us run must not hang the command.
        if (elapsed >= budget && s.clean >= min_clean) || elapsed >= 4 * budget {
            s.wall_ns = elapsed;
            return s;
        }
    }
}

fn kth_smallest(v: &[u64], k: usize) -> Option<u64> {
    if v.is_empty() {
        return None;
    }
    let mut w = v.to_vec();
    let i = k.min(w.len()) - 1;
    let (_, x, _) = w.select_nth_unstable(i);
    Some(*x)
}

/// Iterations so that the long loop takes about `target_ns`.
fn calibrate(method: Method, target_ns: u64) -> usize {
    let mut n = 16usize;
    loop {
        // Best of three: one disturbed timing must not shrink the loop.
        let t = (0..3)
            .map(|_| {
                let t0 = now_ns();
                method.run(true, n);
                now_ns() - t0
            })
            .min()
            .unwrap_or(1)
            .max(1);
        if t >= target_ns / 8 || n >= 1 << 28 {
            let scaled = (n as f64 * target_ns as f64 / t as f64).ceil() as usize;
            return scaled.clamp(1, 1 << 30);
        }
        n *= 4;
    }
}

/// CLOCK_MONOTONIC_RAW (the vDSO, no system call): not slewed by NTP while a sample runs.
fn now_ns() -> u64 {
    let ts = clock_gettime(ClockId::MonotonicRaw);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// [`now_ns`] cannot fail, so the clock is asked once here in a way that can.
fn check_timer() -> Result<(), ClockError> {
    clock_gettime_dynamic(DynamicClockId::Known(ClockId::MonotonicRaw))
        .map(drop)
        .map_err(|e| ClockError::Timer(e.into()))
}

/// Smallest step the timer shows between two reads (its real resolution, not `clock_getres`,
/// which claims 1 ns everywhere).
fn timer_granularity_ns() -> u64 {
    let mut best = u64::MAX;
    let start = now_ns();
    for _ in 0..200 {
        // A coarse timer makes each step slow: a few steps are enough then.
        if best != u64::MAX && now_ns() - start > 2_000_000 {
            break;
        }
        let a = now_ns();
        let mut b = now_ns();
        while b == a {
            b = now_ns();
        }
        best = best.min(b - a);
    }
    best
}

/// libc: rustix has no getrusage.
fn context_switches() -> u64 {
    // SAFETY: zeroed rusage is a valid value; getrusage fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    (ru.ru_nivcsw as u64).wrapping_add(ru.ru_nvcsw as u64)
}

/// CPUs this process may run on (its affinity mask: a container or `taskset` can narrow it).
pub fn allowed_cpus() -> Vec<u32> {
    crate::pin::current_affinity()
}

fn pin_current(cpu: u32) -> std::io::Result<()> {
    if cpu as usize >= CpuSet::MAX_CPU {
        return Err(Errno::INVAL.into());
    }
    let mut set = CpuSet::new();
    set.set(cpu as usize);
    sched_setaffinity(None, &set).map_err(Into::into)
}

/// `SCHED_FIFO` priority 1 for the current thread while alive: above every normal task, below
/// threaded interrupt handlers, so the system stays serviceable. Restores the old policy.
/// Raw syscalls (`sched_sys`): rustix has no sched_setscheduler, musl only stubs.
struct Realtime {
    active: bool,
    policy: libc::c_int,
    param: libc::sched_param,
}

impl Realtime {
    fn enter() -> Realtime {
        use crate::sched_sys::{get_param, get_scheduler, param, set_scheduler};
        let policy = get_scheduler();
        let (active, param) = match get_param() {
            Some(old) if policy >= 0 => (set_scheduler(libc::SCHED_FIFO, &param(1)) == 0, old),
            _ => (false, param(0)),
        };
        Realtime {
            active,
            policy,
            param,
        }
    }
}

impl Drop for Realtime {
    fn drop(&mut self) {
        if self.active {
            // Restores what sched_getscheduler/getparam returned for this thread.
            crate::sched_sys::set_scheduler(self.policy, &self.param);
        }
    }
}

/// Steal time of one CPU and run-queue delay of this thread, read through `Host`.
struct Accounting<'h> {
    host: &'h Host,
    cpu: u32,
    schedstat: Option<File>,
    tick_ns: u64,
}

#[derive(Clone, Copy)]
struct Snapshot {
    steal_ns: Option<u64>,
    run_delay_ns: Option<u64>,
}

impl<'h> Accounting<'h> {
    /// Opened on the measuring thread: `thread-self` resolves to the opener.
    fn open(host: &'h Host, cpu: u32) -> Self {
        let hz = rustix::param::clock_ticks_per_second();
        Accounting {
            host,
            cpu,
            schedstat: host.open("proc/thread-self/schedstat").ok(),
            tick_ns: 1_000_000_000u64.checked_div(hz).unwrap_or(10_000_000),
        }
    }

    fn snapshot(&mut self) -> Snapshot {
        let steal_ns = self.host.read("proc/stat").ok().and_then(|t| {
            truebench_host::parse::stat::parse(&t)
                .cpus
                .iter()
                .find(|(id, _)| *id == self.cpu)
                .map(|(_, c)| c.steal * self.tick_ns)
        });
        let run_delay_ns = self.schedstat.as_mut().and_then(|f| {
            let mut s = String::new();
            f.seek(SeekFrom::Start(0)).ok()?;
            f.read_to_string(&mut s).ok()?;
            parse_schedstat(&s).map(|(_, delay, _)| delay)
        });
        Snapshot {
            steal_ns,
            run_delay_ns,
        }
    }
}

/// `schedstat`: run time (ns), run-queue wait (ns), timeslices.
pub fn parse_schedstat(text: &str) -> Option<(u64, u64, u64)> {
    let mut it = text.split_whitespace().map(|w| w.parse::<u64>().ok());
    Some((it.next()??, it.next()??, it.next()??))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick() -> ClockOptions {
        ClockOptions {
            samples: 3,
            sample_budget: Duration::from_millis(5),
            warmup: Duration::from_millis(1),
            ..ClockOptions::default()
        }
    }

    #[test]
    fn schedstat_parses_and_rejects_garbage() {
        assert_eq!(parse_schedstat("123 456 7\n"), Some((123, 456, 7)));
        assert_eq!(parse_schedstat("123 x 7"), None);
        assert_eq!(parse_schedstat(""), None);
    }

    #[test]
    fn robust_rank_ignores_two_glitches() {
        assert_eq!(kth_smallest(&[100, 5, 101, 6, 102, 103], 3), Some(100));
        assert_eq!(kth_smallest(&[7], 3), Some(7));
        assert_eq!(kth_smallest(&[], 3), None);
    }

    #[test]
    fn sample_arithmetic() {
        // 1000 iterations × 160 extra adds in 64 µs = 2500 MHz.
        let s = Sample {
            short: vec![16_000, 16_000, 16_000, 90_000],
            long: vec![80_000, 80_000, 80_000, 200_000],
            trials: 4,
            clean: 4,
            switched: 0,
            sum_short: 0,
            sum_long: 0,
            wall_ns: 0,
        };
        let m = s.mhz(Method::Asm, 1000).unwrap();
        assert!((m - 2500.0).abs() < 1e-9, "{m}");
        let p = s.mhz(Method::Portable, 1000).unwrap();
        assert!((p - 5000.0).abs() < 1e-9, "{p}");
        let bad = Sample {
            long: vec![1, 1, 1],
            ..s
        };
        assert_eq!(bad.mhz(Method::Asm, 1000), None);
    }

    #[test]
    fn text_matches_sbc_bench() {
        let m = ClockMeasurement {
            cpu: 0,
            mhz: 1793.356,
            samples_mhz: vec![1796.339, 1793.356, 1789.489],
            effective_mhz: 1790.0,
            trials: 3,
            rejected: 0,
            disturbed: false,
            steal_ms: None,
            run_delay_ms: None,
            realtime: false,
            pinned: true,
            method: Method::Asm,
            iterations: 1,
            duration_ms: 1.0,
        };
        assert_eq!(m.sbc_bench_text(), "1793 (1796.339/1793.356/1789.489)");
    }

    #[test]
    fn measures_a_plausible_clock_on_this_machine() {
        let host = Host::live();
        let cpu = allowed_cpus()[0];
        let m = measure(&host, cpu, &quick()).expect("an allowed CPU can be pinned");
        assert_eq!(m.samples_mhz.len(), 3);
        assert!(m.samples_mhz.windows(2).all(|w| w[0] >= w[1]), "{m:?}");
        assert!((200.0..8000.0).contains(&m.mhz), "{m:?}");
        assert!(m.mhz > 0.0 && m.effective_mhz > 0.0, "{m:?}");
        assert!(m.trials as usize >= 3 * quick().min_clean_trials, "{m:?}");
        assert!(m.pinned && m.method == Method::native());
    }

    #[test]
    fn portable_method_runs() {
        let host = Host::live();
        let opts = ClockOptions {
            method: Method::Portable,
            pin: false,
            realtime: false,
            ..quick()
        };
        let m = measure(&host, allowed_cpus()[0], &opts).unwrap();
        assert!(m.mhz > 0.0 && !m.pinned, "{m:?}");
    }

    #[test]
    fn pinning_to_a_missing_cpu_is_an_error_naming_it() {
        let host = Host::live();
        let e = measure(&host, 4000, &quick()).unwrap_err();
        assert!(e.to_string().contains("cpu4000"), "{e}");
    }

    #[test]
    fn many_cpus_at_once() {
        let host = Host::live();
        let cpus: Vec<u32> = allowed_cpus().into_iter().take(4).collect();
        let r = measure_many(&host, &cpus, &quick());
        assert_eq!(r.len(), cpus.len());
        for (cpu, m) in cpus.iter().zip(&r) {
            let m = m.as_ref().unwrap();
            assert_eq!(m.cpu, *cpu);
            assert!(m.mhz > 0.0);
        }
    }

    #[test]
    fn zero_samples_is_rejected() {
        let opts = ClockOptions {
            samples: 0,
            ..quick()
        };
        assert!(matches!(
            measure(&Host::live(), allowed_cpus()[0], &opts),
            Err(ClockError::Options(_))
        ));
    }
}
