//! Listener slots: where a user callback is kept, and how it is called so that replacing it is
//! safe.
//!
//! Calls never happen under an engine lock: the engine queues them ([`super::events`]) and runs
//! them once its locks are released. A call copies the callback out of the slot (an `Arc`) and
//! counts itself in flight; [`ListenerSlot::replace`] waits until no call is in flight, so once it
//! returns the previous callback is not running and will not run again, and the user data it
//! points to may be freed. From inside a listener callback `replace` does not wait (it would wait
//! for itself). A panicking callback is contained (the engine's threads go on).

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::net::lock;

thread_local! {
    /// How many listener calls the current thread is inside.
    static IN_CALLBACK: Cell<u32> = const { Cell::new(0) };
}

pub(crate) struct ListenerSlot<F: ?Sized> {
    state: Mutex<SlotState<F>>,
    idle: Condvar,
    /// Mirrors `state.cb.is_some()`: lets the hot path skip queueing a call when nobody listens.
    set: AtomicBool,
}

struct SlotState<F: ?Sized> {
    cb: Option<Arc<F>>,
    in_flight: usize,
    /// Threads in `replace` waiting for `in_flight` to reach 0: a call notifies only when there
    /// is one (a futex wake per listener call would otherwise cost a system call per sample).
    waiting: usize,
}

impl<F: ?Sized> Default for ListenerSlot<F> {
    fn default() -> Self {
        ListenerSlot {
            state: Mutex::new(SlotState { cb: None, in_flight: 0, waiting: 0 }),
            idle: Condvar::new(),
            set: AtomicBool::new(false),
        }
    }
}

impl<F: ?Sized> ListenerSlot<F> {
    pub(crate) fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// Replaces the callback (`None` clears it) and, outside a callback, waits for calls of the
    /// previous one to return.
    pub(crate) fn replace(&self, cb: Option<Arc<F>>) {
        let mut st = lock(&self.state);
        self.set.store(cb.is_some(), Ordering::Release);
        let old = std::mem::replace(&mut st.cb, cb);
        if IN_CALLBACK.with(|c| c.get()) == 0 {
            while st.in_flight > 0 {
                st.waiting += 1;
                st = self.idle.wait(st).unwrap_or_else(|p| p.into_inner());
                st.waiting -= 1;
            }
        }
        drop(st);
        drop(old);
    }

    /// Calls the callback, if one is set, through `f`.
    pub(crate) fn call(&self, f: impl FnOnce(&F)) {
        let cb = {
            let mut st = lock(&self.state);
            let Some(cb) = st.cb.clone() else { return };
            st.in_flight += 1;
            cb
        };
        IN_CALLBACK.with(|c| c.set(c.get() + 1));
        let _ = catch_unwind(AssertUnwindSafe(|| f(&cb)));
        IN_CALLBACK.with(|c| c.set(c.get() - 1));
        drop(cb);
        let mut st = lock(&self.state);
        st.in_flight -= 1;
        if st.in_flight == 0 && st.waiting > 0 {
            self.idle.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    type Slot = ListenerSlot<dyn Fn(usize) + Send + Sync>;

    #[test]
    fn replace_waits_for_a_running_call() {
        let slot = Arc::new(Slot::default());
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        slot.replace(Some(Arc::new(move |n| {
            std::thread::sleep(Duration::from_millis(100));
            c.fetch_add(n, Ordering::SeqCst);
        })));
        let s = Arc::clone(&slot);
        let t = std::thread::spawn(move || s.call(|cb| cb(1)));
        std::thread::sleep(Duration::from_millis(20));
        slot.replace(None);
        assert_eq!(calls.load(Ordering::SeqCst), 1, "replace returned while the old callback ran");
        slot.call(|cb| cb(1));
        assert_eq!(calls.load(Ordering::SeqCst), 1, "a cleared slot calls nothing");
        t.join().unwrap();
    }

    #[test]
    fn a_callback_may_replace_itself_and_panics_are_contained() {
        let slot = Arc::new(Slot::default());
        let s = Arc::clone(&slot);
        slot.replace(Some(Arc::new(move |_| {
            s.replace(None);
            panic!("user code");
        })));
        slot.call(|cb| cb(1));
        assert!(!slot.is_set());
    }
}
