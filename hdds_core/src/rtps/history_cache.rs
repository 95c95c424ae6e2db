//! A writer's history cache (RTPS 2.5 section 8.2.2): the samples it keeps for retransmission and
//! for late-joining transient-local readers, numbered from 1 with 64-bit sequence numbers.
//!
//! Samples only ever leave from the oldest end (KEEP_LAST replaces the oldest; KEEP_ALL drops what
//! every reliable reader acknowledged, which is always a prefix), so the kept SNs are one contiguous
//! run and a ring indexed by `sn - first` finds any of them in O(1) without per-sample allocation.

use crate::payload::Payload;
use std::collections::VecDeque;

use super::messages::SampleMeta;
use crate::qos::History;
use crate::wire::Guid;

/// How many samples a history keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryKind {
    /// Keep the newest `depth` (at least 1); writing past it replaces the oldest.
    KeepLast(usize),
    /// Keep everything not yet acknowledged, up to `max_samples`; past that, writing would block.
    KeepAll { max_samples: usize },
}

impl HistoryKind {
    /// From the QoS policy; `max_samples` is RESOURCE_LIMITS.max_samples for KEEP_ALL.
    pub fn from_qos(history: History, max_samples: usize) -> HistoryKind {
        match history {
            History::KeepLast(d) => HistoryKind::KeepLast((d as usize).max(1)),
            History::KeepAll => HistoryKind::KeepAll { max_samples: max_samples.max(1) },
        }
    }

    pub fn capacity(self) -> usize {
        match self {
            HistoryKind::KeepLast(d) => d.max(1),
            HistoryKind::KeepAll { max_samples } => max_samples.max(1),
        }
    }
}

/// One kept sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheChange {
    pub sn: i64,
    pub meta: SampleMeta,
    pub payload: Payload,
    /// A directed sample: only this reader gets it; for every other one the SN is irrelevant.
    pub only_for: Option<Guid>,
}

impl CacheChange {
    /// Whether `reader` is to receive this sample.
    pub fn is_for(&self, reader: Guid) -> bool {
        self.only_for.map_or(true, |g| g == reader)
    }
}

/// A KEEP_ALL history has no room: the sample was not added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryFull;

#[derive(Debug)]
pub struct HistoryCache {
    kind: HistoryKind,
    changes: VecDeque<CacheChange>,
    next_sn: i64,
}

impl HistoryCache {
    /// An empty history whose first sample will be `first_sn` (1 normally; tests start elsewhere).
    pub fn new(kind: HistoryKind, first_sn: i64) -> Self {
        // Reserve what a small history needs once; large KEEP_ALL ones grow (and keep) on demand.
        let reserve = kind.capacity().min(1024);
        HistoryCache { kind, changes: VecDeque::with_capacity(reserve), next_sn: first_sn.max(1) }
    }

    pub fn kind(&self) -> HistoryKind {
        self.kind
    }

    pub fn len(&self) -> usize {
        self.changes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Whether one more sample fits without removing one.
    pub fn is_full(&self) -> bool {
        self.changes.len() >= self.kind.capacity()
    }

    /// The SN the next sample gets.
    pub fn next_sn(&self) -> i64 {
        self.next_sn
    }

    /// The SN of the last sample written (first SN - 1 before any).
    pub fn last_sn(&self) -> i64 {
        self.next_sn - 1
    }

    /// The oldest SN still kept, or `next_sn()` when none is: HEARTBEAT's firstSN.
    pub fn first_sn(&self) -> i64 {
        self.changes.front().map_or(self.next_sn, |c| c.sn)
    }

    pub fn get(&self, sn: i64) -> Option<&CacheChange> {
        let first = self.changes.front()?.sn;
        let i = usize::try_from(sn.checked_sub(first)?).ok()?;
        self.changes.get(i)
    }

    /// Adds a sample and returns its SN and, for a full KEEP_LAST history, the SN it replaced.
    pub fn add(&mut self, meta: SampleMeta, payload: Payload) -> Result<(i64, Option<i64>), HistoryFull> {
        self.add_for(meta, payload, None)
    }

    /// [`Self::add`] for a sample only `only_for` (when set) is to receive.
    pub fn add_for(
        &mut self,
        meta: SampleMeta,
        payload: Payload,
        only_for: Option<Guid>,
    ) -> Result<(i64, Option<i64>), HistoryFull> {
        let mut evicted = None;
        if self.is_full() {
            match self.kind {
                HistoryKind::KeepLast(_) => evicted = self.changes.pop_front().map(|c| c.sn),
                HistoryKind::KeepAll { .. } => return Err(HistoryFull),
            }
        }
        let sn = self.next_sn;
        self.next_sn += 1;
        self.changes.push_back(CacheChange { sn, meta, payload, only_for });
        Ok((sn, evicted))
    }

    /// Numbers a sample that is not kept: what [`Self::add`] followed by [`Self::remove_through`]
    /// of its SN comes to, for an empty history (so the kept SNs stay contiguous).
    pub fn skip(&mut self) -> i64 {
        debug_assert!(self.changes.is_empty(), "skip on a history that keeps samples");
        let sn = self.next_sn;
        self.next_sn += 1;
        sn
    }

    /// Removes every sample with SN <= `sn`; returns how many went.
    pub fn remove_through(&mut self, sn: i64) -> usize {
        let mut n = 0;
        while self.changes.front().is_some_and(|c| c.sn <= sn) {
            self.changes.pop_front();
            n += 1;
        }
        n
    }

    /// Removes the oldest sample.
    pub fn pop_oldest(&mut self) -> Option<CacheChange> {
        self.changes.pop_front()
    }

    /// The newest sample.
    pub fn latest(&self) -> Option<&CacheChange> {
        self.changes.back()
    }

    /// The kept samples, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &CacheChange> + '_ {
        self.changes.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(b: u8) -> Payload {
        Payload::from(&[b][..])
    }

    #[test]
    fn keep_last_replaces_oldest() {
        let mut h = HistoryCache::new(HistoryKind::KeepLast(3), 1);
        assert_eq!((h.first_sn(), h.last_sn()), (1, 0));
        for i in 1..=3 {
            assert_eq!(h.add(SampleMeta::default(), p(i)), Ok((i as i64, None)));
        }
        assert_eq!(h.add(SampleMeta::default(), p(4)), Ok((4, Some(1))));
        assert_eq!((h.first_sn(), h.last_sn(), h.len()), (2, 4, 3));
        assert!(h.get(1).is_none());
        assert_eq!(&*h.get(4).unwrap().payload, &[4]);
        assert!(h.get(5).is_none());
    }

    #[test]
    fn keep_all_is_bounded_and_drops_acknowledged_prefixes() {
        let mut h = HistoryCache::new(HistoryKind::KeepAll { max_samples: 2 }, 1);
        h.add(SampleMeta::default(), p(1)).unwrap();
        h.add(SampleMeta::default(), p(2)).unwrap();
        assert_eq!(h.add(SampleMeta::default(), p(3)), Err(HistoryFull));
        assert_eq!(h.last_sn(), 2, "a refused sample takes no SN");
        assert_eq!(h.remove_through(1), 1);
        assert_eq!(h.add(SampleMeta::default(), p(3)), Ok((3, None)));
        assert_eq!(h.remove_through(10), 2);
        assert_eq!((h.first_sn(), h.last_sn()), (4, 3), "an empty history announces first = last + 1");
    }

    #[test]
    fn sequence_numbers_cross_two_to_the_32() {
        let start = (1i64 << 32) - 2;
        let mut h = HistoryCache::new(HistoryKind::KeepLast(4), start);
        for i in 0..5 {
            h.add(SampleMeta::default(), p(i)).unwrap();
        }
        assert_eq!(h.first_sn(), start + 1);
        assert_eq!(h.get(1 << 32).unwrap().sn, 1 << 32);
        assert!(h.get(i64::MIN).is_none() && h.get(i64::MAX).is_none());
    }
}
