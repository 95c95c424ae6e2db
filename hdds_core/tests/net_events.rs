//! Wait sets, statuses and listeners over the network path: two participants of this test
//! process that talk over UDP on loopback only (`intra_process: false`), each test in its own
//! domain.

mod net_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdds_core::qos::{Qos, Reliability};
use hdds_core::runtime::status::*;
use hdds_core::{Reader, Target, WaitEntry, WaitSet, Writer};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";
const SAMPLE: &[u8] = &[0, 1, 0, 0, 42, 0, 0, 0];

fn matched(w: &Writer, r: &Reader) -> bool {
    wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1)
}

#[test]
fn a_wait_set_wakes_on_data_from_a_networked_participant() {
    let a = net_participant(140, |_| {});
    let b = net_participant(140, |_| {});
    let w = a.create_writer("ev/data", T, Qos::default()).unwrap();
    let r = b.create_reader("ev/data", T, Qos::default()).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    r.set_data_listener(Some(Arc::new(move |n| {
        c.fetch_add(n, Ordering::SeqCst);
    })));
    let mut ws = WaitSet::new();
    let mut e = [WaitEntry::new(Target::ReaderStatus(&r, SUBSCRIPTION_MATCHED))];
    assert!(ws.wait(&mut e[..], Some(Duration::from_secs(5))), "SEDP matched them");
    assert!(matched(&w, &r));
    let s = r.status(SUBSCRIPTION_MATCHED).unwrap();
    assert_eq!((s.current_count, s.total_count), (1, 1));
    assert_eq!(r.status(LIVELINESS_CHANGED).unwrap().current_count, 1);
    assert!(wait_until(Duration::from_secs(5), || w.status(PUBLICATION_MATCHED).unwrap().current_count == 1));

    let mut e = [WaitEntry::new(Target::ReaderData(&r))];
    assert!(!ws.wait(&mut e[..], Some(Duration::from_millis(20))));
    for i in 0..20 {
        let start = Instant::now();
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(5));
                w.write(SAMPLE).unwrap();
            });
            assert!(ws.wait(&mut e[..], Some(Duration::from_secs(5))), "sample {i}");
        });
        assert!(start.elapsed() < Duration::from_secs(1), "sample {i}: woke after {:?}", start.elapsed());
        assert!(e[0].ready);
        assert!(r.take().is_some());
    }
    // The receive thread wakes the wait set, then calls the listener once its locks are released.
    assert!(wait_until(Duration::from_secs(2), || calls.load(Ordering::SeqCst) >= 20));
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(calls.load(Ordering::SeqCst), 20, "one listener call per sample, on the receive thread");

    // The writer goes away (SEDP disposal): unmatched, and no longer counted alive.
    let mut e = [WaitEntry::new(Target::ReaderStatus(&r, SUBSCRIPTION_MATCHED | LIVELINESS_CHANGED))];
    drop(w);
    assert!(ws.wait(&mut e[..], Some(Duration::from_secs(5))));
    // Both statuses change on the receive thread, one after the other: the wait woke at the first.
    assert!(wait_until(Duration::from_secs(1), || r.status_changes() & LIVELINESS_CHANGED != 0));
    let s = r.status(SUBSCRIPTION_MATCHED).unwrap();
    assert_eq!((s.current_count, s.current_count_change), (0, -1));
    let s = r.status(LIVELINESS_CHANGED).unwrap();
    assert_eq!((s.current_count, s.current_count_change), (0, -1));
}

#[test]
fn liveliness_changes_on_the_reader_when_a_remote_participant_is_silenced() {
    let a = net_participant(141, |_| {});
    let b = net_participant(141, |c| c.lease_duration = Duration::from_millis(800));
    let r = a.create_reader("ev/silenced", T, Qos::default()).unwrap();
    let w = b.create_writer("ev/silenced", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    let s = r.status(LIVELINESS_CHANGED).unwrap();
    assert_eq!((s.current_count, s.total_count), (1, 0));
    let changes = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&changes);
    r.set_status_listener(Some(Arc::new(move |kind| {
        if kind == LIVELINESS_CHANGED {
            c.fetch_add(1, Ordering::SeqCst);
        }
    })));
    let mut ws = WaitSet::new();
    let mut e = [WaitEntry::new(Target::ReaderStatus(&r, LIVELINESS_CHANGED))];
    assert!(!ws.wait(&mut e[..], Some(Duration::from_millis(50))));
    let start = Instant::now();
    b.set_network_silenced(true);
    assert!(ws.wait(&mut e[..], Some(Duration::from_secs(5))), "the lease ran out unnoticed");
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(500), "alive count dropped after {took:?}, before the lease ran out");
    let s = r.status(LIVELINESS_CHANGED).unwrap();
    assert_eq!((s.current_count, s.current_count_change), (0, -1));
    assert_eq!(r.status(SUBSCRIPTION_MATCHED).unwrap().current_count, 0);
    // The timer thread calls the listener once it released its locks, after waking the wait set.
    assert!(wait_until(Duration::from_secs(1), || changes.load(Ordering::SeqCst) == 1));
    b.set_network_silenced(false);
}

#[test]
fn incompatible_qos_over_the_network_is_a_status_on_both_sides() {
    let a = net_participant(142, |_| {});
    let b = net_participant(142, |_| {});
    let be = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
    let w = a.create_writer("ev/incompatible", T, be).unwrap();
    let r = b.create_reader("ev/incompatible", T, Qos::default()).unwrap();
    let mut ws = WaitSet::new();
    let mut e = [
        WaitEntry::new(Target::ReaderStatus(&r, REQUESTED_INCOMPATIBLE_QOS)),
        WaitEntry::new(Target::WriterStatus(&w, OFFERED_INCOMPATIBLE_QOS)),
    ];
    let end = Instant::now() + Duration::from_secs(5);
    while !(e[0].ready && e[1].ready) && Instant::now() < end {
        ws.wait(&mut e[..], Some(Duration::from_millis(200)));
    }
    assert!(e[0].ready && e[1].ready, "discovery reported no incompatibility");
    for s in [r.status(REQUESTED_INCOMPATIBLE_QOS).unwrap(), w.status(OFFERED_INCOMPATIBLE_QOS).unwrap()] {
        assert!(s.total_count >= 1 && s.last_policy_id == 11, "RELIABILITY: {s:?}");
    }
    assert_eq!(r.matched_writer_count(), 0);
    assert_eq!(r.status(SUBSCRIPTION_MATCHED).unwrap().total_count, 0);
}
