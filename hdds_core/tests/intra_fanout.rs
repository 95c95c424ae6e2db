//! One process, one reliable KEEP_LAST 16 writer and three readers, each waited on by its own
//! thread through a wait set (the shape of `perf_test -p 1 -s 3` over rmw_hdds: one participant,
//! network and shared memory on, one executor thread per subscription).
//!
//! The writer goes in lock-step: it writes the next sample only once every reader took the last
//! one. No later sample can then hide a lost wake-up (a reader woken late by the next write, or by
//! a time-out), so a reader whose wait times out is one the engine forgot to wake. And each reader
//! must see every sequence number exactly once: a sample that also reached it through shared
//! memory or UDP (the participant talking to itself) would come twice.

mod net_support;

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use hdds_core::qos::{History, Qos, Reliability};
use hdds_core::{GuardCondition, SharedMemoryConfig, Target, WaitEntry, WaitSet};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";
const SAMPLES: i64 = 2000;
const READERS: usize = 3;
/// A reader woken for its sample has it within microseconds; only a lost wake-up waits this long.
const WAKE_BOUND: Duration = Duration::from_secs(5);

fn payload(i: i64) -> Vec<u8> {
    let mut p = vec![0, 1, 0, 0];
    p.extend_from_slice(&i.to_le_bytes());
    p
}

#[test]
fn three_waiting_readers_are_woken_for_every_sample_and_get_it_once() {
    let p = net_participant(193, |c| {
        // As rmw_hdds runs: same-process path and shared memory on.
        c.intra_process = true;
        c.shared_memory = SharedMemoryConfig::default();
    });
    let q = Qos { reliability: Reliability::Reliable, history: History::KeepLast(16), ..Qos::default() };
    let readers: Vec<_> = (0..READERS).map(|_| p.create_reader("fanout", T, q).unwrap()).collect();
    // rclcpp's wait set also holds the node's other readers (parameter services): idle entries.
    let idle = p.create_reader("fanout/idle", T, q).unwrap();
    let w = p.create_writer("fanout", T, q).unwrap();
    // A few SPDP rounds: time for the participant to hear itself, were it to match its own readers
    // again over UDP or shared memory.
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(w.matched_reader_count(), READERS, "the writer serves each same-process reader once");
    for r in &readers {
        assert_eq!(r.matched_writer_count(), 1);
    }

    // The last sequence number each reader took, and a wake-up for the writer.
    let taken = Mutex::new([0i64; READERS]);
    let progressed = Condvar::new();
    std::thread::scope(|s| {
        for (i, r) in readers.iter().enumerate() {
            let (taken, progressed, idle) = (&taken, &progressed, &idle);
            s.spawn(move || {
                let interrupt = GuardCondition::new();
                let mut ws = WaitSet::new();
                let mut entries = [
                    WaitEntry::new(Target::ReaderData(r)),
                    WaitEntry::new(Target::Guard(&interrupt)),
                    WaitEntry::new(Target::ReaderData(idle)),
                ];
                let mut last = 0;
                while last < SAMPLES {
                    assert!(
                        ws.wait(&mut entries[..], Some(WAKE_BOUND)),
                        "reader {i} was not woken for sample {} within {WAKE_BOUND:?}: lost wake-up",
                        last + 1
                    );
                    while let Some(sample) = r.take() {
                        let sn = sample.info.sequence_number;
                        assert_eq!(sn, last + 1, "reader {i}: sample {sn} after {last} (twice, or lost)");
                        assert_eq!(&sample.data[..], &payload(sn)[..]);
                        last = sn;
                    }
                    taken.lock().unwrap()[i] = last;
                    progressed.notify_all();
                }
            });
        }
        for i in 1..=SAMPLES {
            assert_eq!(w.write(&payload(i)).unwrap(), i);
            let deadline = Instant::now() + 2 * WAKE_BOUND;
            let mut t = taken.lock().unwrap();
            while t.iter().any(|&sn| sn < i) {
                let left = deadline.saturating_duration_since(Instant::now());
                assert!(!left.is_zero(), "sample {i} not taken by every reader: {:?}", *t);
                t = progressed.wait_timeout(t, left).unwrap().0;
            }
        }
    });
    assert!(idle.take().is_none());
    assert!(wait_until(Duration::from_secs(1), || readers.iter().all(|r| r.take().is_none())));
}
