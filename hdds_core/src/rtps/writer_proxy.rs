//! What a reliable reader knows about one matched writer (RTPS 2.5 section 8.4.10.4): the next SN
//! to deliver, the samples received ahead of it, and the counters of what it sent the writer.
//!
//! The order buffer is a ring indexed by `sn - next`, bounded by the reader's `max_buffered`: a
//! sample further ahead is dropped and asked for again later. Delivery pops from the front, so a
//! steady stream reuses the ring's storage and allocates nothing but the payload `Arc`.

use crate::payload::Payload;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::fragment::Reassembler;
use super::messages::{Delivery, LastCount, ReaderAction, SampleMeta};
use super::sn_window::{SnWindow, WINDOW_BITS};
use crate::wire::Guid;

#[derive(Debug)]
enum Slot {
    Empty,
    Sample(SampleMeta, Payload),
    /// A GAP said this SN is not for us.
    Irrelevant,
}

#[derive(Debug)]
pub struct WriterProxy {
    pub(crate) guid: Guid,
    /// The next SN to deliver: everything below it was delivered, irrelevant or lost.
    pub(crate) next: i64,
    /// `slots[i]` is SN `next + i`.
    slots: VecDeque<Slot>,
    /// The highest SN the writer is known to have (HEARTBEAT lastSN or a received sample).
    pub(crate) known_last: i64,
    /// The highest SN a HEARTBEAT announced: those samples exist whole at the writer.
    pub(crate) hb_last: i64,
    /// The newest HEARTBEAT_FRAG: (SN, last fragment the writer has sent of it). A writer still
    /// sending a large sample (Cyclone after every message of fragments) says so: fragments past
    /// that number are on their way, not missing.
    pub(crate) frags_announced: Option<(i64, u32)>,
    /// The writer's latest sample came as DATA_FRAGs: it will resend a missing sample as fragments,
    /// each of which needs a reassembly slot (see [`WriterProxy::missing`]).
    pub(crate) fragmented: bool,
    pub(crate) last_hb: LastCount,
    pub(crate) last_hb_frag: LastCount,
    pub(crate) acknack_count: i32,
    pub(crate) nack_frag_count: i32,
    /// When the owed ACKNACK goes out (HEARTBEAT response delay); `None` when none is owed.
    pub(crate) ack_at: Option<Instant>,
    /// We know where we stand with the writer: a HEARTBEAT or GAP said so, or we delivered a sample
    /// (which, delivered in order from SN 1, means we have its history from the start). Before that,
    /// SNs the first HEARTBEAT skips are history we joined too late for, not losses.
    pub(crate) synced: bool,
    /// When the writer last sent us a submessage; the match's time until it has sent one.
    pub(crate) last_heard: Instant,
    /// Until the writer has sent us a submessage: when the pre-emptive ACKNACK goes out again
    /// (`None` once it has, [`WriterProxy::has_heard`]), and the pause after that one.
    pub(crate) preemptive_at: Option<Instant>,
    pub(crate) preemptive_pause: Duration,
    pub(crate) lost: u64,
}

impl WriterProxy {
    pub(crate) fn new(guid: Guid, now: Instant) -> Self {
        WriterProxy {
            guid,
            next: 1,
            slots: VecDeque::new(),
            known_last: 0,
            hb_last: 0,
            frags_announced: None,
            fragmented: false,
            last_hb: LastCount::default(),
            last_hb_frag: LastCount::default(),
            acknack_count: 0,
            nack_frag_count: 0,
            ack_at: None,
            synced: false,
            last_heard: now,
            preemptive_at: Some(now),
            preemptive_pause: Duration::ZERO,
            lost: 0,
        }
    }

    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// The next SN to be delivered.
    pub fn next_sn(&self) -> i64 {
        self.next
    }

    /// When the writer was last heard from (any submessage): the reader's liveliness view.
    pub fn last_heard(&self) -> Instant {
        self.last_heard
    }

    /// Whether the writer has sent us anything since the match, which it does only once it has
    /// matched this reader too (a writer ignores what readers it does not know send it, and sends
    /// them nothing).
    pub fn has_heard(&self) -> bool {
        self.preemptive_at.is_none()
    }

    /// Whether a skip over missing samples now counts them as lost (see the field's comment).
    pub fn is_synced(&self) -> bool {
        self.synced
    }

    /// Samples counted as lost so far.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Samples received ahead of `next`, waiting for the gap before them.
    pub fn buffered(&self) -> usize {
        self.slots.iter().filter(|s| matches!(s, Slot::Sample(..))).count()
    }

    /// Whether `sn` would be stored: not delivered yet, not already held, within the window.
    pub(crate) fn accepts(&self, sn: i64, max_buffered: usize) -> bool {
        let Some(i) = sn.checked_sub(self.next).filter(|&d| d >= 0 && d < max_buffered as i64) else {
            return false;
        };
        matches!(self.slots.get(i as usize), None | Some(Slot::Empty))
    }

    /// Stores a sample [`accepts`](Self::accepts) said yes to, then delivers what became contiguous.
    pub(crate) fn insert(&mut self, sn: i64, meta: SampleMeta, payload: Payload, out: &mut Vec<ReaderAction>) {
        let i = (sn - self.next) as usize;
        self.known_last = self.known_last.max(sn);
        while self.slots.len() <= i {
            self.slots.push_back(Slot::Empty);
        }
        self.slots[i] = Slot::Sample(meta, payload);
        self.deliver_ready(out);
    }

    fn deliver_ready(&mut self, out: &mut Vec<ReaderAction>) {
        while let Some(front) = self.slots.front() {
            if matches!(front, Slot::Empty) {
                break;
            }
            if let Some(Slot::Sample(meta, payload)) = self.slots.pop_front() {
                out.push(ReaderAction::Deliver(Delivery { writer: self.guid, sn: self.next, meta, payload }));
                self.synced = true;
            }
            self.next += 1;
        }
        crate::capacity::release_burst(&mut self.slots);
    }

    /// Moves `next` up to `target`, delivering what was received below it; returns how many SNs
    /// were neither received nor irrelevant (lost, when `count_lost`).
    pub(crate) fn skip_to(&mut self, target: i64, count_lost: bool, out: &mut Vec<ReaderAction>) -> u64 {
        let mut missing = 0u64;
        while self.next < target {
            match self.slots.pop_front() {
                Some(Slot::Sample(meta, payload)) => {
                    out.push(ReaderAction::Deliver(Delivery { writer: self.guid, sn: self.next, meta, payload }));
                }
                Some(Slot::Irrelevant) => {}
                Some(Slot::Empty) => missing += 1,
                None => {
                    // Past the buffer: the whole rest at once, however far the target is.
                    missing += (target - self.next) as u64;
                    self.next = target;
                    break;
                }
            }
            self.next += 1;
        }
        self.deliver_ready(out);
        if count_lost {
            self.lost += missing;
            missing
        } else {
            0
        }
    }

    /// A GAP's contiguous part: `[from, to)` is irrelevant.
    pub(crate) fn irrelevant_range(&mut self, from: i64, to: i64, max_buffered: usize, out: &mut Vec<ReaderAction>) {
        let from = from.max(self.next);
        if from >= to {
            return;
        }
        if from == self.next {
            self.skip_to(to, false, out);
            return;
        }
        let end = to.min(self.next.saturating_add(max_buffered as i64));
        for sn in from..end {
            self.irrelevant_one(sn, max_buffered);
        }
    }

    /// A GAP's bitmap member.
    pub(crate) fn irrelevant_one(&mut self, sn: i64, max_buffered: usize) {
        if !self.accepts(sn, max_buffered) {
            return;
        }
        let i = (sn - self.next) as usize;
        while self.slots.len() <= i {
            self.slots.push_back(Slot::Empty);
        }
        self.slots[i] = Slot::Irrelevant;
    }

    pub(crate) fn deliver_after_gap(&mut self, out: &mut Vec<ReaderAction>) {
        self.deliver_ready(out);
    }

    /// One line of what this proxy holds, for a failing test or a stuck link's report.
    pub(crate) fn describe(&self, now: Instant, reassembler: &Reassembler) -> String {
        let partial: Vec<i64> = reassembler.partial_sns(self.guid).collect();
        format!(
            "writer={} next={} known_last={} hb_last={} buffered={} partial={partial:?} fragmented={} \
             frags_announced={:?} synced={} last_hb={:?} last_hb_frag={:?} acknacks={} nack_frags={} \
             ack_due={} lost={} heard_ms_ago={}",
            self.guid,
            self.next,
            self.known_last,
            self.hb_last,
            self.buffered(),
            self.fragmented,
            self.frags_announced,
            self.synced,
            self.last_hb.count(),
            self.last_hb_frag.count(),
            self.acknack_count,
            self.nack_frag_count,
            self.ack_at.is_some(),
            self.lost,
            now.saturating_duration_since(self.last_heard).as_millis()
        )
    }

    /// The SNs to NACK: known to exist, not received, not irrelevant, not partially received (those
    /// get a NACK_FRAG), within 256 of `next` and within the buffer. From a writer that fragments
    /// its samples, the oldest ones only, as many as the reassembly has slots left for this writer
    /// (at least one): the fragments of the others would be refused on arrival and sent again.
    /// Over a 20 %-loss link (test/fault lossy_frag), NACKing every missing 8 KiB sample made the
    /// reader give up 4,000-8,000 partial samples per 1,000 and the writer resend 5-10x the data.
    pub(crate) fn missing(&self, reassembler: &Reassembler, max_buffered: usize) -> SnWindow {
        let mut w = SnWindow::new(self.next);
        let span = WINDOW_BITS.min(max_buffered as i64);
        let end = self.known_last.min(self.next + span - 1);
        let mut whole = if self.fragmented { reassembler.room_for(self.guid).max(1) } else { usize::MAX };
        for sn in self.next..=end {
            let empty = matches!(self.slots.get((sn - self.next) as usize), None | Some(Slot::Empty));
            if empty && !reassembler.contains(self.guid, sn) {
                if whole == 0 {
                    break;
                }
                w.insert(sn);
                whole -= 1;
            }
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtps::fragment::{EvictPolicy, ReassemblyLimits};

    fn delivered(out: &[ReaderAction]) -> Vec<i64> {
        out.iter()
            .filter_map(|a| match a {
                ReaderAction::Deliver(d) => Some(d.sn),
                _ => None,
            })
            .collect()
    }

    fn put(p: &mut WriterProxy, sn: i64, out: &mut Vec<ReaderAction>) -> bool {
        if !p.accepts(sn, 8) {
            return false;
        }
        p.insert(sn, SampleMeta::default(), Payload::from(&[sn as u8][..]), out);
        true
    }

    #[test]
    fn in_order_delivery_buffering_and_duplicates() {
        let mut p = WriterProxy::new(Guid::UNKNOWN, Instant::now());
        let mut out = Vec::new();
        assert!(put(&mut p, 3, &mut out) && put(&mut p, 2, &mut out));
        assert!(!put(&mut p, 3, &mut out), "already held");
        assert!(!put(&mut p, 9, &mut out), "beyond the 8-sample window");
        assert!(out.is_empty() && p.buffered() == 2);
        assert!(put(&mut p, 1, &mut out));
        assert_eq!(delivered(&out), vec![1, 2, 3]);
        assert!(!put(&mut p, 2, &mut out), "already delivered");
        assert_eq!(p.next_sn(), 4);
    }

    #[test]
    fn gaps_and_heartbeat_skips() {
        let mut p = WriterProxy::new(Guid::UNKNOWN, Instant::now());
        let mut out = Vec::new();
        put(&mut p, 5, &mut out);
        p.irrelevant_range(3, 5, 8, &mut out);
        p.irrelevant_one(7, 8);
        assert!(out.is_empty());
        // 1 and 2 were never received; a HEARTBEAT with first SN 3 makes them lost.
        assert_eq!(p.skip_to(3, true, &mut out), 2);
        assert_eq!(delivered(&out), vec![5]);
        assert_eq!(p.next_sn(), 6);
        put(&mut p, 6, &mut out);
        assert_eq!(p.next_sn(), 8, "7 was irrelevant");
        // A huge GAP range costs nothing per SN.
        p.irrelevant_range(8, 1 << 40, 8, &mut out);
        assert_eq!(p.next_sn(), 1 << 40);
        assert_eq!(p.lost(), 2);
    }

    #[test]
    fn a_drained_order_buffer_gives_its_burst_back() {
        let mut p = WriterProxy::new(Guid::UNKNOWN, Instant::now());
        let mut out = Vec::new();
        // SN 1 lost: 2..=300 wait behind it.
        for sn in 2..=300 {
            assert!(p.accepts(sn, 512));
            p.insert(sn, SampleMeta::default(), Payload::from(&[0u8][..]), &mut out);
        }
        assert!(p.slots.capacity() >= 300 && out.is_empty());
        p.insert(1, SampleMeta::default(), Payload::from(&[0u8][..]), &mut out);
        assert_eq!(delivered(&out).len(), 300);
        assert!(p.slots.capacity() <= 64, "kept {} slots after the burst", p.slots.capacity());
    }

    #[test]
    fn missing_skips_received_irrelevant_and_partial() {
        let mut p = WriterProxy::new(Guid::UNKNOWN, Instant::now());
        let mut out = Vec::new();
        let mut r = Reassembler::new(ReassemblyLimits::default(), EvictPolicy::DropNewest);
        let h = crate::rtps::messages::FragmentHeader {
            sn: 4,
            fragment_start: 1,
            fragments_in_submessage: 1,
            fragment_size: 2,
            sample_size: 4,
        };
        r.add(Guid::UNKNOWN, &h, &SampleMeta::default(), &[0, 0]);
        put(&mut p, 2, &mut out);
        p.irrelevant_one(3, 8);
        p.known_last = 20;
        let m: Vec<i64> = p.missing(&r, 8).iter().collect();
        assert_eq!(m, vec![1, 5, 6, 7, 8], "limited to the 8-sample window");
        // A fragmenting writer: as many whole samples as reassembly slots are left (2 - 1 here).
        let limits = ReassemblyLimits { max_per_writer: 2, ..ReassemblyLimits::default() };
        let mut r2 = Reassembler::new(limits, EvictPolicy::DropNewest);
        r2.add(Guid::UNKNOWN, &h, &SampleMeta::default(), &[0, 0]);
        p.fragmented = true;
        assert_eq!(p.missing(&r2, 8).iter().collect::<Vec<_>>(), vec![1]);
        let h5 = crate::rtps::messages::FragmentHeader { sn: 5, ..h };
        r2.add(Guid::UNKNOWN, &h5, &SampleMeta::default(), &[0, 0]);
        assert_eq!(p.missing(&r2, 8).iter().collect::<Vec<_>>(), vec![1], "at least one, with no slot left");
        p.fragmented = false;
        assert_eq!(p.missing(&r2, 8).iter().collect::<Vec<_>>(), vec![1, 6, 7, 8]);
    }
}
