//! tinymembench's `standard memcpy` and `standard memset`: the figures sbc-bench's Results.md
//! and the corpus hold, measured the way tinymembench 0.4 measures them, so a truebench row
//! ranks against the corpus on the same measure (the best-method figures of the module above
//! are a different measure: +13…+70 % on the project's VM at the same buffer size).
//!
//! What is the same as tinymembench (`main.c`, `bandwidth_bench_helper`): one libc call over
//! a 32 MiB buffer; source and destination carved from one allocation at tinymembench's
//! anti-aliasing offsets from 1 MiB boundaries, memory with the system's default huge-page
//! policy (no `madvise`, as its `malloc`); per repeat one untimed call, then batches of
//! 1, 2, 4, … calls until 0.5 s have passed since the first; MB/s = 10^6 bytes; up to ten
//! repeats, ending once three or more have a sample standard deviation below 1/1000 of the
//! best; the result is the best repeat, the spread in brackets from 0.1 %.

use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

use super::spread::{agree, max, spread_pct_of_best};
use super::{Bandwidth, BandwidthTest, Mapping, MemoryError, MemoryOptions, MIB};

/// tinymembench's `SIZE`.
pub const STANDARD_BYTES: usize = 32 * MIB as usize;
/// tinymembench's `ALIGN_PADDING`: buffers start at this alignment plus an offset.
const ALIGN_PADDING: usize = 0x10_0000;
/// tinymembench's anti-aliasing offsets (`0xAAAAAAAA`, `0x55555555` masked to the padding,
/// whole 128-byte lines), so source and destination do not map to the same cache sets.
const SRC_OFFSET: usize = 0xAAAA_AAAA & (ALIGN_PADDING - 1) & !127;
const DST_OFFSET: usize = 0x5555_5555 & (ALIGN_PADDING - 1) & !127;

/// The names tinymembench prints, which the result keeps.
pub fn implementation(test: BandwidthTest) -> &'static str {
    match test {
        BandwidthTest::Memcpy => "standard memcpy",
        BandwidthTest::Memset => "standard memset",
        BandwidthTest::Read => "standard read",
    }
}

/// Both standard tests on the current (already pinned) thread, with `opts.sample_seconds`
/// per repeat (tinymembench: 0.5) and up to `opts.max_samples` repeats (tinymembench: 10).
pub(super) fn measure_pinned(opts: &MemoryOptions) -> Result<Vec<Bandwidth>, MemoryError> {
    let bytes = STANDARD_BYTES;
    // src, padding, dst, padding: tinymembench's layout of one allocation.
    let pool = Mapping::new(2 * bytes + 4 * ALIGN_PADDING, None)?;
    let base = pool.ptr as usize; // 2 MiB-aligned, so also aligned to ALIGN_PADDING
    let src = base + SRC_OFFSET;
    let dst = align_up(src + bytes, ALIGN_PADDING) + DST_OFFSET;
    debug_assert!(dst + bytes <= base + pool.len);
    // tinymembench fills with the source's first word, truncated to a byte by memset.
    // SAFETY: src lies inside the mapping, which Mapping::new initialised.
    let fill = unsafe { *(src as *const u8) } as i32;
    let mut out = Vec::new();
    for test in [BandwidthTest::Memcpy, BandwidthTest::Memset] {
        let mut call = || {
            // SAFETY: src and dst are `bytes` long inside the mapping and do not overlap.
            unsafe {
                match test {
                    BandwidthTest::Memcpy => {
                        libc::memcpy(dst as *mut c_void, src as *const c_void, bytes);
                    }
                    _ => {
                        libc::memset(dst as *mut c_void, fill, bytes);
                    }
                }
            }
            black_box(dst);
        };
        let samples = repeats(opts.sample_seconds, opts.max_samples, bytes, &mut call);
        out.push(Bandwidth {
            test,
            mb_s: max(&samples),
            spread_pct: spread_pct_of_best(&samples),
            samples_mb_s: samples,
            bytes: bytes as u64,
            implementation: implementation(test).into(),
            pilots: Vec::new(),
        });
    }
    Ok(out)
}

fn align_up(v: usize, a: usize) -> usize {
    v.div_ceil(a) * a
}

/// tinymembench's sampling loop: the MB/s of each repeat, in order.
pub fn repeats(seconds: f64, max_repeats: u32, bytes: usize, f: &mut dyn FnMut()) -> Vec<f64> {
    let mut speeds = Vec::new();
    for _ in 0..max_repeats.max(1) {
        f();
        let mut calls = 0u64;
        let mut batch = 1u64;
        let t0 = Instant::now();
        let secs = loop {
            for _ in 0..batch {
                f();
            }
            calls += batch;
            batch *= 2;
            let e = t0.elapsed().as_secs_f64();
            if e >= seconds {
                break e;
            }
        };
        speeds.push(bytes as f64 * calls as f64 / secs / 1e6);
        if settled(&speeds) {
            break;
        }
    }
    speeds
}

/// tinymembench's end of sampling: three or more repeats whose sample standard deviation is
/// below a thousandth of the best.
fn settled(speeds: &[f64]) -> bool {
    speeds.len() > 2 && agree(speeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_tinymembench_s() {
        // antialias_pattern_mask = (ALIGN_PADDING - 1) & ~(CACHE_LINE_SIZE - 1) = 0xfff80.
        assert_eq!(SRC_OFFSET, 0xaaa80);
        assert_eq!(DST_OFFSET, 0x55500);
        assert_eq!(align_up(0x10_0001, ALIGN_PADDING), 0x20_0000);
        assert_eq!(align_up(0x20_0000, ALIGN_PADDING), 0x20_0000);
    }

    #[test]
    fn batches_double_until_the_time_is_up() {
        let mut calls = 0u64;
        // A call that takes ~1 ms: 1+2+4+8+16 = 31 calls pass 20 ms, then it stops.
        let mut f = || {
            calls += 1;
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        let v = repeats(0.02, 1, 1_000_000, &mut f);
        assert_eq!(v.len(), 1);
        // One warm call plus whole doubling batches: 1 + (2^k - 1) with 2^k - 1 >= 15.
        let timed = calls - 1;
        assert!(
            (timed + 1).is_power_of_two() && timed >= 15,
            "{calls} calls"
        );
        // 10^6 bytes per ~1 ms call: at most ~1000 MB/s, and sleep only overshoots.
        assert!(v[0] > 100.0 && v[0] <= 1000.0, "{v:?}");
    }

    #[test]
    fn sampling_ends_when_three_agree_within_a_thousandth() {
        assert!(!settled(&[1000.0, 1000.0]), "two are never enough");
        assert!(settled(&[1000.0, 1000.5, 999.8]));
        // The SD of 1000, 1002, 998 is 2.0, above 1002 / 1000.
        assert!(!settled(&[1000.0, 1002.0, 998.0]));
        assert!(settled(&[900.0, 1000.0, 1000.2, 999.9, 1000.1][1..]));
        assert!(!settled(&[900.0, 1000.0, 1000.2, 999.9, 1000.1]));
    }
}
