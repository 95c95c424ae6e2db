//! Golden tests: SPDP and SEDP data captured from Cyclone DDS 0.10.2 and Fast DDS 2.9.1 (ROS 2
//! Humble, see tests/data/discovery/README.md) decode to the values the captures show, re-encode
//! and decode back equal, and disposals name the right GUIDs.

#[path = "discovery_rtps_walk.rs"]
mod rtps_walk;

use std::time::Duration;

use hdds_core::discovery::ports::{classify_port, PortKind};
use hdds_core::discovery::sedp::{data_representation, DurabilityKind, TypeConsistency};
use hdds_core::discovery::spdp::builtin_endpoints as bes;
use hdds_core::discovery::{
    decode_change, Change, Csid, DiscoveredReaderData, DiscoveredWriterData, EndpointKind, EndpointQos,
    SerializedPayload, SpdpParticipantData, StatusInfo, UserData,
};
use hdds_core::qos::{History, LivelinessKind, Reliability, INFINITE};
use hdds_core::wire::vendor::{VENDOR_ID_CYCLONE, VENDOR_ID_FASTDDS};
use hdds_core::wire::{EntityId, Guid, GuidPrefix, Header, Locator, ProtocolVersion};
use rtps_walk::{golden, walk, Data, FLAG_K};

const CYCLONE_TALKER: &str = "011099d2387bcc279e6f4312";
const CYCLONE_LISTENER: &str = "0110658944137d53cd5c086d";
const FASTDDS_TALKER: &str = "010f7f019a61adfb00000000";
const FASTDDS_LISTENER: &str = "010f7f01a361a87200000000";
const STRING_TYPE: &str = "std_msgs::msg::dds_::String_";
const DISCOVERY_INFO_TYPE: &str = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn prefix(s: &str) -> GuidPrefix {
    GuidPrefix(hex(s).try_into().unwrap())
}

fn guid(prefix_hex: &str, entity_hex: &str) -> Guid {
    Guid::new(prefix(prefix_hex), EntityId(hex(entity_hex).try_into().unwrap()))
}

fn localhost(port: u16) -> Locator {
    Locator::udpv4([127, 0, 0, 1].into(), port)
}

/// The DATA submessages of a golden datagram written by `writer`.
fn datas(bytes: &[u8], writer: EntityId) -> (Header, Vec<Data<'_>>) {
    let d = walk(bytes).unwrap();
    (d.header, d.data.into_iter().filter(|x| x.writer_id == writer).collect())
}

fn spdp(name: &str) -> (Header, SpdpParticipantData) {
    let g = golden(name);
    let (h, ds) = datas(&g, EntityId::SPDP_WRITER);
    assert_eq!(ds.len(), 1, "{name}");
    let SerializedPayload::Data(p) = ds[0].payload else { panic!("{name}: no data payload") };
    let d = SpdpParticipantData::decode(p, &h).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_round_trip_spdp(&d, &h);
    (h, d)
}

fn writers(name: &str) -> Vec<DiscoveredWriterData> {
    let g = golden(name);
    let (h, ds) = datas(&g, EntityId::SEDP_PUBLICATIONS_WRITER);
    ds.iter()
        .filter_map(|d| match d.payload {
            SerializedPayload::Data(p) => {
                Some(DiscoveredWriterData::decode(p, &h).unwrap_or_else(|e| panic!("{name}: {e}")))
            }
            _ => None,
        })
        .inspect(|w| assert_round_trip_writer(w, &h))
        .collect()
}

fn readers(name: &str) -> Vec<DiscoveredReaderData> {
    let g = golden(name);
    let (h, ds) = datas(&g, EntityId::SEDP_SUBSCRIPTIONS_WRITER);
    ds.iter()
        .filter_map(|d| match d.payload {
            SerializedPayload::Data(p) => {
                Some(DiscoveredReaderData::decode(p, &h).unwrap_or_else(|e| panic!("{name}: {e}")))
            }
            _ => None,
        })
        .inspect(|r| assert_round_trip_reader(r, &h))
        .collect()
}

fn writer(name: &str, topic: &str) -> DiscoveredWriterData {
    writers(name).into_iter().find(|w| w.topic_name == topic).unwrap_or_else(|| panic!("{name}: no writer of {topic}"))
}

fn reader(name: &str, topic: &str) -> DiscoveredReaderData {
    readers(name).into_iter().find(|r| r.topic_name == topic).unwrap_or_else(|| panic!("{name}: no reader of {topic}"))
}

/// decode -> encode -> decode gives the same data (the ignored ids are not re-encoded), and our
/// encoding is stable (encode of the re-decoded data is byte-identical).
fn assert_round_trip_spdp(d: &SpdpParticipantData, h: &Header) {
    let bytes = d.encode().unwrap();
    let back = SpdpParticipantData::decode(&bytes, h).unwrap();
    assert_eq!(back, SpdpParticipantData { ignored_pids: vec![], ..d.clone() });
    assert_eq!(back.encode().unwrap(), bytes);
}

fn assert_round_trip_writer(w: &DiscoveredWriterData, h: &Header) {
    let bytes = w.encode().unwrap();
    let back = DiscoveredWriterData::decode(&bytes, h).unwrap();
    let mut expected = w.clone();
    expected.ignored_pids.clear();
    assert_eq!(back, expected);
    assert_eq!(back.encode().unwrap(), bytes);
}

fn assert_round_trip_reader(r: &DiscoveredReaderData, h: &Header) {
    let bytes = r.encode().unwrap();
    let back = DiscoveredReaderData::decode(&bytes, h).unwrap();
    let mut expected = r.clone();
    expected.ignored_pids.clear();
    assert_eq!(back, expected);
    assert_eq!(back.encode().unwrap(), bytes);
}

// ---------------------------------------------------------------------------------------------
// The vectors themselves

#[test]
fn every_golden_vector_walks() {
    let names = rtps_walk::all_golden();
    assert_eq!(names.len(), 20, "{names:?}");
    for n in names {
        let g = golden(&n);
        let d = walk(&g).unwrap_or_else(|e| panic!("{n}: {e}"));
        assert!(!d.data.is_empty(), "{n} has no DATA");
    }
}

#[test]
fn cyclone_spdp_datagram_layout() {
    let g = golden("cyclone_spdp_talker.rtps");
    let d = walk(&g).unwrap();
    assert_eq!(d.header.vendor_id, VENDOR_ID_CYCLONE);
    assert_eq!(d.header.guid_prefix, prefix(CYCLONE_TALKER));
    assert_eq!(d.data.len(), 1);
    let data = d.data[0];
    assert_eq!(data.writer_id, EntityId::SPDP_WRITER);
    assert_eq!(data.reader_id, EntityId::UNKNOWN, "Cyclone addresses SPDP to ENTITYID_UNKNOWN");
    assert_eq!(data.sn, 1);
    assert_eq!(data.endian, hdds_core::cdr::Endian::Little);
    assert!(data.inline_qos.is_none());
    assert_eq!(&data.bytes().unwrap()[..4], &[0, 3, 0, 0], "PL_CDR_LE");
    // Fast DDS addresses it to the SPDP reader and ends its datagrams with a statistics submessage
    // (id 0x80) that the walk skips.
    let g = golden("fastdds_spdp_talker.rtps");
    let d = walk(&g).unwrap();
    assert_eq!(d.data[0].reader_id, EntityId::SPDP_READER);
    assert_eq!(g[g.len() - 60], 0x80);
}

// ---------------------------------------------------------------------------------------------
// SPDP

#[test]
fn cyclone_spdp_talker() {
    let (h, d) = spdp("cyclone_spdp_talker.rtps");
    assert_eq!(h.vendor_id, VENDOR_ID_CYCLONE);
    assert_eq!(d.guid(), guid(CYCLONE_TALKER, "000001c1"));
    assert_eq!(d.vendor_id, [0x01, 0x10]);
    assert_eq!(d.protocol_version, ProtocolVersion { major: 2, minor: 1 }, "Cyclone 0.10 announces RTPS 2.1");
    assert_eq!(d.domain_id, Some(0));
    assert_eq!(d.domain_tag, "");
    assert_eq!(d.lease_duration, Duration::from_secs(10), "Cyclone's default lease");
    assert_eq!(d.builtin_endpoints, 0x0000_fc3f);
    assert!(d.has_builtin(bes::HDDS), "every built-in endpoint we use");
    assert!(d.has_builtin(bes::TYPE_LOOKUP_REQUEST_WRITER | bes::TYPE_LOOKUP_REPLY_READER));
    assert_eq!(d.metatraffic_unicast_locators, [localhost(7410)]);
    assert_eq!(d.default_unicast_locators, [localhost(7411)]);
    assert!(d.metatraffic_multicast_locators.is_empty() && d.default_multicast_locators.is_empty());
    assert_eq!(d.user_data, b"enclave=/;");
    assert_eq!(UserData::parse(&d.user_data).enclave(), Some("/"));
    assert_eq!(d.entity_name, None);
    assert!(!d.expects_inline_qos);
    // ADLINK participant version info and Cyclone's receive buffer size: vendor-specific, skipped.
    assert_eq!(d.ignored_pids, [0x8007, 0x8019]);
}

#[test]
fn cyclone_spdp_listener_uses_participant_index_1() {
    let (_, d) = spdp("cyclone_spdp_listener.rtps");
    assert_eq!(d.guid_prefix, prefix(CYCLONE_LISTENER));
    assert_eq!(d.metatraffic_unicast_locators, [localhost(7412)]);
    assert_eq!(d.default_unicast_locators, [localhost(7413)]);
    assert_eq!(
        classify_port(7412),
        Some(PortKind::MetatrafficUnicast { domain_id: 0, participant_index: 1 }),
        "Cyclone picked index 1 for the second participant"
    );
}

#[test]
fn fastdds_spdp_talker() {
    let (h, d) = spdp("fastdds_spdp_talker.rtps");
    assert_eq!(h.vendor_id, VENDOR_ID_FASTDDS);
    assert_eq!(d.guid(), guid(FASTDDS_TALKER, "000001c1"));
    assert_eq!(d.vendor_id, [0x01, 0x0f]);
    assert_eq!(d.protocol_version, ProtocolVersion { major: 2, minor: 3 });
    assert_eq!(d.domain_id, None, "Fast DDS sends no PID_DOMAIN_ID");
    assert_eq!(d.lease_duration, Duration::from_secs(20), "Fast DDS's default lease");
    assert_eq!(d.builtin_endpoints, 0x0c3f_0c3f);
    assert_eq!(d.builtin_endpoints & !bes::SECURITY_MASK, bes::HDDS, "security bits set although security is off");
    assert_eq!(d.metatraffic_unicast_locators, [localhost(7410)]);
    assert_eq!(d.default_unicast_locators, [localhost(7411)]);
    assert!(d.metatraffic_multicast_locators.is_empty(), "the UDP-only profile announces no multicast locator");
    assert_eq!(d.user_data, b"enclave=/;\0", "Fast DDS adds a NUL");
    assert_eq!(UserData::parse(&d.user_data).enclave(), Some("/"));
    assert_eq!(d.entity_name.as_deref(), Some("/"));
    assert!(d.ignored_pids.is_empty(), "{:x?}", d.ignored_pids);
}

#[test]
fn fastdds_spdp_shared_memory_locators_are_dropped() {
    let (_, d) = spdp("fastdds_spdp_shm_locators.rtps");
    assert_eq!(d.guid_prefix, prefix("010f78fde85885e600000000"));
    // Three locators of each kind were sent: one on 192.0.2.2, one on loopback, one SHM (kind 16).
    let eth = |port| Locator::udpv4([192, 0, 2, 2].into(), port);
    assert_eq!(d.metatraffic_unicast_locators, [eth(7412), localhost(7412)]);
    assert_eq!(d.default_unicast_locators, [eth(7413), localhost(7413)]);
    assert!(d.metatraffic_unicast_locators.iter().chain(&d.default_unicast_locators).all(|l| l.is_udp()));
}

// ---------------------------------------------------------------------------------------------
// SEDP: rt/chatter

#[test]
fn cyclone_chatter_writer() {
    let w = writer("cyclone_sedp_pub_talker_b.rtps", "rt/chatter");
    assert_eq!(w.guid, guid(CYCLONE_TALKER, "00001503"));
    assert_eq!(w.participant_guid, guid(CYCLONE_TALKER, "000001c1"), "derived: Cyclone omits PID_PARTICIPANT_GUID");
    assert_eq!(w.type_name, STRING_TYPE);
    assert!(!w.keyed());
    assert_eq!(w.protocol_version, ProtocolVersion { major: 2, minor: 1 });
    assert_eq!(w.vendor_id, VENDOR_ID_CYCLONE);
    assert_eq!(w.qos.reliability, Reliability::Reliable);
    assert_eq!(w.qos.max_blocking_time, INFINITE);
    assert_eq!(w.qos.durability, DurabilityKind::Volatile, "absent: the default");
    assert_eq!(w.qos.history, History::KeepLast(7), "demo_nodes_cpp's talker depth");
    assert_eq!(w.qos.deadline, INFINITE);
    assert_eq!(w.qos.liveliness.kind, LivelinessKind::Automatic);
    assert!(w.qos.partition.is_empty() && w.qos.user_data.is_empty());
    assert!(w.qos.data_representation.is_empty(), "Cyclone 0.10 sends none for ROS types");
    assert!(w.unicast_locators.is_empty() && w.multicast_locators.is_empty(), "participant defaults apply");
    assert_eq!(w.ignored_pids, [0x800c, 0x8003]);
    // Every writer in that datagram decodes and round-trips (done by `writers`).
    assert_eq!(writers("cyclone_sedp_pub_talker_b.rtps").len(), 5);
}

#[test]
fn cyclone_chatter_reader() {
    let r = reader("cyclone_sedp_sub_listener.rtps", "rt/chatter");
    assert_eq!(r.guid, guid(CYCLONE_LISTENER, "00001504"));
    assert_eq!(r.type_name, STRING_TYPE);
    assert_eq!(r.qos.reliability, Reliability::Reliable);
    assert_eq!(r.qos.history, History::KeepLast(10));
    assert_eq!(r.qos.durability, DurabilityKind::Volatile);
    assert!(!r.expects_inline_qos);
    assert_eq!(r.qos.type_consistency, TypeConsistency::default());
    assert_eq!(r.ignored_pids, [0x800c]);
}

#[test]
fn fastdds_chatter_writer() {
    let w = writer("fastdds_sedp_pub_talker.rtps", "rt/chatter");
    assert_eq!(w.guid, guid(FASTDDS_TALKER, "00001203"));
    assert_eq!(w.participant_guid, guid(FASTDDS_TALKER, "000001c1"));
    assert_eq!(w.type_name, STRING_TYPE);
    assert!(!w.keyed());
    assert_eq!(w.protocol_version, ProtocolVersion { major: 2, minor: 3 });
    assert_eq!(w.qos.reliability, Reliability::Reliable);
    assert_eq!(w.qos.max_blocking_time, Duration::from_millis(100));
    assert_eq!(w.qos.durability, DurabilityKind::Volatile);
    assert_eq!(w.qos.history, History::KeepLast(1), "Fast DDS sends no PID_HISTORY: the default applies");
    assert_eq!((w.qos.deadline, w.qos.lifespan, w.qos.latency_budget), (INFINITE, INFINITE, Duration::ZERO));
    assert_eq!(w.qos.liveliness.lease_duration, INFINITE);
    assert!(w.qos.partition.is_empty(), "an explicit empty PARTITION");
    assert!(w.qos.data_representation.is_empty(), "Fast DDS 2.9 sends no DATA_REPRESENTATION");
    assert_eq!(w.unicast_locators, [localhost(7411)]);
    assert!(w.ignored_pids.is_empty(), "{:x?}", w.ignored_pids);
    assert_eq!(writers("fastdds_sedp_pub_talker.rtps").len(), 10);
}

#[test]
fn fastdds_chatter_reader() {
    let r = reader("fastdds_sedp_sub_listener.rtps", "rt/chatter");
    assert_eq!(r.guid, guid(FASTDDS_LISTENER, "00001204"));
    assert_eq!(r.participant_guid, guid(FASTDDS_LISTENER, "000001c1"));
    assert_eq!(r.qos.reliability, Reliability::Reliable);
    assert_eq!(r.qos.durability, DurabilityKind::Volatile);
    assert_eq!(r.qos.type_consistency, TypeConsistency::default(), "Fast DDS sends XTypes' defaults explicitly");
    assert!(!r.expects_inline_qos, "explicitly false");
    assert_eq!(r.unicast_locators, [localhost(7413)]);
    assert!(!r.keyed());
}

// ---------------------------------------------------------------------------------------------
// SEDP: ros_discovery_info, rt/rosout

#[test]
fn cyclone_ros_discovery_info() {
    let w = writer("cyclone_sedp_pub_talker_a.rtps", "ros_discovery_info");
    assert_eq!(w.guid, guid(CYCLONE_TALKER, "00000403"));
    assert_eq!(w.type_name, DISCOVERY_INFO_TYPE);
    assert_eq!(w.qos.reliability, Reliability::Reliable);
    assert_eq!(w.qos.durability, DurabilityKind::TransientLocal);
    assert_eq!(w.qos.history, History::KeepLast(1));
    let r = reader("cyclone_sedp_sub_talker.rtps", "ros_discovery_info");
    assert_eq!(r.guid, guid(CYCLONE_TALKER, "00000504"));
    assert_eq!(r.type_name, DISCOVERY_INFO_TYPE);
    assert_eq!(r.qos.reliability, Reliability::Reliable);
    assert_eq!(r.qos.durability, DurabilityKind::TransientLocal);
    assert_eq!(r.qos.history, History::KeepAll);
    // rt/rosout: transient local, keep last 1000, lifespan 10 s.
    let log = writer("cyclone_sedp_pub_talker_a.rtps", "rt/rosout");
    assert_eq!(log.type_name, "rcl_interfaces::msg::dds_::Log_");
    assert_eq!(log.qos.durability, DurabilityKind::TransientLocal);
    assert_eq!(log.qos.history, History::KeepLast(1000));
    assert_eq!(log.qos.lifespan, Duration::from_secs(10));
}

#[test]
fn fastdds_ros_discovery_info() {
    let w = writer("fastdds_sedp_pub_talker.rtps", "ros_discovery_info");
    assert_eq!(w.guid, guid(FASTDDS_TALKER, "00000103"));
    assert_eq!(w.type_name, DISCOVERY_INFO_TYPE);
    assert_eq!(w.qos.reliability, Reliability::Reliable);
    assert_eq!(w.qos.durability, DurabilityKind::TransientLocal);
    assert_eq!(w.qos.history, History::KeepLast(1));
    let r = reader("fastdds_sedp_sub_talker.rtps", "ros_discovery_info");
    assert_eq!(r.guid, guid(FASTDDS_TALKER, "00000204"));
    assert_eq!(r.qos.reliability, Reliability::Reliable);
    assert_eq!(r.qos.durability, DurabilityKind::TransientLocal);
    assert_eq!(readers("fastdds_sedp_sub_talker.rtps").len(), 8);
}

// ---------------------------------------------------------------------------------------------
// SEDP: services (Cyclone's clientid= / serviceid=)

#[test]
fn cyclone_service_endpoints_carry_client_and_service_ids() {
    let server = " 1.10.96.21.60.7e.e8.94.1.b6.c9.ba.0.0.0.7".parse::<Csid>().unwrap();
    let client = " 1.10.b6.42.b2.49.d8.97.a4.37.36.45.0.0.0.7".parse::<Csid>().unwrap();
    assert_eq!(&server.0[..12], &hex("01109621607ee89401b6c9ba")[..], "the server participant's prefix");

    let reply_w = writer("cyclone_sedp_service_server_pub.rtps", "rr/add_two_intsReply");
    assert_eq!(reply_w.type_name, "example_interfaces::srv::dds_::AddTwoInts_Response_");
    assert_eq!(UserData::parse(&reply_w.qos.user_data).service_id(), Some(server));
    let request_r = reader("cyclone_sedp_service_server_sub.rtps", "rq/add_two_intsRequest");
    assert_eq!(request_r.type_name, "example_interfaces::srv::dds_::AddTwoInts_Request_");
    assert_eq!(UserData::parse(&request_r.qos.user_data).service_id(), Some(server));
    assert_eq!(request_r.qos.history, History::KeepLast(10));

    let request_w = writer("cyclone_sedp_service_client.rtps", "rq/add_two_intsRequest");
    let reply_r = reader("cyclone_sedp_service_client.rtps", "rr/add_two_intsReply");
    assert_eq!(request_w.guid, guid("0110b642b249d897a4373645", "00001503"));
    assert_eq!(reply_r.guid, guid("0110b642b249d897a4373645", "00001604"));
    for ud in [&request_w.qos.user_data, &reply_r.qos.user_data] {
        let u = UserData::parse(ud);
        assert_eq!(u.client_id(), Some(client));
        assert_eq!(u.service_id(), None);
        assert_eq!(UserData::client(&client).to_bytes(), *ud, "we write it byte for byte as Cyclone does");
    }
}

// ---------------------------------------------------------------------------------------------
// SEDP: plain DDS (ddsperf): partitions, data representation, type information, keyed topic

#[test]
fn cyclone_ddsperf_keyed_endpoints() {
    let w = writer("cyclone_sedp_ddsperf_pub.rtps", "DDSPerfRPongKS");
    assert_eq!(w.type_name, "KeyedSeq");
    assert!(w.keyed(), "entity kind 0x02");
    assert_eq!(w.guid.entity_id, EntityId([0, 0, 0x0d, 0x02]));
    assert_eq!(w.qos.max_blocking_time, Duration::from_secs(10));
    assert_eq!(w.qos.partition, ["011085e6_ace19f51_3118cf70_000001c1"]);
    assert_eq!(w.qos.data_representation, [data_representation::XCDR1, data_representation::XCDR2]);
    assert_eq!(w.qos.offered_representation(), data_representation::XCDR1);
    assert_eq!(w.type_information.as_ref().map(Vec::len), Some(100));
    let r = reader("cyclone_sedp_ddsperf_sub.rtps", "DDSPerfRPongKS");
    assert!(r.keyed(), "entity kind 0x07");
    assert_eq!(r.qos.history, History::KeepAll);
    assert_eq!(r.qos.partition, ["0110cdd0_fe35aa10_b7463985_000001c1"]);
    assert!(r.qos.accepts_representation(data_representation::XCDR2));
}

// ---------------------------------------------------------------------------------------------
// Disposals

#[test]
fn cyclone_disposals_carry_the_key_in_the_payload() {
    // SEDP: DATA(w) with flags K, STATUS_INFO 3 and a PL_CDR key payload holding the endpoint GUID.
    let g = golden("cyclone_sedp_dispose.rtps");
    let (h, ds) = datas(&g, EntityId::SEDP_PUBLICATIONS_WRITER);
    let d = ds[0];
    assert_eq!(d.flags & FLAG_K, FLAG_K);
    let iq = hdds_core::discovery::InlineQos::parse(d.inline_qos.as_ref().unwrap()).unwrap();
    assert_eq!((iq.key_hash, iq.status_info), (None, StatusInfo::DISPOSED_UNREGISTERED));
    match decode_change::<DiscoveredWriterData>(d.inline_qos.as_ref(), d.payload, &h).unwrap() {
        Change::NotAlive { guid: g, status } => {
            assert_eq!(g, guid(CYCLONE_LISTENER, "00000603"));
            assert_eq!(status, StatusInfo::DISPOSED_UNREGISTERED);
        }
        Change::Alive(_) => panic!("alive"),
    }
    // SPDP: the same form with the participant GUID.
    let g = golden("cyclone_spdp_dispose.rtps");
    let (h, ds) = datas(&g, EntityId::SPDP_WRITER);
    let d = ds[0];
    match decode_change::<SpdpParticipantData>(d.inline_qos.as_ref(), d.payload, &h).unwrap() {
        Change::NotAlive { guid: g, .. } => assert_eq!(g, guid(CYCLONE_LISTENER, "000001c1")),
        Change::Alive(_) => panic!("alive"),
    }
}

#[test]
fn fastdds_disposals_carry_a_key_hash_and_no_payload() {
    let g = golden("fastdds_sedp_dispose.rtps");
    let (h, ds) = datas(&g, EntityId::SEDP_PUBLICATIONS_WRITER);
    let d = ds[0];
    assert_eq!(d.payload, SerializedPayload::None);
    match decode_change::<DiscoveredWriterData>(d.inline_qos.as_ref(), d.payload, &h).unwrap() {
        Change::NotAlive { guid: g, status } => {
            assert_eq!(g, guid(FASTDDS_LISTENER, "00000303"));
            assert_eq!(status, StatusInfo::DISPOSED_UNREGISTERED);
        }
        Change::Alive(_) => panic!("alive"),
    }
    let g = golden("fastdds_spdp_dispose.rtps");
    let (h, ds) = datas(&g, EntityId::SPDP_WRITER);
    let d = ds[0];
    let l = d.inline_qos.unwrap();
    // Fast DDS also puts its RELATED_SAMPLE_IDENTITY (0x800f) there; it is not ours to read here.
    assert!(l.vendor_param(VENDOR_ID_FASTDDS, 0x800f).is_some());
    match decode_change::<SpdpParticipantData>(Some(&l), d.payload, &h).unwrap() {
        Change::NotAlive { guid: g, .. } => assert_eq!(g, guid(FASTDDS_TALKER, "000001c1")),
        Change::Alive(_) => panic!("alive"),
    }
}

#[test]
fn alive_changes_decode_through_decode_change() {
    for (name, writer) in
        [("cyclone_spdp_talker.rtps", EntityId::SPDP_WRITER), ("fastdds_spdp_talker.rtps", EntityId::SPDP_WRITER)]
    {
        let g = golden(name);
        let (h, ds) = datas(&g, writer);
        let c = decode_change::<SpdpParticipantData>(ds[0].inline_qos.as_ref(), ds[0].payload, &h).unwrap();
        assert!(matches!(c, Change::Alive(ref d) if d.guid_prefix == h.guid_prefix), "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// Our own data

#[test]
fn our_spdp_has_what_cyclone_and_fastdds_require() {
    let mut d = SpdpParticipantData::new(GuidPrefix([1, 0xf0, 0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0x12, 0x34, 0, 0]), 0);
    d.metatraffic_unicast_locators = vec![localhost(7410)];
    d.default_unicast_locators = vec![localhost(7411)];
    d.metatraffic_multicast_locators = vec![Locator::udpv4([239, 255, 0, 1].into(), 7400)];
    d.user_data = UserData::participant("/").unwrap().to_bytes();
    let bytes = d.encode().unwrap();
    let h = Header::ours(d.guid_prefix);
    assert_eq!(SpdpParticipantData::decode(&bytes, &h).unwrap(), d);
    let l = hdds_core::wire::ParameterList::parse_payload(&bytes, h.vendor_id).unwrap();
    use hdds_core::wire::pid::*;
    for pid in [
        PID_PROTOCOL_VERSION,
        PID_VENDORID,
        PID_PARTICIPANT_GUID,
        PID_BUILTIN_ENDPOINT_SET,
        PID_METATRAFFIC_UNICAST_LOCATOR,
        PID_METATRAFFIC_MULTICAST_LOCATOR,
        PID_DEFAULT_UNICAST_LOCATOR,
        PID_PARTICIPANT_LEASE_DURATION,
        PID_USER_DATA,
        PID_DOMAIN_ID,
    ] {
        assert!(l.find(pid).is_some(), "{pid:#06x} missing");
    }
    assert_eq!(l.find(PID_VENDORID).unwrap().value, &[0x01, 0xf0, 0, 0]);
    assert_eq!(l.find(PID_BUILTIN_ENDPOINT_SET).unwrap().as_u32().unwrap(), 0x0c3f);
}

#[test]
fn our_endpoints_decode_back_equal() {
    let p = GuidPrefix([1, 0xf0, 0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0x12, 0x34, 0, 0]);
    let h = Header::ours(p);
    let qos = hdds_core::Qos {
        durability: hdds_core::qos::Durability::TransientLocal,
        history: History::KeepLast(1),
        ..Default::default()
    };
    let mut w = DiscoveredWriterData::new(
        Guid::new(p, EntityId::user(1, hdds_core::wire::EntityKind::UserWriterNoKey)),
        "ros_discovery_info",
        DISCOVERY_INFO_TYPE,
        &qos,
    );
    w.qos.user_data = b"typehash=RIHS01_0123;".to_vec();
    assert_eq!(DiscoveredWriterData::decode(&w.encode().unwrap(), &h).unwrap(), w);
    assert_eq!(w.qos.to_qos(), qos);
    let mut r = DiscoveredReaderData::new(
        Guid::new(p, EntityId::user(2, hdds_core::wire::EntityKind::UserReaderNoKey)),
        "ros_discovery_info",
        DISCOVERY_INFO_TYPE,
        &hdds_core::Qos { history: History::KeepAll, ..qos },
    );
    r.unicast_locators.push(localhost(7411));
    assert_eq!(DiscoveredReaderData::decode(&r.encode().unwrap(), &h).unwrap(), r);
    assert_eq!(EndpointQos::spec_default(EndpointKind::Reader).reliability, Reliability::BestEffort);
}
