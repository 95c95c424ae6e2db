//! The reliable reader (RTPS 2.5 section 8.4.12, StatefulReader): one [`WriterProxy`] per matched
//! writer; delivers each writer's samples exactly once and in SN order, and asks for what is missing.
//!
//! - A HEARTBEAT announces `[first, last]`. The reader answers with an ACKNACK (after the
//!   HEARTBEAT response delay, which lets a burst of HEARTBEATs coalesce) when something is missing,
//!   or when the HEARTBEAT lacks the final flag; partially received fragmented samples get a
//!   NACK_FRAG listing their missing fragments instead of a bit in the ACKNACK.
//! - A first SN beyond what we have means the writer no longer has the older samples: they are
//!   skipped and, once we are in sync with the writer, counted as lost ([`ReaderAction::Lost`]).
//! - A GAP marks SNs irrelevant: skipped, not lost.
//! - Duplicate and reordered HEARTBEATs (count not newer) are ignored.

use crate::payload::Payload;
use std::time::{Duration, Instant};

use super::fragment::{EvictPolicy, FragOutcome, Reassembler, ReassemblyLimits};
use super::messages::{AckNack, FragmentHeader, Gap, Heartbeat, HeartbeatFrag, NackFrag, ReaderAction, SampleMeta};
use super::writer_proxy::WriterProxy;
use crate::wire::Guid;

/// The pause after the first pre-emptive ACKNACK to a writer that has sent nothing yet, and the
/// longest one (see [`StatefulReader::match_writer`]).
const PREEMPTIVE_FIRST_PAUSE: Duration = Duration::from_millis(100);
const PREEMPTIVE_MAX_PAUSE: Duration = Duration::from_secs(1);

#[derive(Debug, Clone)]
pub struct ReaderConfig {
    pub guid: Guid,
    /// How long after a HEARTBEAT the ACKNACK goes out; 0 answers at once.
    pub heartbeat_response_delay: Duration,
    /// Out-of-order samples held per writer (also bounds how far ahead an ACKNACK asks).
    pub max_buffered: usize,
    pub reassembly: ReassemblyLimits,
}

impl ReaderConfig {
    pub fn new(guid: Guid) -> Self {
        ReaderConfig {
            guid,
            heartbeat_response_delay: Duration::ZERO,
            max_buffered: 256,
            reassembly: ReassemblyLimits::default(),
        }
    }
}

/// Counters for tests, statistics and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReaderStats {
    pub delivered: u64,
    pub duplicates: u64,
    /// Samples that arrived too far ahead of the next expected one (they will be asked for again).
    pub beyond_window: u64,
    pub frags_rejected: u64,
    pub heartbeats_ignored: u64,
    pub acknacks_sent: u64,
    pub nack_frags_sent: u64,
    /// Submessages from writers that are not matched.
    pub unknown_writer: u64,
    pub lost: u64,
}

#[derive(Debug)]
pub struct StatefulReader {
    cfg: ReaderConfig,
    writers: Vec<WriterProxy>,
    reassembler: Reassembler,
    stats: ReaderStats,
}

impl StatefulReader {
    pub fn new(mut cfg: ReaderConfig) -> Self {
        cfg.max_buffered = cfg.max_buffered.max(1);
        let reassembler = Reassembler::new(cfg.reassembly, EvictPolicy::DropNewest);
        StatefulReader { cfg, writers: Vec::new(), reassembler, stats: ReaderStats::default() }
    }

    pub fn guid(&self) -> Guid {
        self.cfg.guid
    }

    pub fn stats(&self) -> ReaderStats {
        self.stats
    }

    pub fn matched_count(&self) -> usize {
        self.writers.len()
    }

    pub fn writer(&self, guid: Guid) -> Option<&WriterProxy> {
        self.writers.iter().find(|w| w.guid == guid)
    }

    /// When `writer` was last heard from, for liveliness.
    pub fn writer_last_heard(&self, guid: Guid) -> Option<Instant> {
        self.writer(guid).map(|w| w.last_heard)
    }

    /// What the reader knows of each writer, one line each, then its counters: for a failing
    /// test or a stuck link's report.
    pub fn describe(&self, now: Instant) -> String {
        let mut s: String = self.writers.iter().map(|w| w.describe(now, &self.reassembler) + "\n").collect();
        s += &format!("{:?}", self.stats);
        s
    }

    /// Starts listening to a writer and sends it a pre-emptive ACKNACK (nothing received, no final
    /// flag), which asks the writer for a HEARTBEAT so that we learn where it stands at once.
    /// Until the writer has sent us anything the ACKNACK goes again, after 100 ms, then twice as
    /// long each time up to 1 s (Cyclone DDS's readers repeat theirs every second): a writer that
    /// has not matched us yet drops it, and one with nothing written may send nothing until its
    /// first sample, so that we would not learn that it knows us (a service client waits for that,
    /// [`WriterProxy::has_heard`]).
    pub fn match_writer(&mut self, now: Instant, writer: Guid, out: &mut Vec<ReaderAction>) {
        if self.writer(writer).is_some() {
            return;
        }
        let mut p = WriterProxy::new(writer, now);
        p.preemptive_pause = PREEMPTIVE_FIRST_PAUSE;
        self.writers.push(p);
        let i = self.writers.len() - 1;
        self.send_preemptive(i, now, out);
    }

    fn send_preemptive(&mut self, i: usize, now: Instant, out: &mut Vec<ReaderAction>) {
        let p = &mut self.writers[i];
        p.acknack_count = p.acknack_count.wrapping_add(1);
        let state = crate::wire::SequenceNumberSet::new(crate::wire::SequenceNumber(p.next));
        let acknack = AckNack { state, count: p.acknack_count, final_flag: false };
        out.push(ReaderAction::AckNack { writer: p.guid, acknack });
        p.preemptive_at = Some(now + p.preemptive_pause);
        p.preemptive_pause = (p.preemptive_pause * 2).min(PREEMPTIVE_MAX_PAUSE);
        self.stats.acknacks_sent += 1;
    }

    pub fn unmatch_writer(&mut self, writer: Guid) -> bool {
        let Some(i) = self.writers.iter().position(|w| w.guid == writer) else {
            return false;
        };
        self.writers.swap_remove(i);
        crate::capacity::release_peak_vec(&mut self.writers);
        self.reassembler.discard_writer(writer);
        true
    }

    fn proxy(&mut self, writer: Guid, now: Instant) -> Option<usize> {
        let i = self.writers.iter().position(|w| w.guid == writer);
        match i {
            Some(i) => {
                let p = &mut self.writers[i];
                p.last_heard = now;
                p.preemptive_at = None;
            }
            None => self.stats.unknown_writer += 1,
        }
        i
    }

    /// A DATA. The payload is copied into a shared buffer only if the sample is new and fits.
    pub fn on_data(
        &mut self,
        now: Instant,
        writer: Guid,
        sn: i64,
        meta: &SampleMeta,
        data: &[u8],
        out: &mut Vec<ReaderAction>,
    ) {
        let Some(i) = self.proxy(writer, now) else { return };
        if sn <= 0 {
            return;
        }
        self.writers[i].fragmented = false;
        self.store(i, sn, meta, || Payload::copy_of(data), out);
    }

    /// Samples given up by reassembly for its limits ([`super::ReassemblyLimits`]).
    pub fn reassembly_over_limit(&self) -> u64 {
        self.reassembler.over_limit()
    }

    /// A DATA_FRAG; the sample is delivered (in order) when its last fragment is in.
    pub fn on_data_frag(
        &mut self,
        now: Instant,
        writer: Guid,
        h: &FragmentHeader,
        meta: &SampleMeta,
        data: &[u8],
        out: &mut Vec<ReaderAction>,
    ) {
        let Some(i) = self.proxy(writer, now) else { return };
        let p = &mut self.writers[i];
        if h.sn <= 0 {
            return;
        }
        p.fragmented = true;
        p.known_last = p.known_last.max(h.sn);
        if !p.accepts(h.sn, self.cfg.max_buffered) {
            self.count_unaccepted(i, h.sn);
            return;
        }
        match self.reassembler.add(writer, h, meta, data) {
            FragOutcome::Complete { meta, payload } => self.store(i, h.sn, &meta, || payload, out),
            FragOutcome::Rejected(_) => self.stats.frags_rejected += 1,
            FragOutcome::Incomplete | FragOutcome::Duplicate => {}
        }
    }

    fn count_unaccepted(&mut self, i: usize, sn: i64) {
        if sn >= self.writers[i].next + self.cfg.max_buffered as i64 {
            self.stats.beyond_window += 1;
        } else {
            self.stats.duplicates += 1;
        }
    }

    fn store(
        &mut self,
        i: usize,
        sn: i64,
        meta: &SampleMeta,
        payload: impl FnOnce() -> Payload,
        out: &mut Vec<ReaderAction>,
    ) {
        if !self.writers[i].accepts(sn, self.cfg.max_buffered) {
            self.count_unaccepted(i, sn);
            return;
        }
        let before = out.len();
        let p = &mut self.writers[i];
        let next_before = p.next;
        p.insert(sn, *meta, payload(), out);
        self.stats.delivered += (out.len() - before) as u64;
        self.after_advance(i, next_before, sn);
    }

    /// Forgets partial samples that became deliverable-or-skipped when `next` moved, or `sn` arrived.
    fn after_advance(&mut self, i: usize, next_before: i64, sn: i64) {
        let p = &self.writers[i];
        let next = p.next;
        if next != next_before || self.reassembler.contains(p.guid, sn) {
            self.reassembler.discard_where(p.guid, |s| s < next || s == sn);
        }
    }

    pub fn on_heartbeat(&mut self, now: Instant, writer: Guid, hb: &Heartbeat, out: &mut Vec<ReaderAction>) {
        let Some(i) = self.proxy(writer, now) else { return };
        // RTPS 2.5 8.3.7.5.3: firstSN > 0, lastSN >= 0, lastSN >= firstSN - 1.
        if hb.first_sn <= 0 || hb.last_sn < 0 || hb.last_sn < hb.first_sn - 1 {
            self.stats.heartbeats_ignored += 1;
            return;
        }
        let p = &mut self.writers[i];
        if !p.last_hb.accept(hb.count, now) {
            self.stats.heartbeats_ignored += 1;
            return;
        }
        p.known_last = p.known_last.max(hb.last_sn);
        p.hb_last = p.hb_last.max(hb.last_sn);
        if hb.first_sn > p.next {
            let before = out.len();
            let next_before = p.next;
            let lost = p.skip_to(hb.first_sn, p.synced, out);
            self.stats.delivered += (out.len() - before) as u64;
            if lost > 0 {
                self.stats.lost += lost;
                out.push(ReaderAction::Lost { writer, count: lost });
            }
            self.after_advance(i, next_before, 0);
        }
        let p = &mut self.writers[i];
        p.synced = true;
        let wants = !hb.final_flag
            || !p.missing(&self.reassembler, self.cfg.max_buffered).is_empty()
            || self.reassembler.partial_sns(writer).any(|s| s <= hb.last_sn);
        if wants {
            self.ack_after(i, now, out);
        }
    }

    pub fn on_heartbeat_frag(&mut self, now: Instant, writer: Guid, hb: &HeartbeatFrag, out: &mut Vec<ReaderAction>) {
        let Some(i) = self.proxy(writer, now) else { return };
        let p = &mut self.writers[i];
        if !p.last_hb_frag.accept(hb.count, now) {
            return;
        }
        p.known_last = p.known_last.max(hb.sn);
        let last_fragment = match p.frags_announced {
            Some((sn, n)) if sn == hb.sn => n.max(hb.last_fragment),
            _ => hb.last_fragment,
        };
        p.frags_announced = Some((hb.sn, last_fragment));
        // Only fragments up to the announced one can be missing; without any, no answer is owed.
        if self.reassembler.missing(writer, hb.sn, last_fragment).is_some() {
            self.ack_after(i, now, out);
        }
    }

    pub fn on_gap(&mut self, now: Instant, writer: Guid, gap: &Gap, out: &mut Vec<ReaderAction>) {
        let Some(i) = self.proxy(writer, now) else { return };
        if gap.start <= 0 {
            return;
        }
        let max = self.cfg.max_buffered;
        let p = &mut self.writers[i];
        let before = out.len();
        p.irrelevant_range(gap.start, gap.list.base.0, max, out);
        for sn in gap.list.iter() {
            p.irrelevant_one(sn.0, max);
        }
        p.deliver_after_gap(out);
        p.synced = true;
        self.stats.delivered += (out.len() - before) as u64;
        let next = p.next;
        self.reassembler.discard_where(writer, |s| s < next || gap.contains(s));
    }

    /// Sends the ACKNACKs and NACK_FRAGs whose response delay is over.
    pub fn on_timer(&mut self, now: Instant, out: &mut Vec<ReaderAction>) {
        for i in 0..self.writers.len() {
            if self.writers[i].ack_at.is_some_and(|t| t <= now) {
                self.send_ack(i, out);
            }
            if self.writers[i].preemptive_at.is_some_and(|t| t <= now) {
                self.send_preemptive(i, now, out);
            }
        }
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.writers.iter().flat_map(|w| [w.ack_at, w.preemptive_at]).flatten().min()
    }

    fn ack_after(&mut self, i: usize, now: Instant, out: &mut Vec<ReaderAction>) {
        let at = now + self.cfg.heartbeat_response_delay;
        let p = &mut self.writers[i];
        p.ack_at = Some(p.ack_at.map_or(at, |t| t.min(at)));
        if at <= now {
            self.send_ack(i, out);
        }
    }

    fn send_ack(&mut self, i: usize, out: &mut Vec<ReaderAction>) {
        let p = &mut self.writers[i];
        p.ack_at = None;
        let missing = p.missing(&self.reassembler, self.cfg.max_buffered);
        p.acknack_count = p.acknack_count.wrapping_add(1);
        let acknack =
            AckNack { state: missing.to_sequence_number_set(), count: p.acknack_count, final_flag: missing.is_empty() };
        out.push(ReaderAction::AckNack { writer: p.guid, acknack });
        self.stats.acknacks_sent += 1;
        let (next, last) = (p.next, p.known_last);
        for sn in self.reassembler.partial_sns(p.guid) {
            if sn < next || sn > last {
                continue;
            }
            // A HEARTBEAT announced the whole sample; a HEARTBEAT_FRAG only its first fragments;
            // otherwise the writer said nothing of it yet (it is still arriving): no NACK_FRAG.
            let up_to = match p.frags_announced {
                _ if sn <= p.hb_last => u32::MAX,
                Some((s, n)) if s == sn => n,
                _ => continue,
            };
            if let Some(set) = self.reassembler.missing(p.guid, sn, up_to) {
                p.nack_frag_count = p.nack_frag_count.wrapping_add(1);
                let nack_frag = NackFrag { sn, missing: set, count: p.nack_frag_count };
                out.push(ReaderAction::NackFrag { writer: p.guid, nack_frag });
                self.stats.nack_frags_sent += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{SequenceNumber, SequenceNumberSet};

    const W: Guid = Guid { prefix: crate::wire::GuidPrefix([1; 12]), entity_id: crate::wire::EntityId([0, 0, 1, 2]) };

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn matched(t: Instant, delay: Duration) -> (StatefulReader, Vec<ReaderAction>) {
        let mut cfg = ReaderConfig::new(Guid::UNKNOWN);
        cfg.heartbeat_response_delay = delay;
        let mut r = StatefulReader::new(cfg);
        let mut out = Vec::new();
        r.match_writer(t, W, &mut out);
        (r, out)
    }

    fn hb(first: i64, last: i64, count: i32, final_flag: bool) -> Heartbeat {
        Heartbeat { first_sn: first, last_sn: last, count, final_flag, liveliness_flag: false }
    }

    fn data(r: &mut StatefulReader, t: Instant, sn: i64, out: &mut Vec<ReaderAction>) {
        r.on_data(t, W, sn, &SampleMeta::default(), &sn.to_le_bytes(), out);
    }

    fn delivered(out: &[ReaderAction]) -> Vec<i64> {
        out.iter()
            .filter_map(|a| match a {
                ReaderAction::Deliver(d) => Some(d.sn),
                _ => None,
            })
            .collect()
    }

    fn acknacks(out: &[ReaderAction]) -> Vec<AckNack> {
        out.iter()
            .filter_map(|a| match a {
                ReaderAction::AckNack { acknack, .. } => Some(*acknack),
                _ => None,
            })
            .collect()
    }

    fn members(a: &AckNack) -> Vec<i64> {
        a.state.iter().map(|s| s.0).collect()
    }

    #[test]
    fn match_sends_a_preemptive_acknack() {
        let (_, out) = matched(Instant::now(), Duration::ZERO);
        let a = acknacks(&out);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].state.base.0, a[0].state.num_bits(), a[0].final_flag), (1, 0, false));
    }

    #[test]
    fn the_preemptive_acknack_repeats_with_backoff_until_the_writer_speaks() {
        let t = Instant::now();
        let (mut r, _) = matched(t, Duration::ZERO);
        assert!(!r.writer(W).unwrap().has_heard());
        let mut sent = Vec::new();
        let mut now = t;
        while now < t + ms(3000) {
            now += ms(10);
            let mut out = Vec::new();
            r.on_timer(now, &mut out);
            for a in acknacks(&out) {
                assert_eq!((a.state.base.0, a.state.num_bits(), a.final_flag), (1, 0, false));
                sent.push(((now - t).as_millis(), a.count));
            }
        }
        // 100, 200, 400, 800 ms apart, then every second; counts go up from the match's 1.
        assert_eq!(sent, vec![(100, 2), (300, 3), (700, 4), (1500, 5), (2500, 6)]);
        assert_eq!(r.next_deadline(), Some(t + ms(3500)));
        // A final HEARTBEAT with nothing to ask for: the writer knows us, no more ACKNACKs.
        let mut out = Vec::new();
        r.on_heartbeat(now, W, &hb(1, 0, 1, true), &mut out);
        assert!(r.writer(W).unwrap().has_heard());
        r.on_timer(t + ms(10_000), &mut out);
        assert!(acknacks(&out).is_empty());
        assert_eq!(r.next_deadline(), None);
    }

    #[test]
    fn reorders_drops_duplicates_and_nacks_the_holes() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        out.clear();
        for sn in [2, 4, 2, 1] {
            data(&mut r, t, sn, &mut out);
        }
        assert_eq!(delivered(&out), vec![1, 2]);
        assert_eq!(r.stats().duplicates, 1);
        out.clear();
        r.on_heartbeat(t, W, &hb(1, 6, 1, true), &mut out);
        let a = acknacks(&out);
        assert_eq!((a[0].state.base.0, members(&a[0]), a[0].final_flag), (3, vec![3, 5, 6], false));
        assert_eq!(a[0].count, 2, "counts go up from the pre-emptive ACKNACK's 1");
        out.clear();
        for sn in [6, 3, 5] {
            data(&mut r, t, sn, &mut out);
        }
        assert_eq!(delivered(&out), vec![3, 4, 5, 6]);
        // Nothing missing and a final HEARTBEAT: no answer; without the final flag: a pure ACK.
        out.clear();
        r.on_heartbeat(t, W, &hb(1, 6, 2, true), &mut out);
        assert!(acknacks(&out).is_empty());
        r.on_heartbeat(t, W, &hb(1, 6, 3, false), &mut out);
        let a = acknacks(&out);
        assert_eq!((a[0].state.base.0, a[0].state.num_bits(), a[0].final_flag), (7, 0, true));
    }

    #[test]
    fn duplicate_and_invalid_heartbeats_are_ignored() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        out.clear();
        r.on_heartbeat(t, W, &hb(1, 3, 5, false), &mut out);
        assert_eq!(acknacks(&out).len(), 1);
        r.on_heartbeat(t, W, &hb(1, 3, 5, false), &mut out);
        r.on_heartbeat(t, W, &hb(1, 3, 4, false), &mut out);
        r.on_heartbeat(t, W, &hb(0, 3, 6, false), &mut out);
        r.on_heartbeat(t, W, &hb(5, 3, 7, false), &mut out);
        assert_eq!(acknacks(&out).len(), 1);
        assert_eq!(r.stats().heartbeats_ignored, 4);
        // Unknown writers are ignored altogether.
        r.on_heartbeat(t, Guid::UNKNOWN, &hb(1, 3, 9, false), &mut out);
        assert_eq!(r.stats().unknown_writer, 1);
    }

    #[test]
    fn heartbeat_response_delay_coalesces() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, ms(10));
        out.clear();
        r.on_heartbeat(t, W, &hb(1, 2, 1, true), &mut out);
        r.on_heartbeat(t + ms(4), W, &hb(1, 5, 2, true), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.next_deadline(), Some(t + ms(10)));
        r.on_timer(t + ms(10), &mut out);
        let a = acknacks(&out);
        assert_eq!(a.len(), 1);
        assert_eq!(members(&a[0]), vec![1, 2, 3, 4, 5]);
        assert_eq!(r.next_deadline(), None);
    }

    #[test]
    fn first_sn_beyond_ours_skips_and_counts_lost_once_in_sync() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        // A late joiner: the first HEARTBEAT says 1..=10 are gone; that is not a loss.
        r.on_heartbeat(t, W, &hb(11, 12, 1, true), &mut out);
        assert_eq!(r.writer(W).unwrap().next_sn(), 11);
        data(&mut r, t, 12, &mut out);
        out.clear();
        r.on_heartbeat(t, W, &hb(14, 15, 2, true), &mut out);
        assert_eq!(delivered(&out), vec![12], "received samples below the first SN are still delivered");
        assert!(out.contains(&ReaderAction::Lost { writer: W, count: 2 }), "11 and 13: {out:?}");
        assert_eq!(r.stats().lost, 2);
        assert_eq!(members(&acknacks(&out)[0]), vec![14, 15]);
    }

    #[test]
    fn gaps_skip_without_loss() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        out.clear();
        data(&mut r, t, 3, &mut out);
        data(&mut r, t, 6, &mut out);
        let mut list = SequenceNumberSet::new(SequenceNumber(3));
        list.insert(SequenceNumber(5));
        r.on_gap(t, W, &Gap { start: 1, list }, &mut out);
        assert_eq!(delivered(&out), vec![3]);
        r.on_gap(t, W, &Gap::range(4, 5), &mut out);
        assert_eq!(delivered(&out), vec![3, 6]);
        assert_eq!(r.stats().lost, 0);
        // A volatile late joiner's GAP over everything written so far.
        r.on_gap(t, W, &Gap::range(1, 1 << 33), &mut out);
        assert_eq!(r.writer(W).unwrap().next_sn(), 1 << 33);
        // GAPs with a non-positive start are invalid.
        r.on_gap(t, W, &Gap::range(-5, 1 << 34), &mut out);
        assert_eq!(r.writer(W).unwrap().next_sn(), 1 << 33);
    }

    #[test]
    fn acknack_bitmap_is_at_most_256_and_within_the_buffer() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        out.clear();
        r.on_heartbeat(t, W, &hb(1, 10_000, 1, true), &mut out);
        let a = acknacks(&out);
        assert_eq!((a[0].state.num_bits(), members(&a[0]).len()), (256, 256));
        let mut cfg = ReaderConfig::new(Guid::UNKNOWN);
        cfg.max_buffered = 16;
        let mut r = StatefulReader::new(cfg);
        r.match_writer(t, W, &mut out);
        out.clear();
        data(&mut r, t, 20, &mut out);
        assert_eq!(r.stats().beyond_window, 1);
        r.on_heartbeat(t, W, &hb(1, 10_000, 1, true), &mut out);
        assert_eq!(members(&acknacks(&out)[0]), (1..=16).collect::<Vec<_>>());
    }

    #[test]
    fn partial_samples_get_nack_frag_not_acknack_bits() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        let h = |n| FragmentHeader {
            sn: 2,
            fragment_start: n,
            fragments_in_submessage: 1,
            fragment_size: 4,
            sample_size: 16,
        };
        r.on_data_frag(t, W, &h(1), &SampleMeta::default(), &[1; 4], &mut out);
        r.on_data_frag(t, W, &h(3), &SampleMeta::default(), &[3; 4], &mut out);
        out.clear();
        r.on_heartbeat(t, W, &hb(1, 3, 1, true), &mut out);
        assert_eq!(members(&acknacks(&out)[0]), vec![1, 3]);
        let nf: Vec<NackFrag> = out
            .iter()
            .filter_map(|a| match a {
                ReaderAction::NackFrag { nack_frag, .. } => Some(*nack_frag),
                _ => None,
            })
            .collect();
        assert_eq!(nf.len(), 1);
        assert_eq!((nf[0].sn, nf[0].missing.iter().collect::<Vec<_>>()), (2, vec![2, 4]));
        // HEARTBEAT_FRAG for it asks again; hostile fragments are counted and dropped.
        out.clear();
        r.on_heartbeat_frag(t, W, &HeartbeatFrag { sn: 2, last_fragment: 4, count: 1 }, &mut out);
        assert_eq!(out.iter().filter(|a| matches!(a, ReaderAction::NackFrag { .. })).count(), 1);
        r.on_data_frag(t, W, &h(0), &SampleMeta::default(), &[0; 4], &mut out);
        r.on_data_frag(t, W, &h(5), &SampleMeta::default(), &[0; 4], &mut out);
        assert_eq!(r.stats().frags_rejected, 2);
        data(&mut r, t, 1, &mut out);
        out.clear();
        r.on_data_frag(t, W, &h(2), &SampleMeta::default(), &[2; 4], &mut out);
        r.on_data_frag(t, W, &h(4), &SampleMeta::default(), &[4; 4], &mut out);
        match &out[..] {
            [ReaderAction::Deliver(d)] => {
                assert_eq!(d.sn, 2);
                assert_eq!(&*d.payload, &[1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4]);
            }
            other => panic!("{other:?}"),
        }
    }

    /// Cyclone sends a large sample as messages of fragments, each followed by a HEARTBEAT_FRAG
    /// saying how far it got: fragments past that are on their way, not missing.
    #[test]
    fn heartbeat_frag_nacks_only_what_it_announced() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        let h = |n, k| FragmentHeader {
            sn: 1,
            fragment_start: n,
            fragments_in_submessage: k,
            fragment_size: 4,
            sample_size: 40,
        };
        let nack_frags = |out: &[ReaderAction]| -> Vec<Vec<u32>> {
            out.iter()
                .filter_map(|a| match a {
                    ReaderAction::NackFrag { nack_frag, .. } => Some(nack_frag.missing.iter().collect()),
                    _ => None,
                })
                .collect()
        };
        out.clear();
        // Fragments 1-4 in one submessage, then "sent up to 4": nothing to say.
        r.on_data_frag(t, W, &h(1, 4), &SampleMeta::default(), &[1; 16], &mut out);
        r.on_heartbeat_frag(t, W, &HeartbeatFrag { sn: 1, last_fragment: 4, count: 1 }, &mut out);
        assert!(out.is_empty(), "{out:?}");
        // 6-8 arrive, 5 does not; "sent up to 8": only 5 is missing (9 and 10 are on their way).
        r.on_data_frag(t, W, &h(6, 3), &SampleMeta::default(), &[6; 12], &mut out);
        r.on_heartbeat_frag(t, W, &HeartbeatFrag { sn: 1, last_fragment: 8, count: 2 }, &mut out);
        assert_eq!(nack_frags(&out), vec![vec![5]]);
        // A HEARTBEAT announces the whole sample: everything missing is asked for.
        out.clear();
        r.on_heartbeat(t, W, &hb(1, 1, 1, false), &mut out);
        assert_eq!(nack_frags(&out), vec![vec![5, 9, 10]]);
    }

    #[test]
    fn sequence_numbers_across_two_to_the_32() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        let b = (1i64 << 32) - 2;
        r.on_heartbeat(t, W, &hb(b, b + 4, 1, true), &mut out);
        out.clear();
        for sn in [b + 4, b + 2, b, b + 1] {
            data(&mut r, t, sn, &mut out);
        }
        assert_eq!(delivered(&out), vec![b, b + 1, b + 2]);
        r.on_heartbeat(t, W, &hb(b, b + 4, 2, true), &mut out);
        let a = acknacks(&out);
        assert_eq!((a[0].state.base, members(&a[0])), (SequenceNumber::from_parts(1, 1), vec![b + 3]));
        data(&mut r, t, b + 3, &mut out);
        assert_eq!(delivered(&out), vec![b, b + 1, b + 2, b + 3, b + 4]);
    }

    #[test]
    fn describe_reports_what_the_reader_knows_of_each_writer() {
        let t = Instant::now();
        let (mut r, mut out) = matched(t, Duration::ZERO);
        data(&mut r, t, 1, &mut out);
        data(&mut r, t, 3, &mut out);
        r.on_heartbeat(t, W, &hb(1, 5, 1, false), &mut out);
        let s = r.describe(t);
        let line = s.lines().next().unwrap();
        assert!(line.starts_with(&format!("writer={W} next=2 known_last=5 hb_last=5 buffered=1 ")), "{s}");
        assert!(line.contains(" last_hb=Some(1) "), "{s}");
    }
}
