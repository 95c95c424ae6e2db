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
//! - **Arena.** Payloads are allocated first-in first-out, in position order, and freed the same
//!   way, so the free space is one gap: an allocation goes after the newest payload while the pages
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

use std::collections::VecDeque;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::futex;
use super::segment::{segment_name, Segment, SegmentKind, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::rtps::SampleIdentity;
use crate::wire::Guid;

#[path = "ring_pin.rs"]
mod pin;
use pin::{Pinned, Read, RingPin};
pub(crate) use pin::{PinnedSample, RingPayload};

const LINE: usize = 64;
const PAGE: usize = 4096;
/// Payload allocations are rounded to cache lines (a reader's copy starts aligned).
const ALLOC_ALIGN: usize = 64;
/// A lent payload (a loan, or a sample serialized in place) starts this far into its allocation,
/// so that its body, after the 4-byte encapsulation header every serialized payload begins with,
/// starts a cache line. A reader can then use a body whose memory layout is its CDR layout in
/// place, as the struct itself (the RMW's rmw_take_loaned_message does), and the payload spans as
/// many lines as from an aligned start. Copied payloads stay aligned: they are copied out anyway.
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

fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a) * a
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
    pub(crate) fn read_next(&self, cur: &mut ReaderCursor, me: Guid) -> Option<(SampleDesc, Arc<[u8]>)> {
        match self.read_next_racing(cur, me, 0, 0, || {})? {
            (desc, Read::Copied(data)) => Some((desc, data)),
            // Not asked for a pin (pin_words = 0), so never made; were it made, the pinned bytes
            // are stable: copy them, then let the pin go.
            (desc, Read::Pinned(pin)) => {
                // SAFETY: ptr..ptr+len lies in the committed arena (checked before pinning) and no
                // one writes it while the pin is held.
                let data = Arc::from(unsafe { std::slice::from_raw_parts(pin.ptr, pin.len) });
                self.unpin(pin.index, pin.word, pin.value);
                Some((desc, data))
            }
        }
    }

    /// [`RingView::read_next`], leaving a payload of at least `pin_from` bytes in place under a pin
    /// ([`RingPin`]) when the reader holds fewer than `max_pins` (at most `LOAN_WORDS`) pins, else
    /// copying it. (Below some size a copy costs less than a pin: no pin word is taken then.)
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
            let data = unsafe { crate::arc_bytes::copy_from_raw(src, len) };
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

/// Arena bytes lent to a writer's caller ([`RingWriter::reserve`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lent {
    pub(crate) ptr: *mut u8,
    pub(crate) len: usize,
}

/// A payload's place in the arena.
#[derive(Debug, Clone, Copy)]
struct Live {
    pos: u64,
    offset: usize,
    len: usize,
}

#[derive(Debug, Clone, Copy)]
struct MatchedReader {
    guid: Guid,
    index: usize,
    reliable: bool,
}

struct WriterState {
    live: VecDeque<Live>,
    /// Arena bytes lent to the writer's caller ([`RingWriter::reserve`]): the newest allocation,
    /// not published yet (no position).
    lent: Option<Live>,
    head: u64,
    committed: usize,
    readers: Vec<MatchedReader>,
    /// Per entry, the generation it was last given.
    gens: Vec<u64>,
}

/// The writer's side of its ring: it alone publishes, frees and matches.
pub(crate) struct RingWriter {
    view: Arc<RingView>,
    cfg: RingConfig,
    st: Mutex<WriterState>,
    /// `st.readers.len()`, kept under the lock: every write asks, and needs no lock for it.
    readers: AtomicUsize,
}

/// Why a sample cannot be placed now.
enum Room {
    Ok(usize),
    Wait,
    /// Non-blocking ring whose samples are all pinned and the next does not fit around them: the
    /// sample is dropped for this ring's readers (its position skipped, so they count it lost).
    Skip,
}

impl RingWriter {
    /// Creates the ring of writer `writer`.
    pub(crate) fn create(writer: Guid, cfg: RingConfig) -> Result<RingWriter> {
        if cfg.slots == 0 || cfg.max_readers == 0 || cfg.arena_bytes == 0 {
            return Err(Error::bad_argument("shared memory: slots, max_readers and arena_bytes must be at least 1"));
        }
        let arena = align_up(cfg.arena_bytes, PAGE);
        let layout = Layout::new(cfg.slots, cfg.max_readers, arena)
            .ok_or_else(|| Error::bad_argument("shared memory: the ring's sizes overflow"))?;
        let seg = Segment::create(&segment_name(writer), SegmentKind::Ring, layout.total(), layout.arena_at)?;
        let view = RingView { seg, layout };
        let h = view.header();
        h.slots.store(cfg.slots as u64, Ordering::Relaxed);
        h.max_readers.store(cfg.max_readers as u64, Ordering::Relaxed);
        h.arena_offset.store(layout.arena_at as u64, Ordering::Relaxed);
        h.arena_len.store(arena as u64, Ordering::Relaxed);
        // Readers learn of the segment through discovery, after this returns: the release of the
        // discovery locks publishes these stores.
        fence(Ordering::Release);
        let st = WriterState {
            live: VecDeque::new(),
            lent: None,
            head: 0,
            committed: 0,
            readers: Vec::new(),
            gens: vec![0; cfg.max_readers],
        };
        Ok(RingWriter { view: Arc::new(view), cfg, st: Mutex::new(st), readers: AtomicUsize::new(0) })
    }

    fn lock(&self) -> MutexGuard<'_, WriterState> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts serving `reader` from the next sample on. Fails when the reader table is full.
    pub(crate) fn add_reader(&self, reader: Guid, reliable: bool) -> Result<()> {
        let mut st = self.lock();
        if st.readers.iter().any(|r| r.guid == reader) {
            return Ok(());
        }
        // An entry whose pins a live process still holds (loans of a reader that went) is not
        // given to another reader until they are returned.
        let Some(index) = (0..self.cfg.max_readers)
            .find(|i| !st.readers.iter().any(|r| r.index == *i) && self.release_pins_if_dead(*i))
        else {
            return Err(Error::new(
                ErrorKind::OutOfResources,
                format!(
                    "shared memory: the writer already serves {} readers on this host, the most its ring takes \
                     (SharedMemoryConfig::max_readers)",
                    self.cfg.max_readers
                ),
            ));
        };
        let gen = (st.gens[index] + 1) & 0xffff;
        st.gens[index] = gen;
        let start = st.head;
        let e = self.view.entry(index);
        store2(&e.guid, guid_words(reader));
        e.flags.store(u32::from(reliable), Ordering::Relaxed);
        e.cursor.store(gen << POS_BITS | start, Ordering::Relaxed);
        e.state.store(1, Ordering::Release);
        st.readers.push(MatchedReader { guid: reader, index, reliable });
        self.readers.store(st.readers.len(), Ordering::Relaxed);
        Ok(())
    }

    /// Stops serving `reader`; wakes a write waiting for it. False if it was not served.
    pub(crate) fn remove_reader(&self, reader: Guid) -> bool {
        let mut st = self.lock();
        let Some(i) = st.readers.iter().position(|r| r.guid == reader) else { return false };
        let r = st.readers.swap_remove(i);
        self.readers.store(st.readers.len(), Ordering::Relaxed);
        let gen = (st.gens[r.index] + 1) & 0xffff;
        st.gens[r.index] = gen;
        let e = self.view.entry(r.index);
        e.state.store(0, Ordering::Release);
        // A new generation: the reader's next cursor update fails, so it knows it was detached.
        e.cursor.store(gen << POS_BITS, Ordering::SeqCst);
        drop(st);
        let h = self.view.header();
        h.space.fetch_add(1, Ordering::SeqCst);
        futex::wake(&h.space, u32::MAX);
        true
    }

    pub(crate) fn reader_count(&self) -> usize {
        // Relaxed: a match racing with a write may or may not get that sample, as with the lock.
        self.readers.load(Ordering::Relaxed)
    }

    pub(crate) fn has_reader(&self, reader: Guid) -> bool {
        self.lock().readers.iter().any(|r| r.guid == reader)
    }

    /// Whether every reliable reader has read everything published.
    pub(crate) fn all_read(&self) -> bool {
        let st = self.lock();
        self.min_cursor(&st, true) >= st.head
    }

    /// The lowest cursor of the readers (reliable ones only, or all), clamped to what exists.
    fn min_cursor(&self, st: &WriterState, reliable_only: bool) -> u64 {
        let oldest = st.live.front().map_or(st.head, |l| l.pos);
        st.readers
            .iter()
            .filter(|r| r.reliable || !reliable_only)
            .map(|r| (self.view.entry(r.index).cursor.load(Ordering::SeqCst) & POS_MASK).clamp(oldest, st.head))
            .min()
            .unwrap_or(st.head)
    }

    /// Frees the live sample at index `i` of `st.live` unless a reader pinned it; true if freed.
    fn try_free(&self, st: &mut WriterState, i: usize) -> bool {
        let Some(l) = st.live.get(i).copied() else { return false };
        // A sample already pinned stays as it is, its stamp untouched: marking it freed even for a
        // moment makes a reader looking at it then count it lost and skip it.
        if self.is_pinned(l.pos) {
            return false;
        }
        let stamp = &self.view.slot(l.pos).stamp;
        // SeqCst store, then is_pinned's SeqCst loads: the pair the pin protocol needs (a fence
        // besides would be a second full barrier for nothing).
        stamp.store(2 * l.pos + 1, Ordering::SeqCst);
        if self.is_pinned(l.pos) {
            // Nothing was written: the sample is as it was (module comment, pins).
            stamp.store(2 * l.pos + 2, Ordering::SeqCst);
            return false;
        }
        // The payload's bytes may be rewritten from here on: a reader copying them must see the
        // stamp change (its acquire fence pairs with this one).
        fence(Ordering::Release);
        st.live.remove(i);
        let oldest = st.live.front().map_or(st.head, |l| l.pos);
        self.view.header().oldest.store(oldest, Ordering::Release);
        true
    }

    /// Frees the live samples below `read_by_all`, which every reader has read. While no pin is
    /// held or being taken, no reader looks at them any more: each publishes its cursor only after
    /// its copies, and pins only at its cursor (a reader removed since looks at its generation
    /// after each copy, and a pin checks it too). Their slots then keep their stamps (the marking
    /// store of [`RingWriter::try_free`] is a SeqCst store into a line the reader holds, a
    /// hand-over each: 16 of them at every lazy free, `lazy_free_below`) and only `oldest` moves.
    /// A slot's old stamp still reads "not yet" for its next lap ([`RingView::not_yet`]).
    fn free_read_by_all(&self, st: &mut WriterState, read_by_all: u64) {
        let h = self.view.header();
        if h.pinned.load(Ordering::SeqCst) == 0 {
            let n = st.live.iter().take_while(|l| l.pos < read_by_all).count();
            if n > 0 {
                st.live.drain(..n);
                h.oldest.store(st.live.front().map_or(st.head, |l| l.pos), Ordering::Release);
                // A reader removed since (not counted in `read_by_all`) may still copy these bytes:
                // the generation its removal stored is ordered before their reuse, and it looks at
                // it after its copy (RingView::read_next_racing).
                fence(Ordering::Release);
            }
            return;
        }
        while st.live.front().is_some_and(|l| l.pos < read_by_all) {
            if !self.try_free(st, 0) {
                break;
            }
        }
    }

    /// Where a payload of `size` bytes (rounded) fits in the arena now, if anywhere.
    fn place(&self, st: &WriterState, size: usize) -> Option<usize> {
        let arena = self.view.layout.arena_len;
        let (Some(front), Some(back)) = (st.live.front().or(st.lent.as_ref()), st.lent.as_ref().or(st.live.back()))
        else {
            return (size <= arena).then_some(0);
        };
        let head = back.offset + back.len;
        if back.offset >= front.offset {
            // Not wrapped: after the newest sample while the pages are there already; else back at
            // the start if it fits, so that the first pages are reused before more are committed.
            // (Wrapping whenever the start had room left a gap of one sample there: two small
            // samples live, one each side, made a 64-slot ring full.)
            if head + size <= st.committed {
                Some(head)
            } else if front.offset >= size {
                Some(0)
            } else if head + size <= arena {
                Some(head)
            } else {
                None
            }
        } else if head + size <= front.offset {
            Some(head)
        } else {
            None
        }
    }

    /// Why a payload of `len` bytes cannot be written now whatever is freed (a loan outstanding,
    /// larger than the arena), or its rounded size.
    fn refusal(&self, st: &WriterState, len: usize) -> Result<usize> {
        if st.lent.is_some() {
            return Err(Error::bad_argument(
                "a loaned sample of this writer is outstanding: publish it or drop it before writing again",
            ));
        }
        let size = align_up(len.max(1), ALLOC_ALIGN);
        if size > self.view.layout.arena_len {
            return Err(Error::new(
                ErrorKind::OutOfResources,
                format!(
                    "shared memory: a sample of {len} bytes does not fit the writer's arena of {} bytes; raise \
                     SharedMemoryConfig::arena_bytes",
                    self.view.layout.arena_len
                ),
            ));
        }
        Ok(size)
    }

    /// Makes room for a payload of `len` bytes, freeing what may be freed; `Wait` when only a
    /// blocking ring's reliable readers stand in the way.
    fn room(&self, st: &mut WriterState, len: usize) -> Result<Room> {
        let size = self.refusal(st, len)?;
        // Freeing looks at every reader's cursor, a line that reader writes, and marks each freed
        // slot with a SeqCst store: done per publish, a ping-pong moved three lines between the
        // processes for it on every sample. While few samples are live and the next one fits the
        // pages already committed, it goes in without freeing: the cursors are read once per
        // `lazy_free_below` samples, and the ring's memory stays as it was.
        if let Some(at) = self.room_without_freeing(st, size) {
            return Ok(Room::Ok(at));
        }
        let read_by_all = self.min_cursor(st, false);
        self.free_read_by_all(st, read_by_all);
        let mut dead_released = false;
        loop {
            let holder = self.holder_of_head_slot(st);
            if holder.is_none() && st.live.len() < self.cfg.slots {
                if let Some(at) = self.place(st, size) {
                    return Ok(Room::Ok(at));
                }
            }
            let Some(front) = st.live.front().copied() else {
                // Empty and still no room: cannot happen (size <= arena), but never loop on it.
                return Err(Error::new(ErrorKind::OutOfResources, "shared memory: the arena has no room"));
            };
            if self.cfg.blocking {
                if front.pos >= self.min_cursor(st, true) {
                    return Ok(Room::Wait);
                }
                if self.try_free(st, 0) {
                    continue;
                }
                // A pinned (loaned) sample counts as not yet taken.
                if !dead_released && self.release_dead_pins() {
                    dead_released = true;
                    continue;
                }
                return Ok(Room::Wait);
            }
            // Non-blocking: replace the oldest sample nobody pins.
            if let Some(i) = holder {
                if self.try_free(st, i) {
                    continue;
                }
                if st.live.len() < self.cfg.slots {
                    // A slot no sample holds lies within the next `slots` positions.
                    self.skip_position(st);
                    continue;
                }
            }
            if (0..st.live.len()).any(|i| self.try_free(st, i)) {
                continue;
            }
            if !dead_released && self.release_dead_pins() {
                dead_released = true;
                continue;
            }
            // As a KEEP_LAST history replaces a sample, this one is lost to the readers hoarding
            // loans; the writer never blocks.
            self.skip_position(st);
            return Ok(Room::Skip);
        }
    }

    /// Below this many live samples a publish frees nothing if it fits as it is ([`RingWriter::room`]):
    /// a quarter of the slots, at most 16, so that most of the ring stays free for readers that
    /// fall behind.
    fn lazy_free_below(&self) -> usize {
        (self.cfg.slots / 4).min(16)
    }

    /// Where a payload of `size` (rounded) bytes goes with nothing freed, while fewer than
    /// `lazy_free_below` samples are live, if it fits in a free slot and in the arena's committed
    /// pages.
    fn room_without_freeing(&self, st: &WriterState, size: usize) -> Option<usize> {
        // lazy_free_below() <= slots / 4: the slot count itself never stands in the way here.
        if st.live.len() >= self.lazy_free_below() || self.holder_of_head_slot(st).is_some() {
            return None;
        }
        self.place(st, size).filter(|at| at + size <= st.committed)
    }

    /// Waits until a payload of `len` bytes fits (only a blocking ring ever waits), at most until
    /// `deadline`; fails with [`ErrorKind::Timeout`] then.
    pub(crate) fn wait_room(&self, len: usize, deadline: Option<Instant>) -> Result<()> {
        if !self.cfg.blocking {
            // Never waits: its publish makes the room. Only refusals are told here, before the
            // writer numbers the sample.
            return self.refusal(&self.lock(), len).map(drop);
        }
        self.room_locked(len, deadline).map(drop)
    }

    /// [`RingWriter::wait_room`], returning where the sample goes (`None`: dropped, [`Room::Skip`]).
    fn room_locked(
        &self,
        len: usize,
        deadline: Option<Instant>,
    ) -> Result<(MutexGuard<'_, WriterState>, Option<usize>)> {
        let h = self.view.header();
        loop {
            let mut st = self.lock();
            match self.room(&mut st, len)? {
                Room::Ok(at) => return Ok((st, Some(at))),
                Room::Skip => return Ok((st, None)),
                Room::Wait => {}
            }
            // Announce the wait, then look again: a reader that moved its cursor before seeing the
            // announcement is seen by this second look (both sides SeqCst; ReaderCursor::commit).
            h.writer_waiting.fetch_add(1, Ordering::SeqCst);
            let seen = h.space.load(Ordering::SeqCst);
            let room = self.room(&mut st, len);
            if !matches!(room, Ok(Room::Wait)) {
                h.writer_waiting.fetch_sub(1, Ordering::SeqCst);
                match room? {
                    Room::Ok(at) => return Ok((st, Some(at))),
                    Room::Skip => return Ok((st, None)),
                    Room::Wait => continue,
                }
            }
            drop(st);
            let now = Instant::now();
            let left = match deadline {
                Some(d) if now >= d => {
                    h.writer_waiting.fetch_sub(1, Ordering::SeqCst);
                    return Err(Error::new(
                        ErrorKind::Timeout,
                        format!(
                            "write blocked for max_blocking_time: the shared-memory ring is full of samples a \
                             reliable reader on this host has not taken yet ({} slots, {} arena bytes)",
                            self.cfg.slots, self.view.layout.arena_len
                        ),
                    ));
                }
                Some(d) => d - now,
                None => WRITER_RECHECK,
            };
            futex::wait(&h.space, seen, Some(left.min(WRITER_RECHECK)));
            h.writer_waiting.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Publishes one sample (waiting for room as [`RingWriter::wait_room`] does); returns its ring
    /// position.
    pub(crate) fn publish(&self, desc: &SampleDesc, payload: &[u8], deadline: Option<Instant>) -> Result<u64> {
        let (mut st, at) = self.room_locked(payload.len(), deadline)?;
        let Some(at) = at else { return Ok(st.head - 1) };
        let size = align_up(payload.len().max(1), ALLOC_ALIGN);
        self.commit_to(&mut st, at + size)?;
        // SAFETY: at + len <= at + size <= committed <= arena_len: inside the mapped, allocated
        // arena. No live sample owns these bytes (room() placed them in the free gap); readers
        // may still be copying a freed sample that lay here, which their stamp check (or, for a
        // removed reader, its generation check) discards.
        unsafe { std::ptr::copy_nonoverlapping(payload.as_ptr(), self.view.arena().add(at), payload.len()) };
        Ok(self.stamp(&mut st, desc, Live { pos: 0, offset: at, len: size }, 0, payload.len()))
    }

    /// Allocates the arena's pages up to `end` (arena offset) if they are not yet.
    fn commit_to(&self, st: &mut WriterState, end: usize) -> Result<()> {
        if end > st.committed {
            let want = align_up(end, COMMIT_STEP).min(self.view.layout.arena_len);
            let from = st.committed;
            self.view.seg.commit(self.view.layout.arena_at + from, want - from)?;
            st.committed = want;
            self.view.header().committed.store(want as u64, Ordering::Release);
        }
        Ok(())
    }

    /// Lends `len` arena bytes for the caller to fill in place (a loaned sample), waiting for room
    /// as [`RingWriter::publish`] does; they start [`LENT_LEAD`] bytes into their allocation. One
    /// loan at a time per writer; no other sample is published until it is published
    /// ([`RingWriter::publish_lent`]) or given back ([`RingWriter::give_back`]).
    /// `None` when the ring's samples are all pinned and the sample would be dropped
    /// ([`Room::Skip`]): the caller fills a buffer of its own, whose publication is dropped too.
    pub(crate) fn reserve(&self, len: usize, deadline: Option<Instant>) -> Result<Option<Lent>> {
        let alloc = len.checked_add(LENT_LEAD).ok_or_else(|| Error::bad_argument("a loan of usize::MAX bytes"))?;
        let (mut st, at) = self.room_locked(alloc, deadline)?;
        let Some(at) = at else { return Ok(None) };
        let size = align_up(alloc, ALLOC_ALIGN);
        self.commit_to(&mut st, at + size)?;
        st.lent = Some(Live { pos: 0, offset: at, len: size });
        // SAFETY: at + LENT_LEAD + len <= at + size <= committed <= arena_len (just committed):
        // inside the mapped arena.
        let ptr = unsafe { self.view.arena().add(at + LENT_LEAD) };
        Ok(Some(Lent { ptr, len }))
    }

    /// Publishes the first `len` lent bytes as the next sample.
    pub(crate) fn publish_lent(&self, desc: &SampleDesc, len: usize) -> u64 {
        let mut st = self.lock();
        let Some(l) = st.lent.take() else { return st.head };
        self.stamp(&mut st, desc, l, LENT_LEAD, len)
    }

    /// The caller dropped its loan unpublished: the bytes are free again.
    pub(crate) fn give_back(&self) {
        self.lock().lent = None;
    }

    /// Writes the descriptor of the next position for the payload of `len` bytes that starts `lead`
    /// bytes into the allocation `l` (already in the arena), and publishes it.
    fn stamp(&self, st: &mut WriterState, desc: &SampleDesc, l: Live, lead: usize, len: usize) -> u64 {
        let pos = st.head;
        let slot = self.view.slot(pos);
        slot.stamp.store(2 * pos + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        let mut flags = u64::from(desc.status_info) << 32;
        if let Some(r) = desc.related {
            flags |= FLAG_RELATED;
            store2(&slot.related_writer, guid_words(r.writer));
            slot.related_sn.store(r.sn as u64, Ordering::Relaxed);
        }
        if let Some(g) = desc.directed_to {
            flags |= FLAG_DIRECTED;
            store2(&slot.directed_to, guid_words(g));
        }
        if let Some(k) = desc.key_hash {
            flags |= FLAG_KEY_HASH;
            store2(&slot.key_hash, bytes_words(k));
        }
        slot.flags.store(flags, Ordering::Relaxed);
        slot.sn.store(desc.sn as u64, Ordering::Relaxed);
        slot.source_timestamp.store(desc.source_timestamp as u64, Ordering::Relaxed);
        slot.offset.store((l.offset + lead) as u64, Ordering::Relaxed);
        slot.len.store(len.min(l.len - lead) as u64, Ordering::Relaxed);
        slot.stamp.store(2 * pos + 2, Ordering::Release);
        st.live.push_back(Live { pos, ..l });
        st.head = pos + 1;
        self.view.header().head.store(pos + 1, Ordering::Release);
        pos
    }

    /// The writer is deleted: remove the file (attached readers keep their mappings until
    /// discovery tells them the writer is gone).
    pub(crate) fn close(&self) {
        self.view.seg.unlink();
    }

    /// The arena bytes allocated so far (what the writer really uses of /dev/shm, besides the
    /// descriptors).
    #[cfg(test)]
    fn committed(&self) -> usize {
        self.lock().committed
    }
}

#[cfg(test)]
#[path = "ring_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "ring_pin_tests.rs"]
mod pin_tests;
