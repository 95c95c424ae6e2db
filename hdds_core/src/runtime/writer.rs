//! A writer of serialized samples.
//!
//! Lock order, everywhere in the engine: the intra-process route table, then a writer's state, then
//! a reader's state. A write holds its writer's state lock while it hands the sample to same-process
//! readers, so that every reader sees one writer's samples in sequence-number order even when
//! several threads write at once; no socket send ever happens under that lock.
//!
//! With the network on, the same lock guards the writer's RTPS machine, which numbers the samples
//! (one sequence number per sample, whichever path carries it). A write runs the machine under the
//! lock, collects what to send, and sends after releasing it.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::net::endpoint::WriterPort;
use super::net::send::Outbox;
use super::net::Network;
use super::participant::Participant;
use super::reader::ReaderShared;
use super::sample::{Sample, SampleInfo};
use super::status::MatchStatus;
use crate::discovery::MatchError;
use crate::error::{Error, ErrorKind, Result};
use crate::qos::{Durability, Qos};
use crate::rtps::{MatchedReader, SampleMeta, StatefulWriter, WriteBlocked, WriterAction, WriterConfig};
use crate::time;
use crate::transport::intra::{self, TopicKey};
use crate::wire::{EntityId, EntityKind, Guid};

/// The most samples a KEEP_ALL writer keeps unacknowledged before a write blocks (DDS's
/// RESOURCE_LIMITS max_samples, which the engine's QoS does not carry yet).
pub const KEEP_ALL_MAX_SAMPLES: usize = 1024;

pub struct Writer {
    shared: Arc<WriterShared>,
    net: Option<Arc<Network>>,
}

pub(crate) struct WriterShared {
    pub(crate) guid: Guid,
    pub(crate) topic: TopicKey,
    pub(crate) type_name: String,
    pub(crate) qos: Qos,
    state: Mutex<WriterState>,
    /// Signalled when remote readers acknowledge or go away: a blocked KEEP_ALL write, or a wait
    /// for acknowledgments, may go on.
    acked: Condvar,
    mismatch: Mutex<MatchStatus>,
}

struct WriterState {
    /// The sequence number of the last sample written (0 before the first).
    last_sn: i64,
    /// What a TRANSIENT_LOCAL writer replays to late-joining same-process readers.
    history: VecDeque<Sample>,
    matched: Vec<Arc<ReaderShared>>,
    /// The RTPS side, when the participant is on the network.
    net: Option<WriterPort>,
}

impl Writer {
    pub(crate) fn new(participant: &Participant, topic_name: &str, type_name: &str, qos: Qos) -> Result<Writer> {
        let guid = participant.new_entity_guid(EntityKind::UserWriterNoKey)?;
        let net = participant.network().cloned();
        let port = net.as_ref().map(|net| {
            let mut cfg = WriterConfig::from_qos(guid, &qos, KEEP_ALL_MAX_SAMPLES);
            cfg.heartbeat_period = super::net::IDLE_HEARTBEAT_PERIOD;
            let mut port = WriterPort::new(StatefulWriter::new(cfg, Instant::now()), EntityId::UNKNOWN);
            if net.cfg.write_batching {
                port.enable_batching();
            }
            port
        });
        let shared = Arc::new(WriterShared {
            guid,
            topic: participant.topic_key(topic_name),
            type_name: type_name.to_owned(),
            qos,
            state: Mutex::new(WriterState { last_sn: 0, history: VecDeque::new(), matched: Vec::new(), net: port }),
            acked: Condvar::new(),
            mismatch: Mutex::new(MatchStatus::default()),
        });
        intra::merger().add_writer(&shared);
        if let Some(net) = &net {
            net.add_local_writer(&shared);
        }
        Ok(Writer { shared, net })
    }

    pub fn guid(&self) -> Guid {
        self.shared.guid
    }

    pub fn qos(&self) -> &Qos {
        &self.shared.qos
    }

    /// Publishes one serialized sample (encapsulation header included) and returns its sequence
    /// number. A reliable KEEP_ALL writer whose history is full of unacknowledged samples waits up
    /// to max_blocking_time for remote readers to acknowledge, then fails with
    /// [`ErrorKind::Timeout`].
    pub fn write(&self, payload: &[u8]) -> Result<i64> {
        let data: Arc<[u8]> = Arc::from(payload);
        let now_ts = time::now();
        let mut out = Outbox::new();
        let mut st = self.shared.lock();
        let sn = match &self.net {
            Some(net) if st.net.is_some() => {
                let (guard, sn) = self.write_rtps(net, st, &data, now_ts, &mut out)?;
                st = guard;
                sn
            }
            _ => st.last_sn + 1,
        };
        st.last_sn = sn;
        let sample = Sample {
            data,
            info: SampleInfo {
                source_timestamp: now_ts,
                reception_timestamp: now_ts,
                writer_guid: self.shared.guid,
                sequence_number: sn,
            },
        };
        for reader in &st.matched {
            reader.deliver(sample.clone());
        }
        if self.shared.qos.durability == Durability::TransientLocal {
            if let Some(depth) = self.shared.qos.depth() {
                if st.history.len() == depth {
                    st.history.pop_front();
                }
            }
            st.history.push_back(sample);
        }
        let next = st.net.as_ref().and_then(|p| p.next_deadline());
        drop(st);
        if let Some(net) = &self.net {
            net.flush(&mut out);
            net.timer.schedule(next);
        }
        Ok(sn)
    }

    /// Runs the RTPS write, waiting (without the lock) while a KEEP_ALL history is full.
    fn write_rtps<'a>(
        &'a self,
        net: &Network,
        mut st: MutexGuard<'a, WriterState>,
        data: &Arc<[u8]>,
        now_ts: i64,
        out: &mut Outbox,
    ) -> Result<(MutexGuard<'a, WriterState>, i64)> {
        let meta = SampleMeta { source_timestamp: Some(now_ts), ..SampleMeta::default() };
        let deadline = Instant::now().checked_add(self.shared.qos.max_blocking_time);
        loop {
            let now = Instant::now();
            let Some(port) = st.net.as_mut() else {
                return Err(Error::new(ErrorKind::AlreadyDeleted, "the writer has no network state"));
            };
            match port.write(now, Arc::clone(data), meta, out) {
                Ok(sn) => return Ok((st, sn)),
                Err(WriteBlocked) => {
                    // Send the HEARTBEAT the machine asked for, without the lock.
                    let next = port.next_deadline();
                    drop(st);
                    net.flush(out);
                    net.timer.schedule(next);
                    let now = Instant::now();
                    if deadline.is_some_and(|d| now >= d) {
                        return Err(Error::new(
                            ErrorKind::Timeout,
                            format!(
                                "write blocked for max_blocking_time ({:?}): the KEEP_ALL history holds {} \
                                 samples no reliable reader has acknowledged yet",
                                self.shared.qos.max_blocking_time, KEEP_ALL_MAX_SAMPLES
                            ),
                        ));
                    }
                    st = self.shared.lock();
                    if st.net.as_ref().is_some_and(|p| p.rtps.can_write()) {
                        continue;
                    }
                    // Wake at least every fast HEARTBEAT period to ask again (the machine paces it).
                    let left = deadline.map_or(Duration::from_secs(3600), |d| d.saturating_duration_since(now));
                    st = self
                        .shared
                        .acked
                        .wait_timeout(st, left.min(Duration::from_millis(10)))
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
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
        drop(st);
        if let Some(net) = &self.net {
            net.flush(&mut out);
            net.timer.schedule(next);
        }
    }

    /// How many readers this writer currently delivers to: same-process and remote.
    pub fn matched_reader_count(&self) -> usize {
        let st = self.shared.lock();
        st.matched.len() + st.net.as_ref().map_or(0, |p| p.matched_count())
    }

    /// Waits until every matched remote reliable reader has acknowledged every sample written, or
    /// `timeout` passes; true when they have. Same-process readers have everything at once.
    pub fn wait_for_acknowledgments(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        let mut st = self.shared.lock();
        loop {
            if st.net.as_ref().map_or(true, |p| p.rtps.all_acked()) {
                return true;
            }
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(l) if !l.is_zero() => l,
                    _ => return false,
                },
                None => Duration::from_secs(3600),
            };
            st = self.shared.acked.wait_timeout(st, left).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    /// Remote readers on this topic that did not match, and why.
    pub fn match_status(&self) -> MatchStatus {
        *super::net::lock(&self.shared.mismatch)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        intra::merger().remove_writer(&self.shared);
        if let Some(net) = &self.net {
            net.remove_local_writer(&self.shared);
        }
    }
}

impl WriterShared {
    fn lock(&self) -> MutexGuard<'_, WriterState> {
        // A panic while holding the lock leaves only counters and queues behind; keep serving.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts delivering to `reader`; a TRANSIENT_LOCAL reader first gets the kept history, under
    /// the same lock as new writes, so it misses nothing and gets nothing twice.
    pub(crate) fn attach_reader(&self, reader: &Arc<ReaderShared>) {
        let mut st = self.lock();
        if reader.qos.durability == Durability::TransientLocal {
            for s in &st.history {
                reader.deliver(s.clone());
            }
        }
        st.matched.push(Arc::clone(reader));
        reader.intra_writers.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn detach_reader(&self, reader: &Arc<ReaderShared>) {
        let mut st = self.lock();
        let before = st.matched.len();
        st.matched.retain(|r| !Arc::ptr_eq(r, reader));
        if st.matched.len() < before {
            reader.intra_writers.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// The writer is going away: its same-process readers no longer count it.
    pub(crate) fn detach_all(&self) {
        let mut st = self.lock();
        for r in st.matched.drain(..) {
            r.intra_writers.fetch_sub(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn record_mismatch(&self, e: MatchError) {
        super::net::lock(&self.mismatch).record(e);
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
        p.match_reader(now, r, addr, out);
        p.next_deadline()
    }

    pub(crate) fn net_unmatch_reader(&self, reader: Guid) {
        let mut st = self.lock();
        if let Some(p) = st.net.as_mut() {
            p.unmatch_reader(reader);
        }
        drop(st);
        // A KEEP_ALL history may have room now.
        self.acked.notify_all();
    }

    /// Runs `f` (an ACKNACK, a NACK_FRAG) on the machine; returns its next deadline.
    pub(crate) fn net_drive(
        &self,
        out: &mut Outbox,
        f: impl FnOnce(&mut StatefulWriter, &mut Vec<WriterAction>),
    ) -> Option<Instant> {
        let mut st = self.lock();
        let p = st.net.as_mut()?;
        p.drive(out, f);
        let next = p.next_deadline();
        drop(st);
        self.acked.notify_all();
        next
    }

    pub(crate) fn net_on_timer(&self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut st = self.lock();
        let p = st.net.as_mut()?;
        if p.next_deadline().is_some_and(|t| t <= now) {
            p.drive(out, |w, a| w.on_timer(now, a));
        }
        p.next_deadline()
    }
}
