//! Payload buffers (`Arc<[u8]>`) allocated once at their final size and filled in place: the
//! stand-ins for `Arc::new_uninit_slice` and `assume_init`, which need Rust 1.82 (the crate's
//! minimum is 1.74). Filling a zeroed buffer instead would touch every byte twice, and building one
//! from a byte iterator copies byte by byte (several times a memcpy for megabyte payloads).

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

/// A new buffer holding the `len` bytes at `src`, copied in one `memcpy`.
///
/// `src` may be memory another process writes concurrently (a shared-memory ring): the bytes are
/// read as raw `u8` (any value is valid) and no reference to them is formed, so a racing write
/// can only make the copy wrong, which the caller must detect (the ring's seqlock stamp) and then
/// throw the copy away.
///
/// # Safety
/// `src..src + len` lies inside one live mapping (or allocation) readable for the whole call.
pub(crate) unsafe fn copy_from_raw(src: *const u8, len: usize) -> Arc<[u8]> {
    // SAFETY: the caller's guarantee, for the new buffer's `len` bytes.
    unsafe { copy_from_raw_into(uninit(len), src) }
}

/// [`copy_from_raw`] into `buf` (a new buffer, or one taken back with [`reuse`]): its length
/// is the number of bytes copied.
///
/// # Safety
/// `src..src + buf.len()` lies inside one live mapping (or allocation) readable for the whole call,
/// and not inside `buf`.
pub(crate) unsafe fn copy_from_raw_into(mut buf: Arc<[MaybeUninit<u8>]>, src: *const u8) -> Arc<[u8]> {
    let len = buf.len();
    let Some(dst) = Arc::get_mut(&mut buf) else {
        // Callers pass buffers they alone hold, so get_mut does not fail. Were it to, copy byte by
        // byte into a new one, still as raw reads (no reference to the shared bytes).
        // SAFETY: the caller's guarantee on `src..src + len`.
        return (0..len).map(|i| unsafe { src.add(i).read() }).collect();
    };
    // SAFETY: `dst` is `len` bytes that `src..src + len` does not overlap (the caller's
    // guarantee), which the caller also guarantees readable; `MaybeUninit<u8>` has the layout of
    // `u8`.
    unsafe { std::ptr::copy_nonoverlapping(src, dst.as_mut_ptr().cast::<u8>(), len) };
    // SAFETY: all `len` bytes were just written.
    unsafe { assume_init(buf) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_from_raw_copies_every_byte() {
        for len in [0usize, 1, 63, 64, 4097] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            // SAFETY: src is a live allocation of len bytes.
            let got = unsafe { copy_from_raw(src.as_ptr(), len) };
            assert_eq!(&got[..], &src[..], "len {len}");
        }
    }

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
