//! A received sample: its serialized payload and what the reader knows about it.

use std::sync::Arc;

use crate::time::Timestamp;
use crate::wire::Guid;

/// The metadata DDS's SampleInfo and ROS's rmw_message_info_t need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleInfo {
    /// When the writer wrote the sample (the writer's clock).
    pub source_timestamp: Timestamp,
    /// When this reader received it (the reader's clock).
    pub reception_timestamp: Timestamp,
    pub writer_guid: Guid,
    /// The writer's sequence number for the sample (RTPS numbers from 1).
    pub sequence_number: i64,
}

/// One sample as a reader takes it. The payload is the full RTPS serialized payload, encapsulation
/// header included, shared (not copied) between every reader that received it.
#[derive(Debug, Clone)]
pub struct Sample {
    pub data: Arc<[u8]>,
    pub info: SampleInfo,
}
