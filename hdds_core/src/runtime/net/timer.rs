//! The participant's timer: one thread sleeping until the earliest deadline any state machine asked
//! for, woken early when an earlier one appears.
//!
//! Anyone who changed a machine calls [`Timer::schedule`] with the machine's `next_deadline()` after
//! releasing the machine's lock. The timer thread resets its target before it sweeps every machine,
//! so a deadline is never lost: either `schedule` saw the reset (and sets a new target) or it ran
//! before the reset, and then its change was made before the sweep reads the machine. A mirror of
//! the target in an atomic lets `schedule` return without locking in the common case, where the
//! target is already as early (a writer's next HEARTBEAT rarely moves earlier on a write).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

const NONE: u64 = u64::MAX;

pub(crate) struct Timer {
    epoch: Instant,
    /// The target, in nanoseconds since `epoch`; NONE when nothing is scheduled.
    next: AtomicU64,
    lock: Mutex<()>,
    cv: Condvar,
    stop: AtomicBool,
}

impl Timer {
    pub(crate) fn new() -> Self {
        Timer {
            epoch: Instant::now(),
            next: AtomicU64::new(NONE),
            lock: Mutex::new(()),
            cv: Condvar::new(),
            stop: AtomicBool::new(false),
        }
    }

    /// The instant the timer counts from (leases are kept as nanoseconds since it).
    pub(crate) fn epoch(&self) -> Instant {
        self.epoch
    }

    fn ns(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.epoch).as_nanos().min(NONE as u128 - 1) as u64
    }

    /// Asks for a sweep at `at` (or earlier, if one is already due earlier).
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn schedule(&self, at: Option<Instant>) {
        let Some(at) = at else { return };
        let ns = self.ns(at);
        if ns >= self.next.load(Ordering::SeqCst) {
            return;
        }
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        if ns < self.next.load(Ordering::SeqCst) {
            self.next.store(ns, Ordering::SeqCst);
            self.cv.notify_one();
        }
    }

    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.cv.notify_one();
    }

    /// The timer thread: calls `sweep(now)` whenever the target passes; `sweep` returns the
    /// earliest deadline it saw. Returns when [`Timer::stop`] is called.
    pub(crate) fn run(&self, mut sweep: impl FnMut(Instant) -> Option<Instant>) {
        let mut g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            let now = Instant::now();
            let next = self.next.load(Ordering::SeqCst);
            if next <= self.ns(now) {
                self.next.store(NONE, Ordering::SeqCst);
                drop(g);
                let again = sweep(now);
                self.schedule(again);
                g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
                continue;
            }
            let wait = if next == NONE { Duration::from_secs(3600) } else { Duration::from_nanos(next - self.ns(now)) };
            g = self.cv.wait_timeout(g, wait).unwrap_or_else(|p| p.into_inner()).0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn wakes_for_an_earlier_deadline_and_stops() {
        let t = Arc::new(Timer::new());
        let (tx, rx) = std::sync::mpsc::channel();
        let th = {
            let t = Arc::clone(&t);
            std::thread::spawn(move || {
                t.run(|now| {
                    let _ = tx.send(now);
                    None
                })
            })
        };
        let start = Instant::now();
        t.schedule(Some(start + Duration::from_secs(60)));
        t.schedule(Some(start + Duration::from_millis(20)));
        let fired = rx.recv_timeout(Duration::from_secs(5)).expect("the earlier deadline fires");
        assert!(fired >= start + Duration::from_millis(20));
        assert!(rx.recv_timeout(Duration::from_millis(100)).is_err(), "nothing else is due");
        t.stop();
        th.join().unwrap();
    }
}
