//! Wake-ups on the shared-memory path: a sample for a thread waiting in `Reader::wait_for_data`
//! wakes that thread and nobody else (`transport/shm/doorbell.rs`, `runtime/waitset.rs`). A
//! needless wake-up of the participant's reader thread per sample cost about a third of the 64 B
//! one-way latency (bench/same_host.py); this keeps it from coming back.

mod net_support;

use std::sync::mpsc;
use std::time::Duration;

use hdds_core::qos::History;
use hdds_core::{Participant, Qos, Reader, SharedMemoryConfig, Writer};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";
const SAMPLES: u32 = 100;

/// Two participants on `domain` with shared memory, a writer in the first and a reader in the
/// second of `topic` (KEEP_LAST 4), matched.
fn matched_over_shm(domain: u32, topic: &str) -> (Participant, Participant, Writer, Reader) {
    let shm = |c: &mut hdds_core::NetworkConfig| c.shared_memory = SharedMemoryConfig::default();
    let (pa, pb) = (net_participant(domain, shm), net_participant(domain, shm));
    let qos = Qos { history: History::KeepLast(4), ..Qos::default() };
    let w = pa.create_writer(topic, T, qos).unwrap();
    let r = pb.create_reader(topic, T, qos).unwrap();
    assert!(wait_until(Duration::from_secs(10), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    assert!(pb.network_stats().unwrap().shm_active, "this test needs a usable /dev/shm");
    (pa, pb, w, r)
}

#[test]
fn samples_for_a_waiting_thread_do_not_wake_the_reader_thread() {
    let (_pa, pb, w, r) = matched_over_shm(196, "wakeups");

    let (taken_tx, taken_rx) = mpsc::channel::<u32>();
    let reader = std::thread::spawn(move || {
        for i in 0..SAMPLES {
            // Always waiting when the sample comes (the writer waits for our word, then a little).
            let mut got = None;
            for _ in 0..50 {
                if let Some(s) = r.take() {
                    got = Some(s);
                    break;
                }
                r.wait_for_data(Duration::from_millis(100));
            }
            let s = got.unwrap_or_else(|| panic!("sample {i} never came"));
            assert_eq!(s.data[4..8], i.to_le_bytes());
            taken_tx.send(i).unwrap();
        }
    });
    // Let the reader settle into its wait; count from here.
    std::thread::sleep(Duration::from_millis(50));
    let before = pb.network_stats().unwrap();
    let mut payload = vec![0u8; 64];
    for i in 0..SAMPLES {
        payload[4..8].copy_from_slice(&i.to_le_bytes());
        w.write(&payload).unwrap();
        assert_eq!(taken_rx.recv_timeout(Duration::from_secs(10)), Ok(i));
        std::thread::sleep(Duration::from_millis(2));
    }
    reader.join().unwrap();
    let after = pb.network_stats().unwrap();
    assert_eq!(after.shm_samples_read - before.shm_samples_read, u64::from(SAMPLES), "all came through shared memory");
    // The run lasts ~0.2-1 s: the reader thread's 1 s idle timeout accounts for a wake-up or two,
    // a late re-entry into the wait for a few more; one per sample (100) is the bug.
    let wakeups = after.shm_reader_thread_wakeups - before.shm_reader_thread_wakeups;
    assert!(wakeups < u64::from(SAMPLES) / 3, "the reader thread woke {wakeups} times for {SAMPLES} samples");
}

/// `Reader::wait_for_data` keeps one wait set per reader between waits; a second thread waiting on
/// the same reader at the same time gets one of its own, and both wake for a sample.
#[test]
fn two_threads_waiting_on_one_reader_both_wake() {
    let (_pa, _pb, w, r) = matched_over_shm(194, "two-waiters");
    // Twice: the second time each thread reuses what it used (the reader's own wait set, or a
    // new one).
    for round in 1..=2u8 {
        std::thread::scope(|sc| {
            let waiters: Vec<_> = (0..2).map(|_| sc.spawn(|| r.wait_for_data(Duration::from_secs(5)))).collect();
            std::thread::sleep(Duration::from_millis(50));
            w.write(&[round; 64]).unwrap();
            for t in waiters {
                assert!(t.join().unwrap(), "round {round}: a waiter was not woken by the sample");
            }
        });
        let s = r.take().expect("the sample");
        assert_eq!(s.data[..], [round; 64][..]);
    }
}

/// An idle participant's reader thread sleeps until something rings: a matched ring with nothing
/// published wakes it at most once a second (its timeout is a net, not a poll). At the old 100 ms
/// poll this counted 15 wake-ups; every idle ROS node paid them.
#[test]
fn an_idle_reader_thread_sleeps() {
    let (_pa, pb, _w, _r) = matched_over_shm(195, "idle");
    // Let the match's rings settle, then count over 1.5 s of silence.
    std::thread::sleep(Duration::from_millis(200));
    let before = pb.network_stats().unwrap().shm_reader_thread_wakeups;
    std::thread::sleep(Duration::from_millis(1500));
    let wakeups = pb.network_stats().unwrap().shm_reader_thread_wakeups - before;
    assert!(wakeups <= 3, "the idle reader thread woke {wakeups} times in 1.5 s");
}
