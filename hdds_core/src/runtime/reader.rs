//! A reader of serialized samples, with its history and its waiters.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::participant::Participant;
use super::sample::Sample;
use crate::error::Result;
use crate::qos::Qos;
use crate::time;
use crate::transport::intra::{self, TopicKey};
use crate::wire::{EntityKind, Guid};

pub struct Reader {
    shared: Arc<ReaderShared>,
}

pub(crate) struct ReaderShared {
    pub(crate) guid: Guid,
    pub(crate) topic: TopicKey,
    pub(crate) type_name: String,
    pub(crate) qos: Qos,
    state: Mutex<ReaderState>,
    /// Signalled whenever a sample is added.
    data_available: Condvar,
}

struct ReaderState {
    queue: VecDeque<Sample>,
}

impl Reader {
    pub(crate) fn new(participant: &Participant, topic_name: &str, type_name: &str, qos: Qos) -> Result<Reader> {
        let shared = Arc::new(ReaderShared {
            guid: participant.new_entity_guid(EntityKind::UserReaderNoKey)?,
            topic: TopicKey { domain_id: participant.domain_id(), name: topic_name.to_owned() },
            type_name: type_name.to_owned(),
            qos,
            state: Mutex::new(ReaderState { queue: VecDeque::new() }),
            data_available: Condvar::new(),
        });
        intra::merger().add_reader(&shared);
        Ok(Reader { shared })
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
            st = self.shared.data_available.wait_timeout(st, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        true
    }

    /// How many samples wait to be taken.
    pub fn available(&self) -> usize {
        self.shared.lock().queue.len()
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        intra::merger().remove_reader(&self.shared);
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
        let mut st = self.lock();
        if let Some(depth) = self.qos.depth() {
            while st.queue.len() >= depth {
                st.queue.pop_front();
            }
        }
        st.queue.push_back(sample);
        drop(st);
        self.data_available.notify_all();
    }
}
