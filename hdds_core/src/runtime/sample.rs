//! A received sample: its serialized payload and what the reader knows about it.

use std::sync::Arc;

use super::instances::{InstanceState, KeyHash};
use crate::time::Timestamp;
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
}

/// One sample as a reader takes it. The payload is the full RTPS serialized payload, encapsulation
/// header included, shared (not copied) between every reader that received it.
#[derive(Debug, Clone)]
pub struct Sample {
    pub data: Arc<[u8]>,
    pub info: SampleInfo,
}
