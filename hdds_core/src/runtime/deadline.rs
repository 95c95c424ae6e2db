//! DEADLINE: a reader expects, and a writer promises, a new sample at least once per period.
//!
//! The period starts with the first sample (DDS counts per instance, and a keyless topic's one
//! instance appears with its first sample) and restarts with every sample. Each whole period
//! that passes without one counts one miss (REQUESTED_ / OFFERED_DEADLINE_MISSED); the
//! [`super::watchdog`] thread does the counting.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::net::lock;
use crate::qos::INFINITE;

pub(crate) struct Deadline {
    period: Duration,
    /// When the next sample is due; `None` before the first.
    due: Mutex<Option<Instant>>,
}

impl Deadline {
    /// `None` for an infinite (or zero, meaningless) period: nothing to watch.
    pub(crate) fn new(period: Duration) -> Option<Deadline> {
        (period != INFINITE && !period.is_zero()).then(|| Deadline { period, due: Mutex::new(None) })
    }

    /// A sample now: the next is due a period later (returned, for the watchdog).
    pub(crate) fn renew(&self, now: Instant) -> Option<Instant> {
        let due = now.checked_add(self.period);
        *lock(&self.due) = due;
        due
    }

    /// The periods missed by `now` (0 if none) and the next due time.
    pub(crate) fn check(&self, now: Instant) -> (i32, Option<Instant>) {
        let mut d = lock(&self.due);
        let Some(due) = *d else { return (0, None) };
        if due > now {
            return (0, Some(due));
        }
        let missed = (now.duration_since(due).as_nanos() / self.period.as_nanos()).saturating_add(1);
        let missed = u32::try_from(missed).unwrap_or(u32::MAX);
        let next = self.period.checked_mul(missed).and_then(|p| due.checked_add(p));
        *d = next;
        (i32::try_from(missed).unwrap_or(i32::MAX), next)
    }
}

impl super::watchdog::Watched for super::reader::ReaderShared {
    fn check(&self, now: Instant) -> Option<Instant> {
        let (missed, next) = self.deadline.as_ref()?.check(now);
        if missed > 0 {
            self.events.update(super::status::REQUESTED_DEADLINE_MISSED, |s| s.add_total(missed));
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_whole_periods_from_the_last_sample() {
        let d = Deadline::new(Duration::from_millis(10)).unwrap();
        let t0 = Instant::now();
        assert_eq!(d.check(t0 + Duration::from_secs(1)), (0, None), "nothing is due before the first sample");
        assert_eq!(d.renew(t0), Some(t0 + Duration::from_millis(10)));
        assert_eq!(d.check(t0 + Duration::from_millis(9)), (0, Some(t0 + Duration::from_millis(10))));
        assert_eq!(d.check(t0 + Duration::from_millis(10)), (1, Some(t0 + Duration::from_millis(20))));
        assert_eq!(d.check(t0 + Duration::from_millis(45)), (3, Some(t0 + Duration::from_millis(50))));
        assert!(Deadline::new(INFINITE).is_none());
        assert!(Deadline::new(Duration::ZERO).is_none());
    }
}
