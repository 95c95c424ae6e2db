//! The discovery caps that protect a participant from a flood: remote participants and remote
//! endpoints beyond `max_remote_*` are dropped and counted, never kept, never a crash; what is
//! under the cap keeps working. Loopback only, each test in its own domain.

mod net_support;

use std::time::Duration;

use hdds_core::qos::Reliability;
use hdds_core::{NetworkConfig, Qos, ReassemblyLimits};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

#[test]
fn participants_beyond_the_cap_are_dropped_and_counted() {
    let a = net_participant(170, |c| c.max_remote_participants = 1);
    let b = net_participant(170, |_| {});
    let c = net_participant(170, |_| {});
    assert!(wait_until(Duration::from_secs(5), || a.network_stats().unwrap().participants_over_limit > 0));
    assert!(wait_until(Duration::from_secs(5), || {
        b.discovered_participants().contains(&a.guid()) && c.discovered_participants().contains(&a.guid())
    }));
    // Several more announcements of the one over the cap: still one participant, counted each time.
    std::thread::sleep(Duration::from_millis(600));
    let known = a.discovered_participants();
    assert_eq!(known.len(), 1, "{known:?}");
    assert!(known[0] == b.guid() || known[0] == c.guid());
    let stats = a.network_stats().unwrap();
    assert_eq!(stats.participants_discovered, 1);
    assert!(stats.participants_over_limit >= 2, "{stats:?}");

    // Once the known one leaves, the other is taken at its next announcement.
    let (gone, other) = if known[0] == b.guid() { (b, c) } else { (c, b) };
    drop(gone);
    assert!(wait_until(Duration::from_secs(5), || a.discovered_participants() == vec![other.guid()]));
}

#[test]
fn endpoints_beyond_the_cap_are_dropped_and_counted() {
    let a = net_participant(171, |c| c.max_remote_endpoints = 2);
    let b = net_participant(171, |_| {});
    let q = Qos::default();
    let readers: Vec<_> = (0..3).map(|i| a.create_reader(&format!("t/cap{i}"), T, q).unwrap()).collect();
    let writers: Vec<_> = (0..3).map(|i| b.create_writer(&format!("t/cap{i}"), T, q).unwrap()).collect();
    assert!(wait_until(Duration::from_secs(5), || a.network_stats().unwrap().endpoints_over_limit > 0));
    // Two of b's writers are known to a and matched; the third is not (b matches all three of
    // a's readers: b has no cap).
    assert!(
        wait_until(Duration::from_secs(5), || readers.iter().filter(|r| r.matched_writer_count() == 1).count() == 2)
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(readers.iter().filter(|r| r.matched_writer_count() == 1).count(), 2);
    assert!(writers.iter().all(|w| w.matched_reader_count() == 1));
    let (_, endpoints) = a.discovered_graph();
    assert_eq!(endpoints.iter().filter(|e| e.participant_guid == b.guid()).count(), 2);
}

#[test]
fn fragmented_samples_beyond_the_reassembly_limits_are_dropped_and_counted() {
    // Best effort: a reliable writer would send the refused sample again and again.
    let limits = ReassemblyLimits { max_sample_size: 100_000, ..ReassemblyLimits::default() };
    let a = net_participant(173, |c| c.reassembly = limits);
    let b = net_participant(173, |_| {});
    let q = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
    let r = a.create_reader("t/frag", T, q).unwrap();
    let w = b.create_writer("t/frag", T, q).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1));
    let big = vec![7u8; 200_000];
    let fits = vec![9u8; 50_000];
    w.write(&big).unwrap();
    assert!(wait_until(Duration::from_secs(5), || a.network_stats().unwrap().fragments_over_limit >= 1));
    w.write(&fits).unwrap();
    assert!(r.wait_for_data(Duration::from_secs(5)), "a sample within the limits still arrives");
    assert_eq!(r.take().unwrap().data.len(), 50_000);
    assert!(r.take().is_none(), "the 200 kB sample was not delivered");
    assert_eq!(a.network_stats().unwrap().fragments_over_limit, 1, "counted once, not per fragment");
}

#[test]
fn a_cap_of_zero_is_refused_with_a_reason() {
    let cfg = NetworkConfig { max_remote_endpoints: 0, ..NetworkConfig::localhost() };
    let err = hdds_core::Participant::with_network(
        hdds_core::ParticipantConfig { domain_id: 172, ..Default::default() },
        cfg,
    )
    .err()
    .expect("a cap of zero is refused");
    assert!(err.message().contains("max_remote_endpoints"), "{err}");
    let cfg = NetworkConfig {
        reassembly: ReassemblyLimits { max_per_writer: 0, ..ReassemblyLimits::default() },
        ..NetworkConfig::localhost()
    };
    let err = hdds_core::Participant::with_network(
        hdds_core::ParticipantConfig { domain_id: 172, ..Default::default() },
        cfg,
    )
    .err()
    .expect("a reassembly limit of zero is refused");
    assert!(err.message().contains("reassembly"), "{err}");
}
