//! A 256-bit set of numbers starting at a movable base, with removal.
//!
//! `wire::SequenceNumberSet` / `FragmentNumberSet` are the wire forms (insert and iterate only);
//! the machines also need to remove members and slide the base as acknowledgements arrive, without
//! allocating, so they keep this and convert at the edges.

use crate::wire::{FragmentNumberSet, SequenceNumber, SequenceNumberSet};

pub(crate) const WINDOW_BITS: i64 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct SnWindow {
    base: i64,
    words: [u64; 4],
}

impl SnWindow {
    pub(crate) fn new(base: i64) -> Self {
        SnWindow { base, words: [0; 4] }
    }

    pub(crate) fn base(&self) -> i64 {
        self.base
    }

    fn offset(&self, n: i64) -> Option<usize> {
        let d = n.checked_sub(self.base)?;
        (0..WINDOW_BITS).contains(&d).then_some(d as usize)
    }

    /// Adds `n`; false when it is outside `[base, base + 256)`.
    pub(crate) fn insert(&mut self, n: i64) -> bool {
        match self.offset(n) {
            Some(i) => {
                self.words[i / 64] |= 1 << (i % 64);
                true
            }
            None => false,
        }
    }

    pub(crate) fn remove(&mut self, n: i64) {
        if let Some(i) = self.offset(n) {
            self.words[i / 64] &= !(1 << (i % 64));
        }
    }

    pub(crate) fn contains(&self, n: i64) -> bool {
        self.offset(n).is_some_and(|i| self.words[i / 64] & (1 << (i % 64)) != 0)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.words == [0; 4]
    }

    pub(crate) fn clear(&mut self) {
        self.words = [0; 4];
    }

    /// The smallest member.
    pub(crate) fn first(&self) -> Option<i64> {
        self.first_from(self.base)
    }

    /// The smallest member not below `from`.
    pub(crate) fn first_from(&self, from: i64) -> Option<i64> {
        let start = from.saturating_sub(self.base).max(0);
        if start >= WINDOW_BITS {
            return None;
        }
        let start = start as usize;
        for w in start / 64..4 {
            let mut bits = self.words[w];
            if w == start / 64 {
                bits &= !0u64 << (start % 64);
            }
            if bits != 0 {
                return Some(self.base + (w * 64) as i64 + bits.trailing_zeros() as i64);
            }
        }
        None
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        let mut next = self.first();
        std::iter::from_fn(move || {
            let n = next?;
            next = self.first_from(n + 1);
            Some(n)
        })
    }

    /// Moves the base up to `new_base`, dropping members below it; never moves it down.
    pub(crate) fn advance(&mut self, new_base: i64) {
        if new_base <= self.base {
            return;
        }
        let old = *self;
        *self = SnWindow::new(new_base);
        for n in old.iter() {
            self.insert(n);
        }
    }

    pub(crate) fn to_sequence_number_set(self) -> SequenceNumberSet {
        let mut s = SequenceNumberSet::new(SequenceNumber(self.base));
        for n in self.iter() {
            s.insert(SequenceNumber(n));
        }
        s
    }

    /// Fragment numbers are u32 on the wire; a window of them fits when its base does.
    pub(crate) fn to_fragment_number_set(self) -> FragmentNumberSet {
        let base = u32::try_from(self.base).unwrap_or(u32::MAX);
        let mut s = FragmentNumberSet::new(base);
        for n in self.iter() {
            if let Ok(n) = u32::try_from(n) {
                s.insert(n);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_iterate() {
        let mut w = SnWindow::new(10);
        assert!(w.insert(10) && w.insert(73) && w.insert(265));
        assert!(!w.insert(266) && !w.insert(9));
        assert_eq!(w.iter().collect::<Vec<_>>(), vec![10, 73, 265]);
        w.remove(73);
        assert_eq!(w.first_from(11), Some(265));
        assert!(!w.contains(73) && w.contains(265));
        w.advance(200);
        assert_eq!(w.iter().collect::<Vec<_>>(), vec![265]);
        w.advance(1000);
        assert!(w.is_empty());
    }

    #[test]
    fn around_two_to_the_32() {
        let b = (1i64 << 32) - 3;
        let mut w = SnWindow::new(b);
        for n in b..b + 6 {
            w.insert(n);
        }
        let s = w.to_sequence_number_set();
        assert_eq!(s.base.high(), 0);
        assert_eq!(s.iter().map(|x| x.0).collect::<Vec<_>>(), (b..b + 6).collect::<Vec<_>>());
        assert_eq!(s.iter().last().unwrap().high(), 1);
    }
}
