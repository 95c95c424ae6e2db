//! The reliable writer (RTPS 2.5 section 8.4.9): history, one [`ReaderProxy`] per matched reader,
//! HEARTBEATs, and repairs driven by ACKNACK and NACK_FRAG.
//!
//! - A write goes to every matched reader at once (`Dest::All`), whole or as DATA_FRAGs; reliable
//!   readers are then told what exists by HEARTBEATs: piggybacked on writes at most every fast
//!   period, periodic otherwise, with the final flag once every reliable reader acknowledged all.
//! - Repairs (and a transient-local late joiner's history) are directed to the reader that needs
//!   them, after the NACK response delay, and paced by a bytes-per-tick budget shared by all readers,
//!   so one large NACKed sample cannot flood a receiver. Best-effort readers never get repairs.
//! - A sample a reader asks for that the history no longer has is answered with a HEARTBEAT whose
//!   first SN tells the reader it is lost; one that was never relevant to the reader (written before
//!   a volatile reader matched) with a GAP.
//! - A directed write ([`StatefulWriter::write_to`]) goes to one reader only; every other reliable
//!   reader gets a GAP for its SN at once (and again if it asks for it), as Fast DDS does for
//!   samples a reader filter finds irrelevant, so that no reader waits for a sample that is not
//!   for it. Best-effort readers get nothing (they see a jump in SNs, as after a loss).
//! - A volatile writer drops samples every reliable reader acknowledged (all of them when it has no
//!   reliable reader); a transient-local KEEP_ALL one keeps them for late joiners until it needs
//!   the room. When the oldest sample is still
//!   unacknowledged, a write returns [`WriteBlocked`] and the runtime waits for an ACKNACK.

use crate::payload::Payload;
use std::time::{Duration, Instant};

use super::fragment::{self, DEFAULT_FRAGMENT_SIZE};
use super::history_cache::{HistoryCache, HistoryKind};
use super::messages::{AckNack, Data, Dest, Gap, Heartbeat, HeartbeatFrag, NackFrag, SampleMeta, WriterAction};
use super::reader_proxy::{AckOutcome, ReaderProxy};
use crate::qos::{Durability, Qos};
use crate::wire::Guid;

/// How the writer behaves; [`WriterConfig::new`] gives the defaults.
#[derive(Debug, Clone)]
pub struct WriterConfig {
    pub guid: Guid,
    pub history: HistoryKind,
    pub durability: Durability,
    /// HEARTBEAT period while every reliable reader has acknowledged everything.
    pub heartbeat_period: Duration,
    /// HEARTBEAT period while something is unacknowledged (doubling with each HEARTBEAT no ACKNACK
    /// answers, up to `unacked_heartbeat_max`), and the least gap between piggybacked HEARTBEATs.
    pub fast_heartbeat_period: Duration,
    /// The longest HEARTBEAT period while something is unacknowledged (and at most
    /// `heartbeat_period`). A HEARTBEAT or its ACKNACK lost a few times in a row must not leave
    /// the last samples unrepaired for long: over a link losing 20 % each way, a back-off to 1 s
    /// left the tail of a stream of 8 KiB samples unacknowledged 2.3-5.3 s after the last write in
    /// 10 of 3,000 simulated runs (100 ms: at most 1.1 s), and test/fault's lossy_frag failed
    /// once in CI. Cyclone DDS heartbeats unacknowledged data every 100 ms.
    pub unacked_heartbeat_max: Duration,
    /// How long to wait after a NACK before repairing (lets several NACKs coalesce); 0 is allowed.
    pub nack_response_delay: Duration,
    /// A sample just resent is not resent again for this long (nackSuppressionDuration).
    pub nack_suppression: Duration,
    /// Samples longer than this go out as DATA_FRAGs of this size (at most 65535).
    pub fragment_size: usize,
    /// Repair bytes (payload plus a nominal header per submessage) allowed per pacing tick.
    pub repair_budget: usize,
    pub repair_tick: Duration,
    /// The SN of the first sample (1; tests start elsewhere to cross 2^32).
    pub first_sn: i64,
}

impl WriterConfig {
    pub fn new(guid: Guid) -> Self {
        WriterConfig {
            guid,
            history: HistoryKind::KeepLast(10),
            durability: Durability::Volatile,
            heartbeat_period: Duration::from_millis(100),
            fast_heartbeat_period: Duration::from_millis(10),
            unacked_heartbeat_max: Duration::from_millis(100),
            nack_response_delay: Duration::ZERO,
            nack_suppression: Duration::from_millis(10),
            fragment_size: DEFAULT_FRAGMENT_SIZE,
            repair_budget: 256 * 1024,
            repair_tick: Duration::from_millis(2),
            first_sn: 1,
        }
    }

    /// History and durability from the QoS; `max_samples` bounds a KEEP_ALL history.
    pub fn from_qos(guid: Guid, qos: &Qos, max_samples: usize) -> Self {
        WriterConfig {
            history: HistoryKind::from_qos(qos.history, max_samples),
            durability: qos.durability,
            ..WriterConfig::new(guid)
        }
    }
}

/// A matched reader as discovery describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchedReader {
    pub guid: Guid,
    pub reliable: bool,
    pub durability: Durability,
}

/// The KEEP_ALL history is full of unacknowledged samples: nothing was written. The runtime waits
/// (up to max_blocking_time) for an ACKNACK or an unmatch to make room, then tries again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteBlocked;

/// Counters for tests, statistics and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriterStats {
    pub samples_written: u64,
    pub data_sent: u64,
    pub frags_sent: u64,
    pub data_resent: u64,
    pub frags_resent: u64,
    pub gaps_sent: u64,
    pub heartbeats_sent: u64,
    pub acknacks_ignored: u64,
    pub writes_blocked: u64,
}

/// Nominal bytes of headers a submessage costs against the repair budget.
const SUBMESSAGE_COST: usize = 32;

#[derive(Debug)]
pub struct StatefulWriter {
    cfg: WriterConfig,
    history: HistoryCache,
    proxies: Vec<ReaderProxy>,
    /// The lowest `acked` over reliable proxies (or the last SN when there are none).
    min_acked: i64,
    reliable_count: usize,
    hb_count: i32,
    last_hb: Instant,
    /// Periodic HEARTBEATs sent since the last ACKNACK: the fast period doubles with each.
    hb_unanswered: u32,
    /// Samples written since the last HEARTBEAT to all.
    written_since_hb: usize,
    tick_start: Instant,
    tick_spent: usize,
    /// Round-robin start of the repair pump, so no reader starves the others.
    pump_from: usize,
    stats: WriterStats,
}

impl StatefulWriter {
    pub fn new(mut cfg: WriterConfig, now: Instant) -> Self {
        // DATA_FRAG carries the fragment size in 16 bits.
        cfg.fragment_size = cfg.fragment_size.clamp(1, u16::MAX as usize);
        let history = HistoryCache::new(cfg.history, cfg.first_sn);
        let min_acked = history.last_sn();
        StatefulWriter {
            cfg,
            history,
            proxies: Vec::new(),
            min_acked,
            reliable_count: 0,
            hb_count: 0,
            last_hb: now,
            hb_unanswered: 0,
            written_since_hb: 0,
            tick_start: now,
            tick_spent: 0,
            pump_from: 0,
            stats: WriterStats::default(),
        }
    }

    pub fn guid(&self) -> Guid {
        self.cfg.guid
    }

    pub fn config(&self) -> &WriterConfig {
        &self.cfg
    }

    pub fn history(&self) -> &HistoryCache {
        &self.history
    }

    pub fn stats(&self) -> WriterStats {
        self.stats
    }

    pub fn matched_count(&self) -> usize {
        self.proxies.len()
    }

    pub fn reader(&self, guid: Guid) -> Option<&ReaderProxy> {
        self.proxies.iter().find(|p| p.guid == guid)
    }

    pub fn last_sn(&self) -> i64 {
        self.history.last_sn()
    }

    /// Every reliable reader acknowledged every sample up to and including `sn`.
    pub fn is_acked_by_all(&self, sn: i64) -> bool {
        self.min_acked >= sn
    }

    /// Every reliable reader acknowledged everything written (wait_for_acknowledgments).
    pub fn all_acked(&self) -> bool {
        self.is_acked_by_all(self.history.last_sn())
    }

    /// The writer's state and what it knows of each reader, one line each, then its counters:
    /// for a failing test or a stuck link's report.
    pub fn describe(&self, now: Instant) -> String {
        let mut s = format!(
            "history={}..={} min_acked={} hb_count={} hb_unanswered={} last_hb_ms_ago={} next_deadline_in_ms={:?}\n",
            self.history.first_sn(),
            self.history.last_sn(),
            self.min_acked,
            self.hb_count,
            self.hb_unanswered,
            now.saturating_duration_since(self.last_hb).as_millis(),
            self.next_deadline().map(|t| t.saturating_duration_since(now).as_millis())
        );
        for p in &self.proxies {
            s += &p.describe(now);
            s.push('\n');
        }
        s += &format!("{:?}", self.stats);
        s
    }

    /// A write now would not block.
    pub fn can_write(&self) -> bool {
        !self.history.is_full()
            || matches!(self.history.kind(), HistoryKind::KeepLast(_))
            || self.history.first_sn() <= self.min_acked
    }

    /// Starts serving a reader. A transient-local one gets the kept history (a best-effort one at
    /// once, a reliable one through the paced repair path); a volatile reliable one is told by a GAP
    /// that everything written so far is not for it.
    pub fn match_reader(&mut self, now: Instant, r: MatchedReader, out: &mut Vec<WriterAction>) {
        if self.proxies.iter().any(|p| p.guid == r.guid) {
            return;
        }
        let last = self.history.last_sn();
        let transient = r.durability == Durability::TransientLocal && self.cfg.durability == Durability::TransientLocal;
        let first_relevant = if transient { self.cfg.first_sn } else { last + 1 };
        let mut p = ReaderProxy::new(r.guid, r.reliable, r.durability, first_relevant, now);
        let to = Dest::Reader(r.guid);
        if !r.reliable {
            if transient {
                for c in self.history.iter().filter(|c| c.is_for(r.guid)) {
                    let d = Data { sn: c.sn, meta: c.meta, payload: Payload::clone(&c.payload) };
                    send_sample(&self.cfg, &mut self.stats, to, d, true, out);
                }
            }
            self.proxies.push(p);
            return;
        }
        if !transient && last >= self.cfg.first_sn {
            out.push(WriterAction::Gap { to, gap: Gap::range(self.cfg.first_sn, last + 1) });
            self.stats.gaps_sent += 1;
            p.joining = true;
        }
        // The HEARTBEAT goes first so that the reader knows where the history starts before the
        // replayed samples arrive.
        let hb = self.heartbeat(if p.joining { first_relevant } else { 0 }, false);
        out.push(WriterAction::Heartbeat { to, hb });
        if transient && !self.history.is_empty() {
            p.replay_next = self.history.first_sn();
            p.replay_end = last;
            p.schedule(now);
        }
        self.proxies.push(p);
        self.reliable_count += 1;
        self.update_acked();
        self.pump(now, out);
    }

    /// Stops serving a reader; samples only it held back in a KEEP_ALL history are released.
    pub fn unmatch_reader(&mut self, guid: Guid) -> bool {
        let Some(i) = self.proxies.iter().position(|p| p.guid == guid) else {
            return false;
        };
        let p = self.proxies.swap_remove(i);
        crate::capacity::release_peak_vec(&mut self.proxies);
        if p.reliable {
            self.reliable_count -= 1;
        }
        self.update_acked();
        true
    }

    /// Adds a sample to the history and sends it to every matched reader.
    pub fn write(
        &mut self,
        now: Instant,
        payload: Payload,
        meta: SampleMeta,
        out: &mut Vec<WriterAction>,
    ) -> Result<i64, WriteBlocked> {
        self.write_for(now, payload, meta, None, out)
    }

    /// Adds a sample that only `reader` is to receive (a service reply): it is sent to that reader
    /// alone, and each other reliable reader gets a GAP for its SN. A reader that is not matched
    /// gets nothing: the sample only takes an SN (the runtime checks the match first).
    pub fn write_to(
        &mut self,
        now: Instant,
        payload: Payload,
        meta: SampleMeta,
        reader: Guid,
        out: &mut Vec<WriterAction>,
    ) -> Result<i64, WriteBlocked> {
        self.write_for(now, payload, meta, Some(reader), out)
    }

    #[link_section = ".text.hot.hdds"]
    fn write_for(
        &mut self,
        now: Instant,
        payload: Payload,
        meta: SampleMeta,
        only_for: Option<Guid>,
        out: &mut Vec<WriterAction>,
    ) -> Result<i64, WriteBlocked> {
        if !self.can_write() {
            self.stats.writes_blocked += 1;
            // Ask the readers to acknowledge what they were not asked about yet, and otherwise
            // not on every retry of a blocked writer.
            if self.reliable_count > 0
                && (self.written_since_hb > 0 || now >= self.last_hb + self.cfg.fast_heartbeat_period / 2)
            {
                self.send_periodic_heartbeat(now, out);
            }
            return Err(WriteBlocked);
        }
        let sn = if self.proxies.is_empty() && self.cfg.durability == Durability::Volatile && self.history.is_empty() {
            // No reader to send to or to repair for, and none to come will ask for it (volatile):
            // the sample is only numbered. Keeping it would end in update_acked dropping it at
            // once; this is most writes of a ROS node whose subscribers are all in its process.
            self.history.skip()
        } else {
            if self.history.is_full() && matches!(self.history.kind(), HistoryKind::KeepAll { .. }) {
                // Transient-local KEEP_ALL: the oldest is acknowledged by all; it gives way.
                self.history.pop_oldest();
            }
            self.history.add_for(meta, Payload::clone(&payload), only_for).map_err(|_| WriteBlocked)?.0
        };
        self.stats.samples_written += 1;
        self.written_since_hb += 1;
        match only_for {
            None if !self.proxies.is_empty() => {
                send_sample(&self.cfg, &mut self.stats, Dest::All, Data { sn, meta, payload }, false, out);
            }
            None => {}
            Some(target) => {
                if self.proxies.iter().any(|p| p.guid == target) {
                    let d = Data { sn, meta, payload };
                    send_sample(&self.cfg, &mut self.stats, Dest::Reader(target), d, false, out);
                }
                for p in self.proxies.iter().filter(|p| p.reliable && p.guid != target) {
                    out.push(WriterAction::Gap { to: Dest::Reader(p.guid), gap: Gap::range(sn, sn + 1) });
                    self.stats.gaps_sent += 1;
                }
            }
        }
        self.update_acked();
        if self.reliable_count > 0 {
            let cap = self.history.kind().capacity();
            let keep_all = matches!(self.history.kind(), HistoryKind::KeepAll { .. });
            let filling = keep_all && self.history.len() * 4 >= cap * 3;
            let gap = if filling { self.cfg.fast_heartbeat_period / 4 } else { self.cfg.fast_heartbeat_period };
            // KEEP_ALL: only acknowledgments make room, so a writer faster than the fast period
            // asks for them every quarter history too (a burst then streams instead of stalling
            // until the next HEARTBEAT).
            let quarter = keep_all && self.written_since_hb * 4 >= cap;
            if now >= self.last_hb + gap || quarter {
                self.send_periodic_heartbeat(now, out);
            }
        }
        Ok(sn)
    }

    /// An ACKNACK from `reader`.
    pub fn on_acknack(&mut self, now: Instant, reader: Guid, a: &AckNack, out: &mut Vec<WriterAction>) {
        let last = self.history.last_sn();
        let delay = self.cfg.nack_response_delay;
        let Some(p) = self.proxies.iter_mut().find(|p| p.guid == reader) else {
            return;
        };
        match p.on_acknack(now, a, last, delay) {
            AckOutcome::Ignored => self.stats.acknacks_ignored += 1,
            AckOutcome::Accepted { acked_moved } => {
                self.hb_unanswered = 0;
                if acked_moved {
                    self.update_acked();
                }
            }
        }
        self.pump(now, out);
    }

    /// A NACK_FRAG from `reader`.
    pub fn on_nack_frag(&mut self, now: Instant, reader: Guid, nf: &NackFrag, out: &mut Vec<WriterAction>) {
        let delay = self.cfg.nack_response_delay;
        let total = match self.history.get(nf.sn) {
            Some(c) => fragment::fragment_count(c.payload.len(), self.cfg.fragment_size),
            None => 0,
        };
        let first = self.history.first_sn();
        let Some(p) = self.proxies.iter_mut().find(|p| p.guid == reader) else {
            return;
        };
        if total == 0 {
            // Gone from the history (or never written): tell the reader where the history starts.
            if p.reliable && nf.sn < first && nf.sn > p.acked {
                p.hb_due = true;
                p.schedule(now + delay);
            }
        } else {
            p.on_nack_frag(now, nf, total, delay);
        }
        self.pump(now, out);
    }

    /// Periodic HEARTBEATs and paced repairs.
    pub fn on_timer(&mut self, now: Instant, out: &mut Vec<WriterAction>) {
        if self.reliable_count > 0 && now >= self.last_hb + self.hb_interval() {
            if !self.all_acked() {
                self.hb_unanswered = self.hb_unanswered.saturating_add(1);
            }
            self.send_periodic_heartbeat(now, out);
        }
        self.pump(now, out);
    }

    /// When `on_timer` should next be called.
    #[link_section = ".text.hot.hdds"]
    pub fn next_deadline(&self) -> Option<Instant> {
        let mut next = (self.reliable_count > 0).then(|| self.last_hb + self.hb_interval());
        let throttled = self.tick_spent >= self.cfg.repair_budget;
        for p in &self.proxies {
            if let Some(mut t) = p.resend_at {
                if throttled {
                    t = t.max(self.tick_start + self.cfg.repair_tick);
                }
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        }
        next
    }

    fn hb_interval(&self) -> Duration {
        if self.all_acked() {
            return self.cfg.heartbeat_period;
        }
        let fast = self.cfg.fast_heartbeat_period.saturating_mul(1 << self.hb_unanswered.min(10));
        fast.min(self.cfg.unacked_heartbeat_max).min(self.cfg.heartbeat_period)
    }

    /// The next HEARTBEAT; `first_floor` raises its first SN for a joining volatile reader.
    fn heartbeat(&mut self, first_floor: i64, final_flag: bool) -> Heartbeat {
        self.hb_count = self.hb_count.wrapping_add(1);
        self.stats.heartbeats_sent += 1;
        Heartbeat {
            first_sn: self.history.first_sn().max(first_floor),
            last_sn: self.history.last_sn(),
            count: self.hb_count,
            final_flag,
            liveliness_flag: false,
        }
    }

    /// Asserts the writer's liveliness (RTPS 2.x 8.4.13: a MANUAL writer's assert_liveliness): a
    /// HEARTBEAT with the Liveliness flag to every matched reader, final (no answer needed), as
    /// Cyclone DDS sends it.
    pub fn assert_liveliness(&mut self, out: &mut Vec<WriterAction>) {
        let mut hb = self.heartbeat(0, true);
        hb.liveliness_flag = true;
        out.push(WriterAction::Heartbeat { to: Dest::All, hb });
    }

    fn send_periodic_heartbeat(&mut self, now: Instant, out: &mut Vec<WriterAction>) {
        let all_acked = self.all_acked();
        if self.proxies.iter().any(|p| p.joining || p.sync_pending) {
            // A joining reader must not see the common first SN, nor one waiting for its sync the
            // common last SN (see ReaderProxy::joining, ReaderProxy::sync_pending): while one is,
            // every reliable reader gets its own HEARTBEAT.
            let (first_sn, last_sn) = (self.history.first_sn(), self.history.last_sn());
            for i in 0..self.proxies.len() {
                let p = &self.proxies[i];
                if p.reliable {
                    let to = Dest::Reader(p.guid);
                    let (first, last) = p.heartbeat_range(first_sn, last_sn);
                    let mut hb = self.heartbeat(0, all_acked);
                    (hb.first_sn, hb.last_sn) = (first, last);
                    out.push(WriterAction::Heartbeat { to, hb });
                }
            }
        } else {
            let hb = self.heartbeat(0, all_acked);
            out.push(WriterAction::Heartbeat { to: Dest::All, hb });
        }
        self.written_since_hb = 0;
        // A fragmented newest sample: say how many fragments exist, so readers NACK_FRAG the rest.
        if let Some(c) = self.history.latest().filter(|c| !all_acked && c.payload.len() > self.cfg.fragment_size) {
            let last_fragment = fragment::fragment_count(c.payload.len(), self.cfg.fragment_size);
            let hb = HeartbeatFrag { sn: c.sn, last_fragment, count: self.hb_count };
            out.push(WriterAction::HeartbeatFrag { to: Dest::All, hb });
        }
        self.last_hb = now;
    }

    fn update_acked(&mut self) {
        let last = self.history.last_sn();
        self.min_acked = self.proxies.iter().filter(|p| p.reliable).map(|p| p.acked).min().unwrap_or(last);
        // A volatile writer owes nothing to late joiners, so what every reliable reader has (all
        // of it, with none matched) is dropped at once, KEEP_LAST too: a writer with only
        // same-process readers or none would otherwise hold `depth` samples (64 MiB for 4 MiB
        // messages at depth 16) that nobody can ask for.
        if self.cfg.durability == Durability::Volatile {
            self.history.remove_through(self.min_acked);
        }
    }

    /// Sends queued repairs whose time has come, within the tick's budget, round-robin over readers.
    fn pump(&mut self, now: Instant, out: &mut Vec<WriterAction>) {
        if now >= self.tick_start + self.cfg.repair_tick {
            self.tick_start = now;
            self.tick_spent = 0;
        }
        let n = self.proxies.len();
        if n == 0 {
            return;
        }
        self.pump_from %= n;
        for k in 0..n {
            if self.tick_spent >= self.cfg.repair_budget {
                // Resume with this reader next tick.
                self.pump_from = (self.pump_from + k) % n;
                return;
            }
            let i = (self.pump_from + k) % n;
            if self.proxies[i].resend_at.is_some_and(|t| t <= now) {
                self.repair_one(now, i, out);
            }
        }
        self.pump_from = (self.pump_from + 1) % n;
    }

    /// Works through one reader's queue until it is empty or the budget is spent.
    fn repair_one(&mut self, now: Instant, i: usize, out: &mut Vec<WriterAction>) {
        let cfg = &self.cfg;
        let history = &self.history;
        let p = &mut self.proxies[i];
        let to = Dest::Reader(p.guid);
        let mut sent_any = false;
        if let Some(from) = p.gap_below.take() {
            self.tick_spent += SUBMESSAGE_COST;
            self.stats.gaps_sent += 1;
            out.push(WriterAction::Gap { to, gap: Gap::range(from, p.first_relevant) });
        }
        while self.tick_spent < cfg.repair_budget {
            // 1. A fragmented sample being resent whole.
            if let Some((sn, n)) = p.frag_cursor {
                match history.get(sn) {
                    Some(c) if !c.is_for(p.guid) => {
                        p.frag_cursor = None;
                        self.tick_spent += SUBMESSAGE_COST;
                        self.stats.gaps_sent += 1;
                        out.push(WriterAction::Gap { to, gap: Gap::range(sn, sn + 1) });
                    }
                    Some(c) => {
                        let total = fragment::fragment_count(c.payload.len(), cfg.fragment_size);
                        let f = fragment::data_frag(sn, c.meta, &c.payload, cfg.fragment_size as u16, n);
                        self.tick_spent += f.bytes().len() + SUBMESSAGE_COST;
                        out.push(WriterAction::DataFrag { to, frag: f, resend: true });
                        self.stats.frags_resent += 1;
                        p.mark_frag_underway(now, sn, n, cfg.nack_suppression);
                        sent_any = true;
                        if n >= total {
                            p.frag_cursor = None;
                            p.mark_underway(now, sn, cfg.nack_suppression);
                        } else {
                            p.frag_cursor = Some((sn, n + 1));
                        }
                    }
                    None => {
                        p.frag_cursor = None;
                        p.hb_due = true;
                    }
                }
                continue;
            }
            // 2. Fragments a NACK_FRAG asked for.
            if let Some(r) = p.frag_requests.first_mut() {
                let sn = r.sn;
                match (r.frags.first(), history.get(sn)) {
                    (Some(_), Some(c)) if !c.is_for(p.guid) => {
                        p.frag_requests.remove(0);
                        self.tick_spent += SUBMESSAGE_COST;
                        self.stats.gaps_sent += 1;
                        out.push(WriterAction::Gap { to, gap: Gap::range(sn, sn + 1) });
                    }
                    (Some(n), Some(c)) => {
                        r.frags.remove(n);
                        let f = fragment::data_frag(sn, c.meta, &c.payload, cfg.fragment_size as u16, n as u32);
                        self.tick_spent += f.bytes().len() + SUBMESSAGE_COST;
                        out.push(WriterAction::DataFrag { to, frag: f, resend: true });
                        self.stats.frags_resent += 1;
                        p.mark_frag_underway(now, sn, n as u32, cfg.nack_suppression);
                        sent_any = true;
                    }
                    (Some(_), None) => {
                        p.frag_requests.remove(0);
                        p.hb_due = true;
                    }
                    (None, _) => {
                        p.frag_requests.remove(0);
                    }
                }
                continue;
            }
            // 3. Whole samples an ACKNACK asked for, then 4. a late joiner's history.
            let sn = if let Some(sn) = p.requested.first() {
                p.requested.remove(sn);
                sn
            } else if p.replay_next <= p.replay_end {
                p.replay_next += 1;
                p.replay_next - 1
            } else {
                break;
            };
            let Some(c) = history.get(sn) else {
                // Dropped from the history: the reader learns it is lost from our first SN.
                p.hb_due |= sn < history.first_sn();
                continue;
            };
            if !c.is_for(p.guid) {
                // Another reader's directed sample: irrelevant to this one.
                self.tick_spent += SUBMESSAGE_COST;
                self.stats.gaps_sent += 1;
                out.push(WriterAction::Gap { to, gap: Gap::range(sn, sn + 1) });
                p.mark_underway(now, sn, cfg.nack_suppression);
                sent_any = true;
                continue;
            }
            if c.payload.len() > cfg.fragment_size {
                p.frag_cursor = Some((sn, 1));
                continue;
            }
            self.tick_spent += c.payload.len() + SUBMESSAGE_COST;
            let d = Data { sn, meta: c.meta, payload: Payload::clone(&c.payload) };
            out.push(WriterAction::Data { to, data: d, resend: true });
            self.stats.data_resent += 1;
            p.mark_underway(now, sn, cfg.nack_suppression);
            sent_any = true;
        }
        if p.drained() {
            p.resend_at = None;
            if p.hb_due || sent_any {
                // Follow the repairs with a HEARTBEAT so the reader answers as soon as they are in.
                self.hb_count = self.hb_count.wrapping_add(1);
                self.stats.heartbeats_sent += 1;
                let (first_sn, last_sn) = p.heartbeat_range(history.first_sn(), history.last_sn());
                let hb =
                    Heartbeat { first_sn, last_sn, count: self.hb_count, final_flag: false, liveliness_flag: false };
                out.push(WriterAction::Heartbeat { to, hb });
                p.heartbeat_sent();
            }
        }
    }
}

/// Sends a sample whole or as DATA_FRAGs.
fn send_sample(
    cfg: &WriterConfig,
    stats: &mut WriterStats,
    to: Dest,
    d: Data,
    resend: bool,
    out: &mut Vec<WriterAction>,
) {
    if d.payload.len() <= cfg.fragment_size {
        if resend {
            stats.data_resent += 1;
        } else {
            stats.data_sent += 1;
        }
        out.push(WriterAction::Data { to, data: d, resend });
        return;
    }
    let total = fragment::fragment_count(d.payload.len(), cfg.fragment_size);
    let mut n = 1;
    while n <= total {
        let per = fragment::fragments_per_submessage(cfg.fragment_size);
        let frag = fragment::data_frags(d.sn, d.meta, &d.payload, cfg.fragment_size as u16, n, per);
        n += u32::from(frag.header.fragments_in_submessage);
        out.push(WriterAction::DataFrag { to, frag, resend });
    }
    if resend {
        stats.frags_resent += total as u64;
    } else {
        stats.frags_sent += total as u64;
    }
}

#[cfg(test)]
#[path = "stateful_writer_tests.rs"]
mod tests;
