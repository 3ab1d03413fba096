//! Built-in LZMA benchmark, for machines without 7-zip: compress and decompress a generated,
//! compressible-but-not-trivial buffer with liblzma (compiled in statically) for a fixed time.
//!
//! Its figure is **MB/s of uncompressed data, not 7-zip MIPS**: the two are different units
//! from different code and must never be mixed in one table. The closest 7-zip quantity is
//! the `Speed` column of `7z b` (KiB/s of uncompressed data per dictionary line);
//! `bench/lzma_vs_7zip.sh` puts both side by side.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use liblzma::stream::{Action, LzmaOptions, Status, Stream};

use crate::pin::{run_pinned, PinError};
use crate::rng::SplitMix64;

/// Why the built-in benchmark failed.
#[derive(Debug, thiserror::Error)]
pub enum LzmaError {
    #[error("liblzma: {0}")]
    Lzma(#[from] liblzma::stream::Error),
    #[error("round trip failed: decompressed {got} bytes differ from the {want} input bytes")]
    RoundTrip { got: usize, want: usize },
    #[error("liblzma made no progress (truncated or corrupt stream)")]
    Stalled,
    #[error(transparent)]
    Pin(#[from] PinError),
}

/// Settings of the built-in LZMA benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LzmaBenchOptions {
    /// Pin one worker per CPU listed; `None` runs one unpinned worker.
    pub cpus: Option<Vec<u32>>,
    /// Size of the generated input, bytes.
    pub data_bytes: usize,
    /// log2 of the LZMA dictionary (7-zip's benchmark lines are 22 … 25).
    pub dict_log2: u32,
    /// liblzma preset (0 … 9); 5 is 7-zip's benchmark level.
    pub preset: u32,
    /// Minimum time compressing, and then decompressing, seconds.
    pub seconds: f64,
}

impl LzmaBenchOptions {
    /// 4 MiB of data and a 2^22 dictionary (like 7-zip's first benchmark line, whose buffer
    /// is the dictionary size), preset 5, at least 5 s each way.
    pub fn standard() -> Self {
        LzmaBenchOptions {
            cpus: None,
            data_bytes: 4 << 20,
            dict_log2: 22,
            preset: 5,
            seconds: 5.0,
        }
    }

    /// 1 MiB, dictionary 2^20, 0.5 s each way. Not comparable.
    pub fn quick() -> Self {
        LzmaBenchOptions {
            data_bytes: 1 << 20,
            dict_log2: 20,
            seconds: 0.5,
            ..Self::standard()
        }
    }
}

/// One worker's counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LzmaWorker {
    pub cpu: Option<u32>,
    pub compress_passes: u64,
    pub compress_seconds: f64,
    pub decompress_passes: u64,
    pub decompress_seconds: f64,
}

/// Result of the built-in LZMA benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LzmaBenchResult {
    pub options: LzmaBenchOptions,
    /// `liblzma 5.8.4` — the compiled-in library.
    pub implementation: String,
    /// Uncompressed MB (10^6 bytes) per second compressed, summed over workers.
    pub compress_mb_s: f64,
    /// Uncompressed MB per second produced by decompression, summed over workers.
    pub decompress_mb_s: f64,
    /// The same in KiB/s, the unit of 7-zip's `Speed` column.
    pub compress_kib_s: f64,
    pub decompress_kib_s: f64,
    /// Input size / compressed size.
    pub ratio: f64,
    pub compressed_bytes: usize,
    /// Decompressed output was compared with the input, byte for byte.
    pub round_trip_ok: bool,
    pub workers: Vec<LzmaWorker>,
    /// Stopped early through the stop flag.
    pub stopped: bool,
    pub seconds: f64,
}

impl LzmaBenchResult {
    /// One line for logs, labelled so nobody mistakes it for 7-zip MIPS.
    pub fn summary_line(&self) -> String {
        format!(
            "built-in LZMA ({}, not 7-zip MIPS): compress {:.2} MB/s, decompress {:.2} MB/s, ratio {:.2}",
            self.implementation, self.compress_mb_s, self.decompress_mb_s, self.ratio
        )
    }
}

/// Version of the linked liblzma.
pub fn liblzma_version() -> String {
    extern "C" {
        fn lzma_version_string() -> *const std::os::raw::c_char;
    }
    // SAFETY: liblzma returns a pointer to a static NUL-terminated string.
    let v = unsafe { std::ffi::CStr::from_ptr(lzma_version_string()) };
    format!("liblzma {}", v.to_string_lossy())
}

/// Deterministic test data that compresses like real files (ratio around 3), neither
/// all-zero nor random: text-like words drawn with a skewed distribution, numbers, runs of
/// binary noise, and copies of earlier stretches at random distances — the structures LZMA's
/// literal coder, match finder and repeat matches all have to work on.
pub fn generate_data(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    let syllables: Vec<Vec<u8>> = (0..512)
        .map(|_| {
            let n = 1 + rng.below(4) as usize;
            (0..n).map(|_| b'a' + rng.below(26) as u8).collect()
        })
        .collect();
    let mut out = Vec::with_capacity(len + 64);
    while out.len() < len {
        match rng.below(100) {
            // Words: skewed choice (the min of two draws favours low indices).
            0..=59 => {
                let i = rng.below(512).min(rng.below(512)) as usize;
                out.extend_from_slice(&syllables[i]);
                out.push(if rng.below(8) == 0 { b'\n' } else { b' ' });
            }
            // Numbers.
            60..=74 => {
                let n = rng.below(100_000);
                out.extend_from_slice(n.to_string().as_bytes());
                out.push(b',');
            }
            // Binary noise.
            75..=84 => {
                let n = 4 + rng.below(28) as usize;
                out.extend((0..n).map(|_| rng.next_u64() as u8));
            }
            // Copy of an earlier stretch (near or far).
            _ => {
                if out.len() > 1024 {
                    let max_dist = out.len().min(1 << 22) as u64;
                    let dist = 1 + rng.below(max_dist) as usize;
                    let n = (8 + rng.below(120) as usize).min(dist);
                    let start = out.len() - dist;
                    for k in 0..n {
                        let b = out[start + k];
                        out.push(b);
                    }
                }
            }
        }
    }
    out.truncate(len);
    out
}

fn compress(data: &[u8], opts: &LzmaOptions, out: &mut Vec<u8>) -> Result<(), LzmaError> {
    out.clear();
    let mut s = Stream::new_lzma_encoder(opts)?;
    loop {
        let consumed = s.total_in() as usize;
        if out.capacity() - out.len() < 4096 {
            out.reserve(out.capacity().max(1 << 16));
        }
        let before = (s.total_in(), s.total_out());
        match s.process_vec(&data[consumed..], out, Action::Finish)? {
            Status::StreamEnd => return Ok(()),
            // Truncated or corrupt input can leave the stream waiting for bytes forever.
            _ if (s.total_in(), s.total_out()) == before => return Err(LzmaError::Stalled),
            _ => continue,
        }
    }
}

fn decompress(data: &[u8], out: &mut Vec<u8>, expected: usize) -> Result<(), LzmaError> {
    out.clear();
    out.reserve(expected + 4096);
    let mut s = Stream::new_lzma_decoder(u64::MAX)?;
    loop {
        let consumed = s.total_in() as usize;
        if out.capacity() - out.len() < 4096 {
            out.reserve(out.capacity().max(1 << 16));
        }
        let before = (s.total_in(), s.total_out());
        match s.process_vec(&data[consumed..], out, Action::Finish)? {
            Status::StreamEnd => return Ok(()),
            // Truncated or corrupt input can leave the stream waiting for bytes forever.
            _ if (s.total_in(), s.total_out()) == before => return Err(LzmaError::Stalled),
            _ => continue,
        }
    }
}

/// Compress / decompress `data` for the configured time on this thread.
fn worker(
    data: &[u8],
    o: &LzmaBenchOptions,
    cpu: Option<u32>,
    stop: Option<&AtomicBool>,
) -> Result<(LzmaWorker, usize, bool), LzmaError> {
    let mut lz = LzmaOptions::new_preset(o.preset.min(9))?;
    lz.dict_size(1u32 << o.dict_log2.clamp(12, 30));
    let stopped = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
    // Every pass is timed, the first included (a pass can take seconds on a slow core, so an
    // untimed warm-up would double the run); at least one pass each way.
    let mut packed = Vec::with_capacity(data.len() / 2 + 4096);
    let t = Instant::now();
    let mut cpasses = 0u64;
    while (cpasses == 0 || t.elapsed().as_secs_f64() < o.seconds) && !stopped() {
        compress(data, &lz, &mut packed)?;
        cpasses += 1;
    }
    let csecs = t.elapsed().as_secs_f64();
    let mut unpacked = Vec::with_capacity(data.len() + 4096);
    let t = Instant::now();
    let mut dpasses = 0u64;
    while (dpasses == 0 || t.elapsed().as_secs_f64() < o.seconds) && !stopped() {
        decompress(&packed, &mut unpacked, data.len())?;
        dpasses += 1;
    }
    let dsecs = t.elapsed().as_secs_f64();
    let ok = unpacked == data;
    if !ok {
        return Err(LzmaError::RoundTrip {
            got: unpacked.len(),
            want: data.len(),
        });
    }
    Ok((
        LzmaWorker {
            cpu,
            compress_passes: cpasses,
            compress_seconds: csecs,
            decompress_passes: dpasses,
            decompress_seconds: dsecs,
        },
        packed.len(),
        ok,
    ))
}

/// Run the benchmark: one worker per CPU in `opts.cpus` (each pinned), all in parallel.
pub fn measure(
    opts: &LzmaBenchOptions,
    stop: Option<&AtomicBool>,
) -> Result<LzmaBenchResult, LzmaError> {
    let started = Instant::now();
    let data = generate_data(opts.data_bytes.max(4096), 0x7a1b_2c3d);
    let cpus: Vec<Option<u32>> = match &opts.cpus {
        Some(c) if !c.is_empty() => c.iter().map(|&c| Some(c)).collect(),
        _ => vec![None],
    };
    let results: Vec<Result<Result<_, LzmaError>, PinError>> = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                let data = &data;
                s.spawn(move || run_pinned(cpu, || worker(data, opts, cpu, stop)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(PinError::Panicked)))
            .collect()
    });
    let mut workers = Vec::new();
    let mut compressed = 0;
    let mut ok = true;
    for r in results {
        let (w, c, k) = r??;
        workers.push(w);
        compressed = c;
        ok &= k;
    }
    let n = data.len() as f64;
    let csum: f64 = workers
        .iter()
        .map(|w| n * w.compress_passes as f64 / w.compress_seconds)
        .sum();
    let dsum: f64 = workers
        .iter()
        .map(|w| n * w.decompress_passes as f64 / w.decompress_seconds)
        .sum();
    Ok(LzmaBenchResult {
        options: opts.clone(),
        implementation: liblzma_version(),
        compress_mb_s: csum / 1e6,
        decompress_mb_s: dsum / 1e6,
        compress_kib_s: csum / 1024.0,
        decompress_kib_s: dsum / 1024.0,
        ratio: n / compressed.max(1) as f64,
        compressed_bytes: compressed,
        round_trip_ok: ok,
        workers,
        stopped: stop.is_some_and(|s| s.load(Ordering::Relaxed)),
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_is_deterministic_and_moderately_compressible() {
        let a = generate_data(1 << 20, 1);
        assert_eq!(a, generate_data(1 << 20, 1));
        assert_ne!(a, generate_data(1 << 20, 2));
        let mut lz = LzmaOptions::new_preset(5).unwrap();
        lz.dict_size(1 << 22);
        let mut packed = Vec::new();
        compress(&a, &lz, &mut packed).unwrap();
        let ratio = a.len() as f64 / packed.len() as f64;
        // Not trivial (zeros give > 100), not random (≈ 1).
        assert!((1.8..8.0).contains(&ratio), "ratio {ratio}");
        let mut back = Vec::new();
        decompress(&packed, &mut back, a.len()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn corrupt_input_is_an_error_not_a_panic() {
        let mut out = Vec::new();
        assert!(decompress(&[0xff; 64], &mut out, 64).is_err());
    }

    #[test]
    fn version_names_liblzma() {
        assert!(
            liblzma_version().starts_with("liblzma 5."),
            "{}",
            liblzma_version()
        );
    }
}
