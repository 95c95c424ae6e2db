//! The copy rmw_hdds's serializer writes a large message's bytes with: hdds_core::stream_copy,
//! so that the C++ codec and the engine write big samples the same way.

use hdds_core::stream_copy::{copy_to_reader, STREAM_FROM};
use hdds_core::Error;

use crate::ret::{guard, HddsRet};

/// Copies of at least this many bytes go around the writer's caches (hdds_copy_to_reader).
pub const HDDS_STREAM_COPY_FROM: usize = 4 << 20;
const _: () = assert!(HDDS_STREAM_COPY_FROM == STREAM_FROM);

/// Copies `len` bytes from `src` to `dst` the way the engine writes a large sample for a reader
/// in another thread or process: from HDDS_STREAM_COPY_FROM bytes on with non-temporal stores
/// (x86-64 with AVX2), which skip reading the destination into the cache and leave the caller's
/// caches alone; below that, as memcpy. Every byte is visible to other threads before any store the
/// caller makes after it returns. `src` and `dst` must be valid for `len` bytes and must not
/// overlap; no alignment is needed. NULL is allowed when `len` is 0; a NULL pointer with a
/// nonzero `len` is HDDS_RET_BAD_ARGUMENT and copies nothing. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_copy_to_reader(dst: *mut u8, src: *const u8, len: usize) -> HddsRet {
    guard("hdds_copy_to_reader", || {
        if len == 0 {
            return Ok(());
        }
        if dst.is_null() || src.is_null() {
            return Err(Error::bad_argument("hdds_copy_to_reader: dst or src is NULL with len > 0"));
        }
        // SAFETY: the C caller's contract above: both valid for `len` bytes and disjoint.
        unsafe { copy_to_reader(dst, src, len) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_small_and_large_and_refuses_null() {
        for len in [0usize, 5, HDDS_STREAM_COPY_FROM + 3] {
            // Marked bytes rather than a pattern of every byte: Miri runs this test too, and the
            // loop's own tests (hdds_core::stream_copy) check every byte.
            let mut src = vec![0u8; len];
            for (k, at) in [0, len / 2, len.saturating_sub(1)].into_iter().enumerate() {
                if at < len {
                    src[at] = 1 + k as u8;
                }
            }
            let mut dst = vec![0u8; len];
            assert_eq!(hdds_copy_to_reader(dst.as_mut_ptr(), src.as_ptr(), len), HddsRet::Ok);
            assert_eq!(dst, src);
        }
        assert_eq!(hdds_copy_to_reader(std::ptr::null_mut(), std::ptr::null(), 0), HddsRet::Ok);
        let src = [1u8; 4];
        assert_eq!(hdds_copy_to_reader(std::ptr::null_mut(), src.as_ptr(), 4), HddsRet::BadArgument);
    }
}
