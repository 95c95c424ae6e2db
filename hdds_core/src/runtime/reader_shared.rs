//! What a reader shares with its writers, the receive thread and wait sets ([`ReaderShared`]):
//! delivery into the history (filters, lifespans, KEEP_ALL room), the waiters it wakes, and the
//! hooks through which the receive thread and the timer drive its RTPS machine. The lock order is
//! reader.rs's.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};

use crate::discovery::inline_qos::StatusInfo;
use crate::discovery::MatchError;
use crate::qos::Reliability;
use crate::rtps::Delivery;
use crate::runtime::instances::{self, InstanceState};
use crate::runtime::liveliness::count_writer;
use crate::runtime::net::endpoint::ReaderInput;
use crate::runtime::net::send::Outbox;
use crate::runtime::net::{bump, lock, Counters};
use crate::runtime::sample::{Sample, SampleInfo};
use crate::runtime::status::{qos_policy_id, REQUESTED_INCOMPATIBLE_QOS, SAMPLE_LOST, SUBSCRIPTION_MATCHED};
use crate::runtime::watchdog;
use crate::time::Timestamp;
use crate::transport::shm::ring::PinnedSample;
use crate::wire::Guid;

use super::{Pushed, ReaderShared, ReaderState};

impl ReaderShared {
    pub(super) fn lock(&self) -> MutexGuard<'_, ReaderState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many samples wait to be taken, as of the last change of the history (a wait set
    /// attaches before it looks, so a change after this reading wakes it).
    pub(crate) fn queue_len(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// A writer matched with this reader has this LIFESPAN (its QoS): its samples expire that
    /// long after their source timestamp ([`Reader::take`] drops them).
    pub(crate) fn note_writer_lifespan(&self, writer: Guid, lifespan: Duration) {
        if lifespan == crate::qos::INFINITE {
            return;
        }
        let ns = i64::try_from(lifespan.as_nanos()).unwrap_or(i64::MAX);
        let mut st = self.lock();
        st.lifespans.retain(|(g, _)| *g != writer);
        st.lifespans.push((writer, ns));
    }

    /// A reliable KEEP_ALL reader holding `keep_all_max` untaken samples: reliable KEEP_ALL
    /// writers of this process wait for it ([`Self::wait_room`]). Lock-free: the answer as of the
    /// last change of the history's length (a racing one is settled by `wait_room`'s own check,
    /// or by the writer's resend for a sample refused over the network).
    pub(crate) fn keeps_all_and_is_full(&self) -> bool {
        self.qos.reliability == Reliability::Reliable
            && self.qos.depth().is_none()
            && self.queued.load(Ordering::Relaxed) >= self.keep_all_max
    }

    /// Call under the history lock after the history's length changed: keeps `queued` current.
    pub(super) fn note_fill(&self, st: &ReaderState) {
        self.queued.store(st.queue.len(), Ordering::Release);
    }

    /// Waits until the history has room or `until` passes; false on time-out.
    pub(crate) fn wait_room(&self, until: Option<Instant>) -> bool {
        let mut st = self.lock();
        while st.queue.len() >= self.keep_all_max {
            let left = match until {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left,
                    _ => return false,
                },
                None => Duration::from_secs(3600),
            };
            st.room_waiters += 1;
            st = self.room.wait_timeout(st, left).unwrap_or_else(|p| p.into_inner()).0;
            st.room_waiters -= 1;
        }
        true
    }

    /// Adds a same-process sample to the history (dropping the oldest one, of its instance on
    /// keyed topics, when a KEEP_LAST history is full) and wakes the waiters. The writer sets the
    /// reception timestamp: the write's own time, read once for all its readers.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn deliver(&self, sample: Sample) -> Option<Sample> {
        if !self.passes_filter(&sample) {
            return None;
        }
        let pushed = self.push(sample)?;
        self.wake_with(pushed.waiting);
        pushed.replaced
    }

    /// Adds a sample to the history, queues the data listener's call and renews the deadline;
    /// waiting threads and wait sets are left to [`Self::wake`]. `None` when a best-effort KEEP_ALL
    /// history is full: the sample is dropped and counted.
    #[link_section = ".text.hot.hdds"]
    fn push(&self, sample: Sample) -> Option<Pushed> {
        let mut st = self.lock();
        // A best-effort KEEP_ALL history refuses the newcomer at its cap (DDS: KEEP_ALL keeps what
        // it holds, max_samples rejects the new sample; dropping the oldest would be KEEP_LAST).
        // A reliable one is not capped here, or data would be lost: writers of this process and
        // host wait on a full one (Writer::wait_intra_room; the ring left unread), remote ones
        // are not acknowledged (net_input), so it exceeds the cap by at most the samples a
        // race or the RTPS order buffer releases at once.
        if self.qos.reliability == Reliability::BestEffort
            && self.qos.depth().is_none()
            && st.queue.len() >= self.keep_all_max
        {
            drop(st);
            self.history_refused.fetch_add(1, Ordering::Relaxed);
            self.events.update(SAMPLE_LOST, |s| s.add_total(1));
            return None;
        }
        let replaced = instances::admit(&mut st.queue, self.keys.is_some(), self.qos.depth(), sample);
        self.note_fill(&st);
        let waiting = st.waiters > 0;
        drop(st);
        self.events.sample_added();
        self.renew_deadline();
        Some(Pushed { waiting, replaced })
    }

    /// Wakes the threads in `wait_for_data` and the attached wait sets, after samples were pushed.
    /// The receive thread calls it once per datagram, not per sample.
    pub(crate) fn wake(&self) {
        // Read under the lock: a waiter counts itself under it before it sleeps.
        let waiting = self.lock().waiters > 0;
        self.wake_with(waiting);
    }

    /// [`Self::wake`], given whether a thread sleeps in `wait_for_data`, read under the history
    /// lock after the push (a same-process write and a shared-memory drain read it while they
    /// push: one lock, not two, of a line the taking thread uses too).
    pub(crate) fn wake_with(&self, waiting: bool) {
        self.arrivals.fetch_add(1, Ordering::Release);
        if waiting {
            self.data_available.notify_all();
            crate::runtime::handoff::woke_a_sleeper();
        }
        self.events.waiters.notify();
    }

    /// Whether the content filter, if any, lets the sample in. Samples without data (disposals)
    /// always pass: the filter looks at data.
    #[link_section = ".text.hot.hdds"]
    fn passes_filter(&self, sample: &Sample) -> bool {
        // A delivery that misses a filter being set is one that raced with the set: as if it had
        // come just before it (the lock below does not order them more than that either).
        if !sample.info.valid_data || !self.filtered.load(Ordering::Acquire) {
            return true;
        }
        match &*lock(&self.filter) {
            Some(f) => f(sample.payload()),
            None => true,
        }
    }

    /// A sample the RTPS machine released, received at `now` (wall clock); true when it was added
    /// (the sample filter runs first, as in [`Self::deliver`]). Disposals and unregistrations
    /// (keyed topics of other vendors) and empty payloads are not samples a keyless reader can hand
    /// out; a keyed reader hands disposals and unregistrations out without data.
    pub(crate) fn deliver_remote(&self, d: Delivery, now: Timestamp) -> bool {
        self.deliver_remote_pinned(d, None, now).is_some()
    }

    /// From which payload size same-host samples may stay in their writer's ring until taken
    /// (`None`: never): the application takes loans or reads in place, and the reader's topic is
    /// keyless (a keyed reader looks into each payload).
    pub(crate) fn pin_from(&self) -> Option<usize> {
        let from = self.pin_from.load(Ordering::Relaxed);
        (self.keys.is_none() && from != usize::MAX).then_some(from)
    }

    /// [`Self::deliver_remote`] of a same-host sample, whose payload may stay pinned in its
    /// writer's ring (`d.payload` is then empty; keyless readers only, [`Self::pin_from`]). When
    /// it was added: whether a thread sleeps in `wait_for_data` (for [`Self::wake_with`], which
    /// then needs no second look under the history lock).
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn deliver_remote_pinned(&self, d: Delivery, pin: Option<PinnedSample>, now: Timestamp) -> Option<bool> {
        let sample = self.remote_sample(d, pin, now)?;
        self.push(sample).map(|p| p.waiting)
    }

    /// The sample a remote delivery makes for this reader, received at `now`: `None` for what it
    /// does not hand out (a keyless reader's disposals, an empty payload, what its filter refuses).
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn remote_sample(&self, d: Delivery, pin: Option<PinnedSample>, now: Timestamp) -> Option<Sample> {
        let status = StatusInfo(d.meta.status_info);
        let pinned = pin.map(Arc::new);
        let empty = pinned.as_ref().map_or(d.payload.is_empty(), |p| p.bytes().is_empty());
        let key_hash = match &self.keys {
            None if !status.is_alive() || empty => return None,
            None => None,
            Some(_) if status.is_alive() && empty => return None,
            Some(k) => k.identify(d.meta.key_hash, status, &d.payload),
        };
        let sample = Sample {
            data: d.payload,
            pinned,
            info: SampleInfo {
                source_timestamp: d.meta.source_timestamp.unwrap_or(now),
                reception_timestamp: now,
                writer_guid: d.writer,
                sequence_number: d.sn,
                key_hash,
                instance_state: InstanceState::after(status),
                valid_data: status.is_alive(),
                related_sample_identity: d.meta.related_sample_identity,
            },
        };
        self.passes_filter(&sample).then_some(sample)
    }

    /// Whether a same-host sample may skip the history and go straight to a thread that takes it
    /// ([`super::net::shm::ShmPort::spin_take`]): the history is empty (what it holds comes
    /// first), the topic is keyless (a keyed reader's depth counts per instance), no data
    /// listener waits for arrivals, and no writer's LIFESPAN is finite (`take` drops expired
    /// samples from the history).
    pub(crate) fn takes_directly(&self) -> bool {
        if self.keys.is_some() || self.events.has_data_listener() {
            return false;
        }
        let st = self.lock();
        st.queue.is_empty() && st.lifespans.is_empty()
    }

    /// A sample arrived (pushed, or taken straight from a ring, [`Self::takes_directly`]): the
    /// DEADLINE period starts again.
    pub(crate) fn renew_deadline(&self) {
        if let Some(d) = &self.deadline {
            watchdog::schedule(d.renew(Instant::now()));
        }
    }

    /// How many times samples arrived ([`Self::wake_with`]): a spinning wait looks for a change.
    pub(crate) fn arrivals(&self) -> u32 {
        self.arrivals.load(Ordering::Acquire)
    }

    pub(crate) fn record_mismatch(&self, e: MatchError) {
        lock(&self.mismatch).record(e);
        if let Some(p) = e.policy() {
            self.events.update(REQUESTED_INCOMPATIBLE_QOS, |s| {
                s.add_total(1);
                s.last_policy_id = qos_policy_id(p);
            });
        }
    }

    /// A writer starts (+1) or stops (-1) delivering: SUBSCRIPTION_MATCHED, and the writer counts
    /// as alive or not for LIVELINESS_CHANGED.
    pub(crate) fn writer_matched(&self, delta: i32, alive: bool) {
        self.events.update(SUBSCRIPTION_MATCHED, |s| {
            s.add_current(delta);
            s.add_total(delta.max(0));
        });
        count_writer(&self.events, alive, delta);
    }

    /// Matches remote `writer`, which is `alive` or not (LIVELINESS_CHANGED counts it so).
    pub(crate) fn net_match_writer(
        &self,
        now: Instant,
        writer: Guid,
        addr: SocketAddr,
        alive: bool,
        out: &mut Outbox,
    ) -> Option<Instant> {
        let mut p = lock(self.port.as_ref()?);
        let new = !p.is_matched(writer);
        p.match_writer(now, writer, addr, out);
        let next = p.next_deadline();
        drop(p);
        if new {
            self.writer_matched(1, alive);
        }
        next
    }

    /// A remote writer went away (SEDP disposal, or its participant's lease ran out); it was
    /// `alive` or not.
    pub(crate) fn net_unmatch_writer(&self, writer: Guid, alive: bool) {
        if let Some(p) = &self.port {
            if lock(p).unmatch_writer(writer) {
                self.writer_matched(-1, alive);
            }
        }
    }

    /// One submessage from a matched remote writer, received at `now` / `received` (wall clock);
    /// returns the machine's next deadline. The samples it delivers wake nobody: `delivered`
    /// comes back true, and the receive thread calls [`Self::wake`] once it has handled the whole
    /// datagram (one wake-up for a datagram full of samples).
    // The receive path's per-submessage context, passed as is rather than bundled for one caller.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn net_input(
        &self,
        now: Instant,
        received: Timestamp,
        writer: Guid,
        input: ReaderInput<'_>,
        out: &mut Outbox,
        delivered: &mut bool,
        counters: &Counters,
    ) -> Option<Instant> {
        let data = match input {
            ReaderInput::Data { .. } => Some(true),
            ReaderInput::Frag { header, .. } => Some(header.fragment_start == 1),
            _ => None,
        };
        if let Some(first_part) = data.filter(|_| self.keeps_all_and_is_full()) {
            // Not handed to the RTPS machine, so not acknowledged: the writer sends it again
            // (after a later HEARTBEAT's ACKNACK) and blocks once its history is full of
            // unacknowledged samples. Back-pressure without losing data.
            if first_part {
                self.history_refused.fetch_add(1, Ordering::Relaxed);
                bump(&counters.history_over_limit);
            }
            return lock(self.port.as_ref()?).next_deadline();
        }
        let refused = self.history_refused.load(Ordering::Relaxed);
        let mut p = lock(self.port.as_ref()?);
        let before = p.reassembly_over_limit();
        p.input(now, writer, input, out, |d| *delivered |= self.deliver_remote(d, received));
        // Shared by every reader of the participant: touched only when there is something to add.
        let over = p.reassembly_over_limit() - before;
        if over > 0 {
            counters.fragments_over_limit.fetch_add(over, Ordering::Relaxed);
        }
        let refused = self.history_refused.load(Ordering::Relaxed) - refused;
        if refused > 0 {
            counters.history_over_limit.fetch_add(refused, Ordering::Relaxed);
        }
        let lost = p.take_lost();
        let next = p.next_deadline();
        drop(p);
        if lost > 0 {
            self.events.update(SAMPLE_LOST, |s| s.add_total(i32::try_from(lost).unwrap_or(i32::MAX)));
        }
        next
    }

    pub(crate) fn net_on_timer(&self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut p = lock(self.port.as_ref()?);
        if p.next_deadline().is_some_and(|t| t <= now) {
            p.on_timer(now, out);
        }
        p.next_deadline()
    }
}
