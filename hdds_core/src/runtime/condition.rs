//! Guard conditions: a flag one thread raises to wake the wait sets another thread sleeps in
//! (rmw's guard conditions: graph changes, executor interrupts, shutdown).
//!
//! [`GuardCondition::trigger`] raises the flag, then notifies the wait sets attached to it
//! ([`super::waitset`] explains why that order loses no wake-up). A wait that finds the flag
//! raised lowers it: each trigger wakes one wait, as rmw expects.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::waitset::Waiters;

#[derive(Default)]
pub struct GuardCondition {
    triggered: AtomicBool,
    /// In an `Arc`: a wait set keeps the list it is attached to alive (`super::waitset`).
    waiters: Arc<Waiters>,
}

impl GuardCondition {
    pub fn new() -> Self {
        GuardCondition::default()
    }

    /// Raises the flag and wakes every wait set waiting on this condition. Thread-safe.
    pub fn trigger(&self) {
        self.triggered.store(true, Ordering::SeqCst);
        self.waiters.notify();
    }

    /// Whether the flag is raised (without lowering it).
    pub fn is_triggered(&self) -> bool {
        self.triggered.load(Ordering::SeqCst)
    }

    /// Lowers the flag; true if it was raised.
    pub(crate) fn take_triggered(&self) -> bool {
        self.triggered.swap(false, Ordering::SeqCst)
    }

    pub(crate) fn waiters(&self) -> &Waiters {
        &self.waiters
    }

    pub(crate) fn waiters_arc(&self) -> &Arc<Waiters> {
        &self.waiters
    }
}
