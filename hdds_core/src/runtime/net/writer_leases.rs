//! LIVELINESS of remote writers, as our readers see it: one lease per matched remote writer with a
//! finite lease (MANUAL_BY_TOPIC, MANUAL_BY_PARTICIPANT or AUTOMATIC), shared by every local
//! reader it is matched with, whichever path (UDP or shared memory) carries its samples.
//!
//! - **Renewal** (RTPS 2.x 8.4.13, as Cyclone DDS 0.10 does it): DATA and DATA_FRAG from the writer,
//!   a HEARTBEAT from it with the Liveliness flag, a sample read from its shared-memory ring. A
//!   plain HEARTBEAT does not renew. A MANUAL_BY_PARTICIPANT writer is also renewed by its
//!   participant's ParticipantMessageData of kind MANUAL_LIVELINESS_UPDATE and by any renewal of
//!   another MANUAL_BY_PARTICIPANT writer of the same participant (the participant asserted).
//! - **AUTOMATIC writers** are alive while their participant is heard from at all: their lease
//!   runs from the last datagram of that participant (its SPDP table's clock, [`Heard`]), which
//!   keeps them alive through an idle writer as long as the participant sends anything within the
//!   lease (hdds sends a ParticipantMessageData every third of it, participant_message.rs), and
//!   ends them a lease after a crash instead of at the participant's much longer SPDP lease. One
//!   that was not alive comes back with its own sample, its participant's ParticipantMessageData
//!   or its SPDP announcement.
//! - **Expiry**: the process's QoS timer thread ([`crate::runtime::watchdog`]) sweeps the map
//!   (no thread or timer per writer); a lease that ran out makes the writer not alive for each of
//!   its readers (LIVELINESS_CHANGED: alive_count -1, not_alive_count +1); the next renewal makes
//!   it alive again (the reverse).
//! - **Matching**: a reader is counted (SUBSCRIPTION_MATCHED and LIVELINESS_CHANGED) under the
//!   map's lock, so a lease cannot run out between reading the writer's state and counting it.
//!   When the writer goes away its entry is removed first and its readers stop counting it as
//!   what it was then (alive or not).
//!
//! Lock order: the map, then the shared-memory `sources`, a reader's port, a reader's events. The
//! receive thread renews with no port lock held, the shared-memory drain once `sources` is
//! unlocked. `tracked` lets the receive path skip the map's lock while no remote
//! writer has a finite lease (the common case: ROS 2's default lease is infinite).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::lock;
use crate::qos::{Liveliness, LivelinessKind, INFINITE};
use crate::runtime::liveliness::flip_writer;
use crate::runtime::reader::ReaderShared;
use crate::runtime::watchdog::{self, Watched};
use crate::wire::{Guid, GuidPrefix};

use super::spdp::Heard;

struct Entry {
    kind: LivelinessKind,
    duration: Duration,
    expires: Instant,
    alive: bool,
    /// AUTOMATIC: when its participant was last heard from (`None` if unknown at the match).
    heard: Option<Heard>,
    readers: Vec<Arc<ReaderShared>>,
}

impl Entry {
    /// Renews; when the writer was not alive, its readers count it alive again. Returns the new
    /// expiry if the timer must look earlier than it planned (the writer came back).
    fn renew(&mut self, now: Instant) -> Option<Instant> {
        self.expires = now.checked_add(self.duration)?;
        if self.alive {
            return None;
        }
        self.alive = true;
        for r in &self.readers {
            flip_writer(&r.events, true);
        }
        Some(self.expires)
    }

    /// An AUTOMATIC writer's lease as its participant's last datagram extends it, if later.
    fn heard_until(&self) -> Option<Instant> {
        let h = self.heard.as_ref()?.last().checked_add(self.duration)?;
        (h > self.expires).then_some(h)
    }

    /// Whether an assertion by its participant (`manual`: a MANUAL_LIVELINESS_UPDATE; otherwise
    /// AUTOMATIC or its SPDP announcement) renews this writer.
    fn asserted_by_participant(&self, manual: bool) -> bool {
        match self.kind {
            LivelinessKind::Automatic => true,
            LivelinessKind::ManualByParticipant => manual,
            LivelinessKind::ManualByTopic => false,
        }
    }
}

#[derive(Default)]
pub(crate) struct WriterLeases {
    entries: Mutex<HashMap<Guid, Entry>>,
    /// How many entries there are, read without the lock.
    tracked: AtomicUsize,
    /// Whether the QoS timer thread watches the map: from its first lease on (a process whose
    /// remote writers are all AUTOMATIC starts no such thread).
    watched: Mutex<bool>,
}

/// Whether a writer with this LIVELINESS has a lease here.
fn tracked(l: &Liveliness) -> bool {
    l.lease_duration != INFINITE && !l.lease_duration.is_zero()
}

impl WriterLeases {
    /// Local reader `reader` is matched with remote `writer` (of LIVELINESS `l`; `heard`, when
    /// its participant was last heard from): `count(alive)` runs under the map's lock and counts
    /// it, alive or not as the writer is now. Fails only if the QoS timer thread cannot be started
    /// (the match then counts the writer alive, untimed).
    pub(crate) fn attach<R>(
        self: &Arc<Self>,
        writer: Guid,
        l: &Liveliness,
        heard: impl FnOnce() -> Option<Heard>,
        reader: &Arc<ReaderShared>,
        now: Instant,
        count: impl FnOnce(bool) -> R,
    ) -> R {
        if !tracked(l) {
            return count(true);
        }
        {
            // Held while registering: two matches at once register the map with the timer once.
            let mut watched = lock(&self.watched);
            if !*watched {
                let weak = Arc::downgrade(self);
                if watchdog::watch(weak as std::sync::Weak<dyn Watched>, None).is_err() {
                    return count(true);
                }
                *watched = true;
            }
        }
        let mut m = lock(&self.entries);
        let mut first = None;
        let e = m.entry(writer).or_insert_with(|| {
            // Alive from the match on, as Cyclone counts a new proxy writer.
            let expires = now.checked_add(l.lease_duration).unwrap_or(now);
            first = Some(expires);
            let heard = if l.kind == LivelinessKind::Automatic { heard() } else { None };
            Entry { kind: l.kind, duration: l.lease_duration, expires, alive: true, heard, readers: Vec::new() }
        });
        if !e.readers.iter().any(|r| Arc::ptr_eq(r, reader)) {
            e.readers.push(Arc::clone(reader));
        }
        let alive = e.alive;
        self.tracked.store(m.len(), Ordering::Release);
        let r = count(alive);
        drop(m);
        watchdog::schedule(first);
        r
    }

    /// Whether any remote writer has a lease here (a hint: it may change at once).
    pub(crate) fn tracking(&self) -> bool {
        self.tracked.load(Ordering::Acquire) > 0
    }

    /// Remote `writer` is gone: forgets its lease; whether it was alive (true if untracked).
    pub(crate) fn remove_writer(&self, writer: Guid) -> bool {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return true;
        }
        let mut m = lock(&self.entries);
        let alive = m.remove(&writer).map_or(true, |e| e.alive);
        self.tracked.store(m.len(), Ordering::Release);
        alive
    }

    /// Local reader `reader` is deleted: it no longer follows any lease.
    pub(crate) fn forget_reader(&self, reader: &Arc<ReaderShared>) {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut m = lock(&self.entries);
        m.retain(|_, e| {
            e.readers.retain(|r| !Arc::ptr_eq(r, reader));
            !e.readers.is_empty()
        });
        self.tracked.store(m.len(), Ordering::Release);
    }

    /// Remote `writer` asserted its liveliness (a sample, or a HEARTBEAT with the Liveliness
    /// flag: the caller tells them apart); whether it has a lease here. Cheap while no remote
    /// writer has one.
    pub(crate) fn renew(&self, writer: Guid, now: Instant) -> bool {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return false;
        }
        let mut m = lock(&self.entries);
        let Some(e) = m.get_mut(&writer) else { return false };
        let earlier = if e.kind == LivelinessKind::ManualByParticipant {
            // Any assertion by one of a participant's writers asserts the participant (this writer
            // among them).
            renew_participant(&mut m, writer.prefix, true, now)
        } else {
            e.renew(now)
        };
        drop(m);
        watchdog::schedule(earlier);
        true
    }

    /// Participant `prefix` asserted its liveliness: `manual`, a ParticipantMessageData of kind
    /// MANUAL_LIVELINESS_UPDATE (its MANUAL_BY_PARTICIPANT and AUTOMATIC writers); otherwise one
    /// of kind AUTOMATIC_LIVELINESS_UPDATE or its SPDP announcement (its AUTOMATIC writers).
    pub(crate) fn renew_participant(&self, prefix: GuidPrefix, manual: bool, now: Instant) {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return;
        }
        let earlier = renew_participant(&mut lock(&self.entries), prefix, manual, now);
        watchdog::schedule(earlier);
    }

    /// The participant is shutting down: drops the readers (they hold no reference back).
    pub(crate) fn clear(&self) {
        lock(&self.entries).clear();
        self.tracked.store(0, Ordering::Release);
    }
}

fn renew_participant(m: &mut HashMap<Guid, Entry>, prefix: GuidPrefix, manual: bool, now: Instant) -> Option<Instant> {
    let mut earlier: Option<Instant> = None;
    for (_, e) in m.iter_mut().filter(|(g, e)| g.prefix == prefix && e.asserted_by_participant(manual)) {
        if let Some(t) = e.renew(now) {
            earlier = Some(earlier.map_or(t, |x| x.min(t)));
        }
    }
    earlier
}

impl Watched for WriterLeases {
    fn check(&self, now: Instant) -> Option<Instant> {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return None;
        }
        let mut next: Option<Instant> = None;
        for e in lock(&self.entries).values_mut().filter(|e| e.alive) {
            if e.expires <= now {
                if let Some(t) = e.heard_until() {
                    e.expires = t;
                }
            }
            if e.expires <= now {
                e.alive = false;
                for r in &e.readers {
                    flip_writer(&r.events, false);
                }
            } else {
                next = Some(next.map_or(e.expires, |n| n.min(e.expires)));
            }
        }
        next
    }
}
