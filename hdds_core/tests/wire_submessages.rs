//! Synthetic tests for what the captures do not show: submessage kinds neither vendor sent there
//! (HEARTBEAT_FRAG, NACK_FRAG, INFO_SRC, INFO_REPLY, PAD), big-endian submessages, the
//! octetsToNextHeader == 0 rule, extensions (longer bodies, larger octetsToInlineQos), the receiver
//! state, and the validity rules that end a message.

use hdds_core::cdr::Endian;
use hdds_core::wire::pid;
use hdds_core::wire::submessage::*;
use hdds_core::wire::vendor::{VENDOR_ID_CYCLONE, VENDOR_ID_FASTDDS};
use hdds_core::wire::*;

const W: EntityId = EntityId([0, 0, 0x12, 0x03]);
const R: EntityId = EntityId([0, 0, 0x12, 0x04]);

fn header(vendor: VendorId) -> Header {
    Header { version: ProtocolVersion::CURRENT, vendor_id: vendor, guid_prefix: GuidPrefix([9; 12]) }
}

fn build(subs: &[Submessage<'_>], endian: Endian) -> Vec<u8> {
    let mut b = MessageBuilder::new(&header(VENDOR_ID_HDDS));
    b.set_endian(endian);
    for s in subs {
        b.add(s).unwrap();
    }
    b.finish()
}

fn every_kind<'a>(inline_qos: ParameterList<'a>, payload: &'a [u8], locators: LocatorList<'a>) -> Vec<Submessage<'a>> {
    let mut sns = SequenceNumberSet::new(SequenceNumber(5));
    sns.insert(SequenceNumber(6));
    sns.insert(SequenceNumber(260));
    let mut frags = FragmentNumberSet::new(2);
    frags.insert(3);
    vec![
        Submessage::Pad(Pad),
        Submessage::InfoSrc(InfoSrc {
            version: ProtocolVersion { major: 2, minor: 4 },
            vendor_id: VENDOR_ID_FASTDDS,
            guid_prefix: GuidPrefix([7; 12]),
        }),
        Submessage::InfoReply(InfoReply { unicast: locators, multicast: Some(locators) }),
        Submessage::InfoDst(InfoDst { guid_prefix: GuidPrefix([3; 12]) }),
        Submessage::InfoTs(InfoTs { timestamp: Some(Time { seconds: 17, fraction: 1 << 31 }) }),
        Submessage::Data(Data {
            extra_flags: 0,
            reader_id: R,
            writer_id: W,
            writer_sn: SequenceNumber((1 << 32) + 3),
            inline_qos: Some(inline_qos),
            payload: Some(payload),
            key_flag: false,
            non_standard_payload: false,
        }),
        Submessage::DataFrag(DataFrag {
            extra_flags: 0,
            reader_id: R,
            writer_id: W,
            writer_sn: SequenceNumber(4),
            fragment_starting_num: 3,
            fragments_in_submessage: 2,
            fragment_size: 4,
            sample_size: 18,
            inline_qos: None,
            payload: &payload[..8],
            key_flag: false,
            non_standard_payload: false,
        }),
        Submessage::Heartbeat(Heartbeat {
            reader_id: EntityId::UNKNOWN,
            writer_id: W,
            first_sn: SequenceNumber(1),
            last_sn: SequenceNumber(9),
            count: 3,
            final_flag: true,
            liveliness_flag: true,
        }),
        Submessage::HeartbeatFrag(HeartbeatFrag {
            reader_id: R,
            writer_id: W,
            writer_sn: SequenceNumber(4),
            last_fragment_num: 5,
            count: 2,
        }),
        Submessage::AckNack(AckNack { reader_id: R, writer_id: W, reader_sn_state: sns, count: 4, final_flag: false }),
        Submessage::NackFrag(NackFrag {
            reader_id: R,
            writer_id: W,
            writer_sn: SequenceNumber(4),
            fragment_number_state: frags,
            count: 1,
        }),
        Submessage::Gap(Gap { reader_id: R, writer_id: W, gap_start: SequenceNumber(2), gap_list: sns }),
        Submessage::InfoTs(InfoTs { timestamp: None }),
        Submessage::Unknown { id: 0x80, flags: 0x01, body: &[1, 2, 3, 4] },
    ]
}

#[test]
fn every_kind_round_trips_in_both_byte_orders() {
    for endian in [Endian::Little, Endian::Big] {
        let mut qos_bytes = Vec::new();
        let mut w = ParameterListWriter::new(&mut qos_bytes, endian);
        w.put_sample_identity(pid::fastdds::PID_CUSTOM_RELATED_SAMPLE_IDENTITY, &Guid::UNKNOWN, SequenceNumber(8))
            .unwrap();
        w.put_u32(pid::PID_STATUS_INFO, 0).unwrap();
        w.finish();
        // INFO_SRC names Fast DDS, so the inline QoS after it is read with Fast DDS's vendor id.
        let (qos, _) = ParameterList::parse(&qos_bytes, endian, VENDOR_ID_FASTDDS).unwrap();
        let mut loc_bytes = Vec::new();
        let mut cw = hdds_core::cdr::CdrWriter::new(&mut loc_bytes, endian);
        LocatorList::write(&[Locator::udpv4([10, 0, 0, 1].into(), 7411), Locator::INVALID], &mut cw).unwrap();
        let locs = LocatorList::read(&mut hdds_core::cdr::CdrReader::new(&loc_bytes, endian)).unwrap();
        let payload = [0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
        let subs = every_kind(qos, &payload, locs);
        let bytes = build(&subs, endian);
        let (h, parsed) = Message::parse_all(&bytes).unwrap();
        assert_eq!(h, header(VENDOR_ID_HDDS));
        // The Unknown submessage keeps its own (little-endian) flags; everything else matches.
        assert_eq!(parsed, subs, "{endian:?}");
        let Submessage::Data(d) = parsed[5] else { panic!() };
        let q = d.inline_qos.unwrap();
        let (_, sn) = q.vendor_param(VENDOR_ID_FASTDDS, 0x800f).unwrap().as_sample_identity().unwrap();
        assert_eq!(sn, SequenceNumber(8));
    }
}

#[test]
fn receiver_state_follows_info_submessages() {
    let mut loc_bytes = Vec::new();
    let mut cw = hdds_core::cdr::CdrWriter::new(&mut loc_bytes, Endian::Little);
    LocatorList::write(&[Locator::udpv4([10, 0, 0, 1].into(), 7411)], &mut cw).unwrap();
    let locs = LocatorList::read(&mut hdds_core::cdr::CdrReader::new(&loc_bytes, Endian::Little)).unwrap();
    let payload = [0, 1, 0, 0, 1, 2, 3, 4];
    let subs = every_kind(ParameterList::empty(Endian::Little, VENDOR_ID_HDDS), &payload, locs);
    let bytes = build(&subs, Endian::Little);
    let m = Message::parse(&bytes).unwrap();
    let states: Vec<_> = m.receive().map(|r| r.unwrap().state).collect();
    // Before INFO_SRC: the header's source.
    assert_eq!(states[0].source_guid_prefix, GuidPrefix([9; 12]));
    assert_eq!(states[0].source_vendor_id, VENDOR_ID_HDDS);
    // After INFO_SRC / INFO_REPLY / INFO_DST / INFO_TS.
    let at_data = states[5];
    assert_eq!(at_data.source_guid_prefix, GuidPrefix([7; 12]));
    assert_eq!(at_data.source_vendor_id, VENDOR_ID_FASTDDS);
    assert_eq!(at_data.source_version, ProtocolVersion { major: 2, minor: 4 });
    assert_eq!(at_data.dest_guid_prefix, GuidPrefix([3; 12]));
    assert_eq!(at_data.timestamp.unwrap().to_nanos(), Some(17_500_000_000));
    let reply: Vec<_> = at_data.unicast_reply.unwrap().iter().collect();
    assert_eq!(reply[0].socket_addr(), Some("10.0.0.1:7411".parse().unwrap()));
    // INFO_TS with the I flag removes the timestamp.
    assert_eq!(states.last().unwrap().timestamp, None);
}

fn raw_message(subs: &[&[u8]]) -> Vec<u8> {
    let mut m = header(VENDOR_ID_CYCLONE).to_bytes().to_vec();
    for s in subs {
        m.extend_from_slice(s);
    }
    m
}

#[test]
fn octets_to_next_header_zero_means_to_the_end_except_pad_and_info_ts() {
    // PAD and INFO_TS (I flag) with length 0 are empty; the HEARTBEAT with 0 runs to the end.
    let hb = [0u8, 0, 0, 0, 0, 0, 1, 0xc2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0];
    let mut last = vec![0x07, 0x01, 0, 0];
    last.extend_from_slice(&hb);
    let m = raw_message(&[&[0x01, 0x01, 0, 0], &[0x09, 0x03, 0, 0], &last]);
    let (_, subs) = Message::parse_all(&m).unwrap();
    assert_eq!(subs.len(), 3);
    let Submessage::Heartbeat(h) = subs[2] else { panic!("{subs:?}") };
    assert_eq!((h.first_sn.0, h.last_sn.0, h.count), (1, 2, 7));
    // INFO_TS without the I flag and length 0 has no room for its timestamp: invalid.
    assert!(Message::parse_all(&raw_message(&[&[0x09, 0x01, 0, 0]])).is_err());
}

#[test]
fn extensions_are_skipped() {
    // A HEARTBEAT with 4 extra bytes (a newer spec's field), then an unknown submessage, then PAD.
    let mut hb = vec![0x07, 0x01, 32, 0, 0, 0, 0, 0, 0, 0, 1, 0xc2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0];
    hb.extend_from_slice(&[5, 0, 0, 0, 0xee, 0xee, 0xee, 0xee]);
    let unknown = [0x33u8, 0x00, 0, 4, 1, 2, 3, 4]; // big-endian length
    let m = raw_message(&[&hb, &unknown, &[0x01, 0x00, 0, 0]]);
    let (_, subs) = Message::parse_all(&m).unwrap();
    assert!(matches!(subs[0], Submessage::Heartbeat(h) if h.count == 5));
    assert!(matches!(subs[1], Submessage::Unknown { id: 0x33, body: [1, 2, 3, 4], .. }));
    assert!(matches!(subs[2], Submessage::Pad(_)));

    // DATA with octetsToInlineQos 20: four unknown bytes before the inline QoS / payload.
    let mut data = vec![0x15, 0x05, 0, 0, 0, 0, 20, 0];
    data.extend_from_slice(&[0, 0, 0x12, 0x04, 0, 0, 0x12, 0x03, 0, 0, 0, 0, 9, 0, 0, 0]);
    data.extend_from_slice(&[0xaa; 4]);
    data.extend_from_slice(&[0, 1, 0, 0, 42, 0, 0, 0]);
    let len = (data.len() - 4) as u16;
    data[2..4].copy_from_slice(&len.to_le_bytes());
    let m = raw_message(&[&data]);
    let (_, subs) = Message::parse_all(&m).unwrap();
    let Submessage::Data(d) = subs[0] else { panic!() };
    assert_eq!((d.writer_sn.0, d.payload), (9, Some(&[0u8, 1, 0, 0, 42, 0, 0, 0][..])));
}

#[test]
fn invalid_submessages_end_the_message_with_a_reason() {
    let good_pad: &[u8] = &[0x01, 0x01, 0, 0];
    let cases: [(&[u8], &str); 6] = [
        (&[0x07, 0x01, 0x40, 0x00, 0, 0], "submessage length runs past the end of the message"),
        (&[0x07], "message ends inside a submessage header"),
        // HEARTBEAT firstSN 0
        (
            &[7, 1, 28, 0, 0, 0, 0, 0, 0, 0, 1, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
            "HEARTBEAT firstSN is not positive",
        ),
        // DATA with D and K
        (&[0x15, 0x0d, 4, 0, 0, 0, 16, 0], "DATA has both the D and K flags set"),
        // ACKNACK numBits 300
        (
            &[6, 1, 24, 0, 0, 0, 0, 0, 0, 0, 1, 0xc2, 0, 0, 0, 0, 1, 0, 0, 0, 0x2c, 1, 0, 0, 0, 0, 0, 0],
            "numBits of a number set is above 256",
        ),
        // DATA with Q whose inline QoS has no sentinel
        (
            &[0x15, 0x03, 24, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 1, 0xc2, 0, 0, 0, 0, 1, 0, 0, 0, 0x70, 0, 0, 0],
            "parameter list ends without PID_SENTINEL",
        ),
    ];
    for (bad, reason) in cases {
        // A trailing PAD, except after the cut header (it would complete it).
        let m = if bad.len() < 4 { raw_message(&[good_pad, bad]) } else { raw_message(&[good_pad, bad, good_pad]) };
        let items: Vec<_> = Message::parse(&m).unwrap().submessages().collect();
        assert!(items[0].is_ok(), "{reason}");
        let e = items[1].unwrap_err();
        assert_eq!(e.reason, reason);
        assert!(e.offset >= 24 && e.offset <= m.len(), "{reason}: offset {}", e.offset);
        assert_eq!(items.len(), 2, "the message ends at the first invalid submessage");
    }
}

#[test]
fn headers_are_checked() {
    assert!(Message::parse(b"RTPS\x02\x03\x01\x10").is_err());
    assert!(Message::parse(b"RTPX\x02\x03\x01\x10\0\0\0\0\0\0\0\0\0\0\0\0").is_err());
    let e = Message::parse(b"RTPS\x03\x00\x01\x10\0\0\0\0\0\0\0\0\0\0\0\0").unwrap_err();
    assert!(e.reason.contains("major version"));
    // A header alone is a valid, empty message.
    let (_, subs) = Message::parse_all(b"RTPS\x02\x05\x01\x10\0\0\0\0\0\0\0\0\0\0\0\0").unwrap();
    assert!(subs.is_empty());
}

#[test]
fn builder_refuses_bodies_over_64k_and_keeps_the_message_intact() {
    let big = vec![0u8; 70_000];
    let d = Data::new(R, W, SequenceNumber(1), &big);
    let mut b = MessageBuilder::new(&header(VENDOR_ID_HDDS));
    b.add(&Submessage::Pad(Pad)).unwrap();
    let before = b.as_bytes().to_vec();
    assert!(b.add(&Submessage::Data(d)).is_err());
    assert_eq!(b.as_bytes(), &before[..]);
    // Inline QoS in the other byte order cannot be copied into this submessage.
    let mut q = Vec::new();
    ParameterListWriter::new(&mut q, Endian::Big).finish();
    let (qos, _) = ParameterList::parse(&q, Endian::Big, VENDOR_ID_HDDS).unwrap();
    let d = Data { inline_qos: Some(qos), ..Data::new(R, W, SequenceNumber(1), &[]) };
    assert!(b.set_endian(Endian::Little).add(&Submessage::Data(d)).is_err());
    assert!(b.set_endian(Endian::Big).add(&Submessage::Data(d)).is_ok());
}

#[test]
fn our_header_carries_our_vendor_id() {
    let bytes = build(&[Submessage::Pad(Pad)], Endian::Little);
    assert_eq!(&bytes[..8], b"RTPS\x02\x03\x01\xf0");
    assert_eq!(bytes.len(), 24);
}
