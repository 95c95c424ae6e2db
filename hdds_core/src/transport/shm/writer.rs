//! A writer's side of shared memory: its ring, the same-host readers it serves, and the doorbells
//! it rings after each sample.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::doorbell::Doorbell;
use super::ring::{Lent, LentId, RingConfig, RingWriter, SampleDesc};
use super::SharedMemoryConfig;
use crate::error::Result;
use crate::qos::{History, Qos, Reliability};
use crate::wire::{EntityId, Guid, GuidPrefix};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these locks leaves only lists behind; keep serving.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Counters of a participant's shared-memory traffic (reported in `NetStats`).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) samples_written: AtomicU64,
    pub(crate) samples_read: AtomicU64,
    pub(crate) direct_takes: AtomicU64,
    pub(crate) samples_lost: AtomicU64,
    pub(crate) attach_failures: AtomicU64,
    pub(crate) segments_reclaimed: AtomicU64,
    pub(crate) reader_thread_wakeups: AtomicU64,
}

pub(crate) fn bump(c: &AtomicU64, n: u64) {
    c.fetch_add(n, Ordering::Relaxed);
}

/// The doorbells of other participants that a participant's writers ring, opened once each.
#[derive(Default)]
pub(crate) struct Bells {
    map: Mutex<HashMap<GuidPrefix, Arc<Doorbell>>>,
}

impl Bells {
    /// The doorbell of participant `prefix`, opened on first use.
    pub(crate) fn get(&self, prefix: GuidPrefix) -> Result<Arc<Doorbell>> {
        let mut m = lock(&self.map);
        if let Some(b) = m.get(&prefix) {
            return Ok(Arc::clone(b));
        }
        let b = Arc::new(Doorbell::open(Guid::new(prefix, EntityId::PARTICIPANT))?);
        m.insert(prefix, Arc::clone(&b));
        Ok(b)
    }

    /// Forgets participant `prefix` (it left); returns its doorbell if it was open.
    pub(crate) fn forget(&self, prefix: GuidPrefix) -> Option<Arc<Doorbell>> {
        lock(&self.map).remove(&prefix)
    }
}

#[derive(Default)]
struct Served {
    readers: Vec<(Guid, Arc<Doorbell>)>,
    /// One entry per participant served: each is rung once per sample.
    bells: Vec<Arc<Doorbell>>,
}

impl Served {
    fn rebuild_bells(&mut self) {
        self.bells.clear();
        for (_, b) in &self.readers {
            if !self.bells.iter().any(|x| Arc::ptr_eq(x, b)) {
                self.bells.push(Arc::clone(b));
            }
        }
    }
}

/// A writer's ring and the readers it serves through it.
pub(crate) struct ShmWriter {
    ring: RingWriter,
    bells: Arc<Bells>,
    counters: Arc<Counters>,
    served: Mutex<Served>,
    /// See [`ShmWriter::turn`].
    turn: Mutex<()>,
}

impl ShmWriter {
    /// The ring of writer `guid`, sized by `cfg`, with the history behaviour its QoS asks for.
    pub(crate) fn new(
        guid: Guid,
        cfg: &SharedMemoryConfig,
        qos: &Qos,
        bells: Arc<Bells>,
        counters: Arc<Counters>,
    ) -> Result<ShmWriter> {
        let ring_cfg = RingConfig {
            slots: cfg.slots,
            max_readers: cfg.max_readers,
            arena_bytes: cfg.arena_bytes,
            blocking: qos.reliability == Reliability::Reliable && qos.history == History::KeepAll,
        };
        Ok(ShmWriter {
            ring: RingWriter::create(guid, ring_cfg)?,
            bells,
            counters,
            served: Mutex::default(),
            turn: Mutex::new(()),
        })
    }

    /// Starts serving a same-host reader from the next sample on; true if it is new. Its
    /// participant's doorbell is rung so that its thread finds its entry at once.
    pub(crate) fn match_reader(&self, reader: Guid, reliable: bool) -> Result<bool> {
        if self.ring.has_reader(reader) {
            return Ok(false);
        }
        let bell = self.bells.get(reader.prefix)?;
        self.ring.add_reader(reader, reliable)?;
        let mut s = lock(&self.served);
        s.readers.push((reader, Arc::clone(&bell)));
        s.rebuild_bells();
        drop(s);
        bell.ring();
        Ok(true)
    }

    /// Stops serving `reader`; true if it was served.
    pub(crate) fn unmatch_reader(&self, reader: Guid) -> bool {
        let mut s = lock(&self.served);
        s.readers.retain(|(g, _)| *g != reader);
        s.rebuild_bells();
        drop(s);
        self.ring.remove_reader(reader)
    }

    #[link_section = ".text.hot.hdds"]
    pub(crate) fn reader_count(&self) -> usize {
        self.ring.reader_count()
    }

    pub(crate) fn has_reader(&self, reader: Guid) -> bool {
        self.ring.has_reader(reader)
    }

    /// Whether every reliable reader has taken everything written.
    pub(crate) fn all_read(&self) -> bool {
        self.ring.all_read()
    }

    /// Waits (reliable KEEP_ALL only) until a sample of `len` bytes fits, up to `deadline`.
    pub(crate) fn wait_room(&self, len: usize, deadline: Option<Instant>) -> Result<()> {
        if self.ring.reader_count() == 0 {
            return Ok(());
        }
        self.ring.wait_room(len, deadline)
    }

    /// Publishes one sample and rings the readers' doorbells. With no reader here it publishes
    /// nothing (no copy for nobody; a TRANSIENT_LOCAL late joiner gets the writer's kept history
    /// when it is matched).
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn publish(&self, desc: &SampleDesc, payload: &[u8], deadline: Option<Instant>) -> Result<()> {
        if self.ring.reader_count() == 0 {
            return Ok(());
        }
        self.ring.publish(desc, payload, deadline)?;
        self.announce_sample();
        Ok(())
    }

    /// The writer's turn at the ring: held by a write from its start to its publication, so that
    /// two threads' writes do not both make room in the ring and the second then wait for room
    /// under the writer's lock. A sample serialized in place ([`crate::Writer::write_into`])
    /// holds it from its loan on; an application's loan ([`crate::Writer::loan`]) does not, and
    /// its publication waits for no room.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn turn(&self) -> MutexGuard<'_, ()> {
        lock(&self.turn)
    }

    /// Lends `len` bytes of the ring for a loaned sample, when the sample will go into the ring
    /// (`None`: nobody here to publish it for, the caller uses a buffer of its own).
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn lend(&self, len: usize, deadline: Option<Instant>) -> Result<Option<Lent>> {
        if self.ring.reader_count() == 0 {
            return Ok(None);
        }
        self.ring.reserve(len, deadline)
    }

    /// Waits (reliable KEEP_ALL only) until a loan's sample can be published (a free slot), up to
    /// `deadline`.
    pub(crate) fn wait_slot(&self, deadline: Option<Instant>) -> Result<()> {
        if self.ring.reader_count() == 0 {
            return Ok(());
        }
        self.ring.wait_slot(deadline)
    }

    /// Publishes the first `len` bytes of loan `id`, filled in place, and rings the readers'
    /// doorbells ([`RingWriter::publish_lent`]: it may wait for a slot up to `deadline`); false
    /// (nothing done) when `id` is not a loan out.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn publish_lent(
        &self,
        desc: &SampleDesc,
        id: LentId,
        len: usize,
        deadline: Option<Instant>,
    ) -> Result<bool> {
        let published = self.ring.publish_lent(desc, id, len, deadline)?.is_some();
        if published {
            self.announce_sample();
        }
        Ok(published)
    }

    /// A sample is in the ring: counted, and the readers' doorbells rung. A ring that woke a
    /// sleeping thread of the other process tells the write's hand-over (`runtime/handoff.rs`):
    /// that thread is mostly queued on this CPU.
    #[link_section = ".text.hot.hdds"]
    fn announce_sample(&self) {
        bump(&self.counters.samples_written, 1);
        let mut woke = false;
        for b in &lock(&self.served).bells {
            woke |= b.ring_sample();
        }
        if woke {
            crate::runtime::handoff::woke_a_sleeper();
        }
    }

    /// Loan `id` dropped unpublished.
    pub(crate) fn give_back(&self, id: LentId) {
        self.ring.give_back(id);
    }

    /// The writer is deleted: readers let go, the segment file goes.
    pub(crate) fn close(&self) {
        self.ring.close();
    }
}
