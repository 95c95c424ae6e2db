//! The writer's side of a ring (ring.rs has the layout and the protocol): it alone places,
//! publishes and frees payloads, lends a slot for a sample filled in place, and matches readers.
//! Thread-safe: one mutex ([`WriterState`]) serializes the writer's own threads; readers in other
//! processes see only what it stores into the shared memory.

use std::collections::VecDeque;
use std::sync::atomic::{fence, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::*;

/// Arena bytes lent to a writer's caller ([`RingWriter::reserve`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lent {
    pub(crate) ptr: *mut u8,
    pub(crate) len: usize,
    /// Names the loan to [`RingWriter::publish_lent`] and [`RingWriter::give_back`].
    pub(crate) id: LentId,
}

/// Which of a writer's outstanding loans: its allocation's arena offset, and a serial number that
/// no other loan of the writer had (a later loan may lie at the same offset: an id kept after its
/// loan was published or given back must not name that one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LentId {
    offset: usize,
    serial: u64,
}

/// An arena allocation: a live sample's or a loan's, or one freed but not yet reclaimed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Alloc {
    offset: usize,
    len: usize,
    use_: Use,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    Sample,
    /// A loan out, with its [`LentId`]'s serial number.
    Lent(u64),
    Freed,
}

/// A payload's place in the arena.
#[derive(Debug, Clone, Copy)]
pub(super) struct Live {
    pub(super) pos: u64,
    offset: usize,
    len: usize,
}

#[derive(Debug, Clone, Copy)]
struct MatchedReader {
    guid: Guid,
    index: usize,
    reliable: bool,
}

pub(super) struct WriterState {
    /// The published samples not freed yet, in position order.
    pub(super) live: VecDeque<Live>,
    /// Every arena allocation in the order it was made (the arena's order): the live samples' and
    /// the loans' (not published yet, no position). Loans make it differ from `live`'s order: a
    /// sample published while a loan is out lies after the loan's bytes, and the loan, published
    /// later, takes a later position. Space is reclaimed from the oldest allocation only, so the
    /// free space stays one gap ([`RingWriter::place`]); one freed out of turn waits for the older
    /// ones (the newest ones' are reused at once).
    pub(super) allocs: VecDeque<Alloc>,
    pub(super) head: u64,
    committed: usize,
    readers: Vec<MatchedReader>,
    /// Per entry, the generation it was last given.
    gens: Vec<u64>,
    /// The serial number of the next loan.
    next_loan: u64,
}

/// The writer's side of its ring: it alone publishes, frees and matches.
pub(crate) struct RingWriter {
    pub(super) view: Arc<RingView>,
    pub(super) cfg: RingConfig,
    st: Mutex<WriterState>,
    /// `st.readers.len()`, kept under the lock: every write asks, and needs no lock for it.
    readers: AtomicUsize,
}

/// What a publish, or a loan, needs room for.
#[derive(Clone, Copy)]
enum Need {
    /// A payload of this many bytes, and a slot.
    Bytes(usize),
    /// A loan's bytes only: it takes a slot when it is published ([`Need::Slot`]). A loan that
    /// finds no room skips no position (there is no sample yet to count lost): the caller fills a
    /// buffer of its own, whose write decides.
    Arena(usize),
    /// A slot only: a loan's payload is in the arena already.
    Slot,
}

impl Need {
    fn slot(self) -> bool {
        !matches!(self, Need::Arena(_))
    }
}

/// Why a sample cannot be placed now.
enum Room {
    /// There is room; where the payload goes in the arena (0 when only a slot was needed).
    Ok(usize),
    Wait,
    /// Non-blocking ring whose samples are all pinned and the next does not fit around them: the
    /// sample is dropped for this ring's readers (its position skipped, so they count it lost; a
    /// loan is not lent, and skips nothing).
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
            allocs: VecDeque::new(),
            head: 0,
            committed: 0,
            readers: Vec::new(),
            gens: vec![0; cfg.max_readers],
            next_loan: 0,
        };
        Ok(RingWriter { view: Arc::new(view), cfg, st: Mutex::new(st), readers: AtomicUsize::new(0) })
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, WriterState> {
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
        st.release(l.offset);
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
                for l in st.live.drain(..n) {
                    mark_freed(&mut st.allocs, l.offset);
                }
                st.reclaim();
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
        let (Some(front), Some(back)) = (st.allocs.front(), st.allocs.back()) else {
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

    /// Why a payload of `len` bytes cannot be written whatever is freed (larger than the arena),
    /// or its rounded size.
    fn refusal(&self, len: usize) -> Result<usize> {
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

    /// Makes room for what a publish needs, freeing what may be freed; `Wait` when only a
    /// blocking ring's reliable readers stand in the way.
    #[link_section = ".text.hot.hdds"]
    fn room(&self, st: &mut WriterState, need: Need) -> Result<Room> {
        let size = match need {
            Need::Bytes(len) | Need::Arena(len) => Some(self.refusal(len)?),
            Need::Slot => None,
        };
        // Freeing looks at every reader's cursor, a line that reader writes, and marks each freed
        // slot with a SeqCst store: done per publish, a ping-pong moved three lines between the
        // processes for it on every sample. While few samples are live and the next one fits the
        // pages already committed, it goes in without freeing: the cursors are read once per
        // `lazy_free_below` samples, and the ring's memory stays as it was.
        if let Some(at) = self.room_without_freeing(st, size, need.slot()) {
            return Ok(Room::Ok(at));
        }
        let read_by_all = self.min_cursor(st, false);
        self.free_read_by_all(st, read_by_all);
        let mut dead_released = false;
        loop {
            let holder = if need.slot() { self.holder_of_head_slot(st) } else { None };
            if holder.is_none() && (!need.slot() || st.live.len() < self.cfg.slots) {
                match size.map(|size| self.place(st, size)) {
                    None => return Ok(Room::Ok(0)),
                    Some(Some(at)) => return Ok(Room::Ok(at)),
                    Some(None) => {}
                }
            }
            let Some(front) = st.live.front().copied() else {
                if st.allocs.is_empty() {
                    // Empty and still no room: cannot happen (size <= arena), but never loop on it.
                    return Err(Error::new(ErrorKind::OutOfResources, "shared memory: the arena has no room"));
                }
                // The caller's own loans hold the room: only publishing or returning them frees
                // it. A blocking ring waits for that (up to its deadline, as for a reader); the
                // others drop this sample for their same-host readers, as for pinned samples.
                if self.cfg.blocking {
                    return Ok(Room::Wait);
                }
                if need.slot() {
                    self.skip_position(st);
                }
                return Ok(Room::Skip);
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
            if need.slot() {
                self.skip_position(st);
            }
            return Ok(Room::Skip);
        }
    }

    /// Below this many live samples a publish frees nothing if it fits as it is ([`RingWriter::room`]):
    /// a quarter of the slots, at most 16, so that most of the ring stays free for readers that
    /// fall behind.
    fn lazy_free_below(&self) -> usize {
        (self.cfg.slots / 4).min(16)
    }

    /// Where a payload of `size` (rounded) bytes goes with nothing freed (`None`: a slot alone,
    /// which goes at 0), while fewer than `lazy_free_below` samples are live, if it fits in a free
    /// slot (when it needs one, `slot`) and in the arena's committed pages.
    fn room_without_freeing(&self, st: &WriterState, size: Option<usize>, slot: bool) -> Option<usize> {
        // lazy_free_below() <= slots / 4: the slot count itself never stands in the way here.
        if st.live.len() >= self.lazy_free_below() || (slot && self.holder_of_head_slot(st).is_some()) {
            return None;
        }
        let Some(size) = size else { return Some(0) };
        self.place(st, size).filter(|at| at + size <= st.committed)
    }

    /// Waits until a payload of `len` bytes fits (only a blocking ring ever waits), at most until
    /// `deadline`; fails with [`ErrorKind::Timeout`] then.
    pub(crate) fn wait_room(&self, len: usize, deadline: Option<Instant>) -> Result<()> {
        if !self.cfg.blocking {
            // Never waits: its publish makes the room. Only refusals are told here, before the
            // writer numbers the sample.
            return self.refusal(len).map(drop);
        }
        self.room_locked(Need::Bytes(len), deadline).map(drop)
    }

    /// [`RingWriter::wait_room`] for a loan's publish, which needs a slot only.
    pub(crate) fn wait_slot(&self, deadline: Option<Instant>) -> Result<()> {
        if !self.cfg.blocking {
            return Ok(());
        }
        self.room_locked(Need::Slot, deadline).map(drop)
    }

    /// Waits for what `need`s room as [`RingWriter::wait_room`] does, returning where the payload
    /// goes (`None`: dropped, [`Room::Skip`]).
    #[link_section = ".text.hot.hdds"]
    fn room_locked(
        &self,
        need: Need,
        deadline: Option<Instant>,
    ) -> Result<(MutexGuard<'_, WriterState>, Option<usize>)> {
        let h = self.view.header();
        loop {
            let mut st = self.lock();
            match self.room(&mut st, need)? {
                Room::Ok(at) => return Ok((st, Some(at))),
                Room::Skip => return Ok((st, None)),
                Room::Wait => {}
            }
            // Announce the wait, then look again: a reader that moved its cursor before seeing the
            // announcement is seen by this second look (both sides SeqCst; ReaderCursor::commit).
            h.writer_waiting.fetch_add(1, Ordering::SeqCst);
            let seen = h.space.load(Ordering::SeqCst);
            let room = self.room(&mut st, need);
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
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn publish(&self, desc: &SampleDesc, payload: &[u8], deadline: Option<Instant>) -> Result<u64> {
        let (mut st, at) = self.room_locked(Need::Bytes(payload.len()), deadline)?;
        let Some(at) = at else { return Ok(st.head - 1) };
        let size = align_up(payload.len().max(1), ALLOC_ALIGN);
        self.commit_to(&mut st, at + size)?;
        st.allocs.push_back(Alloc { offset: at, len: size, use_: Use::Sample });
        // SAFETY: at + len <= at + size <= committed <= arena_len: inside the mapped, allocated
        // arena. No live sample owns these bytes (room() placed them in the free gap); readers
        // may still be copying a freed sample that lay here, which their stamp check (or, for a
        // removed reader, its generation check) discards.
        unsafe { crate::stream_copy::copy_to_reader(self.view.arena().add(at), payload.as_ptr(), payload.len()) };
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
    /// in the arena as [`RingWriter::publish`] does (a loan needs no slot before it is published);
    /// they start [`LENT_LEAD`] bytes into their allocation. Several loans may be out at once, and
    /// samples published meanwhile: each loan takes its position when it is published
    /// ([`RingWriter::publish_lent`]) and frees its bytes when given back
    /// ([`RingWriter::give_back`]). Until then, its bytes hold up the reuse of the arena beyond
    /// them (`allocs`), so loans should not be kept long. `None`, with no position skipped, when
    /// pinned samples leave no room ([`Room::Skip`]): the caller fills a buffer of its own, and its
    /// write decides the sample's fate.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn reserve(&self, len: usize, deadline: Option<Instant>) -> Result<Option<Lent>> {
        let alloc = len.checked_add(LENT_LEAD).ok_or_else(|| Error::bad_argument("a loan of usize::MAX bytes"))?;
        let (mut st, at) = self.room_locked(Need::Arena(alloc), deadline)?;
        let Some(at) = at else { return Ok(None) };
        let size = align_up(alloc, ALLOC_ALIGN);
        self.commit_to(&mut st, at + size)?;
        let serial = st.next_loan;
        st.next_loan += 1;
        st.allocs.push_back(Alloc { offset: at, len: size, use_: Use::Lent(serial) });
        // SAFETY: at + LENT_LEAD + len <= at + size <= committed <= arena_len (just committed):
        // inside the mapped arena.
        let ptr = unsafe { self.view.arena().add(at + LENT_LEAD) };
        Ok(Some(Lent { ptr, len, id: LentId { offset: at, serial } }))
    }

    /// Publishes the first `len` bytes of loan `id` as the next sample, once a slot is free: a
    /// blocking ring waits for one (while its reliable readers hold them all) up to `deadline`,
    /// then fails with [`ErrorKind::Timeout`] and the loan stays out; the others free the oldest
    /// sample nobody pins, or drop this one for their readers as [`RingWriter::publish`] does (the
    /// loan's bytes are free again). Returns the sample's position (the skipped one when
    /// dropped), or `None` (nothing done) when `id` is not a loan out.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn publish_lent(
        &self,
        desc: &SampleDesc,
        id: LentId,
        len: usize,
        deadline: Option<Instant>,
    ) -> Result<Option<u64>> {
        if self.lock().lent_mut(id).is_none() {
            return Ok(None);
        }
        let (mut st, room) = self.room_locked(Need::Slot, deadline)?;
        if room.is_none() {
            return Ok(st.give_back(id).then_some(st.head - 1));
        }
        let Some(a) = st.lent_mut(id) else { return Ok(None) };
        a.use_ = Use::Sample;
        let l = Live { pos: 0, offset: a.offset, len: a.len };
        Ok(Some(self.stamp(&mut st, desc, l, LENT_LEAD, len)))
    }

    /// The caller dropped loan `id` unpublished: its bytes are free again.
    pub(crate) fn give_back(&self, id: LentId) {
        self.lock().give_back(id);
    }

    /// Writes the descriptor of the next position for the payload of `len` bytes that starts `lead`
    /// bytes into the allocation `l` (already in the arena and in `allocs`), and publishes it.
    #[link_section = ".text.hot.hdds"]
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
    pub(super) fn committed(&self) -> usize {
        self.lock().committed
    }
}

impl WriterState {
    /// The allocation of loan `id`, if it is a loan out.
    fn lent_mut(&mut self, id: LentId) -> Option<&mut Alloc> {
        self.allocs.iter_mut().find(|a| a.offset == id.offset && a.use_ == Use::Lent(id.serial))
    }

    /// Frees the bytes of loan `id`, if it is a loan out ([`WriterState::release`]); true if it was.
    fn give_back(&mut self, id: LentId) -> bool {
        let Some(offset) = self.lent_mut(id).map(|a| a.offset) else { return false };
        self.release(offset);
        true
    }

    /// The allocation at `offset` is not needed any more; its bytes are reused once every older
    /// allocation's are free too.
    fn release(&mut self, offset: usize) {
        mark_freed(&mut self.allocs, offset);
        self.reclaim();
    }

    /// Drops the freed allocations at both ends of the arena's used part (the newest end too:
    /// a writer going around a pinned sample or a loan held long reuses what lies after it).
    fn reclaim(&mut self) {
        while self.allocs.front().is_some_and(|a| a.use_ == Use::Freed) {
            self.allocs.pop_front();
        }
        while self.allocs.back().is_some_and(|a| a.use_ == Use::Freed) {
            self.allocs.pop_back();
        }
    }
}

/// Marks the allocation at `offset` freed (usually the oldest, so the search ends at once).
fn mark_freed(allocs: &mut VecDeque<Alloc>, offset: usize) {
    if let Some(a) = allocs.iter_mut().find(|a| a.offset == offset && a.use_ != Use::Freed) {
        a.use_ = Use::Freed;
    }
}
