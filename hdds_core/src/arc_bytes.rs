//! Byte buffers (`Arc<[u8]>`, under [`crate::payload::Payload`]) allocated once at their final
//! size and filled in place: the stand-ins for `Arc::new_uninit_slice` and `assume_init`, which
//! need Rust 1.82 (the crate's minimum is 1.74). Filling a zeroed buffer instead would touch every
//! byte twice, and building one from a byte iterator copies byte by byte (several times a memcpy
//! for megabyte payloads).

use std::mem::MaybeUninit;
use std::sync::Arc;

/// A buffer of `len` bytes, none of them initialized. One allocation; nothing is written
/// (`iter::repeat(uninit)` is a trusted-length iterator whose stores compile to nothing).
pub(crate) fn uninit(len: usize) -> Arc<[MaybeUninit<u8>]> {
    std::iter::repeat(MaybeUninit::uninit()).take(len).collect()
}

/// The same allocation read as bytes.
///
/// # Safety
/// Every element of `buf` is initialized.
#[link_section = ".text.hot.hdds"]
pub(crate) unsafe fn assume_init(buf: Arc<[MaybeUninit<u8>]>) -> Arc<[u8]> {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, so the pointer from `Arc::into_raw` is that
    // of an `Arc<[u8]>` of the same length and allocation; the caller guarantees every byte is
    // initialized.
    unsafe { Arc::from_raw(Arc::into_raw(buf) as *const [u8]) }
}

/// A buffer of bytes taken back for reuse, read as uninitialized again (always sound: every `u8`
/// is a valid `MaybeUninit<u8>`). Writable through `Arc::get_mut` when nothing else holds it.
pub(crate) fn reuse(buf: Arc<[u8]>) -> Arc<[MaybeUninit<u8>]> {
    // SAFETY: `u8` and `MaybeUninit<u8>` have the same layout, so the pointer from `Arc::into_raw`
    // is that of an `Arc<[MaybeUninit<u8>]>` of the same length and allocation.
    unsafe { Arc::from_raw(Arc::into_raw(buf) as *const [MaybeUninit<u8>]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uninit_then_filled_reads_back() {
        let mut buf = uninit(5);
        for (i, b) in Arc::get_mut(&mut buf).expect("fresh").iter_mut().enumerate() {
            *b = MaybeUninit::new(i as u8 + 1);
        }
        // SAFETY: all five bytes were written above.
        let bytes = unsafe { assume_init(buf) };
        assert_eq!(&bytes[..], &[1, 2, 3, 4, 5]);
    }
}
