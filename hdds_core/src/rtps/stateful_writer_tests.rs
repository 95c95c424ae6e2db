//! Unit tests of the reliable writer (a separate file to keep stateful_writer.rs short).

use super::*;
use crate::rtps::messages::COUNT_RESTART_AFTER;
use crate::wire::{FragmentNumberSet, SequenceNumber, SequenceNumberSet};

fn g(b: u8) -> Guid {
    Guid::from_bytes(&[b; 16])
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn cfg(history: HistoryKind, durability: Durability) -> WriterConfig {
    WriterConfig { history, durability, ..WriterConfig::new(g(0xaa)) }
}

fn reader(b: u8, reliable: bool, durability: Durability) -> MatchedReader {
    MatchedReader { guid: g(b), reliable, durability }
}

fn acknack(base: i64, missing: &[i64], count: i32) -> AckNack {
    let mut state = SequenceNumberSet::new(SequenceNumber(base));
    for &m in missing {
        state.insert(SequenceNumber(m));
    }
    AckNack { state, count, final_flag: missing.is_empty() }
}

fn write_n(w: &mut StatefulWriter, now: Instant, n: usize, len: usize, out: &mut Vec<WriterAction>) {
    for i in 0..n {
        w.write(now, Payload::from(vec![i as u8; len]), SampleMeta::default(), out).unwrap();
    }
}

/// (destination, SN, resend) of every DATA / DATA_FRAG, in order.
fn data(out: &[WriterAction]) -> Vec<(Dest, i64, bool)> {
    out.iter()
        .filter_map(|a| match a {
            WriterAction::Data { to, data, resend } => Some((*to, data.sn, *resend)),
            WriterAction::DataFrag { to, frag, resend } => Some((*to, frag.header.sn, *resend)),
            _ => None,
        })
        .collect()
}

fn heartbeats(out: &[WriterAction]) -> Vec<(Dest, Heartbeat)> {
    out.iter()
        .filter_map(|a| match a {
            WriterAction::Heartbeat { to, hb } => Some((*to, *hb)),
            _ => None,
        })
        .collect()
}

fn gaps(out: &[WriterAction]) -> Vec<(Dest, Gap)> {
    out.iter()
        .filter_map(|a| match a {
            WriterAction::Gap { to, gap } => Some((*to, *gap)),
            _ => None,
        })
        .collect()
}

#[test]
fn volatile_late_joiner_gets_a_gap_and_no_old_samples() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::TransientLocal), t);
    let mut out = Vec::new();
    write_n(&mut w, t, 5, 8, &mut out);
    out.clear();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    assert_eq!(gaps(&out), vec![(Dest::Reader(g(1)), Gap::range(1, 6))]);
    assert!(data(&out).is_empty());
    assert!(w.all_acked(), "a volatile reader holds nothing back");
    // It missed the GAP and asks for everything: it gets the GAP again, never the samples.
    out.clear();
    w.on_acknack(t, g(1), &acknack(1, &[1, 2, 3], 1), &mut out);
    assert_eq!(gaps(&out), vec![(Dest::Reader(g(1)), Gap::range(1, 6))]);
    assert!(data(&out).is_empty());
}

#[test]
fn transient_local_late_joiner_gets_the_last_depth_samples_after_a_heartbeat() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(3), Durability::TransientLocal), t);
    let mut out = Vec::new();
    write_n(&mut w, t, 5, 8, &mut out);
    out.clear();
    w.match_reader(t, reader(1, true, Durability::TransientLocal), &mut out);
    assert!(matches!(out[0], WriterAction::Heartbeat { hb: Heartbeat { first_sn: 3, last_sn: 5, .. }, .. }));
    let to = Dest::Reader(g(1));
    assert_eq!(data(&out), vec![(to, 3, true), (to, 4, true), (to, 5, true)]);
    assert!(!w.all_acked());
    // A best-effort transient-local reader gets the history at once too.
    out.clear();
    w.match_reader(t, reader(2, false, Durability::TransientLocal), &mut out);
    assert_eq!(data(&out).len(), 3);
    assert!(heartbeats(&out).is_empty(), "best-effort readers get no HEARTBEAT");
}

#[test]
fn nacks_are_repaired_after_the_response_delay_then_a_heartbeat_follows() {
    let t = Instant::now();
    let mut c = cfg(HistoryKind::KeepLast(100), Durability::Volatile);
    c.nack_response_delay = ms(5);
    let mut w = StatefulWriter::new(c, t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 10, 8, &mut out);
    out.clear();
    w.on_acknack(t, g(1), &acknack(3, &[3, 7], 1), &mut out);
    assert!(out.is_empty(), "waits for the NACK response delay");
    assert_eq!(w.next_deadline(), Some(t + ms(5)));
    assert_eq!(w.reader(g(1)).unwrap().acked(), 2);
    w.on_timer(t + ms(5), &mut out);
    let to = Dest::Reader(g(1));
    assert_eq!(data(&out), vec![(to, 3, true), (to, 7, true)]);
    assert!(matches!(out.last(), Some(WriterAction::Heartbeat { to: Dest::Reader(_), .. })));
    // The same ACKNACK again (duplicate count) changes nothing.
    out.clear();
    w.on_acknack(t + ms(6), g(1), &acknack(3, &[3, 7], 1), &mut out);
    w.on_timer(t + ms(20), &mut out);
    assert!(data(&out).is_empty());
    assert_eq!(w.stats().acknacks_ignored, 1);
}

#[test]
fn keep_all_blocks_until_acknowledged_or_unmatched() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepAll { max_samples: 4 }, Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    w.match_reader(t, reader(2, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 4, 8, &mut out);
    assert!(!w.can_write());
    assert_eq!(w.write(t, Payload::from(&b"x"[..]), SampleMeta::default(), &mut out), Err(WriteBlocked));
    w.on_acknack(t, g(1), &acknack(5, &[], 1), &mut out);
    assert!(!w.can_write(), "reader 2 has not acknowledged");
    w.on_acknack(t, g(2), &acknack(3, &[], 1), &mut out);
    assert_eq!(w.history().first_sn(), 3);
    assert_eq!(w.write(t, Payload::from(&b"x"[..]), SampleMeta::default(), &mut out), Ok(5));
    w.write(t, Payload::from(&b"y"[..]), SampleMeta::default(), &mut out).unwrap();
    assert!(!w.can_write());
    // Reader 2 goes away: its unacknowledged samples no longer hold the writer.
    assert!(w.unmatch_reader(g(2)));
    assert!(w.can_write() && !w.all_acked());
    assert_eq!(w.matched_count(), 1);
}

#[test]
fn evicted_samples_are_answered_with_a_heartbeat_not_a_gap() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(2), Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 5, 8, &mut out);
    out.clear();
    w.on_acknack(t, g(1), &acknack(1, &[1, 2, 3, 4], 1), &mut out);
    assert!(gaps(&out).is_empty());
    assert_eq!(data(&out), vec![(Dest::Reader(g(1)), 4, true)]);
    let hb = heartbeats(&out);
    assert_eq!(hb.len(), 1);
    assert_eq!((hb[0].1.first_sn, hb[0].1.last_sn), (4, 5));
}

#[test]
fn best_effort_readers_get_no_repairs() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, false, Durability::Volatile), &mut out);
    write_n(&mut w, t, 3, 8, &mut out);
    assert_eq!(data(&out).iter().filter(|d| d.0 == Dest::All).count(), 3);
    out.clear();
    w.on_acknack(t, g(1), &acknack(1, &[1, 2, 3], 1), &mut out);
    w.on_timer(t + ms(1000), &mut out);
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(w.next_deadline(), None, "no reliable reader: no HEARTBEATs");
    assert!(w.all_acked());
}

#[test]
fn heartbeats_are_fast_while_unacknowledged_and_final_once_acknowledged() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    assert_eq!(w.next_deadline(), Some(t + ms(100)), "nothing to acknowledge yet");
    out.clear();
    w.write(t + ms(20), Payload::from(&b"a"[..]), SampleMeta::default(), &mut out).unwrap();
    let hb = heartbeats(&out);
    assert_eq!(hb.len(), 1, "piggybacked on the write");
    assert!(!hb[0].1.final_flag);
    assert_eq!(w.next_deadline(), Some(t + ms(30)));
    out.clear();
    w.on_timer(t + ms(30), &mut out);
    assert_eq!(heartbeats(&out).len(), 1);
    assert_eq!(w.next_deadline(), Some(t + ms(50)), "no answer: the period doubles");
    w.on_acknack(t + ms(31), g(1), &acknack(2, &[], 1), &mut out);
    assert!(w.all_acked());
    assert_eq!(w.next_deadline(), Some(t + ms(130)));
    out.clear();
    w.on_timer(t + ms(130), &mut out);
    let hb = heartbeats(&out);
    assert!(hb[0].1.final_flag && hb[0].0 == Dest::All);
    // The acknowledged sample is gone from a volatile history: first = last + 1, "none kept".
    assert_eq!((hb[0].1.first_sn, hb[0].1.last_sn), (2, 1));
}

#[test]
fn repairs_are_paced_by_the_byte_budget() {
    let t = Instant::now();
    let mut c = cfg(HistoryKind::KeepLast(10), Durability::Volatile);
    c.repair_budget = 4 * 1344;
    let mut w = StatefulWriter::new(c, t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 1, 64 * 1024, &mut out);
    // 64 KiB is 49 fragments of 1344 bytes, first sent ten to a submessage.
    let runs: Vec<(u32, u16)> = out
        .iter()
        .filter_map(|a| match a {
            WriterAction::DataFrag { frag, .. } => {
                Some((frag.header.fragment_start, frag.header.fragments_in_submessage))
            }
            _ => None,
        })
        .collect();
    assert_eq!(runs, vec![(1, 10), (11, 10), (21, 10), (31, 10), (41, 9)]);
    out.clear();
    w.on_acknack(t + ms(3), g(1), &acknack(1, &[1], 1), &mut out);
    assert_eq!(data(&out).len(), 4, "one tick's budget");
    assert_eq!(w.next_deadline(), Some(t + ms(5)));
    let mut now = t + ms(3);
    let mut sent = 4;
    while sent < 49 {
        now += ms(2);
        out.clear();
        w.on_timer(now, &mut out);
        sent += data(&out).len();
        assert!(data(&out).len() <= 4);
    }
    assert_eq!(sent, 49);
    assert!(matches!(out.last(), Some(WriterAction::Heartbeat { .. })));
}

#[test]
fn nack_frag_resends_just_those_fragments() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 1, 5000, &mut out);
    out.clear();
    let mut missing = FragmentNumberSet::new(2);
    for n in [2, 4, 9] {
        missing.insert(n);
    }
    w.on_nack_frag(t, g(1), &NackFrag { sn: 1, missing, count: 1 }, &mut out);
    let frags: Vec<u32> = out
        .iter()
        .filter_map(|a| match a {
            WriterAction::DataFrag { frag, .. } => Some(frag.header.fragment_start),
            _ => None,
        })
        .collect();
    assert_eq!(frags, vec![2, 4], "9 is past the 4 fragments of 5000 bytes");
    // A NACK_FRAG with the same count is a duplicate.
    out.clear();
    w.on_nack_frag(t, g(1), &NackFrag { sn: 1, missing, count: 1 }, &mut out);
    assert!(data(&out).is_empty());
}

#[test]
fn sequence_numbers_across_two_to_the_32() {
    let t = Instant::now();
    let base = (1i64 << 32) - 3;
    let mut c = cfg(HistoryKind::KeepAll { max_samples: 100 }, Durability::Volatile);
    c.first_sn = base;
    let mut w = StatefulWriter::new(c, t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 6, 8, &mut out);
    assert_eq!(w.last_sn(), base + 5);
    out.clear();
    w.on_acknack(t, g(1), &acknack(base + 1, &[base + 1, 1 << 32, base + 5], 1), &mut out);
    let to = Dest::Reader(g(1));
    assert_eq!(data(&out), vec![(to, base + 1, true), (to, 1 << 32, true), (to, base + 5, true)]);
    assert_eq!(w.history().first_sn(), base + 1, "the acknowledged one left the KEEP_ALL history");
    w.on_acknack(t, g(1), &acknack(base + 6, &[], 2), &mut out);
    assert!(w.all_acked() && w.history().is_empty());
}

#[test]
fn a_joining_volatile_reader_is_told_the_history_starts_after_it_joined() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(100), Durability::TransientLocal), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 5, 8, &mut out);
    w.on_acknack(t, g(1), &acknack(6, &[], 1), &mut out);
    out.clear();
    w.match_reader(t, reader(2, true, Durability::Volatile), &mut out);
    let hb = heartbeats(&out);
    assert_eq!((hb[0].0, hb[0].1.first_sn, hb[0].1.last_sn), (Dest::Reader(g(2)), 6, 5));
    // Until it shows it knows, periodic HEARTBEATs are per reader, its own starting after 5.
    out.clear();
    w.write(t + ms(20), Payload::from(&b"6"[..]), SampleMeta::default(), &mut out).unwrap();
    let hb = heartbeats(&out);
    assert_eq!(hb.len(), 2, "{hb:?}");
    assert!(hb.iter().any(|(to, h)| *to == Dest::Reader(g(1)) && h.first_sn == 1));
    assert!(hb.iter().any(|(to, h)| *to == Dest::Reader(g(2)) && h.first_sn == 6));
    // Its first ACKNACK at or past 6 ends that: back to one HEARTBEAT for all.
    w.on_acknack(t + ms(21), g(2), &acknack(6, &[6], 1), &mut out);
    out.clear();
    w.on_timer(t + ms(60), &mut out);
    let hb = heartbeats(&out);
    assert_eq!(hb.len(), 1);
    assert_eq!((hb[0].0, hb[0].1.first_sn), (Dest::All, 1));
}

#[test]
fn a_fragmented_newest_sample_gets_a_heartbeat_frag() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    out.clear();
    w.write(t + ms(20), Payload::from(vec![0u8; 3000]), SampleMeta::default(), &mut out).unwrap();
    let hbf: Vec<HeartbeatFrag> = out
        .iter()
        .filter_map(|a| match a {
            WriterAction::HeartbeatFrag { hb, .. } => Some(*hb),
            _ => None,
        })
        .collect();
    assert_eq!(hbf.len(), 1);
    assert_eq!((hbf[0].sn, hbf[0].last_fragment), (1, 3));
}

#[test]
fn a_hostile_acknack_base_is_harmless() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 3, 8, &mut out);
    out.clear();
    let mut a = acknack(i64::MIN, &[], 1);
    a.final_flag = true;
    w.on_acknack(t, g(1), &a, &mut out);
    w.on_acknack(t, g(1), &acknack(i64::MAX, &[], 2), &mut out);
    assert!(gaps(&out).is_empty() && data(&out).is_empty(), "{out:?}");
    assert!(w.all_acked(), "a base past the last SN acknowledges everything, no more");
}

/// Cyclone DDS starts a volatile reader of another vendor's writer at the last SN of the first
/// HEARTBEAT it sees and drops the DATA that came before (it did not know the writer yet). Found by
/// test/interop (hdds writes right after matching a Cyclone reader: 0 of 200 samples arrived, and
/// were acknowledged). Until such a reader has answered, its HEARTBEATs announce nothing new, so
/// it starts at its first relevant SN and asks for the rest.
#[test]
fn a_volatile_reader_that_has_not_answered_gets_sync_heartbeats() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    out.clear();
    write_n(&mut w, t + ms(20), 3, 8, &mut out);
    let hb = heartbeats(&out);
    assert_eq!(hb.len(), 1);
    assert_eq!((hb[0].0, hb[0].1.first_sn, hb[0].1.last_sn), (Dest::Reader(g(1)), 1, 0), "a sync HEARTBEAT");
    // Its first (pre-emptive) ACKNACK: answered with a sync HEARTBEAT too, final flag or not.
    out.clear();
    w.on_acknack(t + ms(21), g(1), &acknack(1, &[], 1), &mut out);
    let hb = heartbeats(&out);
    assert_eq!(hb.len(), 1);
    assert_eq!((hb[0].1.first_sn, hb[0].1.last_sn), (1, 0));
    out.clear();
    w.on_timer(t + ms(40), &mut out);
    assert_eq!(heartbeats(&out).iter().map(|(_, h)| h.last_sn).collect::<Vec<_>>(), [0], "until it answers");
    // Its answer ends the sync: the next HEARTBEAT tells all, and its NACK is repaired.
    w.on_acknack(t + ms(41), g(1), &acknack(1, &[], 2), &mut out);
    out.clear();
    w.on_timer(t + ms(80), &mut out);
    let hb = heartbeats(&out);
    assert_eq!((hb[0].0, hb[0].1.first_sn, hb[0].1.last_sn), (Dest::All, 1, 3));
    out.clear();
    w.on_acknack(t + ms(81), g(1), &acknack(1, &[1, 2, 3], 3), &mut out);
    w.on_timer(t + ms(82), &mut out);
    assert_eq!(data(&out).iter().map(|d| d.1).collect::<Vec<_>>(), [1, 2, 3]);
    // A reader whose first ACKNACK already asks for samples needs no sync.
    w.match_reader(t + ms(90), reader(2, true, Durability::Volatile), &mut out);
    write_n(&mut w, t + ms(100), 1, 8, &mut out);
    w.on_acknack(t + ms(101), g(2), &acknack(4, &[4], 1), &mut out);
    assert!(!w.reader(g(2)).unwrap().sync_pending);
}

#[test]
fn a_fast_keep_all_burst_asks_for_acknowledgments_every_quarter_history() {
    let t0 = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepAll { max_samples: 64 }, Durability::Volatile), t0);
    let mut out = Vec::new();
    w.match_reader(t0, reader(1, true, Durability::Volatile), &mut out);
    // The reader answers the match's HEARTBEAT and the sync HEARTBEAT that follows: it is in
    // sync, HEARTBEATs now announce what was written.
    w.on_acknack(t0, g(1), &acknack(1, &[], 1), &mut out);
    w.on_timer(t0, &mut out);
    w.on_acknack(t0, g(1), &acknack(1, &[], 2), &mut out);
    out.clear();
    // A HEARTBEAT was just sent: within the fast period only the quarter rule applies.
    write_n(&mut w, t0, 64, 8, &mut out);
    let last_sns: Vec<i64> = heartbeats(&out).iter().map(|(_, hb)| hb.last_sn).collect();
    assert_eq!(last_sns, vec![16, 32, 48, 64]);
    // Full and blocked: nothing new to ask about, so no HEARTBEAT on a retry this soon.
    out.clear();
    assert!(w.write(t0, Payload::from(vec![0u8; 8]), SampleMeta::default(), &mut out).is_err());
    assert!(heartbeats(&out).is_empty());
}

#[test]
fn a_directed_sample_reaches_its_reader_only_and_is_a_gap_for_the_others() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::TransientLocal), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    w.match_reader(t, reader(2, true, Durability::Volatile), &mut out);
    w.match_reader(t, reader(3, false, Durability::Volatile), &mut out);
    out.clear();
    let sn = w.write_to(t, Payload::from(vec![7u8; 8]), SampleMeta::default(), g(1), &mut out).unwrap();
    assert_eq!(data(&out), vec![(Dest::Reader(g(1)), sn, false)]);
    assert_eq!(gaps(&out), vec![(Dest::Reader(g(2)), Gap::range(sn, sn + 1))], "best-effort readers get no GAP");
    // Reader 2 lost the GAP and asks for the SN: it gets the GAP again, never the sample.
    out.clear();
    w.on_acknack(t, g(2), &acknack(sn, &[sn], 1), &mut out);
    w.on_timer(t + ms(500), &mut out);
    assert!(data(&out).is_empty(), "{out:?}");
    assert_eq!(gaps(&out), vec![(Dest::Reader(g(2)), Gap::range(sn, sn + 1))]);
    // Reader 1 lost the sample: the repair is the sample.
    out.clear();
    w.on_acknack(t, g(1), &acknack(sn, &[sn], 1), &mut out);
    w.on_timer(t + ms(1000), &mut out);
    assert_eq!(data(&out), vec![(Dest::Reader(g(1)), sn, true)]);
    // A late transient-local best-effort reader's replay leaves it out.
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(10), Durability::TransientLocal), t);
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    w.write_to(t, Payload::from(vec![7u8; 8]), SampleMeta::default(), g(1), &mut out).unwrap();
    w.write(t, Payload::from(vec![8u8; 8]), SampleMeta::default(), &mut out).unwrap();
    out.clear();
    w.match_reader(t, reader(4, false, Durability::TransientLocal), &mut out);
    assert_eq!(data(&out), vec![(Dest::Reader(g(4)), 2, true)]);
}

#[test]
fn a_volatile_keep_last_history_holds_only_what_a_reliable_reader_lacks() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(16), Durability::Volatile), t);
    let mut out = Vec::new();
    // No reader, then a best-effort one: nobody can ask for a sample again.
    for k in 0..3 {
        if k == 1 {
            w.match_reader(t, reader(1, false, Durability::Volatile), &mut out);
        }
        w.write(t, Payload::from(&b"big"[..]), SampleMeta::default(), &mut out).unwrap();
        assert!(w.history().is_empty(), "write {k}: kept {}", w.history().len());
    }
    // A reliable reader: kept until it acknowledges.
    w.match_reader(t, reader(2, true, Durability::Volatile), &mut out);
    w.write(t, Payload::from(&b"x"[..]), SampleMeta::default(), &mut out).unwrap();
    w.write(t, Payload::from(&b"y"[..]), SampleMeta::default(), &mut out).unwrap();
    assert_eq!((w.history().first_sn(), w.history().len()), (4, 2));
    w.on_acknack(t, g(2), &acknack(5, &[], 1), &mut out);
    assert_eq!((w.history().first_sn(), w.history().len()), (5, 1));
    // The transient-local KEEP_LAST writer keeps its depth for late joiners.
    let mut tl = StatefulWriter::new(cfg(HistoryKind::KeepLast(2), Durability::TransientLocal), t);
    for _ in 0..3 {
        tl.write(t, Payload::from(&b"z"[..]), SampleMeta::default(), &mut out).unwrap();
    }
    assert_eq!(tl.history().len(), 2);
}

#[test]
fn a_volatile_writer_without_readers_numbers_its_samples_and_a_joiner_starts_after_them() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepLast(16), Durability::Volatile), t);
    let mut out = Vec::new();
    // Nobody to send to or repair for: only numbered (history.skip), nothing kept or sent.
    for sn in 1..=3 {
        assert_eq!(w.write(t, Payload::from(&b"a"[..]), SampleMeta::default(), &mut out), Ok(sn));
    }
    assert!(out.is_empty(), "nothing to send: {out:?}");
    assert!(w.history().is_empty());
    assert_eq!(w.stats().samples_written, 3);
    // A reliable reader joins: told that 1..=3 are not for it, then gets 4 and can ask for it.
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    assert_eq!(gaps(&out), vec![(Dest::Reader(g(1)), Gap::range(1, 4))]);
    out.clear();
    assert_eq!(w.write(t, Payload::from(&b"b"[..]), SampleMeta::default(), &mut out), Ok(4));
    assert_eq!(data(&out), vec![(Dest::All, 4, false)]);
    assert_eq!((w.history().first_sn(), w.history().len()), (4, 1), "kept until acknowledged");
    // It leaves: the next write is only numbered again, after the kept one is dropped.
    w.unmatch_reader(g(1));
    out.clear();
    assert_eq!(w.write(t, Payload::from(&b"c"[..]), SampleMeta::default(), &mut out), Ok(5));
    assert!(data(&out).is_empty());
    assert!(w.history().is_empty());
}

#[test]
fn describe_reports_the_history_and_each_readers_acknowledged_sn_and_requests() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepAll { max_samples: 16 }, Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 5, 8, &mut out);
    w.on_acknack(t, g(1), &acknack(3, &[4], 1), &mut out);
    let s = w.describe(t);
    assert!(s.starts_with("history=3..=5 min_acked=2 "), "{s}");
    assert!(s.contains(" acked=2 ") && s.contains(" last_acknack=Some(1) "), "{s}");
    assert!(s.lines().nth(1).is_some_and(|l| l.starts_with(&format!("reader={}", g(1)))), "{s}");
}

#[test]
fn unanswered_heartbeats_back_off_to_unacked_heartbeat_max_not_to_the_idle_period() {
    let t0 = Instant::now();
    let mut c = cfg(HistoryKind::KeepAll { max_samples: 16 }, Durability::Volatile);
    c.heartbeat_period = Duration::from_secs(1);
    let mut w = StatefulWriter::new(c, t0);
    let mut out = Vec::new();
    w.match_reader(t0, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t0, 1, 8, &mut out);
    // No ACKNACK ever comes: the HEARTBEATs slow down, to 100 ms and no further.
    let mut sent = Vec::new();
    let mut now = t0;
    while now < t0 + Duration::from_secs(3) {
        now = w.next_deadline().expect("a reliable writer with unacknowledged data has a deadline");
        out.clear();
        w.on_timer(now, &mut out);
        if !heartbeats(&out).is_empty() {
            sent.push(now);
        }
    }
    let gaps: Vec<Duration> = sent.windows(2).map(|p| p[1] - p[0]).collect();
    assert_eq!(gaps.iter().max(), Some(&ms(100)), "{gaps:?}");
    assert!(gaps.iter().filter(|&&g| g == ms(100)).count() > 20, "{gaps:?}");
    // Once everything is acknowledged the idle period applies.
    w.on_acknack(now, g(1), &acknack(2, &[], 1), &mut out);
    assert!(w.all_acked());
    assert_eq!(w.next_deadline(), sent.last().map(|&t| t + Duration::from_secs(1)));
}

#[test]
fn a_reader_that_counts_its_acknacks_from_1_again_is_heard_after_the_restart_time() {
    let t = Instant::now();
    let mut w = StatefulWriter::new(cfg(HistoryKind::KeepAll { max_samples: 16 }, Durability::Volatile), t);
    let mut out = Vec::new();
    w.match_reader(t, reader(1, true, Durability::Volatile), &mut out);
    write_n(&mut w, t, 3, 8, &mut out);
    w.on_acknack(t, g(1), &acknack(2, &[2], 500), &mut out);
    // The reader re-created its proxy of us (its lease of us ran out) and asks for 2 and 3 again,
    // counting from 1: a reordered old ACKNACK at first, a restarted reader after 2 s.
    let again = acknack(2, &[2, 3], 1);
    let later = t + ms(20);
    out.clear();
    w.on_acknack(later, g(1), &again, &mut out);
    w.on_timer(later, &mut out);
    assert!(data(&out).iter().all(|&(_, sn, _)| sn != 3), "{out:?}");
    let restarted = t + COUNT_RESTART_AFTER;
    out.clear();
    w.on_acknack(restarted, g(1), &again, &mut out);
    assert!(data(&out).contains(&(Dest::Reader(g(1)), 3, true)), "{out:?}");
}
