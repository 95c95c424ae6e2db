//! What a reliable writer knows about one matched reader (RTPS 2.5 section 8.4.7.5): how far it
//! has acknowledged, what it asked to have resent, and which resends are still under way.
//!
//! All the windows here are 256 SNs wide (the most an ACKNACK can ask for) and live inline, so
//! handling an ACKNACK or queueing a repair never allocates.

use std::time::{Duration, Instant};

use super::messages::{AckNack, LastCount, NackFrag};
use super::sn_window::SnWindow;
use crate::qos::Durability;
use crate::wire::Guid;

/// How many NACK_FRAG requests (distinct samples) a proxy queues at most; a reader asks for the
/// fragments of the first few partial samples, and the oldest request gives way to a newer one.
const MAX_FRAG_REQUESTS: usize = 8;

/// A queued NACK_FRAG: fragments of `sn` to resend.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FragRequest {
    pub(crate) sn: i64,
    pub(crate) frags: SnWindow,
}

/// Fragments of `sn` resent recently: not resent again for a NACK_FRAG before `until`.
#[derive(Debug, Clone, Copy)]
struct FragsUnderway {
    sn: i64,
    frags: SnWindow,
    until: Instant,
}

#[derive(Debug)]
pub struct ReaderProxy {
    pub(crate) guid: Guid,
    pub(crate) reliable: bool,
    pub(crate) durability: Durability,
    /// SNs below this are irrelevant to the reader: a volatile reader matched after they were written.
    pub(crate) first_relevant: i64,
    /// Every SN up to and including this one is acknowledged (or irrelevant).
    pub(crate) acked: i64,
    /// A volatile reader matched after samples were written, which has not yet shown (by an ACKNACK
    /// base at or past `first_relevant`) that it knows they are not for it. Until then its
    /// HEARTBEATs say the history starts at `first_relevant`, so that it does not take the older
    /// samples for lost.
    pub(crate) joining: bool,
    /// A reliable volatile reader whose first ACKNACK has not been answered yet: it may not know us
    /// yet, and Cyclone DDS starts a volatile reader of another vendor's writer at the last SN of
    /// the first HEARTBEAT it sees, dropping every sample up to it (even those written after the
    /// match, whose DATA it dropped while it did not know us). Until then, and in the answer to its
    /// first ACKNACK, its HEARTBEATs announce nothing past `first_relevant - 1` ("sync
    /// HEARTBEATs"): it starts at `first_relevant` and asks for what it missed.
    pub(crate) sync_pending: bool,
    /// The HEARTBEAT owed (`hb_due`) answers the first ACKNACK.
    pub(crate) sync_answer: bool,
    /// That answer went out: the reader's next ACKNACK ends `sync_pending`. (Not the answer itself:
    /// a HEARTBEAT the writing thread sends next could reach the reader before the answer the
    /// receive thread queued.)
    sync_sent: bool,
    last_acknack: LastCount,
    last_nack_frag: LastCount,
    /// Whole samples the reader asked for and we have not resent yet.
    pub(crate) requested: SnWindow,
    /// Samples resent recently: a NACK for them is not acted on until `underway_until`, because the
    /// resend is probably still in flight (nackSuppressionDuration).
    underway: SnWindow,
    underway_until: Option<Instant>,
    /// A late-joining transient-local reader's history still to push: `[replay_next, replay_end]`.
    pub(crate) replay_next: i64,
    pub(crate) replay_end: i64,
    /// A fragmented sample being resent whole: its SN and the next fragment to send.
    pub(crate) frag_cursor: Option<(i64, u32)>,
    pub(crate) frag_requests: Vec<FragRequest>,
    frags_underway: Vec<FragsUnderway>,
    /// When the queued repairs may go out (after the NACK response delay); `None` when idle.
    pub(crate) resend_at: Option<Instant>,
    /// The reader asked for SNs from here up to `first_relevant`, which are not for it: a GAP is owed.
    pub(crate) gap_below: Option<i64>,
    /// A directed HEARTBEAT is owed (the reader asked for one, or needs to learn our first SN).
    pub(crate) hb_due: bool,
    pub(crate) last_heard: Instant,
}

/// What an ACKNACK changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AckOutcome {
    /// A duplicate or reordered ACKNACK (count not newer), or from a best-effort reader.
    Ignored,
    Accepted {
        acked_moved: bool,
    },
}

impl ReaderProxy {
    pub(crate) fn new(guid: Guid, reliable: bool, durability: Durability, first_relevant: i64, now: Instant) -> Self {
        ReaderProxy {
            guid,
            reliable,
            durability,
            first_relevant,
            acked: first_relevant - 1,
            joining: false,
            sync_pending: reliable && durability == Durability::Volatile,
            sync_answer: false,
            sync_sent: false,
            last_acknack: LastCount::default(),
            last_nack_frag: LastCount::default(),
            requested: SnWindow::new(first_relevant),
            underway: SnWindow::new(first_relevant),
            underway_until: None,
            replay_next: 1,
            replay_end: 0,
            frag_cursor: None,
            frag_requests: Vec::with_capacity(MAX_FRAG_REQUESTS),
            frags_underway: Vec::with_capacity(MAX_FRAG_REQUESTS),
            resend_at: None,
            gap_below: None,
            hb_due: false,
            last_heard: now,
        }
    }

    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// A directed HEARTBEAT went out: nothing more is owed; after the answer to the first ACKNACK,
    /// the reader's next ACKNACK ends the sync.
    pub(crate) fn heartbeat_sent(&mut self) {
        self.hb_due = false;
        if self.sync_answer {
            self.sync_answer = false;
            self.sync_sent = true;
        }
    }

    /// The SN range a HEARTBEAT to this reader announces, given the history's: from
    /// `first_relevant` while joining, and nothing past `first_relevant - 1` while a sync is
    /// pending (see `sync_pending`).
    pub(crate) fn heartbeat_range(&self, first_sn: i64, last_sn: i64) -> (i64, i64) {
        let floor = if self.joining || self.sync_pending { self.first_relevant } else { 0 };
        let first = first_sn.max(floor);
        let last = if self.sync_pending { (self.first_relevant - 1).max(first - 1).min(last_sn) } else { last_sn };
        (first, last)
    }

    pub fn is_reliable(&self) -> bool {
        self.reliable
    }

    pub fn durability(&self) -> Durability {
        self.durability
    }

    /// Every SN up to this one is acknowledged by the reader (or irrelevant to it).
    pub fn acked(&self) -> i64 {
        self.acked
    }

    /// When we last heard from the reader (ACKNACK or NACK_FRAG): for the runtime's liveliness checks.
    pub fn last_heard(&self) -> Instant {
        self.last_heard
    }

    /// No repair is queued (a HEARTBEAT may still be owed).
    pub(crate) fn drained(&self) -> bool {
        self.frag_cursor.is_none()
            && self.frag_requests.is_empty()
            && self.requested.is_empty()
            && self.replay_next > self.replay_end
            && self.gap_below.is_none()
    }

    /// Wants the repair pump to run at `at` (or earlier, if already asked).
    pub(crate) fn schedule(&mut self, at: Instant) {
        self.resend_at = Some(self.resend_at.map_or(at, |t| t.min(at)));
    }

    /// Whether the reader has sent an ACKNACK: it knows this writer, so it will take what the
    /// writer sends from now on (a reader that does not know a writer yet drops its data, and a
    /// volatile one may then skip it as history when it learns of the writer).
    pub fn has_acknacked(&self) -> bool {
        self.last_acknack.count().is_some()
    }

    /// Applies an ACKNACK; `last_sn` is the writer's last SN (requests beyond it mean nothing).
    pub(crate) fn on_acknack(&mut self, now: Instant, a: &AckNack, last_sn: i64, nack_delay: Duration) -> AckOutcome {
        let first_heard = self.last_acknack.count().is_none();
        if !self.last_acknack.accept(a.count, now) {
            return AckOutcome::Ignored;
        }
        if self.sync_sent {
            self.sync_sent = false;
            self.sync_pending = false;
        }
        self.last_heard = now;
        if !self.reliable {
            return AckOutcome::Ignored;
        }
        // base - 1 is acknowledged; a base past what we wrote is a confused reader: clamp it.
        let acked_now = a.state.base.0.saturating_sub(1).min(last_sn);
        let acked_moved = acked_now > self.acked;
        if acked_moved {
            self.acked = acked_now;
            self.underway.advance(acked_now + 1);
            self.frag_requests.retain(|r| r.sn > acked_now);
            self.frags_underway.retain(|r| r.sn > acked_now);
            if self.frag_cursor.is_some_and(|(sn, _)| sn <= acked_now) {
                self.frag_cursor = None;
            }
            self.replay_next = self.replay_next.max(acked_now + 1);
        }
        if self.underway_until.is_some_and(|t| now >= t) {
            self.underway.clear();
            self.underway_until = None;
        }
        if a.state.base.0 >= self.first_relevant {
            self.joining = false;
        } else if a.state.base.0.max(1) < self.first_relevant {
            // A volatile reader that missed the GAP we sent when it matched: send it again.
            self.gap_below = Some(a.state.base.0.max(1));
            self.schedule(now + nack_delay);
        }
        // The newest ACKNACK is the reader's whole current view: it replaces older requests.
        self.requested = SnWindow::new(self.acked + 1);
        let mut asked = false;
        for sn in a.state.iter().map(|s| s.0) {
            if sn > self.acked && sn <= last_sn && !self.underway.contains(sn) {
                asked |= self.requested.insert(sn);
            }
        }
        if let Some((sn, _)) = self.frag_cursor {
            // Already being resent whole.
            self.requested.remove(sn);
        }
        if asked {
            self.schedule(now + nack_delay);
        }
        // Without the final flag the reader wants a HEARTBEAT back; when it asked for resends the
        // HEARTBEAT follows them, so its next ACKNACK reflects them. When everything it asked for is
        // still under way, stay quiet: answering would start a HEARTBEAT/ACKNACK ping-pong with no data.
        if !a.final_flag && (asked || a.state.iter().next().is_none()) {
            self.hb_due = true;
            self.schedule(now + nack_delay);
        }
        if first_heard && self.sync_pending {
            if asked || a.state.base.0 > self.first_relevant {
                // It asks for samples or acknowledges some past `first_relevant`: it already knows
                // where it stands, a sync HEARTBEAT would change nothing.
                self.sync_pending = false;
            } else {
                // The reader knows us now: answer with a sync HEARTBEAT whatever the final flag says.
                self.hb_due = true;
                self.sync_answer = true;
                self.schedule(now + nack_delay);
            }
        }
        AckOutcome::Accepted { acked_moved }
    }

    /// Queues a NACK_FRAG; `total` is the sample's fragment count. Returns whether it was taken.
    pub(crate) fn on_nack_frag(&mut self, now: Instant, nf: &NackFrag, total: u32, nack_delay: Duration) -> bool {
        if !self.last_nack_frag.accept(nf.count, now) {
            return false;
        }
        self.last_heard = now;
        if !self.reliable || nf.sn <= self.acked {
            return false;
        }
        // Fragments a whole-sample resend in progress will still send need no separate request.
        let cursor_next = match self.frag_cursor {
            Some((sn, next)) if sn == nf.sn => next,
            _ => u32::MAX,
        };
        let underway = self.frags_underway.iter().find(|u| u.sn == nf.sn && u.until > now).map(|u| u.frags);
        let mut frags = SnWindow::new(nf.missing.base as i64);
        for n in nf.missing.iter() {
            let in_flight = underway.is_some_and(|u| u.contains(n as i64));
            if n >= 1 && n <= total && n < cursor_next && !in_flight {
                frags.insert(n as i64);
            }
        }
        if frags.is_empty() {
            return false;
        }
        if let Some(r) = self.frag_requests.iter_mut().find(|r| r.sn == nf.sn) {
            r.frags = frags;
        } else {
            if self.frag_requests.len() >= MAX_FRAG_REQUESTS {
                self.frag_requests.remove(0);
            }
            self.frag_requests.push(FragRequest { sn: nf.sn, frags });
        }
        self.schedule(now + nack_delay);
        true
    }

    /// One line of what this proxy holds, for a failing test or a stuck link's report.
    pub(crate) fn describe(&self, now: Instant) -> String {
        let ms = |t: Option<Instant>| t.map(|t| t.saturating_duration_since(now).as_millis() as i64);
        let requested: Vec<i64> = self.requested.iter().take(8).collect();
        let frag_requests: Vec<i64> = self.frag_requests.iter().map(|r| r.sn).collect();
        format!(
            "reader={} reliable={} acked={} first_relevant={} joining={} sync_pending={} sync_sent={} \
             last_acknack={:?} last_nack_frag={:?} requested={requested:?} frag_cursor={:?} \
             frag_requests={frag_requests:?} replay={}..={} resend_in_ms={:?} hb_due={} heard_ms_ago={}",
            self.guid,
            self.reliable,
            self.acked,
            self.first_relevant,
            self.joining,
            self.sync_pending,
            self.sync_sent,
            self.last_acknack.count(),
            self.last_nack_frag.count(),
            self.frag_cursor,
            self.replay_next,
            self.replay_end,
            ms(self.resend_at),
            self.hb_due,
            now.saturating_duration_since(self.last_heard).as_millis()
        )
    }

    /// Records that fragment `n` of `sn` was just resent.
    pub(crate) fn mark_frag_underway(&mut self, now: Instant, sn: i64, n: u32, suppression: Duration) {
        let until = now + suppression;
        match self.frags_underway.iter_mut().find(|u| u.sn == sn) {
            Some(u) => {
                if u.until <= now {
                    u.frags = SnWindow::new(n as i64);
                }
                u.frags.insert(n as i64);
                u.until = until;
            }
            None => {
                if self.frags_underway.len() >= MAX_FRAG_REQUESTS {
                    self.frags_underway.remove(0);
                }
                let mut frags = SnWindow::new(n as i64);
                frags.insert(n as i64);
                self.frags_underway.push(FragsUnderway { sn, frags, until });
            }
        }
    }

    /// Records that `sn` was just resent whole.
    pub(crate) fn mark_underway(&mut self, now: Instant, sn: i64, suppression: Duration) {
        if self.underway.base() < self.acked + 1 {
            self.underway.advance(self.acked + 1);
        }
        self.underway.insert(sn);
        self.underway_until = Some(now + suppression);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{SequenceNumber, SequenceNumberSet};

    fn acknack(base: i64, missing: &[i64], count: i32, final_flag: bool) -> AckNack {
        let mut state = SequenceNumberSet::new(SequenceNumber(base));
        for &m in missing {
            state.insert(SequenceNumber(m));
        }
        AckNack { state, count, final_flag }
    }

    fn proxy(now: Instant) -> ReaderProxy {
        ReaderProxy::new(Guid::UNKNOWN, true, Durability::Volatile, 1, now)
    }

    #[test]
    fn positive_ack_and_requests() {
        let now = Instant::now();
        let mut p = proxy(now);
        let out = p.on_acknack(now, &acknack(4, &[4, 6], 1, false), 10, Duration::ZERO);
        assert_eq!(out, AckOutcome::Accepted { acked_moved: true });
        assert_eq!(p.acked(), 3);
        assert_eq!(p.requested.iter().collect::<Vec<_>>(), vec![4, 6]);
        assert!(p.hb_due && p.resend_at == Some(now));
    }

    #[test]
    fn duplicate_and_reordered_acknacks_are_ignored() {
        let now = Instant::now();
        let mut p = proxy(now);
        p.on_acknack(now, &acknack(5, &[], 2, true), 10, Duration::ZERO);
        assert_eq!(p.on_acknack(now, &acknack(8, &[], 2, true), 10, Duration::ZERO), AckOutcome::Ignored);
        assert_eq!(p.on_acknack(now, &acknack(8, &[], 1, true), 10, Duration::ZERO), AckOutcome::Ignored);
        assert_eq!(p.acked(), 4);
    }

    #[test]
    fn empty_acknack_acks_everything_below_base_and_clamps() {
        let now = Instant::now();
        let mut p = proxy(now);
        // The first ACKNACK of a volatile reader is answered by a sync HEARTBEAT (nothing past 0).
        p.on_acknack(now, &acknack(1, &[], 0, true), 10, Duration::ZERO);
        assert!(p.hb_due && p.sync_pending);
        assert_eq!(p.heartbeat_range(1, 10), (1, 0));
        p.heartbeat_sent();
        p.resend_at = None;
        assert!(p.sync_pending, "until the reader answers");
        p.on_acknack(now, &acknack(1, &[], 1, true), 10, Duration::ZERO);
        assert!(!p.sync_pending);
        assert_eq!(p.heartbeat_range(1, 10), (1, 10));
        assert_eq!(p.acked(), 0);
        assert!(p.drained() && !p.hb_due, "an empty final ACKNACK asks for nothing");
        p.on_acknack(now, &acknack(1000, &[], 2, true), 10, Duration::ZERO);
        assert_eq!(p.acked(), 10, "acknowledging past the last SN is clamped");
        p.on_acknack(now, &acknack(1, &[], 3, false), 10, Duration::ZERO);
        assert_eq!(p.acked(), 10, "the acknowledged point never moves back");
        assert!(p.hb_due, "a non-final ACKNACK asks for a HEARTBEAT");
    }

    #[test]
    fn resends_under_way_are_not_repeated_until_suppression_ends() {
        let t0 = Instant::now();
        let mut p = proxy(t0);
        p.on_acknack(t0, &acknack(1, &[1, 2], 1, true), 5, Duration::ZERO);
        p.requested.clear();
        p.mark_underway(t0, 1, Duration::from_millis(10));
        p.mark_underway(t0, 2, Duration::from_millis(10));
        p.on_acknack(t0 + Duration::from_millis(5), &acknack(1, &[1, 2], 2, false), 5, Duration::ZERO);
        assert!(p.requested.is_empty() && !p.hb_due, "nothing resent twice, no HEARTBEAT ping-pong");
        p.on_acknack(t0 + Duration::from_millis(10), &acknack(2, &[2], 3, false), 5, Duration::ZERO);
        assert_eq!(p.requested.iter().collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn nack_frag_requests_are_bounded_and_validated() {
        let now = Instant::now();
        let mut p = proxy(now);
        let mut nf = NackFrag { sn: 3, missing: crate::wire::FragmentNumberSet::new(0), count: 1 };
        nf.missing.insert(0);
        assert!(!p.on_nack_frag(now, &nf, 5, Duration::ZERO), "fragment 0 does not exist");
        for (i, sn) in (2..12).enumerate() {
            let mut nf = NackFrag { sn, missing: crate::wire::FragmentNumberSet::new(4), count: 2 + i as i32 };
            nf.missing.insert(4);
            nf.missing.insert(9);
            assert!(p.on_nack_frag(now, &nf, 5, Duration::ZERO));
        }
        assert_eq!(p.frag_requests.len(), MAX_FRAG_REQUESTS);
        assert_eq!(p.frag_requests[0].sn, 4);
        assert_eq!(p.frag_requests[0].frags.iter().collect::<Vec<_>>(), vec![4], "9 > total is dropped");
    }
}
