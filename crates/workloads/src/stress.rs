//! Stress phase (extensive mode): keep every core busy with SIMD-heavy work for minutes and
//! report a score per interval, so throttling shows as a falling series (sbc-bench's
//! cpuminer / stockfish role).
//!
//! Built-in: one worker per CPU runs fused multiply-adds over small L1-resident vectors
//! (AVX2+FMA on x86-64 when present, NEON on aarch64, the baseline SIMD otherwise); the score
//! is GFLOP/s summed over workers. It deliberately measures nothing but sustained vector
//! throughput: its use is the *shape* of the series, not the number.
//!
//! External: `stockfish bench` when installed, run back to back; each run's `Nodes/second`
//! is one interval.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::pin::{run_pinned, PinError};
use crate::tool::{find_tool, run_tool, RunSpec, ToolError, ToolOutput};

/// Settings of the built-in stress load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressOptions {
    /// One pinned worker per CPU listed.
    pub cpus: Vec<u32>,
    pub seconds: f64,
    /// Length of one scored interval.
    pub interval_seconds: f64,
}

impl StressOptions {
    /// sbc-bench's extensive mode: 5 minutes, a score every 10 s.
    pub fn standard(cpus: Vec<u32>) -> Self {
        StressOptions {
            cpus,
            seconds: 300.0,
            interval_seconds: 10.0,
        }
    }
}

/// One interval of the series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressInterval {
    /// Seconds since the start of the load.
    pub start_s: f64,
    pub end_s: f64,
    /// GFLOP/s summed over workers.
    pub score: f64,
    /// GFLOP/s of each worker, in `cpus` order.
    pub per_cpu: Vec<f64>,
}

/// The built-in load's series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressResult {
    pub cpus: Vec<u32>,
    /// `avx2+fma`, `neon`, `baseline simd`.
    pub implementation: String,
    pub unit: String,
    pub intervals: Vec<StressInterval>,
    pub stopped: bool,
    pub seconds: f64,
}

impl StressResult {
    /// Change from the first to the last full interval, % (negative: the machine slowed).
    pub fn change_pct(&self) -> Option<f64> {
        let first = self.intervals.first()?.score;
        let last = self.intervals.last()?.score;
        (first > 0.0 && self.intervals.len() > 1).then(|| (last - first) / first * 100.0)
    }

    /// sbc-bench-like series: `12.31,12.30,11.02 GFLOP/s`.
    pub fn series_text(&self) -> String {
        let v: Vec<String> = self
            .intervals
            .iter()
            .map(|i| format!("{:.2}", i.score))
            .collect();
        format!("{} {}", v.join(","), self.unit)
    }
}

/// Multiply-adds per element and pass: many independent vectors keep every FMA unit busy.
const LANES: usize = 256;
const PASSES_PER_PUBLISH: u64 = 64;
/// FLOPs of one pass (one multiply + one add per element, `REPEAT` times).
const REPEAT: usize = 64;
const FLOPS_PER_PASS: f64 = (LANES * REPEAT * 2) as f64;

mod kernel {
    use super::{LANES, REPEAT};

    #[inline(always)]
    pub fn pass_mul_add(a: &mut [f32; LANES], b: &[f32; LANES], c: &[f32; LANES]) {
        for _ in 0..REPEAT {
            for i in 0..LANES {
                a[i] = a[i] * b[i] + c[i];
            }
        }
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[inline(always)]
    pub fn pass_fma(a: &mut [f32; LANES], b: &[f32; LANES], c: &[f32; LANES]) {
        for _ in 0..REPEAT {
            for i in 0..LANES {
                a[i] = a[i].mul_add(b[i], c[i]);
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn pass_avx2_fma(a: &mut [f32; LANES], b: &[f32; LANES], c: &[f32; LANES]) {
        pass_fma(a, b, c)
    }

    /// Runs one pass with the best code for this CPU.
    pub fn pass(a: &mut [f32; LANES], b: &[f32; LANES], c: &[f32; LANES]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: AVX2 and FMA presence checked at run time.
            return unsafe { pass_avx2_fma(a, b, c) };
        }
        #[cfg(target_arch = "aarch64")]
        {
            // NEON with fused multiply-add is baseline on aarch64.
            return pass_fma(a, b, c);
        }
        #[allow(unreachable_code)]
        pass_mul_add(a, b, c)
    }

    pub fn implementation() -> &'static str {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return "avx2+fma";
        }
        if cfg!(target_arch = "aarch64") {
            "neon fma"
        } else {
            "baseline simd"
        }
    }
}

fn worker(counter: &AtomicU64, stop: &AtomicBool) {
    // a ← a·b + c converges to c/(1−b) = 1: no overflow, no denormals, forever.
    let mut a = [0.5f32; LANES];
    let b = [0.999f32; LANES];
    let c = [0.001f32; LANES];
    let mut done = 0u64;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..PASSES_PER_PUBLISH {
            kernel::pass(&mut a, &b, &c);
        }
        done += PASSES_PER_PUBLISH;
        counter.store(done, Ordering::Relaxed);
        std::hint::black_box(&a);
    }
}

/// Run the built-in load. `on_interval` sees each interval as it completes (progress bars);
/// `stop` ends the run early (the intervals so far are returned).
pub fn run_builtin(
    opts: &StressOptions,
    stop: Option<&AtomicBool>,
    mut on_interval: impl FnMut(&StressInterval),
) -> Result<StressResult, PinError> {
    let cpus: Vec<Option<u32>> = if opts.cpus.is_empty() {
        vec![None]
    } else {
        opts.cpus.iter().map(|&c| Some(c)).collect()
    };
    let counters: Vec<AtomicU64> = cpus.iter().map(|_| AtomicU64::new(0)).collect();
    let quit = AtomicBool::new(false);
    let started = Instant::now();
    let mut intervals = Vec::new();
    let pin_result = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .zip(&counters)
            .map(|(&cpu, counter)| {
                let quit = &quit;
                s.spawn(move || run_pinned(cpu, || worker(counter, quit)))
            })
            .collect();
        let interval = opts.interval_seconds.max(0.05);
        let mut last: Vec<u64> = vec![0; counters.len()];
        let mut t_last = 0.0f64;
        let externally_stopped = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
        while t_last + 1e-9 < opts.seconds && !externally_stopped() {
            let next = (t_last + interval).min(opts.seconds);
            // Sleep in short steps so a stop request is honoured quickly.
            while started.elapsed().as_secs_f64() < next && !externally_stopped() {
                let left = next - started.elapsed().as_secs_f64();
                std::thread::sleep(Duration::from_secs_f64(left.clamp(0.0, 0.1)));
            }
            let now = started.elapsed().as_secs_f64();
            let dt = now - t_last;
            if dt <= 0.0 {
                break;
            }
            let per_cpu: Vec<f64> = counters
                .iter()
                .zip(last.iter_mut())
                .map(|(c, l)| {
                    let v = c.load(Ordering::Relaxed);
                    let d = v - *l;
                    *l = v;
                    d as f64 * FLOPS_PER_PASS / dt / 1e9
                })
                .collect();
            let iv = StressInterval {
                start_s: t_last,
                end_s: now,
                score: per_cpu.iter().sum(),
                per_cpu,
            };
            on_interval(&iv);
            intervals.push(iv);
            t_last = now;
        }
        quit.store(true, Ordering::Relaxed);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(PinError::Panicked)))
            .collect::<Result<Vec<()>, PinError>>()
    });
    pin_result?;
    Ok(StressResult {
        cpus: opts.cpus.clone(),
        implementation: kernel::implementation().to_string(),
        unit: "GFLOP/s".into(),
        intervals,
        stopped: stop.is_some_and(|s| s.load(Ordering::Relaxed)),
        seconds: started.elapsed().as_secs_f64(),
    })
}

// ---------------------------------------------------------------------------------------
// stockfish

/// Path of `stockfish`, if installed (Debian: /usr/games/stockfish).
pub fn find_stockfish() -> Option<PathBuf> {
    find_tool(&["stockfish"])
}

/// The three summary lines of `stockfish bench` (printed on stderr).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StockfishBench {
    pub total_time_ms: Option<u64>,
    pub nodes: Option<u64>,
    pub nodes_per_second: u64,
}

/// Parse `Total time (ms) : 7606`, `Nodes searched  : 6393221`, `Nodes/second    : 840549`.
pub fn parse_stockfish_bench(text: &str) -> Option<StockfishBench> {
    let field = |key: &str| {
        text.lines().rev().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key)
                .then(|| v.trim().parse::<u64>().ok())
                .flatten()
        })
    };
    Some(StockfishBench {
        total_time_ms: field("Total time (ms)"),
        nodes: field("Nodes searched"),
        nodes_per_second: field("Nodes/second")?,
    })
}

/// `Stockfish 15.1 by the Stockfish developers (see AUTHORS file)` → the line, if present.
pub fn stockfish_version_line(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.starts_with("Stockfish "))
        .map(|l| l.trim().to_string())
}

/// Settings of the stockfish stress run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StockfishOptions {
    /// Restrict to these CPUs; `threads` defaults to their count.
    pub cpus: Option<Vec<u32>>,
    pub threads: u32,
    /// Transposition table, MB.
    pub hash_mb: u32,
    /// Search depth per position (bench's `limit`); sets the length of one run.
    pub depth: u32,
    /// Keep starting runs until this much time has passed.
    pub seconds: f64,
}

impl StockfishOptions {
    /// 5 minutes of back-to-back `bench 128 THREADS 20 default depth` runs.
    pub fn standard(threads: u32) -> Self {
        StockfishOptions {
            cpus: None,
            threads,
            hash_mb: 128,
            depth: 20,
            seconds: 300.0,
        }
    }
}

/// One `stockfish bench` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StockfishRun {
    pub output: ToolOutput,
    pub bench: Option<StockfishBench>,
}

/// The series of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StockfishResult {
    pub program: String,
    pub version_line: Option<String>,
    pub runs: Vec<StockfishRun>,
}

impl StockfishResult {
    /// Nodes/second of each completed run, in order.
    pub fn series(&self) -> Vec<u64> {
        self.runs
            .iter()
            .filter_map(|r| r.bench.map(|b| b.nodes_per_second))
            .collect()
    }
}

/// Why the stockfish adapter failed.
#[derive(Debug, thiserror::Error)]
pub enum StockfishError {
    #[error("stockfish is not installed (looked in PATH and /usr/games)")]
    NotInstalled,
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// Run `stockfish bench HASH THREADS DEPTH default depth` back to back for `opts.seconds`.
pub fn run_stockfish(
    opts: &StockfishOptions,
    stop: Option<&AtomicBool>,
) -> Result<StockfishResult, StockfishError> {
    let program = find_stockfish().ok_or(StockfishError::NotInstalled)?;
    run_stockfish_with(&program, opts, stop)
}

/// [`run_stockfish`] with an explicit binary.
pub fn run_stockfish_with(
    program: &Path,
    opts: &StockfishOptions,
    stop: Option<&AtomicBool>,
) -> Result<StockfishResult, StockfishError> {
    let started = Instant::now();
    let threads = opts
        .cpus
        .as_ref()
        .map(|c| c.len() as u32)
        .unwrap_or(opts.threads)
        .max(1);
    let args: Vec<String> = vec![
        "bench".into(),
        opts.hash_mb.to_string(),
        threads.to_string(),
        opts.depth.to_string(),
        "default".into(),
        "depth".into(),
    ];
    let mut runs = Vec::new();
    let mut version_line = None;
    loop {
        let left = opts.seconds - started.elapsed().as_secs_f64();
        if (left <= 0.0 && !runs.is_empty()) || stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            break;
        }
        let output = run_tool(
            program,
            &args,
            RunSpec {
                cpus: opts.cpus.as_deref(),
                // A run may overrun the budget, but not without bound.
                timeout: Some(Duration::from_secs_f64(opts.seconds.max(60.0) * 2.0)),
                stop,
                on_line: None,
            },
        )?;
        let bench =
            parse_stockfish_bench(&output.stderr).or_else(|| parse_stockfish_bench(&output.stdout));
        if version_line.is_none() {
            version_line = stockfish_version_line(&output.stdout);
        }
        let failed = bench.is_none();
        runs.push(StockfishRun { output, bench });
        if failed {
            break;
        }
    }
    Ok(StockfishResult {
        program: program.display().to_string(),
        version_line,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stockfish_summary_parses_and_rejects_garbage() {
        let t = "===========================\nTotal time (ms) : 7606\nNodes searched  : 6393221\nNodes/second    : 840549\n";
        let b = parse_stockfish_bench(t).unwrap();
        assert_eq!(b.nodes_per_second, 840549);
        assert_eq!(b.nodes, Some(6393221));
        assert_eq!(b.total_time_ms, Some(7606));
        assert_eq!(parse_stockfish_bench("Nodes/second    : lots\n"), None);
        assert_eq!(parse_stockfish_bench(""), None);
        assert_eq!(
            stockfish_version_line(
                "Stockfish 15.1 by the Stockfish developers (see AUTHORS file)\ninfo x"
            )
            .as_deref(),
            Some("Stockfish 15.1 by the Stockfish developers (see AUTHORS file)")
        );
    }

    #[test]
    fn change_is_relative_to_the_first_interval() {
        let iv = |s| StressInterval {
            start_s: 0.0,
            end_s: 1.0,
            score: s,
            per_cpu: vec![s],
        };
        let r = StressResult {
            cpus: vec![0],
            implementation: "x".into(),
            unit: "GFLOP/s".into(),
            intervals: vec![iv(10.0), iv(9.0), iv(8.0)],
            stopped: false,
            seconds: 3.0,
        };
        assert_eq!(r.change_pct(), Some(-20.0));
        assert_eq!(r.series_text(), "10.00,9.00,8.00 GFLOP/s");
    }

    #[test]
    fn kernel_stays_finite() {
        let mut a = [0.5f32; LANES];
        let b = [0.999f32; LANES];
        let c = [0.001f32; LANES];
        for _ in 0..1000 {
            kernel::pass(&mut a, &b, &c);
        }
        assert!(
            a.iter().all(|v| v.is_finite() && (0.4..=1.0).contains(v)),
            "{}",
            a[0]
        );
    }
}
