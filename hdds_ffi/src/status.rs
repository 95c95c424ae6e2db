//! Statuses, listeners and the liveliness / acknowledgment calls of writers and readers.

use std::ffi::c_void;
use std::sync::Arc;
use std::time::Duration;

use hdds_core::{Error, Status};

use crate::endpoint::{HddsReader, HddsWriter};
use crate::ret::{arg, guard, guard_ret, out, HddsRet};
use crate::waitset::timeout_arg;

/// Reader: a writer did not send a new sample within the reader's DEADLINE period (total_count).
pub const HDDS_STATUS_REQUESTED_DEADLINE_MISSED: u32 = 1 << 0;
/// Reader: a matched writer became alive or not alive, or came or went. current_count is DDS's
/// alive_count, total_count its not_alive_count (both current counts, each with its change).
pub const HDDS_STATUS_LIVELINESS_CHANGED: u32 = 1 << 1;
/// Reader: a writer on the topic offers a QoS incompatible with the reader's (total_count,
/// last_policy_id).
pub const HDDS_STATUS_REQUESTED_INCOMPATIBLE_QOS: u32 = 1 << 2;
/// Reader: samples that will never arrive (total_count).
pub const HDDS_STATUS_SAMPLE_LOST: u32 = 1 << 3;
/// Writer: a write did not come within the writer's DEADLINE period (total_count).
pub const HDDS_STATUS_OFFERED_DEADLINE_MISSED: u32 = 1 << 4;
/// Writer: its MANUAL liveliness lease ran out without an assertion (total_count).
pub const HDDS_STATUS_LIVELINESS_LOST: u32 = 1 << 5;
/// Writer: a reader on the topic requests a QoS the writer does not offer (total_count,
/// last_policy_id).
pub const HDDS_STATUS_OFFERED_INCOMPATIBLE_QOS: u32 = 1 << 6;
/// Reader: matched writers (total_count: ever, current_count: now).
pub const HDDS_STATUS_SUBSCRIPTION_MATCHED: u32 = 1 << 7;
/// Writer: matched readers (total_count: ever, current_count: now).
pub const HDDS_STATUS_PUBLICATION_MATCHED: u32 = 1 << 8;

/// One status's counters; which fields a status uses is documented on its HDDS_STATUS_* bit.
/// The *_change fields count since the status was last read.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HddsStatus {
    pub total_count: i32,
    pub total_count_change: i32,
    pub current_count: i32,
    pub current_count_change: i32,
    /// DDS's QosPolicyId_t of the last incompatible policy (RELIABILITY 11, DURABILITY 2,
    /// DEADLINE 4, LIVELINESS 8, ...), 0 if none.
    pub last_policy_id: i32,
}

impl From<Status> for HddsStatus {
    fn from(s: Status) -> Self {
        HddsStatus {
            total_count: s.total_count,
            total_count_change: s.total_count_change,
            current_count: s.current_count,
            current_count_change: s.current_count_change,
            last_policy_id: s.last_policy_id,
        }
    }
}

/// Called once per new sample, with count = 1.
pub type HddsDataCallback = Option<extern "C" fn(user: *const c_void, count: usize)>;
/// Called with the HDDS_STATUS_* bit that changed.
pub type HddsStatusCallback = Option<extern "C" fn(user: *const c_void, status: u32)>;

/// The user pointer given with a callback; the C caller promises it may be used from any thread.
#[derive(Clone, Copy)]
pub(crate) struct User(pub(crate) *const c_void);
// SAFETY: the pointer is only handed back to the caller's callback, which the caller promises is
// callable from any engine thread with it (documented on the set_*_listener functions).
unsafe impl Send for User {}
// SAFETY: as for Send: the engine never dereferences it.
unsafe impl Sync for User {}

impl User {
    pub(crate) fn get(self) -> *const c_void {
        self.0
    }
}

/// Reads one reader status (`status`: exactly one reader HDDS_STATUS_* bit) into *out_status and
/// resets its *_change fields and its readiness in wait sets. HDDS_RET_BAD_ARGUMENT for another
/// value. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_get_status(
    reader: *const HddsReader,
    status: u32,
    out_status: *mut HddsStatus,
) -> HddsRet {
    guard("hdds_reader_get_status", || {
        let r = arg(reader, "reader")?;
        if out_status.is_null() {
            return Err(Error::bad_argument("out_status is NULL"));
        }
        out(out_status, "out_status", r.inner.status(status)?.into())
    })
}

/// Reads one writer status (`status`: exactly one writer HDDS_STATUS_* bit); as
/// hdds_reader_get_status. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_get_status(
    writer: *const HddsWriter,
    status: u32,
    out_status: *mut HddsStatus,
) -> HddsRet {
    guard("hdds_writer_get_status", || {
        let w = arg(writer, "writer")?;
        if out_status.is_null() {
            return Err(Error::bad_argument("out_status is NULL"));
        }
        out(out_status, "out_status", w.inner.status(status)?.into())
    })
}

/// Sets the reader's data listener: `callback(user, 1)` for every new sample, on the thread that
/// delivers it (a same-process writer's thread or the receive thread), never with an engine lock
/// held; `user` must be usable from those threads. Replaces the previous listener; a NULL
/// callback clears it. Once this returns (called outside a listener) the previous callback is not
/// running and will not be called again. Samples that arrived before are not reported: read
/// hdds_reader_unread_count. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_set_data_listener(
    reader: *const HddsReader,
    callback: HddsDataCallback,
    user: *const c_void,
) -> HddsRet {
    guard("hdds_reader_set_data_listener", || {
        let r = arg(reader, "reader")?;
        let user = User(user);
        r.inner.set_data_listener(callback.map(|cb| Arc::new(move |n: usize| cb(user.get(), n)) as Arc<_>));
        Ok(())
    })
}

/// Sets the reader's status listener: `callback(user, status_bit)` whenever one of its statuses
/// changes (on the thread that changed it: a writer's, the receive thread, a timer thread), never
/// with an engine lock held. Replacement and clearing as hdds_reader_set_data_listener. The
/// callback does not reset the status: read it with hdds_reader_get_status. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_set_status_listener(
    reader: *const HddsReader,
    callback: HddsStatusCallback,
    user: *const c_void,
) -> HddsRet {
    guard("hdds_reader_set_status_listener", || {
        let r = arg(reader, "reader")?;
        let user = User(user);
        r.inner.set_status_listener(callback.map(|cb| Arc::new(move |s: u32| cb(user.get(), s)) as Arc<_>));
        Ok(())
    })
}

/// Sets the writer's status listener; as hdds_reader_set_status_listener. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_set_status_listener(
    writer: *const HddsWriter,
    callback: HddsStatusCallback,
    user: *const c_void,
) -> HddsRet {
    guard("hdds_writer_set_status_listener", || {
        let w = arg(writer, "writer")?;
        let user = User(user);
        w.inner.set_status_listener(callback.map(|cb| Arc::new(move |s: u32| cb(user.get(), s)) as Arc<_>));
        Ok(())
    })
}

/// Stores the number of samples waiting to be taken in *out_count. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_unread_count(reader: *const HddsReader, out_count: *mut usize) -> HddsRet {
    guard("hdds_reader_unread_count", || out(out_count, "out_count", arg(reader, "reader")?.inner.available()))
}

/// Asserts the writer's liveliness (what a write does too): a MANUAL_BY_TOPIC or
/// MANUAL_BY_PARTICIPANT writer with a finite lease stays alive for another lease. A no-op for
/// other writers. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_assert_liveliness(writer: *const HddsWriter) -> HddsRet {
    guard("hdds_writer_assert_liveliness", || {
        arg(writer, "writer")?.inner.assert_liveliness();
        Ok(())
    })
}

/// Waits until every matched reliable reader acknowledged every sample written, up to
/// `timeout_ns` (HDDS_DURATION_INFINITE: forever): HDDS_RET_OK when they have, HDDS_RET_TIMEOUT
/// otherwise. Same-process readers have every sample at once. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_wait_for_acks(writer: *const HddsWriter, timeout_ns: i64) -> HddsRet {
    guard_ret("hdds_writer_wait_for_acks", || {
        let w = arg(writer, "writer")?;
        let timeout = timeout_arg(timeout_ns)?.unwrap_or(Duration::MAX);
        Ok(if w.inner.wait_for_acknowledgments(timeout) { HddsRet::Ok } else { HddsRet::Timeout })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdds_core::runtime::status as st;

    #[test]
    fn status_bits_are_the_engines() {
        let pairs = [
            (HDDS_STATUS_REQUESTED_DEADLINE_MISSED, st::REQUESTED_DEADLINE_MISSED),
            (HDDS_STATUS_LIVELINESS_CHANGED, st::LIVELINESS_CHANGED),
            (HDDS_STATUS_REQUESTED_INCOMPATIBLE_QOS, st::REQUESTED_INCOMPATIBLE_QOS),
            (HDDS_STATUS_SAMPLE_LOST, st::SAMPLE_LOST),
            (HDDS_STATUS_OFFERED_DEADLINE_MISSED, st::OFFERED_DEADLINE_MISSED),
            (HDDS_STATUS_LIVELINESS_LOST, st::LIVELINESS_LOST),
            (HDDS_STATUS_OFFERED_INCOMPATIBLE_QOS, st::OFFERED_INCOMPATIBLE_QOS),
            (HDDS_STATUS_SUBSCRIPTION_MATCHED, st::SUBSCRIPTION_MATCHED),
            (HDDS_STATUS_PUBLICATION_MATCHED, st::PUBLICATION_MATCHED),
        ];
        for (c, core) in pairs {
            assert_eq!(c, core);
        }
    }
}
