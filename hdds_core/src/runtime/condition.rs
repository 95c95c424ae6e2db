//! Guard conditions: a flag one thread raises to wake the wait sets another thread sleeps in
//! (rmw's guard conditions: graph changes, executor interrupts, shutdown).
//!
//! [`GuardCondition::trigger`] raises the flag, then notifies the wait sets attached to it
//! ([`super::waitset`] explains why that order loses no wake-up). A wait that finds the flag
//! raised lowers it: each trigger wakes one wait, as rmw expects. A condition made by a
//! participant ([`crate::Participant::create_guard_condition`]) hands the CPU to a thread its
//! trigger woke, as the participant's writes do ([`crate::ParticipantConfig::yield_after_wake`],
//! `super::handoff`): rclcpp's own intra-process delivery and executor interrupts wake a thread
//! this way.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::waitset::Waiters;

#[derive(Default)]
pub struct GuardCondition {
    triggered: AtomicBool,
    /// In an `Arc`: a wait set keeps the list it is attached to alive (`super::waitset`).
    waiters: Arc<Waiters>,
    /// Yield after a trigger that woke a sleeping thread (`super::handoff`).
    yield_after_wake: bool,
}

impl GuardCondition {
    /// A condition of no participant: its trigger never yields.
    pub fn new() -> Self {
        GuardCondition::default()
    }

    pub(crate) fn with_yield_after_wake(yield_after_wake: bool) -> Self {
        GuardCondition { yield_after_wake, ..GuardCondition::default() }
    }

    /// Raises the flag and wakes every wait set waiting on this condition. Thread-safe.
    #[link_section = ".text.hot.hdds"]
    pub fn trigger(&self) {
        super::handoff::forget();
        self.triggered.store(true, Ordering::SeqCst);
        self.waiters.notify();
        super::handoff::hand_over(self.yield_after_wake);
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
