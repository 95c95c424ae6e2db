//! What a reader or writer tells the outside about itself: its statuses, the wait sets attached
//! to it, and its listeners.
//!
//! A change (a delivered sample, a status update) is made under the board's lock, then the
//! attached wait sets are notified ([`super::waitset`]), then, if a listener is set, its call is
//! queued on the current thread. The queue is run by `run_listeners` at the end of every engine
//! entry point that can change an endpoint (a write, endpoint creation and deletion, a received
//! datagram, a timer sweep), once every engine lock is released: listeners never run under an
//! engine lock, and run on the thread that made the change (the writer's thread for same-process
//! delivery, the receive thread for network delivery, a timer thread for deadlines and leases).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use super::listener::ListenerSlot;
use super::net::lock;
use super::status::{Status, StatusMask};
use super::waitset::Waiters;

/// A data listener: called once per new sample with 1.
pub type DataListener = dyn Fn(usize) + Send + Sync;
/// A status listener: called with the status bit that changed.
pub type StatusListener = dyn Fn(StatusMask) + Send + Sync;

const STATUS_COUNT: usize = 9;

#[derive(Default)]
pub(crate) struct Events {
    pub(crate) waiters: Waiters,
    board: Mutex<Board>,
    /// The statuses changed since they were last read. Changed only under the board's lock (so a
    /// status and its bit move together); read without it, because wait sets poll it lock-free (a
    /// poll that sees an old value is followed by the notify of the change).
    changed: AtomicU32,
    data_listener: ListenerSlot<DataListener>,
    status_listener: ListenerSlot<StatusListener>,
}

#[derive(Default)]
struct Board {
    statuses: [Status; STATUS_COUNT],
}

enum Call {
    Data,
    Status(StatusMask),
}

thread_local! {
    /// Listener calls waiting for this thread to release its engine locks.
    static QUEUED: RefCell<VecDeque<(Arc<Events>, Call)>> = const { RefCell::new(VecDeque::new()) };
}

fn queue(e: &Arc<Events>, call: Call) {
    QUEUED.with(|q| q.borrow_mut().push_back((Arc::clone(e), call)));
}

/// Runs the listener calls this thread queued. Call with no engine lock held.
#[link_section = ".text.hot.hdds"]
pub(crate) fn run_listeners() {
    loop {
        // One at a time, the queue unborrowed: a callback may write, which queues and runs more.
        let Some((e, call)) = QUEUED.with(|q| q.borrow_mut().pop_front()) else { return };
        match call {
            Call::Data => e.data_listener.call(|cb| cb(1)),
            Call::Status(kind) => e.status_listener.call(|cb| cb(kind)),
        }
    }
}

impl Events {
    /// Whether a data listener is set (each arrival then queues its call).
    pub(crate) fn has_data_listener(&self) -> bool {
        self.data_listener.is_set()
    }

    /// A sample was added to the reader's history: queues the data listener's call. The attached
    /// wait sets are notified by `ReaderShared::wake`, once per datagram on the receive thread.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn sample_added(self: &Arc<Self>) {
        if self.data_listener.is_set() {
            queue(self, Call::Data);
        }
    }

    /// Changes one status (`kind` is exactly one bit) and marks it changed.
    pub(crate) fn update(self: &Arc<Self>, kind: StatusMask, f: impl FnOnce(&mut Status)) {
        debug_assert_eq!(kind.count_ones(), 1);
        let i = kind.trailing_zeros() as usize;
        if i >= STATUS_COUNT {
            return;
        }
        {
            let mut b = lock(&self.board);
            f(&mut b.statuses[i]);
            self.changed.fetch_or(kind, Ordering::SeqCst);
        }
        self.waiters.notify();
        if self.status_listener.is_set() {
            queue(self, Call::Status(kind));
        }
    }

    /// Whether a status in `mask` changed since it was last read.
    pub(crate) fn changed(&self, mask: StatusMask) -> bool {
        self.changed.load(Ordering::SeqCst) & mask != 0
    }

    pub(crate) fn changes(&self) -> StatusMask {
        self.changed.load(Ordering::SeqCst)
    }

    /// Reads status number `index` (a bit position), resetting its changes.
    pub(crate) fn take(&self, index: usize) -> Status {
        let mut b = lock(&self.board);
        let Some(s) = b.statuses.get_mut(index) else { return Status::default() };
        let out = *s;
        s.total_count_change = 0;
        s.current_count_change = 0;
        self.changed.fetch_and(!(1 << index), Ordering::SeqCst);
        out
    }

    pub(crate) fn set_data_listener(&self, cb: Option<Arc<DataListener>>) {
        self.data_listener.replace(cb);
    }

    pub(crate) fn set_status_listener(&self, cb: Option<Arc<StatusListener>>) {
        self.status_listener.replace(cb);
    }

    /// The endpoint is going away: its queued calls must find nothing to call.
    pub(crate) fn clear_listeners(&self) {
        self.data_listener.replace(None);
        self.status_listener.replace(None);
    }
}
