//! Guard conditions: a flag any thread may raise to wake the wait sets waiting on it.

use hdds_core::GuardCondition;

use crate::participant::HddsParticipant;
use crate::ret::{arg, guard, guard_void, out, HddsRet};

pub struct HddsGuardCondition {
    pub(crate) inner: GuardCondition,
}

/// Creates a guard condition (not triggered) and stores its handle in *out_condition. With a
/// participant (not NULL), a trigger that wakes a thread sleeping in a wait yields the CPU to it
/// when the participant's configuration asks for it (`wait.yield_after_wake`, on by default), as
/// its writes do; with NULL it never yields. The condition does not keep the participant.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_guard_condition_create(
    participant: *const HddsParticipant,
    out_condition: *mut *mut HddsGuardCondition,
) -> HddsRet {
    guard("hdds_guard_condition_create", || {
        if out_condition.is_null() {
            return Err(hdds_core::Error::bad_argument("out_condition is NULL"));
        }
        let inner = if participant.is_null() {
            GuardCondition::new()
        } else {
            arg(participant, "participant")?.inner.create_guard_condition()
        };
        let gc = Box::new(HddsGuardCondition { inner });
        out(out_condition, "out_condition", Box::into_raw(gc))
    })
}

/// Destroys a guard condition. NULL is a no-op. Not thread-safe with other uses of the same
/// handle (no wait may be using it).
#[no_mangle]
pub extern "C" fn hdds_guard_condition_destroy(condition: *mut HddsGuardCondition) {
    guard_void("hdds_guard_condition_destroy", || {
        if !condition.is_null() {
            // SAFETY: the handle came from Box::into_raw in hdds_guard_condition_create; this is
            // its last use.
            drop(unsafe { Box::from_raw(condition) });
        }
    })
}

/// Triggers the condition: every wait set waiting on it wakes, and the next wait that includes
/// it finds it ready (and resets it). Thread-safe.
#[no_mangle]
#[link_section = ".text.hot.hdds"]
pub extern "C" fn hdds_guard_condition_trigger(condition: *const HddsGuardCondition) -> HddsRet {
    guard("hdds_guard_condition_trigger", || {
        arg(condition, "condition")?.inner.trigger();
        Ok(())
    })
}
