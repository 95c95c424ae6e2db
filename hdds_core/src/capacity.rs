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

/// Tables and lists are never shrunk below room for this many: below it the usual coming and
/// going of a few participants would shrink and regrow them at every join and leave (measured in
/// the endurance run: the heap swinging by 15 KiB with each churn participant).
const PEAK_FLOOR: usize = 32;
const PEAK_FLOOR_VEC: usize = 8;

/// Gives back a burst's buffer once `queue` is empty (a KEEP_ALL reader starved for a moment kept
/// up to `keep_all_max_samples` slots of ~100 B, a reliable reader's order buffer up to
/// `max_buffered`).
pub(crate) fn release_burst<T>(queue: &mut VecDeque<T>) {
    if queue.is_empty() && queue.capacity() > BURST_QUEUE_SLOTS {
        queue.shrink_to(STEADY_QUEUE_SLOTS);
    }
}

/// Gives back a map's peak: its table shrinks to the smallest one with room for twice what it
/// holds (at least `PEAK_FLOOR`); a no-op unless that is a smaller table. The usual coming and
/// going stays within one table size; a rare peak (several remote participants overlapping) no
/// longer stays in the heap once they left. (`HashMap::capacity` cannot decide it: it counts the
/// slots left by removals as used.)
pub(crate) fn release_peak<K: Eq + Hash, V, S: std::hash::BuildHasher>(map: &mut HashMap<K, V, S>) {
    map.shrink_to((2 * map.len()).max(PEAK_FLOOR));
}

/// Gives back a list's peak once it holds at most a quarter of its capacity, keeping room for
/// twice what is left (at least `PEAK_FLOOR_VEC`): the proxies of a writer or reader, a few
/// hundred bytes each, after a moment with many matched remote endpoints.
pub(crate) fn release_peak_vec<T>(list: &mut Vec<T>) {
    if list.capacity() > PEAK_FLOOR_VEC && list.len() * 4 <= list.capacity() {
        list.shrink_to((2 * list.len()).max(PEAK_FLOOR_VEC));
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
        let mut m: HashMap<u32, [u8; 400]> = (0..200).map(|i| (i, [0; 400])).collect();
        let peak = m.capacity();
        m.retain(|k, _| *k < 60);
        release_peak(&mut m);
        assert_eq!(m.len(), 60);
        m.retain(|k, _| *k < 25);
        release_peak(&mut m);
        assert!(m.capacity() < peak && m.capacity() >= 50, "{} of {peak}", m.capacity());
        m.clear();
        release_peak(&mut m);
        assert!(m.capacity() >= PEAK_FLOOR, "not below the floor: {}", m.capacity());
        let mut v: Vec<u64> = (0..32).collect();
        v.truncate(9);
        release_peak_vec(&mut v);
        assert_eq!(v.capacity(), 32, "more than a quarter is kept");
        v.truncate(3);
        release_peak_vec(&mut v);
        assert_eq!(v.capacity(), PEAK_FLOOR_VEC);
        v.clear();
        release_peak_vec(&mut v);
        assert_eq!(v.capacity(), PEAK_FLOOR_VEC, "not below the floor");
    }
}
