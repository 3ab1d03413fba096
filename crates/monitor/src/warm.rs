//! Warming the tick's code, and then its heap, in one burst on waking.
//!
//! After 100 ms asleep on a shared machine the code a tick runs has left the core's caches:
//! executed as it is, each of its lines of code (about 280 in a plain tick, 445 in a
//! session's, counted with valgrind's lackey) is fetched from memory one after the other, as
//! the instructions reach it — 34 to 57 ns a line measured here, most of what a tick costs
//! beyond its reads. The functions a tick runs are gathered in one section, `truebench_tick`
//! (`#[link_section = "truebench_tick"]` on each, in this crate, `host`'s parsers, `model`'s
//! JSON line and the `truebench` crate's line printer), and the first thing a tick does is ask
//! for every line of that section at once with prefetch instructions. Those fetches overlap:
//! the section comes into the core's second-level cache in about the time of a few misses,
//! and the code then runs from there. The code goes into the second level only (the x86
//! `prefetcht1` hint, the Arm `prfm pldl2keep`), so as not to crowd the first with it; the
//! stack below the loop's frame and the struct the tick reads first go into the first
//! (`prefetcht0`, `prfm pldl1keep`), and so do the vectors on the heap the tick reads and
//! fills (`warm_slice`, called by `SampleReader::warm`). A prefetch never faults; on other
//! architectures this does nothing.
//!
//! The section's name is a C identifier so that the linker (GNU ld or LLD) defines
//! `__start_truebench_tick` and `__stop_truebench_tick` around it; `warm_tick_code` is in the
//! section itself, so the section exists wherever it is linked.

/// The most of the section warmed per tick: a section grown beyond this is warmed from its
/// start only (its cost then bounded at 2,048 prefetches). The release build's is about 50 KB.
const MAX_BYTES: usize = 128 << 10;

extern "C" {
    #[link_name = "__start_truebench_tick"]
    static START: [u8; 0];
    #[link_name = "__stop_truebench_tick"]
    static STOP: [u8; 0];
}

/// The tick's code, as addresses: `[start, end)`.
pub(crate) fn tick_code() -> (usize, usize) {
    // Only the symbols' addresses are taken, never their contents read.
    (
        std::ptr::addr_of!(START) as usize,
        std::ptr::addr_of!(STOP) as usize,
    )
}

/// How much of the stack below the caller's frame a tick's calls use, about (6 KB measured
/// for a session's sampler thread).
const STACK_BYTES: usize = 8 << 10;

/// Prefetch every 64-byte line of the tick's code into the second-level cache, and the stack
/// the tick's calls will use into the first.
#[inline(never)]
#[link_section = "truebench_tick"]
pub(crate) fn warm_tick_code() {
    let (start, end) = tick_code();
    prefetch_lines::<false>(start, end.min(start.saturating_add(MAX_BYTES)));
    // This frame's address: the tick's frames lie below it (the stack grows down on every
    // architecture this prefetches on).
    let here = 0u8;
    let top = std::hint::black_box(&here) as *const u8 as usize;
    prefetch_lines::<true>(top.saturating_sub(STACK_BYTES), top);
}

/// Prefetch the lines of `v` (at most 4 KiB of it) into the first-level cache: a structure the
/// tick reads next.
#[inline(always)]
pub(crate) fn warm_value<T>(v: &T) {
    let start = v as *const T as usize;
    prefetch_lines::<true>(start, start + std::mem::size_of::<T>().min(4 << 10));
}

/// The most of one slice [`warm_slice`] prefetches: past it the hardware's own prefetcher
/// follows the run once the tick walks it.
const SLICE_BYTES: usize = 1 << 10;

/// Prefetch the start of `v`'s elements (at most 1 KiB) into the first-level cache: heap data
/// the tick reads or writes next. The collectors' vectors and the sample each tick fills lie
/// on some thirty pages of the heap, cold after 100 ms; warmed at once, their misses overlap
/// instead of coming one after the other as the tick reaches each.
#[inline(always)]
pub(crate) fn warm_slice<T>(v: &[T]) {
    warm_bytes(v.as_ptr() as usize, std::mem::size_of_val(v));
}

/// [`warm_slice`]'s work, in one copy (inlined at its thirty-odd calls it was a tenth of the
/// section). An empty slice's pointer is dangling: nothing is prefetched for it.
#[inline(never)]
#[link_section = "truebench_tick"]
fn warm_bytes(start: usize, len: usize) {
    if len > 0 {
        prefetch_lines::<true>(start, start + len.min(SLICE_BYTES));
    }
}

/// Prefetch every 64-byte line of `[start, end)` into the first-level cache (`L1`) or the
/// second.
#[inline(always)]
fn prefetch_lines<const L1: bool>(start: usize, end: usize) {
    let mut p = start & !63;
    // Four lines a turn where there are four: the loop's own instructions were three quarters of
    // warming the section (counted with callgrind).
    while p.saturating_add(256) <= end {
        prefetch::<L1>(p as *const u8);
        prefetch::<L1>((p + 64) as *const u8);
        prefetch::<L1>((p + 128) as *const u8);
        prefetch::<L1>((p + 192) as *const u8);
        p += 256;
    }
    while p < end {
        prefetch::<L1>(p as *const u8);
        p += 64;
    }
}

#[inline(always)]
fn prefetch<const L1: bool>(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing the program sees and never faults.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        if L1 {
            _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
        } else {
            _mm_prefetch::<_MM_HINT_T1>(p as *const i8);
        }
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: as above (`prfm` never faults).
    unsafe {
        if L1 {
            std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) p, options(nostack, readonly, preserves_flags));
        } else {
            std::arch::asm!("prfm pldl2keep, [{0}]", in(reg) p, options(nostack, readonly, preserves_flags));
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::SampleReader;

    /// The linker gathered the tick's functions into the section, and the section is what the
    /// warming covers.
    #[test]
    fn the_tick_section_holds_the_tick_functions() {
        let (start, end) = tick_code();
        assert!(start < end, "empty tick section: {start:#x}..{end:#x}");
        let pread_ok: for<'a> fn(&std::fs::File, &'a mut [u8]) -> Option<&'a [u8]> =
            crate::reader::bytes::pread_ok;
        let functions = [
            ("warm_tick_code", warm_tick_code as *const () as usize),
            ("pread_ok", pread_ok as *const () as usize),
            (
                "SampleReader::sample_at",
                SampleReader::sample_at as *const () as usize,
            ),
            ("warm_bytes", warm_bytes as *const () as usize),
            (
                "SampleReader::warm",
                SampleReader::warm as *const () as usize,
            ),
            (
                "Meminfo::parse",
                truebench_host::parse::meminfo::Meminfo::parse as *const () as usize,
            ),
        ];
        for (name, at) in functions {
            assert!(
                (start..end).contains(&at),
                "{name} at {at:#x} is outside the tick section {start:#x}..{end:#x}"
            );
        }
        // Called here as a tick does: it reads nothing and cannot fault.
        warm_tick_code();
    }
}
