//! LIVELINESS of remote writers on the wire: two participants of this test process that meet over
//! UDP on loopback (and, in one test, through shared memory). The reader's side keeps a lease per
//! remote writer with a finite one; samples and HEARTBEATs with the Liveliness flag renew a MANUAL
//! writer's, anything its participant sends an AUTOMATIC writer's, and when it runs out
//! LIVELINESS_CHANGED says the writer is not alive. Each test has its own domain.

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::qos::{Liveliness, LivelinessKind, Qos};
use hdds_core::runtime::status::{LIVELINESS_CHANGED, LIVELINESS_LOST};
use hdds_core::{Reader, SharedMemoryConfig, Writer};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";
const SAMPLE: &[u8] = &[0, 1, 0, 0, 42, 0, 0, 0];
const LEASE: Duration = Duration::from_millis(300);
/// How late after the lease ran out a reader may notice: the QoS timer wakes at the expiry; this
/// is scheduling slack on a loaded 2-core machine.
const SLACK: Duration = Duration::from_millis(250);

fn manual(kind: LivelinessKind) -> Qos {
    Qos { liveliness: Liveliness { kind, lease_duration: LEASE }, ..Qos::default() }
}

/// (alive_count, not_alive_count)
fn counts(r: &Reader) -> (i32, i32) {
    let s = r.status(LIVELINESS_CHANGED).unwrap();
    (s.current_count, s.total_count)
}

fn matched(w: &Writer, readers: &[&Reader]) -> bool {
    wait_until(Duration::from_secs(5), || {
        w.matched_reader_count() == readers.len() && readers.iter().all(|r| r.matched_writer_count() == 1)
    })
}

/// Asserts `w` every `LEASE / 3` for `span`; the readers must count it alive throughout.
/// Returns when it last asserted.
fn keep_asserting(w: &Writer, readers: &[&Reader], span: Duration, write: bool) -> Instant {
    let end = Instant::now() + span;
    loop {
        for r in readers {
            assert_eq!(counts(r), (1, 0), "an asserting writer counts alive (write: {write})");
        }
        if write {
            w.write(SAMPLE).unwrap();
        } else {
            w.assert_liveliness();
        }
        let at = Instant::now();
        if at >= end {
            return at;
        }
        std::thread::sleep(LEASE / 3);
    }
}

/// Waits until every reader counts the writer not alive; returns how long after `since` that was.
fn lost_after(readers: &[&Reader], since: Instant) -> Duration {
    assert!(
        wait_until(LEASE * 10, || readers.iter().all(|r| counts(r) == (0, 1))),
        "the lease ran out unnoticed: {:?}",
        readers.iter().map(|r| counts(r)).collect::<Vec<_>>()
    );
    since.elapsed()
}

fn check_detection(took: Duration, what: &str) {
    eprintln!("{what}: not alive {took:?} after the last assertion (lease {LEASE:?})");
    assert!(took >= LEASE - Duration::from_millis(20), "{what}: lost after {took:?}, before the lease ran out");
    assert!(took <= LEASE + SLACK, "{what}: lost after {took:?}, lease {LEASE:?}");
}

#[test]
fn a_remote_manual_by_topic_writer_lives_by_assertions_and_samples_over_udp() {
    let a = net_participant(214, |_| {});
    let b = net_participant(214, |_| {});
    let q = manual(LivelinessKind::ManualByTopic);
    // Two readers in one participant: one lease, both told.
    let r1 = a.create_reader("live/udp", T, q).unwrap();
    let r2 = a.create_reader("live/udp", T, q).unwrap();
    let w = b.create_writer("live/udp", T, q).unwrap();
    let readers = [&r1, &r2];
    assert!(matched(&w, &readers));
    for r in readers {
        assert_eq!(counts(r), (1, 0), "alive from the match on");
    }

    // HEARTBEATs with the Liveliness flag alone keep it alive: nothing is written.
    let last = keep_asserting(&w, &readers, LEASE * 4, false);
    check_detection(lost_after(&readers, last), "after assert_liveliness");
    // The writer's own periodic HEARTBEATs (no Liveliness flag) do not bring it back.
    std::thread::sleep(LEASE);
    assert_eq!(counts(&r1), (0, 1));

    // An assertion makes it alive again for both readers.
    w.assert_liveliness();
    assert!(wait_until(Duration::from_secs(2), || readers.iter().all(|r| counts(r) == (1, 0))), "alive again");

    // Samples assert it too.
    let last = keep_asserting(&w, &readers, LEASE * 4, true);
    check_detection(lost_after(&readers, last), "after writes");
    let got = std::iter::from_fn(|| r1.take()).count();
    assert!(got >= 4, "the samples arrived ({got})");

    // The writer goes away while not alive: no longer counted at all.
    drop(w);
    assert!(wait_until(Duration::from_secs(5), || readers.iter().all(|r| counts(r) == (0, 0))), "{:?}", counts(&r1));
}

#[test]
fn a_deleted_alive_manual_writer_drops_the_alive_count() {
    let a = net_participant(215, |_| {});
    let b = net_participant(215, |_| {});
    let q = manual(LivelinessKind::ManualByTopic);
    let r = a.create_reader("live/gone", T, q).unwrap();
    let w = b.create_writer("live/gone", T, q).unwrap();
    assert!(matched(&w, &[&r]));
    w.assert_liveliness();
    assert_eq!(counts(&r), (1, 0));
    drop(w);
    assert!(
        wait_until(LEASE / 2, || counts(&r) == (0, 0)),
        "the disposal is seen before the lease ends: {:?}",
        counts(&r)
    );
    // No lease left to run out.
    std::thread::sleep(LEASE * 2);
    assert_eq!(counts(&r), (0, 0));
}

#[test]
fn a_remote_manual_by_participant_writer_is_tracked_too() {
    let a = net_participant(216, |_| {});
    let b = net_participant(216, |_| {});
    let q = manual(LivelinessKind::ManualByParticipant);
    let r = a.create_reader("live/participant", T, q).unwrap();
    let w = b.create_writer("live/participant", T, q).unwrap();
    assert!(matched(&w, &[&r]));
    let last = keep_asserting(&w, &[&r], LEASE * 3, false);
    check_detection(lost_after(&[&r], last), "MANUAL_BY_PARTICIPANT");
    assert_eq!(w.status(LIVELINESS_LOST).unwrap().total_count, 1, "the writer lost it too");
    w.write(SAMPLE).unwrap();
    assert!(wait_until(Duration::from_secs(2), || counts(&r) == (1, 0)), "alive again");
}

#[test]
fn an_automatic_writer_is_not_leased_per_writer() {
    let a = net_participant(217, |_| {});
    let b = net_participant(217, |_| {});
    // An AUTOMATIC writer satisfies a reader that asks for AUTOMATIC with a finite lease: it lives
    // as long as its participant, whatever it writes.
    let r = a.create_reader("live/auto", T, Qos::default()).unwrap();
    let w = b.create_writer("live/auto", T, Qos::default()).unwrap();
    assert!(matched(&w, &[&r]));
    std::thread::sleep(LEASE * 3);
    assert_eq!(counts(&r), (1, 0));
}

#[test]
fn a_remote_automatic_writer_lives_while_its_participant_speaks_and_is_lost_a_lease_after_it_falls_silent() {
    let a = net_participant(219, |_| {});
    // Announcements 3 s apart (the default), ten leases: only the participant messages can keep
    // the idle writer alive.
    let b = net_participant(219, |c| c.spdp_period = Duration::from_secs(3));
    let q = manual(LivelinessKind::Automatic);
    let r = a.create_reader("live/automatic", T, q).unwrap();
    let w = b.create_writer("live/automatic", T, q).unwrap();
    assert!(matched(&w, &[&r]));
    let end = Instant::now() + LEASE * 10;
    while Instant::now() < end {
        assert_eq!(counts(&r), (1, 0), "an idle AUTOMATIC writer of a live participant counts alive");
        std::thread::sleep(LEASE / 10);
    }
    // As if b's process were killed: not alive a lease after b's last datagram, not at the end of
    // b's SPDP lease.
    b.set_network_silenced(true);
    let took = lost_after(&[&r], Instant::now());
    eprintln!("AUTOMATIC: not alive {took:?} after its participant fell silent (lease {LEASE:?})");
    assert!(took <= LEASE + SLACK, "lost after {took:?}, lease {LEASE:?}");
    assert_eq!(r.matched_writer_count(), 1, "still matched: only its liveliness is lost");
    // b speaks again: its next participant message makes the writer alive again.
    b.set_network_silenced(false);
    assert!(wait_until(Duration::from_secs(2), || counts(&r) == (1, 0)), "alive again: {:?}", counts(&r));
    drop(w);
}

#[test]
fn readers_of_a_same_host_ring_see_the_lease_too() {
    let shm = |c: &mut hdds_core::NetworkConfig| c.shared_memory = SharedMemoryConfig::default();
    let a = net_participant(218, shm);
    let b = net_participant(218, shm);
    if !a.network_stats().unwrap().shm_active || !b.network_stats().unwrap().shm_active {
        eprintln!("SKIPPED: /dev/shm is not usable here");
        return;
    }
    let q = manual(LivelinessKind::ManualByTopic);
    let r = a.create_reader("live/shm", T, q).unwrap();
    let w = b.create_writer("live/shm", T, q).unwrap();
    assert!(matched(&w, &[&r]));
    // Assertions reach the ring's reader as HEARTBEATs over UDP, to its participant.
    let last = keep_asserting(&w, &[&r], LEASE * 4, false);
    check_detection(lost_after(&[&r], last), "shared memory, after assert_liveliness");
    // A sample through the ring asserts it.
    w.write(SAMPLE).unwrap();
    let last = Instant::now();
    assert!(wait_until(Duration::from_secs(2), || counts(&r) == (1, 0)), "alive again");
    assert!(wait_until(Duration::from_secs(2), || r.take().is_some()));
    assert!(a.network_stats().unwrap().shm_samples_read >= 1, "the sample came through the ring");
    check_detection(lost_after(&[&r], last), "shared memory, after a write");
}
