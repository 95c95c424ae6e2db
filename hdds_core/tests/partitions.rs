//! PARTITION (EndpointOptions::partition): over UDP between two participants of this test process
//! and through the same-process path, a writer and a reader match only when they share one.

mod net_support;

use std::time::Duration;

use hdds_core::{EndpointOptions, Participant, ParticipantConfig, Qos};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

fn parts(names: &[&str]) -> EndpointOptions {
    EndpointOptions { partition: names.iter().map(|s| s.to_string()).collect(), ..Default::default() }
}

/// (writer partitions, reader partitions, whether they match).
const CASES: &[(&[&str], &[&str], bool)] = &[
    (&["a"], &["a"], true),
    (&["a"], &["b"], false),
    (&["a"], &[], false),
    (&[], &[], true),
    (&["ping*"], &["ping_0110"], true),
    (&["x", "y"], &["z", "y"], true),
];

fn check(w_part: &Participant, r_part: &Participant, topic: &str) {
    for (i, (wp, rp, expect)) in CASES.iter().enumerate() {
        let topic = format!("{topic}/{i}");
        let w = w_part.create_writer_with(&topic, T, Qos::default(), &parts(wp)).unwrap();
        let r = r_part.create_reader_with(&topic, T, Qos::default(), &parts(rp)).unwrap();
        let matched = wait_until(Duration::from_secs(if *expect { 5 } else { 1 }), || {
            w.matched_reader_count() == 1 && r.matched_writer_count() == 1
        });
        assert_eq!(matched, *expect, "writer {wp:?}, reader {rp:?}");
        if *expect {
            w.write(&[0, 1, 0, 0, 7]).unwrap();
            assert!(r.wait_for_data(Duration::from_secs(5)), "writer {wp:?}, reader {rp:?}: data");
        } else {
            w.write(&[0, 1, 0, 0, 7]).unwrap();
            assert!(!r.wait_for_data(Duration::from_millis(200)), "writer {wp:?}, reader {rp:?}: no data");
        }
    }
}

#[test]
fn over_udp() {
    let a = net_participant(143, |c| c.shared_memory.enabled = false);
    let b = net_participant(143, |c| c.shared_memory.enabled = false);
    check(&a, &b, "t/part/udp");
}

#[test]
fn in_the_same_process() {
    let p = Participant::new(ParticipantConfig { domain_id: 144, ..Default::default() }).unwrap();
    check(&p, &p, &format!("t/part/intra/{}", std::process::id()));
}

#[test]
fn over_shared_memory() {
    let a = net_participant(145, |c| c.shared_memory.enabled = true);
    let b = net_participant(145, |c| c.shared_memory.enabled = true);
    check(&a, &b, "t/part/shm");
}
