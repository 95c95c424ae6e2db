//! Keyed topics: instances named by key hash over UDP and in process, per-instance KEEP_LAST,
//! disposals and unregistrations, and keyed/keyless endpoints that must not match.

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::cdr::key_hash::{key_hash, key_writer};
use hdds_core::discovery::MatchError;
use hdds_core::qos::{Durability, History, Reliability};
use hdds_core::{InstanceState, KeyHash, Participant, ParticipantConfig, Qos, Reader, Sample};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Keyed_";

/// `struct Keyed { @key unsigned long id; unsigned long n; }`, XCDR1 little endian.
fn sample(id: u32, n: u32) -> Vec<u8> {
    let mut p = vec![0, 1, 0, 0];
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&n.to_le_bytes());
    p
}

fn hash(id: u32) -> KeyHash {
    let mut w = key_writer();
    w.write_u32(id).unwrap();
    key_hash(w.sink(), Some(4))
}

fn take_all(r: &Reader, n: usize, timeout: Duration) -> Vec<Sample> {
    let end = Instant::now() + timeout;
    let mut got = Vec::new();
    while got.len() < n && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(50)) {
            while let Some(s) = r.take() {
                got.push(s);
            }
        }
    }
    got
}

#[test]
fn instances_travel_with_their_key_hash_and_disposals_arrive_without_data() {
    let a = net_participant(160, |_| {});
    let b = net_participant(160, |_| {});
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_keyed_writer("t/keyed", T, q).unwrap();
    let r = b.create_keyed_reader("t/keyed", T, q, None).unwrap();
    assert!(w.is_keyed() && r.is_keyed());
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    for n in 0..6u32 {
        w.write_keyed(&sample(n % 3, n), hash(n % 3)).unwrap();
    }
    let key1 = [0, 1, 0, 0, 0, 0, 0, 1];
    w.dispose(&key1, hash(1)).unwrap();
    w.unregister(&[], hash(2)).unwrap();
    let got = take_all(&r, 8, Duration::from_secs(10));
    assert_eq!(got.len(), 8);
    for (n, s) in got[..6].iter().enumerate() {
        assert_eq!(&*s.data, &sample(n as u32 % 3, n as u32)[..]);
        assert_eq!(s.info.key_hash, Some(hash(n as u32 % 3)));
        assert!(s.info.valid_data);
        assert_eq!(s.info.instance_state, InstanceState::Alive);
    }
    assert_eq!((got[6].info.key_hash, got[6].info.valid_data), (Some(hash(1)), false));
    assert_eq!(got[6].info.instance_state, InstanceState::NotAliveDisposed);
    assert_eq!(&*got[6].data, &key1, "the serialized key travels with flag K");
    assert_eq!((got[7].info.key_hash, got[7].info.instance_state), (Some(hash(2)), InstanceState::NotAliveNoWriters));
    assert!(got[7].data.is_empty());
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
}

#[test]
fn keyed_and_keyless_endpoints_do_not_match() {
    let a = net_participant(161, |_| {});
    let b = net_participant(161, |_| {});
    let q = Qos::default();
    let w = a.create_keyed_writer("t/kind", T, q).unwrap();
    let r = b.create_reader("t/kind", T, q).unwrap();
    let r_keyed = b.create_keyed_reader("t/kind", T, q, None).unwrap();
    assert!(wait_until(Duration::from_secs(5), || r_keyed.matched_writer_count() == 1));
    assert!(wait_until(Duration::from_secs(5), || r.match_status().last_mismatch == Some(MatchError::TopicKind)));
    // The writer matches the reader when the reader's SEDP data reaches it, independently of the
    // reader side matching the writer: wait for it too (seen late under ThreadSanitizer).
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1), "the keyed reader matches");
    assert_eq!(w.matched_reader_count(), 1, "only the keyed reader");
    assert_eq!(r.matched_writer_count(), 0);
    // Same process: no route between a keyed writer and a keyless reader either.
    let p = Participant::new(ParticipantConfig { domain_id: 161, ..Default::default() }).unwrap();
    let w2 = p.create_keyed_writer("t/kind2", T, q).unwrap();
    let _r2 = p.create_reader("t/kind2", T, q).unwrap();
    assert_eq!(w2.matched_reader_count(), 0);
    // Keyless writers have no instances to write.
    let plain = p.create_writer("t/kind3", T, q).unwrap();
    assert!(plain.write_keyed(&sample(0, 0), hash(0)).is_err());
    assert!(plain.dispose(&[], hash(0)).is_err());
}

#[test]
fn keep_last_is_per_instance_in_process_and_over_udp() {
    let q = Qos {
        reliability: Reliability::Reliable,
        durability: Durability::TransientLocal,
        history: History::KeepLast(2),
        ..Qos::default()
    };
    // In process: a late-joining TRANSIENT_LOCAL reader gets the last 2 samples of each instance.
    let p = Participant::new(ParticipantConfig { domain_id: 162, ..Default::default() }).unwrap();
    let w = p.create_keyed_writer("t/last", T, q).unwrap();
    for n in 0..9u32 {
        w.write_keyed(&sample(n % 3, n), hash(n % 3)).unwrap();
    }
    let r = p.create_keyed_reader("t/last", T, q, None).unwrap();
    let got: Vec<u32> =
        std::iter::from_fn(|| r.take()).map(|s| u32::from_le_bytes(s.data[8..12].try_into().unwrap())).collect();
    assert_eq!(got, [3, 4, 5, 6, 7, 8]);

    // Over UDP: the reader's KEEP_LAST 2 keeps 2 per instance of what arrives untaken.
    let a = net_participant(162, |_| {});
    let b = net_participant(162, |_| {});
    let w = a.create_keyed_writer("t/last-net", T, Qos { history: History::KeepAll, ..q }).unwrap();
    let r = b.create_keyed_reader("t/last-net", T, q, None).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    for n in 0..12u32 {
        w.write_keyed(&sample(n % 3, n), hash(n % 3)).unwrap();
    }
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
    assert!(wait_until(Duration::from_secs(2), || r.available() == 6));
    let got: Vec<u32> =
        std::iter::from_fn(|| r.take()).map(|s| u32::from_le_bytes(s.data[8..12].try_into().unwrap())).collect();
    assert_eq!(got, [6, 7, 8, 9, 10, 11]);
}
