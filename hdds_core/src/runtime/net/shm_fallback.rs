//! A same-host reader that cannot attach to a writer's shared-memory ring gets that writer's
//! samples over UDP instead.
//!
//! Both sides must agree, and only the reader knows that its attach failed (the writer's segment
//! could not be opened: removed from /dev/shm, another layout version, no memory left):
//! - the reader matches the writer over UDP (`match_reader_with`) and says so with an ACKNACK
//!   over UDP: the pre-emptive one of its reliable RTPS reader, or one sent here for a best-effort
//!   reader (which has no other way to speak to a writer). The timer thread sends one again
//!   [`RESEND_AFTER`] later, in case a datagram was lost (a duplicate changes nothing);
//! - a writer that gets an ACKNACK over UDP from a reader of its ring takes that reader out of the
//!   ring (so a reliable KEEP_ALL writer no longer waits for it) and matches it over UDP. An
//!   ACKNACK that comes before the writer discovered the reader is remembered in the discovery
//!   database until it does (`Db::udp_readers`).
//!
//! Both sides count it in `NetStats::shm_udp_fallbacks`; the first failed attach of the process is
//! also written to stderr, once, with the reason.
//!
//! The writer's own RTPS match table is what keeps this off the steady state: the receive thread
//! gives an ACKNACK to its writer first, and only one from a reader the writer does not serve over
//! UDP (a reader of its ring, one not discovered yet, or not matched) comes to
//! [`Network::acknack_over_udp`], which looks in the discovery database (counted in
//! `NetStats::shm_fallback_lookups`). Once the reader is matched over UDP its ACKNACKs stop there,
//! as any UDP reader's do; when it or its participant goes, discovery unmatches it from the writer
//! (`unmatch_remote_reader`), so there is nothing else to forget.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::send::{Out, Outbox};
use super::{bump, lock, read, Network};
use crate::qos::Reliability;
use crate::rtps::AckNack;
use crate::runtime::reader::ReaderShared;
use crate::wire::{EntityId, Guid, SequenceNumber, SequenceNumberSet};

/// When a reader's request for UDP is sent again, after the first one.
pub(crate) const RESEND_AFTER: [Duration; 3] =
    [Duration::from_millis(50), Duration::from_millis(250), Duration::from_millis(1000)];

/// A request for UDP to send again: `sent` of [`RESEND_AFTER`] are out.
pub(crate) struct UdpAsk {
    reader: EntityId,
    writer: Guid,
    addr: SocketAddr,
    since: Instant,
    sent: usize,
}

impl UdpAsk {
    fn due(&self) -> Option<Instant> {
        RESEND_AFTER.get(self.sent).and_then(|d| self.since.checked_add(*d))
    }
}

fn udp_acknack(reader: EntityId, writer: Guid) -> Out {
    let acknack = AckNack { state: SequenceNumberSet::new(SequenceNumber(1)), count: 1, final_flag: false };
    Out::AckNack { reader, writer, acknack }
}

/// Writers we heard from over UDP before discovering them: more means a peer sending ACKNACKs
/// for made-up readers, which is not worth the memory.
const MAX_PENDING: usize = 1024;

static LOGGED: AtomicBool = AtomicBool::new(false);

/// Writes the first failed attach of the process to stderr (the counters tell the rest).
pub(crate) fn log_once(e: &crate::Error) {
    if !LOGGED.swap(true, Ordering::Relaxed) {
        eprintln!(
            "hdds: {e}; the samples of that writer come over UDP instead (NetStats::shm_attach_failures and \
             shm_udp_fallbacks count each one; this message is shown once per process)"
        );
    }
}

impl Network {
    /// Local reader `r` could not attach to the ring of same-host writer `writer` (at `addr`) and
    /// was matched with it over UDP: counted, and a best-effort reader tells the writer.
    pub(crate) fn reader_falls_back_to_udp(
        &self,
        r: &Arc<ReaderShared>,
        writer: Guid,
        addr: SocketAddr,
        out: &mut Outbox,
    ) {
        bump(&self.counters.shm_udp_fallbacks);
        if r.qos.reliability == Reliability::BestEffort {
            out.push(addr, udp_acknack(r.guid.entity_id, writer));
        }
        let ask = UdpAsk { reader: r.guid.entity_id, writer, addr, since: Instant::now(), sent: 0 };
        let due = ask.due();
        lock(&self.udp_asks).push(ask);
        self.timer.schedule(due);
    }

    /// The timer thread: sends the requests for UDP that are due again; the next one's time.
    pub(crate) fn ask_for_udp_again(&self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut asks = lock(&self.udp_asks);
        if asks.is_empty() {
            return None;
        }
        let readers = read(&self.readers);
        asks.retain_mut(|a| {
            if a.due().is_some_and(|t| t <= now) && readers.contains_key(&a.reader) {
                out.push(a.addr, udp_acknack(a.reader, a.writer));
                a.sent += 1;
            }
            a.due().is_some() && readers.contains_key(&a.reader)
        });
        asks.iter().filter_map(UdpAsk::due).min()
    }

    /// Whether `reader` asked `writer` for UDP before we discovered it (forgotten once looked up;
    /// counted, as it is matched over UDP).
    pub(super) fn asked_for_udp(
        &self,
        udp_readers: &mut Vec<(EntityId, Guid)>,
        writer: EntityId,
        reader: Guid,
    ) -> bool {
        let Some(i) = udp_readers.iter().position(|p| *p == (writer, reader)) else { return false };
        udp_readers.swap_remove(i);
        bump(&self.counters.shm_udp_fallbacks);
        true
    }

    /// An ACKNACK from `reader` reached local writer `writer_id` over UDP, and the writer does not
    /// serve that reader over UDP. When the reader reads the writer's ring, it could not attach to
    /// it: it moves to UDP, and true says so (the ACKNACK is then for the writer's new proxy).
    pub(crate) fn acknack_over_udp(&self, writer_id: EntityId, reader: Guid, out: &mut Outbox) -> bool {
        // Cheap for the usual ACKNACK: shared memory off, or not from a same-host hdds peer.
        if writer_id.is_builtin() || !self.shm_peer(reader.prefix) {
            return false;
        }
        bump(&self.counters.shm_fallback_lookups);
        let mut db = lock(&self.discovery);
        let Some(w) = read(&self.writers).get(&writer_id).cloned() else { return false };
        let Some(rr) = db.remote_readers.get(&reader) else {
            // Not discovered yet: the match will look here first.
            if db.udp_readers.len() < MAX_PENDING && !db.udp_readers.contains(&(writer_id, reader)) {
                db.udp_readers.push((writer_id, reader));
            }
            return false;
        };
        if !rr.matched.contains(&writer_id) || !w.shm.as_ref().is_some_and(|s| s.unmatch_reader(reader)) {
            // Not matched, or not in the ring.
            return false;
        }
        // Out of the ring (a write waiting for it wakes up), onto the RTPS machine: matched once
        // more, so PUBLICATION_MATCHED counts the reader twice in its total.
        w.reader_matched(-1);
        let next = w.net_match_reader(Instant::now(), super::sedp::matched_reader(&rr.data), rr.addr, out);
        self.timer.schedule(next);
        bump(&self.counters.shm_udp_fallbacks);
        true
    }
}
