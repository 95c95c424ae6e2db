//! A reader of serialized samples, with its history and its waiters.
//!
//! Samples arrive from same-process writers (on the writer's thread) and, with the network on,
//! from the receive thread, which runs the reader's RTPS machine under the reader's port lock and
//! delivers what it releases straight into the history. The port lock comes before the history
//! lock; a reader never holds both a writer's and its own port lock.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::net::endpoint::{ReaderInput, ReaderMachine, ReaderPort};
use super::net::send::Outbox;
use super::net::{lock, Network};
use super::participant::Participant;
use super::sample::{Sample, SampleInfo};
use super::status::MatchStatus;
use crate::discovery::inline_qos::StatusInfo;
use crate::discovery::MatchError;
use crate::error::Result;
use crate::qos::{Qos, Reliability};
use crate::rtps::{BestEffortReader, BestEffortReaderConfig, Delivery, ReaderConfig, StatefulReader};
use crate::time::{self, Timestamp};
use crate::transport::intra::{self, TopicKey};
use crate::wire::{EntityKind, Guid};

pub struct Reader {
    shared: Arc<ReaderShared>,
    net: Option<Arc<Network>>,
}

pub(crate) struct ReaderShared {
    pub(crate) guid: Guid,
    pub(crate) topic: TopicKey,
    pub(crate) type_name: String,
    pub(crate) qos: Qos,
    state: Mutex<ReaderState>,
    /// Signalled whenever a sample is added.
    data_available: Condvar,
    /// The RTPS side, when the participant is on the network.
    port: Option<Mutex<ReaderPort>>,
    /// Same-process writers delivering to this reader.
    pub(crate) intra_writers: AtomicUsize,
    mismatch: Mutex<MatchStatus>,
}

struct ReaderState {
    queue: VecDeque<Sample>,
    /// Threads in `wait_for_data`: a delivery notifies only when there is one (a futex wake per
    /// sample would otherwise cost the receive thread a system call per sample).
    waiters: usize,
}

impl Reader {
    pub(crate) fn new(participant: &Participant, topic_name: &str, type_name: &str, qos: Qos) -> Result<Reader> {
        let guid = participant.new_entity_guid(EntityKind::UserReaderNoKey)?;
        let net = participant.network().cloned();
        let port = net.as_ref().map(|_| {
            let machine = match qos.reliability {
                Reliability::Reliable => ReaderMachine::Reliable(StatefulReader::new(ReaderConfig::new(guid))),
                Reliability::BestEffort => {
                    ReaderMachine::BestEffort(BestEffortReader::new(BestEffortReaderConfig::new(guid)))
                }
            };
            Mutex::new(ReaderPort::new(machine))
        });
        let shared = Arc::new(ReaderShared {
            guid,
            topic: participant.topic_key(topic_name),
            type_name: type_name.to_owned(),
            qos,
            state: Mutex::new(ReaderState { queue: VecDeque::new(), waiters: 0 }),
            data_available: Condvar::new(),
            port,
            intra_writers: AtomicUsize::new(0),
            mismatch: Mutex::new(MatchStatus::default()),
        });
        intra::merger().add_reader(&shared);
        if let Some(net) = &net {
            net.add_local_reader(&shared);
        }
        Ok(Reader { shared, net })
    }

    pub fn guid(&self) -> Guid {
        self.shared.guid
    }

    pub fn qos(&self) -> &Qos {
        &self.shared.qos
    }

    /// Takes the oldest sample, if there is one.
    pub fn take(&self) -> Option<Sample> {
        self.shared.lock().queue.pop_front()
    }

    /// Waits until a sample is available or `timeout` passes; true when one is available.
    pub fn wait_for_data(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        let mut st = self.shared.lock();
        while st.queue.is_empty() {
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left,
                    _ => return false,
                },
                None => Duration::from_secs(3600),
            };
            st.waiters += 1;
            st = self.shared.data_available.wait_timeout(st, left).unwrap_or_else(|p| p.into_inner()).0;
            st.waiters -= 1;
        }
        true
    }

    /// How many samples wait to be taken.
    pub fn available(&self) -> usize {
        self.shared.lock().queue.len()
    }

    /// How many writers deliver to this reader: same-process and remote.
    pub fn matched_writer_count(&self) -> usize {
        let remote = self.shared.port.as_ref().map_or(0, |p| lock(p).matched_count());
        self.shared.intra_writers.load(Ordering::Relaxed) + remote
    }

    /// Remote writers on this topic that did not match, and why.
    pub fn match_status(&self) -> MatchStatus {
        *lock(&self.shared.mismatch)
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        intra::merger().remove_reader(&self.shared);
        if let Some(net) = &self.net {
            net.remove_local_reader(&self.shared);
        }
    }
}

impl ReaderShared {
    fn lock(&self) -> MutexGuard<'_, ReaderState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a sample to the history (dropping the oldest one when a KEEP_LAST history is full)
    /// and wakes the waiters.
    pub(crate) fn deliver(&self, mut sample: Sample) {
        sample.info.reception_timestamp = time::now();
        if self.push(sample) {
            self.wake();
        }
    }

    /// Adds a sample to the history without waking anyone; true when a waiter needs [`Self::wake`].
    fn push(&self, sample: Sample) -> bool {
        let mut st = self.lock();
        if let Some(depth) = self.qos.depth() {
            while st.queue.len() >= depth {
                st.queue.pop_front();
            }
        }
        st.queue.push_back(sample);
        // Read under the lock: a waiter counts itself under it before it sleeps.
        st.waiters > 0
    }

    /// Wakes the threads waiting for data.
    pub(crate) fn wake(&self) {
        self.data_available.notify_all();
    }

    /// A sample the RTPS machine released, received at `now`; true when a waiter needs
    /// [`Self::wake`]. Disposals and unregistrations (keyed topics of other vendors) and empty
    /// payloads are not samples a keyless reader can hand out.
    fn deliver_remote(&self, d: Delivery, now: Timestamp) -> bool {
        if !StatusInfo(d.meta.status_info).is_alive() || d.payload.is_empty() {
            return false;
        }
        self.push(Sample {
            data: d.payload,
            info: SampleInfo {
                source_timestamp: d.meta.source_timestamp.unwrap_or(now),
                reception_timestamp: now,
                writer_guid: d.writer,
                sequence_number: d.sn,
            },
        })
    }

    pub(crate) fn record_mismatch(&self, e: MatchError) {
        lock(&self.mismatch).record(e);
    }

    pub(crate) fn net_match_writer(
        &self,
        now: Instant,
        writer: Guid,
        addr: SocketAddr,
        out: &mut Outbox,
    ) -> Option<Instant> {
        let mut p = lock(self.port.as_ref()?);
        p.match_writer(now, writer, addr, out);
        p.next_deadline()
    }

    pub(crate) fn net_unmatch_writer(&self, writer: Guid) {
        if let Some(p) = &self.port {
            lock(p).unmatch_writer(writer);
        }
    }

    /// One submessage from a matched remote writer, received at `now` / `received` (wall clock);
    /// returns the machine's next deadline. Samples it delivers wake nobody: when `wake` comes
    /// back true, the receive thread calls [`Self::wake`] once it has handled the whole datagram
    /// (one wake-up for a datagram full of samples).
    pub(crate) fn net_input(
        &self,
        now: Instant,
        received: Timestamp,
        writer: Guid,
        input: ReaderInput<'_>,
        out: &mut Outbox,
        wake: &mut bool,
    ) -> Option<Instant> {
        let mut p = lock(self.port.as_ref()?);
        p.input(now, writer, input, out, |d| *wake |= self.deliver_remote(d, received));
        p.next_deadline()
    }

    pub(crate) fn net_on_timer(&self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut p = lock(self.port.as_ref()?);
        if p.next_deadline().is_some_and(|t| t <= now) {
            p.on_timer(now, out);
        }
        p.next_deadline()
    }
}
