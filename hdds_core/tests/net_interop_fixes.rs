//! Regression tests of what the interop tests against Cyclone DDS and Fast DDS found
//! (test/interop/run_hdds_matrix.sh).

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::qos::{History, Reliability};
use hdds_core::Qos;
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

/// Unpaced, a best-effort 4 MiB sample left in ~290 datagrams back to back, and Cyclone readers on
/// the same host got 0 to 3 of 4 such samples (their socket buffer overflowed). A best-effort write
/// now sends 128 KiB bursts 500 µs apart: it takes at least 31 pauses for 4 MiB, and every sample
/// still arrives whole.
#[test]
fn best_effort_large_samples_are_paced_and_arrive() {
    let a = net_participant(163, |_| {});
    let b = net_participant(163, |_| {});
    let q = Qos { reliability: Reliability::BestEffort, history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/paced", T, q).unwrap();
    let r = b.create_reader("t/paced", T, q).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    let size = 4 << 20;
    // One at a time: the receiving side of this (debug) test build is slower than the pacing.
    for i in 0..4u8 {
        let mut p = vec![i; size];
        p[..4].copy_from_slice(&[0, 1, 0, 0]);
        let t = Instant::now();
        w.write(&p).unwrap();
        let took = t.elapsed();
        assert!(took >= Duration::from_micros(500 * 31), "write {i} took {took:?}: not paced");
        assert!(wait_until(Duration::from_secs(5), || r.available() == 1), "sample {i} did not arrive");
        let s = r.take().unwrap();
        assert_eq!(s.data.len(), size);
        assert!(s.data[4..].iter().all(|b| *b == i));
    }
    // Reliable writers are not paced on the write path (their repairs are): a small sample is
    // never delayed either way.
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/unpaced", T, q).unwrap();
    let _r = b.create_reader("t/unpaced", T, q).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1));
    let t = Instant::now();
    w.write(&[0, 1, 0, 0, 1, 2, 3, 4]).unwrap();
    assert!(t.elapsed() < Duration::from_millis(100));
}
