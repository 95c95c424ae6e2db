//! Writer LIVELINESS leases and what readers see of them.
//!
//! - A MANUAL_BY_TOPIC or MANUAL_BY_PARTICIPANT writer with a finite lease is alive from its
//!   creation; every write and every [`super::Writer::assert_liveliness`] renews the lease. When
//!   the lease runs out (the [`super::watchdog`] thread looks) the writer counts LIVELINESS_LOST
//!   and each of its same-process readers counts it not alive (LIVELINESS_CHANGED: alive_count
//!   -1, not_alive_count +1); the next assertion makes it alive again for them. MANUAL_BY_PARTICIPANT
//!   is asserted per writer here (its own writes and assertions), not by its participant's other
//!   writers.
//! - AUTOMATIC writers are alive as long as their participant: they never lose liveliness locally.
//! - A reader counts a writer alive when it matches it; a remote writer stops being alive when it
//!   goes away, by SEDP disposal or because its participant's lease ran out (alive_count -1).
//!   A remote MANUAL writer with a finite lease also stops being alive when it stops asserting:
//!   its lease is kept by the reader's participant ([`super::net::writer_leases`]).
//!
//! Every change of a writer's liveliness happens under its state lock, so that its readers'
//! counts follow the order of the changes.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::events::Events;
use super::net::lock;
use super::status::{LIVELINESS_CHANGED, LIVELINESS_LOST, OFFERED_DEADLINE_MISSED};
use super::watchdog::Watched;
use super::writer::WriterShared;
use crate::qos::{Liveliness, LivelinessKind, INFINITE};

pub(crate) struct Lease {
    duration: Duration,
    state: Mutex<LeaseState>,
}

struct LeaseState {
    expires: Instant,
    alive: bool,
}

impl Lease {
    /// `None` when the writer never loses liveliness locally (AUTOMATIC, or an infinite lease).
    pub(crate) fn new(l: &Liveliness, now: Instant) -> Option<Lease> {
        if l.kind == LivelinessKind::Automatic || l.lease_duration == INFINITE {
            return None;
        }
        let expires = now.checked_add(l.lease_duration)?;
        Some(Lease { duration: l.lease_duration, state: Mutex::new(LeaseState { expires, alive: true }) })
    }

    pub(crate) fn is_alive(&self) -> bool {
        lock(&self.state).alive
    }

    /// When the lease ends, while the writer is alive.
    pub(crate) fn expires(&self) -> Option<Instant> {
        let s = lock(&self.state);
        s.alive.then_some(s.expires)
    }

    /// Renews the lease: whether the writer was not alive before, and when the lease now ends.
    pub(crate) fn assert(&self, now: Instant) -> (bool, Option<Instant>) {
        let mut s = lock(&self.state);
        let regained = !s.alive;
        s.alive = true;
        match now.checked_add(self.duration) {
            Some(e) => {
                s.expires = e;
                (regained, Some(e))
            }
            None => (regained, None),
        }
    }

    /// Whether the lease ran out just now, and when to look again (never while not alive).
    fn check(&self, now: Instant) -> (bool, Option<Instant>) {
        let mut s = lock(&self.state);
        if !s.alive {
            return (false, None);
        }
        if s.expires <= now {
            s.alive = false;
            return (true, None);
        }
        (false, Some(s.expires))
    }
}

/// A writer `alive` or not started (+1) or stopped (-1) counting for a reader.
pub(crate) fn count_writer(reader: &Arc<Events>, alive: bool, delta: i32) {
    reader.update(LIVELINESS_CHANGED, |s| if alive { s.add_current(delta) } else { s.add_total(delta) });
}

/// A matched writer became alive (`alive`) or not alive for a reader: one update moves it from one
/// count to the other, so a reader woken by it never takes a status with only half the move.
pub(crate) fn flip_writer(reader: &Arc<Events>, alive: bool) {
    let d = if alive { 1 } else { -1 };
    reader.update(LIVELINESS_CHANGED, |s| {
        s.add_current(d);
        s.add_total(-d);
    });
}

impl WriterShared {
    /// A write or an assertion: renews the lease; readers that counted the writer not alive count
    /// it alive again. Call under the writer's state lock with its matched readers; returns when
    /// the lease ends, for the watchdog.
    pub(crate) fn assert_alive(&self, matched: &[Arc<super::reader::ReaderShared>], now: Instant) -> Option<Instant> {
        let lease = self.lease.as_ref()?;
        let (regained, expires) = lease.assert(now);
        if regained {
            for r in matched {
                flip_writer(&r.events, true);
            }
        }
        expires
    }

    pub(crate) fn is_alive(&self) -> bool {
        self.lease.as_ref().map_or(true, Lease::is_alive)
    }
}

impl Watched for WriterShared {
    fn check(&self, now: Instant) -> Option<Instant> {
        let mut next = None;
        if let Some(d) = &self.deadline {
            let (missed, n) = d.check(now);
            if missed > 0 {
                self.events.update(OFFERED_DEADLINE_MISSED, |s| s.add_total(missed));
            }
            next = n;
        }
        if let Some(lease) = &self.lease {
            let n = self.with_matched(|readers| {
                let (lost, n) = lease.check(now);
                if lost {
                    for r in readers {
                        flip_writer(&r.events, false);
                    }
                    self.events.update(LIVELINESS_LOST, |s| s.add_total(1));
                }
                n
            });
            next = match (next, n) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::runtime::events::run_listeners;

    // A reader woken by a flip must take both halves of it: two updates would wake it (and call
    // its listener) between them, with alive_count moved and not_alive_count not yet.
    #[test]
    fn a_flip_is_one_status_update() {
        let events = Arc::new(Events::default());
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&calls);
        events.set_status_listener(Some(Arc::new(move |_| {
            seen.fetch_add(1, Ordering::SeqCst);
        })));
        count_writer(&events, true, 1);
        run_listeners();
        events.take(LIVELINESS_CHANGED.trailing_zeros() as usize);
        let before = calls.load(Ordering::SeqCst);

        flip_writer(&events, false);
        run_listeners();
        assert_eq!(calls.load(Ordering::SeqCst) - before, 1);
        let s = events.take(LIVELINESS_CHANGED.trailing_zeros() as usize);
        assert_eq!((s.current_count, s.current_count_change), (0, -1), "alive_count");
        assert_eq!((s.total_count, s.total_count_change), (1, 1), "not_alive_count");

        flip_writer(&events, true);
        let s = events.take(LIVELINESS_CHANGED.trailing_zeros() as usize);
        assert_eq!((s.current_count, s.current_count_change, s.total_count, s.total_count_change), (1, 1, 0, -1));
    }
}
