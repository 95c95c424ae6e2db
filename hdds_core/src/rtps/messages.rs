//! What the state machines consume and produce: the contents of RTPS submessages at the protocol
//! level (64-bit sequence numbers, shared payloads), not their encoding. The runtime turns a
//! [`WriterAction`] or [`ReaderAction`] into wire submessages and parsed submessages into these
//! structs, so the machines never depend on how `wire/` lays bytes out.
//!
//! Sequence numbers are `i64` and start at 1. Counts are the wire's `Count_t` (i32), compared in
//! serial-number arithmetic so that a wrapped counter still reads as newer.

use crate::payload::Payload;

use crate::time::Timestamp;
use crate::wire::{FragmentNumberSet, Guid, SequenceNumber, SequenceNumberSet};

/// A sample's identity: the writer that wrote it and its sequence number (RELATED_SAMPLE_IDENTITY).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SampleIdentity {
    pub writer: Guid,
    pub sn: i64,
}

/// What travels with a payload besides its bytes: INFO_TS and the inline QoS the engine uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleMeta {
    /// INFO_TS: when the writer wrote it (nanoseconds since the UNIX epoch); `None` sends no INFO_TS.
    pub source_timestamp: Option<Timestamp>,
    /// Services: the request a reply answers (PID_RELATED_SAMPLE_IDENTITY).
    pub related_sample_identity: Option<SampleIdentity>,
    /// PID_KEY_HASH, for keyed topics.
    pub key_hash: Option<[u8; 16]>,
    /// PID_STATUS_INFO: 1 disposed, 2 unregistered; 0 (not sent) for plain data.
    pub status_info: u32,
}

/// Where a writer's submessage goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dest {
    /// Every matched reader (one multicast, or one send per reader locator: the runtime chooses);
    /// the reader entity id on the wire is ENTITYID_UNKNOWN.
    All,
    /// One reader, addressed by GUID (the runtime knows its locators from discovery).
    Reader(Guid),
}

/// DATA: one whole sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Data {
    pub sn: i64,
    pub meta: SampleMeta,
    pub payload: Payload,
}

/// The fixed fields of a DATA_FRAG (RTPS 2.5 section 8.3.7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentHeader {
    pub sn: i64,
    /// The number of the first fragment in the submessage; fragments are numbered from 1.
    pub fragment_start: u32,
    pub fragments_in_submessage: u16,
    pub fragment_size: u16,
    /// The size of the whole sample.
    pub sample_size: u32,
}

/// DATA_FRAG as a writer sends it: the whole sample's shared payload plus which fragments of it
/// this submessage carries, so that splitting a sample never copies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFrag {
    pub header: FragmentHeader,
    pub meta: SampleMeta,
    /// The whole serialized sample; [`DataFrag::bytes`] is the part that goes on the wire.
    pub sample: Payload,
}

impl DataFrag {
    /// The bytes of the fragments this submessage carries.
    pub fn bytes(&self) -> &[u8] {
        let h = &self.header;
        let size = h.fragment_size as usize;
        let start = (h.fragment_start as usize).saturating_sub(1) * size;
        let end = (start + size * h.fragments_in_submessage as usize).min(self.sample.len());
        &self.sample[start.min(end)..end]
    }
}

/// GAP: every SN in `[start, list.base)` and every member of `list` is irrelevant to the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    pub start: i64,
    pub list: SequenceNumberSet,
}

impl Gap {
    /// The SNs `[start, end)`, with an empty bitmap.
    pub fn range(start: i64, end: i64) -> Gap {
        Gap { start, list: SequenceNumberSet::new(SequenceNumber(end.max(start))) }
    }

    /// Whether `sn` is one this GAP declares irrelevant.
    pub fn contains(&self, sn: i64) -> bool {
        (self.start..self.list.base.0).contains(&sn) || self.list.contains(SequenceNumber(sn))
    }
}

/// HEARTBEAT: the writer has `[first_sn, last_sn]` available (`first_sn = last_sn + 1` when none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heartbeat {
    pub first_sn: i64,
    pub last_sn: i64,
    pub count: i32,
    /// The reader need not answer unless it misses something.
    pub final_flag: bool,
    pub liveliness_flag: bool,
}

/// HEARTBEAT_FRAG: fragments `1..=last_fragment` of sample `sn` are available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeartbeatFrag {
    pub sn: i64,
    pub last_fragment: u32,
    pub count: i32,
}

/// ACKNACK: every SN below `state.base` was received; the members of `state` are missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckNack {
    pub state: SequenceNumberSet,
    pub count: i32,
    /// The writer need not answer with a HEARTBEAT.
    pub final_flag: bool,
}

/// NACK_FRAG: the members of `missing` are fragments of sample `sn` the reader lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NackFrag {
    pub sn: i64,
    pub missing: FragmentNumberSet,
    pub count: i32,
}

/// What a writer wants done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriterAction {
    /// `resend` marks a retransmission (a repair or a late joiner's history), for statistics.
    Data {
        to: Dest,
        data: Data,
        resend: bool,
    },
    DataFrag {
        to: Dest,
        frag: DataFrag,
        resend: bool,
    },
    Gap {
        to: Dest,
        gap: Gap,
    },
    Heartbeat {
        to: Dest,
        hb: Heartbeat,
    },
    HeartbeatFrag {
        to: Dest,
        hb: HeartbeatFrag,
    },
}

/// A sample handed to the reader's history, in SN order per writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub writer: Guid,
    pub sn: i64,
    pub meta: SampleMeta,
    pub payload: Payload,
}

/// What a reader wants done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReaderAction {
    Deliver(Delivery),
    /// Send to `writer`.
    AckNack {
        writer: Guid,
        acknack: AckNack,
    },
    NackFrag {
        writer: Guid,
        nack_frag: NackFrag,
    },
    /// `count` samples of `writer` will never arrive (SAMPLE_LOST status).
    Lost {
        writer: Guid,
        count: u64,
    },
}

/// `a` is newer than `b` in serial-number arithmetic (RFC 1982 style), so counts may wrap.
pub(crate) fn count_newer(a: i32, b: i32) -> bool {
    a.wrapping_sub(b) > 0
}

/// After this long without an accepted message, a count that is not newer is taken as a peer that
/// started counting again, not as a duplicate (Cyclone DDS's accept_ack_or_hb_w_timeout, 2 s).
pub(crate) const COUNT_RESTART_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// The count of the last accepted ACKNACK, NACK_FRAG, HEARTBEAT or HEARTBEAT_FRAG from one remote
/// entity, and when it was accepted. A count not newer than it is a duplicate or reordered
/// message (RTPS 2.5 8.3.7), except once [`COUNT_RESTART_AFTER`] has passed: a peer whose lease of
/// us ran out while ours of it did not re-creates its proxy and counts from 1 again, and would
/// otherwise be ignored until its count passed the old one (thousands of rounds).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LastCount {
    last: Option<(i32, std::time::Instant)>,
}

impl LastCount {
    /// Whether a message with `count`, received at `now`, is to be acted on; it is remembered if so.
    pub(crate) fn accept(&mut self, count: i32, now: std::time::Instant) -> bool {
        if let Some((c, at)) = self.last {
            if !count_newer(count, c) && now < at + COUNT_RESTART_AFTER {
                return false;
            }
        }
        self.last = Some((count, now));
        true
    }

    /// The last accepted count.
    pub(crate) fn count(&self) -> Option<i32> {
        self.last.map(|(c, _)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gap_membership() {
        let mut g = Gap::range(5, 8);
        assert!(!g.contains(4) && g.contains(5) && g.contains(7) && !g.contains(8));
        g.list.insert(SequenceNumber(10));
        assert!(g.contains(10) && !g.contains(9));
        assert_eq!(Gap::range(5, 3).list.base.0, 5, "an inverted range is empty");
    }

    #[test]
    fn counts_compare_across_wrap() {
        assert!(count_newer(2, 1));
        assert!(!count_newer(1, 1));
        assert!(!count_newer(1, 2));
        assert!(count_newer(i32::MIN, i32::MAX));
    }

    #[test]
    fn an_old_count_is_a_duplicate_until_the_restart_time_then_a_restarted_peer() {
        let t = std::time::Instant::now();
        let mut c = LastCount::default();
        assert!(c.accept(100, t) && c.accept(101, t));
        assert!(!c.accept(101, t), "duplicate");
        assert!(!c.accept(1, t + COUNT_RESTART_AFTER / 2), "reordered, or restarted too recently to tell");
        assert!(c.accept(1, t + COUNT_RESTART_AFTER), "a peer that counts from 1 again");
        assert_eq!(c.count(), Some(1));
        assert!(c.accept(2, t + COUNT_RESTART_AFTER), "and counts on from there");
    }

    #[test]
    fn data_frag_bytes() {
        let sample: Payload = (0u8..10).collect();
        let h =
            FragmentHeader { sn: 1, fragment_start: 3, fragments_in_submessage: 1, fragment_size: 4, sample_size: 10 };
        let f = DataFrag { header: h, meta: SampleMeta::default(), sample };
        assert_eq!(f.bytes(), &[8, 9]);
    }
}
