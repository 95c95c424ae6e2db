//! Wait sets and guard conditions with same-process endpoints: wake-ups, time-outs, ready flags,
//! and no lost wake-up when triggers race with waits.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use hdds_core::qos::{History, Qos};
use hdds_core::{GuardCondition, Participant, ParticipantConfig, Target, WaitEntry, WaitSet};

const T: &str = "hdds::test::Bytes_";
const SAMPLE: &[u8] = &[0, 1, 0, 0, 42, 0, 0, 0];

fn participant() -> Participant {
    Participant::new(ParticipantConfig { domain_id: 7, ..Default::default() }).unwrap()
}

#[test]
fn wakes_on_data_from_a_same_process_writer() {
    let p = participant();
    let r = p.create_reader("ws/data", T, Qos::default()).unwrap();
    let w = p.create_writer("ws/data", T, Qos::default()).unwrap();
    let g = GuardCondition::new();
    let mut ws = WaitSet::new();
    let mut entries = [WaitEntry::new(Target::Guard(&g)), WaitEntry::new(Target::ReaderData(&r))];
    assert!(!ws.wait(&mut entries[..], Some(Duration::ZERO)), "nothing is ready yet");
    let start = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(50));
            w.write(SAMPLE).unwrap();
        });
        assert!(ws.wait(&mut entries[..], Some(Duration::from_secs(5))));
    });
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(40) && took < Duration::from_secs(2), "{took:?}");
    assert_eq!((entries[0].ready, entries[1].ready), (false, true));
    // Ready while unread, whatever the number of waits.
    assert!(ws.wait(&mut entries[..], None));
    assert!(r.take().is_some());
    assert!(!ws.wait(&mut entries[..], Some(Duration::from_millis(10))));
    assert!(!entries[1].ready);
}

#[test]
fn a_guard_trigger_wakes_a_waiting_thread_and_is_consumed_by_the_wait() {
    let g = Arc::new(GuardCondition::new());
    let trigger = Arc::clone(&g);
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        trigger.trigger();
    });
    let mut ws = WaitSet::new();
    let mut entries = [WaitEntry::new(Target::Guard(&g))];
    let start = Instant::now();
    assert!(ws.wait(&mut entries[..], None));
    assert!(start.elapsed() < Duration::from_secs(2));
    assert!(entries[0].ready);
    assert!(!g.is_triggered(), "the wait that found it resets it");
    assert!(!ws.wait(&mut entries[..], Some(Duration::ZERO)));
    t.join().unwrap();
    // A trigger before the wait is not lost.
    g.trigger();
    assert!(ws.wait(&mut entries[..], Some(Duration::from_secs(1))));
}

#[test]
fn a_time_out_returns_false_within_bounds() {
    let p = participant();
    let r = p.create_reader("ws/timeout", T, Qos::default()).unwrap();
    let g = GuardCondition::new();
    let mut ws = WaitSet::new();
    let mut entries = [WaitEntry::new(Target::ReaderData(&r)), WaitEntry::new(Target::Guard(&g))];
    for ms in [0u64, 20, 100] {
        let start = Instant::now();
        assert!(!ws.wait(&mut entries[..], Some(Duration::from_millis(ms))));
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(ms), "{ms} ms: returned after {took:?}");
        assert!(took < Duration::from_millis(ms + 300), "{ms} ms: returned after {took:?}");
        assert!(entries.iter().all(|e| !e.ready));
    }
    // No entries: it sleeps for the timeout.
    let start = Instant::now();
    assert!(!ws.wait(&mut [][..], Some(Duration::from_millis(30))));
    assert!(start.elapsed() >= Duration::from_millis(30));
}

/// Each round the waiter announces it is about to wait and the other thread triggers at once
/// (sometimes before, sometimes during the wait): a lost wake-up would sleep until the time-out
/// (whose last look would still find the trigger), so each round must end well before it.
#[test]
fn no_lost_wake_up_when_triggers_race_with_waits() {
    const ROUNDS: u64 = 3000;
    let g = Arc::new(GuardCondition::new());
    let round = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let trigger = {
        let (g, round, done) = (Arc::clone(&g), Arc::clone(&round), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut seen = 0;
            while !done.load(Ordering::SeqCst) {
                let now = round.load(Ordering::SeqCst);
                if now != seen {
                    seen = now;
                    // Vary the moment of the trigger against the waiter's attach and look.
                    for _ in 0..(now % 7) * 50 {
                        std::hint::spin_loop();
                    }
                    g.trigger();
                }
                std::hint::spin_loop();
            }
        })
    };
    let mut ws = WaitSet::new();
    let mut entries = [WaitEntry::new(Target::Guard(&g))];
    let start = Instant::now();
    for i in 1..=ROUNDS {
        round.store(i, Ordering::SeqCst);
        let t = Instant::now();
        assert!(ws.wait(&mut entries[..], Some(Duration::from_secs(3))), "round {i}: no trigger");
        assert!(t.elapsed() < Duration::from_secs(1), "round {i}: wake-up lost ({:?})", t.elapsed());
    }
    done.store(true, Ordering::SeqCst);
    trigger.join().unwrap();
    println!("{ROUNDS} trigger/wait rounds: {:?}", start.elapsed());
}

/// Two writer threads against one waiting reader: every sample is taken, no wait times out.
#[test]
fn no_lost_wake_up_under_concurrent_writes() {
    const PER_WRITER: usize = 2000;
    let p = participant();
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let r = p.create_reader("ws/stress", T, q).unwrap();
    let writers: Vec<_> = (0..2).map(|_| p.create_writer("ws/stress", T, q).unwrap()).collect();
    let go = Barrier::new(3);
    let mut ws = WaitSet::new();
    let mut taken = 0;
    std::thread::scope(|s| {
        for w in &writers {
            let go = &go;
            s.spawn(move || {
                go.wait();
                for i in 0..PER_WRITER {
                    w.write(SAMPLE).unwrap();
                    if i % 64 == 0 {
                        std::thread::yield_now();
                    }
                }
            });
        }
        go.wait();
        let mut entries = [WaitEntry::new(Target::ReaderData(&r))];
        while taken < 2 * PER_WRITER {
            let t = Instant::now();
            assert!(ws.wait(&mut entries[..], Some(Duration::from_secs(3))), "stuck after {taken} samples");
            assert!(t.elapsed() < Duration::from_secs(1), "wake-up lost after {taken} samples");
            while r.take().is_some() {
                taken += 1;
            }
        }
    });
    assert_eq!(taken, 2 * PER_WRITER);
}

#[test]
fn several_wait_sets_on_one_reader_all_wake() {
    let p = participant();
    let r = p.create_reader("ws/many", T, Qos::default()).unwrap();
    let w = p.create_writer("ws/many", T, Qos::default()).unwrap();
    let go = Barrier::new(4);
    std::thread::scope(|s| {
        for _ in 0..3 {
            let (r, go) = (&r, &go);
            s.spawn(move || {
                let mut ws = WaitSet::new();
                let mut e = [WaitEntry::new(Target::ReaderData(r))];
                go.wait();
                assert!(ws.wait(&mut e[..], Some(Duration::from_secs(5))));
            });
        }
        go.wait();
        std::thread::sleep(Duration::from_millis(30));
        w.write(SAMPLE).unwrap();
    });
}
