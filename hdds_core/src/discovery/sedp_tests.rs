//! Tests of sedp.rs: endpoint data round trips, spec defaults, bad values, vendor-specific parameters.

use super::*;
use crate::qos::Durability;
use crate::wire::vendor::{VENDOR_ID_CYCLONE, VENDOR_ID_FASTDDS};
use crate::wire::{EntityKind, GuidPrefix};
use std::net::Ipv4Addr;

fn prefix() -> GuidPrefix {
    GuidPrefix([1, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1])
}

fn header(vendor: VendorId) -> Header {
    Header { version: ProtocolVersion::CURRENT, vendor_id: vendor, guid_prefix: prefix() }
}

fn writer() -> DiscoveredWriterData {
    let g = Guid::new(prefix(), EntityId::user(0x12, EntityKind::UserWriterNoKey));
    DiscoveredWriterData::new(g, "rt/chatter", "std_msgs::msg::dds_::String_", &Qos::default())
}

fn reader() -> DiscoveredReaderData {
    let g = Guid::new(prefix(), EntityId::user(0x13, EntityKind::UserReaderNoKey));
    DiscoveredReaderData::new(g, "rt/chatter", "std_msgs::msg::dds_::String_", &Qos::default())
}

#[test]
fn local_endpoints_round_trip() {
    let w = writer();
    assert_eq!(DiscoveredWriterData::decode(&w.encode().unwrap(), &header(VENDOR_ID_HDDS)).unwrap(), w);
    let r = reader();
    assert_eq!(DiscoveredReaderData::decode(&r.encode().unwrap(), &header(VENDOR_ID_HDDS)).unwrap(), r);
    assert!(!w.keyed() && !r.keyed());
    assert_eq!(w.qos.to_qos(), Qos::default());
    assert_eq!(w.qos.data_representation, [data_representation::XCDR1]);
}

#[test]
fn every_policy_round_trips() {
    let mut w = writer();
    let q = &mut w.qos;
    q.reliability = Reliability::BestEffort;
    q.max_blocking_time = Duration::from_millis(250);
    q.durability = DurabilityKind::Persistent;
    q.history = History::KeepAll;
    q.deadline = Duration::from_secs(1);
    q.latency_budget = Duration::from_millis(5);
    q.lifespan = Duration::from_secs(30);
    q.liveliness = Liveliness { kind: LivelinessKind::ManualByTopic, lease_duration: Duration::from_secs(3) };
    q.ownership = OwnershipKind::Exclusive;
    q.ownership_strength = -7;
    q.destination_order = DestinationOrderKind::BySourceTimestamp;
    q.presentation =
        Presentation { access_scope: PresentationAccessScope::Group, coherent_access: true, ordered_access: true };
    q.partition = vec!["a".into(), "".into(), "b*".into()];
    q.user_data = b"typehash=RIHS01_00;".to_vec();
    q.topic_data = vec![1];
    q.group_data = vec![2, 3];
    q.data_representation = vec![data_representation::XCDR2, data_representation::XCDR1];
    w.unicast_locators.push(Locator::udpv4(Ipv4Addr::LOCALHOST, 7411));
    w.multicast_locators.push(Locator::udpv4(Ipv4Addr::new(239, 255, 0, 1), 7401));
    w.type_information = Some(vec![9, 9, 9, 9]);
    w.participant_guid = Guid::new(GuidPrefix([3; 12]), EntityId::PARTICIPANT);
    for endian_flip in [false, true] {
        let mut bytes = w.encode().unwrap();
        if endian_flip {
            bytes = to_big_endian(&bytes);
        }
        assert_eq!(DiscoveredWriterData::decode(&bytes, &header(VENDOR_ID_HDDS)).unwrap(), w);
    }

    let mut r = reader();
    r.qos.type_consistency = TypeConsistency {
        kind: TypeConsistencyKind::DisallowTypeCoercion,
        ignore_sequence_bounds: false,
        ignore_string_bounds: false,
        ignore_member_names: true,
        prevent_type_widening: true,
        force_type_validation: true,
    };
    r.expects_inline_qos = true;
    r.qos.history = History::KeepLast(1000);
    assert_eq!(DiscoveredReaderData::decode(&r.encode().unwrap(), &header(VENDOR_ID_HDDS)).unwrap(), r);
}

/// Re-writes a PL_CDR_LE payload of our encoder as PL_CDR_BE, value by value (the encoder only
/// writes little endian), to check that decoding honours the big-endian encapsulation.
fn to_big_endian(le: &[u8]) -> Vec<u8> {
    let list = ParameterList::parse_payload(le, VENDOR_ID_HDDS).unwrap();
    let mut out = Vec::new();
    let mut w = ParameterListWriter::payload(&mut out, Endian::Big);
    for p in list.iter() {
        let v = p.value;
        let u32s = |w: &mut ParameterListWriter<'_>, n: usize| {
            w.put_with(p.pid, |c| {
                for i in 0..n {
                    c.write_u32(u32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap()))?;
                }
                Ok(())
            })
        };
        match p.pid {
            pid::PID_TOPIC_NAME | pid::PID_TYPE_NAME => w.put_str(p.pid, p.as_str().unwrap()).unwrap(),
            pid::PID_RELIABILITY | pid::PID_LIVELINESS => u32s(&mut w, 3).unwrap(),
            pid::PID_DURABILITY | pid::PID_OWNERSHIP | pid::PID_OWNERSHIP_STRENGTH | pid::PID_DESTINATION_ORDER => {
                u32s(&mut w, 1).unwrap()
            }
            pid::PID_HISTORY | pid::PID_DEADLINE | pid::PID_LATENCY_BUDGET | pid::PID_LIFESPAN => {
                u32s(&mut w, 2).unwrap()
            }
            pid::PID_PRESENTATION => w
                .put_with(p.pid, |c| {
                    c.write_u32(u32::from_le_bytes(v[..4].try_into().unwrap()))?;
                    c.write_bytes(&v[4..6])
                })
                .unwrap(),
            pid::PID_PARTITION => w
                .put_with(p.pid, |c| {
                    let ss = plist::read_string_sequence(&p).unwrap();
                    c.write_sequence_len(ss.len())?;
                    ss.iter().try_for_each(|s| c.write_string(s))
                })
                .unwrap(),
            pid::PID_USER_DATA | pid::PID_TOPIC_DATA | pid::PID_GROUP_DATA => {
                w.put_bytes_sequence(p.pid, p.as_bytes_sequence().unwrap()).unwrap()
            }
            pid::PID_DATA_REPRESENTATION => {
                w.put_with(p.pid, |c| c.write_sequence(&plist::read_i16_sequence(&p).unwrap())).unwrap()
            }
            pid::PID_UNICAST_LOCATOR | pid::PID_MULTICAST_LOCATOR => {
                w.put_locator(p.pid, &p.as_locator().unwrap()).unwrap()
            }
            _ => w.put(p.pid, v).unwrap(), // byte arrays: GUIDs, versions, vendor, type information
        }
    }
    w.finish();
    out
}

/// An endpoint's data with only the mandatory parameters (GUID, topic "T", type "X"), then `extra`.
fn minimal_endpoint(g: Guid, extra: &[(ParameterId, &[u8])]) -> Vec<u8> {
    let mut v = Vec::new();
    let mut w = ParameterListWriter::payload(&mut v, Endian::Little);
    w.put_guid(pid::PID_ENDPOINT_GUID, &g).unwrap();
    w.put_str(pid::PID_TOPIC_NAME, "T").unwrap();
    w.put_str(pid::PID_TYPE_NAME, "X").unwrap();
    for (id, value) in extra {
        w.put(*id, value).unwrap();
    }
    w.finish();
    v
}

#[test]
fn spec_defaults_for_absent_policies() {
    let g = Guid::new(prefix(), EntityId::user(1, EntityKind::UserWriterWithKey));
    let mut v = minimal_endpoint(g, &[]);
    let d = DiscoveredWriterData::decode(&v, &header(VENDOR_ID_CYCLONE)).unwrap();
    assert_eq!(d.qos, EndpointQos::spec_default(EndpointKind::Writer));
    assert_eq!(d.qos.reliability, Reliability::Reliable);
    assert_eq!(d.qos.max_blocking_time, Duration::from_millis(100));
    assert_eq!(d.qos.durability, DurabilityKind::Volatile);
    assert_eq!(d.qos.history, History::KeepLast(1));
    assert_eq!(d.participant_guid, Guid::new(prefix(), EntityId::PARTICIPANT));
    assert!(d.keyed());
    assert!(d.unicast_locators.is_empty());
    assert_eq!(d.qos.offered_representation(), data_representation::XCDR1);

    let g = Guid::new(prefix(), EntityId::user(1, EntityKind::UserReaderNoKey));
    v[8..24].copy_from_slice(&g.to_bytes());
    let r = DiscoveredReaderData::decode(&v, &header(VENDOR_ID_CYCLONE)).unwrap();
    assert_eq!(r.qos.reliability, Reliability::BestEffort);
    assert_eq!(r.qos.to_qos().durability, Durability::Volatile);
    assert!(r.qos.accepts_representation(data_representation::XCDR1));
    assert!(!r.qos.accepts_representation(data_representation::XCDR2));
    assert!(DiscoveredWriterData::decode(&v, &header(VENDOR_ID_CYCLONE)).is_err(), "a reader GUID in DATA(w)");
}

#[test]
fn missing_mandatory_parameters_and_bad_values() {
    let g = Guid::new(prefix(), EntityId::user(1, EntityKind::UserWriterNoKey));
    let build = |skip: ParameterId, extra: Option<(ParameterId, &[u8])>| {
        let mut v = Vec::new();
        let mut w = ParameterListWriter::payload(&mut v, Endian::Little);
        if skip != pid::PID_ENDPOINT_GUID {
            w.put_guid(pid::PID_ENDPOINT_GUID, &g).unwrap();
        }
        if skip != pid::PID_TOPIC_NAME {
            w.put_str(pid::PID_TOPIC_NAME, "T").unwrap();
        }
        if skip != pid::PID_TYPE_NAME {
            w.put_str(pid::PID_TYPE_NAME, "X").unwrap();
        }
        if let Some((p, val)) = extra {
            w.put(p, val).unwrap();
        }
        w.finish();
        v
    };
    let h = header(VENDOR_ID_FASTDDS);
    for (skip, name) in [
        (pid::PID_ENDPOINT_GUID, "PID_ENDPOINT_GUID"),
        (pid::PID_TOPIC_NAME, "PID_TOPIC_NAME"),
        (pid::PID_TYPE_NAME, "PID_TYPE_NAME"),
    ] {
        let e = DiscoveredWriterData::decode(&build(skip, None), &h).unwrap_err();
        assert!(e.reason.contains(name), "{e}");
    }
    // KEY_HASH stands in for a missing ENDPOINT_GUID (as Fast DDS allows).
    let d = DiscoveredWriterData::decode(&build(pid::PID_ENDPOINT_GUID, Some((pid::PID_KEY_HASH, &g.to_bytes()))), &h);
    assert_eq!(d.unwrap().guid, g);
    for (p, val) in [
        (pid::PID_RELIABILITY, &[3u8, 0, 0, 0][..]),
        (pid::PID_DURABILITY, &[4, 0, 0, 0]),
        (pid::PID_HISTORY, &[2, 0, 0, 0, 1, 0, 0, 0]),
        (pid::PID_LIVELINESS, &[3, 0, 0, 0]),
        (pid::PID_OWNERSHIP, &[2, 0, 0, 0]),
        (pid::PID_DESTINATION_ORDER, &[2, 0, 0, 0]),
        (pid::PID_PRESENTATION, &[3, 0, 0, 0, 0, 0, 0, 0]),
        (pid::PID_DEADLINE, &[1, 0, 0, 0]),
        (pid::PID_PARTITION, &[9, 0, 0, 0]),
    ] {
        let e = DiscoveredWriterData::decode(&build(0, Some((p, val))), &h).unwrap_err();
        assert!(e.offset > 4, "{p:#x}: {e}");
    }
    // Reader policies in writer data are skipped; in reader data they are checked.
    let bad_tce: &[u8] = &[2, 0, 0, 0];
    assert!(DiscoveredWriterData::decode(&build(0, Some((pid::PID_TYPE_CONSISTENCY_ENFORCEMENT, bad_tce))), &h).is_ok());
    let mut rd = build(0, Some((pid::PID_TYPE_CONSISTENCY_ENFORCEMENT, bad_tce)));
    let rg = Guid::new(prefix(), EntityId::user(1, EntityKind::UserReaderNoKey));
    rd[8..24].copy_from_slice(&rg.to_bytes());
    assert!(DiscoveredReaderData::decode(&rd, &h).unwrap_err().reason.contains("TYPE_CONSISTENCY"));
    // Tolerated: a reliability kind without its duration, a KEEP_LAST depth of 0.
    let d = DiscoveredWriterData::decode(&build(0, Some((pid::PID_RELIABILITY, &[1, 0, 0, 0]))), &h).unwrap();
    assert_eq!((d.qos.reliability, d.qos.max_blocking_time), (Reliability::BestEffort, Duration::from_millis(100)));
    let d = DiscoveredWriterData::decode(&build(0, Some((pid::PID_HISTORY, &[0, 0, 0, 0, 0, 0, 0, 0]))), &h).unwrap();
    assert_eq!(d.qos.history, History::KeepLast(1));
}

#[test]
fn vendor_specific_ids_only_from_their_vendor() {
    let g = Guid::new(prefix(), EntityId::user(1, EntityKind::UserReaderNoKey));
    let v = minimal_endpoint(g, &[(fastdds::PID_DISABLE_POSITIVE_ACKS, &[1, 0, 0, 0])]);
    let fast = DiscoveredReaderData::decode(&v, &header(VENDOR_ID_FASTDDS)).unwrap();
    assert!(fast.qos.disable_positive_acks);
    assert!(fast.ignored_pids.is_empty());
    let cyc = DiscoveredReaderData::decode(&v, &header(VENDOR_ID_CYCLONE)).unwrap();
    assert!(!cyc.qos.disable_positive_acks);
    assert_eq!(cyc.ignored_pids, [0x8005]);
}

#[test]
fn our_encoding_is_what_the_vendors_accept() {
    let mut r = reader();
    r.qos.partition = vec!["p".into()];
    r.qos.type_consistency.force_type_validation = true;
    r.unicast_locators.push(Locator::udpv4(Ipv4Addr::LOCALHOST, 7413));
    for bytes in [writer().encode().unwrap(), r.encode().unwrap()] {
        assert_eq!(&bytes[..4], &[0, 3, 0, 0], "PL_CDR_LE");
        let l = ParameterList::parse_payload(&bytes, VENDOR_ID_HDDS).unwrap();
        let mut seen = Vec::new();
        for p in l.iter() {
            assert!(!pid::is_vendor_specific(p.pid), "{:#x}", p.pid);
            assert!(p.pid != pid::PID_UNICAST_LOCATOR && p.pid != pid::PID_MULTICAST_LOCATOR || p.value.len() == 24);
            if p.pid != pid::PID_UNICAST_LOCATOR && p.pid != pid::PID_MULTICAST_LOCATOR {
                assert!(!seen.contains(&p.pid), "{:#x} twice", p.pid);
                seen.push(p.pid);
            }
            // Fast DDS checks exact lengths.
            let exact = match p.pid {
                pid::PID_RELIABILITY | pid::PID_LIVELINESS => Some(12),
                pid::PID_DURABILITY | pid::PID_OWNERSHIP | pid::PID_PROTOCOL_VERSION | pid::PID_VENDORID => Some(4),
                pid::PID_HISTORY | pid::PID_DEADLINE | pid::PID_PRESENTATION | pid::PID_DATA_REPRESENTATION => Some(8),
                pid::PID_TYPE_CONSISTENCY_ENFORCEMENT => Some(8),
                pid::PID_ENDPOINT_GUID | pid::PID_PARTICIPANT_GUID => Some(16),
                _ => None,
            };
            if let Some(n) = exact {
                assert_eq!(p.value.len(), n, "{:#x}", p.pid);
            }
            assert!(p.pid != pid::PID_EXPECTS_INLINE_QOS);
        }
        for must in [
            pid::PID_ENDPOINT_GUID,
            pid::PID_TOPIC_NAME,
            pid::PID_TYPE_NAME,
            pid::PID_RELIABILITY,
            pid::PID_DURABILITY,
            pid::PID_HISTORY,
            pid::PID_DATA_REPRESENTATION,
        ] {
            assert!(seen.contains(&must), "{must:#x} missing");
        }
    }
    assert!(
        ParameterList::parse_payload(&writer().encode().unwrap(), VENDOR_ID_HDDS)
            .unwrap()
            .find(pid::PID_TYPE_CONSISTENCY_ENFORCEMENT)
            .is_none(),
        "never from a writer"
    );
}
