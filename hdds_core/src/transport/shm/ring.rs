//! A writer's ring of samples in shared memory: slot descriptors, a table of reader cursors and a
//! byte arena holding the payloads (variable-size slots, so one segment carries 64 B and 64 MiB
//! samples alike, with no fragmentation and no per-sample segment).
//!
//! Layout (after the segment header): the ring header (head, oldest, the committed arena size, the
//! writer's wait word), `max_readers` reader entries, `slots` descriptors, then the arena.
//!
//! - **Positions.** Every published sample gets the next ring position (0, 1, ...); it lives in
//!   slot `position % slots`. Positions below `head` are published; those below `oldest` are gone.
//!   The descriptor holds the writer's sequence number, timestamps and identities.
//! - **Arena.** Payloads are allocated first-in first-out and their bytes reclaimed the same way
//!   (from the oldest allocation; a loan's bytes are allocated when it is lent and it takes its
//!   position when it is published, so allocation order is position order but for loans), so the
//!   free space is one gap: an allocation goes after the newest payload while the pages
//!   already allocated there hold it, else at offset 0 if it fits before the oldest live payload
//!   (and when nothing is live), else after the newest one. The arena's pages are therefore reused
//!   from the start, and the memory a writer really uses stays near the bytes in flight (plus one
//!   commit step) even though its virtual size is large. Pages are allocated ([`Segment::commit`])
//!   before the writer first touches them.
//! - **Seqlock.** A descriptor's `stamp` is `2p+2` once position `p` is published and `2p+1` while
//!   it is written or once it is freed before every reader read it. A reader copies the descriptor
//!   and the payload, then checks that the stamp did not move (fences on both sides); if it did, the
//!   writer replaced the sample while it was copied, and the copy is thrown away (counted as lost).
//!   A sample every reader has read is freed without a mark while no pin is held (nobody looks at
//!   it: [`RingWriter::free_read_by_all`]); a reader the writer removed meanwhile finds that out
//!   from its entry's generation, which it checks after each copy too. A stamp of an earlier lap
//!   says "not published yet" by itself, unless the writer skipped a position from there on
//!   (`skipped_to`, [`RingView::not_yet`]). Readers never trust a
//!   value of the shared memory: offsets and lengths are checked against the arena first.
//! - **Cursors.** A reader entry holds the reader's GUID and its cursor: the next position it will
//!   read, tagged with the entry's generation in the top 16 bits. The writer fills an entry when it
//!   matches the reader; the reader advances the cursor with compare-and-swap, so once the writer
//!   has freed or reassigned the entry (new generation) the old reader's update fails and it knows
//!   it was detached.
//! - **History.** Before publishing, the writer frees positions every reader has read (a
//!   TRANSIENT_LOCAL late joiner gets the writer's kept history replayed into the ring, directed
//!   to it, when it is matched). If the new sample still does not fit, a
//!   non-blocking ring (KEEP_LAST, or a best-effort writer) frees its oldest sample even if readers
//!   have not read it (they see it lost, as a DDS KEEP_LAST history replaces it); a blocking ring
//!   (reliable KEEP_ALL writer) frees it only once every reliable reader has read it, and otherwise
//!   sleeps on its wait word (a futex) until a reader moves its cursor, up to the deadline.
//! - **Pins (reader loans)**: ring_pin.rs has the protocol.
//!
//! This file holds the layout and the readers' side ([`RingView`]); ring_writer.rs the writer's
//! ([`RingWriter`]).

use crate::payload::Payload;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::futex;
use super::segment::{segment_name, Segment, SegmentKind, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::rtps::SampleIdentity;
use crate::wire::Guid;

#[path = "ring_pin.rs"]
mod pin;
use pin::{Pinned, Read, RingPin};
pub(crate) use pin::{PinnedSample, RingPayload};

#[path = "ring_writer.rs"]
mod writer;
use writer::WriterState;
pub(crate) use writer::{Lent, LentId, RingWriter};

const LINE: usize = 64;
const PAGE: usize = 4096;
/// Payload allocations are rounded to cache lines (a reader's copy starts aligned).
const ALLOC_ALIGN: usize = 64;
/// A lent payload (a loan, or a sample serialized in place) starts this far into its allocation,
/// so that its body, after the 4-byte encapsulation header every serialized payload begins with,
/// starts a cache line. A reader can then use a body whose memory layout is its CDR layout in
/// place, as the struct itself (the RMW's rmw_take_loaned_message does). The header's line is one
/// more than the body's own, at most one more than from an aligned start (a 1 KiB body: 18 lines
/// against 17). Copied payloads stay aligned: they are copied out anyway.
pub(crate) const LENT_LEAD: usize = ALLOC_ALIGN - 4;
/// The arena is committed in steps of at least this much (fewer fallocate calls; a writer of small
/// samples keeps one step).
const COMMIT_STEP: usize = 64 << 10;
/// Pins one reader can hold at once (loans it took and has not returned, samples waiting in its
/// history in place); beyond them, a reader copies.
pub(crate) const LOAN_WORDS: usize = 8;
/// A reader entry: its cursor line, then its pin words.
const ENTRY: usize = 2 * LINE;
const POS_BITS: u32 = 48;
const POS_MASK: u64 = (1 << POS_BITS) - 1;
/// How long a blocked writer sleeps at most between two looks (a reader that went away without a
/// word is removed by discovery, which wakes it too; this only bounds a lost wake-up's cost).
const WRITER_RECHECK: Duration = Duration::from_millis(10);

#[repr(C)]
struct RingHeader {
    slots: AtomicU64,
    max_readers: AtomicU64,
    arena_offset: AtomicU64,
    arena_len: AtomicU64,
    /// Arena bytes allocated so far: readers never look beyond.
    committed: AtomicU64,
    /// Pins being taken or held, by all readers (the writer looks for pins only when non-zero).
    pinned: AtomicU64,
    /// One past the last position the writer skipped (0: none): below it, a slot whose stamp is
    /// of an older lap may hide a skipped position, and only `head` tells ([`RingView::not_yet`]).
    skipped_to: AtomicU64,
    _pad0: u64,
    /// Positions below are published.
    head: AtomicU64,
    _pad1: [u64; 7],
    /// Positions below are gone.
    oldest: AtomicU64,
    _pad2: [u64; 7],
    /// Bumped by readers when the writer waits for room; the writer's futex.
    space: AtomicU32,
    writer_waiting: AtomicU32,
    _pad3: [u64; 7],
}

#[repr(C)]
struct ReaderEntry {
    /// 0 free, 1 in use.
    state: AtomicU32,
    /// Bit 0: reliable reader.
    flags: AtomicU32,
    guid: [AtomicU64; 2],
    /// `generation << 48 | next position to read`.
    cursor: AtomicU64,
    /// The reader's process ([`Owner`]), written by the reader before its first pin.
    pid: AtomicU32,
    _pad32: u32,
    start: AtomicU64,
    pidns: AtomicU64,
    _pad: u64,
    /// Pins: `generation << 48 | position + 1`, 0 when free.
    loans: [AtomicU64; LOAN_WORDS],
}

const FLAG_RELATED: u64 = 1;
const FLAG_DIRECTED: u64 = 2;
const FLAG_KEY_HASH: u64 = 4;

#[repr(C)]
struct SlotDesc {
    stamp: AtomicU64,
    sn: AtomicU64,
    offset: AtomicU64,
    len: AtomicU64,
    source_timestamp: AtomicU64,
    /// FLAG_* bits; status info (keyed topics) in the high 32 bits.
    flags: AtomicU64,
    related_writer: [AtomicU64; 2],
    related_sn: AtomicU64,
    directed_to: [AtomicU64; 2],
    key_hash: [AtomicU64; 2],
    _pad: [u64; 3],
}

const _: () = assert!(std::mem::size_of::<RingHeader>() % LINE == 0);
const _: () = assert!(std::mem::size_of::<ReaderEntry>() == ENTRY);
const _: () = assert!(std::mem::size_of::<SlotDesc>() == 2 * LINE);

/// What travels with a payload through the ring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SampleDesc {
    pub(crate) sn: i64,
    pub(crate) source_timestamp: i64,
    pub(crate) related: Option<SampleIdentity>,
    /// Only this reader takes it; the others skip it.
    pub(crate) directed_to: Option<Guid>,
    pub(crate) key_hash: Option<[u8; 16]>,
    pub(crate) status_info: u32,
}

fn guid_words(g: Guid) -> [u64; 2] {
    let b = g.to_bytes();
    [
        u64::from_ne_bytes(b[..8].try_into().unwrap_or_default()),
        u64::from_ne_bytes(b[8..].try_into().unwrap_or_default()),
    ]
}

fn words_guid(w: [u64; 2]) -> Guid {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&w[0].to_ne_bytes());
    b[8..].copy_from_slice(&w[1].to_ne_bytes());
    Guid::from_bytes(&b)
}

fn bytes_words(b: [u8; 16]) -> [u64; 2] {
    [
        u64::from_ne_bytes(b[..8].try_into().unwrap_or_default()),
        u64::from_ne_bytes(b[8..].try_into().unwrap_or_default()),
    ]
}

fn words_bytes(w: [u64; 2]) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&w[0].to_ne_bytes());
    b[8..].copy_from_slice(&w[1].to_ne_bytes());
    b
}

fn load2(a: &[AtomicU64; 2]) -> [u64; 2] {
    [a[0].load(Ordering::Relaxed), a[1].load(Ordering::Relaxed)]
}

fn store2(a: &[AtomicU64; 2], w: [u64; 2]) {
    a[0].store(w[0], Ordering::Relaxed);
    a[1].store(w[1], Ordering::Relaxed);
}

/// `x` rounded up to a multiple of `a`; `usize::MAX` when that does not fit, a size every caller
/// refuses (larger than any arena), so that a huge length asked for over the C ABI is told, not
/// wrapped around to a small one.
fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a).saturating_mul(a)
}

/// The sizes of a ring, as its creator chose them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RingConfig {
    pub(crate) slots: usize,
    pub(crate) max_readers: usize,
    pub(crate) arena_bytes: usize,
    /// Reliable KEEP_ALL writer: wait for reliable readers instead of replacing unread samples.
    pub(crate) blocking: bool,
}

/// Where each part of a ring segment starts; computed by the creator, checked by readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    slots: usize,
    max_readers: usize,
    readers_at: usize,
    slots_at: usize,
    arena_at: usize,
    arena_len: usize,
}

impl Layout {
    fn new(slots: usize, max_readers: usize, arena_len: usize) -> Option<Layout> {
        let readers_at = HEADER_LEN + std::mem::size_of::<RingHeader>();
        let slots_at = readers_at.checked_add(max_readers.checked_mul(ENTRY)?)?;
        let arena_at = align_up(slots_at.checked_add(slots.checked_mul(2 * LINE)?)?, PAGE);
        arena_at.checked_add(arena_len)?;
        Some(Layout { slots, max_readers, readers_at, slots_at, arena_at, arena_len })
    }

    fn total(&self) -> usize {
        self.arena_at + self.arena_len
    }
}

/// A mapped ring segment, as the writer and as readers see it.
pub(crate) struct RingView {
    seg: Segment,
    layout: Layout,
}

impl RingView {
    fn header(&self) -> &RingHeader {
        // SAFETY: the layout was checked against the segment's length (create/open); the header
        // sits right after the segment header, 64-aligned, and holds atomics only.
        unsafe { &*self.seg.base().add(HEADER_LEN).cast::<RingHeader>() }
    }

    fn entry(&self, i: usize) -> &ReaderEntry {
        debug_assert!(i < self.layout.max_readers);
        // SAFETY: i < max_readers (every caller iterates or checks that range), so the entry lies
        // inside the segment per the checked layout; 64-aligned; atomics only.
        unsafe { &*self.seg.base().add(self.layout.readers_at + i * ENTRY).cast::<ReaderEntry>() }
    }

    fn slot(&self, pos: u64) -> &SlotDesc {
        let i = (pos % self.layout.slots as u64) as usize;
        // SAFETY: i < slots, so the descriptor lies inside the segment per the checked layout;
        // 64-aligned; atomics only.
        unsafe { &*self.seg.base().add(self.layout.slots_at + i * 2 * LINE).cast::<SlotDesc>() }
    }

    fn arena(&self) -> *mut u8 {
        // SAFETY: arena_at <= the segment length per the checked layout.
        unsafe { self.seg.base().add(self.layout.arena_at) }
    }

    pub(crate) fn segment(&self) -> &Segment {
        &self.seg
    }

    /// Attaches to the ring of writer `writer` (another process's, usually).
    pub(crate) fn open(writer: Guid) -> Result<Arc<RingView>> {
        let seg = Segment::open(&segment_name(writer), SegmentKind::Ring)?;
        let bad = || {
            Error::new(
                ErrorKind::Io,
                format!("shared memory: {} has an inconsistent ring layout", seg.path().display()),
            )
        };
        if seg.len() < HEADER_LEN + std::mem::size_of::<RingHeader>() {
            return Err(bad());
        }
        // SAFETY: just checked that the ring header fits; atomics only.
        let h = unsafe { &*seg.base().add(HEADER_LEN).cast::<RingHeader>() };
        let get = |a: &AtomicU64| usize::try_from(a.load(Ordering::Relaxed)).ok();
        let (Some(slots), Some(max_readers), Some(arena_at), Some(arena_len)) =
            (get(&h.slots), get(&h.max_readers), get(&h.arena_offset), get(&h.arena_len))
        else {
            return Err(bad());
        };
        let layout = Layout::new(slots, max_readers, arena_len).ok_or_else(bad)?;
        if slots == 0 || layout.arena_at != arena_at || layout.total() != seg.len() {
            return Err(bad());
        }
        Ok(Arc::new(RingView { seg, layout }))
    }

    /// The entry the writer made for `reader`, if it has matched it yet.
    pub(crate) fn find_reader(&self, reader: Guid) -> Option<ReaderCursor> {
        let want = guid_words(reader);
        for i in 0..self.layout.max_readers {
            let e = self.entry(i);
            if e.state.load(Ordering::Acquire) != 1 || load2(&e.guid) != want {
                continue;
            }
            let c = e.cursor.load(Ordering::Acquire);
            // Still the same entry after reading the cursor: not freed and reassigned meanwhile.
            if e.state.load(Ordering::Acquire) == 1 && load2(&e.guid) == want {
                let head = self.header().head.load(Ordering::Acquire);
                let pos = (c & POS_MASK).min(head);
                return Some(ReaderCursor { index: i, gen: c >> POS_BITS, committed: c & POS_MASK, pos, lost: 0 });
            }
        }
        None
    }

    /// Reads the sample at `cur` (skipping those directed to other readers and those the writer
    /// replaced), advancing the cursor locally; [`RingView::commit`] publishes it.
    pub(crate) fn read_next(&self, cur: &mut ReaderCursor, me: Guid) -> Option<(SampleDesc, Payload)> {
        match self.read_next_racing(cur, me, 0, 0, || {})? {
            (desc, Read::Copied(data)) => Some((desc, data)),
            // Not asked for a pin (pin_words = 0), so never made; were it made, the pinned bytes
            // are stable: copy them, then let the pin go.
            (desc, Read::Pinned(pin)) => {
                // SAFETY: ptr..ptr+len lies in the committed arena (checked before pinning) and no
                // one writes it while the pin is held.
                let data = unsafe { Payload::copy_from_raw(pin.ptr, pin.len) };
                self.unpin(pin.index, pin.word, pin.value);
                Some((desc, data))
            }
        }
    }

    /// [`RingView::read_next`], leaving a payload of at least `pin_from` bytes in place under a pin
    /// ([`RingPin`]) when the reader holds fewer than `max_pins` (at most `LOAN_WORDS`) pins, else
    /// copying it. (Below some size a copy costs less than a pin: no pin word is taken then.)
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn read_next_pinned(
        self: &Arc<Self>,
        cur: &mut ReaderCursor,
        me: Guid,
        max_pins: usize,
        pin_from: usize,
    ) -> Option<(SampleDesc, RingPayload)> {
        let (desc, read) = self.read_next_racing(cur, me, max_pins.min(LOAN_WORDS), pin_from, || {})?;
        Some(match read {
            Read::Copied(data) => (desc, RingPayload::Copied(data)),
            Read::Pinned(pin) => (desc, RingPayload::Pinned(PinnedSample { view: Arc::clone(self), pin })),
        })
    }

    /// Reads the next sample (pinning it if it has at least `pin_from` bytes and one of the first
    /// `pin_words` words is free), calling `during_copy` after the payload is copied and before
    /// the stamp is checked again: tests make the writer replace the sample there.
    fn read_next_racing(
        &self,
        cur: &mut ReaderCursor,
        me: Guid,
        pin_words: usize,
        pin_from: usize,
        mut during_copy: impl FnMut(),
    ) -> Option<(SampleDesc, Read)> {
        let h = self.header();
        loop {
            let pos = cur.pos;
            let slot = self.slot(pos);
            let want = 2 * pos + 2;
            // The stamp says "published and not freed" by itself (the writer stores it after the
            // descriptor, and only then `head`): the usual case needs neither `head` nor `oldest`,
            // lines of their own that the writer would have to hand over too.
            let mut s1 = slot.stamp.load(Ordering::Acquire);
            if s1 != want {
                if self.not_yet(pos, s1) {
                    return None;
                }
                let head = h.head.load(Ordering::Acquire);
                if pos >= head {
                    return None;
                }
                let oldest = h.oldest.load(Ordering::Acquire).min(head);
                if pos < oldest {
                    cur.lost += oldest - pos;
                    cur.pos = oldest;
                    continue;
                }
                s1 = slot.stamp.load(Ordering::Acquire);
            }
            cur.pos += 1;
            if s1 != want {
                // Replaced, or a position the writer skipped (its slot held a pinned sample).
                cur.lost += 1;
                continue;
            }
            let flags = slot.flags.load(Ordering::Relaxed);
            let directed = (flags & FLAG_DIRECTED != 0).then(|| words_guid(load2(&slot.directed_to)));
            if directed.is_some_and(|g| g != me) {
                continue;
            }
            let desc = SampleDesc {
                sn: slot.sn.load(Ordering::Relaxed) as i64,
                source_timestamp: slot.source_timestamp.load(Ordering::Relaxed) as i64,
                related: (flags & FLAG_RELATED != 0).then(|| SampleIdentity {
                    writer: words_guid(load2(&slot.related_writer)),
                    sn: slot.related_sn.load(Ordering::Relaxed) as i64,
                }),
                directed_to: directed,
                key_hash: (flags & FLAG_KEY_HASH != 0).then(|| words_bytes(load2(&slot.key_hash))),
                status_info: (flags >> 32) as u32,
            };
            let offset = slot.offset.load(Ordering::Relaxed);
            let len = slot.len.load(Ordering::Relaxed);
            let committed = h.committed.load(Ordering::Acquire).min(self.layout.arena_len as u64);
            let fits = offset.checked_add(len).is_some_and(|end| end <= committed);
            if !fits {
                cur.lost += 1;
                continue;
            }
            let (offset, len) = (offset as usize, len as usize);
            let src = self.arena().wrapping_add(offset);
            if pin_words > 0 && len >= pin_from {
                match self.pin(cur, pos, pin_words) {
                    Pinned::Yes(word, value) => {
                        // The stamp was still `want` once the pin was visible: the descriptor read
                        // above is this sample's, and the writer leaves its bytes alone from here on.
                        return Some((desc, Read::Pinned(RingPin { word, value, ptr: src, len, index: cur.index })));
                    }
                    Pinned::Gone => {
                        cur.lost += 1;
                        continue;
                    }
                    Pinned::NoWord => {}
                }
            }
            // SAFETY: offset + len <= committed <= arena_len, so every byte read lies inside the
            // mapped arena, which this view keeps mapped. The writer may be rewriting these bytes
            // concurrently (it replaced the sample): copy_from_raw reads them as raw bytes, and the
            // stamp check below detects the rewrite and discards the copy.
            let data = unsafe { Payload::copy_from_raw(src, len) };
            during_copy();
            fence(Ordering::Acquire);
            if slot.stamp.load(Ordering::Relaxed) != s1 {
                cur.lost += 1;
                continue;
            }
            // Still served: the writer frees what its readers have read without marking the slots
            // (RingWriter::free_read_by_all), so the stamp above does not tell a reader it removed
            // that the bytes it copied were reused. Its entry's generation does (a line only this
            // reader and, at a removal, the writer write). Its commit fails next.
            if self.entry(cur.index).cursor.load(Ordering::Relaxed) >> POS_BITS != cur.gen {
                return None;
            }
            return Some((desc, Read::Copied(data)));
        }
    }

    /// How many samples a reader should keep pinned at most: a quarter of the slots (at least one,
    /// at most `LOAN_WORDS`), so that a non-blocking writer always has slots to go around pins.
    pub(crate) fn pin_budget(&self) -> usize {
        (self.layout.slots / 4).clamp(1, LOAN_WORDS)
    }

    /// Whether the sample at the cursor is published: its slot's stamp only, the line a polling
    /// reader watches (a replaced or skipped one is left to [`RingView::has_unread`]).
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn next_published(&self, cur: &ReaderCursor) -> bool {
        self.slot(cur.pos).stamp.load(Ordering::Relaxed) == 2 * cur.pos + 2
    }

    /// Whether samples wait at the cursor (a cheap look, no copy): the slot's stamp when it says
    /// so, `head` otherwise.
    pub(crate) fn has_unread(&self, cur: &ReaderCursor) -> bool {
        let s = self.slot(cur.pos).stamp.load(Ordering::Acquire);
        s == 2 * cur.pos + 2 || (!self.not_yet(cur.pos, s) && cur.pos < self.header().head.load(Ordering::Acquire))
    }

    /// Whether the slot stamp `s` of position `pos` proves that `pos` is not published yet: the
    /// slot was last written on an earlier lap and the writer never skipped a position from `pos`
    /// on (a skipped position leaves its slot as it was). A polling reader finds its next slot
    /// this way, in lines that stay in its cache, instead of reading `head`, a line the writer
    /// writes on every publish: one cache-line hand-over less per sample on a busy reader's path.
    /// A position skipped after this look is found at the next one: the writer rings after it.
    fn not_yet(&self, pos: u64, s: u64) -> bool {
        s < 2 * pos + 1 && self.header().skipped_to.load(Ordering::Acquire) <= pos
    }
}

/// A reader's place in a ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReaderCursor {
    index: usize,
    gen: u64,
    /// What the shared cursor says.
    committed: u64,
    /// Where the reader is (ahead of `committed` until [`RingView::commit`]).
    pos: u64,
    /// Samples the reader missed (replaced before it read them); the caller resets it.
    pub(crate) lost: u64,
}

#[cfg(test)]
#[path = "ring_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "ring_pin_tests.rs"]
mod pin_tests;
