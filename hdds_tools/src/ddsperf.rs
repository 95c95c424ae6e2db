//! The samples, topics and partitions of Cyclone DDS's `ddsperf` with its default topic KS, so
//! that hdds-latency-probe and hdds-perf put the same bytes on the wire as `ddsperf` and talk to
//! it (ddsperf's source: src/tools/ddsperf in Cyclone DDS; checked against a capture of
//! `ddsperf ping` / `ddsperf pong`, shared/captures/dds_cyclone_ddsperf_pingpong_keyed.pcap).
//!
//! - Type `KeyedSeq { unsigned long seq; @key unsigned long keyval; sequence<octet> baggage; }`,
//!   `@final`, XCDR1 little endian: encapsulation 00 01 00 00, seq, keyval, baggage length, baggage.
//!   A size `S` (ddsperf's `size S`) is the serialized sample without the encapsulation header,
//!   at least the 12 fixed bytes; ddsperf fills the baggage with 0xee.
//! - Topics `DDSPerf{R|U}{Ping|Pong|Data}KS` (R reliable, U best effort).
//! - A pinger reads pongs in the partition named after its participant GUID (16 bytes in hex,
//!   `_` every four); a ponger answers each pinging participant in that partition.
//! - ddsperf counts as peers only participants whose USER_DATA reads `DDSPerf:<0|1>:<pid>:<host>`.

use hdds_core::wire::Guid;

use crate::args::{usage_error, Args, MAX_SAMPLE_SIZE};

pub const TYPE_NAME: &str = "KeyedSeq";

/// The fixed part of a KeyedSeq sample: seq, keyval, baggage length.
pub const FIXED_SIZE: usize = 12;

/// The encapsulation header of an XCDR1 little-endian sample.
const CDR_LE: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    Ping,
    Pong,
    Data,
}

/// ddsperf's name of `topic` for the KS type.
pub fn topic_name(topic: Topic, reliable: bool) -> String {
    let kind = match topic {
        Topic::Ping => "Ping",
        Topic::Pong => "Pong",
        Topic::Data => "Data",
    };
    format!("DDSPerf{}{kind}KS", if reliable { 'R' } else { 'U' })
}

/// `--mode waitset|listener`, as ddsperf's modes: whether samples are taken in the reader's data
/// listener on the engine's receive thread (the default) rather than on the tool's own thread.
pub fn listener_mode(args: &Args) -> bool {
    match args.value("mode", "listener".to_string()).as_str() {
        "listener" => true,
        "waitset" => false,
        other => usage_error(&format!("--mode {other:?}: expected waitset or listener")),
    }
}

/// `--size`: the serialized KeyedSeq size (default 64), at least [`FIXED_SIZE`] (KeyedSeq's seq,
/// keyval and baggage length), at most [`MAX_SAMPLE_SIZE`].
pub fn sample_size(args: &Args) -> usize {
    args.value_in("size", 64, FIXED_SIZE..=MAX_SAMPLE_SIZE)
}

/// A serialized KeyedSeq of `size` bytes (at least [`FIXED_SIZE`]) with sequence number 0 and key 0.
pub fn sample(size: usize) -> Vec<u8> {
    let size = size.max(FIXED_SIZE);
    let mut v = Vec::with_capacity(4 + size);
    v.extend_from_slice(&CDR_LE);
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(&((size - FIXED_SIZE) as u32).to_le_bytes());
    v.resize(4 + size, 0xee);
    v
}

/// The sequence number of a serialized KeyedSeq; `None` for what is not one (too short, or not
/// XCDR1: a big-endian writer's samples are read as such).
pub fn seq(payload: &[u8]) -> Option<u32> {
    let b: [u8; 4] = payload.get(4..8)?.try_into().ok()?;
    match payload.get(..2)? {
        [0x00, 0x01] => Some(u32::from_le_bytes(b)),
        [0x00, 0x00] => Some(u32::from_be_bytes(b)),
        _ => None,
    }
}

/// Sets the sequence number of a sample made by [`sample`].
pub fn set_seq(payload: &mut [u8], seq: u32) {
    payload[4..8].copy_from_slice(&seq.to_le_bytes());
}

/// The key hash of a serialized KeyedSeq (`key_only`: a disposal's payload, the key alone):
/// its key `keyval` (an unsigned long, at most 16 bytes serialized) is the hash, big-endian and
/// zero-padded, as RTPS specifies and Cyclone computes. `None` for what is too short to hold it.
pub fn key_hash(payload: &[u8], key_only: bool) -> Option<[u8; 16]> {
    let at = if key_only { 4 } else { 8 };
    let b: [u8; 4] = payload.get(at..at + 4)?.try_into().ok()?;
    let keyval = match payload.get(..2)? {
        [0x00, 0x01] => u32::from_le_bytes(b),
        [0x00, 0x00] => u32::from_be_bytes(b),
        _ => return None,
    };
    let mut h = [0u8; 16];
    h[..4].copy_from_slice(&keyval.to_be_bytes());
    Some(h)
}

/// The partition in which the participant `participant` reads its pongs.
pub fn pong_partition(participant: Guid) -> String {
    let b = participant.to_bytes();
    let mut s = String::with_capacity(35);
    for (i, chunk) in b.chunks(4).enumerate() {
        if i > 0 {
            s.push('_');
        }
        for x in chunk {
            s.push_str(&format!("{x:02x}"));
        }
    }
    s
}

/// The participant USER_DATA by which ddsperf recognizes a peer (`has_data_reader`: whether it
/// subscribes to the Data topic).
pub fn user_data(has_data_reader: bool) -> Vec<u8> {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("DDSPerf:{}:{}:{}", u8::from(has_data_reader), std::process::id(), host.trim()).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdds_core::wire::{EntityId, GuidPrefix};

    #[test]
    fn sample_layout_matches_the_capture() {
        // `ddsperf ping size 100`, seq 1: the payload in the capture.
        let mut s = sample(100);
        set_seq(&mut s, 1);
        assert_eq!(s.len(), 104);
        assert_eq!(&s[..16], &[0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 88, 0, 0, 0]);
        assert!(s[16..].iter().all(|&b| b == 0xee));
        assert_eq!(seq(&s), Some(1));
        assert_eq!(seq(&[0, 0, 0, 0, 0, 0, 0, 7]), Some(7));
        assert_eq!(seq(&[0, 1, 0]), None);
        assert_eq!(sample(0).len(), 4 + FIXED_SIZE);
        let mut k = sample(12);
        k[8..12].copy_from_slice(&0x0102_0304u32.to_le_bytes());
        assert_eq!(key_hash(&k, false), Some([1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        assert_eq!(key_hash(&[0, 0, 0, 0, 0, 0, 0, 9], true).map(|h| h[3]), Some(9));
        assert_eq!(key_hash(&[0, 1, 0, 0], false), None);
    }

    #[test]
    fn names_and_partitions() {
        assert_eq!(topic_name(Topic::Ping, true), "DDSPerfRPingKS");
        assert_eq!(topic_name(Topic::Data, false), "DDSPerfUDataKS");
        let prefix = GuidPrefix([0x01, 0x10, 0x85, 0xe6, 0xac, 0xe1, 0x9f, 0x51, 0x31, 0x18, 0xcf, 0x70]);
        let g = Guid::new(prefix, EntityId::PARTICIPANT);
        assert_eq!(pong_partition(g), "011085e6_ace19f51_3118cf70_000001c1");
        let ud = String::from_utf8(user_data(false)).unwrap();
        assert!(ud.starts_with(&format!("DDSPerf:0:{}:", std::process::id())), "{ud}");
    }
}
