//! The network runtime under pressure: a full KEEP_ALL history, and datagrams that are not what
//! they should be. Loopback only, each test in its own domain.

mod net_support;

use std::net::{Ipv4Addr, UdpSocket};
use std::time::{Duration, Instant};

use hdds_core::error::ErrorKind;
use hdds_core::qos::History;
use hdds_core::{Qos, Reader, Writer};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

fn matched(w: &Writer, r: &Reader) -> bool {
    wait_until(Duration::from_secs(5), || w.matched_reader_count() == 1 && r.matched_writer_count() == 1)
}

#[test]
fn a_full_keep_all_history_blocks_then_times_out_then_recovers() {
    let a = net_participant(130, |_| {});
    let b = net_participant(130, |_| {});
    let q = Qos { history: History::KeepAll, max_blocking_time: Duration::from_millis(200), ..Qos::default() };
    let w = a.create_writer("t/full", T, q).unwrap();
    let r = b.create_reader("t/full", T, q).unwrap();
    assert!(matched(&w, &r));
    // A same-process reader too: a write hands it the sample before the RTPS machine numbers it
    // only when the machine will not wait; a write that times out must leave it nothing.
    let local = a.create_reader("t/full", T, Qos { history: History::KeepLast(4), ..q }).unwrap();
    // The reader's ACKNACKs no longer arrive: nothing is ever acknowledged.
    b.set_network_silenced(true);
    let sample = [0u8, 1, 0, 0, 1, 2, 3, 4];
    let mut written = 0;
    let err = loop {
        match w.write(&sample) {
            Ok(_) => written += 1,
            Err(e) => break e,
        }
        assert!(written <= 100_000, "the history never filled up");
    };
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert_eq!(written, hdds_core::runtime::writer::KEEP_ALL_MAX_SAMPLES);
    let t = Instant::now();
    assert_eq!(w.write(&sample).unwrap_err().kind(), ErrorKind::Timeout);
    assert!(t.elapsed() >= Duration::from_millis(190), "blocked {:?}, not max_blocking_time", t.elapsed());
    // Acknowledgments flow again: the writer gets room without anyone calling it.
    b.set_network_silenced(false);
    let last = w.write(&sample).unwrap();
    assert_eq!(last, written as i64 + 1, "the timed-out writes took no sequence number");
    // The same-process reader kept the last four, each once: not the timed-out writes', and the
    // write that waited for room delivered it after the machine numbered it.
    let mut kept = Vec::new();
    while let Some(s) = local.take() {
        kept.push(s.info.sequence_number);
    }
    assert_eq!(kept, (last - 3..=last).collect::<Vec<_>>());
    // The reader holds keep_all_max_samples untaken: it refuses the last one (unacknowledged, so
    // sent again) until the application takes (tests/keep_all_reader_caps.rs).
    let mut n = 0;
    let end = Instant::now() + Duration::from_secs(5);
    while n < written + 1 && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            while r.take().is_some() {
                n += 1;
            }
        }
    }
    assert_eq!(n, written + 1);
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
}

#[test]
fn malformed_datagrams_are_dropped_and_counted() {
    let a = net_participant(131, |_| {});
    let b = net_participant(131, |_| {});
    let w = a.create_writer("t/junk", T, Qos::default()).unwrap();
    let r = b.create_reader("t/junk", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    let stats = b.network_stats().unwrap();
    let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let mut header = b"RTPS\x02\x03\x01\x10".to_vec();
    header.extend_from_slice(&[7; 12]);
    let mut cut_data = header.clone();
    cut_data.extend_from_slice(&[0x15, 0x05, 0x40, 0x00, 0, 0, 16, 0]); // DATA claiming 64 bytes, having 4
    let mut zero_sn = header.clone();
    zero_sn.extend_from_slice(&[0x15, 0x05, 20, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0]);
    let mut unknown = header.clone();
    unknown.extend_from_slice(&[0x99, 0x01, 4, 0, 1, 2, 3, 4]);
    let junk: [&[u8]; 6] = [b"", b"hello", b"RTPS\x01\x00", &header[..19], &cut_data, &zero_sn];
    for port in [stats.metatraffic_unicast_port, stats.user_unicast_port] {
        for d in junk.iter().chain([&unknown[..]].iter()) {
            socket.send_to(d, (Ipv4Addr::LOCALHOST, port)).unwrap();
        }
    }
    assert!(wait_until(Duration::from_secs(5), || {
        let s = b.network_stats().unwrap();
        s.malformed_datagrams >= 6 && s.malformed_submessages >= 4 && s.unknown_submessages >= 2
    }));
    // Still serving.
    w.write(&[0, 1, 0, 0, 42, 0, 0, 0]).unwrap();
    assert!(r.wait_for_data(Duration::from_secs(5)));
    assert_eq!(r.take().unwrap().data[4], 42);
}

/// splitmix64: a deterministic source of mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Valid traffic of a fake remote participant: its SPDP announcement, the SEDP announcement of a
/// writer on `topic`, and that writer's HEARTBEAT, DATA, DATA_FRAG and GAP.
fn fake_peer_traffic(domain_id: u32, tag: &str, topic: &str) -> Vec<Vec<u8>> {
    use hdds_core::discovery::{DiscoveredWriterData, SpdpParticipantData};
    use hdds_core::wire::submessage::Data;
    use hdds_core::wire::submessage::{DataFrag, Gap, Heartbeat, InfoTs, Submessage};
    use hdds_core::wire::{
        EntityId, EntityKind, Guid, GuidPrefix, Header, Locator, MessageBuilder, SequenceNumber, SequenceNumberSet,
        Time,
    };

    let prefix = GuidPrefix([0x01, 0x10, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]);
    // A port nobody listens on (a high participant index of this domain): what we answer is lost.
    let dead = Locator::udpv4(
        Ipv4Addr::LOCALHOST,
        hdds_core::discovery::ports::metatraffic_unicast_port(domain_id, 50).unwrap(),
    );
    let mut spdp = SpdpParticipantData::new(prefix, domain_id);
    spdp.domain_tag = tag.to_owned();
    spdp.metatraffic_unicast_locators.push(dead);
    spdp.default_unicast_locators.push(dead);
    let writer = Guid::new(prefix, EntityId::user(7, EntityKind::UserWriterNoKey));
    let sedp = DiscoveredWriterData::new(writer, topic, T, &Qos::default()).encode().unwrap();
    let spdp = spdp.encode().unwrap();
    let msg = |subs: &[Submessage<'_>]| {
        let mut b = MessageBuilder::new(&Header { guid_prefix: prefix, ..Header::ours(prefix) });
        b.add(&Submessage::InfoTs(InfoTs { timestamp: Some(Time::from_nanos(1_700_000_000_000_000_000)) })).unwrap();
        for s in subs {
            b.add_padded(s).unwrap();
        }
        b.finish()
    };
    let sample = [0u8, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    let big = vec![5u8; 3000];
    let frag = |n: u32| DataFrag {
        extra_flags: 0,
        reader_id: EntityId::UNKNOWN,
        writer_id: writer.entity_id,
        writer_sn: SequenceNumber(4),
        fragment_starting_num: n,
        fragments_in_submessage: 1,
        fragment_size: 1344,
        sample_size: big.len() as u32,
        inline_qos: None,
        payload: &big[(n as usize - 1) * 1344..(n as usize * 1344).min(big.len())],
        key_flag: false,
        non_standard_payload: false,
    };
    let hb = Heartbeat {
        reader_id: EntityId::UNKNOWN,
        writer_id: writer.entity_id,
        first_sn: SequenceNumber(1),
        last_sn: SequenceNumber(6),
        count: 1,
        final_flag: false,
        liveliness_flag: false,
    };
    let gap = Gap {
        reader_id: EntityId::UNKNOWN,
        writer_id: writer.entity_id,
        gap_start: SequenceNumber(5),
        gap_list: SequenceNumberSet::new(SequenceNumber(7)),
    };
    vec![
        msg(&[Submessage::Data(Data::new(EntityId::SPDP_READER, EntityId::SPDP_WRITER, SequenceNumber(1), &spdp))]),
        msg(&[
            Submessage::Data(Data::new(
                EntityId::SEDP_PUBLICATIONS_READER,
                EntityId::SEDP_PUBLICATIONS_WRITER,
                SequenceNumber(1),
                &sedp,
            )),
            Submessage::Heartbeat(Heartbeat {
                reader_id: EntityId::SEDP_PUBLICATIONS_READER,
                writer_id: EntityId::SEDP_PUBLICATIONS_WRITER,
                last_sn: SequenceNumber(1),
                ..hb
            }),
        ]),
        msg(&[
            Submessage::Data(Data::new(EntityId::UNKNOWN, writer.entity_id, SequenceNumber(1), &sample)),
            Submessage::Data(Data::new(EntityId::UNKNOWN, writer.entity_id, SequenceNumber(3), &sample)),
            Submessage::Heartbeat(hb),
            Submessage::DataFrag(frag(1)),
            Submessage::DataFrag(frag(3)),
            Submessage::Gap(gap),
            Submessage::Data(Data::new(EntityId::UNKNOWN, writer.entity_id, SequenceNumber(2), &sample)),
            Submessage::DataFrag(frag(2)),
        ]),
    ]
}

#[test]
fn mutated_traffic_never_stops_a_participant() {
    let tag = format!("hdds-test-{}", std::process::id());
    let a = net_participant(132, |_| {});
    let b = net_participant(132, |_| {});
    let victim = b.create_reader("t/fuzz", T, Qos::default()).unwrap();
    let port = b.network_stats().unwrap().metatraffic_unicast_port;
    let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let valid = fake_peer_traffic(132, &tag, "t/fuzz");
    for d in &valid {
        socket.send_to(d, (Ipv4Addr::LOCALHOST, port)).unwrap();
    }
    // The fake writer matched and its samples (1, 2, 3, the fragmented 4) came through.
    assert!(wait_until(Duration::from_secs(5), || victim.available() == 4), "{}", victim.available());
    let mut rng = Rng(0x5eed);
    for i in 0..6000 {
        let mut d = valid[i % valid.len()].clone();
        match rng.below(4) {
            0 => d.truncate(rng.below(d.len() + 1)),
            1 => {
                for _ in 0..=rng.below(4) {
                    let at = rng.below(d.len());
                    d[at] = rng.next() as u8;
                }
            }
            // Lengths and counts live in the first bytes of each submessage: hit those harder.
            2 => {
                let at = 20 + rng.below(d.len().saturating_sub(20).min(64));
                if at < d.len() {
                    d[at] = [0, 1, 0xff, 0x7f, 0x80][rng.below(5)];
                }
            }
            _ => {
                let at = rng.below(d.len());
                d.insert(at, rng.next() as u8);
            }
        }
        socket.send_to(&d, (Ipv4Addr::LOCALHOST, port)).unwrap();
        if i % 500 == 0 {
            // Let the receive thread keep up: the socket buffer is large, not unbounded.
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    // Still serving: a real exchange works, and b still knows a.
    let w = a.create_writer("t/after_fuzz", T, Qos::default()).unwrap();
    let r = b.create_reader("t/after_fuzz", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    w.write(&[0, 1, 0, 0, 9, 9, 9, 9]).unwrap();
    assert!(r.wait_for_data(Duration::from_secs(5)));
    let s = b.network_stats().unwrap();
    assert!(s.malformed_datagrams + s.malformed_submessages > 100, "{s:?}");
    println!("after 6000 mutated datagrams: {s:?}");
}
