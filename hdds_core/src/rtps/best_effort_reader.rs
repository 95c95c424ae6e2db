//! The best-effort reader (RTPS 2.5 section 8.4.11, StatelessReader): delivers a writer's samples
//! as they come if they are newer than the last one delivered from that writer, and drops the rest.
//! No reordering buffer, no ACKNACK; SNs skipped over are counted as lost.
//!
//! It accepts any writer (SPDP's reader must, discovery is how writers become known), so the
//! per-writer state is bounded: past `max_writers`, the writer heard from least recently is forgotten.

use crate::payload::Payload;
use std::collections::HashMap;
use std::time::Instant;

use super::fragment::{EvictPolicy, FragOutcome, Reassembler, ReassemblyLimits};
use super::messages::{Delivery, FragmentHeader, ReaderAction, SampleMeta};
use crate::wire::Guid;

#[derive(Debug, Clone)]
pub struct BestEffortReaderConfig {
    pub guid: Guid,
    pub max_writers: usize,
    pub reassembly: ReassemblyLimits,
}

impl BestEffortReaderConfig {
    pub fn new(guid: Guid) -> Self {
        BestEffortReaderConfig { guid, max_writers: 1024, reassembly: ReassemblyLimits::default() }
    }
}

#[derive(Debug, Clone, Copy)]
struct WriterState {
    /// The last SN delivered (0: none yet).
    last: i64,
    last_heard: Instant,
    lost: u64,
}

#[derive(Debug)]
pub struct BestEffortReader {
    cfg: BestEffortReaderConfig,
    writers: HashMap<Guid, WriterState>,
    reassembler: Reassembler,
    delivered: u64,
    dropped: u64,
    lost: u64,
}

impl BestEffortReader {
    pub fn new(cfg: BestEffortReaderConfig) -> Self {
        let reassembler = Reassembler::new(cfg.reassembly, EvictPolicy::DropOldest);
        BestEffortReader { cfg, writers: HashMap::new(), reassembler, delivered: 0, dropped: 0, lost: 0 }
    }

    pub fn guid(&self) -> Guid {
        self.cfg.guid
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Samples dropped as duplicates or older than one already delivered.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// SNs skipped over, all writers together.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    pub fn writer_lost(&self, writer: Guid) -> Option<u64> {
        self.writers.get(&writer).map(|w| w.lost)
    }

    pub fn writer_last_heard(&self, writer: Guid) -> Option<Instant> {
        self.writers.get(&writer).map(|w| w.last_heard)
    }

    /// Forgets a writer (unmatched, or its participant left).
    pub fn forget_writer(&mut self, writer: Guid) {
        self.writers.remove(&writer);
        self.reassembler.discard_writer(writer);
    }

    fn state(&mut self, writer: Guid, now: Instant) -> &mut WriterState {
        if !self.writers.contains_key(&writer) && self.writers.len() >= self.cfg.max_writers.max(1) {
            let oldest = self.writers.iter().min_by_key(|(_, w)| w.last_heard).map(|(g, _)| *g);
            if let Some(g) = oldest {
                self.forget_writer(g);
            }
        }
        let w = self.writers.entry(writer).or_insert(WriterState { last: 0, last_heard: now, lost: 0 });
        w.last_heard = now;
        w
    }

    pub fn on_data(
        &mut self,
        now: Instant,
        writer: Guid,
        sn: i64,
        meta: &SampleMeta,
        data: &[u8],
        out: &mut Vec<ReaderAction>,
    ) {
        if self.state(writer, now).last >= sn || sn <= 0 {
            self.dropped += 1;
            return;
        }
        self.deliver(writer, sn, *meta, Payload::copy_of(data), out);
    }

    /// Samples given up by reassembly for its limits ([`super::ReassemblyLimits`]).
    pub fn reassembly_over_limit(&self) -> u64 {
        self.reassembler.over_limit()
    }

    pub fn on_data_frag(
        &mut self,
        now: Instant,
        writer: Guid,
        h: &FragmentHeader,
        meta: &SampleMeta,
        data: &[u8],
        out: &mut Vec<ReaderAction>,
    ) {
        if self.state(writer, now).last >= h.sn || h.sn <= 0 {
            self.dropped += 1;
            return;
        }
        if let FragOutcome::Complete { meta, payload } = self.reassembler.add(writer, h, meta, data) {
            self.deliver(writer, h.sn, meta, payload, out);
        }
    }

    fn deliver(&mut self, writer: Guid, sn: i64, meta: SampleMeta, payload: Payload, out: &mut Vec<ReaderAction>) {
        let Some(w) = self.writers.get_mut(&writer) else { return };
        // The first sample from a writer starts the count: what came before it was not for us.
        if w.last > 0 && sn > w.last + 1 {
            let skipped = (sn - w.last - 1) as u64;
            w.lost += skipped;
            self.lost += skipped;
            out.push(ReaderAction::Lost { writer, count: skipped });
        }
        w.last = sn;
        self.delivered += 1;
        out.push(ReaderAction::Deliver(Delivery { writer, sn, meta, payload }));
        self.reassembler.discard_where(writer, |s| s <= sn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sns(out: &[ReaderAction]) -> Vec<i64> {
        out.iter()
            .filter_map(|a| match a {
                ReaderAction::Deliver(d) => Some(d.sn),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn newer_only_and_skips_are_lost() {
        let now = Instant::now();
        let w = Guid::from_bytes(&[1; 16]);
        let mut r = BestEffortReader::new(BestEffortReaderConfig::new(Guid::UNKNOWN));
        let mut out = Vec::new();
        for sn in [5, 6, 6, 4, 9, 8, 10] {
            r.on_data(now, w, sn, &SampleMeta::default(), &[sn as u8], &mut out);
        }
        assert_eq!(sns(&out), vec![5, 6, 9, 10]);
        assert_eq!((r.lost(), r.dropped(), r.delivered()), (2, 3, 4));
        assert!(out.contains(&ReaderAction::Lost { writer: w, count: 2 }));
    }

    #[test]
    fn writers_are_independent_and_bounded() {
        let now = Instant::now();
        let mut cfg = BestEffortReaderConfig::new(Guid::UNKNOWN);
        cfg.max_writers = 2;
        let mut r = BestEffortReader::new(cfg);
        let mut out = Vec::new();
        let g = |b| Guid::from_bytes(&[b; 16]);
        r.on_data(now, g(1), 3, &SampleMeta::default(), &[], &mut out);
        r.on_data(now + std::time::Duration::from_millis(1), g(2), 1, &SampleMeta::default(), &[], &mut out);
        r.on_data(now + std::time::Duration::from_millis(2), g(3), 1, &SampleMeta::default(), &[], &mut out);
        assert_eq!(r.writer_lost(g(1)), None, "the least recently heard writer was forgotten");
        assert_eq!(r.delivered(), 3);
    }

    #[test]
    fn fragments_of_stale_samples_are_dropped() {
        let now = Instant::now();
        let w = Guid::from_bytes(&[1; 16]);
        let mut r = BestEffortReader::new(BestEffortReaderConfig::new(Guid::UNKNOWN));
        let mut out = Vec::new();
        let h = |sn, n| FragmentHeader {
            sn,
            fragment_start: n,
            fragments_in_submessage: 1,
            fragment_size: 2,
            sample_size: 4,
        };
        r.on_data_frag(now, w, &h(2, 1), &SampleMeta::default(), &[1, 2], &mut out);
        r.on_data(now, w, 3, &SampleMeta::default(), &[9], &mut out);
        r.on_data_frag(now, w, &h(2, 2), &SampleMeta::default(), &[3, 4], &mut out);
        assert_eq!(sns(&out), vec![3]);
        r.on_data_frag(now, w, &h(4, 2), &SampleMeta::default(), &[3, 4], &mut out);
        r.on_data_frag(now, w, &h(4, 1), &SampleMeta::default(), &[1, 2], &mut out);
        assert_eq!(sns(&out), vec![3, 4]);
        match out.last() {
            Some(ReaderAction::Deliver(d)) => assert_eq!(&*d.payload, &[1, 2, 3, 4]),
            other => panic!("{other:?}"),
        }
    }
}
