//! The best-effort writer (RTPS 2.5 section 8.4.8, StatelessWriter): each sample goes out once to
//! every reader, with no HEARTBEAT and no repair. With a resend period it is also SPDP's writer:
//! the latest sample (the participant announcement) goes out again on every period.

use crate::payload::Payload;
use std::time::{Duration, Instant};

use super::fragment::{self, DEFAULT_FRAGMENT_SIZE};
use super::history_cache::{HistoryCache, HistoryKind};
use super::messages::{Data, DataFrag, Dest, SampleMeta, WriterAction};
use crate::wire::Guid;

#[derive(Debug, Clone)]
pub struct StatelessWriterConfig {
    pub guid: Guid,
    /// Samples kept for late-joining transient-local readers (KEEP_LAST depth, at least 1).
    pub depth: usize,
    pub fragment_size: usize,
    /// Resend the latest sample this often (SPDP's announce period); `None` sends each sample once.
    pub resend_period: Option<Duration>,
}

impl StatelessWriterConfig {
    pub fn new(guid: Guid) -> Self {
        StatelessWriterConfig { guid, depth: 1, fragment_size: DEFAULT_FRAGMENT_SIZE, resend_period: None }
    }
}

#[derive(Debug)]
pub struct StatelessWriter {
    cfg: StatelessWriterConfig,
    history: HistoryCache,
    next_resend: Option<Instant>,
    sent: u64,
}

impl StatelessWriter {
    pub fn new(mut cfg: StatelessWriterConfig) -> Self {
        cfg.fragment_size = cfg.fragment_size.clamp(1, u16::MAX as usize);
        let history = HistoryCache::new(HistoryKind::KeepLast(cfg.depth.max(1)), 1);
        StatelessWriter { cfg, history, next_resend: None, sent: 0 }
    }

    pub fn guid(&self) -> Guid {
        self.cfg.guid
    }

    pub fn history(&self) -> &HistoryCache {
        &self.history
    }

    /// Submessages sent so far (DATA and DATA_FRAG), first sends and resends.
    pub fn submessages_sent(&self) -> u64 {
        self.sent
    }

    /// Keeps the sample (replacing the oldest) and sends it to every reader; never blocks.
    pub fn write(&mut self, now: Instant, payload: Payload, meta: SampleMeta, out: &mut Vec<WriterAction>) -> i64 {
        // A KEEP_LAST history always takes the sample (it replaces the oldest).
        let sn = self.history.add(meta, Payload::clone(&payload)).map_or(self.history.last_sn(), |(sn, _)| sn);
        self.send(Dest::All, Data { sn, meta, payload }, false, out);
        if let Some(p) = self.cfg.resend_period {
            self.next_resend = Some(now + p);
        }
        sn
    }

    /// Changes the resend period (SPDP: a few quick announcements at start, then the configured
    /// period); the next resend is one new period from `now`.
    pub fn set_resend_period(&mut self, period: Option<Duration>, now: Instant) {
        self.cfg.resend_period = period;
        self.next_resend = period.map(|p| now + p);
    }

    /// Resends the latest sample when the period has come.
    pub fn on_timer(&mut self, now: Instant, out: &mut Vec<WriterAction>) {
        let (Some(at), Some(period)) = (self.next_resend, self.cfg.resend_period) else {
            return;
        };
        if now < at {
            return;
        }
        self.next_resend = Some(now + period);
        if let Some(c) = self.history.latest() {
            let d = Data { sn: c.sn, meta: c.meta, payload: Payload::clone(&c.payload) };
            self.send(Dest::All, d, true, out);
        }
    }

    /// Sends the latest sample to one reader now (SPDP: answer a newly discovered participant).
    pub fn send_latest_to(&mut self, reader: Guid, out: &mut Vec<WriterAction>) {
        if let Some(c) = self.history.latest() {
            let d = Data { sn: c.sn, meta: c.meta, payload: Payload::clone(&c.payload) };
            self.send(Dest::Reader(reader), d, true, out);
        }
    }

    /// Sends every kept sample to one reader, oldest first (a transient-local late joiner).
    pub fn replay_to(&mut self, reader: Guid, out: &mut Vec<WriterAction>) {
        for sn in self.history.first_sn()..=self.history.last_sn() {
            if let Some(c) = self.history.get(sn) {
                let d = Data { sn, meta: c.meta, payload: Payload::clone(&c.payload) };
                self.send(Dest::Reader(reader), d, true, out);
            }
        }
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.next_resend
    }

    fn send(&mut self, to: Dest, d: Data, resend: bool, out: &mut Vec<WriterAction>) {
        if d.payload.len() <= self.cfg.fragment_size {
            self.sent += 1;
            out.push(WriterAction::Data { to, data: d, resend });
            return;
        }
        let total = fragment::fragment_count(d.payload.len(), self.cfg.fragment_size);
        for n in 1..=total {
            let frag: DataFrag = fragment::data_frag(d.sn, d.meta, &d.payload, self.cfg.fragment_size as u16, n);
            out.push(WriterAction::DataFrag { to, frag, resend });
        }
        self.sent += total as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sns(out: &[WriterAction]) -> Vec<(Dest, i64, bool)> {
        out.iter()
            .map(|a| match a {
                WriterAction::Data { to, data, resend } => (*to, data.sn, *resend),
                WriterAction::DataFrag { to, frag, resend } => (*to, frag.header.sn, *resend),
                other => panic!("a stateless writer sent {other:?}"),
            })
            .collect()
    }

    #[test]
    fn each_sample_once_without_a_period() {
        let t = Instant::now();
        let mut w = StatelessWriter::new(StatelessWriterConfig::new(Guid::UNKNOWN));
        let mut out = Vec::new();
        assert_eq!(w.write(t, Payload::from(&b"a"[..]), SampleMeta::default(), &mut out), 1);
        assert_eq!(w.write(t, Payload::from(&b"b"[..]), SampleMeta::default(), &mut out), 2);
        assert_eq!(sns(&out), vec![(Dest::All, 1, false), (Dest::All, 2, false)]);
        assert_eq!(w.next_deadline(), None);
        out.clear();
        w.on_timer(t + Duration::from_secs(10), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn spdp_resends_the_latest_each_period() {
        let t = Instant::now();
        let period = Duration::from_secs(3);
        let mut cfg = StatelessWriterConfig::new(Guid::UNKNOWN);
        cfg.resend_period = Some(period);
        let mut w = StatelessWriter::new(cfg);
        let mut out = Vec::new();
        w.on_timer(t, &mut out);
        assert!(out.is_empty(), "nothing to announce yet");
        w.write(t, Payload::from(&b"p1"[..]), SampleMeta::default(), &mut out);
        w.write(t, Payload::from(&b"p2"[..]), SampleMeta::default(), &mut out);
        out.clear();
        w.on_timer(t + Duration::from_secs(1), &mut out);
        assert!(out.is_empty());
        assert_eq!(w.next_deadline(), Some(t + period));
        w.on_timer(t + period, &mut out);
        assert_eq!(sns(&out), vec![(Dest::All, 2, true)]);
        assert_eq!(w.next_deadline(), Some(t + 2 * period));
        out.clear();
        let peer = Guid::from_bytes(&[7; 16]);
        w.send_latest_to(peer, &mut out);
        assert_eq!(sns(&out), vec![(Dest::Reader(peer), 2, true)]);
    }

    #[test]
    fn large_samples_are_fragmented_and_history_replays() {
        let t = Instant::now();
        let mut cfg = StatelessWriterConfig::new(Guid::UNKNOWN);
        cfg.depth = 2;
        cfg.fragment_size = 100;
        let mut w = StatelessWriter::new(cfg);
        let mut out = Vec::new();
        w.write(t, Payload::from(vec![1u8; 250]), SampleMeta::default(), &mut out);
        assert_eq!(out.len(), 3);
        for sn in 2..=3 {
            w.write(t, Payload::from(&[sn as u8][..]), SampleMeta::default(), &mut out);
        }
        out.clear();
        let late = Guid::from_bytes(&[9; 16]);
        w.replay_to(late, &mut out);
        assert_eq!(sns(&out), vec![(Dest::Reader(late), 2, true), (Dest::Reader(late), 3, true)]);
    }
}
