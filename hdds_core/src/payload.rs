//! A sample's serialized payload (encapsulation header first) in a shared buffer: what readers,
//! the RTPS machines and the histories hold of a sample, shared rather than copied.
//!
//! Why not a bare `Arc<[u8]>`: an `Arc<[u8]>`'s bytes start at a fixed offset of its allocation,
//! 8-byte aligned, so the message body after the 4-byte encapsulation header would always sit 4
//! bytes past an 8-byte boundary. A reader that hands the message out in place
//! (`rmw_take_loaned_message` of a type whose memory is its CDR) needs the body aligned for the
//! struct: 8 bytes for any type with a `float64` or `int64`, as most ROS messages have. A buffer
//! this engine fills itself (a writer's sample, a received sample) therefore starts its payload
//! 4 bytes into the allocation (at its start on a 32-bit target), so that the body is
//! [`Payload::BODY_ALIGN`]-aligned; a payload made from an existing `Arc<[u8]>` (`From`) starts at
//! its first byte.

use std::fmt;
use std::mem::MaybeUninit;
use std::ops::Deref;
use std::sync::Arc;

/// A serialized payload: bytes `start..end` of a shared buffer. Cloning shares the buffer.
#[derive(Clone)]
pub struct Payload {
    buf: Arc<[u8]>,
    /// `end << 1`, plus 1 when the payload starts `LEAD` bytes in (its start is 0 or `LEAD`):
    /// one word, not two, so that a `Sample` fits in 128 bytes, which the compiler moves with
    /// inline loads and stores instead of a `memcpy` call. A same-process sample is moved about
    /// ten times between a write and its take (results/same_host_notes.md, session 33).
    span: usize,
}

/// A buffer for a payload, not filled yet ([`Payload::uninit`], [`Payload::reuse`]): write
/// [`UninitPayload::bytes_mut`], then [`UninitPayload::assume_init`].
pub(crate) struct UninitPayload {
    buf: Arc<[MaybeUninit<u8>]>,
    start: usize,
    len: usize,
}

/// The encapsulation header's length: the body starts this many bytes into the payload.
const HEADER: usize = 4;
/// The bytes a buffer of ours may leave before its payload ([`Payload::uninit`]).
const LEAD: usize = Payload::BODY_ALIGN - HEADER;

impl Payload {
    #[inline(always)]
    fn at(buf: Arc<[u8]>, start: usize, end: usize) -> Payload {
        debug_assert!(start == 0 || start == LEAD, "a payload starts at 0 or LEAD");
        // `end <= isize::MAX` (an allocation's length), so the shift loses nothing.
        Payload { buf, span: end << 1 | usize::from(start != 0) }
    }

    #[inline(always)]
    fn start(&self) -> usize {
        (self.span & 1) * LEAD
    }

    #[inline(always)]
    fn end(&self) -> usize {
        self.span >> 1
    }

    /// The alignment of the body (the bytes after the encapsulation header) of a payload in a
    /// buffer of this engine's: a `float64`'s, the widest primitive of CDR's plain types.
    pub const BODY_ALIGN: usize = 8;

    /// An empty payload. Without an allocation: the empty payloads a thread makes share one
    /// buffer (a write whose readers all read it from the writer's ring makes one, and so does
    /// every sample a reader leaves in a ring; a new `Arc` each time was a `malloc` and a `free`,
    /// about 190 instructions of a 1,700-instruction shared-memory write).
    pub fn empty() -> Payload {
        thread_local! {
            static EMPTY: Arc<[u8]> = Arc::from(&[][..]);
        }
        // (During the thread's teardown the shared one may be gone: a buffer of its own then.)
        let buf = EMPTY.try_with(Arc::clone).unwrap_or_else(|_| Arc::from(&[][..]));
        Payload::from(buf)
    }

    /// A buffer for a payload of `len` bytes whose body will be [`Payload::BODY_ALIGN`]-aligned;
    /// nothing written yet. One allocation of `len + 4` bytes: an `Arc<[u8]>`'s bytes are at least
    /// 4-byte aligned (its counters are `usize`s), so the body is 8-byte aligned either 4 bytes in
    /// (64-bit targets, where they are 8-byte aligned) or at the start.
    #[inline(always)]
    pub(crate) fn uninit(len: usize) -> UninitPayload {
        let buf = crate::arc_bytes::uninit(len + LEAD);
        let at = buf.as_ptr() as usize;
        debug_assert_eq!(at % HEADER, 0, "an Arc's bytes are usize-aligned");
        let start = if (at + LEAD + HEADER) % Self::BODY_ALIGN == 0 { LEAD } else { 0 };
        UninitPayload { buf, start, len }
    }

    /// A new payload holding a copy of `bytes`, its body aligned ([`Payload::uninit`]).
    pub fn copy_of(bytes: &[u8]) -> Payload {
        // SAFETY: `bytes` is a live slice of its length, and not inside the new buffer.
        unsafe { Self::copy_from_raw(bytes.as_ptr(), bytes.len()) }
    }

    /// [`Payload::copy_of`] of the `len` bytes at `src`, in one `memcpy`.
    ///
    /// `src` may be memory another process writes concurrently (a shared-memory ring): the bytes
    /// are read as raw `u8` (any value is valid) and no reference to them is formed, so a racing
    /// write can only make the copy wrong, which the caller must detect (the ring's seqlock stamp)
    /// and then throw the copy away.
    ///
    /// # Safety
    /// `src..src + len` lies inside one live mapping (or allocation) readable for the whole call.
    #[link_section = ".text.hot.hdds"]
    pub(crate) unsafe fn copy_from_raw(src: *const u8, len: usize) -> Payload {
        // SAFETY: the caller's guarantee; a new buffer is not inside `src..src + len`.
        unsafe { Self::uninit(len).copy_from_raw(src) }
    }

    /// The payload's bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `start <= end <= buf.len()`, set so by every constructor.
        unsafe { self.buf.get_unchecked(self.start()..self.end()) }
    }

    /// Whether both are the same bytes of one buffer.
    pub fn ptr_eq(a: &Payload, b: &Payload) -> bool {
        Arc::ptr_eq(&a.buf, &b.buf) && a.span == b.span
    }

    /// How many payloads share this one's buffer.
    pub(crate) fn strong_count(&self) -> usize {
        Arc::strong_count(&self.buf)
    }

    /// The buffer back, to fill with a new payload of this one's length (at the same place), or
    /// `None` when another payload shares it.
    pub(crate) fn reuse(self) -> Option<UninitPayload> {
        if Arc::strong_count(&self.buf) != 1 {
            return None;
        }
        let (start, len) = (self.start(), self.end() - self.start());
        Some(UninitPayload { buf: crate::arc_bytes::reuse(self.buf), start, len })
    }
}

impl UninitPayload {
    /// The payload's bytes, to fill (`None` if the buffer is shared, which the constructors rule out).
    pub(crate) fn bytes_mut(&mut self) -> Option<&mut [MaybeUninit<u8>]> {
        let (start, len) = (self.start, self.len);
        Arc::get_mut(&mut self.buf).map(|b| &mut b[start..start + len])
    }

    /// The payload's length.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The filled payload: the first `len` bytes (at most [`UninitPayload::len`]), for a buffer
    /// filled piecewise through [`UninitPayload::bytes_mut`]. (A fill in one go is
    /// [`UninitPayload::fill`], which takes the buffer's uniqueness once, not twice.)
    ///
    /// # Safety
    /// The first `len` bytes of [`UninitPayload::bytes_mut`] are initialized.
    pub(crate) unsafe fn assume_init(self, len: usize) -> Payload {
        // SAFETY: the caller's guarantee, with nothing more written.
        match unsafe { self.fill(|_| Ok::<usize, ()>(len)) } {
            Ok(p) => p,
            Err(()) => unreachable!("the filler above does not fail"),
        }
    }

    /// Fills the payload in one go: `f` gets its [`UninitPayload::len`] bytes and returns how
    /// many it initialized (from the start), or fails, and the buffer is dropped. One uniqueness
    /// check of the buffer (`Arc::get_mut`, an atomic compare-exchange) for the whole fill.
    ///
    /// # Safety
    /// When `f` returns `Ok(n)`, it initialized the first `n` bytes it was given.
    pub(crate) unsafe fn fill<E>(
        mut self,
        f: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<usize, E>,
    ) -> Result<Payload, E> {
        let (start, cap) = (self.start, self.len);
        let Some(b) = Arc::get_mut(&mut self.buf) else {
            // SAFETY: the caller's guarantee, passed on.
            return unsafe { Self::fill_elsewhere(cap, f) };
        };
        let len = f(&mut b[start..start + cap])?.min(cap);
        let end = start + len;
        zero_around(b, start, end);
        // SAFETY: every byte is initialized: `start..end` by `f` (the caller's guarantee), the
        // rest by `zero_around`.
        let buf = unsafe { crate::arc_bytes::assume_init(self.buf) };
        Ok(Payload::at(buf, start, end))
    }

    /// Fills the payload with a copy of the [`UninitPayload::len`] bytes at `src`, read as raw
    /// bytes ([`Payload::copy_from_raw`]).
    ///
    /// # Safety
    /// `src..src + len` lies inside one live mapping (or allocation) readable for the whole call,
    /// and not inside this buffer.
    #[inline(always)]
    pub(crate) unsafe fn copy_from_raw(mut self, src: *const u8) -> Payload {
        // Written out rather than through `fill`: every sample a writer copies, and every one a
        // busy-polling reader copies out of a ring, comes this way, and the closure's
        // indirections cost about 10 ns (a microbenchmark of 64-byte copies, 14 against 28 ns).
        let (start, len) = (self.start, self.len);
        let end = start + len;
        let Some(b) = Arc::get_mut(&mut self.buf) else {
            // SAFETY: the caller's guarantee.
            return unsafe { Self::copy_elsewhere(src, len) };
        };
        zero_around(b, start, end);
        // SAFETY: `b[start..end]` are `len` bytes of a buffer we alone hold, which the caller
        // guarantees `src..src + len` readable and outside of; `MaybeUninit<u8>` has the layout of
        // `u8`.
        unsafe { std::ptr::copy_nonoverlapping(src, b[start..end].as_mut_ptr().cast::<u8>(), len) };
        // SAFETY: every byte is initialized: the copy's, and the rest by `zero_around`.
        let buf = unsafe { crate::arc_bytes::assume_init(self.buf) };
        Payload::at(buf, start, end)
    }

    /// `copy_from_raw` where the buffer turned out shared, which cannot happen (see
    /// `fill_elsewhere`): byte by byte, still as raw reads, into a new payload.
    ///
    /// # Safety
    /// As [`UninitPayload::copy_from_raw`].
    #[cold]
    unsafe fn copy_elsewhere(src: *const u8, len: usize) -> Payload {
        // SAFETY: the caller's guarantee on `src..src + len`.
        let bytes: Vec<u8> = (0..len).map(|i| unsafe { src.add(i).read() }).collect();
        Payload::copy_of(&bytes)
    }

    /// `fill` where the buffer turned out shared, which cannot happen (it is a new one, or one
    /// `Payload::reuse` found no one else holding, and no `Weak` of it is ever made): `f` fills
    /// memory of its own, copied into a new payload.
    ///
    /// # Safety
    /// As [`UninitPayload::fill`].
    #[cold]
    unsafe fn fill_elsewhere<E>(
        cap: usize,
        f: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<usize, E>,
    ) -> Result<Payload, E> {
        let mut tmp = vec![MaybeUninit::new(0u8); cap];
        let len = f(&mut tmp)?.min(cap);
        // SAFETY: every byte of `tmp` is initialized (zeroed, then perhaps written by `f`).
        Ok(Payload::copy_of(unsafe { std::slice::from_raw_parts(tmp.as_ptr().cast::<u8>(), len) }))
    }
}

/// Zeroes the bytes of `b` around the payload `start..end` (the lead, and what a shorter payload
/// leaves: 4 bytes, or 4 at the end on a 32-bit target, plus that). They are never read, but an
/// `Arc<[u8]>` over them must hold initialized bytes.
#[inline(always)]
fn zero_around(b: &mut [MaybeUninit<u8>], start: usize, end: usize) {
    b[..start].fill(MaybeUninit::new(0));
    b[end..].fill(MaybeUninit::new(0));
}

impl Deref for Payload {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        self.bytes()
    }
}

impl AsRef<[u8]> for Payload {
    fn as_ref(&self) -> &[u8] {
        self.bytes()
    }
}

impl From<Arc<[u8]>> for Payload {
    /// The whole buffer, as it is (its body is not realigned).
    fn from(buf: Arc<[u8]>) -> Payload {
        let end = buf.len();
        Payload::at(buf, 0, end)
    }
}

impl From<&[u8]> for Payload {
    fn from(bytes: &[u8]) -> Payload {
        Payload::copy_of(bytes)
    }
}

impl From<Vec<u8>> for Payload {
    fn from(bytes: Vec<u8>) -> Payload {
        Payload::copy_of(&bytes)
    }
}

impl FromIterator<u8> for Payload {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Payload {
        Payload::from(iter.into_iter().collect::<Vec<u8>>())
    }
}

impl Default for Payload {
    fn default() -> Payload {
        Payload::empty()
    }
}

impl fmt::Debug for UninitPayload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UninitPayload({} bytes)", self.len)
    }
}

impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for Payload {}

impl fmt::Debug for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.bytes().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of every payload this engine fills is 8-byte aligned, whatever its length.
    #[test]
    fn engine_buffers_align_the_body() {
        // (A megabyte takes Miri minutes; scripts/miri.sh runs these.)
        for len in [4usize, 5, 12, 64, 1027, if cfg!(miri) { 4096 } else { 1 << 20 }] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let p = Payload::copy_of(&src);
            assert_eq!(&p[..], &src[..], "len {len}");
            assert_eq!(p[HEADER..].as_ptr() as usize % Payload::BODY_ALIGN, 0, "len {len}");
        }
    }

    /// A filled buffer's payload is what was written, a shorter fill included, and a reused
    /// buffer keeps its place (and the body's alignment).
    #[test]
    fn fill_reuse_and_a_shorter_fill() {
        let mut u = Payload::uninit(16);
        for (i, b) in u.bytes_mut().expect("fresh").iter_mut().enumerate() {
            *b = MaybeUninit::new(i as u8);
        }
        // SAFETY: all 16 bytes were written above.
        let p = unsafe { u.assume_init(16) };
        assert_eq!(&p[..], &(0u8..16).collect::<Vec<_>>()[..]);
        let at = p.as_ptr();
        let held = p.clone();
        let p = match p.reuse() {
            None => held,
            Some(_) => panic!("a shared buffer was handed back for reuse"),
        };
        let mut u = p.reuse().expect("no longer shared");
        assert_eq!(u.len(), 16);
        u.bytes_mut().expect("alone")[..3].copy_from_slice(&[MaybeUninit::new(9); 3]);
        // SAFETY: the first 3 bytes were written above.
        let q = unsafe { u.assume_init(3) };
        assert_eq!(&q[..], &[9, 9, 9]);
        assert_eq!(q.as_ptr(), at, "a reused buffer moved its payload");
    }

    /// A payload made from an `Arc<[u8]>` is all of it, and equality is by content.
    #[test]
    fn from_an_arc_is_the_whole_buffer() {
        let a: Arc<[u8]> = Arc::from(&b"abcdef"[..]);
        let p = Payload::from(Arc::clone(&a));
        assert_eq!(p.as_ptr(), a.as_ptr());
        assert_eq!(p, Payload::copy_of(b"abcdef"));
        assert!(!Payload::ptr_eq(&p, &Payload::copy_of(b"abcdef")));
        assert!(Payload::ptr_eq(&p, &p.clone()));
        assert!(Payload::empty().is_empty());
    }

    /// Empty payloads share one buffer per thread (no allocation each), and one made on another
    /// thread is still empty and equal.
    #[test]
    fn empty_payloads_share_a_buffer() {
        let (a, b) = (Payload::empty(), Payload::empty());
        assert!(Payload::ptr_eq(&a, &b), "each empty payload allocated a buffer of its own");
        assert!(a.is_empty() && a.reuse().is_none(), "a shared empty buffer was handed out for reuse");
        let other = std::thread::spawn(Payload::empty).join().expect("thread");
        assert!(other.is_empty());
        assert_eq!(other, b);
    }
}
