//! Allocations of a writer that outpaces its same-process KEEP_LAST reader (as fast as possible,
//! one process), counted by a global allocator over every thread of this process. Each write
//! replaces the reader's oldest sample; the writer takes that sample's buffer back for its next
//! sample of the same size, so that in steady state a write allocates and frees nothing (before,
//! one allocation and one free per write, under a lock of the taking thread's history).
//! Run with `--nocapture` to see the numbers.

mod net_support;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use std::mem::MaybeUninit;

use hdds_core::qos::History;
use hdds_core::{Participant, ParticipantConfig, Qos, WriteOptions, Writer};
use net_support::net_participant;

const T: &str = "hdds::test::Bytes_";

/// Allocations per write allowed in steady state: none are needed; the slack is for a timer
/// thread's sweep (heartbeats, leases) during the count.
const MAX_PER_WRITE: f64 = 0.05;

#[test]
fn a_writer_outpacing_its_keep_last_reader_allocates_nothing_per_write() {
    // Phases one after the other: the count is process-wide.
    let alone = Participant::new(ParticipantConfig { domain_id: 0, ..Default::default() }).unwrap();
    let on_network = net_participant(208, |c| c.intra_process = true);
    for (name, p) in [("no network", &alone), ("network on", &on_network)] {
        for via_write_into in [false, true] {
            let per = per_write(p, &format!("alloc/intra/{name}/{via_write_into}"), via_write_into);
            println!("{name}, write_into {via_write_into}: {per:.3} allocations per write");
            assert!(per <= MAX_PER_WRITE, "{name}, write_into {via_write_into}: {per:.3} allocations per write");
        }
    }
}

fn per_write(p: &Participant, topic: &str, via_write_into: bool) -> f64 {
    let q = Qos { history: History::KeepLast(4), ..Qos::default() };
    let w = p.create_writer(topic, T, q).unwrap();
    let r = p.create_reader(topic, T, q).unwrap();
    assert_eq!(w.matched_reader_count(), 1);
    let payload = vec![7u8; 1024];
    let write = |w: &Writer| {
        if via_write_into {
            let fill = |buf: &mut [MaybeUninit<u8>]| {
                for (d, s) in buf.iter_mut().zip(&payload) {
                    d.write(*s);
                }
                Ok(payload.len())
            };
            // SAFETY: `fill` initializes every byte it reports written.
            unsafe { w.write_into(payload.len(), &WriteOptions::default(), fill) }.unwrap();
        } else {
            w.write(&payload).unwrap();
        }
    };
    for _ in 0..100 {
        write(&w);
    }
    let n = 2000;
    let before = counting_alloc::allocations();
    for _ in 0..n {
        write(&w);
    }
    let made = counting_alloc::allocations() - before;
    // The reader still holds the newest four, intact.
    let got: Vec<_> = std::iter::from_fn(|| r.take()).collect();
    assert_eq!(got.len(), 4);
    assert!(got.iter().all(|s| *s.data == payload[..]));
    made as f64 / n as f64
}
