//! Network discovery between two participants of this test process, kept apart from the
//! same-process path (`intra_process: false`), on loopback only, each test in its own domain.

mod net_support;

use std::time::Duration;

use net_support::{net_participant, wait_until};

#[test]
fn spdp_both_ways_then_dispose_on_drop() {
    let a = net_participant(110, |_| {});
    let b = net_participant(110, |_| {});
    assert!(wait_until(Duration::from_secs(5), || {
        a.discovered_participants().contains(&b.guid()) && b.discovered_participants().contains(&a.guid())
    }));
    let sa = a.network_stats().unwrap();
    assert_ne!(sa.participant_index, b.network_stats().unwrap().participant_index);
    drop(b);
    assert!(wait_until(Duration::from_secs(5), || a.discovered_participants().is_empty()));
    // The counter moves just after the removal, on the receive thread: wait for it too.
    assert!(wait_until(Duration::from_secs(1), || a.network_stats().unwrap().participants_disposed == 1));
}

#[test]
fn a_silent_participant_is_dropped_when_its_lease_runs_out() {
    let a = net_participant(111, |_| {});
    let b = net_participant(111, |c| c.lease_duration = Duration::from_millis(800));
    assert!(wait_until(Duration::from_secs(5), || a.discovered_participants().contains(&b.guid())));
    // As if b's process were killed: it sends nothing more, not even a goodbye.
    b.set_network_silenced(true);
    let t = std::time::Instant::now();
    assert!(wait_until(Duration::from_secs(5), || a.discovered_participants().is_empty()));
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(500), "removed after {took:?}, before the lease could run out");
    assert!(wait_until(Duration::from_secs(1), || a.network_stats().unwrap().participants_lost_by_lease == 1));
    assert_eq!(a.network_stats().unwrap().participants_disposed, 0);
    // b still hears a: it keeps a.
    assert!(b.discovered_participants().contains(&a.guid()));
}

#[test]
fn participants_of_other_domains_and_of_the_same_process_path_are_ignored() {
    let a = net_participant(112, |_| {});
    let other = net_participant(113, |_| {});
    let other_tag = net_participant(112, |cfg| cfg.domain_tag.push_str("-other"));
    // Two participants that also use the same-process path see each other there, not on the network.
    let c = net_participant(112, |cfg| cfg.intra_process = true);
    let d = net_participant(112, |cfg| cfg.intra_process = true);
    assert!(wait_until(Duration::from_secs(5), || a.discovered_participants().len() == 2));
    std::thread::sleep(Duration::from_millis(300));
    assert!(!c.discovered_participants().contains(&d.guid()));
    assert!(c.discovered_participants().contains(&a.guid()));
    assert!(other.discovered_participants().is_empty());
    assert!(other_tag.discovered_participants().is_empty());
    assert!(a.network_stats().unwrap().ignored_participants >= 1, "other_tag was heard and ignored");
}

/// A peer still starting up may drop our first answer (Fast DDS does): every announcement it sends
/// in its first second is answered by unicast, not only the first one.
#[test]
fn a_new_participants_announcements_are_all_answered_for_a_second() {
    use std::net::{Ipv4Addr, UdpSocket};

    use hdds_core::discovery::SpdpParticipantData;
    use hdds_core::wire::submessage::Data;
    use hdds_core::wire::{EntityId, GuidPrefix, Header, Locator, MessageBuilder, SequenceNumber, Submessage};

    // Periodic announcements far apart: every answer seen below is one of `answer_spdp`'s.
    let a = net_participant(114, |c| c.spdp_period = Duration::from_secs(60));
    let a_port = a.network_stats().unwrap().metatraffic_unicast_port;
    let peer = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let prefix = GuidPrefix([0x42; 12]);
    let mut spdp = SpdpParticipantData::new(prefix, 114);
    spdp.domain_tag = format!("hdds-test-{}", std::process::id());
    spdp.metatraffic_unicast_locators = vec![Locator::from_socket_addr(peer.local_addr().unwrap())];
    let payload = spdp.encode().unwrap();
    let header = Header::ours(prefix);
    let mut mb = MessageBuilder::new(&header);
    let data = Data::new(EntityId::SPDP_READER, EntityId::SPDP_WRITER, SequenceNumber(1), &payload);
    mb.add_padded(&Submessage::Data(data)).unwrap();
    let announcement = mb.finish();

    let answers = || a.network_stats().unwrap().spdp_answers;
    peer.send_to(&announcement, (Ipv4Addr::LOCALHOST, a_port)).unwrap();
    assert!(wait_until(Duration::from_secs(5), || answers() == 1), "the first announcement is answered");
    std::thread::sleep(Duration::from_millis(100));
    peer.send_to(&announcement, (Ipv4Addr::LOCALHOST, a_port)).unwrap();
    assert!(wait_until(Duration::from_secs(5), || answers() == 2), "so is a repeat within the first second");
    // Later announcements only renew the lease.
    std::thread::sleep(Duration::from_millis(1100));
    peer.send_to(&announcement, (Ipv4Addr::LOCALHOST, a_port)).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(answers(), 2);
    assert_eq!(a.network_stats().unwrap().participants_discovered, 1);
}

/// Two of our participants answer each other's announcements in their first second; answers to
/// answers must not turn into a ping-pong (it reached 10,000 datagrams per side before the
/// per-participant gap between answers).
#[test]
fn two_new_participants_do_not_answer_each_others_answers_in_a_loop() {
    let a = net_participant(115, |c| c.spdp_period = Duration::from_secs(60));
    let b = net_participant(115, |c| c.spdp_period = Duration::from_secs(60));
    assert!(wait_until(Duration::from_secs(5), || {
        a.discovered_participants().len() == 1 && b.discovered_participants().len() == 1
    }));
    // Past the answer window: whatever was going to be answered has been.
    std::thread::sleep(Duration::from_millis(1500));
    let (na, nb) = (a.network_stats().unwrap().spdp_answers, b.network_stats().unwrap().spdp_answers);
    // At most one answer per 90 ms during the 1 s window, plus the first one.
    assert!(na <= 13 && nb <= 13, "answers: a {na}, b {nb}");
}

/// Idle participants that hear each other by multicast send nothing but their periodic
/// announcements: no unicast copy of each announcement to every known participant, no idle
/// HEARTBEAT from the discovery writers (either one makes discovery traffic grow with the square of
/// the participant count; bench/discovery_scale.py).
#[test]
fn idle_participants_send_only_their_periodic_announcements() {
    let period = Duration::from_millis(200);
    // Unicast probes only to participant index 0's port: `a` (index 0) sends none, `b` one per
    // announcement.
    let tweak = |c: &mut hdds_core::NetworkConfig| c.spdp_peer_max_index = 0;
    let a = net_participant(116, tweak);
    let b = net_participant(116, tweak);
    assert!(wait_until(Duration::from_secs(5), || {
        a.discovered_participants().contains(&b.guid()) && b.discovered_participants().contains(&a.guid())
    }));
    if !a.network_stats().unwrap().multicast_active || !b.network_stats().unwrap().multicast_active {
        eprintln!("SKIPPED: no multicast on loopback here; the announcements go by unicast anyway");
        return;
    }
    // Past the first quick announcements and the answers of the first second.
    std::thread::sleep(Duration::from_millis(1500));
    let (a0, b0) = (a.network_stats().unwrap().datagrams_sent, b.network_stats().unwrap().datagrams_sent);
    let window = Duration::from_secs(2);
    std::thread::sleep(window);
    let (a1, b1) = (a.network_stats().unwrap().datagrams_sent, b.network_stats().unwrap().datagrams_sent);
    let per_window = (window.as_millis() / period.as_millis()) as u64;
    // a: one multicast per period; b: the same plus its probe of index 0. One period of slack.
    assert!(a1 - a0 <= per_window + 1, "a sent {} datagrams in {window:?} (announcements: {per_window})", a1 - a0);
    assert!(
        b1 - b0 <= 2 * (per_window + 1),
        "b sent {} datagrams in {window:?} (announcements: {per_window})",
        b1 - b0
    );
    assert!(a1 - a0 >= per_window / 2, "a announced itself only {} times", a1 - a0);
}

/// An announcement of a participant that has just said goodbye (one still in flight when it left)
/// must not bring it back: it would stay for a whole lease, and a deleted ROS node with it.
/// (`spdp_both_ways_then_dispose_on_drop` failed now and then on a loaded machine for this.)
#[test]
fn a_late_announcement_does_not_bring_back_a_disposed_participant() {
    use std::net::{Ipv4Addr, UdpSocket};

    use hdds_core::discovery::SpdpParticipantData;
    use hdds_core::wire::submessage::Data;
    use hdds_core::wire::{EntityId, Header, Locator, MessageBuilder, SequenceNumber, Submessage};

    let a = net_participant(117, |_| {});
    let b = net_participant(117, |_| {});
    let b_prefix = b.guid().prefix;
    assert!(wait_until(Duration::from_secs(5), || a.discovered_participants().contains(&b.guid())));
    drop(b);
    assert!(wait_until(Duration::from_secs(5), || a.discovered_participants().is_empty()));
    let ignored = a.network_stats().unwrap().ignored_participants;

    // b's announcement, as if it had still been on its way.
    let a_port = a.network_stats().unwrap().metatraffic_unicast_port;
    let peer = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let mut spdp = SpdpParticipantData::new(b_prefix, 117);
    spdp.domain_tag = format!("hdds-test-{}", std::process::id());
    spdp.metatraffic_unicast_locators = vec![Locator::from_socket_addr(peer.local_addr().unwrap())];
    let payload = spdp.encode().unwrap();
    let mut mb = MessageBuilder::new(&Header::ours(b_prefix));
    let data = Data::new(EntityId::SPDP_READER, EntityId::SPDP_WRITER, SequenceNumber(7), &payload);
    mb.add_padded(&Submessage::Data(data)).unwrap();
    peer.send_to(&mb.finish(), (Ipv4Addr::LOCALHOST, a_port)).unwrap();

    assert!(wait_until(Duration::from_secs(5), || a.network_stats().unwrap().ignored_participants > ignored));
    assert!(a.discovered_participants().is_empty(), "the late announcement brought b back");
    assert_eq!(a.network_stats().unwrap().participants_disposed, 1);
}
