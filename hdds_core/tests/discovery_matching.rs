//! Endpoint matching with reasons: captured Cyclone and Fast DDS endpoints against each other and
//! against ours, and every incompatible policy reported by its DDS name.

#[path = "discovery_rtps_walk.rs"]
mod rtps_walk;

use std::time::Duration;

use hdds_core::discovery::matching::partitions_match;
use hdds_core::discovery::sedp::{
    data_representation, DestinationOrderKind, DurabilityKind, OwnershipKind, PresentationAccessScope,
};
use hdds_core::discovery::{
    check_match, DiscoveredReaderData, DiscoveredWriterData, MatchError, QosPolicy, SerializedPayload,
};
use hdds_core::qos::{Durability, History, Liveliness, LivelinessKind, Reliability};
use hdds_core::wire::{EntityId, EntityKind, Guid, GuidPrefix};
use hdds_core::Qos;
use rtps_walk::{golden, walk};

const STRING_TYPE: &str = "std_msgs::msg::dds_::String_";

fn captured_writer(name: &str, topic: &str) -> DiscoveredWriterData {
    let g = golden(name);
    let d = walk(&g).unwrap();
    d.data
        .iter()
        .filter(|x| x.writer_id == EntityId::SEDP_PUBLICATIONS_WRITER)
        .filter_map(|x| match x.payload {
            SerializedPayload::Data(p) => DiscoveredWriterData::decode(p, &d.header).ok(),
            _ => None,
        })
        .find(|w| w.topic_name == topic)
        .unwrap()
}

fn captured_reader(name: &str, topic: &str) -> DiscoveredReaderData {
    let g = golden(name);
    let d = walk(&g).unwrap();
    d.data
        .iter()
        .filter(|x| x.writer_id == EntityId::SEDP_SUBSCRIPTIONS_WRITER)
        .filter_map(|x| match x.payload {
            SerializedPayload::Data(p) => DiscoveredReaderData::decode(p, &d.header).ok(),
            _ => None,
        })
        .find(|r| r.topic_name == topic)
        .unwrap()
}

fn ours() -> GuidPrefix {
    GuidPrefix([1, 0xf0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0])
}

fn local_writer(topic: &str, type_name: &str, qos: Qos) -> DiscoveredWriterData {
    DiscoveredWriterData::new(Guid::new(ours(), EntityId::user(1, EntityKind::UserWriterNoKey)), topic, type_name, &qos)
}

fn local_reader(topic: &str, type_name: &str, qos: Qos) -> DiscoveredReaderData {
    DiscoveredReaderData::new(Guid::new(ours(), EntityId::user(2, EntityKind::UserReaderNoKey)), topic, type_name, &qos)
}

fn incompatible(w: &DiscoveredWriterData, r: &DiscoveredReaderData) -> &'static str {
    match check_match(w, r) {
        Err(MatchError::IncompatibleQos(p)) => p.name(),
        other => panic!("expected an incompatible policy, got {other:?}"),
    }
}

#[test]
fn captured_chatter_endpoints_match_across_vendors_and_with_us() {
    let cw = captured_writer("cyclone_sedp_pub_talker_b.rtps", "rt/chatter");
    let cr = captured_reader("cyclone_sedp_sub_listener.rtps", "rt/chatter");
    let fw = captured_writer("fastdds_sedp_pub_talker.rtps", "rt/chatter");
    let fr = captured_reader("fastdds_sedp_sub_listener.rtps", "rt/chatter");
    for (w, r) in [(&cw, &cr), (&cw, &fr), (&fw, &cr), (&fw, &fr)] {
        assert_eq!(check_match(w, r), Ok(()), "{:?} -> {:?}", w.guid, r.guid);
    }
    // Ours with ROS's default profile (reliable, volatile, keep last 10).
    let lw = local_writer("rt/chatter", STRING_TYPE, Qos::default());
    let lr = local_reader("rt/chatter", STRING_TYPE, Qos::default());
    for r in [&cr, &fr] {
        assert_eq!(check_match(&lw, r), Ok(()));
    }
    for w in [&cw, &fw] {
        assert_eq!(check_match(w, &lr), Ok(()));
    }
    // A best-effort writer of ours does not satisfy their reliable readers.
    let be = local_writer("rt/chatter", STRING_TYPE, Qos { reliability: Reliability::BestEffort, ..Qos::default() });
    assert_eq!(check_match(&be, &cr), Err(MatchError::IncompatibleQos(QosPolicy::Reliability)));
    assert_eq!(check_match(&be, &fr), Err(MatchError::IncompatibleQos(QosPolicy::Reliability)));
}

#[test]
fn ros_discovery_info_needs_transient_local() {
    let tl = Qos { durability: Durability::TransientLocal, history: History::KeepAll, ..Qos::default() };
    let r = local_reader("ros_discovery_info", "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_", tl);
    for (name, topic) in [
        ("cyclone_sedp_pub_talker_a.rtps", "ros_discovery_info"),
        ("fastdds_sedp_pub_talker.rtps", "ros_discovery_info"),
    ] {
        assert_eq!(check_match(&captured_writer(name, topic), &r), Ok(()), "{name}");
    }
    let volatile = local_writer("ros_discovery_info", &r.type_name, Qos::default());
    assert_eq!(incompatible(&volatile, &r), "DURABILITY");
}

#[test]
fn names_and_kinds() {
    let w = captured_writer("cyclone_sedp_pub_talker_b.rtps", "rt/chatter");
    let r = local_reader("rt/other", STRING_TYPE, Qos::default());
    assert_eq!(check_match(&w, &r), Err(MatchError::TopicName));
    let r = local_reader("rt/chatter", "std_msgs::msg::dds_::Int32_", Qos::default());
    assert_eq!(check_match(&w, &r), Err(MatchError::TypeName));
    assert_eq!(MatchError::TypeName.name(), "TYPE_NAME");
    assert_eq!(MatchError::TypeName.policy(), None);
    // ddsperf's keyed writer against a keyless reader of the same topic and type.
    let keyed = captured_writer("cyclone_sedp_ddsperf_pub.rtps", "DDSPerfRPongKS");
    let mut keyless = local_reader("DDSPerfRPongKS", "KeyedSeq", Qos::default());
    keyless.qos.partition = keyed.qos.partition.clone();
    assert_eq!(check_match(&keyed, &keyless), Err(MatchError::TopicKind));
    keyless.guid.entity_id = EntityId::user(2, EntityKind::UserReaderWithKey);
    assert_eq!(check_match(&keyed, &keyless), Ok(()));
}

#[test]
fn partitions_from_the_capture() {
    // ddsperf's ponger: its writer and its reader are in different partitions (named after the
    // peers' GUIDs), so they do not match each other...
    let w = captured_writer("cyclone_sedp_ddsperf_pub.rtps", "DDSPerfRPongKS");
    let mut r = captured_reader("cyclone_sedp_ddsperf_sub.rtps", "DDSPerfRPongKS");
    assert_ne!(w.qos.partition, r.qos.partition);
    assert_eq!(check_match(&w, &r), Err(MatchError::Partition));
    assert_eq!(MatchError::Partition.name(), "PARTITION");
    // ...until they share one, by name or by pattern.
    r.qos.partition.push(w.qos.partition[0].clone());
    assert_eq!(check_match(&w, &r), Ok(()));
    r.qos.partition = vec!["0110*".into()];
    assert_eq!(check_match(&w, &r), Ok(()));
    r.qos.partition = vec![];
    assert_eq!(check_match(&w, &r), Err(MatchError::Partition), "the default partition is not theirs");
    // Default partitions on both sides match.
    let lw = local_writer("rt/chatter", STRING_TYPE, Qos::default());
    let mut lr = local_reader("rt/chatter", STRING_TYPE, Qos::default());
    lr.qos.partition = vec!["".into()];
    assert_eq!(check_match(&lw, &lr), Ok(()));
    assert!(!partitions_match(&["a*".to_string()], &["*b".to_string()]));
}

#[test]
fn every_incompatible_policy_is_reported_by_name() {
    let w0 = local_writer("T", "X", Qos::default());
    let r0 = local_reader("T", "X", Qos::default());
    assert_eq!(check_match(&w0, &r0), Ok(()));

    type Case = (&'static str, fn(&mut DiscoveredWriterData, &mut DiscoveredReaderData));
    let cases: &[Case] = &[
        ("RELIABILITY", |w, _| w.qos.reliability = Reliability::BestEffort),
        ("DURABILITY", |_, r| r.qos.durability = DurabilityKind::TransientLocal),
        ("DURABILITY", |w, r| {
            // Beyond the engine's Qos: TRANSIENT_LOCAL does not satisfy TRANSIENT.
            w.qos.durability = DurabilityKind::TransientLocal;
            r.qos.durability = DurabilityKind::Transient;
        }),
        ("PRESENTATION", |_, r| r.qos.presentation.access_scope = PresentationAccessScope::Topic),
        ("PRESENTATION", |_, r| r.qos.presentation.coherent_access = true),
        ("PRESENTATION", |_, r| r.qos.presentation.ordered_access = true),
        ("DEADLINE", |_, r| r.qos.deadline = Duration::from_millis(10)),
        ("LATENCY_BUDGET", |w, _| w.qos.latency_budget = Duration::from_millis(10)),
        ("OWNERSHIP", |w, _| w.qos.ownership = OwnershipKind::Exclusive),
        ("OWNERSHIP", |_, r| r.qos.ownership = OwnershipKind::Exclusive),
        ("LIVELINESS", |_, r| r.qos.liveliness.kind = LivelinessKind::ManualByParticipant),
        ("LIVELINESS", |w, r| {
            w.qos.liveliness = Liveliness { kind: LivelinessKind::Automatic, lease_duration: Duration::from_secs(2) };
            r.qos.liveliness = Liveliness { kind: LivelinessKind::Automatic, lease_duration: Duration::from_secs(1) };
        }),
        ("DESTINATION_ORDER", |_, r| r.qos.destination_order = DestinationOrderKind::BySourceTimestamp),
        ("DATA_REPRESENTATION", |_, r| r.qos.data_representation = vec![data_representation::XCDR2]),
        ("DATA_REPRESENTATION", |w, r| {
            w.qos.data_representation = vec![data_representation::XCDR2, data_representation::XCDR1];
            r.qos.data_representation = vec![];
        }),
        ("TYPE_CONSISTENCY_ENFORCEMENT", |_, r| r.qos.type_consistency.force_type_validation = true),
        ("DISABLE_POSITIVE_ACKS", |_, r| r.qos.disable_positive_acks = true),
    ];
    for (name, mutate) in cases {
        let (mut w, mut r) = (w0.clone(), r0.clone());
        mutate(&mut w, &mut r);
        assert_eq!(incompatible(&w, &r), *name);
        let e = check_match(&w, &r).unwrap_err();
        assert!(e.to_string().contains(name), "{e}");
    }

    // The other direction of each rule is fine.
    let compatible: &[fn(&mut DiscoveredWriterData, &mut DiscoveredReaderData)] = &[
        |_, r| r.qos.reliability = Reliability::BestEffort,
        |w, _| w.qos.durability = DurabilityKind::Persistent,
        |w, _| w.qos.presentation.access_scope = PresentationAccessScope::Group,
        |w, _| w.qos.deadline = Duration::from_millis(10),
        |_, r| r.qos.latency_budget = Duration::from_millis(10),
        |w, r| {
            w.qos.ownership = OwnershipKind::Exclusive;
            r.qos.ownership = OwnershipKind::Exclusive;
        },
        |w, _| w.qos.liveliness.kind = LivelinessKind::ManualByTopic,
        |w, _| w.qos.destination_order = DestinationOrderKind::BySourceTimestamp,
        |_, r| r.qos.data_representation = vec![data_representation::XCDR2, data_representation::XCDR1],
        |w, r| {
            w.qos.data_representation = vec![];
            r.qos.data_representation = vec![];
        },
        |w, _| w.qos.disable_positive_acks = true,
        |w, r| {
            r.qos.type_consistency.force_type_validation = true;
            w.type_information = Some(vec![1]);
            r.type_information = Some(vec![1]);
        },
    ];
    for mutate in compatible {
        let (mut w, mut r) = (w0.clone(), r0.clone());
        mutate(&mut w, &mut r);
        assert_eq!(check_match(&w, &r), Ok(()));
    }
}

#[test]
fn our_xcdr1_writer_and_an_xcdr2_only_reader() {
    let w = local_writer("T", "X", Qos::default());
    assert_eq!(w.qos.data_representation, [data_representation::XCDR1], "we announce XCDR1 only");
    let mut r = local_reader("T", "X", Qos::default());
    r.qos.data_representation = vec![data_representation::XCDR2];
    assert_eq!(check_match(&w, &r), Err(MatchError::IncompatibleQos(QosPolicy::DataRepresentation)));
    // Cyclone's ddsperf reader accepts both.
    let dr = captured_reader("cyclone_sedp_ddsperf_sub.rtps", "DDSPerfRPongKS");
    r.qos.data_representation = dr.qos.data_representation.clone();
    assert_eq!(check_match(&w, &r), Ok(()));
}
