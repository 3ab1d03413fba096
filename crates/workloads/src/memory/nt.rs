//! Copy and fill with non-temporal stores: the written lines go to memory without first
//! being read into the cache (no read-for-ownership), which is what large copies and fills
//! beyond the cache want — glibc uses them only above a size threshold, and its memset not
//! at all (2.36). `dst`/`src` 64-byte aligned, `len` a multiple of 64.

/// Whether this build has a non-temporal implementation.
pub const AVAILABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// # Safety
/// `dst` valid for `len` writes; alignment and length as in the module comment.
#[cfg(target_arch = "x86_64")]
pub unsafe fn fill(dst: *mut u8, len: usize, byte: u8) {
    use std::arch::x86_64::*;
    let v = _mm_set1_epi8(byte as i8);
    let mut p = dst;
    let end = dst.add(len);
    while p < end {
        _mm_stream_si128(p as *mut __m128i, v);
        _mm_stream_si128(p.add(16) as *mut __m128i, v);
        _mm_stream_si128(p.add(32) as *mut __m128i, v);
        _mm_stream_si128(p.add(48) as *mut __m128i, v);
        p = p.add(64);
    }
    _mm_sfence();
}

/// # Safety
/// `src` valid for `len` reads, `dst` for `len` writes, not overlapping; as above.
#[cfg(target_arch = "x86_64")]
pub unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
    use std::arch::x86_64::*;
    let mut s = src;
    let mut d = dst;
    let end = src.add(len);
    while s < end {
        let a = _mm_load_si128(s as *const __m128i);
        let b = _mm_load_si128(s.add(16) as *const __m128i);
        let c = _mm_load_si128(s.add(32) as *const __m128i);
        let e = _mm_load_si128(s.add(48) as *const __m128i);
        _mm_stream_si128(d as *mut __m128i, a);
        _mm_stream_si128(d.add(16) as *mut __m128i, b);
        _mm_stream_si128(d.add(32) as *mut __m128i, c);
        _mm_stream_si128(d.add(48) as *mut __m128i, e);
        s = s.add(64);
        d = d.add(64);
    }
    _mm_sfence();
}

/// # Safety
/// As for the x86-64 version.
#[cfg(target_arch = "aarch64")]
pub unsafe fn fill(dst: *mut u8, len: usize, byte: u8) {
    if len == 0 {
        return;
    }
    std::arch::asm!(
        "dup v0.16b, {b:w}",
        "mov v1.16b, v0.16b",
        "2:",
        "stnp q0, q1, [{d}]",
        "stnp q0, q1, [{d}, #32]",
        "add {d}, {d}, #64",
        "subs {n}, {n}, #64",
        "b.ne 2b",
        b = in(reg) byte as u32,
        d = inout(reg) dst => _,
        n = inout(reg) len => _,
        out("v0") _,
        out("v1") _,
        options(nostack),
    );
}

/// # Safety
/// As for the x86-64 version.
#[cfg(target_arch = "aarch64")]
pub unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
    if len == 0 {
        return;
    }
    std::arch::asm!(
        "2:",
        "ldp q0, q1, [{s}]",
        "ldp q2, q3, [{s}, #32]",
        "stnp q0, q1, [{d}]",
        "stnp q2, q3, [{d}, #32]",
        "add {s}, {s}, #64",
        "add {d}, {d}, #64",
        "subs {n}, {n}, #64",
        "b.ne 2b",
        s = inout(reg) src => _,
        d = inout(reg) dst => _,
        n = inout(reg) len => _,
        out("v0") _,
        out("v1") _,
        out("v2") _,
        out("v3") _,
        options(nostack),
    );
}

/// Portable stand-ins where no non-temporal code exists (never offered as a candidate).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub unsafe fn fill(dst: *mut u8, len: usize, byte: u8) {
    std::ptr::write_bytes(dst, byte, len)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
    std::ptr::copy_nonoverlapping(src, dst, len)
}

#[cfg(test)]
mod tests {
    #[test]
    fn copy_and_fill_are_exact() {
        let len = 64 * 1024;
        let mut a = vec![0u8; len + 64];
        let mut b = vec![0u8; len + 64];
        let off_a = a.as_ptr().align_offset(64);
        let off_b = b.as_ptr().align_offset(64);
        let src = &mut a[off_a..off_a + len];
        for (i, x) in src.iter_mut().enumerate() {
            *x = (i * 7 + i / 251) as u8;
        }
        let dst_ptr = b[off_b..].as_mut_ptr();
        // SAFETY: both 64-aligned, len bytes each, distinct vectors.
        unsafe { super::copy(src.as_ptr(), dst_ptr, len) };
        assert_eq!(&b[off_b..off_b + len], &a[off_a..off_a + len]);
        // SAFETY: as above.
        unsafe { super::fill(b[off_b..].as_mut_ptr(), len, 0xa5) };
        assert!(b[off_b..off_b + len].iter().all(|&x| x == 0xa5));
        // Bytes around the range are untouched.
        assert!(b[..off_b].iter().all(|&x| x == 0));
        assert!(b[off_b + len..].iter().all(|&x| x == 0));
    }
}
