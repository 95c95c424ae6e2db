//! Write options over UDP and on the same-process path: related sample identity, source
//! timestamp, directed writes, and whether a reply reader is known to its writer. Loopback only,
//! domains 146-149, each test with its own domain tag.

mod net_support;

use std::time::Duration;

use hdds_core::qos::{Durability, History, Reliability};
use hdds_core::wire::Guid;
use hdds_core::{Participant, ParticipantConfig, Qos, Reader, SampleIdentity, WriteOptions};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

fn take_one(r: &Reader) -> Option<hdds_core::Sample> {
    r.wait_for_data(Duration::from_secs(5)).then(|| r.take()).flatten()
}

fn identity() -> SampleIdentity {
    SampleIdentity {
        writer: Guid::from_bytes(&[0x01, 0x0f, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 0x12, 0x04]),
        sn: 77,
    }
}

#[test]
fn related_sample_identity_and_source_timestamp_travel_both_paths() {
    let a = net_participant(147, |c| c.domain_tag.push_str("-rsi"));
    let b = net_participant(147, |c| c.domain_tag.push_str("-rsi"));
    let w = a.create_writer("rr/svcReply", T, Qos::default()).unwrap();
    let remote = b.create_reader("rr/svcReply", T, Qos::default()).unwrap();
    let local = a.create_reader("rr/svcReply", T, Qos::default()).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 2));
    let opts = WriteOptions {
        related_sample_identity: Some(identity()),
        source_timestamp: Some(1_234_567_890_123),
        ..WriteOptions::default()
    };
    let sn = w.write_with(&[0, 1, 0, 0, 5, 0, 0, 0], &opts).unwrap();
    for (path, r) in [("remote", &remote), ("same-process", &local)] {
        let s = take_one(r).unwrap_or_else(|| panic!("{path}: no sample"));
        assert_eq!(s.info.related_sample_identity, Some(identity()), "{path}");
        assert_eq!(s.info.source_timestamp, 1_234_567_890_123, "{path}");
        assert_eq!(s.info.sequence_number, sn, "{path}");
    }
    // A plain write carries no identity.
    w.write(&[0, 1, 0, 0, 6, 0, 0, 0]).unwrap();
    assert_eq!(take_one(&remote).unwrap().info.related_sample_identity, None);
}

#[test]
fn a_directed_write_reaches_its_reader_only_and_the_others_do_not_stall() {
    let a = net_participant(148, |c| c.domain_tag.push_str("-directed"));
    let b = net_participant(148, |c| c.domain_tag.push_str("-directed"));
    let qos = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("rr/svcReply", T, qos).unwrap();
    let r1 = b.create_reader("rr/svcReply", T, qos).unwrap();
    let r2 = b.create_reader("rr/svcReply", T, qos).unwrap();
    let best_effort = Qos { reliability: Reliability::BestEffort, ..qos };
    let r3 = b.create_reader("rr/svcReply", T, best_effort).unwrap();
    let local = a.create_reader("rr/svcReply", T, qos).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 4));
    for r in [&r1, &r2, &r3, &local] {
        assert!(w.has_matched_reader(r.guid()));
    }
    assert!(!w.has_matched_reader(Guid::from_bytes(&[9; 16])));
    let stray = WriteOptions { directed_to: Some(Guid::from_bytes(&[9; 16])), ..WriteOptions::default() };
    let e = w.write_with(&[0, 1, 0, 0, 0], &stray).unwrap_err();
    assert_eq!(e.kind(), hdds_core::error::ErrorKind::BadArgument);

    // Alternate: directed to r1, to the local reader, then to everyone, a few rounds.
    let mut expect: [Vec<i64>; 4] = Default::default();
    for round in 0..5u8 {
        for (target, idx) in [(Some(r1.guid()), Some(0)), (Some(local.guid()), Some(3)), (None, None)] {
            let opts = WriteOptions { directed_to: target, ..WriteOptions::default() };
            let sn = w.write_with(&[0, 1, 0, 0, round], &opts).unwrap();
            match idx {
                Some(i) => expect[i].push(sn),
                None => expect.iter_mut().for_each(|e| e.push(sn)),
            }
        }
    }
    for (i, r) in [&r1, &r2, &r3, &local].into_iter().enumerate() {
        let mut got = Vec::new();
        while got.len() < expect[i].len() {
            match take_one(r) {
                Some(s) => got.push(s.info.sequence_number),
                None => break,
            }
        }
        assert_eq!(got, expect[i], "reader {i}");
    }
    // Nothing else arrives late.
    std::thread::sleep(Duration::from_millis(200));
    for r in [&r1, &r2, &r3, &local] {
        assert!(r.take().is_none());
    }
    // Every reliable reader acknowledged everything: the GAPs closed the holes.
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
}

/// A service client's question before its first request: does the reply writer know my reader?
/// b learns of a's writer while b says nothing (silenced), so that its reader matches a writer that
/// has not heard of it; once b speaks again, a matches the reader and says so (the HEARTBEAT a
/// writer sends a reader it matches; a writer that sends none answers the reader's repeated
/// pre-emptive ACKNACK instead, stateful_reader's unit tests).
#[test]
fn a_reader_is_known_by_a_remote_writer_only_once_the_writer_has_matched_it() {
    let a = net_participant(146, |c| c.domain_tag.push_str("-known"));
    let b = net_participant(146, |c| c.domain_tag.push_str("-known"));
    let w = a.create_writer("rr/knownReply", T, Qos::default()).unwrap();
    assert!(wait_until(Duration::from_secs(5), || b.discovered_participants().contains(&a.guid())
        && a.discovered_participants().contains(&b.guid())));
    b.set_network_silenced(true);
    let r = b.create_reader("rr/knownReply", T, Qos::default()).unwrap();
    assert!(wait_until(Duration::from_secs(5), || r.has_matched_writer(w.guid())));
    // Longer than the first pauses of the pre-emptive ACKNACK (100, 200 ms): none got out.
    std::thread::sleep(Duration::from_millis(400));
    assert!(!w.has_matched_reader(r.guid()));
    assert!(!r.is_known_by_writer(w.guid()), "the writer has not matched the reader");
    b.set_network_silenced(false);
    assert!(wait_until(Duration::from_secs(5), || r.is_known_by_writer(w.guid())));
    assert!(w.has_matched_reader(r.guid()));
    let opts = WriteOptions { directed_to: Some(r.guid()), ..WriteOptions::default() };
    w.write_with(&[0, 1, 0, 0, 9], &opts).unwrap();
    assert_eq!(take_one(&r).map(|s| s.info.sequence_number), Some(1));
}

#[test]
fn directed_writes_on_the_same_process_path_only() {
    let p = Participant::new(ParticipantConfig { domain_id: 149, ..Default::default() }).unwrap();
    let qos = Qos { durability: Durability::TransientLocal, ..Qos::default() };
    let w = p.create_writer("rr/x", T, qos).unwrap();
    let r1 = p.create_reader("rr/x", T, qos).unwrap();
    let r2 = p.create_reader("rr/x", T, qos).unwrap();
    let opts = WriteOptions { directed_to: Some(r2.guid()), ..WriteOptions::default() };
    w.write_with(&[0, 1, 0, 0, 1], &opts).unwrap();
    assert!(r1.take().is_none());
    assert_eq!(r2.take().unwrap().info.sequence_number, 1);
    // The TRANSIENT_LOCAL history does not replay another reader's directed sample.
    let late = p.create_reader("rr/x", T, qos).unwrap();
    assert!(late.take().is_none());
}
