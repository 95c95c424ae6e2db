//! Reader-side content filters: a C predicate that decides, as a sample arrives, whether it
//! enters the reader's history (the RMW layer's DDS-SQL filters run here).

use std::ffi::c_void;
use std::sync::Arc;

use crate::endpoint::HddsReader;
use crate::ret::{arg, guard, HddsRet};
use crate::status::User;

/// Decides whether a sample enters the history: `data`/`len` is its serialized payload (the
/// 4-byte encapsulation header included), valid during the call only. Returns true to keep it.
pub type HddsSampleFilter = Option<extern "C" fn(user: *const c_void, data: *const u8, len: usize) -> bool>;

/// Installs a content filter on the reader (a NULL filter removes it). From then on, every
/// sample with data, from same-process and remote writers alike, is given to
/// `filter(user, data, len)` on the thread that delivers it, before it enters the history; a
/// sample the filter refuses is dropped at once: it takes no place in a KEEP_LAST history, wakes
/// no wait set and calls no data listener. The samples already in the history are filtered by
/// this call too: once it returns, the history holds only samples the filter accepts (a filter
/// set right after creating the reader also covers a TRANSIENT_LOCAL history delivered in
/// between). Disposals without data are not filtered.
///
/// The filter runs WITH ENGINE LOCKS HELD: it must not call any hdds_* function, block, or
/// unwind (no C++ exception may leave it). Calls for one reader never overlap. Replaces the
/// previous filter; once this returns the previous one is not running and will not be called
/// again, so its `user` may be freed. Must not be called from inside the filter. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_set_sample_filter(
    reader: *const HddsReader,
    filter: HddsSampleFilter,
    user: *const c_void,
) -> HddsRet {
    guard("hdds_reader_set_sample_filter", || {
        let r = arg(reader, "reader")?;
        let user = User(user);
        r.inner.set_sample_filter(
            filter.map(|f| Arc::new(move |data: &[u8]| f(user.get(), data.as_ptr(), data.len())) as Arc<_>),
        );
        Ok(())
    })
}
