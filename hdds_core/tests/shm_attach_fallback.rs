//! A same-host reader that cannot attach to a writer's shared-memory ring gets the writer's samples
//! over UDP, and the writer does not wait for it (runtime/net/shm_fallback.rs). The attach fails
//! for sure: the writer's segment file is removed from /dev/shm before the reader's participant
//! exists (the writer keeps its mapping; the reader has nothing to open). Two participants of this
//! process meet as two processes would (`intra_process: false`). Each test has its own domain.
//! Once the reader is on UDP, its ACKNACKs no longer look in the writer's discovery database
//! (`NetStats::shm_fallback_lookups` stays put while the samples and the repeated requests flow).

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::qos::{History, Reliability};
use hdds_core::runtime::status::PUBLICATION_MATCHED;
use hdds_core::transport::shm::segment::{segment_name, SHM_DIR};
use hdds_core::{Participant, Qos, SharedMemoryConfig};
use net_support::{counter_payload, net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";
/// More than the ring's slots (64 by default): a writer that waited for the reader in its ring
/// would block on these.
const SAMPLES: u32 = 300;

fn shm_participant(domain: u32) -> Participant {
    net_participant(domain, |c| c.shared_memory = SharedMemoryConfig::default())
}

fn fallback(domain: u32, reliability: Reliability) {
    let max_blocking = Duration::from_millis(500);
    let qos = Qos { reliability, history: History::KeepAll, max_blocking_time: max_blocking, ..Qos::default() };
    let a = shm_participant(domain);
    assert!(a.network_stats().unwrap().shm_active, "shared memory is not usable here");
    let w = a.create_writer("t/fallback", T, qos).unwrap();
    let file = format!("{SHM_DIR}/{}", segment_name(w.guid()));
    std::fs::remove_file(&file).unwrap_or_else(|e| panic!("the writer's segment {file}: {e}"));

    let b = shm_participant(domain);
    let r = b.create_reader("t/fallback", T, qos).unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1),
        "not matched: writer sees {} readers, reader {} writers",
        w.matched_reader_count(),
        r.matched_writer_count()
    );
    // The writer moves the reader from its ring to UDP once the reader's ACKNACK comes.
    assert!(
        wait_until(Duration::from_secs(5), || a.network_stats().unwrap().shm_udp_fallbacks == 1),
        "the writer did not move the reader to UDP: {:?}",
        a.network_stats().unwrap()
    );
    let bs = b.network_stats().unwrap();
    assert!(bs.shm_attach_failures >= 1, "the attach did not fail: {bs:?}");
    assert_eq!(bs.shm_udp_fallbacks, 1, "{bs:?}");
    assert_eq!(w.matched_reader_count(), 1, "the reader is on one path");
    // An ACKNACK already on its way when the writer moved the reader may still look.
    std::thread::sleep(Duration::from_millis(100));
    let lookups = a.network_stats().unwrap().shm_fallback_lookups;
    assert!(lookups >= 1, "the move itself looked in the discovery database");

    let start = Instant::now();
    for i in 0..SAMPLES {
        let t = Instant::now();
        w.write(&counter_payload(i)).unwrap_or_else(|e| panic!("write {i} after {:?}: {e}", t.elapsed()));
        assert!(t.elapsed() < max_blocking / 2, "write {i} blocked {:?}", t.elapsed());
        // Best effort: no faster than UDP on loopback delivers to a reader taking as it goes.
        if reliability == Reliability::BestEffort && i % 16 == 15 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let wrote_in = start.elapsed();

    let mut got = Vec::new();
    let end = Instant::now() + Duration::from_secs(10);
    while got.len() < SAMPLES as usize && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            while let Some(s) = r.take() {
                got.push(u32::from_le_bytes(s.data[4..8].try_into().unwrap()));
            }
        }
    }
    assert_eq!(got, (0..SAMPLES).collect::<Vec<_>>(), "samples over UDP, in order, once (wrote in {wrote_in:?})");
    let bs = b.network_stats().unwrap();
    assert_eq!(bs.shm_samples_read, 0, "nothing came through shared memory: {bs:?}");
    let m = w.status(PUBLICATION_MATCHED).unwrap();
    assert_eq!(m.current_count, 1, "{m:?}");
    if reliability == Reliability::Reliable {
        // Every sample acknowledged: ACKNACKs over UDP reached the writer.
        assert!(w.wait_for_acknowledgments(Duration::from_secs(5)), "the reader's ACKNACKs");
    }

    // The reader's request for UDP goes out again 50 ms, 250 ms and 1 s after the first (in case
    // one is lost; the first went before `start`): once they are all out, nothing changed.
    std::thread::sleep(Duration::from_millis(1300).saturating_sub(start.elapsed()));
    assert_eq!(a.network_stats().unwrap().shm_udp_fallbacks, 1);
    assert_eq!(b.network_stats().unwrap().shm_udp_fallbacks, 1);
    assert_eq!(w.matched_reader_count(), 1);
    w.write(&counter_payload(SAMPLES)).unwrap();
    assert!(wait_until(Duration::from_secs(5), || r.take().is_some()), "a sample after the repeated requests");
    assert_eq!(
        a.network_stats().unwrap().shm_fallback_lookups,
        lookups,
        "the ACKNACKs of a reader already on UDP looked in the discovery database"
    );
}

#[test]
fn reliable_keep_all_reader_falls_back_to_udp_and_the_writer_does_not_wait() {
    fallback(230, Reliability::Reliable);
}

#[test]
fn best_effort_reader_falls_back_to_udp() {
    fallback(231, Reliability::BestEffort);
}
