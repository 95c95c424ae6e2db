//! Same-process delivery through the public API.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use hdds_core::qos::{Durability, History, Reliability};
use hdds_core::{Participant, ParticipantConfig, Qos};

fn participant(domain_id: u32) -> Participant {
    Participant::new(ParticipantConfig { domain_id, ..Default::default() }).unwrap()
}

/// Each test uses its own topic: the TopicMerger is process-wide and tests run in parallel.
#[test]
fn round_trip_with_sample_info() {
    let p = participant(0);
    let w = p.create_writer("rt/round_trip", "T", Qos::default()).unwrap();
    let r = p.create_reader("rt/round_trip", "T", Qos::default()).unwrap();
    assert_eq!(w.matched_reader_count(), 1);
    let payload = [0u8, 1, 0, 0, 42, 0, 0, 0];
    assert_eq!(w.write(&payload).unwrap(), 1);
    assert_eq!(w.write(&payload[..5]).unwrap(), 2);
    let s = r.take().unwrap();
    assert_eq!(&*s.data, &payload);
    assert_eq!(s.info.sequence_number, 1);
    assert_eq!(s.info.writer_guid, w.guid());
    assert!(s.info.reception_timestamp >= s.info.source_timestamp);
    assert_eq!(&*r.take().unwrap().data, &payload[..5]);
    assert!(r.take().is_none());
}

#[test]
fn keep_last_drops_oldest() {
    let p = participant(0);
    let q = Qos { history: History::KeepLast(3), ..Qos::default() };
    let w = p.create_writer("rt/keep_last", "T", q).unwrap();
    let r = p.create_reader("rt/keep_last", "T", q).unwrap();
    for i in 0u8..10 {
        w.write(&[i]).unwrap();
    }
    let got: Vec<u8> = std::iter::from_fn(|| r.take()).map(|s| s.data[0]).collect();
    assert_eq!(got, vec![7, 8, 9]);
}

#[test]
fn keep_all_keeps_everything_in_order() {
    let p = participant(0);
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = p.create_writer("rt/keep_all", "T", q).unwrap();
    let r = p.create_reader("rt/keep_all", "T", q).unwrap();
    for i in 0u32..1000 {
        w.write(&i.to_le_bytes()).unwrap();
    }
    let got: Vec<i64> = std::iter::from_fn(|| r.take()).map(|s| s.info.sequence_number).collect();
    assert_eq!(got, (1..=1000).collect::<Vec<_>>());
}

#[test]
fn transient_local_late_joiner_gets_history() {
    let p = participant(0);
    let q = Qos { durability: Durability::TransientLocal, history: History::KeepLast(2), ..Qos::default() };
    let w = p.create_writer("rt/late_joiner", "T", q).unwrap();
    for i in 0u8..5 {
        w.write(&[i]).unwrap();
    }
    let late = p.create_reader("rt/late_joiner", "T", q).unwrap();
    let volatile = p.create_reader("rt/late_joiner", "T", Qos::default()).unwrap();
    let got: Vec<u8> = std::iter::from_fn(|| late.take()).map(|s| s.data[0]).collect();
    assert_eq!(got, vec![3, 4]);
    assert!(volatile.take().is_none());
}

#[test]
fn incompatible_qos_or_type_does_not_match() {
    let p = participant(0);
    let be = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
    let w = p.create_writer("rt/incompatible", "T", be).unwrap();
    let _reliable = p.create_reader("rt/incompatible", "T", Qos::default()).unwrap();
    let _other_type = p.create_reader("rt/incompatible", "U", be).unwrap();
    assert_eq!(w.matched_reader_count(), 0);
}

#[test]
fn domains_are_separate_and_participants_in_one_process_meet() {
    let a = participant(1);
    let b = participant(1);
    let c = participant(2);
    let w = a.create_writer("rt/domains", "T", Qos::default()).unwrap();
    let rb = b.create_reader("rt/domains", "T", Qos::default()).unwrap();
    let rc = c.create_reader("rt/domains", "T", Qos::default()).unwrap();
    w.write(&[1]).unwrap();
    assert!(rb.take().is_some());
    assert!(rc.take().is_none());
}

#[test]
fn deleted_reader_is_no_longer_served() {
    let p = participant(0);
    let w = p.create_writer("rt/deleted", "T", Qos::default()).unwrap();
    let r = p.create_reader("rt/deleted", "T", Qos::default()).unwrap();
    assert_eq!(w.matched_reader_count(), 1);
    drop(r);
    assert_eq!(w.matched_reader_count(), 0);
    w.write(&[1]).unwrap();
}

#[test]
fn wakes_a_waiting_reader_and_keeps_order_across_threads() {
    let p = participant(0);
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let r = p.create_reader("rt/threads", "T", q).unwrap();
    let w = Arc::new(p.create_writer("rt/threads", "T", q).unwrap());
    assert!(!r.wait_for_data(Duration::from_millis(1)));
    let writers: Vec<_> = (0..4)
        .map(|_| {
            let w = Arc::clone(&w);
            thread::spawn(move || {
                for _ in 0..250 {
                    w.write(&[0]).unwrap();
                }
            })
        })
        .collect();
    assert!(r.wait_for_data(Duration::from_secs(10)));
    for t in writers {
        t.join().unwrap();
    }
    let sns: Vec<i64> = std::iter::from_fn(|| r.take()).map(|s| s.info.sequence_number).collect();
    assert_eq!(sns, (1..=1000).collect::<Vec<_>>());
}

/// Writer::write_into: the sample is the buffer the filler wrote (shorter than asked is fine),
/// a failing or overreaching filler writes nothing and uses no sequence number.
#[test]
fn write_into_publishes_what_the_filler_wrote_and_nothing_on_failure() {
    use std::mem::MaybeUninit;
    let p = participant(0);
    let w = p.create_writer("rt/write_into", "T", Qos::default()).unwrap();
    let r = p.create_reader("rt/write_into", "T", Qos::default()).unwrap();
    let payload = [0u8, 1, 0, 0, 42, 0, 0, 0];
    let fill_with = |n: usize| {
        move |buf: &mut [MaybeUninit<u8>]| {
            for (d, s) in buf.iter_mut().zip(&payload[..n]) {
                d.write(*s);
            }
            Ok(n)
        }
    };
    let opts = hdds_core::WriteOptions::default();
    // SAFETY: each filler initializes the n bytes it reports (n <= the buffer's length below).
    unsafe {
        assert_eq!(w.write_into(8, &opts, fill_with(8)).unwrap(), 1);
        assert_eq!(w.write_into(64, &opts, fill_with(5)).unwrap(), 2);
        let failed = w.write_into(8, &opts, |_| Err(hdds_core::Error::bad_argument("no")));
        assert!(failed.is_err());
        let overreach = w.write_into(4, &opts, |_| Ok(5)).unwrap_err();
        assert!(overreach.to_string().contains("5 bytes into a 4-byte buffer"), "{overreach}");
        assert_eq!(w.write_into(8, &opts, fill_with(8)).unwrap(), 3);
    }
    let s = r.take().unwrap();
    assert_eq!((&*s.data, s.info.sequence_number), (&payload[..], 1));
    let s = r.take().unwrap();
    assert_eq!((&*s.data, s.info.sequence_number), (&payload[..5], 2));
    assert_eq!(r.take().unwrap().info.sequence_number, 3);
    assert!(r.take().is_none());
}

/// A writer reuses the buffer of a sample a KEEP_LAST history replaced only when nothing else
/// holds it: a second reader that keeps more, or the application holding a taken sample, keeps
/// its bytes while the writer goes on writing samples of the same size.
#[test]
fn a_replaced_sample_still_held_elsewhere_keeps_its_bytes() {
    let p = participant(0);
    let short = Qos { history: History::KeepLast(1), ..Qos::default() };
    let long = Qos { history: History::KeepLast(64), ..Qos::default() };
    let w = p.create_writer("rt/spare_buffers", "T", short).unwrap();
    let r_short = p.create_reader("rt/spare_buffers", "T", short).unwrap();
    let r_long = p.create_reader("rt/spare_buffers", "T", long).unwrap();
    let sample = |i: u8| vec![i; 256];
    w.write(&sample(0)).unwrap();
    let held = r_short.take().unwrap();
    for i in 1..50u8 {
        w.write(&sample(i)).unwrap();
    }
    assert_eq!(*held.data, sample(0)[..], "a taken sample changed under the application");
    let kept: Vec<Vec<u8>> = std::iter::from_fn(|| r_long.take()).map(|s| s.data.to_vec()).collect();
    assert_eq!(kept, (0..50u8).map(sample).collect::<Vec<_>>(), "the longer history's samples changed");
    assert_eq!(*r_short.take().unwrap().data, sample(49)[..]);
}

/// A length no sample can have (a garbage one over the C ABI) is refused before anything is
/// allocated: loans and write_into fail with BadArgument, the filler never runs, the writer goes on.
#[test]
fn loans_and_write_into_refuse_lengths_beyond_a_sample() {
    let p = participant(0);
    let w = p.create_writer("rt/too_long", "T", Qos::default()).unwrap();
    let r = p.create_reader("rt/too_long", "T", Qos::default()).unwrap();
    let max = hdds_core::runtime::writer::MAX_SAMPLE_BYTES;
    for len in [max + 1, 1 << 50, usize::MAX] {
        let e = w.loan(len).err().unwrap_or_else(|| panic!("a loan of {len} bytes"));
        assert_eq!(e.kind(), hdds_core::error::ErrorKind::BadArgument, "{e}");
        assert!(e.message().contains("at most"), "{e}");
        assert!(w.loan_in_shared_memory(len).is_err());
        // SAFETY: the filler writes nothing and says so.
        let e = unsafe { w.write_into(len, &Default::default(), |_| panic!("the filler ran")) }.unwrap_err();
        assert_eq!(e.kind(), hdds_core::error::ErrorKind::BadArgument, "{e}");
    }
    let mut loan = w.loan(8).unwrap();
    loan.as_mut_slice().copy_from_slice(&[0, 1, 0, 0, 7, 7, 7, 7]);
    assert_eq!(loan.publish().unwrap(), 1);
    assert_eq!(&*r.take().unwrap().data, &[0, 1, 0, 0, 7, 7, 7, 7]);
}

/// A sample's body (after the 4-byte encapsulation header) is 8-byte aligned in the buffer every
/// reader of the process shares, whether the writer copied it (`write`), had it serialized in
/// place (`write_into`, a shorter fill included) or reused a replaced sample's buffer: what lets
/// the RMW hand out a message with 8-byte fields in place (rmw_take_loaned_message).
#[test]
fn every_reader_shares_one_buffer_whose_body_is_8_byte_aligned() {
    let p = participant(0);
    let q = Qos { history: History::KeepLast(2), ..Qos::default() };
    let w = p.create_writer("rt/aligned_body", "T", q).unwrap();
    let readers =
        [p.create_reader("rt/aligned_body", "T", q).unwrap(), p.create_reader("rt/aligned_body", "T", q).unwrap()];
    let aligned = |s: &hdds_core::Sample| s.data[4..].as_ptr() as usize % hdds_core::Payload::BODY_ALIGN == 0;
    for round in 0..20u8 {
        let len = 5 + round as usize * 7;
        let payload: Vec<u8> = (0..len as u8).map(|b| b.wrapping_add(round)).collect();
        let via_write_into = round % 2 == 1;
        if via_write_into {
            // Asks for 3 bytes more than it writes: the sample is the bytes written.
            let fill = |buf: &mut [std::mem::MaybeUninit<u8>]| {
                for (d, s) in buf.iter_mut().zip(&payload) {
                    d.write(*s);
                }
                Ok(payload.len())
            };
            // SAFETY: `fill` initializes every byte it reports written.
            unsafe { w.write_into(len + 3, &hdds_core::WriteOptions::default(), fill) }.unwrap();
        } else {
            w.write(&payload).unwrap();
        }
        let got: Vec<_> = readers.iter().map(|r| r.take().expect("each reader gets it")).collect();
        for s in &got {
            assert_eq!(&s.data[..], &payload[..], "round {round}");
            assert!(aligned(s), "round {round} (write_into {via_write_into}): body at {:p}", s.data[4..].as_ptr());
        }
        assert!(hdds_core::Payload::ptr_eq(&got[0].data, &got[1].data), "round {round}: a copy per reader");
    }
}
