//! Giving back the memory of a peak. Rust's collections keep their largest capacity: a queue
//! that once held a burst, or a map that once held more remote endpoints than usual (participants
//! overlapping for a moment), kept that memory for the life of the process. Each such step
//! stayed in the heap for good; the 30-minute endurance run's "memory flat" check failed on them.
//! These helpers run where a collection shrinks (a queue drained, a participant removed) and cost
//! one reallocation or rehash when they do release, nothing otherwise.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// A queue longer than this held a burst (its consumer fell behind, or a lost sample held back
/// those after it): when it empties, its buffer goes back to `STEADY_QUEUE_SLOTS`.
const BURST_QUEUE_SLOTS: usize = 64;
const STEADY_QUEUE_SLOTS: usize = 16;

/// Gives back a burst's buffer once `queue` is empty (a KEEP_ALL reader starved for a moment kept
/// up to `keep_all_max_samples` slots of ~100 B, a reliable reader's order buffer up to
/// `max_buffered`).
pub(crate) fn release_burst<T>(queue: &mut VecDeque<T>) {
    if queue.is_empty() && queue.capacity() > BURST_QUEUE_SLOTS {
        queue.shrink_to(STEADY_QUEUE_SLOTS);
    }
}

/// Gives back a map's peak: its table shrinks to the smallest one with room for half again what
/// it holds (a no-op unless that is a smaller table). The usual coming and going stays within one
/// table size (no rehash back and forth); a rare peak (several remote participants overlapping)
/// no longer stays in the heap after they left. (`HashMap::capacity` cannot decide it: it counts
/// the slots left by removals as used.)
pub(crate) fn release_peak<K: Eq + Hash, V>(map: &mut HashMap<K, V>) {
    map.shrink_to(map.len() + map.len() / 2);
}

/// Gives back a list's peak once it holds at most a quarter of what it has room for, keeping
/// room for twice what is left (the proxies of a writer or reader: a moment with many matched
/// remote endpoints must not keep its slots, a few hundred bytes each, for good).
pub(crate) fn release_peak_vec<T>(list: &mut Vec<T>) {
    if list.capacity() > 4 && list.len() <= list.capacity() / 4 {
        list.shrink_to(list.len() * 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drained_queue_and_an_emptied_map_give_their_peak_back() {
        let mut q: VecDeque<u64> = (0..1000).collect();
        release_burst(&mut q);
        assert!(q.capacity() >= 1000, "not while it holds samples");
        q.clear();
        release_burst(&mut q);
        assert!(q.capacity() <= BURST_QUEUE_SLOTS);
        let mut m: HashMap<u32, [u8; 400]> = (0..100).map(|i| (i, [0; 400])).collect();
        let peak = m.capacity();
        m.retain(|k, _| *k < 60);
        release_peak(&mut m);
        assert_eq!(m.len(), 60);
        m.retain(|k, _| *k < 30);
        release_peak(&mut m);
        assert!(m.capacity() < peak && m.capacity() >= 45, "{} of {peak}", m.capacity());
        let mut v: Vec<u64> = (0..16).collect();
        v.truncate(5);
        release_peak_vec(&mut v);
        assert_eq!(v.capacity(), 16, "a third is kept");
        v.truncate(3);
        release_peak_vec(&mut v);
        assert_eq!(v.capacity(), 6);
    }
}
