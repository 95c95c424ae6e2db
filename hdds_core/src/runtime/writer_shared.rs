//! What a writer shares with its readers, the network and the watchdog ([`WriterShared`]): the
//! same-process and same-host readers it delivers to, the spare payload buffers, and the hooks
//! through which the receive thread and the timer drive its RTPS machine. The lock order is
//! writer.rs's.

use crate::payload::{Payload, UninitPayload};
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};
use std::time::Instant;

use super::{WriterShared, WriterState};
use crate::discovery::MatchError;
use crate::error::Result;
use crate::qos::Durability;
use crate::rtps::{MatchedReader, StatefulWriter, WriterAction};
use crate::runtime::instances;
use crate::runtime::liveliness::Lease;
use crate::runtime::net::endpoint::WriterPort;
use crate::runtime::net::send::Outbox;
use crate::runtime::net::Network;
use crate::runtime::reader::ReaderShared;
use crate::runtime::sample::Sample;
use crate::runtime::status::{qos_policy_id, OFFERED_INCOMPATIBLE_QOS, PUBLICATION_MATCHED};
use crate::time;
use crate::transport::shm::ring::SampleDesc;
use crate::wire::Guid;

/// The most spare buffers a writer keeps (one per same-process reader it outpaces, up to this),
/// and of payloads over [`LARGE_SPARE`] only one: memory is measured too.
const SPARE_BUFFERS: usize = 4;
const LARGE_SPARE: usize = 64 * 1024;

impl WriterShared {
    pub(super) fn lock(&self) -> MutexGuard<'_, WriterState> {
        // A panic while holding the lock leaves only counters and queues behind; keep serving.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether this writer delivers to the same-process or remote reader `reader`.
    pub(crate) fn delivers_to(&self, reader: Guid) -> bool {
        self.has_matched_reader(&self.lock(), reader)
    }

    /// Starts delivering to `reader`; a TRANSIENT_LOCAL reader first gets the kept history, under
    /// the same lock as new writes, so it misses nothing and gets nothing twice.
    pub(crate) fn attach_reader(&self, reader: &Arc<ReaderShared>) {
        reader.note_writer_lifespan(self.guid, self.qos.lifespan);
        let mut st = self.lock();
        if reader.qos.durability == Durability::TransientLocal {
            let received = time::now();
            for s in &st.history {
                let mut s = s.clone();
                s.info.reception_timestamp = received;
                reader.deliver(s);
            }
        }
        st.matched.push(Arc::clone(reader));
        reader.intra_writers.fetch_add(1, Ordering::Relaxed);
        reader.writer_matched(1, self.is_alive());
        self.reader_matched(1);
    }

    pub(crate) fn detach_reader(&self, reader: &Arc<ReaderShared>) {
        let mut st = self.lock();
        let before = st.matched.len();
        st.matched.retain(|r| !Arc::ptr_eq(r, reader));
        if st.matched.len() < before {
            reader.intra_writers.fetch_sub(1, Ordering::Relaxed);
            reader.writer_matched(-1, self.is_alive());
            self.reader_matched(-1);
        }
    }

    /// The writer is going away: its same-process readers no longer count it.
    pub(crate) fn detach_all(&self) {
        let mut st = self.lock();
        let alive = self.is_alive();
        for r in st.matched.drain(..) {
            r.intra_writers.fetch_sub(1, Ordering::Relaxed);
            r.writer_matched(-1, alive);
            self.reader_matched(-1);
        }
    }

    /// The sample's bytes as same-process readers, the RTPS machine and the TRANSIENT_LOCAL history
    /// keep them. When only same-host readers get the sample (it goes from `payload` straight into
    /// the ring), none of them needs it: no copy then, and the machine numbers an empty sample that
    /// it never sends (a VOLATILE writer's later readers start after it; the lock keeps new
    /// matches out until the write is done).
    pub(super) fn heap_copy(&self, st: &mut WriterState, payload: &[u8]) -> Payload {
        let shm_only = self.shm.is_some()
            && st.matched.is_empty()
            && st.net.as_ref().map_or(true, |p| p.matched_count() == 0)
            && self.qos.durability != Durability::TransientLocal;
        if shm_only {
            return Payload::empty();
        }
        let buf = Self::spare_or_new(st, payload.len());
        // SAFETY: `payload` is a live slice of `buf.len()` bytes, and not the buffer (a new one,
        // or the spare of a sample nobody holds any more).
        unsafe { buf.copy_from_raw(payload.as_ptr()) }
    }

    /// A buffer of `len` bytes for a sample's payload: a spare one of that size, or a new one.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn buffer(&self, len: usize) -> UninitPayload {
        Self::spare_or_new(&mut self.lock(), len)
    }

    fn spare_or_new(st: &mut WriterState, len: usize) -> UninitPayload {
        let spare = st.spare.iter().position(|b| b.len() == len).map(|i| st.spare.swap_remove(i));
        // A spare is one nobody else held when it was kept, and nothing can have cloned it since.
        spare.and_then(Payload::reuse).unwrap_or_else(|| Payload::uninit(len))
    }

    /// Keeps the payload buffer of a sample a history replaced, if nothing else holds it (the
    /// caller holds this writer's state lock, not the reader's).
    pub(super) fn keep_spare(st: &mut WriterState, replaced: Sample) {
        let data = replaced.data;
        let most = if data.len() > LARGE_SPARE { 1 } else { SPARE_BUFFERS };
        if replaced.pinned.is_none() && !data.is_empty() && st.spare.len() < most && data.strong_count() == 1 {
            st.spare.push(data);
        }
    }

    /// Starts serving a same-host reader through the ring; true if it is new. A TRANSIENT_LOCAL
    /// reader first gets the kept history, published into the ring directed to it, under the same
    /// lock as new writes (as `attach_reader` does for same-process readers): it misses nothing
    /// and gets nothing twice, and a writer with no same-host reader copies nothing into the ring.
    pub(crate) fn shm_match_reader(&self, reader: Guid, reliable: bool, transient_local: bool) -> Result<bool> {
        let Some(shm) = &self.shm else { return Ok(false) };
        let st = self.lock();
        if !shm.match_reader(reader, reliable)? {
            return Ok(false);
        }
        if transient_local && self.qos.durability == Durability::TransientLocal {
            let deadline = Instant::now().checked_add(self.qos.max_blocking_time);
            for s in &st.history {
                let desc = SampleDesc {
                    sn: s.info.sequence_number,
                    source_timestamp: s.info.source_timestamp,
                    related: s.info.related_sample_identity,
                    directed_to: Some(reader),
                    key_hash: s.info.key_hash,
                    status_info: instances::status_of(s.info.instance_state).0,
                };
                shm.publish(&desc, &s.data, deadline)?;
            }
        }
        Ok(true)
    }

    /// Whether `reader` gets this writer's samples, on any path.
    pub(super) fn has_matched_reader(&self, st: &WriterState, reader: Guid) -> bool {
        st.matched.iter().any(|r| r.guid == reader)
            || st.net.as_ref().is_some_and(|p| p.is_matched(reader))
            || self.shm.as_ref().is_some_and(|s| s.has_reader(reader))
    }

    /// A reader starts (+1) or stops (-1) receiving: PUBLICATION_MATCHED.
    pub(crate) fn reader_matched(&self, delta: i32) {
        self.events.update(PUBLICATION_MATCHED, |s| {
            s.add_current(delta);
            s.add_total(delta.max(0));
        });
    }

    /// Runs `f` on the same-process readers, under the state lock (liveliness changes).
    pub(crate) fn with_matched<R>(&self, f: impl FnOnce(&[Arc<ReaderShared>]) -> R) -> R {
        f(&self.lock().matched)
    }

    /// When the liveliness lease ends, if the writer has one and is alive.
    pub(super) fn lease_expiry(&self) -> Option<Instant> {
        self.lease.as_ref().and_then(Lease::expires)
    }

    pub(crate) fn record_mismatch(&self, e: MatchError) {
        crate::runtime::net::lock(&self.mismatch).record(e);
        if let Some(p) = e.policy() {
            self.events.update(OFFERED_INCOMPATIBLE_QOS, |s| {
                s.add_total(1);
                s.last_policy_id = qos_policy_id(p);
            });
        }
    }

    pub(crate) fn net_match_reader(
        &self,
        now: Instant,
        r: MatchedReader,
        addr: SocketAddr,
        out: &mut Outbox,
    ) -> Option<Instant> {
        let mut st = self.lock();
        let p = st.net.as_mut()?;
        let new = !p.is_matched(r.guid);
        p.match_reader(now, r, addr, out);
        let next = p.next_deadline();
        drop(st);
        if new {
            self.reader_matched(1);
        }
        next
    }

    pub(crate) fn net_unmatch_reader(&self, reader: Guid) {
        let mut st = self.lock();
        if st.net.as_mut().is_some_and(|p| p.unmatch_reader(reader)) {
            self.reader_matched(-1);
        }
        let waiters = st.acked_waiters;
        drop(st);
        // A KEEP_ALL history may have room now.
        if waiters > 0 {
            self.acked.notify_all();
        }
    }

    /// Runs `f` (an ACKNACK, a NACK_FRAG) on the machine; returns its next deadline. A batching
    /// writer's output is sent here, in its turn; any other writer's is left in `out` for the
    /// receive thread to send with the rest of what the datagram asked for.
    pub(crate) fn net_drive(
        &self,
        net: &Network,
        out: &mut Outbox,
        f: impl FnOnce(&mut StatefulWriter, &mut Vec<WriterAction>),
    ) -> Option<Instant> {
        let mut st = self.lock();
        let p = st.net.as_mut()?;
        p.drive(out, f);
        let next = p.next_deadline();
        let batching = p.batching();
        let waiters = st.acked_waiters;
        self.send_in_turn(st, out, |out| {
            if batching {
                net.flush(out);
            }
        });
        if waiters > 0 {
            self.acked.notify_all();
        }
        next
    }

    /// [`WriterState::net_acked`], under the writer's lock.
    pub(crate) fn net_all_acked(&self) -> bool {
        self.lock().net_acked()
    }

    /// The timer's work on the machine; returns its next deadline. As [`WriterShared::net_drive`],
    /// a batching writer sends its own output in its turn.
    pub(crate) fn net_on_timer(&self, net: &Network, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut st = self.lock();
        let p = st.net.as_mut()?;
        let mut mine = Outbox::new();
        if p.next_deadline().is_some_and(|t| t <= now) {
            let to = if p.batching() { &mut mine } else { out };
            // Due is the machine's deadline or the batch's: either way the batch goes now.
            p.flush_batch(to);
            p.drive(to, |w, a| w.on_timer(now, a));
        }
        let next = p.next_deadline();
        self.send_in_turn(st, &mut mine, |out| net.flush(out));
        next
    }

    /// Releases the state lock `st`, then runs `send` on `out`. A batching writer with something
    /// to send takes its send turn first, while `st` is still held, and keeps it until `send`
    /// returns: turns are granted in the order the state lock produced the datagrams, and the
    /// state lock is free during the sends. Other writers send without a turn (nothing to keep in
    /// order). Whoever holds a turn never takes the state lock, so the two cannot deadlock.
    pub(super) fn send_in_turn(
        &self,
        st: MutexGuard<'_, WriterState>,
        out: &mut Outbox,
        send: impl FnOnce(&mut Outbox),
    ) {
        let batching = st.net.as_ref().is_some_and(WriterPort::batching);
        let _turn = (batching && !out.is_empty()).then(|| self.send_order.lock().unwrap_or_else(|p| p.into_inner()));
        drop(st);
        send(out);
    }
}
