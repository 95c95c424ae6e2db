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
    assert!(w.write(&sample).is_ok());
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
    let mut n = 0;
    while r.take().is_some() {
        n += 1;
    }
    assert_eq!(n, written + 1);
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
