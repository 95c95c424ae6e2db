//! Tests of reader pins (loans of ring samples): a pinned payload is never rewritten, whatever the
//! writer does; pins of a dead process are released; a pin outlives its writer.

use super::tests::{cfg, desc, fixture_for, reader_guid_in, writer_guid_in, Fixture};
use super::*;
use std::collections::VecDeque;
use std::time::Instant;

fn guid(n: u8) -> Guid {
    writer_guid_in(2, n)
}

fn reader_guid(n: u8) -> Guid {
    reader_guid_in(2, n)
}

/// A payload that says which sample it is in every byte (a torn or rewritten one shows).
fn payload(sn: i64, len: usize) -> Vec<u8> {
    (0..len).map(|i| (sn as usize).wrapping_mul(31).wrapping_add(i) as u8).collect()
}

fn whole(sn: i64, data: &[u8]) -> bool {
    data == payload(sn, data.len()).as_slice()
}

fn pinned(r: &Arc<RingView>, cur: &mut ReaderCursor, me: Guid) -> Option<(i64, PinnedSample)> {
    match r.read_next_pinned(cur, me, LOAN_WORDS, 0)? {
        (d, RingPayload::Pinned(p)) => Some((d.sn, p)),
        (_, RingPayload::Copied(_)) => panic!("a pin word was free: expected a pin"),
    }
}

fn fixture(n: u8, c: RingConfig) -> Fixture {
    fixture_for(guid(n), c)
}

/// Ring `n` sized by `c` with reader 1 matched (reliable), `samples` published as sn 1, 2, ...,
/// and the reader's cursor.
fn matched(n: u8, c: RingConfig, samples: &[&[u8]]) -> (Fixture, Guid, ReaderCursor) {
    let f = fixture(n, c);
    let me = reader_guid(1);
    f.w.add_reader(me, true).unwrap();
    for (sn, p) in (1..).zip(samples) {
        f.w.publish(&desc(sn), p, None).unwrap();
    }
    let cur = f.r.find_reader(me).unwrap();
    (f, me, cur)
}

#[test]
fn keep_last_writer_never_rewrites_a_pinned_sample_and_keeps_going_around_it() {
    let (f, me, mut cur) = matched(1, cfg(4, 16 * 1024, false), &[&payload(1, 3000)]);
    let (sn, pin) = pinned(&f.r, &mut cur, me).unwrap();
    assert_eq!(sn, 1);
    assert!(f.r.commit(&mut cur));
    // Far more samples than slots and arena: the writer must go around the pinned one.
    for sn in 2..=200 {
        f.w.publish(&desc(sn), &payload(sn, 1000 + (sn as usize * 97) % 2000), None).unwrap();
        assert!(whole(1, pin.bytes()), "the pinned sample was rewritten at sn {sn}");
    }
    // A copy reader sees the last samples whole, and counts the rest lost (skipped positions too).
    let mut got = Vec::new();
    while let Some((d, data)) = f.r.read_next(&mut cur, me) {
        assert!(whole(d.sn, &data));
        got.push(d.sn);
    }
    assert_eq!(got.last(), Some(&200));
    assert!(got.len() <= 3, "{got:?}: one slot is held by the pin");
    drop(pin);
    assert_eq!(f.r.header().pinned.load(Ordering::SeqCst), 0);
    // Unpinned: the writer frees it and uses every slot again.
    for sn in 201..=210 {
        f.w.publish(&desc(sn), &payload(sn, 100), None).unwrap();
    }
    assert_eq!(f.w.lock().live.len(), 4);
}

/// A skipped position leaves its slot with a stamp of an earlier lap, which alone would read as
/// "not published yet": a reader stopped there still finds the samples after it, also once the
/// pin that caused the skip is gone.
#[test]
fn a_reader_at_a_skipped_position_goes_past_it() {
    let (f, me, mut cur) = matched(12, cfg(4, 1 << 16, false), &[&payload(1, 64)]);
    let (sn, pin) = pinned(&f.r, &mut cur, me).unwrap();
    assert_eq!(sn, 1);
    for sn in 2..=4 {
        f.w.publish(&desc(sn), &payload(sn, 64), None).unwrap();
    }
    for want in 2..=4 {
        assert_eq!(f.r.read_next(&mut cur, me).map(|(d, _)| d.sn), Some(want));
    }
    assert!(f.r.commit(&mut cur));
    assert!(!f.r.has_unread(&cur), "nothing published at position 4 yet");
    // Position 4 goes in the pinned sample's slot: skipped; sn 5 takes position 5.
    assert_eq!(f.w.publish(&desc(5), &payload(5, 64), None).unwrap(), 5);
    drop(pin);
    assert!(f.r.has_unread(&cur), "the skip hides the sample after it");
    let (d, data) = f.r.read_next(&mut cur, me).expect("the sample after the skipped position");
    assert_eq!(d.sn, 5);
    assert!(whole(5, &data));
    assert_eq!(cur.lost, 1, "the skipped position counts as lost");
    assert!(f.r.read_next(&mut cur, me).is_none());
    assert!(!f.r.has_unread(&cur));
}

#[test]
fn keep_last_writer_drops_for_readers_hoarding_every_slot_and_never_blocks() {
    let (f, me, mut cur) = matched(8, cfg(2, 1 << 16, false), &[&payload(1, 64), &payload(2, 64)]);
    let (_, p1) = pinned(&f.r, &mut cur, me).unwrap();
    let (_, p2) = pinned(&f.r, &mut cur, me).unwrap();
    let start = Instant::now();
    f.w.publish(&desc(3), &payload(3, 64), Some(Instant::now() + Duration::from_secs(5))).unwrap();
    // A loan needs arena bytes, not a slot, until it is published: lent, then dropped when published.
    let lent = f.w.reserve(64, None).unwrap().expect("the arena has room");
    assert_eq!(f.w.publish_lent(&desc(4), lent.id, 64, None).unwrap(), Some(3), "dropped: position 3 skipped");
    assert!(start.elapsed() < Duration::from_secs(1));
    assert!(f.r.read_next(&mut cur, me).is_none());
    assert_eq!(cur.lost, 2, "both dropped samples are counted lost");
    assert!(whole(1, p1.bytes()) && whole(2, p2.bytes()));
    drop((p1, p2));
    f.w.publish(&desc(5), &payload(5, 64), None).unwrap();
    assert_eq!(f.r.read_next(&mut cur, me).map(|(d, data)| (d.sn, whole(5, &data))), Some((5, true)));
}

#[test]
fn a_loan_that_finds_no_room_skips_no_position() {
    // Two pinned samples fill the 2-slot ring and nearly all of its one-page arena.
    let (f, me, mut cur) = matched(14, cfg(2, 4096, false), &[&payload(1, 1800), &payload(2, 1800)]);
    let (_, p1) = pinned(&f.r, &mut cur, me).unwrap();
    let (_, p2) = pinned(&f.r, &mut cur, me).unwrap();
    assert!(f.w.reserve(1800, None).unwrap().is_none(), "no room around the pinned samples");
    drop((p1, p2));
    f.w.publish(&desc(3), &payload(3, 64), None).unwrap();
    assert_eq!(f.r.read_next(&mut cur, me).map(|(d, data)| (d.sn, whole(3, &data))), Some((3, true)));
    assert_eq!(cur.lost, 0, "the loan that was not lent dropped no sample");
}

#[test]
fn keep_all_writer_waits_for_a_pinned_sample_as_for_an_untaken_one() {
    let (f, me, mut cur) = matched(2, cfg(2, 1 << 16, true), &[&payload(1, 64), &payload(2, 64)]);
    let (_, p1) = pinned(&f.r, &mut cur, me).unwrap();
    let (_, p2) = pinned(&f.r, &mut cur, me).unwrap();
    assert!(f.r.commit(&mut cur), "the cursor moved past both: only the pins hold them");
    let soon = || Some(Instant::now() + Duration::from_millis(30));
    assert_eq!(f.w.publish(&desc(3), b"x", soon()).unwrap_err().kind(), ErrorKind::Timeout);
    assert!(whole(1, p1.bytes()) && whole(2, p2.bytes()));
    // Returning the loan from another thread wakes the waiting writer.
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        drop(p1);
    });
    let start = Instant::now();
    f.w.publish(&desc(3), &payload(3, 64), Some(Instant::now() + Duration::from_secs(5))).unwrap();
    assert!(start.elapsed() < Duration::from_secs(2));
    t.join().unwrap();
    assert!(whole(2, p2.bytes()));
}

#[test]
fn pins_of_a_dead_process_are_released() {
    let (f, me, mut cur) = matched(3, cfg(2, 1 << 16, true), &[b"a", b"b"]);
    let (_, p) = pinned(&f.r, &mut cur, me).unwrap();
    assert!(f.r.commit(&mut cur));
    // The pin's process dies without returning it: pid_max is at most 2^22, so this pid never runs.
    let e = f.r.entry(cur.index);
    e.pid.store(4_000_000_000, Ordering::Relaxed);
    std::mem::forget(p);
    f.w.publish(&desc(3), b"c", Some(Instant::now() + Duration::from_secs(2))).unwrap();
    assert_eq!(f.r.header().pinned.load(Ordering::SeqCst), 0);
    assert!(e.loans.iter().all(|w| w.load(Ordering::SeqCst) == 0));
}

#[test]
fn a_live_readers_pins_keep_its_entry_from_reuse_after_it_is_removed() {
    let (f, old, mut cur) = matched(4, cfg(4, 1 << 16, false), &[&payload(1, 500)]);
    let (_, p) = pinned(&f.r, &mut cur, old).unwrap();
    assert!(f.w.remove_reader(old));
    // Pins can no longer be taken by the removed reader, but the one it holds stays honoured.
    f.w.publish(&desc(2), &payload(2, 500), None).unwrap();
    assert!(f.r.read_next_pinned(&mut cur, old, LOAN_WORDS, 0).is_none());
    for i in 2..=4 {
        f.w.add_reader(reader_guid(i), true).unwrap();
    }
    // Three readers took the three other entries; the pinned one is not given out.
    assert_eq!(f.w.add_reader(reader_guid(5), true).unwrap_err().kind(), ErrorKind::OutOfResources);
    for sn in 3..=50 {
        f.w.publish(&desc(sn), &payload(sn, 500), None).unwrap();
    }
    assert!(whole(1, p.bytes()));
    drop(p);
    f.w.add_reader(reader_guid(5), true).unwrap();
}

#[test]
fn a_pin_outlives_its_writer_and_its_reader() {
    let g = guid(5);
    let w = RingWriter::create(g, cfg(4, 1 << 16, false)).unwrap();
    let r = RingView::open(g).unwrap();
    let me = reader_guid(1);
    w.add_reader(me, true).unwrap();
    w.publish(&desc(1), &payload(1, 256), None).unwrap();
    let mut cur = r.find_reader(me).unwrap();
    let (_, p) = pinned(&r, &mut cur, me).unwrap();
    w.close();
    drop(w);
    drop(r);
    // The mapping lives as long as the pin: its bytes are readable, and returning it is harmless.
    assert!(whole(1, p.bytes()));
    drop(p);
}

#[test]
fn a_reader_holds_at_most_loan_words_pins_then_copies() {
    let samples: Vec<Vec<u8>> = (1..=(LOAN_WORDS as i64 + 2)).map(|sn| payload(sn, 100)).collect();
    let (f, me, mut cur) = matched(6, cfg(32, 1 << 16, false), &samples.iter().map(Vec::as_slice).collect::<Vec<_>>());
    let mut pins = Vec::new();
    let mut copies = 0;
    while let Some((d, got)) = f.r.read_next_pinned(&mut cur, me, LOAN_WORDS, 0) {
        match got {
            RingPayload::Pinned(p) => {
                assert!(whole(d.sn, p.bytes()));
                pins.push(p);
            }
            RingPayload::Copied(c) => {
                assert!(whole(d.sn, &c));
                copies += 1;
            }
        }
    }
    assert_eq!((pins.len(), copies), (LOAN_WORDS, 2));
    assert_eq!(f.r.pin_budget(), 8, "32 slots: a reader pins 8 at most");
    drop(pins);
    let mut cur2 = f.r.find_reader(me).unwrap();
    cur2.pos = cur.pos - 3;
    let held: Vec<_> = std::iter::from_fn(|| f.r.read_next_pinned(&mut cur2, me, 2, 0)).collect();
    let got: Vec<bool> = held.iter().map(|(_, p)| matches!(p, RingPayload::Pinned(_))).collect();
    assert_eq!(got, vec![true, true, false], "a smaller budget pins fewer: the third is copied");
}

#[test]
fn a_reader_out_of_pin_words_leaves_the_pin_count_alone_and_read_next_never_pins() {
    let samples: Vec<Vec<u8>> = (1..=4).map(|sn| payload(sn, 64)).collect();
    let (f, me, mut cur) = matched(9, cfg(8, 1 << 16, false), &samples.iter().map(Vec::as_slice).collect::<Vec<_>>());
    let (_, p1) = pinned(&f.r, &mut cur, me).unwrap();
    assert_eq!(f.r.header().pinned.load(Ordering::SeqCst), 1);
    // One word allowed and taken: the next sample is copied, and the count does not move.
    match f.r.read_next_pinned(&mut cur, me, 1, 0) {
        Some((d, RingPayload::Copied(c))) => assert!(whole(d.sn, &c) && d.sn == 2),
        _ => panic!("expected a copy"),
    }
    assert_eq!(f.r.header().pinned.load(Ordering::SeqCst), 1);
    // read_next copies and holds no pin.
    let (d, data) = f.r.read_next(&mut cur, me).unwrap();
    assert!(d.sn == 3 && whole(3, &data));
    assert_eq!(f.r.header().pinned.load(Ordering::SeqCst), 1);
    drop(p1);
    assert_eq!(f.r.header().pinned.load(Ordering::SeqCst), 0);
}

#[test]
fn concurrent_keep_last_writer_and_a_reader_holding_loans_see_no_torn_payload() {
    let f = fixture(7, cfg(4, 16 * 1024, false));
    let me = reader_guid(1);
    f.w.add_reader(me, false).unwrap();
    let r = Arc::clone(&f.r);
    const N: i64 = 20_000;
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer_done = Arc::clone(&done);
    let t = std::thread::spawn(move || {
        let mut cur = r.find_reader(me).unwrap();
        let (mut got, mut last) = (0u64, 0i64);
        let mut held: VecDeque<(i64, PinnedSample)> = VecDeque::new();
        let end = Instant::now() + Duration::from_secs(20);
        // The last samples may be dropped for this reader (it may hold every slot): stop once the
        // writer is done and nothing more comes.
        while last < N && Instant::now() < end {
            let finished = writer_done.load(Ordering::SeqCst);
            let before = got;
            while let Some((d, p)) = r.read_next_pinned(&mut cur, me, LOAN_WORDS, 0) {
                assert!(d.sn > last, "in order");
                last = d.sn;
                got += 1;
                match p {
                    RingPayload::Pinned(p) => held.push_back((d.sn, p)),
                    RingPayload::Copied(c) => assert!(whole(d.sn, &c), "a torn copy"),
                }
                // Hold up to 3 loans for a while, checking them as the writer goes on.
                while held.len() > 3 {
                    let (sn, p) = held.pop_front().unwrap();
                    assert!(whole(sn, p.bytes()), "a loaned payload was rewritten");
                }
            }
            for (sn, p) in &held {
                assert!(whole(*sn, p.bytes()), "a loaned payload was rewritten");
            }
            r.commit(&mut cur);
            if finished && got == before {
                break;
            }
        }
        (got, cur.lost, last)
    });
    for sn in 1..=N {
        f.w.publish(&desc(sn), &payload(sn, 1000 + (sn as usize * 131) % 3000), None).unwrap();
    }
    done.store(true, Ordering::SeqCst);
    let (got, lost, last) = t.join().unwrap();
    assert!(last > 0 && last <= N);
    assert!(got + lost >= N as u64, "{got} + {lost}: skipped positions count as lost too");
    assert_eq!(f.r.header().pinned.load(Ordering::SeqCst), 0, "every loan was returned");
}

#[test]
fn a_lent_payloads_body_starts_a_cache_line_for_the_writer_and_a_pinning_reader() {
    let (f, me, mut cur) = matched(13, cfg(8, 1 << 16, false), &[b"copied"]);
    // A copied payload starts its allocation; a lent one starts LENT_LEAD bytes into it, so the
    // byte after its 4-byte encapsulation header starts a line (the body read in place as a struct).
    for len in [5, 64, 1000, 3000] {
        let lent = f.w.reserve(len, None).unwrap().unwrap();
        assert_eq!((lent.ptr as usize + 4) % ALLOC_ALIGN, 0, "lent {len} bytes at {:p}", lent.ptr);
        // SAFETY (test): the ring lent these `len` bytes to us.
        unsafe { std::ptr::copy_nonoverlapping(payload(len as i64, len).as_ptr(), lent.ptr, len) };
        f.w.publish_lent(&desc(len as i64), lent.id, len, None).unwrap().unwrap();
    }
    let (sn, first) = pinned(&f.r, &mut cur, me).unwrap();
    assert_eq!((sn, first.bytes()), (1, &b"copied"[..]));
    assert_eq!(first.bytes().as_ptr() as usize % ALLOC_ALIGN, 0);
    drop(first);
    for len in [5, 64, 1000, 3000] {
        let (sn, pin) = pinned(&f.r, &mut cur, me).unwrap();
        assert_eq!(sn, len as i64);
        assert!(pin.bytes().len() == len && whole(sn, pin.bytes()), "lent sample {len} read back whole");
        assert_eq!((pin.bytes().as_ptr() as usize + 4) % ALLOC_ALIGN, 0, "read in place at {:p}", pin.bytes().as_ptr());
    }
}
