//! Tests of the ring: wrap-around, history behaviours, concurrent use, hostile memory.

use super::*;
use crate::wire::EntityId;
use std::time::Instant;

/// A writer's GUID in one test module's `family` (the modules' segment names stay apart when their
/// tests run at once).
pub(super) fn writer_guid_in(family: u8, n: u8) -> Guid {
    Guid::new(super::super::test_prefix(), EntityId([0, family, n, 0x03]))
}

/// A reader's GUID in one test module's `family`.
pub(super) fn reader_guid_in(family: u8, n: u8) -> Guid {
    Guid::new(super::super::test_prefix(), EntityId([0, family + 1, n, 0x04]))
}

fn guid(n: u8) -> Guid {
    writer_guid_in(0, n)
}

fn reader_guid(n: u8) -> Guid {
    reader_guid_in(0, n)
}

pub(super) fn cfg(slots: usize, arena: usize, blocking: bool) -> RingConfig {
    RingConfig { slots, max_readers: 4, arena_bytes: arena, blocking }
}

pub(super) fn desc(sn: i64) -> SampleDesc {
    SampleDesc { sn, source_timestamp: sn * 10, ..SampleDesc::default() }
}

/// A writer's ring and a view of it; the ring is closed on drop.
pub(super) struct Fixture {
    pub(super) w: RingWriter,
    pub(super) r: Arc<RingView>,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.w.close();
    }
}

pub(super) fn fixture_for(g: Guid, c: RingConfig) -> Fixture {
    let w = RingWriter::create(g, c).unwrap();
    let r = RingView::open(g).unwrap();
    Fixture { w, r }
}

fn fixture(n: u8, c: RingConfig) -> Fixture {
    fixture_for(guid(n), c)
}

fn drain(r: &RingView, cur: &mut ReaderCursor, me: Guid) -> Vec<(i64, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some((d, data)) = r.read_next(cur, me) {
        out.push((d.sn, data.to_vec()));
    }
    assert!(r.commit(cur));
    out
}

#[test]
fn samples_wrap_around_slots_and_arena_in_order() {
    let f = fixture(10, cfg(4, 8192, true));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    let mut sn = 0;
    // Many more samples than slots, of sizes that wrap the arena at odd places.
    for round in 0..50 {
        let mut expect = Vec::new();
        for k in 0..3 {
            sn += 1;
            let payload = vec![(sn % 251) as u8; 100 + (round * 37 + k * 500) % 2500];
            f.w.publish(&desc(sn), &payload, None).unwrap();
            expect.push((sn, payload));
        }
        assert_eq!(drain(&f.r, &mut cur, me), expect);
        assert_eq!(cur.lost, 0);
    }
    assert!(f.w.all_read());
}

#[test]
fn keep_all_blocks_until_the_deadline_then_times_out() {
    let f = fixture(11, cfg(4, 1 << 16, true));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    for sn in 1..=4 {
        f.w.publish(&desc(sn), b"x", None).unwrap();
    }
    let t = Instant::now();
    let e = f.w.publish(&desc(5), b"x", Some(Instant::now() + Duration::from_millis(50))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert!(t.elapsed() >= Duration::from_millis(45), "{:?}", t.elapsed());
    // Nothing was lost or replaced: the reader gets all four, then the writer goes on.
    let mut cur = f.r.find_reader(me).unwrap();
    assert_eq!(drain(&f.r, &mut cur, me).len(), 4);
    f.w.publish(&desc(5), b"x", Some(Instant::now() + Duration::from_millis(50))).unwrap();
    // A best-effort reader never holds a blocking writer back.
    let be = reader_guid(2);
    f.w.add_reader(be, false).unwrap();
    for sn in 6..=20 {
        f.w.publish(&desc(sn), b"y", Some(Instant::now() + Duration::from_millis(50))).unwrap();
        drain(&f.r, &mut cur, me);
    }
    let mut bcur = f.r.find_reader(be).unwrap();
    let got = drain(&f.r, &mut bcur, be);
    assert_eq!(got.first().map(|g| g.0), Some(17), "the last 4 of 6..=20 are left");
    assert_eq!(bcur.lost, 11);
}

#[test]
fn a_blocked_writer_goes_on_as_soon_as_the_reader_takes() {
    let f = fixture(12, cfg(2, 1 << 16, true));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    f.w.publish(&desc(1), b"a", None).unwrap();
    f.w.publish(&desc(2), b"b", None).unwrap();
    let r = Arc::clone(&f.r);
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        let mut cur = r.find_reader(me).unwrap();
        let first = r.read_next(&mut cur, me).map(|s| s.0.sn);
        assert!(r.commit(&mut cur));
        first
    });
    let start = Instant::now();
    f.w.publish(&desc(3), b"c", Some(Instant::now() + Duration::from_secs(5))).unwrap();
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(t.join().unwrap(), Some(1));
}

/// A blocking ring holds as many unread samples as it has slots even after its first sample was
/// read and freed: the next ones go after the newest, in pages already committed, instead of back
/// at the start, where the gap held one sample and made the ring full with two (shm_paths'
/// KEEP_ALL test failed 1 run in 7 on it).
#[test]
fn a_freed_first_sample_leaves_the_ring_all_its_slots() {
    let f = fixture(25, cfg(4, 1 << 16, true));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    let soon = || Some(Instant::now() + Duration::from_millis(50));
    // Sample 1 at the arena's start, 2 after it; 1 is read, and freed as 3 comes.
    f.w.publish(&desc(1), &[1; 64], soon()).unwrap();
    f.w.publish(&desc(2), &[2; 64], soon()).unwrap();
    assert_eq!(f.r.read_next(&mut cur, me).map(|g| g.0.sn), Some(1));
    assert!(f.r.commit(&mut cur));
    for sn in 3..=5 {
        f.w.publish(&desc(sn), &[sn as u8; 64], soon()).unwrap_or_else(|e| panic!("sample {sn}: {e}"));
    }
    assert_eq!(f.w.publish(&desc(6), &[6; 64], soon()).unwrap_err().kind(), ErrorKind::Timeout);
    assert_eq!(drain(&f.r, &mut cur, me).iter().map(|g| g.0).collect::<Vec<_>>(), vec![2, 3, 4, 5]);
}

#[test]
fn keep_last_replaces_the_oldest_unread_samples() {
    let f = fixture(13, cfg(4, 1 << 16, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    for sn in 1..=10 {
        f.w.publish(&desc(sn), &[sn as u8; 10], Some(Instant::now())).unwrap();
    }
    let mut cur = f.r.find_reader(me).unwrap();
    let got = drain(&f.r, &mut cur, me);
    assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![7, 8, 9, 10]);
    assert_eq!(got[0].1, vec![7u8; 10]);
    assert_eq!(cur.lost, 6);
}

#[test]
fn a_big_sample_evicts_as_many_small_ones_as_it_needs() {
    let f = fixture(14, cfg(8, 64 * 1024, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    for sn in 1..=6 {
        f.w.publish(&desc(sn), &[1u8; 10_000], None).unwrap();
    }
    let big = vec![7u8; 60 * 1024];
    f.w.publish(&desc(7), &big, None).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    let got = drain(&f.r, &mut cur, me);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, big);
    let e = f.w.publish(&desc(8), &vec![0u8; 65 * 1024], None).unwrap_err();
    assert!(e.message().contains("arena_bytes"), "{e}");
}

#[test]
fn the_arena_is_reused_from_its_start() {
    // A large virtual arena: a writer whose reader keeps up commits only what one sample needs.
    let f = fixture(15, cfg(16, 256 << 20, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    for sn in 1..=200 {
        f.w.publish(&desc(sn), &[3u8; 3000], None).unwrap();
        assert_eq!(drain(&f.r, &mut cur, me).len(), 1);
    }
    assert_eq!(f.w.committed(), COMMIT_STEP);
}

/// The writer frees what its readers read once per batch, not per publish (RingWriter::room),
/// and a polling reader sees each next sample by its slot alone.
#[test]
fn read_samples_are_freed_in_batches_and_the_next_slot_says_published() {
    let f = fixture(18, cfg(64, 1 << 20, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    let oldest = || f.r.header().oldest.load(Ordering::Relaxed);
    for sn in 1..=15 {
        assert!(!f.r.next_published(&cur));
        f.w.publish(&desc(sn), &[1u8; 100], None).unwrap();
        assert!(f.r.next_published(&cur));
        assert_eq!(drain(&f.r, &mut cur, me).len(), 1);
    }
    // Published once (sn 1, arena pages committed then), then 14 without a look at the cursor.
    assert_eq!(oldest(), 0, "nothing freed below a quarter of the slots live");
    for sn in 16..=17 {
        f.w.publish(&desc(sn), &[1u8; 100], None).unwrap();
    }
    // sn 17 found 16 live (positions 0-15): the 15 read ones were freed, sn 16 (position 15) not.
    assert_eq!(oldest(), 15, "what was read is freed once 16 are live");
    assert_eq!(drain(&f.r, &mut cur, me).iter().map(|g| g.0).collect::<Vec<_>>(), vec![16, 17]);
    assert_eq!(cur.lost, 0);
}

#[test]
fn directed_samples_reach_their_reader_only() {
    let f = fixture(16, cfg(8, 1 << 16, false));
    let (a, b) = (reader_guid(1), reader_guid(2));
    f.w.add_reader(a, true).unwrap();
    f.w.add_reader(b, true).unwrap();
    f.w.publish(&desc(1), b"all", None).unwrap();
    f.w.publish(&SampleDesc { directed_to: Some(b), ..desc(2) }, b"b only", None).unwrap();
    f.w.publish(&desc(3), b"all", None).unwrap();
    let mut ca = f.r.find_reader(a).unwrap();
    let mut cb = f.r.find_reader(b).unwrap();
    assert_eq!(drain(&f.r, &mut ca, a).iter().map(|g| g.0).collect::<Vec<_>>(), vec![1, 3]);
    assert_eq!(drain(&f.r, &mut cb, b).iter().map(|g| g.0).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(ca.lost + cb.lost, 0);
}

#[test]
fn metadata_travels_with_the_payload() {
    let f = fixture(17, cfg(4, 1 << 16, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    let d = SampleDesc {
        sn: 42,
        source_timestamp: -5,
        related: Some(SampleIdentity { writer: guid(99), sn: 7 }),
        directed_to: Some(me),
        key_hash: Some([9; 16]),
        status_info: 3,
    };
    f.w.publish(&d, b"", None).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    let (got, data) = f.r.read_next(&mut cur, me).unwrap();
    assert_eq!(got, d);
    assert!(data.is_empty());
}

#[test]
fn a_removed_reader_is_told_and_its_entry_reused() {
    let f = fixture(19, RingConfig { max_readers: 1, ..cfg(4, 1 << 16, true) });
    let (a, b) = (reader_guid(1), reader_guid(2));
    f.w.add_reader(a, true).unwrap();
    assert_eq!(f.w.add_reader(b, true).unwrap_err().kind(), ErrorKind::OutOfResources);
    let mut ca = f.r.find_reader(a).unwrap();
    f.w.publish(&desc(1), b"1", None).unwrap();
    assert!(f.w.remove_reader(a));
    f.w.add_reader(b, true).unwrap();
    assert!(f.r.read_next(&mut ca, a).is_none(), "a removed reader reads nothing more");
    assert!(!f.r.commit(&mut ca), "the entry now belongs to b");
    assert!(f.r.find_reader(a).is_none());
    assert!(f.r.find_reader(b).is_some());
}

/// What every reader has read is freed without marking its slot (no pin held), so only its
/// entry's generation tells a reader removed meanwhile that the bytes it copied were reused.
#[test]
fn a_reader_removed_while_it_copies_throws_the_copy_away() {
    let f = fixture(24, cfg(64, 8192, false));
    let (a, b) = (reader_guid(1), reader_guid(2));
    f.w.add_reader(a, true).unwrap();
    f.w.add_reader(b, true).unwrap();
    let mut cb = f.r.find_reader(b).unwrap();
    f.w.publish(&desc(1), &[1u8; 4000], None).unwrap();
    assert_eq!(drain(&f.r, &mut cb, b).len(), 1);
    let mut ca = f.r.find_reader(a).unwrap();
    let mut done = false;
    let got = f.r.read_next_racing(&mut ca, a, 0, 0, || {
        if !std::mem::replace(&mut done, true) {
            // a goes; b reads on, and sample 3 reuses sample 1's bytes (the arena holds two).
            assert!(f.w.remove_reader(a));
            f.w.publish(&desc(2), &[2u8; 4000], None).unwrap();
            assert_eq!(drain(&f.r, &mut cb, b).len(), 1);
            f.w.publish(&desc(3), &[3u8; 4000], None).unwrap();
        }
    });
    assert_eq!(f.r.slot(0).stamp.load(Ordering::Relaxed), 2, "sample 1's slot was left as it was");
    assert!(got.is_none(), "the removed reader handed out sample {:?}", got.map(|g| g.0.sn));
    assert!(!f.r.commit(&mut ca));
}

#[test]
fn garbage_in_the_shared_memory_is_never_trusted() {
    let f = fixture(20, cfg(4, 1 << 16, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    f.w.publish(&desc(1), b"ok", None).unwrap();
    f.w.publish(&desc(2), b"bad", None).unwrap();
    // Another process scribbles an impossible length into the second descriptor.
    f.r.slot(1).len.store(u64::MAX - 3, Ordering::Relaxed);
    let mut cur = f.r.find_reader(me).unwrap();
    let got = drain(&f.r, &mut cur, me);
    assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![1]);
    assert_eq!(cur.lost, 1);
    // And a header that does not describe the file is refused at attach time.
    f.r.header().slots.store(1 << 40, Ordering::Relaxed);
    assert!(RingView::open(guid(20)).is_err());
}

#[test]
fn a_sample_replaced_while_it_is_copied_is_thrown_away() {
    let f = fixture(23, cfg(2, 8192, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    f.w.publish(&desc(1), &[1u8; 4000], None).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    // While the reader copies sample 1, the writer replaces it (its bytes are reused).
    let mut sn = 1;
    let got = f.r.read_next_racing(&mut cur, me, 0, 0, || {
        if sn == 1 {
            for _ in 0..2 {
                sn += 1;
                f.w.publish(&desc(sn), &[sn as u8; 4000], None).unwrap();
            }
        }
    });
    assert_eq!(got.map(|g| g.0.sn), Some(2), "sample 1 is dropped, not handed out torn");
    assert_eq!(cur.lost, 1);
}

#[test]
fn a_large_sample_is_copied_out_byte_for_byte() {
    let f = fixture(40, cfg(4, 4 << 20, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    // Odd lengths and a pattern that differs at every offset: a copy that skipped, repeated or
    // shifted bytes would not compare equal.
    let samples: Vec<Vec<u8>> =
        [1usize, 63, 65, (1 << 20) + 7].iter().map(|&n| (0..n).map(|i| (i * 31 + i / 251) as u8).collect()).collect();
    for (i, s) in samples.iter().enumerate() {
        f.w.publish(&desc(i as i64 + 1), s, None).unwrap();
    }
    let mut cur = f.r.find_reader(me).unwrap();
    let got = drain(&f.r, &mut cur, me);
    assert_eq!(got.len(), samples.len());
    for ((sn, data), want) in got.iter().zip(&samples) {
        assert!(data == want, "sample {sn}: {} bytes back for {}", data.len(), want.len());
    }
    assert_eq!(cur.lost, 0);
}

#[test]
fn concurrent_writer_and_reader_lose_nothing_with_keep_all() {
    let f = fixture(21, cfg(8, 1 << 16, true));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    let r = Arc::clone(&f.r);
    const N: i64 = 20_000;
    let t = std::thread::spawn(move || {
        let mut cur = r.find_reader(me).unwrap();
        let mut next = 1;
        let end = Instant::now() + Duration::from_secs(20);
        while next <= N && Instant::now() < end {
            while let Some((d, data)) = r.read_next(&mut cur, me) {
                assert_eq!(d.sn, next);
                let n = (d.sn % 1000) as usize + 1;
                assert_eq!(data.len(), n);
                assert!(data.iter().all(|b| *b == d.sn as u8));
                next += 1;
            }
            assert!(r.commit(&mut cur));
            std::hint::spin_loop();
        }
        (next, cur.lost)
    });
    for sn in 1..=N {
        let payload = vec![sn as u8; (sn % 1000) as usize + 1];
        f.w.publish(&desc(sn), &payload, Some(Instant::now() + Duration::from_secs(10))).unwrap();
    }
    assert_eq!(t.join().unwrap(), (N + 1, 0));
}

#[test]
fn concurrent_keep_last_readers_see_whole_samples_or_count_them_lost() {
    let f = fixture(22, cfg(4, 16 * 1024, false));
    let me = reader_guid(1);
    f.w.add_reader(me, false).unwrap();
    let r = Arc::clone(&f.r);
    const N: i64 = 20_000;
    let t = std::thread::spawn(move || {
        let mut cur = r.find_reader(me).unwrap();
        let (mut got, mut last) = (0u64, 0i64);
        let end = Instant::now() + Duration::from_secs(20);
        while last < N && Instant::now() < end {
            while let Some((d, data)) = r.read_next(&mut cur, me) {
                assert!(d.sn > last, "in order");
                assert!(data.iter().all(|b| *b == d.sn as u8), "a torn copy was delivered");
                last = d.sn;
                got += 1;
            }
            r.commit(&mut cur);
        }
        (got, cur.lost, last)
    });
    for sn in 1..=N {
        f.w.publish(&desc(sn), &vec![sn as u8; 3000], None).unwrap();
    }
    let (got, lost, last) = t.join().unwrap();
    assert_eq!(last, N);
    assert_eq!(got + lost, N as u64);
}

#[test]
fn a_lent_slot_is_filled_in_place_then_published_or_given_back() {
    let f = fixture(24, cfg(4, 1 << 16, false));
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    f.w.publish(&desc(1), b"before", None).unwrap();
    let lent = f.w.reserve(5, None).unwrap().unwrap();
    // SAFETY (test): the ring lent these 5 bytes to us.
    unsafe { std::ptr::copy_nonoverlapping(b"hello".as_ptr(), lent.ptr, 5) };
    // Readers see nothing of the loan until it is published.
    let mut cur = f.r.find_reader(me).unwrap();
    assert_eq!(drain(&f.r, &mut cur, me), vec![(1, b"before".to_vec())]);
    assert_eq!(f.w.publish_lent(&desc(2), lent.id, 5, None).unwrap(), Some(1));
    assert_eq!(f.w.publish_lent(&desc(2), lent.id, 5, None).unwrap(), None, "published once only");
    f.w.publish(&desc(3), b"after", None).unwrap();
    assert_eq!(drain(&f.r, &mut cur, me), vec![(2, b"hello".to_vec()), (3, b"after".to_vec())]);
    // Given back unpublished: the bytes are free, nothing is published.
    let back = f.w.reserve(100, None).unwrap().unwrap();
    f.w.give_back(back.id);
    f.w.give_back(back.id);
    f.w.publish(&desc(4), b"next", None).unwrap();
    assert_eq!(drain(&f.r, &mut cur, me), vec![(4, b"next".to_vec())]);
    assert_eq!(f.w.lock().allocs.len(), 1, "only the unread sample's bytes are held");
}

#[test]
fn loans_and_writes_interleave_and_each_sample_keeps_its_bytes() {
    // Small arena (4 KiB, 8 slots): the loop goes around it many times, with loans published out
    // of the order they were made in, samples written while loans are out, and loans given back.
    let f = fixture(41, cfg(8, 4096, false));
    let me = reader_guid(2);
    f.w.add_reader(me, true).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    let fill = |lent: &Lent, b: u8, len: usize| {
        // SAFETY (test): the ring lent at least `len` bytes to us.
        unsafe { std::ptr::write_bytes(lent.ptr, b, len) };
    };
    let mut sn = 0i64;
    let mut expect = Vec::new();
    for round in 0..200usize {
        let (la, lb) = (100 + round % 300, 40 + round % 7);
        let a = f.w.reserve(la, None).unwrap().unwrap();
        let b = f.w.reserve(lb, None).unwrap().unwrap();
        fill(&a, 0xA0 | (round % 16) as u8, la);
        fill(&b, 0xB0 | (round % 16) as u8, lb);
        sn += 1;
        let plain = vec![(round % 251) as u8; 200 + round % 500];
        f.w.publish(&desc(sn), &plain, None).unwrap();
        expect.push((sn, plain));
        // The later loan first, then the earlier one, or the earlier one given back.
        sn += 1;
        f.w.publish_lent(&desc(sn), b.id, lb, None).unwrap().unwrap();
        expect.push((sn, vec![0xB0 | (round % 16) as u8; lb]));
        if round % 3 == 0 {
            f.w.give_back(a.id);
        } else {
            sn += 1;
            f.w.publish_lent(&desc(sn), a.id, la, None).unwrap().unwrap();
            expect.push((sn, vec![0xA0 | (round % 16) as u8; la]));
        }
        // Read every round, so the writer can free and reuse the bytes.
        let got = drain(&f.r, &mut cur, me);
        assert_eq!(got, std::mem::take(&mut expect), "round {round}");
    }
    assert_eq!(cur.lost, 0);
}

#[test]
fn a_loan_held_long_holds_the_arena_beyond_it_then_frees_it() {
    // 8 KiB arena: one 2 KiB loan stays out while 1 KiB samples go around it (KEEP_LAST: the
    // oldest are replaced); the loan's bytes are never written over.
    let f = fixture(42, cfg(8, 8192, false));
    let me = reader_guid(3);
    f.w.add_reader(me, false).unwrap();
    let held = f.w.reserve(2048, None).unwrap().unwrap();
    // SAFETY (test): the ring lent 2048 bytes to us.
    unsafe { std::ptr::write_bytes(held.ptr, 0x5A, 2048) };
    for sn in 1..=50 {
        f.w.publish(&desc(sn), &[sn as u8; 1024], None).unwrap();
    }
    // SAFETY (test): still lent to us.
    let bytes = unsafe { std::slice::from_raw_parts(held.ptr, 2048) };
    assert!(bytes.iter().all(|&b| b == 0x5A), "a sample was written over the loan");
    let mut cur = f.r.find_reader(me).unwrap();
    let got = drain(&f.r, &mut cur, me);
    assert_eq!(got.last().map(|g| g.0), Some(50), "the newest sample is there");
    assert!(got.iter().all(|(sn, d)| d == &vec![*sn as u8; 1024]));
    assert_eq!(f.w.publish_lent(&desc(51), held.id, 2048, None).unwrap(), Some(50));
    let got = drain(&f.r, &mut cur, me);
    assert_eq!(got, vec![(51, vec![0x5A; 2048])]);
}

#[test]
fn loans_filling_the_arena_drop_a_keep_last_write_and_time_out_a_keep_all_one() {
    for blocking in [false, true] {
        let f = fixture(43 + blocking as u8, cfg(8, 4096, blocking));
        let me = reader_guid(4);
        f.w.add_reader(me, true).unwrap();
        let a = f.w.reserve(2000, None).unwrap().unwrap();
        let b = f.w.reserve(1900, None).unwrap().unwrap();
        if blocking {
            let deadline = Some(Instant::now() + std::time::Duration::from_millis(20));
            assert_eq!(f.w.publish(&desc(1), &[1; 500], deadline).unwrap_err().kind(), ErrorKind::Timeout);
        } else {
            // Dropped for the ring's readers, as a KEEP_LAST writer drops what pins hold up.
            f.w.publish(&desc(1), &[1; 500], None).unwrap();
        }
        f.w.give_back(a.id);
        f.w.give_back(b.id);
        f.w.publish(&desc(2), &[2; 500], None).unwrap();
        let mut cur = f.r.find_reader(me).unwrap();
        assert_eq!(drain(&f.r, &mut cur, me), vec![(2, vec![2; 500])]);
    }
}

#[test]
fn a_loan_published_when_every_slot_is_live_waits_for_a_slot_or_replaces_the_oldest() {
    // Loans hold arena bytes, not slots: plain writes may fill every slot while one is out.
    for blocking in [true, false] {
        let f = fixture(45 + blocking as u8, cfg(4, 1 << 16, blocking));
        let me = reader_guid(5);
        f.w.add_reader(me, true).unwrap();
        let mut cur = f.r.find_reader(me).unwrap();
        let l = f.w.reserve(8, None).unwrap().unwrap();
        // SAFETY: the ring lent these 8 bytes to this test alone.
        unsafe { std::ptr::write_bytes(l.ptr, 0xAA, 8) };
        for sn in 1..=4 {
            f.w.publish(&desc(sn), &[sn as u8; 16], None).unwrap();
        }
        if blocking {
            // A reliable KEEP_ALL reader has read none: the loan's publish times out, loses
            // nothing, and goes through once the reader has taken.
            let deadline = Some(Instant::now() + std::time::Duration::from_millis(20));
            let e = f.w.publish_lent(&desc(5), l.id, 8, deadline).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Timeout);
            let got = drain(&f.r, &mut cur, me);
            assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
            assert_eq!(f.w.publish_lent(&desc(5), l.id, 8, None).unwrap(), Some(4));
            assert_eq!(drain(&f.r, &mut cur, me), vec![(5, vec![0xAA; 8])]);
            assert_eq!(cur.lost, 0);
        } else {
            // KEEP_LAST: the oldest sample is replaced, and the loan's sample and the next write
            // reach the reader.
            assert_eq!(f.w.publish_lent(&desc(5), l.id, 8, None).unwrap(), Some(4));
            f.w.publish(&desc(6), &[6; 16], None).unwrap();
            let got = drain(&f.r, &mut cur, me);
            let sns: Vec<i64> = got.iter().map(|g| g.0).collect();
            assert_eq!(sns.last(), Some(&6), "{sns:?}");
            assert!(got.contains(&(5, vec![0xAA; 8])), "{sns:?}");
        }
    }
}

#[test]
fn an_id_kept_after_its_loan_was_published_names_no_later_loan() {
    let f = fixture(47, cfg(4, 1 << 16, false));
    let me = reader_guid(6);
    f.w.add_reader(me, true).unwrap();
    let mut cur = f.r.find_reader(me).unwrap();
    let a = f.w.reserve(8, None).unwrap().unwrap();
    assert_eq!(f.w.publish_lent(&desc(1), a.id, 8, None).unwrap(), Some(0));
    assert_eq!(drain(&f.r, &mut cur, me).len(), 1);
    // Read by all and reclaimed: the next loan lies where the first one did.
    let b = f.w.reserve(8, None).unwrap().unwrap();
    assert_eq!(b.ptr, a.ptr);
    f.w.give_back(a.id);
    assert_eq!(f.w.publish_lent(&desc(2), a.id, 8, None).unwrap(), None);
    // SAFETY: the ring lent these 8 bytes to this test alone.
    unsafe { std::ptr::write_bytes(b.ptr, 0xBB, 8) };
    f.w.publish(&desc(3), &[0x33; 8], None).unwrap();
    assert_eq!(f.w.publish_lent(&desc(4), b.id, 8, None).unwrap(), Some(2), "loan b is still out");
    assert_eq!(drain(&f.r, &mut cur, me), vec![(3, vec![0x33; 8]), (4, vec![0xBB; 8])]);
}

#[test]
fn a_loan_or_sample_larger_than_any_arena_is_refused_not_wrapped_around() {
    let f = fixture(48, cfg(4, 1 << 16, false));
    f.w.add_reader(reader_guid(7), true).unwrap();
    for len in [usize::MAX, usize::MAX - 100, usize::MAX - LENT_LEAD - 1, (1 << 16) + 1] {
        let e = f.w.reserve(len, None).err().unwrap_or_else(|| panic!("a loan of {len} bytes was lent"));
        assert!(matches!(e.kind(), ErrorKind::OutOfResources | ErrorKind::BadArgument), "{len}: {e}");
        assert!(f.w.wait_room(len, None).is_err(), "{len}");
    }
    let bad = RingConfig { slots: 4, max_readers: 4, arena_bytes: usize::MAX - 10, blocking: false };
    assert!(RingWriter::create(guid(49), bad).is_err());
}
