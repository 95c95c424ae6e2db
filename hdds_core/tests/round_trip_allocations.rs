//! Allocations of a UDP ping-pong in steady state, counted by a global allocator over every thread
//! of this process (both participants, their receive and timer threads). A round trip is two hops;
//! each hop allocates the writer's copy of the sample (its history) and the reader's copy of the
//! received payload (what `take` hands out), and nothing else: encode buffers, outbox lists and
//! the receive thread's route list are reused. Before that work a round trip made about 8.
//! Run with `--nocapture` to see the numbers.

mod net_support;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdds_core::qos::{History, Reliability};
use hdds_core::{NetworkConfig, Qos};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

/// Allocations per round trip allowed: 2 hops x 2 sample copies, and slack for what allocates
/// per second rather than per sample: SPDP announcements, sent and received. The participants
/// announce at the default period (3 s), not the tests' usual 200 ms, at which SPDP alone made
/// about 350 allocations a second. The timer thread's sweeps (heartbeats every few ms under
/// traffic) allocate nothing: when they did, the count grew with the round trip's duration, and a
/// slow host measured 5.28 at 8 KiB.
const MAX_PER_ROUND_TRIP: f64 = 4.5;

#[test]
fn steady_ping_pong_allocates_only_the_sample_copies() {
    for (size, reliability) in
        [(64, Reliability::Reliable), (8192, Reliability::Reliable), (64, Reliability::BestEffort)]
    {
        let per = per_round_trip(size, reliability);
        println!("{size} B {reliability:?}: {per:.2} allocations per round trip");
        assert!(per <= MAX_PER_ROUND_TRIP, "{size} B {reliability:?}: {per:.2} allocations per round trip");
    }
}

fn per_round_trip(size: usize, reliability: Reliability) -> f64 {
    let default_period = |c: &mut NetworkConfig| c.spdp_period = NetworkConfig::localhost().spdp_period;
    let a = net_participant(207, default_period);
    let b = net_participant(207, default_period);
    let q = Qos { reliability, history: History::KeepLast(1), ..Qos::default() };
    let topic = |t: &str| format!("alloc/{t}/{size}/{reliability:?}");
    let ping_w = a.create_writer(&topic("ping"), T, q).unwrap();
    let pong_r = a.create_reader(&topic("pong"), T, q).unwrap();
    let ping_r = Arc::new(b.create_reader(&topic("ping"), T, q).unwrap());
    let pong_w = Arc::new(b.create_writer(&topic("pong"), T, q).unwrap());
    assert!(wait_until(Duration::from_secs(10), || {
        ping_w.matched_reader_count() == 1
            && ping_r.matched_writer_count() == 1
            && pong_w.matched_reader_count() == 1
            && pong_r.matched_writer_count() == 1
    }));

    // The pong answers on b's receive thread; the ping counts answers on a's.
    {
        let (r, w) = (Arc::downgrade(&ping_r), Arc::clone(&pong_w));
        ping_r.set_data_listener(Some(Arc::new(move |_| {
            let Some(r) = r.upgrade() else { return };
            while let Some(s) = r.take() {
                let _ = w.write(&s.data);
            }
        })));
    }
    let answers = Arc::new(AtomicU64::new(0));
    let pong_r = Arc::new(pong_r);
    {
        let (r, n) = (Arc::downgrade(&pong_r), Arc::clone(&answers));
        pong_r.set_data_listener(Some(Arc::new(move |_| {
            let Some(r) = r.upgrade() else { return };
            while r.take().is_some() {
                n.fetch_add(1, Ordering::Release);
            }
        })));
    }
    let mut payload = vec![7u8; size];
    payload[..4].copy_from_slice(&[0, 1, 0, 0]);
    let round_trip = |i: u64| {
        let end = Instant::now() + Duration::from_secs(5);
        ping_w.write(&payload).unwrap();
        while answers.load(Ordering::Acquire) < i {
            assert!(Instant::now() < end, "no pong for ping {i}");
            std::thread::yield_now();
        }
    };
    let warmup = 300;
    for i in 1..=warmup {
        round_trip(i);
    }
    let n = 1000;
    let before = counting_alloc::allocations();
    for i in warmup + 1..=warmup + n {
        round_trip(i);
    }
    let made = counting_alloc::allocations() - before;
    ping_r.set_data_listener(None);
    pong_r.set_data_listener(None);
    made as f64 / n as f64
}
