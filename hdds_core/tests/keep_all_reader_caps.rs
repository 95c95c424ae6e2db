//! KEEP_ALL readers that the application does not take from stay within
//! `ParticipantConfig::keep_all_max_samples` on the paths where no writer waits for them:
//! best-effort readers drop the newest sample and count it (reader and SAMPLE_LOST, and
//! `NetStats::history_over_limit` when it came over the network); reliable readers fed over UDP
//! stop acknowledging, so that the writer sends again and finally blocks, and nothing is lost.

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::error::ErrorKind;
use hdds_core::qos::{History, Reliability};
use hdds_core::runtime::status::SAMPLE_LOST;
use hdds_core::{Participant, ParticipantConfig, Qos, Reader};
use net_support::{net_participant_with, wait_until};

const T: &str = "hdds::test::Bytes_";
const CAP: usize = 8;

fn qos(reliability: Reliability) -> Qos {
    Qos { reliability, history: History::KeepAll, max_blocking_time: Duration::from_millis(100), ..Qos::default() }
}

fn payload(i: u32) -> Vec<u8> {
    let mut p = vec![0u8; 16];
    p[..4].copy_from_slice(&[0, 1, 0, 0]);
    p[4..8].copy_from_slice(&i.to_le_bytes());
    p
}

fn counter(s: &hdds_core::Sample) -> u32 {
    u32::from_le_bytes(s.data[4..8].try_into().unwrap())
}

fn capped(domain: u32, keep_all_max_samples: usize) -> Participant {
    net_participant_with(ParticipantConfig { domain_id: domain, keep_all_max_samples, ..Default::default() }, |_| {})
}

fn drain(r: &Reader) -> Vec<u32> {
    std::iter::from_fn(|| r.take()).map(|s| counter(&s)).collect()
}

#[test]
fn best_effort_keep_all_reader_in_the_same_process_keeps_the_oldest_and_counts_the_rest() {
    let p = Participant::new(ParticipantConfig { domain_id: 216, keep_all_max_samples: CAP, ..Default::default() })
        .unwrap();
    let w = p.create_writer("caps/be-intra", T, qos(Reliability::BestEffort)).unwrap();
    let r = p.create_reader("caps/be-intra", T, qos(Reliability::BestEffort)).unwrap();
    for i in 0..20 {
        w.write(&payload(i)).unwrap();
    }
    assert_eq!(r.available(), CAP);
    assert_eq!(r.history_refusals(), 12);
    assert_eq!(r.status(SAMPLE_LOST).unwrap().total_count, 12);
    assert_eq!(drain(&r), (0..CAP as u32).collect::<Vec<_>>(), "the newest are dropped, the oldest kept");
    w.write(&payload(99)).unwrap();
    assert_eq!(drain(&r), [99], "room again once taken");
}

#[test]
fn best_effort_keep_all_reader_over_udp_is_capped_and_counted() {
    let a = capped(217, 1024);
    let b = capped(217, CAP);
    let w = a.create_writer("caps/be-udp", T, qos(Reliability::BestEffort)).unwrap();
    let r = b.create_reader("caps/be-udp", T, qos(Reliability::BestEffort)).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    for i in 0..20 {
        w.write(&payload(i)).unwrap();
    }
    // Loopback may drop a best-effort datagram under load: whatever arrived is held or refused.
    assert!(wait_until(Duration::from_secs(5), || r.available() == CAP && r.history_refusals() >= 1));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(r.available(), CAP);
    let refused = r.history_refusals();
    assert_eq!(b.network_stats().unwrap().history_over_limit, refused);
    let lost = r.status(SAMPLE_LOST).unwrap().total_count as u64;
    assert!(lost >= refused, "every refused sample is in SAMPLE_LOST ({lost} < {refused})");
    let kept = drain(&r);
    assert!(kept.windows(2).all(|p| p[0] < p[1]) && kept.len() == CAP, "{kept:?}");
}

#[test]
fn reliable_keep_all_reader_over_udp_stops_acknowledging_and_loses_nothing() {
    let a = capped(218, 16);
    let b = capped(218, CAP);
    let w = a.create_writer("caps/rel-udp", T, qos(Reliability::Reliable)).unwrap();
    let r = b.create_reader("caps/rel-udp", T, qos(Reliability::Reliable)).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    // The reader holds CAP and refuses the rest; the writer's history (16) fills with
    // unacknowledged samples and `write` times out: back-pressure reaches the writer.
    let mut written = 0u32;
    let timed_out = loop {
        match w.write(&payload(written)) {
            Ok(_) => written += 1,
            Err(e) => break e,
        }
        assert!(written < 200, "the writer never blocked: the reader acknowledged beyond its cap");
    };
    assert_eq!(timed_out.kind(), ErrorKind::Timeout, "{timed_out}");
    assert!(written as usize > CAP, "wrote {written}");
    assert!(wait_until(Duration::from_secs(5), || r.available() == CAP));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(r.available(), CAP, "held at its cap while the writer kept sending");
    assert!(r.history_refusals() >= 1 && b.network_stats().unwrap().history_over_limit >= 1);
    assert!(!w.wait_for_acknowledgments(Duration::from_millis(50)));
    assert_eq!(r.status(SAMPLE_LOST).unwrap().total_count, 0);
    // Taking makes room: the refused samples come again, all of them, in order.
    let mut got = Vec::new();
    let end = Instant::now() + Duration::from_secs(15);
    while got.len() < written as usize && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            got.extend(drain(&r));
        }
    }
    assert_eq!(got, (0..written).collect::<Vec<_>>(), "every written sample, once, in order");
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
    assert_eq!(r.status(SAMPLE_LOST).unwrap().total_count, 0);
}
