//! Return codes, the per-thread last-error message, and the guard that every entry point runs in.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use hdds_core::error::{Error, ErrorKind};

/// The result of every hdds_* call that can fail.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HddsRet {
    Ok = 0,
    /// An internal error (including a caught panic); hdds_last_error() says more.
    Error = 1,
    Timeout = 2,
    BadArgument = 3,
    /// A take found no sample.
    NoData = 4,
    Unsupported = 5,
    OutOfResources = 6,
    AlreadyDeleted = 7,
}

impl From<ErrorKind> for HddsRet {
    fn from(k: ErrorKind) -> Self {
        match k {
            ErrorKind::BadArgument => HddsRet::BadArgument,
            ErrorKind::OutOfResources => HddsRet::OutOfResources,
            ErrorKind::Unsupported => HddsRet::Unsupported,
            ErrorKind::Timeout => HddsRet::Timeout,
            ErrorKind::AlreadyDeleted => HddsRet::AlreadyDeleted,
            ErrorKind::Io => HddsRet::Error,
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(function: &str, message: &str) {
    // Interior NULs cannot go into a C string; they cannot be in our messages either, but a
    // message quoting user input might carry one.
    let text = format!("{function}: {message}").replace('\0', "\\0");
    let c = CString::new(text).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// The message of the last failed hdds_* call on the calling thread ("" if none failed yet).
/// The pointer stays valid until the next failing hdds_* call on this thread. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version, e.g. "0.1.0". Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Runs an entry point's body: errors become a code and a message, panics become HDDS_RET_ERROR.
pub(crate) fn guard(function: &str, body: impl FnOnce() -> Result<(), Error>) -> HddsRet {
    guard_ret(function, || body().map(|()| HddsRet::Ok))
}

/// Like [`guard`], for bodies whose success has more than one code (HDDS_RET_NO_DATA after a take
/// that found nothing, HDDS_RET_TIMEOUT after a wait): those are outcomes, not failures, and leave
/// the last-error message alone.
///
/// Inlined into every entry point, with its failures out of line: an entry point on every
/// sample's path is then one hot function (see docs/engine.md, "Code layout").
#[inline(always)]
pub(crate) fn guard_ret(function: &str, body: impl FnOnce() -> Result<HddsRet, Error>) -> HddsRet {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => failed(function, &e),
        Err(panic) => panicked(function, &*panic),
    }
}

#[cold]
fn failed(function: &str, e: &Error) -> HddsRet {
    set_last_error(function, e.message());
    e.kind().into()
}

#[cold]
fn panicked(function: &str, panic: &(dyn std::any::Any + Send)) -> HddsRet {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    set_last_error(function, &format!("internal error (please report it): {what}"));
    HddsRet::Error
}

/// Runs a function that cannot report errors (destructors): a panic is swallowed and recorded.
pub(crate) fn guard_void(function: &str, body: impl FnOnce()) {
    let _ = guard(function, || {
        body();
        Ok(())
    });
}

/// Reads a required pointer argument.
pub(crate) fn arg<'a, T>(p: *const T, name: &str) -> Result<&'a T, Error> {
    // SAFETY: the C caller promises that a non-null handle points to a live object of this type
    // (documented on every function); null is checked here.
    unsafe { p.as_ref() }.ok_or_else(|| Error::bad_argument(format!("{name} is NULL")))
}

/// Reads a required, NUL-terminated UTF-8 string argument.
pub(crate) fn str_arg<'a>(p: *const c_char, name: &str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(Error::bad_argument(format!("{name} is NULL")));
    }
    // SAFETY: non-null, and the caller promises a NUL-terminated string that outlives the call.
    let c = unsafe { std::ffi::CStr::from_ptr(p) };
    c.to_str().map_err(|_| Error::bad_argument(format!("{name} is not valid UTF-8")))
}

/// Reads an optional byte-array argument: NULL with length 0 is empty; NULL with a length is an error.
pub(crate) fn bytes_or_empty<'a>(p: *const u8, len: usize, name: &str) -> Result<&'a [u8], Error> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::bad_argument(format!("{name} is NULL but its length is {len}")));
    }
    // SAFETY: non-null; the caller promises `len` readable bytes there for the call's duration.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Writes an out-parameter.
pub(crate) fn out<T>(p: *mut T, name: &str, value: T) -> Result<(), Error> {
    if p.is_null() {
        return Err(Error::bad_argument(format!("{name} is NULL")));
    }
    // SAFETY: non-null; the caller promises it points to writable storage for a T.
    unsafe { p.write(value) };
    Ok(())
}

/// Stores a new handle owning `value` in `*p` (HDDS_RET_OK), or NULL when there is none
/// (HDDS_RET_NO_DATA): the outcome of a take or a loan that may find nothing. Check `p` before
/// taking `value`, so that a NULL `p` consumes nothing.
pub(crate) fn out_handle<T>(p: *mut *mut T, name: &str, value: Option<T>) -> Result<HddsRet, Error> {
    match value {
        Some(v) => {
            out(p, name, Box::into_raw(Box::new(v)))?;
            Ok(HddsRet::Ok)
        }
        None => {
            out(p, name, std::ptr::null_mut())?;
            Ok(HddsRet::NoData)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn last() -> String {
        // SAFETY: hdds_last_error always returns a valid NUL-terminated string.
        unsafe { CStr::from_ptr(hdds_last_error()) }.to_str().unwrap().to_owned()
    }

    #[test]
    fn errors_and_panics_become_codes_and_messages() {
        assert_eq!(guard("f", || Ok(())), HddsRet::Ok);
        assert_eq!(guard("f", || Err(Error::bad_argument("x is NULL"))), HddsRet::BadArgument);
        assert_eq!(last(), "f: x is NULL");
        assert_eq!(guard("g", || panic!("boom")), HddsRet::Error);
        assert!(last().starts_with("g: internal error"), "{}", last());
        assert!(last().contains("boom"));
    }
}
