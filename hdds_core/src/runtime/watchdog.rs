//! The process's QoS timer thread: DEADLINE and writer LIVELINESS leases of every endpoint, with
//! or without network (a same-process participant has no thread of its own).
//!
//! One thread for the whole process, started by the first endpoint that needs it, asleep on a
//! [`Timer`] (the same timer the network runtime uses, so the same no-lost-deadline argument
//! holds): whoever moves a deadline earlier calls [`schedule`]; each sweep asks every watched
//! endpoint what is due and when it wants to be looked at next. Endpoints are held weakly and
//! forgotten once dropped. A sweep takes the registry lock, then one endpoint's locks; listener
//! calls it queues run after the registry lock is released.

use std::sync::{Mutex, OnceLock, Weak};
use std::time::Instant;

use super::events::run_listeners;
use super::net::lock;
use super::net::timer::Timer;
use crate::error::{Error, ErrorKind, Result};

/// Something with QoS deadlines: checks what is due at `now`, returns its next deadline.
pub(crate) trait Watched: Send + Sync {
    fn check(&self, now: Instant) -> Option<Instant>;
}

struct Watchdog {
    timer: Timer,
    items: Mutex<Vec<Weak<dyn Watched>>>,
    started: Mutex<bool>,
}

fn watchdog() -> &'static Watchdog {
    static W: OnceLock<Watchdog> = OnceLock::new();
    W.get_or_init(|| Watchdog { timer: Timer::new(), items: Mutex::new(Vec::new()), started: Mutex::new(false) })
}

/// Watches `item` from now on (starting the thread if needed) and asks for a look at `first`.
pub(crate) fn watch(item: Weak<dyn Watched>, first: Option<Instant>) -> Result<()> {
    let w = watchdog();
    {
        let mut started = lock(&w.started);
        if !*started {
            std::thread::Builder::new()
                .name("hdds-qos-timer".into())
                .spawn(|| {
                    let w = watchdog();
                    w.timer.run(|now| w.sweep(now))
                })
                .map_err(|e| Error::new(ErrorKind::Io, format!("could not start the QoS timer thread: {e}")))?;
            *started = true;
        }
    }
    lock(&w.items).push(item);
    w.timer.schedule(first);
    Ok(())
}

/// Asks for a look at `at` (or earlier, if one is due earlier).
pub(crate) fn schedule(at: Option<Instant>) {
    if at.is_some() {
        watchdog().timer.schedule(at);
    }
}

impl Watchdog {
    fn sweep(&self, now: Instant) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        lock(&self.items).retain(|item| match item.upgrade() {
            Some(i) => {
                if let Some(t) = i.check(now) {
                    next = Some(next.map_or(t, |n| n.min(t)));
                }
                true
            }
            None => false,
        });
        run_listeners();
        next
    }
}
