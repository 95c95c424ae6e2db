//! Wait sets: a thread sleeps until one of several readers, writers or guard conditions is ready.
//!
//! Wake-up model (attach, then check, then sleep):
//! - Every waitable thing (a reader's or writer's `Events`, a guard condition) owns a `Waiters`
//!   list: the wait sets attached to it. Whoever makes it ready (a delivery, a status change, a
//!   trigger) first changes its state, then calls `Waiters::notify`, which raises the `signalled`
//!   flag of every attached wait set under that wait set's mutex and wakes its thread if it sleeps.
//! - A wait set stays attached between waits (as Cyclone's rmw caches its wait set): rmw_wait
//!   passes the same entries nearly every time, and attaching and detaching cost one lock per entry
//!   and wait. [`WaitSet::wait`] compares the entries with what it is attached to; when they
//!   differ it first looks at every entry (no re-attaching when something is ready already), and
//!   only when it must sleep it detaches from the old entries and attaches to the new ones. While
//!   attached to every entry it repeats: clear `signalled`, look at every entry, sleep until
//!   `signalled` or the deadline. A change made before a look is seen by the look; a change made
//!   after it notifies after the flag was cleared, so the sleep returns at once. No wake-up is
//!   lost. A wait set keeps what it is attached to alive (an `Arc` of the entity's `Events` or
//!   of the guard condition's list), so a deleted entity's list can still be detached from; it
//!   detaches from everything when dropped.
//! - A change on an entity the wait set is still attached to but no longer waits for (or made
//!   while no wait runs) only raises the flag: the next wait clears it before it looks.
//! - A wake-up that readies none of the entries (a status bit outside the entry's mask, a guard
//!   condition another wait set consumed first) just loops.
//! - Steady state allocates nothing and takes no `Waiters` lock on the waiting side: the
//!   attachments are kept; re-attaching (other entries) reuses the vectors' capacity.
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
//! - Spin first ([`crate::ParticipantConfig::wait_spin`], `crate::spin`): a wait looks for a few
//!   microseconds in all before it sleeps (in doorbell mode across the sleeps of its drain loop, so
//!   that a ring readying nothing, such as the writer's own, does not end the spinning): at
//!   `raised` (the flag, without its mutex) on the condition variable path, at the doorbell's count
//!   in doorbell mode. A signal meanwhile finds no sleeper counted and makes no syscall; one after
//!   the spin finds the sleeper as before. The bound is the longest `wait_spin` of the entries'
//!   readers' participants, and a wait spins only while waits are short (the previous one lasted
//!   under 20 times the bound), so an executor woken at 1 kHz sleeps at once as without a spin
//!   (`crate::spin::Pace`).
//! - Syscalls only for sleepers: `signal` notifies the condition variable only while a thread
//!   sleeps on it (`cv_sleepers`, counted under the `signalled` mutex; std's notify always makes a
//!   futex syscall).
//!
//! Lock order: an entity's state lock (if any), then its `Waiters` list, then a wait set's
//! `signalled` mutex, then its doorbell slot. A wait set never holds its own mutex while it
//! attaches or looks.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use super::condition::GuardCondition;
use super::events::{run_listeners, Events};
use super::net::lock;
use super::net::shm::ShmPort;
use super::reader::Reader;
use super::status::StatusMask;
use super::writer::Writer;
use crate::spin::{spin_until, Pace, Waited};

/// The sleeping side of one wait set.
#[derive(Default)]
pub(crate) struct WaitCore {
    signalled: Mutex<bool>,
    /// `signalled`, readable without the mutex: what a spinning wait looks at (raised after the
    /// flag, cleared with it).
    raised: AtomicBool,
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
    #[link_section = ".text.hot.hdds"]
    fn signal(&self) {
        // Only the signal that raises the flag wakes anyone: a flag already raised was raised by a
        // signal that woke the sleeper (or by the waiting thread itself, which looks at the flag
        // before it sleeps). One wait set attached twice to one entity (a reader's data and its
        // statuses) then costs one futex call per sample, not two.
        {
            let mut s = lock(&self.signalled);
            if std::mem::replace(&mut *s, true) {
                return;
            }
            self.raised.store(true, Ordering::Release);
        }
        // The flag was raised under the mutex a sleeper holds while it counts itself in and looks
        // at the flag: either it sees the flag, or we see it counted.
        if self.cv_sleepers.load(Ordering::SeqCst) > 0 {
            #[cfg(test)]
            self.notified.fetch_add(1, Ordering::SeqCst);
            self.cv.notify_one();
            super::handoff::woke_a_sleeper();
        }
        if let Some((port, waiter)) = lock(&self.bell).as_ref() {
            if *waiter != std::thread::current().id() && port.wake_drainers() {
                super::handoff::woke_a_sleeper();
            }
        }
    }

    /// Doorbell mode: sleeps on `port`'s doorbell, draining its rings at each wake-up, until
    /// signalled or `deadline` passes; each sleep spins first while `spin` has not
    /// passed since the call (a ring that readies nothing, the writer's own or another reader's,
    /// does not end the spinning): `Some` when signalled, saying whether it slept, `None` at the
    /// deadline. Also returns the doorbell count up to which everything was drained.
    #[link_section = ".text.hot.hdds"]
    fn sleep_on_bell(&self, port: &ShmPort, spin: Duration, deadline: Option<Instant>) -> (Option<Waited>, u32) {
        let spin_from = Instant::now();
        let mut how = Waited::InSpin;
        loop {
            let seen = port.bell();
            port.drain();
            run_listeners();
            if *lock(&self.signalled) {
                return (Some(how), seen);
            }
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(l) if !l.is_zero() => l,
                    _ => return (None, seen),
                },
                None => Duration::from_secs(3600),
            };
            if port.sleep(seen, spin.saturating_sub(spin_from.elapsed()), left) != Some(Waited::InSpin) {
                how = Waited::Slept;
            }
        }
    }

    #[link_section = ".text.hot.hdds"]
    fn reset(&self) {
        let mut s = lock(&self.signalled);
        *s = false;
        self.raised.store(false, Ordering::Relaxed);
    }

    /// Sleeps until signalled (`Some`, saying whether the spin ended it) or `deadline` passes
    /// (`None`), spinning up to `spin` first. A `deadline` of `None` waits forever.
    #[link_section = ".text.hot.hdds"]
    fn sleep(&self, spin: Duration, deadline: Option<Instant>) -> Option<Waited> {
        let spin = deadline.map_or(spin, |d| spin.min(d.saturating_duration_since(Instant::now())));
        // A signal during the spin raises the flag without a notify (nobody counted as sleeping).
        if spin_until(spin, || self.raised.load(Ordering::Acquire)) {
            return Some(Waited::InSpin);
        }
        let mut s = lock(&self.signalled);
        while !*s {
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(l) if !l.is_zero() => l,
                    _ => return None,
                },
                None => Duration::from_secs(3600),
            };
            self.cv_sleepers.fetch_add(1, Ordering::SeqCst);
            s = self.cv.wait_timeout(s, left).unwrap_or_else(|p| p.into_inner()).0;
            self.cv_sleepers.fetch_sub(1, Ordering::SeqCst);
        }
        Some(Waited::Slept)
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
    #[link_section = ".text.hot.hdds"]
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

    /// What keeps this entry's `Waiters` list alive while a wait set is attached to it.
    fn attachment(&self) -> Attachment {
        match self {
            Target::ReaderData(r) | Target::ReaderStatus(r, _) => Attachment::Events(Arc::clone(r.events())),
            Target::WriterStatus(w, _) => Attachment::Events(Arc::clone(w.events())),
            Target::Guard(g) => Attachment::Guard(Arc::clone(g.waiters_arc())),
        }
    }

    /// Whether the entry is ready now (consuming a guard condition's trigger).
    #[link_section = ".text.hot.hdds"]
    fn poll(&self) -> bool {
        match self {
            Target::ReaderData(r) => r.available() > 0,
            Target::Guard(g) => g.take_triggered(),
            Target::ReaderStatus(r, mask) => r.events().changed(*mask),
            Target::WriterStatus(w, mask) => w.events().changed(*mask),
        }
    }
}

/// A `Waiters` list a wait set is attached to, kept alive by the wait set.
enum Attachment {
    Events(Arc<Events>),
    Guard(Arc<Waiters>),
}

impl Attachment {
    fn waiters(&self) -> &Waiters {
        match self {
            Attachment::Events(e) => &e.waiters,
            Attachment::Guard(w) => w,
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
    /// What the wait set is attached to, one per entry in entry order (a reader's data and
    /// statuses attach its list twice; a change signals the wait set once all the same).
    attached: Vec<Attachment>,
    /// Whether the next wait spins before it sleeps (`crate::spin`).
    pace: Pace,
}

impl WaitSet {
    pub fn new() -> Self {
        WaitSet::default()
    }

    /// Waits until an entry is ready or `timeout` passes (`None`: forever; zero: just look).
    /// Sets each entry's ready flag and returns whether any is ready. Guard conditions found
    /// ready are reset. With no entries it sleeps for the timeout.
    #[link_section = ".text.hot.hdds"]
    pub fn wait<L: WaitList + ?Sized>(&mut self, entries: &mut L, timeout: Option<Duration>) -> bool {
        if timeout == Some(Duration::ZERO) {
            return poll_all(entries);
        }
        // The wait spins before it sleeps, up to the readers' participants' bound in all.
        let bound = wait_spin(entries);
        // (The pace is moved out for the call: `wait_from` borrows the wait set mutably.)
        let pace = std::mem::take(&mut self.pace);
        let any = pace.wait_if_waited(bound, |start, spin| self.wait_from(start, spin, entries, timeout));
        self.pace = pace;
        any
    }

    /// [`WaitSet::wait`] for up to `timeout` (`Duration::MAX`: forever) without its spin, and
    /// without recording anything in the pace: for a caller that spun already
    /// (`Reader::take_timeout`).
    pub(crate) fn wait_without_spin<L: WaitList + ?Sized>(&mut self, entries: &mut L, timeout: Duration) -> bool {
        self.wait_from(Instant::now(), Duration::ZERO, entries, Some(timeout)).0
    }

    /// The wait proper: whether an entry is ready, and how long it had to wait for one.
    #[link_section = ".text.hot.hdds"]
    fn wait_from<L: WaitList + ?Sized>(
        &mut self,
        start: Instant,
        mut spin: Duration,
        entries: &mut L,
        timeout: Option<Duration>,
    ) -> (bool, Waited) {
        if !self.attached_to(entries) {
            if poll_all(entries) {
                return (true, Waited::AtOnce);
            }
            self.attach(entries);
        }
        let mut waited = Waited::AtOnce;
        let deadline = timeout.and_then(|t| start.checked_add(t));
        let mut port: Option<Arc<ShmPort>> = None;
        let any = loop {
            self.core.reset();
            if poll_all(entries) {
                break true;
            }
            if waited == Waited::AtOnce {
                waited = Waited::InSpin;
            }
            if port.is_none() {
                port = (0..entries.len()).find_map(|i| match entries.target(i) {
                    Target::ReaderData(r) => r.shm_port().cloned(),
                    _ => None,
                });
                // Set before the sleep's own look at `signalled`: a signal made before this
                // raised the flag that look sees.
                if let Some(p) = &port {
                    *lock(&self.core.bell) = Some((Arc::clone(p), std::thread::current().id()));
                }
            }
            let woke = match &port {
                Some(p) => {
                    // Writers of other processes wake this thread here: ask to run at their wake-up.
                    super::wake_slice::before_sleep(|| wake_slice(entries));
                    p.enter_drainer();
                    let (woke, drained) = self.core.sleep_on_bell(p, std::mem::take(&mut spin), deadline);
                    p.leave_drainer(drained);
                    woke
                }
                None => self.core.sleep(std::mem::take(&mut spin), deadline),
            };
            if woke != Some(Waited::InSpin) {
                waited = Waited::Slept;
            }
            if woke.is_none() {
                // Timed out: one last look, for what changed while the deadline passed.
                break poll_all(entries);
            }
        };
        if port.is_some() {
            *lock(&self.core.bell) = None;
        }
        (any, waited)
    }

    /// Whether the wait set is attached to exactly these entries' lists, in order.
    fn attached_to<L: WaitList + ?Sized>(&self, entries: &L) -> bool {
        self.attached.len() == entries.len()
            && self.attached.iter().enumerate().all(|(i, a)| std::ptr::eq(a.waiters(), entries.target(i).waiters()))
    }

    /// Detaches from what the wait set is attached to and attaches to `entries`.
    fn attach<L: WaitList + ?Sized>(&mut self, entries: &L) {
        self.detach_all();
        for i in 0..entries.len() {
            let a = entries.target(i).attachment();
            a.waiters().attach(&self.core);
            self.attached.push(a);
        }
    }

    fn detach_all(&mut self) {
        for a in self.attached.drain(..) {
            a.waiters().detach(&self.core);
        }
    }
}

impl Drop for WaitSet {
    fn drop(&mut self) {
        self.detach_all();
    }
}

/// The slice a thread sleeping for `entries` on a doorbell asks for: the shortest their readers'
/// participants ask for (`super::wake_slice`).
fn wake_slice<L: WaitList + ?Sized>(entries: &L) -> Duration {
    super::wake_slice::shortest((0..entries.len()).filter_map(|i| match entries.target(i) {
        Target::ReaderData(r) | Target::ReaderStatus(r, _) => Some(r.wake_slice()),
        _ => None,
    }))
}

/// The longest [`crate::ParticipantConfig::wait_spin`] of the entries' readers (zero without
/// readers: guard conditions and writer statuses alone make a wait sleep at once).
fn wait_spin<L: WaitList + ?Sized>(entries: &L) -> Duration {
    (0..entries.len())
        .filter_map(|i| match entries.target(i) {
            Target::ReaderData(r) | Target::ReaderStatus(r, _) => Some(r.wait_spin()),
            _ => None,
        })
        .max()
        .unwrap_or(Duration::ZERO)
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
            std::thread::spawn(move || core.sleep(Duration::ZERO, Some(Instant::now() + Duration::from_secs(10))))
        };
        let t0 = Instant::now();
        while core.cv_sleepers.load(Ordering::SeqCst) == 0 {
            assert!(t0.elapsed() < Duration::from_secs(5), "the sleeper never slept");
            std::thread::yield_now();
        }
        waiters.notify();
        assert_eq!(sleeper.join().unwrap(), Some(Waited::Slept), "the sleeper was not woken");
        assert_eq!(core.notified.load(Ordering::SeqCst), 1);
        waiters.detach(&core);
        waiters.detach(&core);
        assert!(lock(&waiters.list).is_empty());
    }

    /// The wait set stays attached between waits on the same entries (attached once, not once
    /// per wait), re-attaches when the entries change, can leave a guard condition deleted while
    /// it was attached to it, and still wakes on the new entries.
    #[test]
    fn attachment_is_kept_between_waits_and_follows_the_entries() {
        let mut ws = WaitSet::new();
        let g1 = GuardCondition::new();
        for _ in 0..3 {
            let mut e = [WaitEntry::new(Target::Guard(&g1))];
            assert!(!ws.wait(&mut e[..], Some(Duration::from_millis(5))));
            assert_eq!(lock(&g1.waiters().list).len(), 1, "attached once across waits");
        }
        let kept = Arc::clone(g1.waiters_arc());
        drop(g1);
        let g2 = Arc::new(GuardCondition::new());
        let trigger = {
            let g2 = Arc::clone(&g2);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                g2.trigger();
            })
        };
        let mut e = [WaitEntry::new(Target::Guard(&g2))];
        assert!(ws.wait(&mut e[..], Some(Duration::from_secs(10))), "the trigger of the new entry was lost");
        assert!(e[0].ready);
        trigger.join().unwrap();
        assert!(lock(&kept.list).is_empty(), "the deleted guard condition's list was not detached from");
        assert_eq!(lock(&g2.waiters().list).len(), 1);
        drop(ws);
        assert!(lock(&g2.waiters().list).is_empty(), "a dropped wait set stays attached");
    }

    /// A wait on a reader spins for its participant's `wait_spin`, then sleeps: not counted as a
    /// sleeper during the spin (the setting is used), counted after it (the spin is bounded).
    #[test]
    fn a_wait_on_a_reader_spins_for_its_participants_bound() {
        let p = crate::Participant::new(crate::ParticipantConfig {
            wait_spin: Duration::from_millis(300),
            ..Default::default()
        })
        .unwrap();
        let r = Arc::new(p.create_reader("spin", "T", crate::Qos::default()).unwrap());
        let mut ws = WaitSet::new();
        let core = Arc::clone(&ws.core);
        let start = Instant::now();
        let rr = Arc::clone(&r);
        let t = std::thread::spawn(move || {
            let mut e = [WaitEntry::new(Target::ReaderData(&rr))];
            ws.wait(&mut e[..], Some(Duration::from_secs(2)))
        });
        crate::spin::assert_spins_300_ms_then_sleeps(start, || core.cv_sleepers.load(Ordering::SeqCst) > 0);
        assert!(!t.join().unwrap(), "nothing was written");
    }

    /// A reader is ready exactly while its history holds samples: the lock-free look at it
    /// (`ReaderShared::queue_len`) follows every push and every take, and a wait that sleeps is
    /// woken by the next push.
    #[test]
    fn a_reader_is_ready_while_it_holds_samples() {
        let p = crate::Participant::new(crate::ParticipantConfig::default()).unwrap();
        let w = p.create_writer("ready", "T", crate::Qos::default()).unwrap();
        let r = Arc::new(p.create_reader("ready", "T", crate::Qos::default()).unwrap());
        let mut ws = WaitSet::new();
        let short = Some(Duration::from_millis(1));
        let mut e = [WaitEntry::new(Target::ReaderData(&r))];
        assert!(!ws.wait(&mut e[..], short), "nothing was written");
        w.write(&[0, 1, 0, 0, 1]).unwrap();
        w.write(&[0, 1, 0, 0, 2]).unwrap();
        assert!(ws.wait(&mut e[..], short) && e[0].ready);
        assert_eq!(r.available(), 2);
        r.take().unwrap();
        assert!(ws.wait(&mut e[..], short), "one sample is left");
        r.take().unwrap();
        assert_eq!(r.available(), 0);
        assert!(!ws.wait(&mut e[..], short) && !e[0].ready, "everything was taken");
        let rr = Arc::clone(&r);
        let sleeper = std::thread::spawn(move || {
            let mut ws = WaitSet::new();
            let mut e = [WaitEntry::new(Target::ReaderData(&rr))];
            ws.wait(&mut e[..], Some(Duration::from_secs(10)))
        });
        std::thread::sleep(Duration::from_millis(50));
        w.write(&[0, 1, 0, 0, 3]).unwrap();
        assert!(sleeper.join().unwrap(), "the push after the wait's look did not wake it");
    }
}
