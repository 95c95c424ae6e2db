//! A writer of serialized samples.
//!
//! Lock order, everywhere in the engine: the intra-process route table, then a writer's state, then
//! a reader's state. A write holds its writer's state lock while it hands the sample to same-process
//! readers, so that every reader sees one writer's samples in sequence-number order even when
//! several threads write at once; no socket send ever happens under that lock.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use super::participant::Participant;
use super::reader::ReaderShared;
use super::sample::{Sample, SampleInfo};
use crate::error::Result;
use crate::qos::{Durability, Qos};
use crate::time;
use crate::transport::intra::{self, TopicKey};
use crate::wire::{EntityKind, Guid};

pub struct Writer {
    shared: Arc<WriterShared>,
}

pub(crate) struct WriterShared {
    pub(crate) guid: Guid,
    pub(crate) topic: TopicKey,
    pub(crate) type_name: String,
    pub(crate) qos: Qos,
    state: Mutex<WriterState>,
}

struct WriterState {
    /// The sequence number of the last sample written (0 before the first).
    last_sn: i64,
    /// What a TRANSIENT_LOCAL writer replays to late-joining readers.
    history: VecDeque<Sample>,
    matched: Vec<Arc<ReaderShared>>,
}

impl Writer {
    pub(crate) fn new(participant: &Participant, topic_name: &str, type_name: &str, qos: Qos) -> Result<Writer> {
        let shared = Arc::new(WriterShared {
            guid: participant.new_entity_guid(EntityKind::UserWriterNoKey)?,
            topic: TopicKey { domain_id: participant.domain_id(), name: topic_name.to_owned() },
            type_name: type_name.to_owned(),
            qos,
            state: Mutex::new(WriterState { last_sn: 0, history: VecDeque::new(), matched: Vec::new() }),
        });
        intra::merger().add_writer(&shared);
        Ok(Writer { shared })
    }

    pub fn guid(&self) -> Guid {
        self.shared.guid
    }

    pub fn qos(&self) -> &Qos {
        &self.shared.qos
    }

    /// Publishes one serialized sample (encapsulation header included) and returns its sequence
    /// number.
    pub fn write(&self, payload: &[u8]) -> Result<i64> {
        let data: Arc<[u8]> = Arc::from(payload);
        let mut st = self.shared.lock();
        st.last_sn += 1;
        let now = time::now();
        let sample = Sample {
            data,
            info: SampleInfo {
                source_timestamp: now,
                reception_timestamp: now,
                writer_guid: self.shared.guid,
                sequence_number: st.last_sn,
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
        Ok(st.last_sn)
    }

    /// How many readers this writer currently delivers to.
    pub fn matched_reader_count(&self) -> usize {
        self.shared.lock().matched.len()
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        intra::merger().remove_writer(&self.shared);
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
    }

    pub(crate) fn detach_reader(&self, reader: &Arc<ReaderShared>) {
        self.lock().matched.retain(|r| !Arc::ptr_eq(r, reader));
    }
}
