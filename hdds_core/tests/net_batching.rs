//! Write batching (NetworkConfig::write_batching) between two participants of this test process
//! over UDP on loopback: samples written in a burst share datagrams, and none is left behind.

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::qos::{History, Reliability};
use hdds_core::{ParticipantConfig, Qos};
use net_support::{net_participant, net_participant_with, wait_until};

const T: &str = "hdds::test::Bytes_";

fn payload(i: u32) -> Vec<u8> {
    let mut p = vec![0u8; 64];
    p[..4].copy_from_slice(&[0, 1, 0, 0]);
    p[4..8].copy_from_slice(&i.to_le_bytes());
    p
}

#[test]
fn a_burst_shares_datagrams_and_arrives_whole_and_in_order() {
    for reliability in [Reliability::Reliable, Reliability::BestEffort] {
        let domain = if reliability == Reliability::Reliable { 140 } else { 141 };
        let a = net_participant(domain, |c| c.write_batching = true);
        // The whole burst fits the reader's KEEP_ALL history: a best-effort reader that falls
        // behind drops what is beyond keep_all_max_samples (tests/keep_all_reader_caps.rs).
        let pc = ParticipantConfig { domain_id: domain, keep_all_max_samples: 4096, ..Default::default() };
        let b = net_participant_with(pc, |_| {});
        let q = Qos { reliability, history: History::KeepAll, ..Qos::default() };
        let w = a.create_writer("t/batch", T, q).unwrap();
        let r = b.create_reader("t/batch", T, q).unwrap();
        assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
        let sent_before = a.network_stats().unwrap().datagrams_sent;
        let n = 2000u32;
        for i in 0..n {
            w.write(&payload(i)).unwrap();
        }
        // No flush: the tail goes out by the batch's deadline.
        let mut got = Vec::new();
        let end = Instant::now() + Duration::from_secs(10);
        while got.len() < n as usize && Instant::now() < end {
            if r.wait_for_data(Duration::from_millis(50)) {
                while let Some(s) = r.take() {
                    got.push(u32::from_le_bytes(s.data[4..8].try_into().unwrap()));
                }
            }
        }
        assert_eq!(got, (0..n).collect::<Vec<_>>(), "{reliability:?}: every sample, in order");
        let datagrams = a.network_stats().unwrap().datagrams_sent - sent_before;
        // About 120 samples fit a message; a loaded machine (the writing thread descheduled past
        // the 1 ms batching delay) sends fuller ones less often, but never one per sample.
        assert!(datagrams < u64::from(n) / 4, "{reliability:?}: {datagrams} datagrams for {n} samples of 64 B");
    }
}

#[test]
fn a_lone_batched_write_goes_out_by_the_deadline_or_on_flush() {
    let a = net_participant(142, |c| c.write_batching = true);
    let b = net_participant(142, |_| {});
    let q = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
    let w = a.create_writer("t/lone", T, q).unwrap();
    let r = b.create_reader("t/lone", T, q).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    w.write(&payload(1)).unwrap();
    assert!(r.wait_for_data(Duration::from_secs(2)), "sent within the batching delay");
    assert!(r.take().is_some());
    w.write(&payload(2)).unwrap();
    w.flush();
    assert!(r.wait_for_data(Duration::from_secs(2)), "sent on flush");
    assert_eq!(r.take().map(|s| s.data[4]), Some(2));
}
