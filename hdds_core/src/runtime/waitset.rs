//! Wait sets: a thread sleeps until one of several readers, writers or guard conditions is ready.
//!
//! Wake-up model (attach, then check, then sleep):
//! - Every waitable thing (a reader's or writer's `Events`, a guard condition) owns a `Waiters`
//!   list: the wait sets sleeping on it right now. Whoever makes it ready (a delivery, a status
//!   change, a trigger) first changes its state, then calls `Waiters::notify`, which raises the
//!   `signalled` flag of every attached wait set under that wait set's mutex and wakes its thread.
//! - [`WaitSet::wait`] first looks at every entry (no attaching when something is ready already).
//!   Otherwise it attaches itself to every entry, then repeats: clear `signalled`, look at every
//!   entry, sleep until `signalled` or the deadline. A change made before a look is seen by the
//!   look; a change made after it notifies after the flag was cleared, so the sleep returns at
//!   once. No wake-up is lost. It detaches before returning.
//! - A wake-up that readies none of the entries (a status bit outside the entry's mask, a guard
//!   condition another wait set consumed first) just loops.
//! - Steady state allocates nothing: attaching pushes an `Arc` clone into a vector that keeps its
//!   capacity, detaching swap-removes it.
//!
//! - Doorbell mode: when an entry is a reader that same-host writers serve through shared memory
//!   (`runtime/net/shm.rs`), the wait sleeps on that participant's doorbell (a futex those
//!   writers ring) instead of its condition variable, and drains the rings itself when it wakes:
//!   a sample from another process then wakes one thread, the waiting one, instead of the
//!   participant's reader thread and then this one (writers wake the waiting thread instead of the
//!   reader thread while such a wait is registered; `transport/shm/doorbell.rs`). `signal` rings the same doorbell, so every
//!   other wake-up still arrives; the check of `signalled` comes after reading the doorbell's
//!   count, so a signal between the two makes the sleep return at once. A signal raised by the
//!   waiting thread itself (its own drain delivered the sample) rings nothing: that thread looks
//!   at `signalled` before it sleeps, and a ring would make it kick the reader thread on leaving
//!   (one needless wake-up of another thread per sample).
//! - Syscalls only for sleepers: `signal` notifies the condition variable only while a thread
//!   sleeps on it (`cv_sleepers`, counted under the `signalled` mutex; std's notify always makes a
//!   futex syscall).
//!
//! Lock order: an entity's state lock (if any), then its `Waiters` list, then a wait set's
//! `signalled` mutex, then its doorbell slot. A wait set never holds its own mutex while it
//! attaches or looks.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use super::condition::GuardCondition;
use super::events::run_listeners;
use super::net::lock;
use super::net::shm::ShmPort;
use super::reader::Reader;
use super::status::StatusMask;
use super::writer::Writer;

/// The sleeping side of one wait set.
#[derive(Default)]
pub(crate) struct WaitCore {
    signalled: Mutex<bool>,
    cv: Condvar,
    /// Threads sleeping on `cv` (changed under the `signalled` mutex).
    cv_sleepers: AtomicU32,
    /// Set while a wait sleeps on a participant's doorbell (doorbell mode): the port, and the
    /// waiting thread.
    bell: Mutex<Option<(Arc<ShmPort>, ThreadId)>>,
    /// Condition-variable notifications made (tests count the futex calls a signal costs).
    #[cfg(test)]
    notified: AtomicU32,
}

impl WaitCore {
    fn signal(&self) {
        // Only the signal that raises the flag wakes anyone: a flag already raised was raised by a
        // signal that woke the sleeper (or by the waiting thread itself, which looks at the flag
        // before it sleeps). One wait set attached twice to one entity (a reader's data and its
        // statuses) then costs one futex call per sample, not two.
        if std::mem::replace(&mut *lock(&self.signalled), true) {
            return;
        }
        // The flag was raised under the mutex a sleeper holds while it counts itself in and looks
        // at the flag: either it sees the flag, or we see it counted.
        if self.cv_sleepers.load(Ordering::SeqCst) > 0 {
            #[cfg(test)]
            self.notified.fetch_add(1, Ordering::SeqCst);
            self.cv.notify_one();
        }
        if let Some((port, waiter)) = lock(&self.bell).as_ref() {
            if *waiter != std::thread::current().id() {
                port.wake_drainers();
            }
        }
    }

    /// Doorbell mode: sleeps on `port`'s doorbell, draining its rings at each wake-up, until
    /// signalled (true) or `deadline` passes (false). Also returns the doorbell count up to which
    /// everything was drained.
    fn sleep_on_bell(&self, port: &ShmPort, deadline: Option<Instant>) -> (bool, u32) {
        loop {
            let seen = port.bell();
            port.drain();
            run_listeners();
            if *lock(&self.signalled) {
                return (true, seen);
            }
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(l) if !l.is_zero() => l,
                    _ => return (false, seen),
                },
                None => Duration::from_secs(3600),
            };
            port.sleep(seen, left);
        }
    }

    fn reset(&self) {
        *lock(&self.signalled) = false;
    }

    /// Sleeps until signalled (true) or `deadline` passes (false). `None` waits forever.
    fn sleep(&self, deadline: Option<Instant>) -> bool {
        let mut s = lock(&self.signalled);
        while !*s {
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(l) if !l.is_zero() => l,
                    _ => return false,
                },
                None => Duration::from_secs(3600),
            };
            self.cv_sleepers.fetch_add(1, Ordering::SeqCst);
            s = self.cv.wait_timeout(s, left).unwrap_or_else(|p| p.into_inner()).0;
            self.cv_sleepers.fetch_sub(1, Ordering::SeqCst);
        }
        true
    }
}

/// The wait sets waiting on one waitable thing right now.
#[derive(Default)]
pub(crate) struct Waiters {
    list: Mutex<Vec<Arc<WaitCore>>>,
}

impl Waiters {
    fn attach(&self, ws: &Arc<WaitCore>) {
        lock(&self.list).push(Arc::clone(ws));
    }

    fn detach(&self, ws: &Arc<WaitCore>) {
        let mut l = lock(&self.list);
        if let Some(i) = l.iter().position(|w| Arc::ptr_eq(w, ws)) {
            l.swap_remove(i);
        }
    }

    /// Wakes every attached wait set. Call after the state change that made the thing ready.
    ///
    /// The wake-ups happen outside the list's lock when the list is short (it nearly always
    /// holds one or two wait sets): the woken thread detaches from this list at once, and would
    /// otherwise block on the lock while this thread is still in the futex call that woke it (a
    /// second sleep and wake-up per sample). A wait set detached meanwhile gets a spurious
    /// signal, which a wait tolerates (it resets the flag before it looks).
    pub(crate) fn notify(&self) {
        const FEW: usize = 4;
        let mut few: [Option<Arc<WaitCore>>; FEW] = Default::default();
        {
            let list = lock(&self.list);
            if list.len() > FEW {
                list.iter().for_each(|w| w.signal());
                return;
            }
            for (slot, w) in few.iter_mut().zip(list.iter()) {
                *slot = Some(Arc::clone(w));
            }
        }
        few.iter().flatten().for_each(|w| w.signal());
    }
}

/// What one entry of a wait waits for.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    /// Ready while the reader holds unread samples.
    ReaderData(&'a Reader),
    /// Ready when triggered; a wait that finds it ready resets it.
    Guard(&'a GuardCondition),
    /// Ready when one of the reader's statuses in the mask changed since it was last read.
    ReaderStatus(&'a Reader, StatusMask),
    /// Ready when one of the writer's statuses in the mask changed since it was last read.
    WriterStatus(&'a Writer, StatusMask),
}

impl Target<'_> {
    fn waiters(&self) -> &Waiters {
        match self {
            Target::ReaderData(r) | Target::ReaderStatus(r, _) => &r.events().waiters,
            Target::WriterStatus(w, _) => &w.events().waiters,
            Target::Guard(g) => g.waiters(),
        }
    }

    /// Whether the entry is ready now (consuming a guard condition's trigger).
    fn poll(&self) -> bool {
        match self {
            Target::ReaderData(r) => r.available() > 0,
            Target::Guard(g) => g.take_triggered(),
            Target::ReaderStatus(r, mask) => r.events().changed(*mask),
            Target::WriterStatus(w, mask) => w.events().changed(*mask),
        }
    }
}

/// The entries of one wait, however the caller stores them (the C ABI keeps its own array).
pub trait WaitList {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn target(&self, i: usize) -> Target<'_>;
    fn set_ready(&mut self, i: usize, ready: bool);
}

/// One entry and whether the last wait found it ready.
#[derive(Clone, Copy)]
pub struct WaitEntry<'a> {
    pub target: Target<'a>,
    pub ready: bool,
}

impl<'a> WaitEntry<'a> {
    pub fn new(target: Target<'a>) -> Self {
        WaitEntry { target, ready: false }
    }
}

impl WaitList for [WaitEntry<'_>] {
    fn len(&self) -> usize {
        <[WaitEntry<'_>]>::len(self)
    }
    fn target(&self, i: usize) -> Target<'_> {
        self[i].target
    }
    fn set_ready(&mut self, i: usize, ready: bool) {
        self[i].ready = ready;
    }
}

/// A wait set. The entries are given to each [`WaitSet::wait`] (rmw_wait's shape); one wait at a
/// time per wait set (`wait` takes `&mut self`).
#[derive(Default)]
pub struct WaitSet {
    core: Arc<WaitCore>,
}

impl WaitSet {
    pub fn new() -> Self {
        WaitSet::default()
    }

    /// Waits until an entry is ready or `timeout` passes (`None`: forever; zero: just look).
    /// Sets each entry's ready flag and returns whether any is ready. Guard conditions found
    /// ready are reset. With no entries it sleeps for the timeout.
    pub fn wait<L: WaitList + ?Sized>(&mut self, entries: &mut L, timeout: Option<Duration>) -> bool {
        let any = poll_all(entries);
        if any || timeout == Some(Duration::ZERO) {
            return any;
        }
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let port = (0..entries.len()).find_map(|i| match entries.target(i) {
            Target::ReaderData(r) => r.shm_port().cloned(),
            _ => None,
        });
        *lock(&self.core.bell) = port.clone().map(|p| (p, std::thread::current().id()));
        for i in 0..entries.len() {
            entries.target(i).waiters().attach(&self.core);
        }
        let any = loop {
            self.core.reset();
            if poll_all(entries) {
                break true;
            }
            let signalled = match &port {
                Some(p) => {
                    p.enter_drainer();
                    let (signalled, drained) = self.core.sleep_on_bell(p, deadline);
                    p.leave_drainer(drained);
                    signalled
                }
                None => self.core.sleep(deadline),
            };
            if !signalled {
                // Timed out: one last look, for what changed while the deadline passed.
                break poll_all(entries);
            }
        };
        for i in 0..entries.len() {
            entries.target(i).waiters().detach(&self.core);
        }
        *lock(&self.core.bell) = None;
        any
    }
}

/// Looks at every entry (all of them: each ready flag must be right) and says if any is ready.
fn poll_all<L: WaitList + ?Sized>(entries: &mut L) -> bool {
    let mut any = false;
    for i in 0..entries.len() {
        let ready = entries.target(i).poll();
        entries.set_ready(i, ready);
        any |= ready;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wait set attached twice to one entity (a reader's data and its statuses, as rmw_wait
    /// attaches them) is woken by one notification per change, not one per attachment.
    #[test]
    fn one_change_wakes_a_doubly_attached_wait_set_once() {
        let core = Arc::new(WaitCore::default());
        let waiters = Waiters::default();
        waiters.attach(&core);
        waiters.attach(&core);
        let sleeper = {
            let core = Arc::clone(&core);
            std::thread::spawn(move || core.sleep(Some(Instant::now() + Duration::from_secs(10))))
        };
        let t0 = Instant::now();
        while core.cv_sleepers.load(Ordering::SeqCst) == 0 {
            assert!(t0.elapsed() < Duration::from_secs(5), "the sleeper never slept");
            std::thread::yield_now();
        }
        waiters.notify();
        assert!(sleeper.join().unwrap(), "the sleeper was not woken");
        assert_eq!(core.notified.load(Ordering::SeqCst), 1);
        waiters.detach(&core);
        waiters.detach(&core);
        assert!(lock(&waiters.list).is_empty());
    }
}
