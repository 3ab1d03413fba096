//! Memory bandwidth and latency, pinned to one CPU (tinymembench / ramlat class).
//!
//! **Bandwidth**: copy, fill and a read-only pass (a vectorised sum) over buffers well beyond
//! the last-level cache. Copy and fill take the fastest of libc `memcpy`/`memset` (what
//! `ptr::copy_nonoverlapping` and `write_bytes` lower to) over the whole buffer, the same in
//! 256 KiB blocks, and non-temporal stores (see [`BLOCK_BYTES`]); the result names the winner. Like tinymembench: 1 MB = 10^6 bytes, a copy
//! counts the bytes copied once, each test takes samples of at least `sample_seconds` until
//! three agree within 0.1 % (or `max_samples`), and reports the best sample with the sample
//! standard deviation in brackets when it reaches 0.1 %.
//!
//! **Latency**: dependent pointer chasing through a random cyclic permutation (Sattolo) of the
//! cache lines of a buffer, one pointer per line, so every load waits for the previous one
//! and no prefetcher can guess the next; buffers from 4 KiB up, once with transparent huge
//! pages refused (`MADV_NOHUGEPAGE`) and once requested (`MADV_HUGEPAGE`), like tinymembench.
//! The result is the full time per access in ns (L1 latency included), so cache sizes show as
//! steps and the TLB's share as the gap between the two columns.

use rustix::mm::{madvise, mmap_anonymous, munmap, Advice, MapFlags, ProtFlags};
use serde::{Deserialize, Serialize};
use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;
use truebench_host::Host;

use crate::pin::{run_pinned, PinError};
use crate::rng::SplitMix64;
use spread::{spread_pct_of_best, spread_suffix};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;
/// Alignment of every buffer: one x86/ARM64 transparent huge page.
const HUGE_ALIGN: usize = 2 * 1024 * 1024;

/// Why the memory kernel could not run.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("cannot map {bytes} bytes of memory: {source}")]
    Alloc {
        bytes: usize,
        source: std::io::Error,
    },
    #[error(transparent)]
    Pin(#[from] PinError),
}

// The cache table is read by `Host::cpu_caches`; re-exported so results keep their paths.
pub use truebench_host::devices::{parse_cache_size, CacheLevel};

/// The largest data-holding cache (the last level), in bytes.
pub fn last_level_cache(caches: &[CacheLevel]) -> Option<u64> {
    caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .max_by_key(|c| (c.level, c.bytes))
        .map(|c| c.bytes)
}

/// The buffer size used for the bandwidth tests and the top of the latency curve, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BufferChoice {
    pub bytes: u64,
    pub llc_bytes: Option<u64>,
    pub mem_available_bytes: Option<u64>,
    pub reason: String,
}

/// Smallest bandwidth buffer: tinymembench uses 32 MiB; twice that clears every SBC's cache.
pub const MIN_BUFFER: u64 = 64 * MIB;
/// Largest: beyond this, page-faulting the buffers costs more time than it adds evidence.
pub const MAX_BUFFER: u64 = 256 * MIB;

/// Pick the buffer: four times the last-level cache rounded up to a power of two, between
/// [`MIN_BUFFER`] and [`MAX_BUFFER`], and at most a quarter of `MemAvailable` (memcpy needs
/// two buffers, and the system must not start swapping because of us).
pub fn choose_buffer(llc_bytes: Option<u64>, mem_available_bytes: Option<u64>) -> BufferChoice {
    let mut bytes = match llc_bytes {
        Some(llc) => (4 * llc).next_power_of_two().clamp(MIN_BUFFER, MAX_BUFFER),
        None => MIN_BUFFER,
    };
    let mut reason = match llc_bytes {
        Some(llc) => format!(
            "4 x last-level cache ({} KiB) rounded to a power of two, within {}..{} MiB",
            llc / KIB,
            MIN_BUFFER / MIB,
            MAX_BUFFER / MIB
        ),
        None => format!("no cache sizes reported: {} MiB", MIN_BUFFER / MIB),
    };
    if let Some(avail) = mem_available_bytes {
        let cap = prev_power_of_two(avail / 4).max(8 * MIB);
        if bytes > cap {
            bytes = cap;
            reason.push_str(&format!(
                "; capped at a quarter of MemAvailable ({} MiB)",
                avail / MIB
            ));
        }
    }
    BufferChoice {
        bytes,
        llc_bytes,
        mem_available_bytes,
        reason,
    }
}

fn prev_power_of_two(n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        1 << (63 - n.leading_zeros())
    }
}

/// Settings of one memory measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryOptions {
    /// CPU to pin to; `None` leaves the thread where the scheduler puts it.
    pub cpu: Option<u32>,
    /// Bandwidth buffer size; `None` chooses from the caches and MemAvailable.
    pub buffer_bytes: Option<u64>,
    /// Minimum duration of one bandwidth sample (tinymembench: 0.5 s).
    pub sample_seconds: f64,
    /// At least this many samples per bandwidth test (tinymembench: 3).
    pub min_samples: u32,
    /// At most this many (tinymembench: 10); sampling stops earlier once the spread is below
    /// 0.1 % of the best.
    pub max_samples: u32,
    /// Also measure tinymembench's `standard memcpy`/`standard memset` (32 MiB, libc, its
    /// sampling with `sample_seconds` and `max_samples`): the figures sbc-bench's rows hold.
    #[serde(default = "yes")]
    pub standard: bool,
    /// Run the latency curve.
    pub latency: bool,
    /// Largest latency buffer; `None`: at least 128 MiB and at least the bandwidth buffer.
    pub latency_max_bytes: Option<u64>,
    /// Time per latency timing run (each size is timed `latency_runs` times, best kept).
    pub latency_run_seconds: f64,
    pub latency_runs: u32,
    /// Also measure latency with `MADV_HUGEPAGE` (when transparent huge pages are not `never`).
    pub latency_hugepages: bool,
    /// Moved through the bandwidth tests and latency sizes (`within` of the caller's step).
    #[serde(skip)]
    pub progress: crate::progress::Progress,
}

fn yes() -> bool {
    true
}

impl MemoryOptions {
    /// The standard run: tinymembench's sampling rule, latency to at least 128 MiB, both THP
    /// modes. About 20–40 s.
    pub fn standard() -> Self {
        MemoryOptions {
            cpu: None,
            buffer_bytes: None,
            sample_seconds: 0.5,
            min_samples: 3,
            max_samples: 10,
            standard: true,
            latency: true,
            latency_max_bytes: None,
            latency_run_seconds: 0.05,
            latency_runs: 3,
            latency_hugepages: true,
            progress: Default::default(),
        }
    }

    /// A few seconds: short samples, 64 MiB buffer, latency to 64 MiB without the THP run.
    /// Not comparable with standard results.
    pub fn quick() -> Self {
        MemoryOptions {
            cpu: None,
            buffer_bytes: Some(64 * MIB),
            sample_seconds: 0.1,
            min_samples: 3,
            max_samples: 3,
            standard: true,
            latency: true,
            latency_max_bytes: Some(64 * MIB),
            latency_run_seconds: 0.01,
            latency_runs: 2,
            latency_hugepages: false,
            progress: Default::default(),
        }
    }

    pub fn on_cpu(mut self, cpu: u32) -> Self {
        self.cpu = Some(cpu);
        self
    }
}

/// The bandwidth tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BandwidthTest {
    Memcpy,
    Memset,
    /// Read-only pass (vectorised sum).
    Read,
}

impl BandwidthTest {
    pub const ALL: [BandwidthTest; 3] = [
        BandwidthTest::Memcpy,
        BandwidthTest::Memset,
        BandwidthTest::Read,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BandwidthTest::Memcpy => "memcpy",
            BandwidthTest::Memset => "memset",
            BandwidthTest::Read => "read",
        }
    }
}

/// One bandwidth test's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bandwidth {
    pub test: BandwidthTest,
    /// Best sample, MB/s (10^6 bytes; copies count bytes copied once).
    pub mb_s: f64,
    /// Sample standard deviation as % of the best (tinymembench's bracket).
    pub spread_pct: f64,
    /// Every sample, MB/s, in order.
    pub samples_mb_s: Vec<f64>,
    /// Bytes moved per call.
    pub bytes: u64,
    /// Which implementation was sampled (`libc memcpy`, `libc memcpy, 256 KiB blocks`,
    /// `sum avx2`): the fastest in the pilot.
    pub implementation: String,
    /// The pilot of every candidate implementation (empty when there was only one).
    pub pilots: Vec<Pilot>,
}

/// A candidate implementation's short pilot run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pilot {
    pub implementation: String,
    pub mb_s: f64,
}

impl Bandwidth {
    /// sbc-bench's summary line: `memcpy: 10234.5 MB/s (0.8%)`.
    pub fn summary_line(&self) -> String {
        format!(
            "{}: {:.1} MB/s{}",
            self.test.name(),
            self.mb_s,
            spread_suffix(self.spread_pct)
        )
    }

    /// A standard figure as tinymembench names it: `standard memcpy: 9876.5 MB/s (0.2%)`.
    pub fn standard_line(&self) -> String {
        format!(
            "{}: {:.1} MB/s{}  [tinymembench's measure: libc, {} MiB]",
            self.implementation,
            self.mb_s,
            spread_suffix(self.spread_pct),
            self.bytes >> 20
        )
    }
}

/// One point of the latency curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyPoint {
    pub bytes: u64,
    /// ns per dependent access, huge pages refused.
    pub ns: f64,
    /// ns per access with `MADV_HUGEPAGE`; `None` when not measured.
    pub ns_hugepages: Option<f64>,
}

/// The latency curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// One pointer per this many bytes (the cache line).
    pub line_bytes: u64,
    /// `sys/kernel/mm/transparent_hugepage/enabled` (`always [madvise] never`), if readable.
    pub thp_enabled: Option<String>,
    pub points: Vec<LatencyPoint>,
}

impl Latency {
    /// A table in tinymembench's layout (`block size : ns / ns hugepages`).
    pub fn table(&self) -> String {
        let mut s = String::from("block size : random read / random read, MADV_HUGEPAGE\n");
        for p in &self.points {
            let huge = p
                .ns_hugepages
                .map(|v| format!("{v:6.1} ns"))
                .unwrap_or_else(|| "     - ".into());
            s.push_str(&format!(
                "{:>10} : {:6.1} ns          / {}\n",
                p.bytes, p.ns, huge
            ));
        }
        s
    }
}

/// Everything one memory measurement produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryResult {
    pub cpu: Option<u32>,
    pub caches: Vec<CacheLevel>,
    pub buffer: BufferChoice,
    /// Bandwidth buffers were mapped with `MADV_HUGEPAGE`.
    pub bandwidth_hugepages: bool,
    pub bandwidth: Vec<Bandwidth>,
    /// tinymembench's `standard memcpy` and `standard memset` (see [`standard`]); empty when
    /// not measured.
    #[serde(default)]
    pub standard: Vec<Bandwidth>,
    pub latency: Option<Latency>,
    pub options: MemoryOptions,
    pub seconds: f64,
}

impl MemoryResult {
    pub fn get(&self, test: BandwidthTest) -> Option<&Bandwidth> {
        self.bandwidth.iter().find(|b| b.test == test)
    }

    /// tinymembench's measure of `test`, when it was taken.
    pub fn standard(&self, test: BandwidthTest) -> Option<&Bandwidth> {
        self.standard.iter().find(|b| b.test == test)
    }

    /// sbc-bench's "Memory performance" lines plus the latency table.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for b in &self.bandwidth {
            s.push_str(&b.summary_line());
            s.push('\n');
        }
        for b in &self.standard {
            s.push_str(&b.standard_line());
            s.push('\n');
        }
        if let Some(l) = &self.latency {
            s.push('\n');
            s.push_str(&l.table());
        }
        s
    }
}

/// Measure bandwidth and (optionally) latency on `opts.cpu`.
pub fn measure(host: &Host, opts: &MemoryOptions) -> Result<MemoryResult, MemoryError> {
    let started = Instant::now();
    let caches = opts
        .cpu
        .map(|c| host.cpu_caches(c))
        .unwrap_or_else(|| host.cpu_caches(0));
    let buffer = buffer_for(host, &caches, opts);
    let thp = host
        .read_trimmed("sys/kernel/mm/transparent_hugepage/enabled")
        .filter(|s| !s.is_empty());
    let line = caches
        .iter()
        .filter_map(|c| c.line_bytes)
        .find(|&l| l.is_power_of_two() && (16..=1024).contains(&l))
        .unwrap_or(64);
    let opts2 = opts.clone();
    let (bandwidth, standard, latency) =
        run_pinned(opts.cpu, move || -> Result<_, MemoryError> {
            let max = opts2
                .latency_max_bytes
                .unwrap_or_else(|| latency_max(buffer.bytes, buffer.mem_available_bytes));
            // Bandwidth tests and latency sizes, weighted alike: what the progress counts.
            let steps = BandwidthTest::ALL.len()
                + if opts2.standard { 2 } else { 0 }
                + if opts2.latency {
                    latency_sizes(max).len()
                } else {
                    0
                };
            let bw = bandwidth_pinned(buffer.bytes as usize, &opts2, steps)?;
            let std_bw = if opts2.standard {
                opts2
                    .progress
                    .within(BandwidthTest::ALL.len() as f64 / steps.max(1) as f64);
                standard::measure_pinned(&opts2)?
            } else {
                Vec::new()
            };
            let lat = if opts2.latency {
                let huge = opts2.latency_hugepages && !thp.as_deref().is_some_and(thp_is_never);
                Some(latency_pinned(max, line, huge, &opts2, thp.clone(), steps)?)
            } else {
                None
            };
            Ok((bw, std_bw, lat))
        })??;
    Ok(MemoryResult {
        cpu: opts.cpu,
        caches,
        buffer,
        bandwidth_hugepages: true,
        bandwidth,
        standard,
        latency,
        options: opts.clone(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn buffer_for(host: &Host, caches: &[CacheLevel], opts: &MemoryOptions) -> BufferChoice {
    let avail = host
        .meminfo()
        .ok()
        .and_then(|m| m.mem_available_kb)
        .map(|kb| kb.saturating_mul(1024));
    let mut choice = choose_buffer(last_level_cache(caches), avail);
    if let Some(b) = opts.buffer_bytes {
        choice.bytes = b.max(4 * KIB);
        choice.reason = "set by the caller".into();
    }
    choice
}

fn thp_is_never(s: &str) -> bool {
    s.contains("[never]")
}

/// Anonymous memory aligned to 2 MiB, unmapped on drop.
struct Mapping {
    base: *mut c_void,
    map_len: usize,
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    /// Map `len` bytes with huge pages requested (`Some(true)`), refused (`Some(false)`) or
    /// left to the system default (`None`), and touch every page so no fault is timed later.
    fn new(len: usize, hugepages: Option<bool>) -> Result<Mapping, MemoryError> {
        let map_len = len + HUGE_ALIGN;
        // SAFETY: a new anonymous private mapping at an address the kernel picks.
        let base = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                map_len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE,
            )
        }
        .map_err(|e| MemoryError::Alloc {
            bytes: len,
            source: e.into(),
        })?;
        let offset = (HUGE_ALIGN - (base as usize % HUGE_ALIGN)) % HUGE_ALIGN;
        // SAFETY: offset < HUGE_ALIGN, so ptr..ptr+len lies inside the mapping.
        let ptr = unsafe { (base as *mut u8).add(offset) };
        if let Some(on) = hugepages {
            let advice = if on {
                Advice::LinuxHugepage
            } else {
                Advice::LinuxNoHugepage
            };
            // SAFETY: advisory only, on our own mapping; failure (no THP support) is harmless.
            let _ = unsafe { madvise(ptr as *mut c_void, len, advice) };
        }
        // SAFETY: the whole range is mapped read-write.
        unsafe { std::ptr::write_bytes(ptr, 1, len) };
        Ok(Mapping {
            base,
            map_len,
            ptr,
            len,
        })
    }

    fn as_u64(&self) -> &[u64] {
        // SAFETY: 2 MiB-aligned, len bytes mapped and initialised; len/8 whole words.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u64, self.len / 8) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: exactly the region mmap returned, no longer referenced.
        let _ = unsafe { munmap(self.base, self.map_len) };
    }
}

/// Copies and fills are tried three ways, and a short pilot picks the fastest for the full
/// sampling: one libc call over the whole buffer; libc calls on blocks of this size (mbw's
/// `MCBLOCK`: large calls can take a libc path — non-temporal stores, `rep movsb` — that is
/// slower on some machines than cache-sized calls); and our own non-temporal stores (x86-64
/// SSE2 `movntdq`, aarch64 `stnp`), which libc memset never uses.
pub const BLOCK_BYTES: usize = 256 * 1024;

/// Turns each candidate gets in the pilot.
const PILOT_TURNS: usize = 3;

/// Bandwidth tests on the current (already pinned) thread.
fn bandwidth_pinned(
    bytes: usize,
    opts: &MemoryOptions,
    steps: usize,
) -> Result<Vec<Bandwidth>, MemoryError> {
    let bytes = (bytes & !(BLOCK_BYTES - 1)).max(BLOCK_BYTES);
    let src = Mapping::new(bytes, Some(true))?;
    let dst = Mapping::new(bytes, Some(true))?;
    let (s, d) = (src.ptr as usize, dst.ptr as usize);
    let mut out = Vec::new();
    for (k, test) in BandwidthTest::ALL.into_iter().enumerate() {
        opts.progress.within(k as f64 / steps.max(1) as f64);
        let mut fill = 0u8;
        let mut copy_whole = || {
            // SAFETY: two distinct mappings of `bytes` bytes each.
            unsafe { std::ptr::copy_nonoverlapping(s as *const u8, d as *mut u8, bytes) };
            black_box(d);
        };
        let mut copy_blocks = || {
            for off in (0..bytes).step_by(BLOCK_BYTES) {
                // SAFETY: off + BLOCK_BYTES <= bytes (bytes is a multiple of BLOCK_BYTES).
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        (s + off) as *const u8,
                        (d + off) as *mut u8,
                        BLOCK_BYTES,
                    )
                };
            }
            black_box(d);
        };
        let mut set_whole = || {
            fill = fill.wrapping_add(1);
            // SAFETY: `bytes` bytes mapped at d.
            unsafe { std::ptr::write_bytes(d as *mut u8, fill, bytes) };
            black_box(d);
        };
        let mut fill2 = 0u8;
        let mut set_blocks = || {
            fill2 = fill2.wrapping_add(1);
            for off in (0..bytes).step_by(BLOCK_BYTES) {
                // SAFETY: as in copy_blocks.
                unsafe { std::ptr::write_bytes((d + off) as *mut u8, fill2, BLOCK_BYTES) };
            }
            black_box(d);
        };
        let mut copy_nt = || {
            // SAFETY: distinct 2 MiB-aligned mappings, bytes a multiple of 64.
            unsafe { nt::copy(s as *const u8, d as *mut u8, bytes) };
            black_box(d);
        };
        let mut fill3 = 0u8;
        let mut set_nt = || {
            fill3 = fill3.wrapping_add(1);
            // SAFETY: as in copy_nt.
            unsafe { nt::fill(d as *mut u8, bytes, fill3) };
            black_box(d);
        };
        let words = src.as_u64();
        let mut read_pass = || {
            black_box(read::sum(black_box(words)));
        };
        let mut candidates: Vec<(String, &mut dyn FnMut())> = match test {
            BandwidthTest::Memcpy => vec![
                ("libc memcpy".into(), &mut copy_whole),
                (
                    format!("libc memcpy, {} KiB blocks", BLOCK_BYTES / 1024),
                    &mut copy_blocks,
                ),
                ("non-temporal copy".into(), &mut copy_nt),
            ],
            BandwidthTest::Memset => vec![
                ("libc memset".into(), &mut set_whole),
                (
                    format!("libc memset, {} KiB blocks", BLOCK_BYTES / 1024),
                    &mut set_blocks,
                ),
                ("non-temporal fill".into(), &mut set_nt),
            ],
            BandwidthTest::Read => {
                vec![(format!("sum {}", read::implementation()), &mut read_pass)]
            }
        };
        if !nt::AVAILABLE {
            candidates.retain(|(name, _)| !name.starts_with("non-temporal"));
        }
        // A short pilot picks the candidate to sample fully. Candidates take turns (A B C A B
        // C A B C) and each keeps its best turn, so a burst of foreign load cannot single one
        // out.
        let mut pilots: Vec<Pilot> = Vec::new();
        if candidates.len() > 1 {
            let pilot = MemoryOptions {
                sample_seconds: (opts.sample_seconds / 8.0).max(0.02),
                min_samples: 1,
                max_samples: 1,
                ..opts.clone()
            };
            pilots = candidates
                .iter()
                .map(|(name, _)| Pilot {
                    implementation: name.clone(),
                    mb_s: 0.0,
                })
                .collect();
            for _ in 0..PILOT_TURNS {
                for ((_, f), p) in candidates.iter_mut().zip(pilots.iter_mut()) {
                    let v = sample(&pilot, bytes, &mut **f);
                    p.mb_s = p.mb_s.max(spread::max(&v));
                }
            }
        }
        let best = pilots
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.mb_s.total_cmp(&b.1.mb_s))
            .map(|(i, _)| i)
            .unwrap_or(0);
        let (implementation, f) = &mut candidates[best];
        let samples = sample(opts, bytes, &mut **f);
        out.push(Bandwidth {
            test,
            mb_s: spread::max(&samples),
            spread_pct: spread_pct_of_best(&samples),
            samples_mb_s: samples,
            bytes: bytes as u64,
            implementation: implementation.clone(),
            pilots,
        });
    }
    Ok(out)
}

/// tinymembench's sampling: one untimed warm-up call, then samples of at least
/// `sample_seconds` each until `min_samples` agree within 0.1 % of the best or `max_samples`.
fn sample(opts: &MemoryOptions, bytes: usize, mut f: impl FnMut()) -> Vec<f64> {
    let mut samples = Vec::new();
    f();
    let max_samples = opts.max_samples.max(1);
    while samples.len() < max_samples as usize {
        let mut calls = 0u64;
        let t0 = Instant::now();
        let secs = loop {
            f();
            calls += 1;
            let e = t0.elapsed().as_secs_f64();
            if e >= opts.sample_seconds {
                break e;
            }
        };
        samples.push(bytes as f64 * calls as f64 / secs / 1e6);
        if samples.len() >= opts.min_samples.max(2) as usize && spread::agree(&samples) {
            break;
        }
    }
    samples
}

mod nt;
mod spread;
pub mod standard;

mod read {
    //! The read pass: a sum over 64-bit words with 16 independent accumulators, so the
    //! compiler vectorises it and no add waits for the previous one.

    #[inline(always)]
    fn sum_generic(words: &[u64]) -> u64 {
        let mut acc = [0u64; 16];
        let chunks = words.chunks_exact(16);
        let rest = chunks.remainder();
        for c in chunks {
            for i in 0..16 {
                acc[i] = acc[i].wrapping_add(c[i]);
            }
        }
        let mut total = rest.iter().fold(0u64, |a, &b| a.wrapping_add(b));
        for a in acc {
            total = total.wrapping_add(a);
        }
        total
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn sum_avx2(words: &[u64]) -> u64 {
        sum_generic(words)
    }

    pub fn sum(words: &[u64]) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 presence checked at run time.
            return unsafe { sum_avx2(words) };
        }
        sum_generic(words)
    }

    pub fn implementation() -> &'static str {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return "avx2";
        }
        if cfg!(target_arch = "aarch64") {
            "neon"
        } else {
            "baseline simd"
        }
    }

    #[cfg(test)]
    #[test]
    fn sum_is_the_sum() {
        let v: Vec<u64> = (1..=1000).collect();
        assert_eq!(sum(&v), 500_500);
        assert_eq!(sum(&v[..17]), 153);
    }
}

/// Top of the latency curve: at least 128 MiB and the bandwidth buffer, but at most half of
/// `MemAvailable` (one buffer exists at a time) so a small board does not start swapping.
pub fn latency_max(buffer_bytes: u64, mem_available_bytes: Option<u64>) -> u64 {
    let want = (128 * MIB).max(buffer_bytes);
    match mem_available_bytes {
        Some(avail) => want.min(prev_power_of_two(avail / 2).max(8 * MIB)),
        None => want,
    }
}

/// Sizes of the latency curve: 4 KiB doubling up to `max` (itself included if not a power of two).
pub fn latency_sizes(max: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut s = 4 * KIB;
    while s <= max {
        v.push(s);
        s *= 2;
    }
    if v.last() != Some(&max) && max > 4 * KIB {
        v.push(max);
    }
    v
}

/// A random cyclic permutation of `0..n` (Sattolo's algorithm): following `next[i]` from any
/// line visits every line once before returning.
pub fn random_cycle(n: usize, seed: u64) -> Vec<u32> {
    let mut next: Vec<u32> = (0..n as u32).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..n).rev() {
        let j = rng.below(i as u64) as usize;
        next.swap(i, j);
    }
    next
}

fn latency_pinned(
    max: u64,
    line: u64,
    hugepages: bool,
    opts: &MemoryOptions,
    thp: Option<String>,
    steps: usize,
) -> Result<Latency, MemoryError> {
    let mut points = Vec::new();
    for (k, size) in latency_sizes(max).into_iter().enumerate() {
        let done = BandwidthTest::ALL.len() + if opts.standard { 2 } else { 0 } + k;
        opts.progress.within(done as f64 / steps.max(1) as f64);
        let n = (size / line) as usize;
        let cycle = random_cycle(n, size);
        let ns = chase_size(size as usize, line as usize, &cycle, Some(false), opts)?;
        let ns_hugepages = if hugepages {
            Some(chase_size(
                size as usize,
                line as usize,
                &cycle,
                Some(true),
                opts,
            )?)
        } else {
            None
        };
        points.push(LatencyPoint {
            bytes: size,
            ns,
            ns_hugepages,
        });
    }
    Ok(Latency {
        line_bytes: line,
        thp_enabled: thp,
        points,
    })
}

/// Lay the cycle out in a fresh buffer (one pointer at the start of each line) and time it.
fn chase_size(
    size: usize,
    line: usize,
    cycle: &[u32],
    hugepages: Option<bool>,
    opts: &MemoryOptions,
) -> Result<f64, MemoryError> {
    let map = Mapping::new(size, hugepages)?;
    let base = map.ptr as usize;
    for (i, &next) in cycle.iter().enumerate() {
        // SAFETY: i, next < size/line: inside the mapping, 8-byte aligned (line ≥ 16).
        unsafe { *((base + i * line) as *mut usize) = base + next as usize * line };
    }
    // Warm-up: bring what fits into the caches and TLB (capped so huge buffers stay cheap).
    let mut p = chase(base, cycle.len().min(1 << 20));
    // Calibrate the step count to the requested run time.
    let probe = 1 << 14;
    let t0 = Instant::now();
    p = chase(p, probe);
    let per = t0.elapsed().as_secs_f64() / probe as f64;
    let steps = ((opts.latency_run_seconds / per.max(1e-10)) as usize).clamp(probe, 1 << 28);
    let mut best = f64::INFINITY;
    for _ in 0..opts.latency_runs.max(1) {
        let t = Instant::now();
        p = chase(p, steps);
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / steps as f64);
    }
    black_box(p);
    Ok(best)
}

/// Follow the pointers `steps` times (rounded up to 16); returns where it stopped.
#[inline(never)]
fn chase(mut p: usize, steps: usize) -> usize {
    for _ in 0..steps.div_ceil(16) {
        for _ in 0..16 {
            // SAFETY: p always holds an address written by chase_size inside its mapping.
            p = unsafe { *(p as *const usize) };
        }
    }
    black_box(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_is_four_llc_within_bounds_and_memory() {
        // RK3588: 3 MiB L3 → 16 MiB → raised to the 64 MiB floor.
        assert_eq!(
            choose_buffer(Some(3 * MIB), Some(8000 * MIB)).bytes,
            64 * MIB
        );
        // 32 MiB L3 → 128 MiB.
        assert_eq!(
            choose_buffer(Some(32 * MIB), Some(8000 * MIB)).bytes,
            128 * MIB
        );
        // 480 MiB L3 (this VM) → capped at 1 GiB.
        assert_eq!(
            choose_buffer(Some(480 * MIB), Some(20000 * MIB)).bytes,
            MAX_BUFFER
        );
        // 512 MB board with 180 MiB available → a quarter, power of two: 32 MiB.
        let c = choose_buffer(Some(512 * KIB), Some(180 * MIB));
        assert_eq!(c.bytes, 32 * MIB);
        assert!(c.reason.contains("MemAvailable"), "{}", c.reason);
        assert_eq!(choose_buffer(None, None).bytes, MIN_BUFFER);
    }

    #[test]
    fn latency_top_is_128m_unless_memory_is_short() {
        assert_eq!(latency_max(64 * MIB, Some(8000 * MIB)), 128 * MIB);
        assert_eq!(latency_max(256 * MIB, Some(8000 * MIB)), 256 * MIB);
        assert_eq!(latency_max(64 * MIB, None), 128 * MIB);
        // 512 MB board, 180 MiB available: 64 MiB.
        assert_eq!(latency_max(32 * MIB, Some(180 * MIB)), 64 * MIB);
    }

    #[test]
    fn llc_is_the_highest_data_cache() {
        let c = |level, kind: &str, bytes| CacheLevel {
            level,
            kind: kind.into(),
            bytes,
            line_bytes: Some(64),
            shared_cpu_list: None,
        };
        let caches = vec![
            c(1, "Data", 48 * KIB),
            c(1, "Instruction", 64 * KIB),
            c(2, "Unified", 2 * MIB),
        ];
        assert_eq!(last_level_cache(&caches), Some(2 * MIB));
        assert_eq!(last_level_cache(&[]), None);
    }

    #[test]
    fn sattolo_gives_one_cycle_through_every_line() {
        for n in [1usize, 2, 3, 64, 1000] {
            let next = random_cycle(n, 42);
            let mut seen = vec![false; n];
            let mut i = 0usize;
            for _ in 0..n {
                assert!(!seen[i], "line {i} visited twice (n={n})");
                seen[i] = true;
                i = next[i] as usize;
            }
            assert_eq!(i, 0, "cycle does not close after n={n} steps");
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn sizes_double_from_4k() {
        assert_eq!(
            latency_sizes(32 * KIB),
            vec![4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB]
        );
        assert_eq!(latency_sizes(48 * KIB).last(), Some(&(48 * KIB)));
    }
}
