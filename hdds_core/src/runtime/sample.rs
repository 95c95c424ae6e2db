//! A received sample: its serialized payload and what the reader knows about it.

use crate::payload::Payload;
use std::sync::Arc;

use super::instances::{InstanceState, KeyHash};
pub use crate::rtps::SampleIdentity;
use crate::time::Timestamp;
use crate::transport::shm::ring::PinnedSample;
use crate::wire::Guid;

/// The metadata DDS's SampleInfo and ROS's rmw_message_info_t need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleInfo {
    /// When the writer wrote the sample (the writer's clock).
    pub source_timestamp: Timestamp,
    /// When this reader received it (the reader's clock).
    pub reception_timestamp: Timestamp,
    pub writer_guid: Guid,
    /// The writer's sequence number for the sample (RTPS numbers from 1).
    pub sequence_number: i64,
    /// Keyed topics: the instance (PID_KEY_HASH, or the reader's key function); `None` for keyless
    /// topics, and for keyed samples whose instance could not be told.
    pub key_hash: Option<KeyHash>,
    /// Keyed topics: the state this change left its instance in (always `Alive` for keyless).
    pub instance_state: InstanceState,
    /// False for a disposal or unregistration: `data` is then the serialized key, or empty.
    pub valid_data: bool,
    /// The sample this one answers (a service reply names its request), as the writer gave it in
    /// [`WriteOptions::related_sample_identity`] (on the wire: inline QoS PID 0x0083 or Fast DDS's
    /// 0x800f).
    pub related_sample_identity: Option<SampleIdentity>,
}

/// What a write says about its sample besides the payload ([`crate::Writer::write_with`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Sent with the sample as RELATED_SAMPLE_IDENTITY and handed to readers in
    /// [`SampleInfo::related_sample_identity`].
    pub related_sample_identity: Option<SampleIdentity>,
    /// Only this matched reader (same-process or remote) gets the sample. Every other matched
    /// reliable remote reader is told by a GAP that the sequence number is not for it; the other
    /// same-process readers simply do not see it (nor does the TRANSIENT_LOCAL history keep it).
    pub directed_to: Option<Guid>,
    /// The source timestamp (nanoseconds since the UNIX epoch); `None` is now.
    pub source_timestamp: Option<Timestamp>,
}

/// One sample as a reader takes it. The payload is the full RTPS serialized payload, encapsulation
/// header included, shared (not copied) between every reader that received it.
#[derive(Debug, Clone)]
pub struct Sample {
    pub data: Payload,
    pub info: SampleInfo,
    /// While the sample waits in a loaning reader's history: its payload left in place in a
    /// same-host writer's ring (`data` is empty then). [`crate::Reader::take`] copies it out;
    /// [`crate::Reader::take_loan`] hands it out as it is.
    pub(crate) pinned: Option<Arc<PinnedSample>>,
}

impl Sample {
    /// The payload, wherever it is.
    pub(crate) fn payload(&self) -> &[u8] {
        match &self.pinned {
            Some(p) => p.bytes(),
            None => &self.data,
        }
    }

    /// Copies a payload left in place into `data` (and lets go of the writer's ring).
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn unpin(&mut self) {
        if let Some(p) = self.pinned.take() {
            self.data = Payload::copy_of(p.bytes());
        }
    }
}

// A sample is moved by value several times between a same-process write and its take (the
// writer's clone, the delivery, the history's admission and pop): within 128 bytes the compiler
// moves it with inline loads and stores, beyond them with a `memcpy` call each time
// (results/same_host_notes.md, session 33).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Sample>() <= 128);
