//! Wait sets: one thread sleeps until a reader has data, a guard condition is triggered or a
//! status changes. The entries are given to every wait (rmw_wait's shape); the engine attaches to
//! each before it looks at them, so no wake-up is lost (hdds_core::runtime::waitset), and a wait
//! allocates nothing in steady state.

use std::ffi::c_void;
use std::time::Duration;

use hdds_core::runtime::status::{READER_STATUSES, WRITER_STATUSES};
use hdds_core::{Error, Target, WaitList, WaitSet};

use crate::condition::HddsGuardCondition;
use crate::endpoint::{HddsReader, HddsWriter};
use crate::qos::HDDS_DURATION_INFINITE;
use crate::ret::{guard, guard_ret, guard_void, out, HddsRet};

/// HddsWaitEntry.kind: handle is a `const HddsReader*`, ready while it holds unread samples.
pub const HDDS_WAIT_READER_DATA: u32 = 0;
/// HddsWaitEntry.kind: handle is a `const HddsGuardCondition*`, ready when triggered; a wait that
/// finds it ready resets it.
pub const HDDS_WAIT_GUARD: u32 = 1;
/// HddsWaitEntry.kind: handle is a `const HddsReader*`, ready when a status in status_mask
/// (HDDS_STATUS_* reader bits) changed since it was last read with hdds_reader_get_status.
pub const HDDS_WAIT_READER_STATUS: u32 = 2;
/// HddsWaitEntry.kind: handle is a `const HddsWriter*`, ready when a status in status_mask
/// (HDDS_STATUS_* writer bits) changed since it was last read with hdds_writer_get_status.
pub const HDDS_WAIT_WRITER_STATUS: u32 = 3;

/// One thing a wait waits for. `ready` is set by every hdds_waitset_wait.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HddsWaitEntry {
    /// HDDS_WAIT_*
    pub kind: u32,
    pub handle: *const c_void,
    /// For the *_STATUS kinds: the HDDS_STATUS_* bits to wait for; ignored otherwise.
    pub status_mask: u32,
    pub ready: bool,
}

pub struct HddsWaitSet {
    inner: WaitSet,
}

/// Creates a wait set and stores its handle in *out_waitset. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_waitset_create(out_waitset: *mut *mut HddsWaitSet) -> HddsRet {
    guard("hdds_waitset_create", || {
        if out_waitset.is_null() {
            return Err(Error::bad_argument("out_waitset is NULL"));
        }
        out(out_waitset, "out_waitset", Box::into_raw(Box::new(HddsWaitSet { inner: WaitSet::new() })))
    })
}

/// Destroys a wait set. NULL is a no-op. Not thread-safe with other uses of the same handle.
#[no_mangle]
pub extern "C" fn hdds_waitset_destroy(waitset: *mut HddsWaitSet) {
    guard_void("hdds_waitset_destroy", || {
        if !waitset.is_null() {
            // SAFETY: the handle came from Box::into_raw in hdds_waitset_create; this is its last use.
            drop(unsafe { Box::from_raw(waitset) });
        }
    })
}

/// Waits until one of the `n` entries is ready or `timeout_ns` passes (0: just look;
/// HDDS_DURATION_INFINITE: forever), and sets every entry's `ready`. Returns HDDS_RET_OK if any is
/// ready, HDDS_RET_TIMEOUT if none is; with n = 0 it sleeps for the timeout. HDDS_RET_BAD_ARGUMENT
/// for a NULL wait set, NULL entries with n > 0, an unknown kind, a NULL handle, a status mask
/// that is empty or holds bits of the other side, or a negative timeout. The handles must stay
/// valid during the call; between calls the wait set stays attached to the entries of its last
/// wait that slept (re-attaching only when the entries change), and deleting those entities
/// meanwhile is allowed. Not thread-safe for one wait set (one wait at a time); distinct wait
/// sets may wait on the same entities from any threads.
#[no_mangle]
#[link_section = ".text.hot.hdds"]
pub extern "C" fn hdds_waitset_wait(
    waitset: *mut HddsWaitSet,
    entries: *mut HddsWaitEntry,
    n: usize,
    timeout_ns: i64,
) -> HddsRet {
    guard_ret("hdds_waitset_wait", || {
        // SAFETY: the caller promises a non-null handle from hdds_waitset_create, not used by
        // another thread during the call; null is checked.
        let ws = unsafe { waitset.as_mut() }.ok_or_else(|| Error::bad_argument("waitset is NULL"))?;
        let entries: &mut [HddsWaitEntry] = match (entries.is_null(), n) {
            (_, 0) => &mut [],
            (true, _) => return Err(Error::bad_argument(format!("entries is NULL but n is {n}"))),
            // SAFETY: non-null; the caller promises n writable entries that no one else touches
            // during the call.
            (false, _) => unsafe { std::slice::from_raw_parts_mut(entries, n) },
        };
        for (i, e) in entries.iter().enumerate() {
            check_entry(i, e)?;
        }
        let timeout = timeout_arg(timeout_ns)?;
        let any = ws.inner.wait(&mut CEntries(entries), timeout);
        Ok(if any { HddsRet::Ok } else { HddsRet::Timeout })
    })
}

/// A wait or time-out argument: HDDS_DURATION_INFINITE is `None`, negative is an error.
pub(crate) fn timeout_arg(timeout_ns: i64) -> Result<Option<Duration>, Error> {
    match timeout_ns {
        HDDS_DURATION_INFINITE => Ok(None),
        t if t < 0 => Err(Error::bad_argument(format!(
            "timeout_ns is negative ({t}); use 0 to poll or HDDS_DURATION_INFINITE to wait forever"
        ))),
        t => Ok(Some(Duration::from_nanos(t as u64))),
    }
}

#[link_section = ".text.hot.hdds"]
fn check_entry(i: usize, e: &HddsWaitEntry) -> Result<(), Error> {
    if e.handle.is_null() {
        return Err(Error::bad_argument(format!("entries[{i}].handle is NULL")));
    }
    let allowed = match e.kind {
        HDDS_WAIT_READER_DATA | HDDS_WAIT_GUARD => return Ok(()),
        HDDS_WAIT_READER_STATUS => READER_STATUSES,
        HDDS_WAIT_WRITER_STATUS => WRITER_STATUSES,
        k => return Err(Error::bad_argument(format!("entries[{i}].kind {k} is not an HDDS_WAIT_* value"))),
    };
    if e.status_mask == 0 || e.status_mask & !allowed != 0 {
        return Err(Error::bad_argument(format!(
            "entries[{i}].status_mask {:#x} is not a non-empty set of the {} statuses (mask {allowed:#x})",
            e.status_mask,
            if e.kind == HDDS_WAIT_READER_STATUS { "reader" } else { "writer" }
        )));
    }
    Ok(())
}

/// The caller's entries, checked by [`check_entry`].
struct CEntries<'a>(&'a mut [HddsWaitEntry]);

impl WaitList for CEntries<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn target(&self, i: usize) -> Target<'_> {
        let e = &self.0[i];
        match e.kind {
            HDDS_WAIT_READER_DATA => Target::ReaderData(&handle::<HddsReader>(e.handle).inner),
            HDDS_WAIT_GUARD => Target::Guard(&handle::<HddsGuardCondition>(e.handle).inner),
            HDDS_WAIT_READER_STATUS => Target::ReaderStatus(&handle::<HddsReader>(e.handle).inner, e.status_mask),
            _ => Target::WriterStatus(&handle::<HddsWriter>(e.handle).inner, e.status_mask),
        }
    }

    fn set_ready(&mut self, i: usize, ready: bool) {
        self.0[i].ready = ready;
    }
}

/// The object behind an entry's handle.
fn handle<'a, T>(h: *const c_void) -> &'a T {
    // SAFETY: check_entry saw a non-null handle; the caller promises it points to a live object of
    // the type its kind names (T here) for the whole call.
    unsafe { &*h.cast::<T>() }
}
