//! A participant's doorbell: a one-page segment that writers of other processes ring after
//! publishing a sample for one of the participant's readers.
//!
//! Two kinds of sleepers, two futex words, and the ringing writer wakes only the one that will
//! drain the rings:
//! - **drainers**: application threads waiting for one of the participant's readers (a wait set in
//!   doorbell mode, `runtime/waitset.rs`); they sleep on `bell` and drain the rings themselves;
//! - **the reader thread** (`runtime/net/shm.rs`); it sleeps on `reader`, and drains when no
//!   drainer does.
//!
//! Ringing ([`Doorbell::ring`]): `bell += 1`; then, while a drainer is registered, wake the
//! drainers sleeping on `bell` (if any sleeps); otherwise bump `reader` and wake the reader thread
//! (if it sleeps). Every step is SeqCst, and each sleeper announces itself (`sleepers`,
//! `reader_sleeping`) before its last look at the word it sleeps on, so the writer's look at the
//! announcement and the sleeper's look at the word cannot both miss: no wake-up is lost, and a
//! writer makes no syscall while nobody sleeps. A drainer leaving ([`Doorbell::leave_drainer`])
//! kicks the reader thread when the bell rang after its last drain: a writer that saw it
//! registered woke nobody else.
//!
//! **Hand-off.** An application thread that waits in a loop (take, work, wait again: a ping-pong,
//! an executor) is away from the doorbell for a few microseconds between two waits, and on a
//! small machine it is often preempted there by the very thread its last sample woke. A sample
//! rung in that gap used to wake the reader thread: a futex wake, a context switch and a second
//! thread draining next to the returning one (40 % of the samples of a 64 B ping-pong; 1.9x the
//! futex floor with them, 1.2x without). So while application threads drain (one left a wait less
//! than [`STANDBY_WINDOW`] ago) and samples keep coming between their waits (`gaps` moved since
//! the reader thread's last sleep), the reader thread sleeps in *standby*: with a short timeout
//! (the participant's `SharedMemoryConfig::handoff`), announced in `standby`. A participant whose
//! samples always find their thread waiting never enters it (no timer wake-ups). A ring that finds no
//! drainer but the reader thread in standby wakes nobody ([`Doorbell::ring_sample`]): the returning
//! drainer drains the sample (it drains first thing), or the reader thread does when its timeout
//! ends, whichever comes first. The reader thread clears `standby` before its last look at `bell`
//! when it goes back to a long sleep, and a writer looks at `standby` after `bell += 1` (both
//! SeqCst), so a ring it did not kick for is seen by that look and drained. An application thread
//! blocked in one long wait leaves no trace in `left_at`: an idle participant's reader thread
//! sleeps long.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use super::futex;
use super::segment::{segment_name, Segment, SegmentKind, HEADER_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::spin::{spin_until, Waited};
use crate::wire::Guid;

#[repr(C)]
struct Bell {
    /// Bumped by every ring: what sleepers compare against.
    bell: AtomicU32,
    /// Drainers sleeping on `bell`.
    sleepers: AtomicU32,
    /// Drainers registered (awake or asleep).
    drainers: AtomicU32,
    /// The reader thread's futex word.
    reader: AtomicU32,
    /// 1 while the reader thread sleeps on `reader`.
    reader_sleeping: AtomicU32,
    /// 1 while the reader thread sleeps in standby (hand-off, module comment).
    standby: AtomicU32,
    /// Samples rung while no drainer was registered (hand-off: the reader thread goes to standby
    /// only while there are such).
    gaps: AtomicU32,
    /// CLOCK_MONOTONIC nanoseconds when a drainer last left (0: never).
    left_at: AtomicU64,
}

/// The reader thread sleeps in standby (module comment) while a drainer left a wait less than this
/// ago.
pub const STANDBY_WINDOW: Duration = Duration::from_millis(10);

/// CLOCK_MONOTONIC_COARSE in nanoseconds: the same clock in every process of the host. Coarse
/// (a tick, 1-4 ms) is plenty against the 10 ms standby window and costs a quarter of the precise
/// clock (7 against 25 ns here), which every drainer reads as it leaves a wait.
fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into ours; CLOCK_MONOTONIC_COARSE exists since
    // Linux 2.6.32.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    (ts.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(ts.tv_nsec as u64)
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
        let seg = Segment::open(&segment_name(participant), SegmentKind::Doorbell)?;
        if seg.len() < HEADER_LEN + std::mem::size_of::<Bell>() {
            return Err(Error::new(ErrorKind::Io, format!("shared memory: {} is too short", seg.path().display())));
        }
        Ok(Doorbell { seg })
    }

    fn bell(&self) -> &Bell {
        // SAFETY: the segment holds at least HEADER_LEN + size_of::<Bell>() bytes (create makes
        // LEN, open checks it); the offset is 8-aligned on a page-aligned base; Bell holds atomics
        // only, valid for any bit pattern.
        unsafe { &*self.seg.base().add(HEADER_LEN).cast::<Bell>() }
    }

    /// The bell's current count: what the waits compare against. SeqCst: a drainer's first look
    /// after registering must see every ring whose writer then saw no drainer (module comment).
    pub(crate) fn current(&self) -> u32 {
        self.bell().bell.load(Ordering::SeqCst)
    }

    /// Whether the bell rang since count `seen` (a spinning drainer's look; Acquire: what the
    /// ringing writer published before it rang is visible once this says yes).
    pub(crate) fn rung_since(&self, seen: u32) -> bool {
        self.bell().bell.load(Ordering::Acquire) != seen
    }

    /// Wakes whoever will drain the owner's readers now (a writer matched one of them, or one
    /// attached to a ring): a drainer if one waits, else the reader thread, with a syscall only
    /// when that one sleeps.
    pub(crate) fn ring(&self) {
        self.ring_for(false);
    }

    /// A writer published a sample for the owner's readers: as [`Doorbell::ring`], except that a
    /// reader thread in standby is not woken (hand-off, module comment). True if the ring woke a
    /// sleeping thread (a drainer or the reader thread).
    pub(crate) fn ring_sample(&self) -> bool {
        self.ring_for(true)
    }

    fn ring_for(&self, sample: bool) -> bool {
        let b = self.bell();
        b.bell.fetch_add(1, Ordering::SeqCst);
        if b.drainers.load(Ordering::SeqCst) > 0 {
            return b.sleepers.load(Ordering::SeqCst) != 0 && futex::wake(&b.bell, u32::MAX) > 0;
        }
        if sample {
            b.gaps.fetch_add(1, Ordering::Relaxed);
            if b.standby.load(Ordering::SeqCst) != 0 {
                return false;
            }
        }
        self.kick_reader()
    }

    /// Wakes the drainers only (an event of the owner's process for a waiting wait set); true if
    /// one slept (the futex was woken).
    pub(crate) fn wake_drainers(&self) -> bool {
        let b = self.bell();
        b.bell.fetch_add(1, Ordering::SeqCst);
        let slept = b.sleepers.load(Ordering::SeqCst) != 0;
        if slept {
            futex::wake(&b.bell, u32::MAX);
        }
        slept
    }

    /// Wakes the reader thread (if it sleeps); true if it slept and woke.
    pub(crate) fn kick_reader(&self) -> bool {
        let b = self.bell();
        b.reader.fetch_add(1, Ordering::SeqCst);
        b.reader_sleeping.load(Ordering::SeqCst) != 0 && futex::wake(&b.reader, 1) > 0
    }

    /// A drainer: waits until the bell moves past `seen`, spinning for up to `spin` (10 ms when
    /// busy polling), then sleeping for up to `timeout`. `Some` if it rang, or if `ready` held
    /// during the spin (the drainer looks at its rings' next slots there, which a writer fills
    /// before it rings: ShmPort::sleep), saying whether the spin ended it; `None` at the timeout.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn wait(
        &self,
        seen: u32,
        spin: Duration,
        timeout: Duration,
        ready: impl Fn() -> bool,
    ) -> Option<Waited> {
        let b = self.bell();
        if spin_until(spin.min(timeout), || ready() || b.bell.load(Ordering::Acquire) != seen) {
            return Some(Waited::InSpin);
        }
        b.sleepers.fetch_add(1, Ordering::SeqCst);
        if b.bell.load(Ordering::SeqCst) == seen {
            futex::wait(&b.bell, seen, Some(timeout));
        }
        b.sleepers.fetch_sub(1, Ordering::SeqCst);
        (b.bell.load(Ordering::Acquire) != seen).then_some(Waited::Slept)
    }

    /// The reader thread: waits until a ring it must drain (the bell moved past `seen` with no
    /// drainer registered) or a kick, spinning first as [`Doorbell::wait`] does, then sleeping for
    /// up to `timeout`, or up to `handoff` in standby (module comment; zero: never in standby).
    /// `gaps` is the count of samples rung with no drainer as of the previous wait: standby only
    /// while it moves.
    pub(crate) fn reader_wait(&self, seen: u32, spin: Duration, timeout: Duration, handoff: Duration, gaps: &mut u32) {
        let b = self.bell();
        // A kick (the port stopping) ends the spin; so does a drainer arriving (it will drain,
        // and two pollers per process would share a core on a small machine).
        // Nor does it spin while application threads drain in a loop (one left a wait lately):
        // they come back for the next sample, and a third poller on two cores starved them for
        // whole scheduler slices (10 ms p99 with busy polling).
        let left = b.left_at.load(Ordering::Relaxed);
        let draining =
            !handoff.is_zero() && left != 0 && mono_ns().wrapping_sub(left) < STANDBY_WINDOW.as_nanos() as u64;
        let kicked = b.reader.load(Ordering::SeqCst);
        // The spin also ends for a kick or a drainer arriving; only a ring skips the sleep below.
        let stop = || {
            b.bell.load(Ordering::Acquire) != seen
                || b.reader.load(Ordering::Relaxed) != kicked
                || b.drainers.load(Ordering::Relaxed) != 0
        };
        if !draining
            && b.drainers.load(Ordering::SeqCst) == 0
            && spin_until(spin, stop)
            && b.bell.load(Ordering::Acquire) != seen
        {
            return;
        }
        let g = b.gaps.load(Ordering::Relaxed);
        let standby = draining && std::mem::replace(gaps, g) != g;
        // Before the look at `bell` below: a writer that saw standby rang before that look.
        b.standby.store(u32::from(standby), Ordering::SeqCst);
        b.reader_sleeping.store(1, Ordering::SeqCst);
        let k = b.reader.load(Ordering::SeqCst);
        if k != kicked {
            b.reader_sleeping.store(0, Ordering::SeqCst);
            return;
        }
        if b.drainers.load(Ordering::SeqCst) > 0 || b.bell.load(Ordering::SeqCst) == seen {
            futex::wait(&b.reader, k, Some(if standby { handoff.min(timeout) } else { timeout }));
        }
        b.reader_sleeping.store(0, Ordering::SeqCst);
    }

    /// An application thread starts draining (it will sleep on the bell).
    pub(crate) fn enter_drainer(&self) {
        self.bell().drainers.fetch_add(1, Ordering::SeqCst);
    }

    /// ... and stops, having drained everything rung up to count `drained`: the reader thread takes
    /// over, kicked if the bell rang since (a writer that saw this drainer woke only drainers) and
    /// `unread` says a ring still holds something. A drainer that polls the rings drains a sample
    /// before its writer's ring lands, so "the bell moved" alone would kick the reader thread for
    /// nothing after most samples; a writer publishes before it rings, so once this look at the
    /// bell sees its ring, `unread` sees its sample unless it was drained.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn leave_drainer(&self, drained: u32, unread: impl FnOnce() -> bool) {
        let b = self.bell();
        b.left_at.store(mono_ns(), Ordering::Relaxed);
        b.drainers.fetch_sub(1, Ordering::SeqCst);
        if b.bell.load(Ordering::SeqCst) != drained && unread() {
            self.kick_reader();
        }
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
    use std::time::Instant;

    fn pair() -> (Arc<Doorbell>, Doorbell) {
        let g = Guid::new(super::super::test_prefix(), EntityId::PARTICIPANT);
        let owned = Arc::new(Doorbell::create(g).unwrap());
        let remote = Doorbell::open(g).unwrap();
        (owned, remote)
    }

    #[test]
    fn a_ring_wakes_the_reader_thread_when_no_drainer_waits() {
        let (owned, remote) = pair();
        let o = Arc::clone(&owned);
        let seen = owned.current();
        let t = std::thread::spawn(move || {
            let start = Instant::now();
            o.reader_wait(seen, Duration::from_micros(5), Duration::from_secs(5), Duration::ZERO, &mut 0);
            start.elapsed()
        });
        std::thread::sleep(Duration::from_millis(30));
        remote.ring();
        assert!(t.join().unwrap() < Duration::from_secs(4), "woken by the ring, not the timeout");
        // A ring before the wait is not lost: the wait returns at once.
        let seen = owned.current();
        remote.ring();
        let start = Instant::now();
        owned.reader_wait(seen, Duration::ZERO, Duration::from_secs(5), Duration::ZERO, &mut 0);
        assert!(start.elapsed() < Duration::from_secs(4));
        owned.unlink();
    }

    /// A drainer that polls its rings sees a sample before its writer rings, and leaves with the
    /// ring landed after its last drain: with nothing left unread, the reader thread sleeps on.
    #[test]
    fn a_polling_drainer_ends_its_spin_on_ready_and_leaves_without_kicking_for_what_it_drained() {
        let (owned, remote) = pair();
        let o = Arc::clone(&owned);
        let reader = std::thread::spawn(move || {
            let seen = o.current();
            o.reader_wait(seen, Duration::ZERO, Duration::from_millis(500), Duration::ZERO, &mut 0);
        });
        owned.enter_drainer();
        let seen = owned.current();
        let start = Instant::now();
        assert_eq!(
            owned.wait(seen, Duration::from_secs(5), Duration::from_secs(5), || true),
            Some(Waited::InSpin),
            "ready ends the spin"
        );
        assert!(start.elapsed() < Duration::from_secs(4));
        remote.ring_sample();
        let kicked = owned.bell().reader.load(Ordering::SeqCst);
        owned.leave_drainer(seen, || false);
        assert_eq!(owned.bell().reader.load(Ordering::SeqCst), kicked, "nothing unread: no kick");
        owned.enter_drainer();
        remote.ring_sample();
        owned.leave_drainer(seen, || true);
        assert_ne!(owned.bell().reader.load(Ordering::SeqCst), kicked, "a ring still holds a sample: kicked");
        reader.join().unwrap();
        owned.unlink();
    }

    #[test]
    fn with_a_drainer_a_ring_wakes_the_drainer_and_the_reader_thread_when_it_leaves() {
        let (owned, remote) = pair();
        owned.enter_drainer();
        let seen = owned.current();
        let o = Arc::clone(&owned);
        let reader = std::thread::spawn(move || {
            let start = Instant::now();
            let seen = o.current();
            o.reader_wait(seen, Duration::ZERO, Duration::from_secs(5), Duration::ZERO, &mut 0);
            start.elapsed()
        });
        let o = Arc::clone(&owned);
        let drainer = std::thread::spawn(move || {
            let start = Instant::now();
            let rang = o.wait(seen, Duration::ZERO, Duration::from_secs(5), || false);
            (rang, start.elapsed())
        });
        std::thread::sleep(Duration::from_millis(30));
        remote.ring();
        let (rang, took) = drainer.join().unwrap();
        assert!(rang == Some(Waited::Slept) && took < Duration::from_secs(4), "{rang:?} after {took:?}");
        // The reader thread still sleeps: the drainer has it. Leaving without having drained the
        // last ring kicks it.
        std::thread::sleep(Duration::from_millis(30));
        assert!(!reader.is_finished());
        owned.leave_drainer(seen, || true);
        assert!(reader.join().unwrap() < Duration::from_secs(4));
        // Nobody rings: a drainer's wait ends at its timeout.
        let seen = owned.current();
        assert_eq!(owned.wait(seen, Duration::from_micros(2), Duration::from_millis(10), || false), None);
        owned.unlink();
    }

    #[test]
    fn a_sample_rung_between_two_waits_of_a_drainer_is_left_to_it_and_the_standby_timeout() {
        let (owned, remote) = pair();
        let kicks = |d: &Doorbell| d.bell().reader.load(Ordering::SeqCst);
        // No drainer ever: the reader thread sleeps long, and a sample wakes it at once.
        let before = kicks(&owned);
        remote.ring_sample();
        assert_eq!(kicks(&owned), before + 1, "no application thread drains: the reader thread is kicked");
        // An application thread waited and left: the reader thread goes to sleep in standby ...
        owned.enter_drainer();
        owned.leave_drainer(owned.current(), || true);
        let o = Arc::clone(&owned);
        let seen = owned.current();
        let t = std::thread::spawn(move || {
            let start = Instant::now();
            // A sample was rung with no drainer since the last wait (the one above).
            o.reader_wait(seen, Duration::ZERO, Duration::from_secs(5), Duration::from_millis(20), &mut 0);
            start.elapsed()
        });
        while owned.bell().standby.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        // ... a sample then rings nobody awake (the drainer coming back drains it) ...
        let before = kicks(&owned);
        remote.ring_sample();
        assert_eq!(kicks(&owned), before, "the reader thread in standby is not kicked");
        // ... and the reader thread looks by itself within its hand-off time.
        assert!(t.join().unwrap() < Duration::from_secs(4), "standby ended at the hand-off time, not the timeout");
        // A matching ring (not a sample) still kicks at once.
        let before = kicks(&owned);
        remote.ring();
        assert_eq!(kicks(&owned), before + 1);
        owned.unlink();
    }

    #[test]
    fn busy_polling_waits_end_at_a_kick_a_drainer_or_the_timeout() {
        let (owned, _remote) = pair();
        // A reader thread polling without bound stops for a kick (how the port stops it) ...
        let o = Arc::clone(&owned);
        let seen = owned.current();
        let t = std::thread::spawn(move || {
            let start = Instant::now();
            o.reader_wait(seen, Duration::MAX, Duration::from_secs(5), Duration::ZERO, &mut 0);
            start.elapsed()
        });
        std::thread::sleep(Duration::from_millis(20));
        owned.kick_reader();
        assert!(t.join().unwrap() < Duration::from_secs(4), "the kick ended the spin");
        // ... and hands over to a drainer arriving (it then sleeps until kicked).
        let o = Arc::clone(&owned);
        let seen = owned.current();
        let t = std::thread::spawn(move || {
            o.reader_wait(seen, Duration::MAX, Duration::from_millis(50), Duration::ZERO, &mut 0)
        });
        std::thread::sleep(Duration::from_millis(20));
        owned.enter_drainer();
        t.join().unwrap();
        owned.leave_drainer(owned.current(), || true);
        // A drainer never polls past its timeout.
        let start = Instant::now();
        assert_eq!(owned.wait(owned.current(), Duration::MAX, Duration::from_millis(20), || false), None);
        assert!(start.elapsed() < Duration::from_secs(4));
        owned.unlink();
    }
}
