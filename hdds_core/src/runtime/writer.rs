//! A writer of serialized samples.
//!
//! Lock order, everywhere in the engine: the intra-process route table, then a writer's state, then
//! a reader's state. A write holds its writer's state lock while it hands the sample to same-process
//! readers, so that every reader sees one writer's samples in sequence-number order even when
//! several threads write at once; no socket send ever happens under that lock.
//!
//! With the network on, the same lock guards the writer's RTPS machine, which numbers the samples
//! (one sequence number per sample, whichever path carries it). A write runs the machine under the
//! lock, collects what to send, and sends after releasing it. A batching writer's sends also keep
//! the order in which the lock produced them: the thread takes the writer's send turn (a second
//! lock, only ever taken while holding the state lock) before it lets go of the state lock, and
//! sends holding only the turn. The receive thread's ACKNACKs and the next write then never wait
//! for a socket send, which is most of a batched write's time (see [`WriterShared::send_in_turn`]).

use crate::payload::Payload;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::deadline::Deadline;
use super::discovery_events::{EndpointInfo, Graph};
use super::events::{run_listeners, Events, StatusListener};
use super::instances::{self, InstanceState, WriteChange};
use super::liveliness::Lease;
use super::net::endpoint::WriterPort;
use super::net::send::Outbox;
use super::net::Network;
use super::participant::{EndpointOptions, Participant};
use super::reader::ReaderShared;
use super::sample::{Sample, SampleInfo, WriteOptions};
use super::status::{single_status, MatchStatus, Status, StatusMask, WRITER_STATUSES};
use super::watchdog::{self, Watched};
use crate::error::{Error, ErrorKind, Result};
use crate::qos::{Durability, LivelinessKind, Qos, Reliability};
use crate::rtps::{SampleMeta, StatefulWriter, WriteBlocked, WriterConfig, WriterStats};
use crate::time;
use crate::transport::intra::{self, TopicKey};
use crate::transport::shm::ring::{LentId, SampleDesc};
use crate::transport::shm::writer::ShmWriter;
use crate::wire::{EntityId, EntityKind, Guid, Locator};

#[path = "writer_loan.rs"]
mod loan;
pub use loan::WriterLoan;

#[path = "writer_shared.rs"]
mod shared;

/// The default of [`crate::ParticipantConfig::keep_all_max_samples`]: the most samples a KEEP_ALL
/// writer keeps unacknowledged before a write blocks (DDS's RESOURCE_LIMITS max_samples, which
/// the engine's QoS does not carry yet).
pub const KEEP_ALL_MAX_SAMPLES: usize = 1024;

/// The largest serialized sample a writer lends or serializes in place ([`Writer::loan`],
/// [`Writer::write_into`]): RTPS carries a fragmented sample's size in 32 bits (DATA_FRAG's
/// sampleSize), so no DDS peer could take a larger one. A length beyond it (a garbage length over
/// the C ABI) is refused before anything is allocated.
pub const MAX_SAMPLE_BYTES: usize = u32::MAX as usize;

/// Refuses a sample length larger than [`MAX_SAMPLE_BYTES`], saying so.
#[link_section = ".text.hot.hdds"]
fn check_sample_len(len: usize, what: &str) -> Result<()> {
    if len > MAX_SAMPLE_BYTES {
        return Err(Error::bad_argument(format!(
            "{what} of {len} bytes: a sample is at most {MAX_SAMPLE_BYTES} bytes (RTPS carries its size in 32 bits)"
        )));
    }
    Ok(())
}

pub struct Writer {
    shared: Arc<WriterShared>,
    net: Option<Arc<Network>>,
    /// Its participant's graph, told when the writer goes.
    graph: Arc<Graph>,
}

pub(crate) struct WriterShared {
    pub(crate) guid: Guid,
    pub(crate) topic: TopicKey,
    pub(crate) type_name: String,
    pub(crate) qos: Qos,
    /// USER_DATA, announced in SEDP.
    pub(crate) user_data: Arc<[u8]>,
    pub(crate) partition: Vec<String>,
    state: Mutex<WriterState>,
    /// A batching writer's send turn (see the module's doc and [`WriterShared::send_in_turn`]).
    send_order: Mutex<()>,
    /// Signalled when remote readers acknowledge or go away: a blocked KEEP_ALL write, or a wait
    /// for acknowledgments, may go on.
    acked: Condvar,
    mismatch: Mutex<MatchStatus>,
    /// Statuses, attached wait sets, listeners.
    pub(crate) events: Arc<Events>,
    pub(crate) deadline: Option<Deadline>,
    pub(crate) lease: Option<Lease>,
    /// The ring serving same-host readers of other processes (runtime/net/shm.rs matches them).
    pub(crate) shm: Option<ShmWriter>,
    /// The participant's KEEP_ALL history cap.
    keep_all_max: usize,
    /// The participant's [`crate::ParticipantConfig::yield_after_wake`].
    yield_after_wake: bool,
}

struct WriterState {
    /// The sequence number of the last sample written (0 before the first).
    last_sn: i64,
    /// What a TRANSIENT_LOCAL writer replays to late-joining same-process readers.
    history: VecDeque<Sample>,
    matched: Vec<Arc<ReaderShared>>,
    /// The RTPS side, when the participant is on the network.
    net: Option<WriterPort>,
    /// Threads waiting on `acked` (a blocked KEEP_ALL write, a wait for acknowledgments): an
    /// ACKNACK notifies only when there is one (otherwise a system call per ACKNACK).
    acked_waiters: usize,
    /// Payload buffers of samples that KEEP_LAST histories replaced and nobody else held, for the
    /// next samples of the same size ([`WriterShared::buffer`]): a writer that outpaces its
    /// same-process readers allocates and frees nothing per sample.
    spare: Vec<Payload>,
}

impl WriterState {
    /// Every remote reliable reader acknowledged every sample (true without a network).
    fn net_acked(&self) -> bool {
        self.net.as_ref().map_or(true, |p| p.rtps.all_acked())
    }
}

impl Writer {
    pub(crate) fn new(
        participant: &Participant,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        options: &EndpointOptions,
        keyed: bool,
    ) -> Result<Writer> {
        let kind = if keyed { EntityKind::UserWriterWithKey } else { EntityKind::UserWriterNoKey };
        let guid = participant.new_entity_guid(kind)?;
        let net = participant.network().cloned();
        let port = net.as_ref().map(|net| {
            let mut cfg = WriterConfig::from_qos(guid, &qos, participant.keep_all_max_samples());
            cfg.heartbeat_period = super::net::IDLE_HEARTBEAT_PERIOD;
            let mut port = WriterPort::new(StatefulWriter::new(cfg, Instant::now()), EntityId::UNKNOWN);
            if net.cfg.write_batching {
                port.enable_batching();
            }
            port
        });
        let shm = net.as_ref().and_then(|n| n.shm.as_ref()).map(|p| p.new_writer(guid, &qos)).transpose()?;
        let shared = Arc::new(WriterShared {
            guid,
            topic: participant.topic_key(topic_name),
            type_name: type_name.to_owned(),
            qos,
            user_data: Arc::from(&options.user_data[..]),
            partition: options.partition.clone(),
            state: Mutex::new(WriterState {
                last_sn: 0,
                spare: Vec::new(),
                history: VecDeque::new(),
                matched: Vec::new(),
                net: port,
                acked_waiters: 0,
            }),
            send_order: Mutex::new(()),
            acked: Condvar::new(),
            mismatch: Mutex::new(MatchStatus::default()),
            events: Arc::default(),
            deadline: Deadline::new(qos.deadline),
            lease: Lease::new(&qos.liveliness, Instant::now()),
            shm,
            keep_all_max: participant.keep_all_max_samples(),
            yield_after_wake: participant.yield_after_wake(),
        });
        if shared.deadline.is_some() || shared.lease.is_some() {
            let weak = Arc::downgrade(&shared);
            watchdog::watch(weak as std::sync::Weak<dyn Watched>, shared.lease_expiry())?;
        }
        intra::merger().add_writer(&shared);
        if let Some(net) = &net {
            net.add_local_writer(&shared);
        }
        run_listeners();
        Ok(Writer { shared, net, graph: Arc::clone(participant.graph()) })
    }

    pub fn guid(&self) -> Guid {
        self.shared.guid
    }

    /// The writer as discovery events describe it.
    pub fn endpoint_info(&self) -> Arc<EndpointInfo> {
        let s = &self.shared;
        Arc::new(EndpointInfo {
            guid: s.guid,
            participant_guid: self.graph.me().guid,
            vendor_id: self.graph.me().vendor_id,
            is_reader: false,
            topic_name: s.topic.name.clone(),
            type_name: s.type_name.clone(),
            qos: s.qos,
            user_data: Arc::clone(&s.user_data),
        })
    }

    pub fn qos(&self) -> &Qos {
        &self.shared.qos
    }

    /// Publishes one serialized sample (encapsulation header included) and returns its sequence
    /// number. A reliable KEEP_ALL writer whose history is full of unacknowledged samples waits up
    /// to max_blocking_time for remote readers to acknowledge, then fails with
    /// [`ErrorKind::Timeout`].
    #[link_section = ".text.hot.hdds"]
    pub fn write(&self, payload: &[u8]) -> Result<i64> {
        self.write_with(payload, &WriteOptions::default())
    }

    /// [`Writer::write`] with a related sample identity, a source timestamp, or one reader as the
    /// only destination ([`WriteOptions`]). A directed write to a reader that is not matched fails
    /// with [`ErrorKind::BadArgument`] and writes nothing.
    pub fn write_with(&self, payload: &[u8], options: &WriteOptions) -> Result<i64> {
        self.write_change(payload, options, WriteChange::default())
    }

    /// The one write path: a sample or, on keyed topics, an instance's disposal or unregistration
    /// (`payload` is then the serialized key; see [`super::instances`]).
    pub(crate) fn write_change(&self, payload: &[u8], options: &WriteOptions, change: WriteChange) -> Result<i64> {
        self.write_inner(payload, None, options, change, None)
    }

    /// [`Writer::write_change`]; `lent` when `payload` already sits in the ring, lent there (a
    /// loaned sample, [`WriterLoan`]); `owned` when `payload` is already the sample's own buffer (it is
    /// then shared, not copied: [`Writer::write_into`]).
    #[link_section = ".text.hot.hdds"]
    fn write_inner(
        &self,
        payload: &[u8],
        owned: Option<Payload>,
        options: &WriteOptions,
        change: WriteChange,
        lent: Option<LentId>,
    ) -> Result<i64> {
        let r = self.write_core(payload, owned, options, change, lent);
        run_listeners();
        r
    }

    /// [`Writer::write_inner`] but for the listener calls the write queued, which the caller runs
    /// once it holds no engine lock (the ring's turn included: a listener may write).
    #[link_section = ".text.hot.hdds"]
    fn write_core(
        &self,
        payload: &[u8],
        owned: Option<Payload>,
        options: &WriteOptions,
        change: WriteChange,
        lent: Option<LentId>,
    ) -> Result<i64> {
        // A sample lent in the ring takes no turn: write_into holds it already, and a loan's publish
        // needs only a slot, which it waits for below and again (rarely) under the writer's lock.
        let turn = self.shared.shm.as_ref().filter(|_| lent.is_none()).map(ShmWriter::turn);
        // Only a reliable KEEP_ALL writer ever waits for room, so only it needs a deadline before
        // publishing; every other write reads the monotonic clock once the sample is out (each
        // read costs tens of ns on a VM, a good part of a same-host hop). One wall-clock read per
        // write, for the source timestamp.
        let may_block = self.shared.qos.reliability == Reliability::Reliable && self.shared.qos.depth().is_none();
        let early = may_block.then(Instant::now);
        let blocking_until = early.and_then(|s| s.checked_add(self.shared.qos.max_blocking_time));
        if may_block {
            self.wait_intra_room(blocking_until)?;
        }
        // Before anything is numbered or sent: a time-out or a refusal leaves no reader with the
        // sample. (KEEP_LAST: the ring's publish below comes first anyway, as the machine numbers
        // every sample at once, and tells the same refusals before anything else happens.)
        if let (Some(shm), None) = (&self.shared.shm, self.shared.qos.depth()) {
            match lent {
                None => shm.wait_room(payload.len(), blocking_until)?,
                // A loan's bytes are in the ring already; its sample still needs a free slot.
                Some(_) => shm.wait_slot(blocking_until)?,
            }
        }
        let now_ts = options.source_timestamp.unwrap_or_else(time::now);
        // From here on, a wake-up of a sleeping reader thread is this write's (runtime/handoff.rs).
        super::handoff::forget();
        let mut out = Outbox::new();
        let mut st = self.shared.lock();
        if let Some(target) = options.directed_to {
            if !self.shared.has_matched_reader(&st, target) {
                return Err(Error::bad_argument(format!(
                    "the directed write names reader {target:?}, which is not matched with this writer (any \
                     more): check hdds_writer_has_matched_reader first"
                )));
            }
        }
        let desc = |sn| SampleDesc {
            sn,
            source_timestamp: now_ts,
            related: options.related_sample_identity,
            directed_to: options.directed_to,
            key_hash: change.key_hash,
            status_info: change.status.0,
        };
        // Same-host readers first, when the RTPS machine will number the sample without waiting
        // (always, but for a reliable KEEP_ALL writer whose history is full): the ring's stamp is
        // what a polling reader in another process waits for, and nothing else this write does
        // (same-process readers, the machine, the kept history, timers) is needed before it. The
        // sample takes the number the machine gives it next, under the same lock.
        // (The machine numbers every sample of this writer, so its next number is last_sn + 1.)
        let mut published = None;
        if let Some(shm) = &self.shared.shm {
            if st.net.as_ref().map_or(true, |p| p.rtps.can_write()) {
                let sn = st.last_sn + 1;
                self.publish_shm(shm, &desc(sn), payload, lent, blocking_until)?;
                published = Some(sn);
            }
        }
        // The monotonic clock only for what reads it: the RTPS machine, a lease, a deadline. A
        // writer of a participant without a network and without those (same-process readers
        // only) reads none: a reading is 25-40 ns on this VM, a tenth of a hop between threads.
        let needs_clock = self.net.is_some() || self.shared.lease.is_some() || self.shared.deadline.is_some();
        let start = early.or_else(|| needs_clock.then(Instant::now));
        let meta = SampleMeta {
            source_timestamp: Some(now_ts),
            related_sample_identity: options.related_sample_identity,
            key_hash: change.key_hash,
            status_info: change.status.0,
        };
        // Numbered as the ring's sample above; renumbered below if the machine waited for room.
        let mut sample = Sample {
            data: owned.unwrap_or_else(|| self.shared.heap_copy(&mut st, payload)),
            pinned: None,
            info: SampleInfo {
                source_timestamp: now_ts,
                reception_timestamp: now_ts,
                writer_guid: self.shared.guid,
                sequence_number: st.last_sn + 1,
                related_sample_identity: options.related_sample_identity,
                key_hash: change.key_hash,
                instance_state: InstanceState::after(change.status),
                valid_data: change.status.is_alive(),
            },
        };
        // Same-process readers before the machine too, on the same condition: a reader thread
        // woken here runs at the wake-up (a short slice) or at this write's yield, and needs
        // nothing the machine does. On a participant on the network (every rmw_hdds node's) that
        // brought a hop between two threads from 0.38 to 0.36 µs and from 0.45 to 0.40 µs
        // (bench/same_host.py's intra-net row; medians of two runs of 6 interleaved pairs).
        let went_through = st
            .net
            .as_ref()
            .map_or(true, |p| p.rtps.can_write())
            .then(|| self.go_through(&mut st, &sample, options.directed_to, may_block, start));
        let sn = match &self.net {
            Some(net) if st.net.is_some() => {
                let start = start.unwrap_or_else(Instant::now);
                let (guard, sn) = self.write_rtps(net, st, &sample.data, meta, options.directed_to, &mut out, start)?;
                st = guard;
                sn
            }
            _ => st.last_sn + 1,
        };
        debug_assert!(published.map_or(true, |p| p == sn), "the ring got SN {published:?}, the machine gave {sn}");
        debug_assert!(
            went_through.is_none() || sample.info.sequence_number == sn,
            "delivered before the machine gave {sn}"
        );
        sample.info.sequence_number = sn;
        st.last_sn = sn;
        let (now, lease_ends) = match went_through {
            Some(w) => w,
            None => self.go_through(&mut st, &sample, options.directed_to, may_block, start),
        };
        if let (Some(shm), None) = (&self.shared.shm, published) {
            // Room was made above; only another thread writing meanwhile can make this wait.
            self.publish_shm(shm, &desc(sn), payload, lent, blocking_until)?;
        }
        if self.shared.qos.durability == Durability::TransientLocal && options.directed_to.is_none() {
            let keyed = self.shared.guid.entity_id.is_keyed();
            let depth = self.shared.qos.depth().unwrap_or(self.shared.keep_all_max);
            if let Some(replaced) = instances::admit(&mut st.history, keyed, Some(depth), sample) {
                WriterShared::keep_spare(&mut st, replaced);
            }
        }
        let next = st.net.as_ref().and_then(|p| p.next_deadline());
        self.shared.send_in_turn(st, &mut out, |out| match &self.net {
            Some(net) if self.shared.qos.reliability == Reliability::BestEffort => net.flush_paced(out),
            Some(net) => net.flush(out),
            None => {}
        });
        if let Some(net) = &self.net {
            net.timer.schedule(next);
        }
        watchdog::schedule(lease_ends);
        if let (Some(d), Some(now)) = (&self.shared.deadline, now) {
            watchdog::schedule(d.renew(now));
        }
        // Every lock released (the turn last): the woken reader thread may run now.
        drop(turn);
        super::handoff::hand_over(self.shared.yield_after_wake);
        Ok(sn)
    }

    /// The write goes through: asserts the writer's liveliness and delivers `sample` to the
    /// matched same-process readers (`only_for`: to that one only), in that order, so that a
    /// reader holding the sample sees the writer alive. Returns when it went through (a lease or
    /// deadline runs from then: after any wait for room, for a writer that `may_block`) and
    /// when the lease ends (`start` is `None` only for a writer with neither lease nor deadline,
    /// and so is the time returned).
    #[link_section = ".text.hot.hdds"]
    fn go_through(
        &self,
        st: &mut WriterState,
        sample: &Sample,
        only_for: Option<Guid>,
        may_block: bool,
        start: Option<Instant>,
    ) -> (Option<Instant>, Option<Instant>) {
        let now = if may_block && (self.shared.lease.is_some() || self.shared.deadline.is_some()) {
            Some(Instant::now())
        } else {
            start
        };
        let lease_ends = now.and_then(|now| self.shared.assert_alive(&st.matched, now));
        for i in 0..st.matched.len() {
            let reader = &st.matched[i];
            if only_for.map_or(true, |g| g == reader.guid) {
                if let Some(replaced) = reader.deliver(sample.clone()) {
                    WriterShared::keep_spare(st, replaced);
                }
            }
        }
        (now, lease_ends)
    }

    /// Puts the sample into the ring for same-host readers (`lent`: it is there already, a loan
    /// filled in place, and only needs its descriptor).
    #[link_section = ".text.hot.hdds"]
    fn publish_shm(
        &self,
        shm: &ShmWriter,
        desc: &SampleDesc,
        payload: &[u8],
        lent: Option<LentId>,
        blocking_until: Option<Instant>,
    ) -> Result<()> {
        match lent {
            Some(id) if shm.publish_lent(desc, id, payload.len(), blocking_until)? => Ok(()),
            // The loan's owner publishes or gives back its id once: cannot happen.
            Some(_) => Err(Error::bad_argument("the loaned sample was published or given back already")),
            None => shm.publish(desc, payload, blocking_until),
        }
    }

    /// Asserts the writer's liveliness (MANUAL_BY_TOPIC / MANUAL_BY_PARTICIPANT leases; a write
    /// asserts it too). A no-op for writers that cannot lose liveliness. Thread-safe.
    ///
    /// Remote readers learn it from a HEARTBEAT with the Liveliness flag: sent to the matched
    /// readers over UDP, and to the participants of the same-host readers that read the writer's
    /// ring (nothing else from the writer reaches them without a sample). A MANUAL_BY_PARTICIPANT
    /// writer's participant also sends a ParticipantMessageData MANUAL_LIVELINESS_UPDATE, the
    /// assertion Fast DDS counts for that kind.
    pub fn assert_liveliness(&self) {
        let mut out = Outbox::new();
        let mut st = self.shared.lock();
        let lease_ends = self.shared.assert_alive(&st.matched, Instant::now());
        let hb = match (&self.net, &self.shared.lease, st.net.as_mut()) {
            (Some(_), Some(_), Some(p)) => p.drive(&mut out, |w, a| {
                w.assert_liveliness(a);
                a.last().cloned()
            }),
            _ => None,
        };
        self.shared.send_in_turn(st, &mut out, |out| {
            if let Some(net) = &self.net {
                net.flush(out);
            }
        });
        if let Some(net) = &self.net {
            if let Some(hb) = hb {
                net.send_to_shm_readers(&self.shared, hb, &mut out);
                if self.shared.qos.liveliness.kind == LivelinessKind::ManualByParticipant {
                    net.assert_participant(&mut out);
                }
                net.flush(&mut out);
            }
        }
        watchdog::schedule(lease_ends);
        run_listeners();
    }

    /// Reads one status (`kind`: exactly one writer bit of [`super::status`]) and resets its
    /// changes. Thread-safe.
    pub fn status(&self, kind: StatusMask) -> Result<Status> {
        Ok(self.shared.events.take(single_status(kind, WRITER_STATUSES, "writer")?))
    }

    /// The statuses changed since they were last read.
    pub fn status_changes(&self) -> StatusMask {
        self.shared.events.changes()
    }

    /// Calls `listener(status_bit)` whenever a status changes, with no engine lock held.
    /// Replaces the previous listener (`None` clears it); once this returns the previous one is
    /// not running (unless called from inside a listener).
    pub fn set_status_listener(&self, listener: Option<Arc<StatusListener>>) {
        self.shared.events.set_status_listener(listener);
    }

    pub(crate) fn events(&self) -> &Arc<Events> {
        &self.shared.events
    }

    /// A reliable KEEP_ALL writer waits, before anything is numbered, while a reliable KEEP_ALL
    /// reader of this process holds `keep_all_max` untaken samples (the reader's max_samples, as
    /// a remote reader's ring or acknowledgments make the network paths wait), up to
    /// max_blocking_time. The writer's lock is not held while waiting: the reader's `take`
    /// signals its `room` condition variable.
    fn wait_intra_room(&self, until: Option<Instant>) -> Result<()> {
        loop {
            let st = self.shared.lock();
            let Some(full) = st.matched.iter().find(|r| r.keeps_all_and_is_full()).cloned() else { return Ok(()) };
            drop(st);
            if !full.wait_room(until) {
                return Err(Error::new(
                    ErrorKind::Timeout,
                    format!(
                        "write blocked for max_blocking_time ({:?}): reader {} of this process holds {} samples \
                         it has not taken (its KEEP_ALL history is full)",
                        self.shared.qos.max_blocking_time, full.guid, self.shared.keep_all_max
                    ),
                ));
            }
        }
    }

    /// Runs the RTPS write of a write that started at `start`, waiting (without the lock) while a
    /// KEEP_ALL history is full.
    #[allow(clippy::too_many_arguments)]
    fn write_rtps<'a>(
        &'a self,
        net: &Network,
        mut st: MutexGuard<'a, WriterState>,
        data: &Payload,
        meta: SampleMeta,
        only_for: Option<Guid>,
        out: &mut Outbox,
        start: Instant,
    ) -> Result<(MutexGuard<'a, WriterState>, i64)> {
        let deadline = start.checked_add(self.shared.qos.max_blocking_time);
        let mut now = start;
        loop {
            let Some(port) = st.net.as_mut() else {
                return Err(Error::new(ErrorKind::AlreadyDeleted, "the writer has no network state"));
            };
            let written = match only_for {
                // A same-process target is unknown to the machine: it only numbers the sample
                // and tells the remote readers it is not for them. Directed writes are not batched.
                Some(reader) => port.drive(out, |w, a| w.write_to(now, Payload::clone(data), meta, reader, a)),
                None => port.write(now, Payload::clone(data), meta, out),
            };
            match written {
                Ok(sn) => return Ok((st, sn)),
                Err(WriteBlocked) => {
                    // Send the HEARTBEAT the machine asked for, without the lock.
                    let next = port.next_deadline();
                    self.shared.send_in_turn(st, out, |out| net.flush(out));
                    net.timer.schedule(next);
                    now = Instant::now();
                    if deadline.is_some_and(|d| now >= d) {
                        return Err(Error::new(
                            ErrorKind::Timeout,
                            format!(
                                "write blocked for max_blocking_time ({:?}): the KEEP_ALL history holds {} \
                                 samples no reliable reader has acknowledged yet",
                                self.shared.qos.max_blocking_time, self.shared.keep_all_max
                            ),
                        ));
                    }
                    st = self.shared.lock();
                    if st.net.as_ref().is_some_and(|p| p.rtps.can_write()) {
                        continue;
                    }
                    // Wake at least every fast HEARTBEAT period to ask again (the machine paces it).
                    let left = deadline.map_or(Duration::from_secs(3600), |d| d.saturating_duration_since(now));
                    st.acked_waiters += 1;
                    st = self
                        .shared
                        .acked
                        .wait_timeout(st, left.min(Duration::from_millis(10)))
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                    st.acked_waiters -= 1;
                }
            }
        }
    }

    /// Sends what write batching ([`crate::NetworkConfig::write_batching`]) still holds back;
    /// without batching there is nothing to send.
    pub fn flush(&self) {
        let mut out = Outbox::new();
        let mut st = self.shared.lock();
        let Some(port) = st.net.as_mut() else { return };
        port.flush_batch(&mut out);
        let next = port.next_deadline();
        self.shared.send_in_turn(st, &mut out, |out| {
            if let Some(net) = &self.net {
                net.flush(out);
            }
        });
        if let Some(net) = &self.net {
            net.timer.schedule(next);
        }
    }

    /// The network locators this writer sends from: the participant's send socket (shared by
    /// all its writers). Empty for a same-process-only participant.
    pub fn locators(&self) -> Vec<Locator> {
        self.net.as_ref().map(|n| n.send_locators()).unwrap_or_default()
    }

    /// The RTPS writer's counters (samples sent and resent, HEARTBEATs, blocked writes...);
    /// None without a network.
    pub fn protocol_stats(&self) -> Option<WriterStats> {
        self.shared.lock().net.as_ref().map(|p| p.rtps.stats())
    }

    /// The RTPS writer's state, per remote reader (acknowledged SN, queued repairs, counters), as
    /// text for a report; None without a network.
    pub fn protocol_state(&self) -> Option<String> {
        self.shared.lock().net.as_ref().map(|p| p.rtps.describe(Instant::now()))
    }

    /// How many readers this writer currently delivers to: same-process and remote.
    pub fn matched_reader_count(&self) -> usize {
        let st = self.shared.lock();
        let shm = self.shared.shm.as_ref().map_or(0, |s| s.reader_count());
        st.matched.len() + st.net.as_ref().map_or(0, |p| p.matched_count()) + shm
    }

    /// Whether `reader` (same-process or remote) is matched with this writer: a directed write
    /// can reach it.
    pub fn has_matched_reader(&self, reader: Guid) -> bool {
        self.shared.has_matched_reader(&self.shared.lock(), reader)
    }

    /// Whether `reader` is matched and knows this writer: a same-process, same-host (its ring
    /// cursor starts where the match happened) or best-effort reader as soon as it is matched, a
    /// remote reliable one once it has sent an ACKNACK. What a service client waits for before its
    /// first request, which a reader that did not know the writer yet could drop.
    pub fn is_known_by_reader(&self, reader: Guid) -> bool {
        let st = self.shared.lock();
        st.matched.iter().any(|r| r.guid == reader)
            || self.shared.shm.as_ref().is_some_and(|s| s.has_reader(reader))
            || st.net.as_ref().is_some_and(|p| {
                p.is_matched(reader) && p.rtps.reader(reader).is_some_and(|r| !r.reliable || r.has_acknacked())
            })
    }

    /// Waits until every matched remote reliable reader has acknowledged every sample written, or
    /// `timeout` passes; true when they have. Same-process readers have everything at once.
    pub fn wait_for_acknowledgments(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        let mut st = self.shared.lock();
        loop {
            let shm_read = self.shared.shm.as_ref().map_or(true, |s| s.all_read());
            if shm_read && st.net_acked() {
                return true;
            }
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(l) if !l.is_zero() => l,
                    _ => return false,
                },
                None => Duration::from_secs(3600),
            };
            // Same-host readers signal nothing here: look again soon while they have not read all.
            let left = if shm_read { left } else { left.min(Duration::from_millis(1)) };
            st.acked_waiters += 1;
            st = self.shared.acked.wait_timeout(st, left).unwrap_or_else(|p| p.into_inner()).0;
            st.acked_waiters -= 1;
        }
    }

    /// Remote readers on this topic that did not match, and why.
    pub fn match_status(&self) -> MatchStatus {
        *super::net::lock(&self.shared.mismatch)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if let Some(shm) = &self.shared.shm {
            shm.close();
        }
        self.shared.events.clear_listeners();
        intra::merger().remove_writer(&self.shared);
        if let Some(net) = &self.net {
            net.remove_local_writer(&self.shared);
        }
        run_listeners();
        self.graph.local_endpoint(self.endpoint_info(), false);
    }
}
