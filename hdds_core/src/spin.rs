//! The bounded spin every engine wait makes before it sleeps
//! ([`crate::ParticipantConfig::wait_spin`]).
//!
//! Why: in a ping-pong, or a stream faster than a wake-up, the next sample often comes within a
//! microsecond or two of the wait starting. Sleeping at once then costs a futex wait here and a
//! futex wake on the writer's side, and the wake-up latency of an idle core (about 27 µs on an
//! idle 2-core VM, 3 µs on a loaded one). A waiter that looks for a few microseconds first
//! catches such a sample without any system call on either side.
//!
//! Model (crossbeam's `Backoff`, the floor, bounded by time): a `pause`, a look, again,
//! reading the clock every `CLOCK_EVERY` (8) looks (a sample is seen within one pause, about 55 ns
//! on this EPYC VM); after [`YIELD_AFTER`] (1 µs) of that, a `yield_now` after every clock
//! reading, until the bound has passed; then the caller sleeps as before. A spin outlasts its bound
//! by at most 8 pauses and a yield. `Duration::ZERO` makes no spin. The yields let a peer thread
//! queued on this core run and answer (the same-process ping-pong on the loaded 2-core VM: 2.9 µs
//! with them, 8.7 µs spinning without, 3.0 µs sleeping at once, crossbeam 4.5 µs); the first
//! microsecond is yield-free because a reply on idle cores comes within it (0.30-0.48 µs one way
//! under `chrt`, against 0.63-0.75 µs when yielding from the start). Bounds above
//! [`YIELD_BELOW`] (busy polling) never yield: a poller that yields every few microseconds gave the
//! core to other processes and made the 64 B ping-pong 7.4-8.6 µs instead of 0.7-1.6 µs under load.
//!
//! **Only while samples come often** ([`Pace`]): a waiter spins only when its previous wait lasted
//! less than [`SHORT_WAIT_FACTOR`] times the bound (100 µs with the default 5 µs). A reader fed at
//! 1 kHz waits about 1 ms each time, so it never spins and its CPU per sample does not grow; one
//! in a ping-pong or an as-fast-as-possible stream does, and on idle cores saves the sleep and the
//! wake-up. A wait set's wait that found an entry ready at its first look is not counted
//! ([`Pace::wait_if_waited`]): an rclcpp executor makes one after every callback.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The default [`crate::ParticipantConfig::wait_spin`]: a few microseconds, enough for a reply in
/// a same-host ping-pong (0.3-1.5 µs one way), little against a wake-up (3-30 µs).
pub const WAIT_SPIN: Duration = Duration::from_micros(5);

/// The spin of busy-polling waits ([`crate::ParticipantConfig::busy_polling`]): a waiter polls
/// this long before it sleeps, so one fed at 100 Hz or faster never sleeps.
pub const BUSY_POLL_SPIN: Duration = Duration::from_millis(10);

/// A waiter spins only when its previous wait lasted less than this many times its bound.
pub const SHORT_WAIT_FACTOR: u32 = 20;

/// Looks (each after a `pause`, about 55 ns here) between two readings of the clock: a spin
/// outlasts its bound by half a microsecond at most.
const CLOCK_EVERY: u32 = 8;

/// Looks at `done` until it is true (true) or `bound` has passed since the call (false), with a
/// `pause` between looks and, past the first microsecond of a short bound, yields (module
/// comment). `done` is looked at once even with a zero bound.
#[link_section = ".text.hot.hdds"]
pub(crate) fn spin_until(bound: Duration, mut done: impl FnMut() -> bool) -> bool {
    if done() {
        return true;
    }
    if bound.is_zero() {
        return false;
    }
    let start = Instant::now();
    loop {
        // The clock costs about as much as a look and a pause: read it every CLOCK_EVERY looks.
        for _ in 0..CLOCK_EVERY {
            std::hint::spin_loop();
            if done() {
                return true;
            }
        }
        let spun = start.elapsed();
        if spun >= bound {
            return false;
        }
        if bound <= YIELD_BELOW && spun >= YIELD_AFTER {
            std::thread::yield_now();
            if done() {
                return true;
            }
        }
    }
}

/// Spins with a bound up to this yield (module comment); longer ones (busy polling) never do.
pub const YIELD_BELOW: Duration = Duration::from_micros(100);

/// How long a spin runs before it starts yielding.
pub const YIELD_AFTER: Duration = Duration::from_micros(1);

/// How a wait ended, as [`Pace`] records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waited {
    /// What it waited for was there at its first look: not recorded ([`Pace::wait_if_waited`]).
    AtOnce,
    /// It came during the spin: a short wait by definition (the spin is shorter than
    /// [`SHORT_WAIT_FACTOR`] bounds), recorded as such without reading the clock. A busy-polling
    /// reader ends nearly every wait this way, and the clock costs 24 ns on this VM, on the
    /// sample's path (measured: 0.43 against 0.48 µs one way for the 64 B ping-pong).
    InSpin,
    /// It slept, or timed out: its length is measured.
    Slept,
}

/// One waiter's pace: whether its next wait spins. It spins while its waits are short (the
/// previous one lasted under [`SHORT_WAIT_FACTOR`] times the bound). Atomic so that a reader
/// shared by several waiting threads keeps one (a lost update costs at most one spin).
///
/// Not done, measured: stopping after a spin that caught nothing (skipping the next 0 to 15
/// waits) made a loaded machine's ping-pong as fast as sleeping (3.0-3.9 µs against 8.9 µs
/// spinning) but left the quiet one (emulated with SCHED_FIFO) stuck in the slow state in about
/// half the runs (18-21 µs against 0.43 µs): once both sides sleep, a spin can catch the reply
/// only if the other side spins too, so a miss begets misses.
#[derive(Debug, Default)]
pub(crate) struct Pace {
    /// How long the previous wait lasted, ns (0 before the first: the first wait spins).
    last_ns: AtomicU64,
}

impl Pace {
    /// Runs one wait: `wait(start, spin)` gets the time it started and how long it may spin (the
    /// configured `bound`, or zero after a long wait), and its length is recorded for the next.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn wait<R>(&self, bound: Duration, wait: impl FnOnce(Instant, Duration) -> R) -> R {
        self.wait_if_waited(bound, |start, spin| (wait(start, spin), Waited::Slept))
    }

    /// [`Pace::wait`] for a wait that can tell how it ended ([`Waited`]): one that found what it
    /// waits for at its first look is not recorded. A wait that returned at once says
    /// nothing about how often samples come: an rclcpp executor's every other rmw_wait ends at
    /// once on the guard condition rclcpp triggers after each callback, and recording those made
    /// its next wait spin at 1 kHz (5 µs of CPU per sample, the sample 1 ms away).
    pub(crate) fn wait_if_waited<R>(&self, bound: Duration, wait: impl FnOnce(Instant, Duration) -> (R, Waited)) -> R {
        let start = Instant::now();
        let (r, waited) = wait(start, self.bound(bound));
        match waited {
            Waited::AtOnce => {}
            Waited::InSpin => self.last_ns.store(1, Ordering::Relaxed),
            Waited::Slept => self.record(start),
        }
        r
    }

    /// How long the next wait spins, given the configured bound.
    #[link_section = ".text.hot.hdds"]
    fn bound(&self, spin: Duration) -> Duration {
        if spin.is_zero() {
            return spin;
        }
        let short = spin.saturating_mul(SHORT_WAIT_FACTOR).as_nanos();
        if u128::from(self.last_ns.load(Ordering::Relaxed)) < short {
            spin
        } else {
            Duration::ZERO
        }
    }

    /// A wait that started at `start` ended now.
    #[link_section = ".text.hot.hdds"]
    fn record(&self, start: Instant) {
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.last_ns.store(ns.max(1), Ordering::Relaxed);
    }
}

/// For tests of a wait with a 300 ms spin that started at `start`: `asleep` says whether the
/// waiting thread sleeps. It must be awake (spinning) 100 ms in, unless the machine was too slow to
/// look in time, and asleep within a second, not before 300 ms.
#[cfg(test)]
pub(crate) fn assert_spins_300_ms_then_sleeps(start: Instant, asleep: impl Fn() -> bool) {
    std::thread::sleep(Duration::from_millis(100));
    if start.elapsed() < Duration::from_millis(250) {
        assert!(!asleep(), "the waiter slept before its 300 ms spin ended");
    }
    while !asleep() {
        assert!(start.elapsed() < Duration::from_secs(1), "the spin did not end after its bound");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(start.elapsed() >= Duration::from_millis(300), "slept after {:?}, before the bound", start.elapsed());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU32};
    use std::sync::Arc;

    /// The spin lasts its bound (not less: it ignores no setting; not unbounded: it ends), and a
    /// zero bound looks once and returns.
    #[test]
    fn a_spin_lasts_its_bound_and_no_longer() {
        let looks = AtomicU32::new(0);
        let t = Instant::now();
        assert!(!spin_until(Duration::ZERO, || {
            looks.fetch_add(1, Ordering::Relaxed);
            false
        }));
        assert_eq!(looks.load(Ordering::Relaxed), 1, "a zero bound looks exactly once");
        assert!(t.elapsed() < Duration::from_millis(50));
        for bound in [Duration::from_micros(200), Duration::from_millis(20)] {
            let t = Instant::now();
            assert!(!spin_until(bound, || false));
            let took = t.elapsed();
            assert!(took >= bound, "a {bound:?} spin gave up after {took:?}");
            // One step past the bound at most; a loaded machine may preempt us for a while.
            assert!(took < bound + Duration::from_millis(200), "a {bound:?} spin lasted {took:?}");
        }
    }

    /// A spin ends as soon as `done` holds, well before its bound.
    #[test]
    fn a_spin_ends_when_done() {
        let flag = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flag);
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            f.store(true, Ordering::Release);
        });
        let t = Instant::now();
        assert!(spin_until(Duration::from_secs(10), || flag.load(Ordering::Acquire)));
        assert!(t.elapsed() < Duration::from_secs(5), "the spin missed the flag");
        setter.join().unwrap();
    }

    /// A waiter spins after short waits, not after long ones, and never with a zero bound.
    #[test]
    fn pace_spins_only_after_short_waits() {
        let spin = Duration::from_micros(5);
        let p = Pace::default();
        assert_eq!(p.bound(spin), spin, "the first wait spins");
        assert_eq!(p.bound(Duration::ZERO), Duration::ZERO);
        p.last_ns.store(50_000, Ordering::Relaxed);
        assert_eq!(p.bound(spin), spin, "50 µs < 20 x 5 µs");
        p.last_ns.store(1_000_000, Ordering::Relaxed);
        assert_eq!(p.bound(spin), Duration::ZERO, "a 1 ms wait (1 kHz) makes the next one sleep at once");
        assert_eq!(p.bound(Duration::MAX), Duration::MAX, "busy polling always polls");
        p.record(Instant::now());
        assert_eq!(p.bound(spin), spin);
    }

    /// A wait that found its entry at once leaves the pace as the last real wait set it; one its
    /// spin ended counts as short, one that slept as long as it was.
    #[test]
    fn the_pace_follows_how_each_wait_ended() {
        let spin = Duration::from_micros(5);
        let p = Pace::default();
        p.last_ns.store(1_000_000, Ordering::Relaxed);
        assert_eq!(p.wait_if_waited(spin, |_, s| (s, Waited::AtOnce)), Duration::ZERO, "after a 1 ms wait: no spin");
        assert_eq!(p.bound(spin), Duration::ZERO, "the at-once wait did not make the next one spin");
        p.wait_if_waited(spin, |_, _| ((), Waited::Slept));
        assert_eq!(p.bound(spin), spin, "a short real wait does");
        // One caught by its spin counts as short without a clock reading, however long the call
        // around it took; one that slept is measured.
        p.last_ns.store(1_000_000, Ordering::Relaxed);
        p.wait_if_waited(spin, |_, _| {
            std::thread::sleep(Duration::from_millis(2));
            ((), Waited::InSpin)
        });
        assert_eq!(p.bound(spin), spin, "a wait its spin ended is short");
        p.wait_if_waited(spin, |_, _| {
            std::thread::sleep(Duration::from_millis(2));
            ((), Waited::Slept)
        });
        assert_eq!(p.bound(spin), Duration::ZERO, "a 2 ms sleep is long");
    }
}
