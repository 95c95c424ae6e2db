//! User data between two participants of this test process over UDP on loopback (`intra_process:
//! false` keeps the same-process path out), each test in its own domain. Run with `--nocapture`
//! to see the timings.

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::qos::{Durability, History, Reliability};
use hdds_core::{Qos, Reader, Writer};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

fn matched(w: &Writer, r: &Reader) -> bool {
    wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1)
}

/// A CDR payload: encapsulation header, then a counter and filler derived from it.
fn payload(i: u32, len: usize) -> Vec<u8> {
    let mut p = vec![0u8; len.max(8)];
    p[..4].copy_from_slice(&[0, 1, 0, 0]);
    p[4..8].copy_from_slice(&i.to_le_bytes());
    for (k, b) in p[8..].iter_mut().enumerate() {
        *b = (i as usize).wrapping_mul(31).wrapping_add(k) as u8;
    }
    p
}

fn take_all(r: &Reader, n: usize, timeout: Duration) -> Vec<hdds_core::Sample> {
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
fn reliable_keep_all_1000_small_samples_in_order() {
    let a = net_participant(120, |_| {});
    let b = net_participant(120, |_| {});
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/small", T, q).unwrap();
    let r = b.create_reader("t/small", T, q).unwrap();
    assert!(matched(&w, &r));
    let t = Instant::now();
    for i in 0..1000u32 {
        assert_eq!(w.write(&payload(i, 64)).unwrap(), i as i64 + 1);
    }
    let got = take_all(&r, 1000, Duration::from_secs(15));
    let took = t.elapsed();
    assert_eq!(got.len(), 1000);
    for (i, s) in got.iter().enumerate() {
        assert_eq!(&*s.data, &payload(i as u32, 64)[..], "sample {i}");
        assert_eq!(s.info.sequence_number, i as i64 + 1);
        assert_eq!(s.info.writer_guid, w.guid());
        assert!(s.info.source_timestamp <= s.info.reception_timestamp);
    }
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
    println!("1000 x 64 B reliable: {took:?}");
    assert!(r.take().is_none());
}

#[test]
fn reliable_large_samples_are_fragmented_and_complete() {
    let a = net_participant(121, |_| {});
    let b = net_participant(121, |_| {});
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/large", T, q).unwrap();
    let r = b.create_reader("t/large", T, q).unwrap();
    assert!(matched(&w, &r));
    let size = 4 << 20;
    let t = Instant::now();
    for i in 0..20u32 {
        w.write(&payload(i, size)).unwrap();
    }
    let got = take_all(&r, 20, Duration::from_secs(15));
    let took = t.elapsed();
    assert_eq!(got.len(), 20);
    for (i, s) in got.iter().enumerate() {
        assert!(s.data[..] == payload(i as u32, size)[..], "sample {i} differs");
    }
    println!(
        "20 x 4 MiB reliable: {took:?} ({:.0} MB/s); a: {:?}",
        20.0 * size as f64 / took.as_secs_f64() / 1e6,
        a.network_stats().unwrap()
    );
}

#[test]
fn best_effort_delivers() {
    let a = net_participant(122, |_| {});
    let b = net_participant(122, |_| {});
    let q = Qos { reliability: Reliability::BestEffort, history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/be", T, q).unwrap();
    let r = b.create_reader("t/be", T, q).unwrap();
    assert!(matched(&w, &r));
    for i in 0..100u32 {
        w.write(&payload(i, 100)).unwrap();
        std::thread::sleep(Duration::from_micros(200));
    }
    let got = take_all(&r, 100, Duration::from_secs(3));
    // Loopback rarely drops, but best effort promises nothing: most must arrive, in order.
    assert!(got.len() >= 90, "{} of 100", got.len());
    assert!(got.windows(2).all(|p| p[0].info.sequence_number < p[1].info.sequence_number));
}

#[test]
fn transient_local_late_joiner_gets_the_history() {
    let a = net_participant(123, |_| {});
    let b = net_participant(123, |_| {});
    let q = Qos { durability: Durability::TransientLocal, history: History::KeepLast(5), ..Qos::default() };
    let w = a.create_writer("t/tl", T, q).unwrap();
    for i in 0..8u32 {
        w.write(&payload(i, 40)).unwrap();
    }
    assert!(wait_until(Duration::from_secs(5), || b.discovered_participants().contains(&a.guid())));
    let late = b.create_reader("t/tl", T, q).unwrap();
    let volatile = b.create_reader("t/tl", T, Qos { history: History::KeepLast(5), ..Qos::default() }).unwrap();
    let got = take_all(&late, 5, Duration::from_secs(5));
    let sns: Vec<i64> = got.iter().map(|s| s.info.sequence_number).collect();
    assert_eq!(sns, vec![4, 5, 6, 7, 8]);
    assert_eq!(&*got[0].data, &payload(3, 40)[..]);
    assert!(wait_until(Duration::from_secs(5), || volatile.matched_writer_count() == 1));
    w.write(&payload(8, 40)).unwrap();
    let v = take_all(&volatile, 1, Duration::from_secs(5));
    assert_eq!(v.iter().map(|s| s.info.sequence_number).collect::<Vec<_>>(), vec![9], "volatile: new samples only");
}

#[test]
fn deleting_a_writer_unmatches_the_remote_reader() {
    let a = net_participant(124, |_| {});
    let b = net_participant(124, |_| {});
    let w = a.create_writer("t/gone", T, Qos::default()).unwrap();
    let r = b.create_reader("t/gone", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    drop(w);
    assert!(wait_until(Duration::from_secs(5), || r.matched_writer_count() == 0));
    // And the other way round: a deleted reader is unmatched from the writer.
    let w = a.create_writer("t/gone", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    drop(r);
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 0));
}

#[test]
fn a_departed_participant_takes_its_endpoints_along() {
    let a = net_participant(125, |_| {});
    let b = net_participant(125, |_| {});
    let w = a.create_writer("t/bye", T, Qos::default()).unwrap();
    let r = b.create_reader("t/bye", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    drop(a);
    assert!(wait_until(Duration::from_secs(5), || r.matched_writer_count() == 0));
    drop(w);
}

#[test]
fn incompatible_qos_is_reported_not_matched() {
    let a = net_participant(126, |_| {});
    let b = net_participant(126, |_| {});
    let be = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
    let w = a.create_writer("t/incompatible", T, be).unwrap();
    let r = b.create_reader("t/incompatible", T, Qos::default()).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.match_status().incompatible_qos_count == 1));
    assert!(wait_until(Duration::from_secs(5), || r.match_status().incompatible_qos_count == 1));
    assert_eq!(w.match_status().last_incompatible_policy, Some(hdds_core::discovery::QosPolicy::Reliability));
    assert_eq!((w.matched_reader_count(), r.matched_writer_count()), (0, 0));
}

#[test]
fn each_sample_reaches_a_reader_by_one_path_only() {
    // c and d share the same-process path; e is "remote" (network only).
    let c = net_participant(127, |cfg| cfg.intra_process = true);
    let d = net_participant(127, |cfg| cfg.intra_process = true);
    let e = net_participant(127, |_| {});
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = c.create_writer("t/once", T, q).unwrap();
    let same_participant = c.create_reader("t/once", T, q).unwrap();
    let same_process = d.create_reader("t/once", T, q).unwrap();
    let remote = e.create_reader("t/once", T, q).unwrap();
    // An endpoint of a network-only participant still meets its own participant's endpoints.
    let e_writer = e.create_writer("t/once_e", T, q).unwrap();
    let e_reader = e.create_reader("t/once_e", T, q).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 3 && remote.matched_writer_count() == 1));
    assert_eq!((same_participant.matched_writer_count(), same_process.matched_writer_count()), (1, 1));
    assert_eq!((e_writer.matched_reader_count(), e_reader.matched_writer_count()), (1, 1));
    for i in 0..10u32 {
        w.write(&payload(i, 32)).unwrap();
        e_writer.write(&payload(i, 32)).unwrap();
    }
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
    std::thread::sleep(Duration::from_millis(200));
    for r in [&same_participant, &same_process, &remote, &e_reader] {
        let sns: Vec<i64> = std::iter::from_fn(|| r.take()).map(|s| s.info.sequence_number).collect();
        assert_eq!(sns, (1..=10).collect::<Vec<_>>());
    }
    assert!(!d.discovered_participants().contains(&c.guid()));
}

/// A participant deleted right after a write whose datagram was lost (a silenced network, as on a
/// lossy link) waits for its open writer's last sample to be acknowledged before it says goodbye:
/// the reader gets the sample (it would only learn that the writer left).
#[test]
fn a_participant_deleted_after_a_lost_write_still_delivers_it() {
    let a = net_participant(118, |_| {});
    let b = net_participant(118, |_| {});
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/linger", T, q).unwrap();
    let r = b.create_reader("t/linger", T, q).unwrap();
    assert!(matched(&w, &r));
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)), "the match settled");
    a.set_network_silenced(true);
    w.write(&payload(7, 64)).unwrap();
    a.set_network_silenced(false);
    let t = Instant::now();
    drop(a);
    let took = t.elapsed();
    let got = take_all(&r, 1, Duration::from_secs(2));
    assert_eq!(got.len(), 1, "the sample written before the participant was deleted");
    assert_eq!(&*got[0].data, &payload(7, 64)[..]);
    assert!(took < Duration::from_secs(1), "the deletion waited {took:?}: at most the linger");
    drop(w);
}
