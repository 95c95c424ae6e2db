//! A reader of serialized samples, with its history and its waiters.
//!
//! Samples arrive from same-process writers (on the writer's thread) and, with the network on,
//! from the receive thread, which runs the reader's RTPS machine under the reader's port lock and
//! delivers what it releases straight into the history. The port lock comes before the history
//! lock; a reader never holds both a writer's and its own port lock.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::deadline::Deadline;
use super::discovery_events::{EndpointInfo, Graph};
use super::events::{run_listeners, DataListener, Events, StatusListener};
use super::instances::ReaderKeys;
use super::net::endpoint::{ReaderMachine, ReaderPort};
use super::net::shm::Spun;
use super::net::{lock, Network};
use super::participant::{EndpointOptions, Participant};
use super::sample::Sample;
use super::status::{single_status, MatchStatus, Status, StatusMask, READER_STATUSES};
use super::watchdog;
use crate::error::Result;
use crate::qos::{Qos, Reliability};
use crate::rtps::{BestEffortReader, BestEffortReaderConfig, ReaderConfig, ReaderStats, StatefulReader};
use crate::spin::{spin_until, Pace, Waited};
use crate::time;
use crate::transport::intra::{self, TopicKey};
use crate::wire::{EntityKind, Guid, Locator};

#[path = "reader_loan.rs"]
mod loan;
pub use loan::ReaderLoan;

#[path = "reader_shared.rs"]
mod shared;

/// A reader-side content filter: true if a sample, given its serialized payload (encapsulation
/// header included), may enter the reader's history. See [`Reader::set_sample_filter`].
pub type SampleFilter = dyn Fn(&[u8]) -> bool + Send + Sync;

pub struct Reader {
    shared: Arc<ReaderShared>,
    net: Option<Arc<Network>>,
    /// Its participant's graph, told when the reader goes.
    graph: Arc<Graph>,
    /// The wait set `wait_for_data` reuses with same-host writers: it stays attached between
    /// waits, as a long-lived wait set does (no allocation, attach and detach per wait).
    data_wait: Mutex<super::waitset::WaitSet>,
    /// Whether `wait_for_data` spins before sleeping on `data_available` (`crate::spin`).
    pace: Pace,
}

/// What [`ReaderShared::push`] did with a sample it added.
struct Pushed {
    /// A thread sleeps in `wait_for_data` (read under the history lock, for
    /// [`ReaderShared::wake_with`]).
    waiting: bool,
    /// The sample KEEP_LAST replaced, handed back so that it is dropped with no lock held.
    replaced: Option<Sample>,
}

pub(crate) struct ReaderShared {
    pub(crate) guid: Guid,
    pub(crate) topic: TopicKey,
    pub(crate) type_name: String,
    pub(crate) qos: Qos,
    /// USER_DATA, announced in SEDP.
    pub(crate) user_data: Arc<[u8]>,
    pub(crate) partition: Vec<String>,
    /// Not matched with the writers of its own participant.
    pub(crate) ignore_local_participant: bool,
    state: Mutex<ReaderState>,
    /// The participant's KEEP_ALL history cap ([`crate::ParticipantConfig::keep_all_max_samples`]).
    pub(crate) keep_all_max: usize,
    /// Signalled when a KEEP_ALL reader's sample is taken: a same-process writer blocked on its
    /// full history may go on.
    room: Condvar,
    /// Signalled whenever a sample is added.
    data_available: Condvar,
    /// Bumped by every [`ReaderShared::wake`]: what a spinning `wait_for_data` looks at.
    arrivals: AtomicU32,
    /// The participant's [`crate::ParticipantConfig::wait_spin`].
    pub(crate) wait_spin: Duration,
    /// The participant's [`crate::ParticipantConfig::wake_slice`].
    pub(crate) wake_slice: Duration,
    /// The RTPS side, when the participant is on the network.
    port: Option<Mutex<ReaderPort>>,
    /// Same-process writers delivering to this reader.
    pub(crate) intra_writers: AtomicUsize,
    /// Same-host writers delivering through shared memory (runtime/net/shm.rs).
    pub(crate) shm_writers: AtomicUsize,
    mismatch: Mutex<MatchStatus>,
    /// Keyed topics: how instances are told apart.
    keys: Option<ReaderKeys>,
    /// Statuses, attached wait sets, listeners.
    pub(crate) events: Arc<Events>,
    pub(crate) deadline: Option<Deadline>,
    /// Held while the filter runs, so that replacing it waits for a running call.
    filter: Mutex<Option<Arc<SampleFilter>>>,
    /// Whether `filter` holds one (set under its lock): a reader without one, nearly every
    /// reader, takes no lock for it per sample.
    filtered: AtomicBool,
    /// Arrivals refused because the KEEP_ALL history held `keep_all_max` untaken samples
    /// ([`Reader::history_refusals`]).
    history_refused: AtomicU64,
    /// The history's length, stored by [`ReaderShared::note_fill`] in the critical sections that
    /// change it, so that the per-sample full-check ([`ReaderShared::keeps_all_and_is_full`]) and
    /// a wait set's look at the reader ([`ReaderShared::queue_len`], once per entry per wait, two
    /// waits per sample in a ROS executor) take no lock.
    queued: AtomicUsize,
    /// Same-host samples of at least this many bytes stay in their writer's ring, pinned, until
    /// taken: 0 once the application takes loans, `PIN_FROM` once it reads in place
    /// (runtime/reader_loan.rs); `usize::MAX` (never) until then.
    pub(crate) pin_from: AtomicUsize,
}

struct ReaderState {
    queue: VecDeque<Sample>,
    /// The matched writers whose LIFESPAN is finite: a sample of theirs older (by its source
    /// timestamp) than the lifespan is dropped instead of taken. Empty in the common case.
    lifespans: Vec<(Guid, i64)>,
    /// Threads in `wait_for_data`: a wake-up notifies the condition variable only when there is
    /// one (a futex wake per sample would otherwise cost a system call per sample).
    waiters: usize,
    /// Writers of this process in `wait_room`: a take notifies `room` only when there is one.
    room_waiters: usize,
}

impl ReaderState {
    fn expired(&self, s: &Sample, now: time::Timestamp) -> bool {
        self.lifespans
            .iter()
            .find(|(g, _)| *g == s.info.writer_guid)
            .is_some_and(|(_, ns)| s.info.source_timestamp.saturating_add(*ns) < now)
    }
}

impl Reader {
    /// `keys`: `Some` for a reader of a keyed topic ([`super::instances`]).
    pub(crate) fn new(
        participant: &Participant,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        options: &EndpointOptions,
        keys: Option<ReaderKeys>,
    ) -> Result<Reader> {
        let kind = if keys.is_some() { EntityKind::UserReaderWithKey } else { EntityKind::UserReaderNoKey };
        let guid = participant.new_entity_guid(kind)?;
        let net = participant.network().cloned();
        let port = net.as_ref().map(|n| {
            let reassembly = n.cfg.reassembly;
            let machine = match qos.reliability {
                Reliability::Reliable => {
                    let defaults = ReaderConfig::new(guid);
                    // The reorder window reaches as far ahead as a KEEP_ALL writer of ours can be
                    // (its history holds keep_all_max_samples unacknowledged). A smaller window
                    // drops every new sample of a writer that is further ahead than the window
                    // after one loss, and the stream settles at each sample sent twice (the
                    // live copy dropped, the repair taken): results/engine_vs_cyclone_notes.md.
                    // The untaken KEEP_ALL history has the same bound, so memory stays of one order.
                    let max_buffered = defaults.max_buffered.max(participant.keep_all_max_samples());
                    ReaderMachine::Reliable(StatefulReader::new(ReaderConfig { reassembly, max_buffered, ..defaults }))
                }
                Reliability::BestEffort => ReaderMachine::BestEffort(BestEffortReader::new(BestEffortReaderConfig {
                    reassembly,
                    ..BestEffortReaderConfig::new(guid)
                })),
            };
            Mutex::new(ReaderPort::new(machine))
        });
        let shared = Arc::new(ReaderShared {
            guid,
            topic: participant.topic_key(topic_name),
            type_name: type_name.to_owned(),
            qos,
            user_data: Arc::from(&options.user_data[..]),
            partition: options.partition.clone(),
            ignore_local_participant: options.ignore_local_participant,
            state: Mutex::new(ReaderState {
                queue: VecDeque::new(),
                lifespans: Vec::new(),
                waiters: 0,
                room_waiters: 0,
            }),
            keep_all_max: participant.keep_all_max_samples(),
            room: Condvar::new(),
            data_available: Condvar::new(),
            arrivals: AtomicU32::new(0),
            wait_spin: participant.wait_spin(),
            wake_slice: participant.wake_slice(),
            port,
            intra_writers: AtomicUsize::new(0),
            shm_writers: AtomicUsize::new(0),
            mismatch: Mutex::new(MatchStatus::default()),
            keys,
            events: Arc::default(),
            deadline: Deadline::new(qos.deadline),
            filter: Mutex::new(None),
            filtered: AtomicBool::new(false),
            history_refused: AtomicU64::new(0),
            queued: AtomicUsize::new(0),
            pin_from: AtomicUsize::new(usize::MAX),
        });
        if shared.deadline.is_some() {
            let weak = Arc::downgrade(&shared);
            watchdog::watch(weak, None)?;
        }
        intra::merger().add_reader(&shared);
        if let Some(net) = &net {
            net.add_local_reader(&shared);
        }
        run_listeners();
        Ok(Reader {
            shared,
            net,
            graph: Arc::clone(participant.graph()),
            data_wait: Mutex::default(),
            pace: Pace::default(),
        })
    }

    pub fn guid(&self) -> Guid {
        self.shared.guid
    }

    /// The reader as discovery events describe it.
    pub fn endpoint_info(&self) -> Arc<EndpointInfo> {
        let s = &self.shared;
        Arc::new(EndpointInfo {
            guid: s.guid,
            participant_guid: self.graph.me().guid,
            vendor_id: self.graph.me().vendor_id,
            is_reader: true,
            topic_name: s.topic.name.clone(),
            type_name: s.type_name.clone(),
            qos: s.qos,
            user_data: Arc::clone(&s.user_data),
        })
    }

    pub fn qos(&self) -> &Qos {
        &self.shared.qos
    }

    /// Takes the oldest sample, if there is one.
    /// Samples whose writer's LIFESPAN has passed are dropped on the way.
    #[link_section = ".text.hot.hdds"]
    pub fn take(&self) -> Option<Sample> {
        let mut s = self.pop();
        if let Some(s) = &mut s {
            s.unpin();
        }
        s
    }

    /// [`Reader::take`], leaving a payload in place if it is.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn pop(&self) -> Option<Sample> {
        let mut st = self.shared.lock();
        let mut s = st.queue.pop_front();
        if !st.lifespans.is_empty() {
            let now = time::now();
            while s.as_ref().is_some_and(|s| st.expired(s, now)) {
                s = st.queue.pop_front();
            }
        }
        crate::capacity::release_burst(&mut st.queue);
        self.shared.note_fill(&st);
        let room_waiters = st.room_waiters;
        drop(st);
        if s.is_some() && room_waiters > 0 {
            self.shared.room.notify_all();
        }
        s
    }

    /// Takes the oldest sample, waiting up to `timeout` for one: `take`, then `wait_for_data`, in a
    /// loop, until a sample comes or the time is up (`None`).
    ///
    /// With same-host writers, while the wait spins (busy polling, or the participant's
    /// `wait_spin` while samples come often), a sample published in one of the reader's rings is
    /// read from the ring straight into the returned sample: it never enters the history, so no
    /// push and pop, no wake-up and no wait set lie on its path ([`ShmPort::spin_take`] says when
    /// that holds; otherwise the sample goes through the history as it would after
    /// `wait_for_data`). The spin is the one `wait_for_data` would make, with the same bound and
    /// pace; after it the thread sleeps on the participant's doorbell as `wait_for_data` does.
    ///
    /// [`ShmPort::spin_take`]: super::net::shm::ShmPort::spin_take
    pub fn take_timeout(&self, timeout: Duration) -> Option<Sample> {
        // The deadline is set at the first wait: a sample that is there already costs no clock
        // reading (25-40 ns here, a tenth of a same-process hop), and the first wait has it all.
        let mut deadline: Option<Option<Instant>> = None;
        loop {
            if let Some(s) = self.take() {
                return Some(s);
            }
            let left = match deadline {
                None => {
                    let now = Instant::now();
                    deadline = Some(now.checked_add(timeout));
                    Some(timeout).filter(|l| !l.is_zero())?
                }
                Some(Some(d)) => d.checked_duration_since(Instant::now()).filter(|l| !l.is_zero())?,
                Some(None) => Duration::MAX,
            };
            let Some(port) = self.shm_port() else {
                self.wait_for_data(left);
                continue;
            };
            let taken = self.pace.wait_if_waited(self.shared.wait_spin, |_, spin| {
                match port.spin_take(&self.shared, spin.min(left)) {
                    Spun::Taken(s) => (s, Waited::InSpin),
                    Spun::Other => (None, Waited::InSpin),
                    Spun::Nothing => {
                        self.wait_on_doorbell(left, false);
                        (None, Waited::Slept)
                    }
                }
            });
            if taken.is_some() {
                return taken;
            }
        }
    }

    /// Waits until a sample is available or `timeout` passes; true when one is available.
    ///
    /// Wake-up model: with same-host writers, as a wait set in doorbell mode (below). Otherwise
    /// it looks at the history, then spins up to the participant's `wait_spin` on `arrivals`
    /// (only while waits are short, `crate::spin`), then sleeps on `data_available`, counted in
    /// `waiters` under the history lock: a delivery pushes, bumps `arrivals`, and notifies only
    /// when a waiter is counted, so a sample caught by the spin costs the writer no syscall.
    pub fn wait_for_data(&self, timeout: Duration) -> bool {
        if self.shm_port().is_some() {
            return self.wait_on_doorbell(timeout, true);
        }
        self.pace
            .wait_if_waited(self.shared.wait_spin, |start, spin| self.sleep_for_data(start, spin.min(timeout), timeout))
    }

    /// `wait_for_data` with same-host writers: wait as a wait set does, on the participant's
    /// doorbell, so that a sample wakes this thread directly (runtime/waitset.rs, doorbell mode);
    /// without the wait set's spin when `spin` is false (the caller spun already).
    fn wait_on_doorbell(&self, timeout: Duration, spin: bool) -> bool {
        let mut entry = [super::waitset::WaitEntry::new(super::waitset::Target::ReaderData(self))];
        let mut wait = |ws: &mut super::waitset::WaitSet| {
            if spin {
                ws.wait(&mut entry[..], Some(timeout))
            } else {
                ws.wait_without_spin(&mut entry[..], timeout)
            }
        };
        match self.data_wait.try_lock() {
            Ok(mut ws) => wait(&mut ws),
            Err(std::sync::TryLockError::Poisoned(p)) => wait(&mut p.into_inner()),
            // Another thread waits on this reader: a wait set of our own.
            Err(std::sync::TryLockError::WouldBlock) => wait(&mut super::waitset::WaitSet::new()),
        }
    }

    /// `wait_for_data` without same-host writers: spin up to `spin`, then sleep on the condition
    /// variable. Whether data came, and how ([`Waited`]; one there at the first look counts as
    /// caught by the spin, as it always has for this wait's pace).
    fn sleep_for_data(&self, start: Instant, spin: Duration, timeout: Duration) -> (bool, Waited) {
        let deadline = start.checked_add(timeout);
        let seen = self.shared.arrivals.load(Ordering::Acquire);
        let mut st = self.shared.lock();
        if st.queue.is_empty() && !spin.is_zero() {
            drop(st);
            spin_until(spin, || self.shared.arrivals.load(Ordering::Acquire) != seen);
            st = self.shared.lock();
        }
        if !st.queue.is_empty() {
            return (true, Waited::InSpin);
        }
        while st.queue.is_empty() {
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left,
                    _ => return (false, Waited::Slept),
                },
                None => Duration::from_secs(3600),
            };
            st.waiters += 1;
            st = self.shared.data_available.wait_timeout(st, left).unwrap_or_else(|p| p.into_inner()).0;
            st.waiters -= 1;
        }
        (true, Waited::Slept)
    }

    /// The participant's [`crate::ParticipantConfig::wait_spin`] (wait sets spin as long).
    pub(crate) fn wait_spin(&self) -> Duration {
        self.shared.wait_spin
    }

    /// The participant's [`crate::ParticipantConfig::wake_slice`] (what a wait set asleep on the
    /// doorbell for this reader asks for).
    pub(crate) fn wake_slice(&self) -> Duration {
        self.shared.wake_slice
    }

    /// The shared-memory side of the reader's participant, when a same-host writer delivers to
    /// the reader through it.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn shm_port(&self) -> Option<&Arc<super::net::shm::ShmPort>> {
        if self.shared.shm_writers.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.net.as_ref()?.shm.as_ref()
    }

    /// The network locators this reader receives on: the participant's user-data unicast port on
    /// each of its interfaces (shared by all its readers; no user-data multicast). Empty for a
    /// same-process-only participant.
    pub fn locators(&self) -> Vec<Locator> {
        self.net.as_ref().map(|n| n.default_locators.clone()).unwrap_or_default()
    }

    /// How many samples wait to be taken.
    pub fn available(&self) -> usize {
        self.shared.queue_len()
    }

    /// How many writers deliver to this reader: same-process and remote.
    /// Samples this KEEP_ALL reader refused because it held `keep_all_max_samples` untaken
    /// ([`crate::ParticipantConfig::keep_all_max_samples`]): best-effort ones are dropped (the
    /// newest, as DDS's KEEP_ALL with RESOURCE_LIMITS max_samples rejects them; also counted in
    /// SAMPLE_LOST), reliable ones from the network are left unacknowledged, so that their writer
    /// sends them again and blocks once its own history is full (each refused arrival counts,
    /// a resent one again). Same-process and same-host reliable writers wait instead.
    pub fn history_refusals(&self) -> u64 {
        self.shared.history_refused.load(Ordering::Relaxed)
    }

    /// The reliable RTPS reader's counters (duplicates, samples beyond its reorder window,
    /// ACKNACKs sent...), summed over its remote writers; None without a network or best-effort.
    pub fn protocol_stats(&self) -> Option<ReaderStats> {
        self.with_reliable(StatefulReader::stats)
    }

    /// The reliable RTPS reader's state, per remote writer (next SN, what it knows the writer
    /// has, partial samples, counters), as text for a report; None without a network or
    /// best-effort.
    pub fn protocol_state(&self) -> Option<String> {
        self.with_reliable(|r| r.describe(Instant::now()))
    }

    /// `f` on the reliable RTPS reader, under its port's lock; None without a network or best-effort.
    fn with_reliable<T>(&self, f: impl FnOnce(&StatefulReader) -> T) -> Option<T> {
        let port = lock(self.shared.port.as_ref()?);
        match &port.rtps {
            ReaderMachine::Reliable(r) => Some(f(r)),
            ReaderMachine::BestEffort(_) => None,
        }
    }

    pub fn matched_writer_count(&self) -> usize {
        let remote = self.shared.port.as_ref().map_or(0, |p| lock(p).matched_count());
        self.shared.intra_writers.load(Ordering::Relaxed) + self.shared.shm_writers.load(Ordering::Relaxed) + remote
    }

    /// Whether `writer` (same-process, same-host or remote) delivers to this reader.
    pub fn has_matched_writer(&self, writer: Guid) -> bool {
        self.shared.port.as_ref().is_some_and(|p| lock(p).is_matched(writer))
            || intra::merger().writer_delivers_to(&self.shared.topic, writer, self.shared.guid)
            || self.net.as_ref().is_some_and(|n| n.shm_attached(&self.shared, writer))
    }

    /// Whether `writer` is matched and has matched this reader too, so that what it writes now
    /// reaches us: a same-process writer as soon as it delivers here, a same-host one once its
    /// ring has an entry for us, a remote reliable one once it has sent us anything (a HEARTBEAT
    /// answering our pre-emptive ACKNACK, see [`crate::rtps::StatefulReader::match_writer`]) or
    /// 1 s after the match (a Fast DDS writer may have said nothing we could hear), a
    /// remote best-effort one as soon as it is matched (nothing would tell). What a service client
    /// waits for before its first request: a server that does not know the client's reply reader
    /// yet cannot answer it.
    pub fn is_known_by_writer(&self, writer: Guid) -> bool {
        self.shared.port.as_ref().is_some_and(|p| lock(p).writer_knows_us(writer, Instant::now()))
            || intra::merger().writer_delivers_to(&self.shared.topic, writer, self.shared.guid)
            || self.net.as_ref().is_some_and(|n| n.shm_served(&self.shared, writer))
    }

    /// Remote writers on this topic that did not match, and why.
    pub fn match_status(&self) -> MatchStatus {
        *lock(&self.shared.mismatch)
    }

    /// Reads one status (`kind`: exactly one reader bit of [`super::status`]) and resets its
    /// changes. Thread-safe.
    pub fn status(&self, kind: StatusMask) -> Result<Status> {
        Ok(self.shared.events.take(single_status(kind, READER_STATUSES, "reader")?))
    }

    /// The statuses changed since they were last read.
    pub fn status_changes(&self) -> StatusMask {
        self.shared.events.changes()
    }

    /// Calls `listener(1)` for every new sample, on the delivering thread, with no engine lock
    /// held. Replaces the previous listener (`None` clears it); once this returns the previous one
    /// is not running (unless called from inside a listener).
    pub fn set_data_listener(&self, listener: Option<Arc<DataListener>>) {
        self.shared.events.set_data_listener(listener);
    }

    /// Calls `listener(status_bit)` whenever a status changes; as [`Reader::set_data_listener`].
    pub fn set_status_listener(&self, listener: Option<Arc<StatusListener>>) {
        self.shared.events.set_status_listener(listener);
    }

    pub(crate) fn events(&self) -> &Arc<Events> {
        &self.shared.events
    }

    /// Installs a content filter (`None` removes it). Every sample with data that arrives from
    /// then on, from any writer, same-process or remote, is given to it on the delivering thread
    /// before it enters the history; one it refuses is dropped there: it takes no history slot,
    /// wakes no waiter and calls no listener. The samples already in the history are filtered
    /// here too, so once this returns the history holds only samples the filter accepts: a
    /// filter set right after the reader's creation also covers what arrived in between (a
    /// TRANSIENT_LOCAL writer's history). Calls never overlap, and once this returns the
    /// previous filter is not running and will not run again.
    ///
    /// The filter runs under engine locks (the reader's history lock here, its port lock or a
    /// same-process writer's lock on delivery): it must not call into the engine, block, or panic.
    pub fn set_sample_filter(&self, filter: Option<Arc<SampleFilter>>) {
        // Filter lock, then history lock; delivery takes them one after the other, never nested.
        let mut slot = lock(&self.shared.filter);
        if let Some(f) = &filter {
            let mut st = self.shared.lock();
            st.queue.retain(|s| !s.info.valid_data || f(s.payload()));
            self.shared.note_fill(&st);
        }
        self.shared.filtered.store(filter.is_some(), Ordering::Release);
        *slot = filter;
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.shared.events.clear_listeners();
        intra::merger().remove_reader(&self.shared);
        if let Some(net) = &self.net {
            net.remove_local_reader(&self.shared);
        }
        run_listeners();
        self.graph.local_endpoint(self.endpoint_info(), false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParticipantConfig;

    /// A reader whose participant's `wait_spin` is `spin`.
    fn reader(spin: Duration) -> (Participant, Arc<Reader>) {
        let p = Participant::new(ParticipantConfig { wait_spin: spin, ..Default::default() }).unwrap();
        let r = p.create_reader("spin", "T", Qos::default()).unwrap();
        (p, Arc::new(r))
    }

    /// How many threads sleep in the reader's `wait_for_data`.
    fn sleepers(r: &Reader) -> usize {
        r.shared.lock().waiters
    }

    /// `wait_for_data` spins as long as the setting says, no longer, and not at all with zero:
    /// a spinning thread is not counted as asleep, a sleeping one is.
    #[test]
    fn wait_for_data_spins_for_the_configured_bound() {
        // Zero: asleep at once.
        let (_p, r) = reader(Duration::ZERO);
        let w = Arc::clone(&r);
        let start = Instant::now();
        let t = std::thread::spawn(move || w.wait_for_data(Duration::from_secs(1)));
        while sleepers(&r) == 0 {
            assert!(start.elapsed() < Duration::from_secs(5), "a zero spin did not sleep");
            std::thread::yield_now();
        }
        assert!(start.elapsed() < Duration::from_millis(500), "a zero spin took {:?} to sleep", start.elapsed());
        assert!(!t.join().unwrap(), "no sample was written");

        // 300 ms: awake (spinning) for a while, then asleep: the spin ends by itself.
        let (_p, r) = reader(Duration::from_millis(300));
        let w = Arc::clone(&r);
        let start = Instant::now();
        let t = std::thread::spawn(move || w.wait_for_data(Duration::from_secs(2)));
        crate::spin::assert_spins_300_ms_then_sleeps(start, || sleepers(&r) > 0);
        assert!(!t.join().unwrap(), "no sample was written");
    }
}
