//! `Reader::take_timeout` over shared memory: a spinning taker reads a same-host sample straight
//! out of the writer's ring (`NetStats::shm_direct_takes`), and everything a reader promises still
//! holds: order, completeness, the history's depth, data listeners, the participant's other
//! readers. Two participants of this test process (`intra_process: false`), each test in a
//! domain of its own.

mod net_support;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdds_core::qos::History;
use hdds_core::{Participant, ParticipantConfig, Qos, Reader, SharedMemoryConfig, Writer};
use net_support::{counter_payload, keep_all, net_participant_with, wait_until};

const T: &str = "hdds::test::Bytes_";

/// A participant with shared memory on, busy polling (`busy`) or sleeping at once.
fn participant(domain_id: u32, busy: bool) -> Participant {
    let config = ParticipantConfig { domain_id, ..Default::default() };
    let config = if busy { config.busy_polling() } else { ParticipantConfig { wait_spin: Duration::ZERO, ..config } };
    net_participant_with(config, |c| c.shared_memory = SharedMemoryConfig::default())
}

/// A reliable KEEP_ALL writer on `topic` in `a` and a reader with `qos` in `b`, matched.
fn pair(a: &Participant, b: &Participant, topic: &str, qos: Qos) -> (Writer, Reader) {
    let w = a.create_writer(topic, T, keep_all()).unwrap();
    let r = b.create_reader(topic, T, qos).unwrap();
    let matched = || w.matched_reader_count() >= 1 && r.matched_writer_count() >= 1;
    assert!(wait_until(Duration::from_secs(5), matched), "{topic}: the writer and reader did not match");
    (w, r)
}

fn counter(s: &hdds_core::Sample) -> u32 {
    u32::from_le_bytes(s.data[4..8].try_into().unwrap())
}

/// Writes `n` samples, each once the reader has taken the one before (a ping-pong's pace: the
/// taker is spinning when the sample comes), and takes them with `take_timeout` on another
/// thread. Returns what was taken and how many samples the reader's participant took directly.
fn paced_exchange(domain: u32, busy: bool, n: u32) -> (Vec<u32>, u64) {
    let a = participant(domain, busy);
    let b = participant(domain, busy);
    let (w, r) = pair(&a, &b, "t/direct", keep_all());
    let r = Arc::new(r);
    let taken = Arc::new(AtomicU32::new(0));
    let taker = {
        let (r, taken) = (Arc::clone(&r), Arc::clone(&taken));
        std::thread::spawn(move || {
            let mut got = Vec::new();
            while got.len() < n as usize {
                let Some(s) = r.take_timeout(Duration::from_secs(5)) else { break };
                got.push(counter(&s));
                taken.store(got.len() as u32, Ordering::Release);
            }
            got
        })
    };
    for i in 0..n {
        w.write(&counter_payload(i)).unwrap();
        assert!(wait_until(Duration::from_secs(5), || taken.load(Ordering::Acquire) > i), "sample {i} was not taken");
    }
    let got = taker.join().unwrap();
    (got, b.network_stats().unwrap().shm_direct_takes)
}

/// A busy taker gets every sample, in order, and reads (nearly) all of them straight from the
/// ring; a taker that sleeps at once gets the same samples through its history, none directly.
#[test]
fn a_spinning_taker_reads_straight_from_the_ring_in_order_and_complete() {
    const N: u32 = 300;
    let (got, direct) = paced_exchange(220, true, N);
    assert_eq!(got, (0..N).collect::<Vec<_>>());
    // A sample rung while the taker is between two calls may go through the reader thread and
    // the history instead (the hand-off); most must not.
    assert!(direct >= u64::from(N) / 2, "only {direct} of {N} samples were taken straight from the ring");

    let (got, direct) = paced_exchange(221, false, N);
    assert_eq!(got, (0..N).collect::<Vec<_>>());
    assert_eq!(direct, 0, "a taker that does not spin takes from its history");
}

/// Bursts written while a taker spins: the taker reads a sample straight from the ring only when
/// it is the only one waiting; with more, they go through the history, which keeps them in order.
/// Reliable KEEP_ALL on both sides: none may be missing either.
#[test]
fn bursts_to_a_spinning_taker_stay_in_order_and_complete() {
    const BURSTS: u32 = 100;
    const BURST: u32 = 5;
    let a = participant(223, true);
    let b = participant(223, true);
    let (w, r) = pair(&a, &b, "t/bursts", keep_all());
    let r = Arc::new(r);
    let taker = {
        let r = Arc::clone(&r);
        std::thread::spawn(move || {
            let mut got = Vec::new();
            while got.len() < (BURSTS * BURST) as usize {
                let Some(s) = r.take_timeout(Duration::from_secs(5)) else { break };
                got.push(counter(&s));
            }
            got
        })
    };
    for k in 0..BURSTS {
        for i in 0..BURST {
            w.write(&counter_payload(k * BURST + i)).unwrap();
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let got = taker.join().unwrap();
    assert_eq!(got, (0..BURSTS * BURST).collect::<Vec<_>>());
}

/// A KEEP_LAST reader keeps its depth with `take_timeout` as with `take`: ten samples written
/// while nobody takes leave the last three.
#[test]
fn the_history_depth_holds_for_samples_that_waited() {
    let a = participant(224, true);
    let b = participant(224, true);
    let (w, r) = pair(&a, &b, "t/depth", Qos { history: History::KeepLast(3), ..Qos::default() });
    for i in 0..10 {
        w.write(&counter_payload(i)).unwrap();
    }
    // The reader thread moves all ten into the history (no thread takes meanwhile).
    assert!(wait_until(Duration::from_secs(5), || b.network_stats().unwrap().shm_samples_read == 10));
    assert_eq!(r.available(), 3);
    let mut got = Vec::new();
    while let Some(s) = r.take_timeout(Duration::from_millis(50)) {
        got.push(counter(&s));
    }
    assert_eq!(got, vec![7, 8, 9]);
}

/// A reader with a data listener hears of every sample: such samples go through the history even
/// to a spinning taker.
#[test]
fn a_data_listener_hears_every_sample_a_spinning_taker_takes() {
    const N: u32 = 100;
    let a = participant(225, true);
    let b = participant(225, true);
    let (w, r) = pair(&a, &b, "t/listened", keep_all());
    let r = Arc::new(r);
    let heard = Arc::new(AtomicU32::new(0));
    {
        let heard = Arc::clone(&heard);
        r.set_data_listener(Some(Arc::new(move |_| {
            heard.fetch_add(1, Ordering::Relaxed);
        })));
    }
    let taker = {
        let r = Arc::clone(&r);
        std::thread::spawn(move || (0..N).filter_map(|_| r.take_timeout(Duration::from_secs(5))).count())
    };
    for i in 0..N {
        w.write(&counter_payload(i)).unwrap();
        std::thread::sleep(Duration::from_micros(300));
    }
    assert_eq!(taker.join().unwrap(), N as usize);
    assert!(wait_until(Duration::from_secs(2), || heard.load(Ordering::Relaxed) == N), "heard {heard:?}");
    assert_eq!(b.network_stats().unwrap().shm_direct_takes, 0);
}

/// While a thread spins for one reader (registered as the participant's drainer, so writers wake
/// no one else), a sample for the participant's other reader still arrives, promptly.
#[test]
fn the_other_readers_of_the_participant_are_served_while_one_spins() {
    let a = participant(226, true);
    let b = participant(226, true);
    let (w_x, r_x) = pair(&a, &b, "t/x", keep_all());
    let (w_y, r_y) = pair(&a, &b, "t/y", keep_all());
    let r_x = Arc::new(r_x);
    let spinner = {
        let r_x = Arc::clone(&r_x);
        std::thread::spawn(move || r_x.take_timeout(Duration::from_secs(3)).map(|s| counter(&s)))
    };
    std::thread::sleep(Duration::from_millis(50));
    for i in 0..20 {
        let t = Instant::now();
        w_y.write(&counter_payload(i)).unwrap();
        let s = r_y.take_timeout(Duration::from_secs(2)).expect("the other reader's sample");
        assert_eq!(counter(&s), i);
        assert!(t.elapsed() < Duration::from_millis(500), "sample {i} took {:?}", t.elapsed());
    }
    w_x.write(&counter_payload(99)).unwrap();
    assert_eq!(spinner.join().unwrap(), Some(99));
}

/// `take_timeout` gives up after its timeout when nothing comes, spinning or not, and without
/// shared-memory writers too.
#[test]
fn take_timeout_returns_none_after_its_timeout() {
    let a = participant(227, true);
    let b = participant(227, true);
    let (_w, r) = pair(&a, &b, "t/quiet", keep_all());
    let lone = b.create_reader("t/nobody", T, keep_all()).unwrap();
    for reader in [&r, &lone] {
        let t = Instant::now();
        assert!(reader.take_timeout(Duration::from_millis(30)).is_none());
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(30) && took < Duration::from_secs(2), "{took:?}");
    }
}
