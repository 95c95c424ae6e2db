//! Reader pins on ring samples (reader loans): the protocol, its two sides, and the pinned
//! payload a reader holds.
//!
//! - **Pins (reader loans).** A reader may keep a sample's payload in place instead of copying it
//!   (`RingView::read_next_pinned`): it pins the sample, and while the pin lasts the writer never
//!   frees or rewrites it. The protocol:
//!   - a pin is one word of the reader's entry (`LOAN_WORDS` of them, so at most that many pins
//!     per reader): `generation << 48 | position + 1`, 0 when free. The reader finds a free word
//!     (plain loads), counts itself in the ring header's `pinned` word, takes the word with
//!     compare-and-swap, then (all SeqCst) checks that the slot's stamp is still `2p+2` and its entry's generation is
//!     still its own; if not, it lets the word go and the sample counts as lost (copy readers
//!     would have lost it too). Unpinning clears the word with compare-and-swap, uncounts itself
//!     and wakes a waiting writer.
//!   - to free position `q`, the writer marks its stamp `2q+1` (SeqCst), then looks for a word
//!     holding `q + 1` in every entry (only when `pinned` is not zero: no cost without loans). If
//!     it finds one it puts the stamp back (`2q+2`; the payload was not touched) and keeps the
//!     sample. In the SeqCst order either the reader's pin comes before the writer's look (the
//!     writer sees it and keeps the sample) or the writer's mark comes before the reader's check
//!     (the reader gives up): a pinned payload is never rewritten. A copy reader that sees the
//!     stamp go odd and back reads unchanged bytes, which its seqlock check then accepts.
//!   - a blocking ring (reliable KEEP_ALL) treats a pinned sample as not yet taken: it waits. A
//!     non-blocking ring (KEEP_LAST, best-effort) frees the oldest sample nobody pins instead; when
//!     the descriptor slot of the next position belongs to a pinned sample it skips that position
//!     (`head` moves on with no sample; readers count it lost). The arena stays first-in first-out
//!     around a pinned sample: freed samples after it leave holes that are reused once it goes.
//!   - pins of a dead process: the reader writes its process identity (pid, start time, pid
//!     namespace, as segment owners do) into its entry before its first pin. When a writer cannot
//!     make room because of pins, and when it reuses an entry, it releases the words of entries
//!     whose process is dead. A detached reader's pins (its reader deleted, or unmatched, while
//!     the application still holds loans) stay honoured until it returns them or its process dies.
//!   - a loaned payload is looked at as `&[u8]` in place: sound because the writer's protocol
//!     never writes a pinned payload. The trust boundary is the same as for the whole segment: a
//!     process of the same user that ignores the protocol can change those bytes (it cannot make
//!     the reader read outside the mapping: offsets are checked as for copies).

use crate::payload::Payload;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::super::futex;
use super::super::segment::{Liveness, Owner};
use super::{ReaderCursor, RingView, RingWriter, WriterState, POS_BITS, POS_MASK};

impl RingView {
    /// Pins position `pos` for the reader at `cur` (the protocol is in the module's comment).
    pub(super) fn pin(&self, cur: &ReaderCursor, pos: u64, words: usize) -> Pinned {
        let h = self.header();
        let e = self.entry(cur.index);
        let me = Owner::me();
        if e.pid.load(Ordering::Relaxed) != me.pid || e.start.load(Ordering::Relaxed) != me.start {
            // Published to the writer by the SeqCst compare-and-swap below.
            e.pid.store(me.pid, Ordering::Relaxed);
            e.start.store(me.start, Ordering::Relaxed);
            e.pidns.store(me.pidns, Ordering::Relaxed);
        }
        // Only this reader's drain sets its words (others only clear them): a word seen free is
        // free when taken, unless a dead-pin release raced, which only frees more. Looked for with
        // plain loads, so that a reader out of words pays no locked operation.
        let value = cur.gen << POS_BITS | ((pos + 1) & POS_MASK);
        let Some(mut word) = e.loans[..words].iter().position(|w| w.load(Ordering::Relaxed) == 0) else {
            return Pinned::NoWord;
        };
        // Counted before the word is set: a writer that finds `pinned` at zero has no word to look at.
        h.pinned.fetch_add(1, Ordering::SeqCst);
        while e.loans[word].compare_exchange(0, value, Ordering::SeqCst, Ordering::Relaxed).is_err() {
            match (word + 1..words).find(|&i| e.loans[i].load(Ordering::Relaxed) == 0) {
                Some(next) => word = next,
                None => {
                    h.pinned.fetch_sub(1, Ordering::SeqCst);
                    return Pinned::NoWord;
                }
            }
        }
        // The compare-and-swap and the loads below are SeqCst: no fence needed between them.
        let still = self.slot(pos).stamp.load(Ordering::SeqCst) == 2 * pos + 2;
        let mine = e.cursor.load(Ordering::SeqCst) >> POS_BITS == cur.gen;
        if still && mine {
            return Pinned::Yes(word, value);
        }
        self.unpin(cur.index, word, value);
        Pinned::Gone
    }

    /// Lets go of a pin; wakes the writer if it waits for room.
    pub(super) fn unpin(&self, index: usize, word: usize, value: u64) {
        let h = self.header();
        let w = &self.entry(index).loans[word];
        // Fails only if the writer released the word, taking our process for dead: it uncounted it.
        if w.compare_exchange(value, 0, Ordering::SeqCst, Ordering::Relaxed).is_ok() {
            h.pinned.fetch_sub(1, Ordering::SeqCst);
        }
        if h.writer_waiting.load(Ordering::SeqCst) != 0 {
            h.space.fetch_add(1, Ordering::SeqCst);
            futex::wake(&h.space, u32::MAX);
        }
    }

    /// Publishes the reader's cursor; false when the writer has detached the reader (its entry was
    /// freed or given to another reader).
    pub(crate) fn commit(&self, cur: &mut ReaderCursor) -> bool {
        if cur.pos == cur.committed {
            return true;
        }
        let e = self.entry(cur.index);
        let old = cur.gen << POS_BITS | cur.committed;
        let new = cur.gen << POS_BITS | (cur.pos & POS_MASK);
        if e.cursor.compare_exchange(old, new, Ordering::SeqCst, Ordering::Relaxed).is_err() {
            return false;
        }
        cur.committed = cur.pos;
        let h = self.header();
        if h.writer_waiting.load(Ordering::SeqCst) != 0 {
            h.space.fetch_add(1, Ordering::SeqCst);
            futex::wake(&h.space, u32::MAX);
        }
        true
    }
}

/// What a reader got of a sample's payload.
pub(crate) enum RingPayload {
    Copied(Payload),
    /// In place, pinned.
    Pinned(PinnedSample),
}

pub(super) enum Read {
    Copied(Payload),
    Pinned(RingPin),
}

pub(super) enum Pinned {
    Yes(usize, u64),
    /// The writer freed or replaced the sample, or detached the reader.
    Gone,
    /// The reader holds `LOAN_WORDS` pins already.
    NoWord,
}

/// A reader's pin on one sample of a ring: while it is held the writer neither frees nor rewrites
/// the payload. Given back when its holder, [`PinnedSample`], is dropped.
#[derive(Debug)]
pub(crate) struct RingPin {
    pub(super) index: usize,
    pub(super) word: usize,
    pub(super) value: u64,
    pub(super) ptr: *const u8,
    pub(super) len: usize,
}

/// A pinned payload with the mapping it lies in: its bytes can be borrowed for as long as it lives,
/// from any thread, and dropping it unpins (also after its reader, writer or participant is gone:
/// the mapping lives as long as this holds it).
pub(crate) struct PinnedSample {
    pub(super) view: Arc<RingView>,
    pub(super) pin: RingPin,
}

// SAFETY: the raw pointer points into the mapping `view` keeps alive; the bytes are only read, and
// the writer does not write them while the pin is held (module comment), so sharing and sending
// the borrow across threads is sound. Unpinning is atomic operations on the shared mapping.
unsafe impl Send for PinnedSample {}
// SAFETY: as above: `&PinnedSample` only reads the pinned bytes.
unsafe impl Sync for PinnedSample {}

impl PinnedSample {
    /// The payload, in place in the writer's ring.
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: ptr..ptr+len lies inside the mapped, committed arena (checked by read_next
        // before pinning), the mapping lives as long as `self.view`, and while the pin is held no
        // one writes these bytes (the pin protocol in the module comment).
        unsafe { std::slice::from_raw_parts(self.pin.ptr, self.pin.len) }
    }
}

impl Drop for PinnedSample {
    fn drop(&mut self) {
        self.view.unpin(self.pin.index, self.pin.word, self.pin.value);
    }
}

impl std::fmt::Debug for PinnedSample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedSample").field("len", &self.pin.len).finish()
    }
}

impl RingWriter {
    /// Whether a reader holds a pin on position `pos` (any entry: a detached reader's loans count).
    pub(super) fn is_pinned(&self, pos: u64) -> bool {
        if self.view.header().pinned.load(Ordering::SeqCst) == 0 {
            return false;
        }
        let want = (pos + 1) & POS_MASK;
        (0..self.cfg.max_readers)
            .any(|i| self.view.entry(i).loans.iter().any(|w| w.load(Ordering::SeqCst) & POS_MASK == want))
    }

    /// Releases the pins of entry `i` if the process that holds them is dead; true when the entry
    /// holds no pin (any more).
    pub(super) fn release_pins_if_dead(&self, i: usize) -> bool {
        let e = self.view.entry(i);
        if e.loans.iter().all(|w| w.load(Ordering::SeqCst) == 0) {
            return true;
        }
        let owner = Owner {
            pid: e.pid.load(Ordering::Relaxed),
            start: e.start.load(Ordering::Relaxed),
            pidns: e.pidns.load(Ordering::Relaxed),
        };
        if owner.liveness() != Liveness::Dead {
            return false;
        }
        let h = self.view.header();
        for w in &e.loans {
            let v = w.load(Ordering::SeqCst);
            if v != 0 && w.compare_exchange(v, 0, Ordering::SeqCst, Ordering::Relaxed).is_ok() {
                h.pinned.fetch_sub(1, Ordering::SeqCst);
            }
        }
        true
    }

    /// Releases every pin held by a dead process; true if there was one.
    pub(super) fn release_dead_pins(&self) -> bool {
        if self.view.header().pinned.load(Ordering::SeqCst) == 0 {
            return false;
        }
        let mut any = false;
        for i in 0..self.cfg.max_readers {
            let e = self.view.entry(i);
            let held = e.loans.iter().any(|w| w.load(Ordering::SeqCst) != 0);
            any |= held && self.release_pins_if_dead(i);
        }
        any
    }

    /// The index in `st.live` of the sample whose descriptor slot the next position needs.
    pub(super) fn holder_of_head_slot(&self, st: &WriterState) -> Option<usize> {
        let slots = self.cfg.slots as u64;
        // Usually live positions are consecutive and end at head: only the oldest can collide.
        if st.live.front().map_or(true, |f| f.pos + slots > st.head) {
            return None;
        }
        st.live.iter().position(|l| l.pos % slots == st.head % slots)
    }

    /// The next position's descriptor slot holds a pinned sample: give the position up (readers
    /// find its stamp wrong and count it lost).
    pub(super) fn skip_position(&self, st: &mut WriterState) {
        st.head += 1;
        // Before `head`: a reader that sees the new head sees the skip too (RingView::not_yet).
        self.view.header().skipped_to.store(st.head, Ordering::Release);
        self.view.header().head.store(st.head, Ordering::Release);
    }
}
