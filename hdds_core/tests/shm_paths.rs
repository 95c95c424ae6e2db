//! The shared-memory path between two participants of this test process (`intra_process: false`
//! makes them meet as another process's would), each scenario also run with shared memory off to
//! show that UDP gives the same results. Each test has its own domain.

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::error::ErrorKind;
use hdds_core::qos::{Durability, History, Reliability};
use hdds_core::runtime::status::{LIVELINESS_CHANGED, PUBLICATION_MATCHED, SUBSCRIPTION_MATCHED};
use hdds_core::{NetworkConfig, Participant, Qos, Reader, SampleIdentity, SharedMemoryConfig, WriteOptions, Writer};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

/// A participant with shared memory on (`shm`) or off.
fn participant(domain: u32, shm: bool, tweak: impl FnOnce(&mut NetworkConfig)) -> Participant {
    net_participant(domain, |c| {
        c.shared_memory = if shm { SharedMemoryConfig::default() } else { SharedMemoryConfig::disabled() };
        tweak(c);
    })
}

fn matched(w: &Writer, r: &Reader) -> bool {
    wait_until(Duration::from_secs(5), || w.matched_reader_count() >= 1 && r.matched_writer_count() >= 1)
}

fn payload(i: u32, len: usize) -> Vec<u8> {
    let mut p = vec![0u8; len.max(8)];
    p[..4].copy_from_slice(&[0, 1, 0, 0]);
    p[4..8].copy_from_slice(&i.to_le_bytes());
    for (k, b) in p[8..].iter_mut().enumerate() {
        *b = (i as usize).wrapping_mul(31).wrapping_add(k) as u8;
    }
    p
}

fn take_n(r: &Reader, n: usize, timeout: Duration) -> Vec<hdds_core::Sample> {
    let end = Instant::now() + timeout;
    let mut got = Vec::new();
    while got.len() < n && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            while let Some(s) = r.take() {
                got.push(s);
            }
        }
    }
    got
}

fn segment_exists(name_part: &str) -> bool {
    std::fs::read_dir("/dev/shm")
        .map(|d| d.filter_map(|e| e.ok()).any(|e| e.file_name().to_string_lossy().contains(name_part)))
        .unwrap_or(false)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Sends `n` samples of `size` bytes reliably and checks they arrive complete and in order;
/// returns (bytes the writer's participant sent over UDP, shared-memory samples the reader read).
fn exchange(domain: u32, shm: bool, n: u32, size: usize) -> (u64, u64) {
    let a = participant(domain, shm, |_| {});
    let b = participant(domain, shm, |_| {});
    assert_eq!(a.network_stats().unwrap().shm_active, shm);
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/x", T, q).unwrap();
    let r = b.create_reader("t/x", T, q).unwrap();
    assert!(matched(&w, &r));
    // Past the burst of SPDP answers that follows discovery: what UDP carries next is the
    // periodic discovery traffic, and user data if any.
    std::thread::sleep(Duration::from_millis(1200));
    let sent_before = a.network_stats().unwrap().bytes_sent;
    let mut got = Vec::new();
    for i in 0..n {
        assert_eq!(w.write(&payload(i, size)).unwrap(), i as i64 + 1);
        // Large samples: take as we go, so that neither path holds them all.
        if size > 1 << 20 {
            got.extend(take_n(&r, 1, Duration::from_secs(20)));
        }
    }
    got.extend(take_n(&r, n as usize - got.len(), Duration::from_secs(20)));
    assert_eq!(got.len(), n as usize, "shm {shm}: every sample arrives");
    for (i, s) in got.iter().enumerate() {
        assert!(s.data[..] == payload(i as u32, size)[..], "shm {shm}: sample {i} intact");
        // Read out of the ring, or received (and, 16 MiB over UDP, reassembled): the body is
        // aligned for a message with 8-byte fields (an RMW may hand it out in place).
        assert_eq!(s.data[4..].as_ptr() as usize % hdds_core::Payload::BODY_ALIGN, 0, "shm {shm}: sample {i}'s body");
        assert_eq!(s.info.sequence_number, i as i64 + 1);
        assert_eq!(s.info.writer_guid, w.guid());
        assert!(s.info.source_timestamp <= s.info.reception_timestamp);
    }
    assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
    std::thread::sleep(Duration::from_millis(50));
    assert!(r.take().is_none(), "shm {shm}: nothing twice");
    let udp = a.network_stats().unwrap().bytes_sent - sent_before;
    (udp, b.network_stats().unwrap().shm_samples_read)
}

#[test]
fn small_samples_go_through_shared_memory_and_the_same_over_udp() {
    let (udp, read) = exchange(150, true, 1000, 64);
    assert_eq!(read, 1000, "all through shared memory");
    // Discovery only: 1000 samples of 64 B over UDP would be well above this.
    assert!(udp < 40_000, "UDP carried {udp} bytes");
    let (udp, read) = exchange(151, false, 1000, 64);
    assert_eq!(read, 0);
    assert!(udp > 64_000);
}

#[test]
fn sixteen_mib_samples_need_no_fragmentation() {
    let (udp, read) = exchange(152, true, 4, 16 << 20);
    assert_eq!(read, 4);
    assert!(udp < 1 << 20, "UDP carried {udp} bytes");
    let (udp, _) = exchange(153, false, 4, 16 << 20);
    assert!(udp > 64 << 20);
}

#[test]
fn keep_all_writer_blocks_then_times_out_while_the_reader_does_not_take() {
    let small = |c: &mut NetworkConfig| c.shared_memory.slots = 4;
    let a = participant(154, true, small);
    let b = participant(154, true, small);
    // 500 ms: long enough that the reader's thread, descheduled while the other tests of this
    // file run, still drains the 4-slot ring before a write gives up (100 ms failed 1 run in 3).
    let q = Qos { history: History::KeepAll, max_blocking_time: Duration::from_millis(500), ..Qos::default() };
    let w = a.create_writer("t/block", T, q).unwrap();
    let r = b.create_reader("t/block", T, q).unwrap();
    assert!(matched(&w, &r));
    // The reader's queue takes KEEP_ALL_MAX_SAMPLES, the ring 4 more: the next write waits.
    let limit = hdds_core::runtime::writer::KEEP_ALL_MAX_SAMPLES + 4;
    let mut written = 0;
    let mut err = None;
    for i in 0..limit as u32 + 10 {
        let t = Instant::now();
        match w.write(&payload(i, 64)) {
            Ok(_) => written += 1,
            Err(e) => {
                err = Some((e, t.elapsed()));
                break;
            }
        }
    }
    let (e, took) = err.expect("a write times out");
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(took >= Duration::from_millis(490), "blocked for max_blocking_time, not {took:?}");
    assert_eq!(written, limit);
    // Once the reader takes, the writer goes on, and nothing was lost or duplicated.
    let got = take_n(&r, limit, Duration::from_secs(5));
    let expect: Vec<i64> = (1..=limit as i64).collect();
    assert_eq!(got.iter().map(|s| s.info.sequence_number).collect::<Vec<_>>(), expect);
    w.write(&payload(99, 64)).unwrap();
    let got = take_n(&r, 1, Duration::from_secs(5));
    assert_eq!(got[0].info.sequence_number, limit as i64 + 1);
}

#[test]
fn keep_last_reader_keeps_the_newest_on_both_paths() {
    for (domain, shm) in [(155, true), (156, false)] {
        let a = participant(domain, shm, |_| {});
        let b = participant(domain, shm, |_| {});
        let w = a.create_writer("t/last", T, Qos::default()).unwrap();
        let rq = Qos { history: History::KeepLast(3), ..Qos::default() };
        let r = b.create_reader("t/last", T, rq).unwrap();
        assert!(matched(&w, &r));
        for i in 0..10 {
            w.write(&payload(i, 100)).unwrap();
        }
        assert!(w.wait_for_acknowledgments(Duration::from_secs(5)));
        assert!(wait_until(Duration::from_secs(5), || r.available() == 3));
        std::thread::sleep(Duration::from_millis(50));
        let got: Vec<i64> = std::iter::from_fn(|| r.take()).map(|s| s.info.sequence_number).collect();
        assert_eq!(got, vec![8, 9, 10], "shm {shm}");
    }
}

#[test]
fn transient_local_late_joiner_gets_the_history_on_both_paths() {
    for (domain, shm) in [(157, true), (158, false)] {
        let a = participant(domain, shm, |_| {});
        let b = participant(domain, shm, |_| {});
        let q = Qos { durability: Durability::TransientLocal, history: History::KeepLast(2), ..Qos::default() };
        let w = a.create_writer("t/tl", T, q).unwrap();
        for i in 0..5 {
            w.write(&payload(i, 32)).unwrap();
        }
        // With no same-host reader yet, nothing went into the ring.
        assert_eq!(a.network_stats().unwrap().shm_samples_written, 0);
        let r = b.create_reader("t/tl", T, q).unwrap();
        assert!(matched(&w, &r));
        let got = take_n(&r, 2, Duration::from_secs(5));
        assert_eq!(got.iter().map(|s| s.info.sequence_number).collect::<Vec<_>>(), vec![4, 5], "shm {shm}");
        // The late joiner's history was replayed into the ring for it alone.
        assert_eq!(a.network_stats().unwrap().shm_samples_written, if shm { 2 } else { 0 });
        w.write(&payload(5, 32)).unwrap();
        assert_eq!(take_n(&r, 1, Duration::from_secs(5))[0].info.sequence_number, 6);
        // A second late joiner gets the history too; the first one gets none of it again.
        let r2 = b.create_reader("t/tl", T, q).unwrap();
        let got = take_n(&r2, 2, Duration::from_secs(5));
        assert_eq!(got.iter().map(|s| s.info.sequence_number).collect::<Vec<_>>(), vec![5, 6], "shm {shm}");
        std::thread::sleep(Duration::from_millis(100));
        assert!(r.take().is_none(), "shm {shm}: no replay for a reader that had it");
    }
}

#[test]
fn best_effort_keep_last_writer_never_blocks_on_a_slow_reader() {
    let a = participant(159, true, |c| c.shared_memory.slots = 4);
    let b = participant(159, true, |_| {});
    let q = Qos { reliability: Reliability::BestEffort, history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/be", T, q).unwrap();
    let r = b.create_reader("t/be", T, q).unwrap();
    assert!(matched(&w, &r));
    let t = Instant::now();
    for i in 0..2000 {
        w.write(&payload(i, 64)).unwrap();
    }
    assert!(t.elapsed() < Duration::from_secs(5));
    // In order, no duplicates, the last one there; what was replaced is reported lost.
    let got = take_n(&r, 1, Duration::from_secs(5));
    assert!(!got.is_empty());
    std::thread::sleep(Duration::from_millis(100));
    let mut sns: Vec<i64> = got.iter().map(|s| s.info.sequence_number).collect();
    sns.extend(std::iter::from_fn(|| r.take()).map(|s| s.info.sequence_number));
    assert!(sns.windows(2).all(|p| p[0] < p[1]));
    assert_eq!(sns.last(), Some(&2000));
    let lost = b.network_stats().unwrap().shm_samples_lost;
    assert_eq!(lost + b.network_stats().unwrap().shm_samples_read, 2000);
}

#[test]
fn one_path_per_reader_with_same_process_same_host_and_udp_readers_at_once() {
    // `a` serves `local` directly, `b` (same host) through shared memory, `c` (shared memory off)
    // over UDP. Every reader gets every sample exactly once.
    let a = participant(160, true, |_| {});
    let b = participant(160, true, |_| {});
    let c = participant(160, false, |_| {});
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let w = a.create_writer("t/all", T, q).unwrap();
    let local = a.create_reader("t/all", T, q).unwrap();
    let shm = b.create_reader("t/all", T, q).unwrap();
    let udp = c.create_reader("t/all", T, q).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 3));
    for i in 0..200 {
        w.write(&payload(i, 2000)).unwrap();
    }
    for (name, r) in [("local", &local), ("shm", &shm), ("udp", &udp)] {
        let got = take_n(r, 200, Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(50));
        assert!(r.take().is_none(), "{name}: nothing twice");
        assert_eq!(got.iter().map(|s| s.info.sequence_number).collect::<Vec<_>>(), (1..=200).collect::<Vec<_>>());
        assert_eq!(r.matched_writer_count(), 1, "{name}");
    }
    assert_eq!(b.network_stats().unwrap().shm_samples_read, 200);
    assert_eq!(c.network_stats().unwrap().shm_samples_read, 0);
}

/// What a service client waits for before its first request: the reply writer serves its reader.
#[test]
fn a_reader_learns_that_the_writer_serves_it_on_both_paths() {
    for (domain, shm) in [(167, true), (169, false)] {
        let a = participant(domain, shm, |_| {});
        let b = participant(domain, shm, |_| {});
        let w = a.create_writer("t/known", T, Qos::default()).unwrap();
        let r = b.create_reader("t/known", T, Qos::default()).unwrap();
        let best_effort = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
        let rb = b.create_reader("t/known", T, best_effort).unwrap();
        assert!(wait_until(Duration::from_secs(5), || r.is_known_by_writer(w.guid())), "shm={shm}");
        assert!(wait_until(Duration::from_secs(5), || rb.is_known_by_writer(w.guid())), "shm={shm}");
        // Only once matched: the writer serves it (the directed write reaches it).
        assert!(w.has_matched_reader(r.guid()) && r.has_matched_writer(w.guid()), "shm={shm}");
        let opts = WriteOptions { directed_to: Some(r.guid()), ..Default::default() };
        w.write_with(&payload(1, 40), &opts).unwrap();
        assert_eq!(take_n(&r, 1, Duration::from_secs(5)).len(), 1, "shm={shm}");
        assert!(!r.is_known_by_writer(r.guid()), "a reader is no writer (shm={shm})");
        let gone = w.guid();
        drop(w);
        assert!(wait_until(Duration::from_secs(5), || !r.is_known_by_writer(gone)), "shm={shm}");
    }
}

#[test]
fn directed_writes_and_related_identities_cross_shared_memory() {
    let a = participant(161, true, |_| {});
    let b = participant(161, true, |_| {});
    let w = a.create_writer("t/dir", T, Qos::default()).unwrap();
    let r1 = b.create_reader("t/dir", T, Qos::default()).unwrap();
    let r2 = b.create_reader("t/dir", T, Qos::default()).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 2));
    assert!(w.has_matched_reader(r2.guid()));
    let related = SampleIdentity { writer: r1.guid(), sn: 77 };
    let opts =
        WriteOptions { directed_to: Some(r2.guid()), related_sample_identity: Some(related), ..Default::default() };
    w.write_with(&payload(1, 40), &opts).unwrap();
    w.write(&payload(2, 40)).unwrap();
    let got2 = take_n(&r2, 2, Duration::from_secs(5));
    assert_eq!(got2[0].info.related_sample_identity, Some(related));
    assert_eq!(got2.len(), 2);
    let got1 = take_n(&r1, 1, Duration::from_secs(5));
    assert_eq!(got1.iter().map(|s| s.info.sequence_number).collect::<Vec<_>>(), vec![2]);
}

#[test]
fn matched_statuses_follow_endpoints_and_segments_go_with_their_writer() {
    let a = participant(162, true, |_| {});
    let b = participant(162, true, |_| {});
    let w = a.create_writer("t/st", T, Qos::default()).unwrap();
    let r = b.create_reader("t/st", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    // The statuses change just after the counts (on the discovery thread): wait for them too.
    assert!(wait_until(Duration::from_secs(2), || w.status_changes() & PUBLICATION_MATCHED != 0));
    assert_eq!(w.status(PUBLICATION_MATCHED).unwrap().current_count, 1);
    assert_eq!(r.status(SUBSCRIPTION_MATCHED).unwrap().current_count, 1);
    assert_eq!(r.status(LIVELINESS_CHANGED).unwrap().current_count, 1, "alive count");
    let g = w.guid().to_bytes();
    let name = format!("hdds_{}_{}", hex(&g[..12]), hex(&g[12..]));
    assert!(segment_exists(&name));
    drop(w);
    assert!(!segment_exists(&name), "a deleted writer's ring is removed");
    assert!(wait_until(Duration::from_secs(5), || r.matched_writer_count() == 0));
    assert_eq!(r.status(SUBSCRIPTION_MATCHED).unwrap().current_count, 0);
    let w = a.create_writer("t/st", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    drop(r);
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 0));
    let participant_segment = format!("hdds_{}_000001c1", hex(&b.guid().to_bytes()[..12]));
    assert!(segment_exists(&participant_segment));
    drop(b);
    assert!(!segment_exists(&participant_segment), "a participant's doorbell goes with it");
}

#[test]
fn a_loaned_sample_is_written_in_place_for_same_host_readers() {
    let a = participant(163, true, |_| {});
    let b = participant(163, true, |_| {});
    let w = a.create_writer("t/loan", T, Qos::default()).unwrap();
    // No reader yet: the loan is ordinary memory, and publishing it works all the same.
    let mut loan = w.loan(16).unwrap();
    assert!(!loan.in_shared_memory());
    loan.as_mut_slice().copy_from_slice(&payload(0, 16));
    assert_eq!(loan.publish().unwrap(), 1);
    let r = b.create_reader("t/loan", T, Qos::default()).unwrap();
    let local = a.create_reader("t/loan", T, Qos::default()).unwrap();
    assert!(wait_until(Duration::from_secs(5), || w.matched_reader_count() == 2 && r.matched_writer_count() == 1));
    let mut loan = w.loan(4 << 20).unwrap();
    assert!(loan.in_shared_memory());
    loan.as_mut_slice().copy_from_slice(&payload(1, 4 << 20));
    // Several loans out at once, and writes meanwhile: each sample is numbered when published.
    let mut second = w.loan(64).unwrap();
    assert!(second.in_shared_memory());
    second.as_mut_slice().copy_from_slice(&payload(2, 64));
    assert_eq!(w.write(&payload(3, 16)).unwrap(), 2);
    assert_eq!(second.publish().unwrap(), 3);
    assert_eq!(loan.publish().unwrap(), 4);
    // Dropped unpublished: given back, nothing sent.
    drop(w.loan(100).unwrap());
    assert_eq!(w.write(&payload(5, 16)).unwrap(), 5);
    for reader in [&r, &local] {
        let got = take_n(reader, 4, Duration::from_secs(5));
        let sns: Vec<i64> = got.iter().map(|s| s.info.sequence_number).collect();
        assert_eq!(sns, [2, 3, 4, 5]);
        assert!(got[0].data[..] == payload(3, 16)[..]);
        assert!(got[1].data[..] == payload(2, 64)[..]);
        assert!(got[2].data[..] == payload(1, 4 << 20)[..]);
        assert!(got[3].data[..] == payload(5, 16)[..]);
        std::thread::sleep(Duration::from_millis(50));
        assert!(reader.take().is_none());
    }
}

#[test]
fn a_loan_published_when_every_slot_holds_an_untaken_sample_waits_like_a_write() {
    // A loan holds arena bytes, not a slot: plain writes fill every slot of the 4-slot ring (and
    // the reader's KEEP_ALL history behind it) while it is out. Its publish then waits for a slot
    // up to max_blocking_time and fails, as a write would, overwriting nothing.
    let small = |c: &mut NetworkConfig| c.shared_memory.slots = 4;
    let a = participant(168, true, small);
    let b = participant(168, true, small);
    let q = Qos { history: History::KeepAll, max_blocking_time: Duration::from_millis(300), ..Qos::default() };
    let w = a.create_writer("t/loan-full", T, q).unwrap();
    let r = b.create_reader("t/loan-full", T, q).unwrap();
    assert!(matched(&w, &r));
    let mut loan = w.loan(64).unwrap();
    assert!(loan.in_shared_memory());
    loan.as_mut_slice().copy_from_slice(&payload(7777, 64));
    let limit = hdds_core::runtime::writer::KEEP_ALL_MAX_SAMPLES + 4;
    let mut written = 0;
    for i in 0..limit as u32 + 10 {
        match w.write(&payload(i, 64)) {
            Ok(_) => written += 1,
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
                break;
            }
        }
    }
    assert_eq!(written, limit, "the reader's history and the ring hold this many");
    let t = Instant::now();
    let e = loan.publish().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(t.elapsed() >= Duration::from_millis(290), "waited for max_blocking_time, not {:?}", t.elapsed());
    // Nothing lost or overwritten; the next loan goes through once the reader has taken.
    let got = take_n(&r, limit, Duration::from_secs(5));
    assert_eq!(got.len(), limit);
    let expect: Vec<i64> = (1..=limit as i64).collect();
    assert_eq!(got.iter().map(|s| s.info.sequence_number).collect::<Vec<_>>(), expect);
    assert!(got.iter().enumerate().all(|(i, s)| s.data[..] == payload(i as u32, 64)[..]), "a sample was rewritten");
    let mut loan = w.loan(64).unwrap();
    loan.as_mut_slice().copy_from_slice(&payload(8888, 64));
    assert_eq!(loan.publish().unwrap(), limit as i64 + 1);
    let got = take_n(&r, 1, Duration::from_secs(5));
    assert!(got[0].data[..] == payload(8888, 64)[..]);
}

#[test]
fn a_wait_set_on_a_same_host_reader_wakes_for_samples_guards_and_its_deadline() {
    use hdds_core::{GuardCondition, Target, WaitEntry, WaitSet};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let a = participant(164, true, |_| {});
    let b = participant(164, true, |_| {});
    let w = a.create_writer("t/ws", T, Qos::default()).unwrap();
    let r = b.create_reader("t/ws", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    let heard = Arc::new(AtomicUsize::new(0));
    let h = Arc::clone(&heard);
    r.set_data_listener(Some(Arc::new(move |_n: usize| {
        h.fetch_add(1, Ordering::SeqCst);
    })));
    let g = GuardCondition::new();
    let mut ws = WaitSet::new();
    // Nothing happens: the wait ends at its timeout.
    let t = Instant::now();
    let mut entries = [WaitEntry::new(Target::ReaderData(&r)), WaitEntry::new(Target::Guard(&g))];
    assert!(!ws.wait(&mut entries[..], Some(Duration::from_millis(50))));
    assert!(t.elapsed() >= Duration::from_millis(45));
    // A sample from the other participant wakes it (the wait drains the ring itself).
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(30));
            w.write(&payload(1, 64)).unwrap();
        });
        let t = Instant::now();
        assert!(ws.wait(&mut entries[..], Some(Duration::from_secs(5))));
        assert!(entries[0].ready && !entries[1].ready);
        assert!(t.elapsed() < Duration::from_secs(4));
    });
    assert_eq!(r.take().map(|s| s.info.sequence_number), Some(1));
    assert!(wait_until(Duration::from_secs(2), || heard.load(Ordering::SeqCst) == 1), "the data listener ran once");
    // An event of this process (a guard condition) wakes it too, through the doorbell.
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(30));
            g.trigger();
        });
        let t = Instant::now();
        assert!(ws.wait(&mut entries[..], Some(Duration::from_secs(5))));
        assert!(entries[1].ready && !entries[0].ready);
        assert!(t.elapsed() < Duration::from_secs(4));
    });
    // With the wait over, the participant's reader thread delivers again by itself.
    w.write(&payload(2, 64)).unwrap();
    assert!(wait_until(Duration::from_secs(2), || r.available() == 1));
}
