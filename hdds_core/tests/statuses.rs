//! Statuses and listeners of same-process endpoints: deadlines, liveliness leases, incompatible
//! QoS, matched counts, and listeners that run with no engine lock held.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use hdds_core::qos::{Liveliness, LivelinessKind, Qos, Reliability};
use hdds_core::runtime::status::*;
use hdds_core::{Participant, ParticipantConfig, Target, WaitEntry, WaitSet};

const T: &str = "hdds::test::Bytes_";
const SAMPLE: &[u8] = &[0, 1, 0, 0, 42, 0, 0, 0];

fn participant() -> Participant {
    Participant::new(ParticipantConfig { domain_id: 8, ..Default::default() }).unwrap()
}

#[test]
fn deadline_missed_is_counted_on_both_sides_once_per_period() {
    let p = participant();
    let q = Qos { deadline: Duration::from_millis(40), ..Qos::default() };
    let w = p.create_writer("st/deadline", T, q).unwrap();
    let r = p.create_reader("st/deadline", T, q).unwrap();
    let mut ws = WaitSet::new();
    let mut e = [WaitEntry::new(Target::ReaderStatus(&r, REQUESTED_DEADLINE_MISSED))];
    assert!(!ws.wait(&mut e[..], Some(Duration::from_millis(100))), "no deadline before the first sample");
    // Writing every 10 ms keeps both sides within the deadline.
    let (mut before, mut stopped) = (Instant::now(), Instant::now());
    for _ in 0..10 {
        before = Instant::now();
        w.write(SAMPLE).unwrap();
        stopped = Instant::now();
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(r.status(REQUESTED_DEADLINE_MISSED).unwrap().total_count, 0);
    assert!(ws.wait(&mut e[..], Some(Duration::from_secs(2))));
    let first = stopped.elapsed();
    assert!(first >= Duration::from_millis(35) && first < Duration::from_millis(500), "first miss after {first:?}");
    std::thread::sleep(Duration::from_millis(200));
    // Whole periods since the last sample, counted by a thread that may run a little late.
    let at_least = stopped.elapsed().as_millis() as i32 / 40 - 1;
    let rs = r.status(REQUESTED_DEADLINE_MISSED).unwrap();
    let ws_ = w.status(OFFERED_DEADLINE_MISSED).unwrap();
    let at_most = before.elapsed().as_millis() as i32 / 40;
    for (who, s) in [("reader", rs), ("writer", ws_)] {
        assert!(s.total_count >= at_least && s.total_count <= at_most, "{who}: {s:?}, {at_least}..={at_most}");
        assert_eq!(s.total_count, s.total_count_change);
    }
    assert_eq!(r.status(REQUESTED_DEADLINE_MISSED).unwrap().total_count_change, 0, "reading resets the change");
}

#[test]
fn liveliness_is_lost_when_a_manual_by_topic_writer_stops_asserting() {
    let p = participant();
    let lease = Duration::from_millis(100);
    let q =
        Qos { liveliness: Liveliness { kind: LivelinessKind::ManualByTopic, lease_duration: lease }, ..Qos::default() };
    let w = p.create_writer("st/liveliness", T, q).unwrap();
    let r = p.create_reader("st/liveliness", T, q).unwrap();
    let changed = r.status(LIVELINESS_CHANGED).unwrap();
    assert_eq!((changed.current_count, changed.current_count_change, changed.total_count), (1, 1, 0));
    // Asserting (or writing) faster than the lease keeps it alive.
    for i in 0..12 {
        if i % 2 == 0 {
            w.assert_liveliness();
        } else {
            w.write(SAMPLE).unwrap();
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    assert_eq!(w.status(LIVELINESS_LOST).unwrap().total_count, 0);
    let mut ws = WaitSet::new();
    let mut e = [WaitEntry::new(Target::WriterStatus(&w, LIVELINESS_LOST))];
    let stopped = Instant::now();
    assert!(ws.wait(&mut e[..], Some(Duration::from_secs(2))));
    let took = stopped.elapsed();
    assert!(took < Duration::from_millis(600), "lost after {took:?}");
    assert_eq!(w.status(LIVELINESS_LOST).unwrap().total_count, 1);
    let s = r.status(LIVELINESS_CHANGED).unwrap();
    assert_eq!((s.current_count, s.current_count_change, s.total_count, s.total_count_change), (0, -1, 1, 1));
    // Lost once, not once per period.
    std::thread::sleep(Duration::from_millis(250));
    assert_eq!(w.status(LIVELINESS_LOST).unwrap().total_count, 1);
    w.assert_liveliness();
    let s = r.status(LIVELINESS_CHANGED).unwrap();
    assert_eq!((s.current_count, s.current_count_change, s.total_count, s.total_count_change), (1, 1, 0, -1));
    // An AUTOMATIC writer never loses it.
    let auto = Qos { liveliness: Liveliness { kind: LivelinessKind::Automatic, lease_duration: lease }, ..q };
    let w2 = p.create_writer("st/liveliness2", T, auto).unwrap();
    std::thread::sleep(Duration::from_millis(250));
    assert_eq!(w2.status(LIVELINESS_LOST).unwrap().total_count, 0);
}

#[test]
fn incompatible_qos_is_a_status_an_event_and_a_listener_call() {
    let p = participant();
    let r = p.create_reader("st/incompatible", T, Qos::default()).unwrap();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let c = Arc::clone(&calls);
    r.set_status_listener(Some(Arc::new(move |kind| c.lock().unwrap().push(kind))));
    let be = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
    let w = p.create_writer("st/incompatible", T, be).unwrap();
    assert_eq!(*calls.lock().unwrap(), vec![REQUESTED_INCOMPATIBLE_QOS]);
    let mut ws = WaitSet::new();
    let mut e = [
        WaitEntry::new(Target::ReaderStatus(&r, REQUESTED_INCOMPATIBLE_QOS)),
        WaitEntry::new(Target::WriterStatus(&w, OFFERED_INCOMPATIBLE_QOS | PUBLICATION_MATCHED)),
        WaitEntry::new(Target::ReaderStatus(&r, SUBSCRIPTION_MATCHED)),
    ];
    assert!(ws.wait(&mut e[..], Some(Duration::ZERO)));
    assert_eq!(e.map(|e| e.ready), [true, true, false], "nothing matched");
    for s in [r.status(REQUESTED_INCOMPATIBLE_QOS).unwrap(), w.status(OFFERED_INCOMPATIBLE_QOS).unwrap()] {
        assert_eq!((s.total_count, s.total_count_change, s.last_policy_id), (1, 1, 11), "RELIABILITY: {s:?}");
    }
    assert!(!ws.wait(&mut e[..], Some(Duration::ZERO)), "read statuses are no longer ready");
    assert_eq!(r.status(SUBSCRIPTION_MATCHED).unwrap().current_count, 0);
    assert!(r.status(LIVELINESS_LOST).is_err(), "a writer status is not a reader's");
    assert!(w.status(REQUESTED_INCOMPATIBLE_QOS | SAMPLE_LOST).is_err());
}

#[test]
fn matched_counts_follow_creation_and_deletion() {
    let p = participant();
    let w = p.create_writer("st/matched", T, Qos::default()).unwrap();
    let r1 = p.create_reader("st/matched", T, Qos::default()).unwrap();
    let r2 = p.create_reader("st/matched", T, Qos::default()).unwrap();
    let s = w.status(PUBLICATION_MATCHED).unwrap();
    assert_eq!((s.total_count, s.current_count, s.current_count_change), (2, 2, 2));
    drop(r2);
    let s = w.status(PUBLICATION_MATCHED).unwrap();
    assert_eq!((s.total_count, s.total_count_change, s.current_count, s.current_count_change), (2, 0, 1, -1));
    drop(w);
    let s = r1.status(SUBSCRIPTION_MATCHED).unwrap();
    assert_eq!((s.total_count, s.current_count, s.current_count_change), (1, 0, 0));
    let s = r1.status(LIVELINESS_CHANGED).unwrap();
    assert_eq!((s.current_count, s.total_count), (0, 0));
}

/// The listener writes with the writer that called it, reads the reader and deletes an endpoint:
/// any engine lock held around the call would deadlock, so the test runs on a thread it bounds.
#[test]
fn data_listeners_run_once_per_sample_with_no_engine_lock_held() {
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let p = participant();
        let w = Arc::new(p.create_writer("st/listener", T, Qos::default()).unwrap());
        let r = Arc::new(p.create_reader("st/listener", T, Qos::default()).unwrap());
        let extra = Mutex::new(Some(p.create_reader("st/listener", T, Qos::default()).unwrap()));
        let calls = Arc::new(AtomicUsize::new(0));
        let (w2, r2, c) = (Arc::clone(&w), Arc::downgrade(&r), Arc::clone(&calls));
        r.set_data_listener(Some(Arc::new(move |n| {
            assert_eq!(n, 1);
            if c.fetch_add(1, Ordering::SeqCst) == 0 {
                w2.write(SAMPLE).unwrap();
                drop(extra.lock().unwrap().take());
                if let Some(r) = r2.upgrade() {
                    assert!(r.take().is_some());
                    let _ = r.status(SUBSCRIPTION_MATCHED);
                }
            }
        })));
        w.write(SAMPLE).unwrap();
        let seen = calls.load(Ordering::SeqCst);
        r.set_data_listener(None);
        w.write(SAMPLE).unwrap();
        done_tx.send((seen, calls.load(Ordering::SeqCst), r.available())).unwrap();
    });
    let (seen, after_clear, unread) = done_rx.recv_timeout(Duration::from_secs(10)).expect("a listener deadlocked");
    assert_eq!(seen, 2, "one call per sample: the written one and the one the listener wrote");
    assert_eq!(after_clear, 2, "a cleared listener is not called");
    assert_eq!(unread, 2);
}
