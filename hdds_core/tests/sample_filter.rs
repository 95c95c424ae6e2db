//! Reader-side content filters (Reader::set_sample_filter): samples the filter refuses never
//! enter the history, never take a KEEP_LAST slot, never wake a wait set or a data listener;
//! same-process and network delivery alike.

mod net_support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdds_core::qos::{History, Qos};
use hdds_core::{Participant, ParticipantConfig, Reader, SampleFilter, Target, WaitEntry, WaitSet};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

fn participant() -> Participant {
    Participant::new(ParticipantConfig { domain_id: 9, ..Default::default() }).unwrap()
}

/// Encapsulation header, then one byte of value.
fn sample(v: u8) -> [u8; 5] {
    [0, 1, 0, 0, v]
}

/// Keeps the samples whose value is even. (On the wire the payload is padded to 8 bytes.)
fn even() -> Arc<SampleFilter> {
    Arc::new(|data: &[u8]| data.len() >= 5 && data[4] % 2 == 0)
}

fn values(r: &Reader) -> Vec<u8> {
    std::iter::from_fn(|| r.take()).map(|s| s.data[4]).collect()
}

#[test]
fn refused_samples_never_enter_the_history() {
    let p = participant();
    let w = p.create_writer("sf/basic", T, Qos::default()).unwrap();
    let r = p.create_reader("sf/basic", T, Qos { history: History::KeepAll, ..Qos::default() }).unwrap();
    w.write(&sample(1)).unwrap();
    w.write(&sample(2)).unwrap();
    // What is already in the history is filtered when the filter is set.
    r.set_sample_filter(Some(even()));
    assert_eq!(r.available(), 1);
    for v in 3..10 {
        w.write(&sample(v)).unwrap();
    }
    assert_eq!(values(&r), vec![2, 4, 6, 8]);
    r.set_sample_filter(None);
    w.write(&sample(11)).unwrap();
    assert_eq!(values(&r), vec![11]);
}

#[test]
fn refused_samples_take_no_keep_last_slot() {
    let p = participant();
    let q = Qos { history: History::KeepLast(1), ..Qos::default() };
    let w = p.create_writer("sf/keep_last", T, q).unwrap();
    let r = p.create_reader("sf/keep_last", T, q).unwrap();
    r.set_sample_filter(Some(even()));
    w.write(&sample(2)).unwrap();
    w.write(&sample(3)).unwrap();
    w.write(&sample(5)).unwrap();
    assert_eq!(values(&r), vec![2], "odd samples must not push the even one out");
}

#[test]
fn refused_samples_wake_no_wait_set_and_no_listener() {
    let p = participant();
    let w = p.create_writer("sf/wake", T, Qos::default()).unwrap();
    let r = p.create_reader("sf/wake", T, Qos::default()).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    r.set_data_listener(Some(Arc::new(move |_| {
        c.fetch_add(1, Ordering::SeqCst);
    })));
    r.set_sample_filter(Some(even()));
    let mut ws = WaitSet::new();
    let mut entries = [WaitEntry::new(Target::ReaderData(&r))];
    w.write(&sample(1)).unwrap();
    let start = Instant::now();
    assert!(!ws.wait(&mut entries[..], Some(Duration::from_millis(100))));
    assert!(start.elapsed() >= Duration::from_millis(90), "the wait returned early");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert_eq!(r.available(), 0);
    w.write(&sample(2)).unwrap();
    assert!(ws.wait(&mut entries[..], Some(Duration::from_secs(5))));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(values(&r), vec![2]);
}

#[test]
fn replacing_the_filter_waits_for_a_running_call() {
    let p = participant();
    let w = Arc::new(p.create_writer("sf/replace", T, Qos::default()).unwrap());
    let r = p.create_reader("sf/replace", T, Qos::default()).unwrap();
    let inside = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let (i, d) = (Arc::clone(&inside), Arc::clone(&done));
    r.set_sample_filter(Some(Arc::new(move |_: &[u8]| {
        i.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(200));
        d.store(true, Ordering::SeqCst);
        true
    })));
    let writer = Arc::clone(&w);
    let t = std::thread::spawn(move || writer.write(&sample(1)).unwrap());
    assert!(wait_until(Duration::from_secs(5), || inside.load(Ordering::SeqCst)));
    r.set_sample_filter(None);
    assert!(done.load(Ordering::SeqCst), "set_sample_filter returned while the old filter ran");
    t.join().unwrap();
    assert_eq!(values(&r), vec![1]);
}

#[test]
fn remote_samples_are_filtered_too() {
    let a = net_participant(190, |_| {});
    let b = net_participant(190, |_| {});
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("sf/net", T, q).unwrap();
    let r = b.create_reader("sf/net", T, q).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    r.set_sample_filter(Some(even()));
    for v in 0..20 {
        w.write(&sample(v)).unwrap();
    }
    let mut got = Vec::new();
    let end = Instant::now() + Duration::from_secs(10);
    while got.len() < 10 && Instant::now() < end {
        r.wait_for_data(Duration::from_millis(50));
        got.extend(values(&r));
    }
    assert_eq!(got, (0..20).filter(|v| v % 2 == 0).collect::<Vec<u8>>());
    // Reliable delivery went on: the odd ones were received (and acknowledged), then dropped.
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
}
