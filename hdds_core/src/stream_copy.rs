//! The copy that writes a large sample where another thread or process reads it next: from
//! [`STREAM_FROM`] bytes on, with non-temporal stores that go to memory around the writer's caches.
//!
//! Why: a 4 MiB sample does not fit in the writer's caches (512 KiB of L2 on these EPYC VMs), and
//! the writer never reads it again. An ordinary copy first reads every destination line into the
//! cache (the store's read for ownership), then writes it back when it is evicted: three passes
//! over memory. Non-temporal stores make it two. glibc's `memcpy` switches to them only above its
//! non-temporal threshold, which it derives from the L3 size: 192 MiB on these VMs, so never for a
//! sample. Measured on this host (results/ros_compare_notes.md, session 35): a cold 4 MiB copy
//! into a /dev/shm ring slot 550-690 µs against 830-1090 µs with `memcpy`; performance_test's
//! Array4m at 20 Hz, publish to callback, about 8 % shorter in two processes and in one
//! (results/ros_compare_stream_copy_ab.md).
//!
//! Below [`STREAM_FROM`] (4 MiB) the copy is `copy_nonoverlapping` (`memcpy`): a sample that
//! still fits in the caches is read faster from them. Where that ends was measured, not derived
//! (these VMs report a 32 MiB L3 but behave as if about 3 MiB of it were theirs): the engine's
//! shared-memory ping-pong, sleeping reader, pinned, p50 µs with `memcpy` against streaming stores,
//! 3 interleaved runs each: 1 MiB 94-133 against 142-178, 2 MiB 175-212 against 330-403, 3 MiB
//! 497-505 against 531-600, 4 MiB 884-1,299 against 720-746, 8 MiB 3,023-3,244 against
//! 2,340-2,423.
//!
//! Ordering: non-temporal stores are weakly ordered, even on x86, so a later Release store (the
//! ring's stamp) could become visible before them. The copy ends with `sfence`, which orders them
//! before every later store: a reader that sees the stamp sees the bytes.

/// Copies of at least this many bytes use non-temporal stores (where the CPU has them).
pub const STREAM_FROM: usize = 4 << 20;

/// Copies `len` bytes from `src` to `dst`, with non-temporal stores from [`STREAM_FROM`] bytes on
/// (x86-64 with AVX2; elsewhere, and under Miri, always `copy_nonoverlapping`). Every store is visible to
/// other threads before any store the caller makes after it returns.
///
/// # Safety
/// As `std::ptr::copy_nonoverlapping`: `src` readable and `dst` writable for `len` bytes, the two
/// ranges disjoint. No alignment is needed.
#[inline]
pub unsafe fn copy_to_reader(dst: *mut u8, src: *const u8, len: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if len >= STREAM_FROM && std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked above); the rest is the caller's guarantee.
        unsafe { x86::stream_avx2(dst, src, len) };
        return;
    }
    // SAFETY: the caller's guarantee.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86 {
    use std::arch::x86_64::*;

    /// Bytes each step loads ahead of itself: the hardware prefetcher alone leaves a cold source's
    /// loads waiting on memory (a 4 MiB copy 690 µs without, 600 µs with, on this host).
    const PREFETCH_AHEAD: usize = 512;

    /// Copies the bytes before `dst`'s next 64-byte boundary with `copy_nonoverlapping` (the
    /// streaming stores need aligned destinations) and returns how many that was.
    ///
    /// # Safety
    /// As [`super::copy_to_reader`].
    unsafe fn head(dst: *mut u8, src: *const u8, len: usize) -> usize {
        let n = dst.align_offset(64).min(len);
        // SAFETY: n <= len: inside both ranges.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, n) };
        n
    }

    /// The streaming loop, 128 bytes a step. Only AVX2's: x86-64 CPUs without it predate 2013, and
    /// an SSE2 twin of this loop would be the same code twice for them.
    ///
    /// # Safety
    /// As [`super::copy_to_reader`], on a CPU with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn stream_avx2(dst: *mut u8, src: *const u8, len: usize) {
        const STEP: usize = 128;
        // SAFETY: the caller's guarantee.
        let mut done = unsafe { head(dst, src, len) };
        while len - done >= STEP {
            // SAFETY: done + STEP <= len: every load and store is inside its range; dst + done is
            // 64-byte aligned (head, then whole steps), as the 32-byte streaming stores need.
            // Prefetches never fault, even past the end of `src`.
            unsafe {
                let (s, d) = (src.add(done), dst.add(done));
                _mm_prefetch::<_MM_HINT_T0>(s.wrapping_add(PREFETCH_AHEAD).cast());
                _mm_prefetch::<_MM_HINT_T0>(s.wrapping_add(PREFETCH_AHEAD + 64).cast());
                let a = _mm256_loadu_si256(s.cast());
                let b = _mm256_loadu_si256(s.add(32).cast());
                let c = _mm256_loadu_si256(s.add(64).cast());
                let e = _mm256_loadu_si256(s.add(96).cast());
                _mm256_stream_si256(d.cast(), a);
                _mm256_stream_si256(d.add(32).cast(), b);
                _mm256_stream_si256(d.add(64).cast(), c);
                _mm256_stream_si256(d.add(96).cast(), e);
            }
            done += STEP;
        }
        // SAFETY: sfence has no memory operands. The tail: done <= len, inside both ranges.
        unsafe {
            _mm_sfence();
            std::ptr::copy_nonoverlapping(src.add(done), dst.add(done), len - done);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect()
    }

    /// Copies `len` bytes from offset `so` of a source to offset `doff` of a destination with `f`,
    /// and checks every byte, and that nothing outside the range changed.
    fn check(f: unsafe fn(*mut u8, *const u8, usize), len: usize, so: usize, doff: usize) {
        let src = pattern(len + so);
        let mut dst = vec![0xAAu8; len + doff + 200];
        // SAFETY: both ranges lie inside their vectors and the vectors are distinct.
        unsafe { f(dst.as_mut_ptr().add(doff), src.as_ptr().add(so), len) };
        assert!(dst[..doff].iter().all(|&b| b == 0xAA), "before, len {len} so {so} doff {doff}");
        assert_eq!(&dst[doff..doff + len], &src[so..so + len], "len {len} so {so} doff {doff}");
        assert!(dst[doff + len..].iter().all(|&b| b == 0xAA), "after, len {len} so {so} doff {doff}");
    }

    #[test]
    fn copies_every_byte_at_every_size_around_the_threshold_and_any_alignment() {
        for len in [0, 1, 63, 64, 65, 127, 128, 129, 1000] {
            for (so, doff) in [(0, 0), (4, 0), (0, 4), (3, 61), (60, 1), (17, 33)] {
                check(copy_to_reader, len, so, doff);
            }
        }
        for len in [STREAM_FROM - 1, STREAM_FROM, STREAM_FROM + 77] {
            for (so, doff) in [(0, 0), (3, 61)] {
                check(copy_to_reader, len, so, doff);
            }
        }
    }

    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn the_streaming_loop_copies_every_byte_at_any_size_and_alignment() {
        if !std::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: copy_to_reader is copy_nonoverlapping, tested above");
            return;
        }
        for len in [0, 1, 63, 64, 65, 127, 128, 129, 191, 4096, 4096 + 13, 100_003] {
            for (so, doff) in [(0, 0), (4, 0), (0, 4), (3, 61), (60, 1), (17, 33), (1, 63)] {
                // SAFETY: AVX2 is present (checked above); check passes ranges inside its vectors.
                check(|d, s, n| unsafe { x86::stream_avx2(d, s, n) }, len, so, doff);
            }
        }
    }
}
