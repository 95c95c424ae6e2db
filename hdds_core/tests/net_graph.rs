//! Discovery events over the network and in the same process: participant USER_DATA in SPDP,
//! endpoint USER_DATA in SEDP, local and remote endpoints alive and gone, and a departing
//! participant's endpoints reported gone before itself. Loopback only, domains 140-149, each test
//! with its own domain tag.

mod net_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hdds_core::qos::{Durability, History};
use hdds_core::{DiscoveryEvent, DiscoveryListener, EndpointOptions, Participant, ParticipantConfig, Qos};
use net_support::{net_participant_with, wait_until};

type Events = Arc<Mutex<Vec<DiscoveryEvent>>>;

fn recorder() -> (Events, DiscoveryListener) {
    let events: Events = Arc::default();
    let e = Arc::clone(&events);
    (events, Arc::new(move |ev: &DiscoveryEvent| e.lock().unwrap().push(ev.clone())))
}

fn participant(domain_id: u32, user_data: &[u8], tag: &str, lease: Option<Duration>) -> Participant {
    let cfg = ParticipantConfig { domain_id, user_data: user_data.to_vec(), ..Default::default() };
    net_participant_with(cfg, |c| {
        c.domain_tag.push_str(tag);
        if let Some(l) = lease {
            c.lease_duration = l;
        }
    })
}

fn has_endpoint(events: &Events, guid: hdds_core::wire::Guid, alive: bool) -> bool {
    events
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, DiscoveryEvent::Endpoint { info, alive: a, .. } if info.guid == guid && *a == alive))
}

#[test]
fn participant_and_endpoint_user_data_reach_the_other_side() {
    let a = participant(140, b"enclave=/a;", "-ud", None);
    let b = participant(140, b"enclave=/b;", "-ud", None);
    let (events, listener) = recorder();
    b.set_discovery_listener(Some(listener));
    let opts = EndpointOptions { user_data: b"serviceid= 1.2.3;".to_vec(), ..Default::default() };
    let qos = Qos { durability: Durability::TransientLocal, history: History::KeepLast(3), ..Qos::default() };
    let w = a.create_writer_with("rq/svcRequest", "pkg::srv::dds_::S_Request_", qos, &opts).unwrap();
    let found = wait_until(Duration::from_secs(5), || has_endpoint(&events, w.guid(), true));
    assert!(found, "b hears a's writer: {:?}", events.lock().unwrap());
    let ev = events.lock().unwrap().clone();
    // The replay starts with b itself, local.
    assert!(matches!(&ev[0], DiscoveryEvent::Participant { info, alive: true, local: true }
        if info.guid == b.guid() && &info.user_data[..] == b"enclave=/b;"));
    let pa = ev.iter().position(|e| matches!(e, DiscoveryEvent::Participant { info, .. } if info.guid == a.guid()));
    let pw = ev.iter().position(|e| matches!(e, DiscoveryEvent::Endpoint { info, .. } if info.guid == w.guid()));
    assert!(pa < pw, "the participant before its endpoint");
    match &ev[pa.unwrap()] {
        DiscoveryEvent::Participant { info, alive, local } => {
            assert!(*alive && !*local);
            assert_eq!(&info.user_data[..], b"enclave=/a;");
            assert_eq!(info.vendor_id, [0x01, 0xf0]);
        }
        other => panic!("{other:?}"),
    }
    match &ev[pw.unwrap()] {
        DiscoveryEvent::Endpoint { info, alive, local } => {
            assert!(*alive && !*local && !info.is_reader);
            assert_eq!(
                (info.topic_name.as_str(), info.type_name.as_str()),
                ("rq/svcRequest", "pkg::srv::dds_::S_Request_")
            );
            assert_eq!(&info.user_data[..], b"serviceid= 1.2.3;");
            assert_eq!(info.participant_guid, a.guid());
            assert_eq!((info.qos.durability, info.qos.history), (Durability::TransientLocal, History::KeepLast(3)));
        }
        other => panic!("{other:?}"),
    }
    // A listener set later gets the same knowledge replayed.
    let (late, l) = recorder();
    b.set_discovery_listener(Some(l));
    assert!(has_endpoint(&late, w.guid(), true), "replayed before set returns");
    let gone = w.guid();
    drop(w);
    assert!(wait_until(Duration::from_secs(5), || has_endpoint(&late, gone, false)), "the disposal is reported");
    assert!(!has_endpoint(&events, gone, false), "the replaced listener is not called any more");
}

#[test]
fn local_endpoints_are_reported_on_the_creating_thread() {
    let a = participant(141, b"", "-local", None);
    let (events, listener) = recorder();
    a.set_discovery_listener(Some(listener));
    assert_eq!(events.lock().unwrap().len(), 1, "just the participant itself");
    let r = a.create_reader("t", "T", Qos::default()).unwrap();
    // No waiting: the event is delivered before create returns.
    assert!(matches!(&events.lock().unwrap()[1], DiscoveryEvent::Endpoint { info, alive: true, local: true }
        if info.guid == r.guid() && info.is_reader));
    let g = r.guid();
    drop(r);
    assert!(matches!(&events.lock().unwrap()[2], DiscoveryEvent::Endpoint { info, alive: false, local: true }
        if info.guid == g));
    a.set_discovery_listener(None);
    let _w = a.create_writer("t", "T", Qos::default()).unwrap();
    assert_eq!(events.lock().unwrap().len(), 3, "no callback once cleared");
}

#[test]
fn a_lost_participant_takes_its_endpoints_first() {
    let a = participant(142, b"", "-loss", None);
    let b = participant(142, b"", "-loss", Some(Duration::from_millis(800)));
    let w = b.create_writer("t1", "T", Qos::default()).unwrap();
    let r = b.create_reader("t2", "T", Qos::default()).unwrap();
    let (events, listener) = recorder();
    a.set_discovery_listener(Some(listener));
    assert!(wait_until(Duration::from_secs(5), || has_endpoint(&events, w.guid(), true)
        && has_endpoint(&events, r.guid(), true)));
    b.set_network_silenced(true);
    let bg = b.guid();
    let gone_at = |events: &Events| {
        events
            .lock()
            .unwrap()
            .iter()
            .position(|e| matches!(e, DiscoveryEvent::Participant { info, alive: false, .. } if info.guid == bg))
    };
    assert!(wait_until(Duration::from_secs(5), || gone_at(&events).is_some()), "lease expiry reported");
    let ev = events.lock().unwrap().clone();
    let p = gone_at(&events).unwrap();
    for g in [w.guid(), r.guid()] {
        let e =
            ev.iter().position(|e| matches!(e, DiscoveryEvent::Endpoint { info, alive: false, .. } if info.guid == g));
        assert!(e.is_some_and(|e| e < p), "endpoint {g:?} gone before its participant: {ev:?}");
    }
    assert_eq!(ev.len(), p + 1, "nothing after the participant's departure");
}

#[test]
fn same_process_participants_see_each_other_and_ignore_local_works() {
    // Same-process participants on the TopicMerger path: no network needed.
    let a = Participant::new(ParticipantConfig {
        domain_id: 143,
        user_data: b"enclave=/x;".to_vec(),
        ..Default::default()
    })
    .unwrap();
    let (events, listener) = recorder();
    a.set_discovery_listener(Some(listener));
    let b = Participant::new(ParticipantConfig { domain_id: 143, ..Default::default() }).unwrap();
    let wb = b.create_writer("ros_discovery_info", "T", Qos::default()).unwrap();
    assert!(has_endpoint(&events, wb.guid(), true));
    // A reader that ignores its own participant gets b's samples, not a's.
    let opts = EndpointOptions { ignore_local_participant: true, ..EndpointOptions::default() };
    let ra = a.create_reader_with("ros_discovery_info", "T", Qos::default(), &opts).unwrap();
    let wa = a.create_writer("ros_discovery_info", "T", Qos::default()).unwrap();
    assert_eq!(ra.matched_writer_count(), 1, "only b's writer matches");
    wa.write(&[0, 1, 0, 0, 1]).unwrap();
    wb.write(&[0, 1, 0, 0, 2]).unwrap();
    let s = ra.take().expect("b's sample");
    assert_eq!(s.info.writer_guid, wb.guid());
    assert!(ra.take().is_none(), "a's own sample is not delivered");
    let bg = b.guid();
    drop(wb);
    drop(b);
    let ev = events.lock().unwrap().clone();
    assert!(
        matches!(ev.last(), Some(DiscoveryEvent::Participant { info, alive: false, local: false }) if info.guid == bg)
    );
}
