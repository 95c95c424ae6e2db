//! Keyed topics: instances, their key hashes and states, and the per-instance KEEP_LAST history.
//!
//! A keyed writer or reader is one created with [`Participant::create_keyed_writer`] /
//! [`Participant::create_keyed_reader`]: its entity kind says WITH_KEY, which is how SEDP tells the
//! topic kind (Fast DDS refuses to match a keyed endpoint with a keyless one; so do we).
//!
//! - Writing: the caller names the instance by its 16-byte key hash (computed from the type's key
//!   with [`crate::cdr::key_hash`]); every DATA carries it as PID_KEY_HASH. [`Writer::dispose`] and
//!   [`Writer::unregister`] send PID_KEY_HASH + PID_STATUS_INFO and, when given, the serialized key
//!   with flag K: Fast DDS ignores a disposal without the key hash, Cyclone reads the key.
//! - Reading: a sample's instance is its PID_KEY_HASH, or, when the writer sent none (Cyclone never
//!   does for user data), what the reader's [`KeyHashFn`] computes from the payload. KEEP_LAST
//!   depth applies per instance. Disposals and unregistrations are handed out as samples without
//!   data (`valid_data == false`), with the instance's new state, as DDS does.
//!
//! Same-process delivery goes through the same path ([`admit`]), so both routes agree. A sample's
//! `instance_state` is the state its change left the instance in.
//!
//! Not done yet: the RTPS writer's own history (what a remote TRANSIENT_LOCAL late joiner gets)
//! keeps KEEP_LAST depth per writer, not per instance; instance states do not yet follow writer
//! liveliness (an unmatched writer does not make its instances NOT_ALIVE_NO_WRITERS).

use std::collections::VecDeque;
use std::sync::Arc;

use super::participant::{EndpointOptions, Participant};
use super::reader::Reader;
use super::sample::{Sample, WriteOptions};
use super::writer::Writer;
use crate::discovery::inline_qos::StatusInfo;
use crate::error::{Error, Result};
use crate::qos::Qos;
use crate::wire::Guid;

/// The 16 bytes that name an instance on the wire (PID_KEY_HASH).
pub type KeyHash = [u8; 16];

/// Computes the key hash of a sample whose writer sent no PID_KEY_HASH. `key_only` is true for a
/// disposal or unregistration, whose payload is the serialized key alone (flag K), not a sample.
/// `None` when the payload does not hold a key this function understands.
pub type KeyHashFn = Arc<dyn Fn(&[u8], bool) -> Option<KeyHash> + Send + Sync>;

/// DDS's instance state, as a reader sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum InstanceState {
    #[default]
    Alive,
    /// A writer disposed the instance.
    NotAliveDisposed,
    /// Its writers unregistered it (or left) without disposing it.
    NotAliveNoWriters,
}

impl InstanceState {
    /// The state a change with this status leaves its instance in.
    pub(crate) fn after(status: StatusInfo) -> InstanceState {
        if status.disposed() {
            InstanceState::NotAliveDisposed
        } else if status.unregistered() {
            InstanceState::NotAliveNoWriters
        } else {
            InstanceState::Alive
        }
    }
}

/// The status a change that left its instance in `state` carried (the inverse of
/// [`InstanceState::after`]).
pub(crate) fn status_of(state: InstanceState) -> StatusInfo {
    match state {
        InstanceState::Alive => StatusInfo::ALIVE,
        InstanceState::NotAliveDisposed => StatusInfo::DISPOSED,
        InstanceState::NotAliveNoWriters => StatusInfo::UNREGISTERED,
    }
}

/// What a write is: a sample (of an instance, for keyed writers), or an instance's disposal or
/// unregistration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct WriteChange {
    pub(crate) key_hash: Option<KeyHash>,
    pub(crate) status: StatusInfo,
}

/// A keyed reader's instance bookkeeping: how it finds keys, and each instance's state.
pub(crate) struct ReaderKeys {
    key_hash_of: Option<KeyHashFn>,
}

impl ReaderKeys {
    pub(crate) fn new(key_hash_of: Option<KeyHashFn>) -> ReaderKeys {
        ReaderKeys { key_hash_of }
    }

    /// The instance of a received change: its PID_KEY_HASH, else what the key function says.
    pub(crate) fn identify(&self, key_hash: Option<KeyHash>, status: StatusInfo, payload: &[u8]) -> Option<KeyHash> {
        key_hash.or_else(|| {
            let f = self.key_hash_of.as_ref()?;
            if payload.is_empty() {
                return None;
            }
            f(payload, !status.is_alive())
        })
    }
}

/// Adds `sample` to a reader's (or a TRANSIENT_LOCAL writer's replay) `queue`. KEEP_LAST `depth`
/// drops the oldest sample: of the whole queue when keyless, of the sample's instance when `keyed`.
/// The one it replaced is returned, for the caller to drop once it holds no lock (freeing a payload
/// under a reader's history lock made the taking thread wait for the allocator), or to reuse its
/// buffer ([`crate::runtime::writer`]'s spare buffers). More than one goes only when a queue is
/// over its depth, which does not happen: those are dropped here.
#[link_section = ".text.hot.hdds"]
pub(crate) fn admit(queue: &mut VecDeque<Sample>, keyed: bool, depth: Option<usize>, sample: Sample) -> Option<Sample> {
    let mut replaced = None;
    if let Some(depth) = depth {
        if keyed {
            let key = sample.info.key_hash;
            let mut of_instance = queue.iter().filter(|s| s.info.key_hash == key).count();
            while of_instance >= depth {
                let Some(i) = queue.iter().position(|s| s.info.key_hash == key) else { break };
                replaced = queue.remove(i);
                of_instance -= 1;
            }
        } else {
            while queue.len() >= depth {
                replaced = queue.pop_front();
            }
        }
    }
    queue.push_back(sample);
    replaced
}

fn not_keyed(what: &str, guid: Guid) -> Error {
    Error::bad_argument(format!(
        "{what} needs a keyed writer, and writer {guid} is keyless: create it with Participant::create_keyed_writer"
    ))
}

impl Participant {
    /// Creates a writer of a keyed topic: every sample names its instance by key hash
    /// ([`Writer::write_keyed`]), and instances can be disposed or unregistered.
    pub fn create_keyed_writer(&self, topic_name: &str, type_name: &str, qos: Qos) -> Result<Writer> {
        self.create_keyed_writer_with(topic_name, type_name, qos, &EndpointOptions::default())
    }

    /// [`Participant::create_keyed_writer`] with endpoint options (USER_DATA, PARTITION).
    pub fn create_keyed_writer_with(
        &self,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        options: &EndpointOptions,
    ) -> Result<Writer> {
        self.new_writer(topic_name, type_name, qos, options, true)
    }

    /// Creates a reader of a keyed topic. KEEP_LAST applies per instance, and disposals and
    /// unregistrations arrive as samples without data. `key_hash_of` finds the instance of a sample
    /// whose writer sent no key hash (Cyclone DDS sends none); without it such samples all count as
    /// one instance whose key hash is `None`.
    pub fn create_keyed_reader(
        &self,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        key_hash_of: Option<KeyHashFn>,
    ) -> Result<Reader> {
        self.create_keyed_reader_with(topic_name, type_name, qos, key_hash_of, &EndpointOptions::default())
    }

    /// [`Participant::create_keyed_reader`] with endpoint options (USER_DATA, PARTITION, ignoring
    /// the participant's own writers).
    pub fn create_keyed_reader_with(
        &self,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        key_hash_of: Option<KeyHashFn>,
        options: &EndpointOptions,
    ) -> Result<Reader> {
        self.new_reader(topic_name, type_name, qos, options, Some(ReaderKeys::new(key_hash_of)))
    }
}

impl Writer {
    /// Whether this writer's topic is keyed.
    pub fn is_keyed(&self) -> bool {
        self.guid().entity_id.is_keyed()
    }

    /// Publishes one serialized sample of the instance `key_hash` (see [`crate::cdr::key_hash`]
    /// for computing it); returns its sequence number. Fails on a keyless writer.
    pub fn write_keyed(&self, payload: &[u8], key_hash: KeyHash) -> Result<i64> {
        self.write_keyed_with(payload, key_hash, &WriteOptions::default())
    }

    /// [`Writer::write_keyed`] with write options (source timestamp, related sample identity,
    /// directed write), as [`Writer::write_with`].
    pub fn write_keyed_with(&self, payload: &[u8], key_hash: KeyHash, options: &WriteOptions) -> Result<i64> {
        if !self.is_keyed() {
            return Err(not_keyed("write_keyed", self.guid()));
        }
        self.write_change(payload, options, WriteChange { key_hash: Some(key_hash), status: StatusInfo::ALIVE })
    }

    /// Disposes the instance `key_hash`. `serialized_key` (encapsulation header, then the key
    /// members; may be empty) goes with flag K for readers that read the key, not the hash.
    pub fn dispose(&self, serialized_key: &[u8], key_hash: KeyHash) -> Result<i64> {
        if !self.is_keyed() {
            return Err(not_keyed("dispose", self.guid()));
        }
        self.write_change(
            serialized_key,
            &WriteOptions::default(),
            WriteChange { key_hash: Some(key_hash), status: StatusInfo::DISPOSED },
        )
    }

    /// Unregisters the instance `key_hash` (this writer stops updating it), as [`Writer::dispose`].
    pub fn unregister(&self, serialized_key: &[u8], key_hash: KeyHash) -> Result<i64> {
        if !self.is_keyed() {
            return Err(not_keyed("unregister", self.guid()));
        }
        self.write_change(
            serialized_key,
            &WriteOptions::default(),
            WriteChange { key_hash: Some(key_hash), status: StatusInfo::UNREGISTERED },
        )
    }
}

impl Reader {
    /// Whether this reader's topic is keyed.
    pub fn is_keyed(&self) -> bool {
        self.guid().entity_id.is_keyed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::sample::SampleInfo;

    fn sample(key: u8, n: u8, status: StatusInfo) -> Sample {
        Sample {
            data: crate::Payload::from(vec![n]),
            pinned: None,
            info: SampleInfo {
                key_hash: Some([key; 16]),
                valid_data: status.is_alive(),
                instance_state: InstanceState::after(status),
                ..SampleInfo::default()
            },
        }
    }

    #[test]
    fn keep_last_applies_per_instance() {
        let mut q = VecDeque::new();
        for n in 0..5 {
            admit(&mut q, true, Some(2), sample(1, n, StatusInfo::ALIVE));
            admit(&mut q, true, Some(2), sample(2, 10 + n, StatusInfo::ALIVE));
        }
        assert_eq!(q.iter().map(|s| s.data[0]).collect::<Vec<_>>(), [3, 13, 4, 14]);
        // A disposal counts against its instance's depth like any change.
        admit(&mut q, true, Some(2), sample(1, 20, StatusInfo::DISPOSED));
        assert_eq!(q.iter().map(|s| s.data[0]).collect::<Vec<_>>(), [13, 4, 14, 20]);
        assert_eq!(q.back().unwrap().info.instance_state, InstanceState::NotAliveDisposed);
        // Keyless: the depth applies to the whole queue.
        let mut q = VecDeque::new();
        for n in 0..5 {
            admit(&mut q, false, Some(2), sample(n, n, StatusInfo::ALIVE));
        }
        assert_eq!(q.iter().map(|s| s.data[0]).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(InstanceState::after(StatusInfo::UNREGISTERED), InstanceState::NotAliveNoWriters);
        assert_eq!(InstanceState::after(StatusInfo::DISPOSED_UNREGISTERED), InstanceState::NotAliveDisposed);
    }

    #[test]
    fn key_from_the_hash_or_the_function() {
        let f: KeyHashFn = Arc::new(|p: &[u8], key_only| Some([p[0] + u8::from(key_only); 16]));
        let k = ReaderKeys::new(Some(f));
        assert_eq!(k.identify(Some([9; 16]), StatusInfo::ALIVE, &[1]), Some([9; 16]));
        assert_eq!(k.identify(None, StatusInfo::ALIVE, &[1]), Some([1; 16]));
        assert_eq!(k.identify(None, StatusInfo::DISPOSED, &[1]), Some([2; 16]));
        assert_eq!(k.identify(None, StatusInfo::DISPOSED, &[]), None);
        assert_eq!(ReaderKeys::new(None).identify(None, StatusInfo::ALIVE, &[1]), None);
    }
}
