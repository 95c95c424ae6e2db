//! The locators writers and readers report (what rmw's network flow endpoints show): a reader
//! receives on the participant's user unicast port, a writer sends from the participant's send
//! socket; a same-process-only participant has none.

mod net_support;

use std::net::{Ipv4Addr, SocketAddr};

use hdds_core::wire::Locator;
use hdds_core::{Participant, ParticipantConfig, Qos};
use net_support::net_participant;

const T: &str = "hdds::test::Bytes_";

fn v4(l: &Locator) -> SocketAddr {
    assert_eq!(l.kind, Locator::KIND_UDPV4);
    l.socket_addr().expect("a UDPv4 locator")
}

#[test]
fn reader_and_writer_locators_on_loopback() {
    let p = net_participant(191, |_| {});
    let stats = p.network_stats().expect("on the network");
    let r = p.create_reader("loc/t", T, Qos::default()).unwrap();
    let w = p.create_writer("loc/t", T, Qos::default()).unwrap();

    let rl = r.locators();
    assert_eq!(rl.len(), 1, "{rl:?}");
    let ra = v4(&rl[0]);
    assert_eq!(ra.ip(), std::net::IpAddr::V4(Ipv4Addr::LOCALHOST));
    assert_eq!(ra.port(), stats.user_unicast_port);

    let wl = w.locators();
    assert_eq!(wl.len(), 1, "{wl:?}");
    let wa = v4(&wl[0]);
    assert_eq!(wa.ip(), std::net::IpAddr::V4(Ipv4Addr::LOCALHOST));
    assert_ne!(wa.port(), 0);
    assert_ne!(wa.port(), stats.user_unicast_port);
    assert_ne!(wa.port(), stats.metatraffic_unicast_port);

    // Every endpoint of a participant shares them.
    let r2 = p.create_reader("loc/other", T, Qos::default()).unwrap();
    let w2 = p.create_writer("loc/other", T, Qos::default()).unwrap();
    assert_eq!(r2.locators(), rl);
    assert_eq!(w2.locators(), wl);
}

#[test]
fn same_process_only_endpoints_have_none() {
    let p = Participant::new(ParticipantConfig { domain_id: 9, ..Default::default() }).unwrap();
    let r = p.create_reader("loc/intra", T, Qos::default()).unwrap();
    let w = p.create_writer("loc/intra", T, Qos::default()).unwrap();
    assert!(r.locators().is_empty());
    assert!(w.locators().is_empty());
}
