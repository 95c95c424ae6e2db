//! The shared-memory side of a participant's network runtime ([`crate::transport::shm`] has the
//! design): which peers it serves, matching through it instead of UDP, and the reader thread.
//!
//! - **Matching.** Discovery decides per remote participant: one that announces our shared-memory
//!   locator ([`Network::shm_peer`]) gets no user data over UDP. A local writer serves its readers
//!   through its ring ([`Network::match_remote_reader`]), a local reader attaches to the remote
//!   writer's ring ([`Network::shm_attach`]); the RTPS machines never hear of such pairs, so a
//!   sample cannot arrive twice.
//! - **The reader thread** (one per participant, `hdds-shm-*`) sleeps on the participant's
//!   doorbell, drains every attached ring into its readers' histories (waking wait sets and
//!   queueing listener calls, which it runs once no lock is held), publishes the cursors, and
//!   sleeps again: spin first (the participant's `wait_spin`, `crate::spin`), then futex, 1 s at
//!   most (1 ms while a KEEP_ALL reader's queue is full, so that it goes on soon after the
//!   application takes; [`SharedMemoryConfig::handoff`] while application threads drain in a loop:
//!   standby, see `transport/shm/doorbell.rs`).
//! - **Departures.** A remote writer disposed in SEDP or lost with its participant's lease is
//!   detached (SUBSCRIPTION_MATCHED and LIVELINESS_CHANGED change as on the UDP path); once its
//!   participant is gone and its process is dead, its segments are removed.
//!
//! Lock order: the discovery and map locks of [`Network`], then `sources`, then a reader's history.

use crate::payload::Payload;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::send::Outbox;
use super::writer_leases::WriterLeases;
use super::{lock, read, Network};
use crate::error::{Error, ErrorKind, Result};
use crate::qos::{Durability, Qos};
use crate::rtps::{Delivery, MatchedReader, SampleMeta};
use crate::runtime::events::run_listeners;
use crate::runtime::reader::ReaderShared;
use crate::runtime::sample::Sample;
use crate::runtime::status::SAMPLE_LOST;
use crate::runtime::writer::WriterShared;
use crate::spin::{spin_until, Pace, Waited};
use crate::transport::shm::doorbell::Doorbell;
use crate::transport::shm::ring::{ReaderCursor, RingPayload, RingView, SampleDesc};
use crate::transport::shm::segment::{self, Liveness, NAME_PREFIX};
use crate::transport::shm::writer::{bump, Bells, Counters, ShmWriter};
use crate::transport::shm::{self as shm, SharedMemoryConfig};
use crate::wire::{Guid, GuidPrefix, VENDOR_ID_HDDS};

/// How long the reader thread sleeps at most with nothing to do. Only a net: every sample rings
/// (a writer that rings no one has a drainer to serve it), a match rings, a stop kicks. It was
/// 100 ms: ten wake-ups a second of every idle participant, 0.05 % of a core on this VM, as much
/// as the rest of an idle ROS node's engine threads (results/ros_compare_notes.md, session 16).
const IDLE_WAIT: Duration = Duration::from_secs(1);
/// How long it sleeps at most while a KEEP_ALL reader's full queue holds a ring back.
const BACKLOG_WAIT: Duration = Duration::from_millis(1);

/// One local reader attached to one remote writer's ring.
struct Source {
    reader: Arc<ReaderShared>,
    writer: Guid,
    view: Arc<RingView>,
    /// `None` until the writer has matched the reader too (or after it detached it).
    cursor: Option<ReaderCursor>,
}

/// KEEP_ALL: samples stay in the ring once the reader holds keep_all_max_samples untaken (DDS's
/// max_samples), so that a reliable KEEP_ALL writer blocks once the ring is full too, instead of
/// the reader's memory growing without bound.
fn held_back(reader: &ReaderShared) -> bool {
    reader.qos.depth().is_none() && reader.queue_len() >= reader.keep_all_max
}

/// A participant's shared-memory state.
pub(crate) struct ShmPort {
    pub(crate) cfg: SharedMemoryConfig,
    /// The participant's [`crate::ParticipantConfig::wait_spin`], for the reader thread's waits.
    spin: Duration,
    doorbell: Doorbell,
    bells: Arc<Bells>,
    pub(crate) counters: Arc<Counters>,
    sources: Mutex<Vec<Source>>,
    /// Where a sample read from a ring renews its writer's LIVELINESS lease.
    leases: Arc<WriterLeases>,
    /// The writers `drain` read from whose leases it renews once `sources` is unlocked (the lease
    /// map's lock comes before `sources`: matching attaches under it). Reused.
    renewed: Mutex<Vec<Guid>>,
    stop: AtomicBool,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl ShmPort {
    /// Removes this user's stale segments, creates the participant's doorbell and starts its
    /// reader thread.
    pub(crate) fn start(
        participant: Guid,
        cfg: SharedMemoryConfig,
        spin: Duration,
        thread_name: String,
        leases: Arc<WriterLeases>,
    ) -> Result<Arc<ShmPort>> {
        let counters = Arc::new(Counters::default());
        bump(&counters.segments_reclaimed, segment::reclaim_stale(NAME_PREFIX) as u64);
        let port = Arc::new(ShmPort {
            cfg,
            spin,
            doorbell: Doorbell::create(participant)?,
            bells: Arc::default(),
            counters,
            sources: Mutex::new(Vec::new()),
            leases,
            renewed: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            thread: Mutex::new(None),
        });
        let p = Arc::clone(&port);
        match std::thread::Builder::new().name(thread_name).spawn(move || p.run()) {
            Ok(h) => *lock(&port.thread) = Some(h),
            Err(e) => {
                port.doorbell.unlink();
                return Err(Error::new(ErrorKind::Io, format!("could not start the shared-memory thread: {e}")));
            }
        }
        Ok(port)
    }

    /// Stops the thread, lets go of every ring and removes the doorbell. Idempotent.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        self.doorbell.kick_reader();
        if let Some(h) = lock(&self.thread).take() {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        lock(&self.sources).clear();
        self.doorbell.unlink();
    }

    fn run(self: Arc<Self>) {
        let mut gaps = 0;
        let pace = Pace::default();
        while !self.stop.load(Ordering::Acquire) {
            let seen = self.doorbell.current();
            let backlog = self.drain();
            run_listeners();
            // Sleeps while an application thread drains (doorbell mode), or until the next ring.
            let timeout = if backlog { BACKLOG_WAIT } else { IDLE_WAIT };
            pace.wait(self.spin, |_, spin| self.doorbell.reader_wait(seen, spin, timeout, self.cfg.handoff, &mut gaps));
            bump(&self.counters.reader_thread_wakeups, 1);
        }
    }

    /// The doorbell's count, for [`ShmPort::sleep`].
    pub(crate) fn bell(&self) -> u32 {
        self.doorbell.current()
    }

    /// Wakes the application threads sleeping in [`ShmPort::sleep`] (a wait set whose entry
    /// became ready in this process); true if one slept.
    pub(crate) fn wake_drainers(&self) -> bool {
        self.doorbell.wake_drainers()
    }

    /// Sleeps until the doorbell moves past `seen` (spinning up to `spin` first), at most
    /// `timeout`: `Some` when it rang (or a sample came during the spin), saying how, `None` at
    /// the timeout.
    ///
    /// The spin also looks at the next slot of each attached ring: a writer publishes the sample
    /// there before it rings, and ringing is an atomic add on the line the spin would otherwise
    /// watch, so the spinner sees the sample one cache-line hand-over sooner (and one `head` read
    /// less in `drain`). Sleepers still need the bell: only it has a futex.
    pub(crate) fn sleep(&self, seen: u32, spin: Duration, timeout: Duration) -> Option<Waited> {
        self.doorbell.wait(seen, spin, timeout, || self.next_published())
    }

    /// Whether an attached ring has published its reader's next sample (a look, no lock wait: a
    /// drain or a match holding `sources` makes it say no this time).
    #[link_section = ".text.hot.hdds"]
    fn next_published(&self) -> bool {
        let Ok(sources) = self.sources.try_lock() else { return false };
        // The stamp first: held_back takes a KEEP_ALL reader's history lock, and this runs in a spin.
        sources.iter().any(|s| s.cursor.as_ref().is_some_and(|c| s.view.next_published(c)) && !held_back(&s.reader))
    }

    /// An application thread starts waiting on the doorbell: writers wake it, not the reader
    /// thread, and it drains the rings itself.
    pub(crate) fn enter_drainer(&self) {
        self.doorbell.enter_drainer();
    }

    /// ... and stops, having drained everything rung up to doorbell count `drained`.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn leave_drainer(&self, drained: u32) {
        self.doorbell.leave_drainer(drained, || self.unread());
    }

    /// Whether an attached ring may hold something for its reader (a ring whose reader entry is
    /// not found yet counts: only a drain looks for it).
    fn unread(&self) -> bool {
        lock(&self.sources).iter().any(|s| s.cursor.as_ref().map_or(true, |c| s.view.has_unread(c)))
    }

    /// Moves what every attached ring holds into the readers' histories; true while a KEEP_ALL
    /// reader's full queue holds a ring back. The reader thread calls it after each wake-up, and so
    /// does an application thread that waits for one of the participant's readers (a wait set in
    /// doorbell mode): the sample then wakes one thread, the one that waits for it.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn drain(&self) -> bool {
        let mut backlog = false;
        // Only while some remote writer has a manual lease (rarely): no lock otherwise.
        let mut renewed = self.leases.tracking().then(|| lock(&self.renewed));
        let mut sources = lock(&self.sources);
        for s in sources.iter_mut() {
            let cur = match &mut s.cursor {
                Some(c) => c,
                None => match s.view.find_reader(s.reader.guid) {
                    Some(c) => s.cursor.insert(c),
                    None => continue,
                },
            };
            let mut read = 0;
            let mut waiting = false;
            loop {
                if held_back(&s.reader) {
                    backlog = s.view.has_unread(cur);
                    break;
                }
                let (desc, data, pin) = if let Some(pin_from) = s.reader.pin_from() {
                    // The application takes loans or reads in place: leave a payload that large in
                    // the ring, pinned, when the reader still has a pin word free (reader_loan.rs).
                    let budget = s.view.pin_budget();
                    let Some((desc, got)) = s.view.read_next_pinned(cur, s.reader.guid, budget, pin_from) else {
                        break;
                    };
                    match got {
                        RingPayload::Copied(data) => (desc, data, None),
                        RingPayload::Pinned(pin) => (desc, Payload::empty(), Some(pin)),
                    }
                } else {
                    let Some((desc, data)) = s.view.read_next(cur, s.reader.guid) else { break };
                    (desc, data, None)
                };
                let added = s.reader.deliver_remote_pinned(delivery(s.writer, desc, data), pin, crate::time::now());
                waiting |= added == Some(true);
                read += 1;
            }
            if read > 0 {
                // Once for everything this ring held, as the receive thread does per datagram.
                s.reader.wake_with(waiting);
                if let Some(renewed) = renewed.as_mut().filter(|r| !r.contains(&s.writer)) {
                    renewed.push(s.writer);
                }
            }
            self.settle(s, read);
        }
        drop(sources);
        if let Some(mut renewed) = renewed {
            let now = Instant::now();
            for w in renewed.drain(..) {
                self.leases.renew(w, now);
            }
        }
        backlog
    }

    /// After `read` samples were read from `s`: counts them, reports what the reader missed
    /// (SAMPLE_LOST) and publishes its cursor.
    fn settle(&self, s: &mut Source, read: u64) {
        bump(&self.counters.samples_read, read);
        let Some(cur) = s.cursor.as_mut() else { return };
        if cur.lost > 0 {
            bump(&self.counters.samples_lost, cur.lost);
            let lost = i32::try_from(cur.lost).unwrap_or(i32::MAX);
            s.reader.events.update(SAMPLE_LOST, |st| st.add_total(lost));
            cur.lost = 0;
        }
        if !s.view.commit(cur) {
            // The writer detached us (it may match us again: look for a new entry).
            s.cursor = None;
        }
    }

    /// A busy reader's wait and take in one ([`crate::Reader::take_timeout`]): registered as a
    /// drainer, it looks for up to `spin` at the next slot of every attached ring (as a wait set's
    /// spin does: the participant's other readers' samples end it too, and are drained), at the
    /// reader's arrivals by other paths and at the doorbell. A sample published in one of the
    /// reader's rings goes straight from the ring to the caller when nothing else decides its fate
    /// ([`ShmPort::take_direct`]). Anything else (another reader's sample, a backlog, an arrival
    /// by another path, a signal) is drained as a wait set in doorbell mode drains it, and left to
    /// the caller's `take`.
    ///
    /// Why: a sample that a wait set drains is pushed into the history, wakes the wait set, which
    /// looks at every entry, returns, and the history is popped: a dozen lock round trips and the
    /// wait set's lines between seeing the sample and handing it over, most of the busy-polling
    /// hop (results/same_host_notes.md).
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn spin_take(&self, reader: &Arc<ReaderShared>, spin: Duration) -> Spun {
        if spin.is_zero() {
            return Spun::Nothing;
        }
        let arrivals = reader.arrivals();
        self.enter_drainer();
        let seen = self.bell();
        let came = spin_until(spin, || {
            self.next_published() || reader.arrivals() != arrivals || self.doorbell.rung_since(seen)
        });
        let spun = if !came {
            Spun::Nothing
        } else if let Some(taken) = self.take_direct(reader) {
            Spun::Taken(taken)
        } else {
            self.drain();
            Spun::Other
        };
        // Not `drained`: a direct take drained only the reader's own ring. The reader thread is
        // kicked if any ring rang since `seen` still holds something.
        self.leave_drainer(seen);
        run_listeners();
        spun
    }

    /// Reads `reader`'s next same-host sample out of its ring for a thread that takes it now
    /// ([`ShmPort::spin_take`]): `Some(sample)`, or `Some(None)` when what it read is not handed
    /// out (a disposal of a keyless topic, a sample its filter refuses, one replaced meanwhile).
    /// `None` when the sample must go through the history instead: the reader does not take
    /// directly ([`ReaderShared::takes_directly`]: its history holds samples, it is keyed, has a
    /// data listener or writers with a LIFESPAN), it has no ring with exactly this one sample
    /// waiting (with more, the history's depth decides which stay: the one read is pushed and the
    /// caller drains the rest), or manual liveliness leases are tracked (a drain renews them).
    #[link_section = ".text.hot.hdds"]
    fn take_direct(&self, reader: &Arc<ReaderShared>) -> Option<Option<Sample>> {
        if self.leases.tracking() {
            return None;
        }
        let mut sources = lock(&self.sources);
        // Under `sources`, so that no drain moves this reader's samples into its history meanwhile.
        if !reader.takes_directly() {
            return None;
        }
        let mut waiting = sources
            .iter_mut()
            .filter(|s| Arc::ptr_eq(&s.reader, reader) && s.cursor.as_ref().is_some_and(|c| s.view.has_unread(c)));
        let s = waiting.next()?;
        if waiting.next().is_some() {
            return None;
        }
        let cur = s.cursor.as_mut()?;
        let Some((desc, data)) = s.view.read_next(cur, reader.guid) else {
            self.settle(s, 0);
            return Some(None);
        };
        let more = s.view.has_unread(cur);
        let (d, now) = (delivery(s.writer, desc, data), crate::time::now());
        let taken = if more {
            if let Some(waiting) = reader.deliver_remote_pinned(d, None, now) {
                reader.wake_with(waiting);
            }
            None
        } else {
            let sample = reader.remote_sample(d, None, now);
            if sample.is_some() {
                reader.renew_deadline();
                bump(&self.counters.direct_takes, 1);
            }
            Some(sample)
        };
        self.settle(s, 1);
        taken
    }

    /// A ring for local writer `guid`.
    pub(crate) fn new_writer(&self, guid: Guid, qos: &Qos) -> Result<ShmWriter> {
        ShmWriter::new(guid, &self.cfg, qos, Arc::clone(&self.bells), Arc::clone(&self.counters))
    }

    /// Attaches `reader` to remote writer `writer`'s ring; true if it is a new match.
    fn attach(&self, reader: &Arc<ReaderShared>, writer: Guid) -> Result<bool> {
        let mut sources = lock(&self.sources);
        if sources.iter().any(|s| s.writer == writer && Arc::ptr_eq(&s.reader, reader)) {
            return Ok(false);
        }
        let view = match sources.iter().find(|s| s.writer == writer) {
            Some(s) => Arc::clone(&s.view),
            None => RingView::open(writer)?,
        };
        sources.push(Source { reader: Arc::clone(reader), writer, view, cursor: None });
        drop(sources);
        // The writer may have matched us already: look at once.
        self.doorbell.ring();
        Ok(true)
    }

    /// Remote writer `writer` is gone: its readers stop counting it (as `alive` or not).
    fn detach_writer(&self, writer: Guid, alive: bool) {
        let gone: Vec<Source> = {
            let mut sources = lock(&self.sources);
            let (gone, kept) = std::mem::take(&mut *sources).into_iter().partition(|s| s.writer == writer);
            *sources = kept;
            gone
        };
        for s in &gone {
            s.reader.shm_writers.fetch_sub(1, Ordering::Relaxed);
            s.reader.writer_matched(-1, alive);
        }
        if let Some(s) = gone.first() {
            if s.view.segment().owner().liveness() == Liveness::Dead {
                s.view.segment().unlink();
                bump(&self.counters.segments_reclaimed, 1);
            }
        }
    }

    /// Whether `reader` is attached to `writer`'s ring and `f` holds of that attachment.
    fn attached_and(&self, reader: &ReaderShared, writer: Guid, f: impl Fn(&Source) -> bool) -> bool {
        lock(&self.sources).iter().any(|s| s.writer == writer && std::ptr::eq(Arc::as_ptr(&s.reader), reader) && f(s))
    }

    /// Whether `reader` is attached to `writer`'s ring.
    fn attached(&self, reader: &ReaderShared, writer: Guid) -> bool {
        self.attached_and(reader, writer, |_| true)
    }

    /// Whether `reader` is attached to `writer`'s ring and the writer has made it an entry there:
    /// the writer has matched it and places its samples for it.
    fn served(&self, reader: &ReaderShared, writer: Guid) -> bool {
        self.attached_and(reader, writer, |s| s.cursor.is_some() || s.view.find_reader(reader.guid).is_some())
    }

    /// Local reader `reader` is deleted.
    pub(crate) fn detach_reader(&self, reader: &Arc<ReaderShared>) {
        lock(&self.sources).retain(|s| !Arc::ptr_eq(&s.reader, reader));
    }

    /// Participant `prefix` left: forget its doorbell and remove its segments if its process is
    /// dead (a clean departure removed them already; a live process keeps its own).
    fn peer_gone(&self, prefix: GuidPrefix) {
        self.bells.forget(prefix);
        let n = segment::reclaim_stale(&segment::participant_name_prefix(prefix));
        bump(&self.counters.segments_reclaimed, n as u64);
    }
}

/// What [`ShmPort::spin_take`] found.
pub(crate) enum Spun {
    /// A sample read straight from its ring (`None`: what was read is not handed out; look again).
    Taken(Option<Sample>),
    /// Something else came and was drained into the histories: the caller's `take` looks.
    Other,
    /// Nothing within the spin.
    Nothing,
}

/// A sample read from a ring, as the RTPS machines hand theirs over: one delivery path for both.
fn delivery(writer: Guid, d: SampleDesc, payload: Payload) -> Delivery {
    let meta = SampleMeta {
        source_timestamp: Some(d.source_timestamp),
        related_sample_identity: d.related,
        key_hash: d.key_hash,
        status_info: d.status_info,
    };
    Delivery { writer, sn: d.sn, meta, payload }
}

impl Network {
    /// Whether participant `prefix` is reached through shared memory: an hdds participant that
    /// announces our shared-memory locator, and shared memory is on here.
    pub(crate) fn shm_peer(&self, prefix: GuidPrefix) -> bool {
        self.shm.is_some()
            && read(&self.participants)
                .get(&prefix)
                .is_some_and(|p| p.data.vendor_id == VENDOR_ID_HDDS && shm::reachable(&p.data.default_unicast_locators))
    }

    /// Matches local writer `w` with remote reader `r`: through the writer's ring for a same-host
    /// peer, unless the reader asked for UDP (`udp`: it could not attach, shm_fallback.rs), else
    /// through the RTPS machine. Returns the machine's next deadline.
    pub(crate) fn match_remote_reader(
        &self,
        w: &WriterShared,
        now: Instant,
        r: MatchedReader,
        addr: std::net::SocketAddr,
        udp: bool,
        out: &mut Outbox,
    ) -> Option<Instant> {
        if let (Some(port), Some(_), false) = (&self.shm, &w.shm, udp) {
            if self.shm_peer(r.guid.prefix) {
                match w.shm_match_reader(r.guid, r.reliable, r.durability == Durability::TransientLocal) {
                    Ok(true) => w.reader_matched(1),
                    Ok(false) => {}
                    Err(_) => bump(&port.counters.attach_failures, 1),
                }
                return None;
            }
        }
        w.net_match_reader(now, r, addr, out)
    }

    /// Remote reader `reader` no longer matches local writer `w` (on whichever path it had).
    pub(crate) fn unmatch_remote_reader(&self, w: &WriterShared, reader: Guid) {
        if w.shm.as_ref().is_some_and(|sw| sw.unmatch_reader(reader)) {
            w.reader_matched(-1);
        }
        w.net_unmatch_reader(reader);
    }

    /// Attaches local reader `r` to remote writer `writer` (which is `alive` or not) if their
    /// participants share memory; false when the UDP path must be used: not a same-host peer, or
    /// its ring could not be opened (counted; shm_fallback.rs).
    pub(crate) fn shm_attach(&self, r: &Arc<ReaderShared>, writer: Guid, alive: bool) -> bool {
        let Some(port) = &self.shm else { return false };
        if !self.shm_peer(writer.prefix) {
            return false;
        }
        match port.attach(r, writer) {
            Ok(true) => {
                r.shm_writers.fetch_add(1, Ordering::Relaxed);
                r.writer_matched(1, alive);
            }
            Ok(false) => {}
            Err(e) => {
                bump(&port.counters.attach_failures, 1);
                super::shm_fallback::log_once(&e);
                return false;
            }
        }
        true
    }

    /// Whether local reader `r` gets `writer`'s samples through shared memory.
    pub(crate) fn shm_attached(&self, r: &ReaderShared, writer: Guid) -> bool {
        self.shm.as_ref().is_some_and(|p| p.attached(r, writer))
    }

    /// Whether `writer`, on this host, has matched local reader `r` in its ring.
    pub(crate) fn shm_served(&self, r: &ReaderShared, writer: Guid) -> bool {
        self.shm.as_ref().is_some_and(|p| p.served(r, writer))
    }

    /// Remote writer `writer` is gone (disposed, or its participant lost); it was `alive` or not.
    pub(crate) fn shm_detach_writer(&self, writer: Guid, alive: bool) {
        if let Some(port) = &self.shm {
            port.detach_writer(writer, alive);
        }
    }

    /// Remote participant `prefix` is gone: its leftovers are removed if its process is dead.
    pub(crate) fn shm_peer_gone(&self, prefix: GuidPrefix) {
        if let Some(port) = &self.shm {
            port.peer_gone(prefix);
        }
    }
}
