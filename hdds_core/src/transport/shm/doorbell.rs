//! A participant's doorbell: one futex word in a one-page segment that writers of other processes
//! ring after publishing a sample for one of the participant's readers.
//!
//! Wake-up protocol (no wake-up is lost, and a writer makes no syscall while the reader is awake):
//! - a writer publishes its sample, then [`Doorbell::ring`]s: `bell += 1` (SeqCst), then, only if
//!   `sleepers != 0` (SeqCst load), `futex_wake(bell)`;
//! - the reader notes `seen = bell`, drains every ring, then [`Doorbell::wait`]s: it spins while
//!   `bell == seen` for at most the configured spin time, then `sleepers += 1` (SeqCst), looks at
//!   `bell` once more and sleeps in `futex_wait(bell, seen)` only if it is unchanged.
//!
//! Either the writer's load sees the sleeper (and wakes it), or the reader's second look sees the
//! new `bell` (and does not sleep); SeqCst on both sides rules out both missing each other, and the
//! kernel re-checks `bell == seen` atomically when it enqueues the sleeper.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use super::futex;
use super::segment::{segment_name, Segment, SegmentKind, HEADER_LEN};
use crate::error::Result;
use crate::wire::Guid;

#[repr(C)]
struct Bell {
    bell: AtomicU32,
    sleepers: AtomicU32,
}

const LEN: usize = 4096;
const _: () = assert!(HEADER_LEN + std::mem::size_of::<Bell>() <= LEN);

/// A doorbell segment, owned (created) or attached (opened).
pub(crate) struct Doorbell {
    seg: Segment,
}

impl Doorbell {
    /// Creates the doorbell of participant `participant` (its GUID names the segment).
    pub(crate) fn create(participant: Guid) -> Result<Doorbell> {
        Ok(Doorbell { seg: Segment::create(&segment_name(participant), SegmentKind::Doorbell, LEN, LEN)? })
    }

    /// Attaches to another participant's doorbell.
    pub(crate) fn open(participant: Guid) -> Result<Doorbell> {
        Ok(Doorbell { seg: Segment::open(&segment_name(participant), SegmentKind::Doorbell)? })
    }

    fn bell(&self) -> &Bell {
        // SAFETY: the segment is LEN bytes (checked by Segment::open against the header, which the
        // creator wrote as LEN), so HEADER_LEN + size_of::<Bell>() lies inside it; the offset is
        // 8-aligned on a page-aligned base; Bell holds atomics only, valid for any bit pattern.
        unsafe { &*self.seg.base().add(HEADER_LEN).cast::<Bell>() }
    }

    /// The bell's current count: what [`Doorbell::wait`] compares against.
    pub(crate) fn current(&self) -> u32 {
        self.bell().bell.load(Ordering::Acquire)
    }

    /// Tells the owner that something was published; a syscall only when it sleeps.
    pub(crate) fn ring(&self) {
        let b = self.bell();
        b.bell.fetch_add(1, Ordering::SeqCst);
        if b.sleepers.load(Ordering::SeqCst) != 0 {
            futex::wake(&b.bell, u32::MAX);
        }
    }

    /// Waits until the bell moves past `seen`: spins for up to `spin` (`Duration::MAX`: forever,
    /// the busy-polling mode), then sleeps for up to `timeout`. True if the bell rang.
    pub(crate) fn wait(&self, seen: u32, spin: Duration, timeout: Duration) -> bool {
        let b = self.bell();
        if b.bell.load(Ordering::Acquire) != seen {
            return true;
        }
        if !spin.is_zero() {
            let start = Instant::now();
            let mut i = 0u32;
            loop {
                std::hint::spin_loop();
                if b.bell.load(Ordering::Acquire) != seen {
                    return true;
                }
                i = i.wrapping_add(1);
                // Reading the clock costs more than a look at the bell: only every 64 looks.
                if i % 64 == 0 && start.elapsed() >= spin {
                    break;
                }
            }
        }
        b.sleepers.fetch_add(1, Ordering::SeqCst);
        if b.bell.load(Ordering::SeqCst) == seen {
            futex::wait(&b.bell, seen, Some(timeout));
        }
        b.sleepers.fetch_sub(1, Ordering::SeqCst);
        b.bell.load(Ordering::Acquire) != seen
    }

    pub(crate) fn unlink(&self) {
        self.seg.unlink();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::EntityId;
    use std::sync::Arc;

    #[test]
    fn a_ring_wakes_a_sleeper_in_time() {
        let g = Guid::new(super::super::test_prefix(), EntityId::PARTICIPANT);
        let owned = Arc::new(Doorbell::create(g).unwrap());
        let remote = Doorbell::open(g).unwrap();
        let o = Arc::clone(&owned);
        let seen = owned.current();
        let t = std::thread::spawn(move || {
            let start = Instant::now();
            let rang = o.wait(seen, Duration::from_micros(5), Duration::from_secs(5));
            (rang, start.elapsed())
        });
        std::thread::sleep(Duration::from_millis(30));
        remote.ring();
        let (rang, took) = t.join().unwrap();
        assert!(rang);
        assert!(took < Duration::from_secs(4), "woken by the ring, not the timeout: {took:?}");
        // A ring before the wait is not lost: the wait returns at once.
        let seen = owned.current();
        remote.ring();
        assert!(owned.wait(seen, Duration::ZERO, Duration::from_secs(5)));
        // Nobody rings: the wait ends at its timeout.
        let seen = owned.current();
        assert!(!owned.wait(seen, Duration::from_micros(2), Duration::from_millis(10)));
        owned.unlink();
    }
}
