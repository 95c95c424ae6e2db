//! Loaned samples on the reader's side: hdds_reader_take_loan takes a sample without copying its
//! payload (for a same-host writer's sample, the payload is read in place in the writer's
//! shared-memory ring; hdds_core::runtime::reader::ReaderLoan says what a held loan does to the
//! writer), hdds_reader_return_loan gives it back.

use hdds_core::ReaderLoan;

use crate::endpoint::HddsReader;
use crate::ret::{arg, guard, guard_ret, guard_void, out, out_handle, HddsRet};
use crate::sample::{payload_ptr, sample_info, HddsSampleInfo};

/// A sample taken by hdds_reader_take_loan. Give it back with hdds_reader_return_loan (also after
/// its reader, writer or participant was destroyed: the loan keeps what it needs).
pub struct HddsReaderLoan {
    inner: ReaderLoan,
}

/// Takes the oldest sample as hdds_reader_take does, without copying its payload, and stores it in
/// *out_loan (NULL and HDDS_RET_NO_DATA when there is none). From the first call on, the reader's
/// same-host samples stay in their writers' shared-memory rings until taken: return loans soon (a
/// reliable KEEP_ALL writer waits for a loaned sample as for an untaken one). Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_take_loan(reader: *const HddsReader, out_loan: *mut *mut HddsReaderLoan) -> HddsRet {
    guard_ret("hdds_reader_take_loan", || {
        let r = arg(reader, "reader")?;
        if out_loan.is_null() {
            return Err(hdds_core::Error::bad_argument("out_loan is NULL"));
        }
        out_handle(out_loan, "out_loan", r.inner.take_loan().map(|l| HddsReaderLoan { inner: l }))
    })
}

/// The serialized payload (CDR encapsulation header first), read-only: stores its length in
/// *out_len and returns a pointer valid until hdds_reader_return_loan. A same-host sample that its
/// writer lent or serialized in place has its byte 4 (after the header) at the start of a 64-byte
/// line, so a body laid out as a struct can be read in place. Returns NULL (and sets the
/// last error) if an argument is NULL. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_loan_data(loan: *const HddsReaderLoan, out_len: *mut usize) -> *const u8 {
    payload_ptr("hdds_reader_loan_data", out_len, || Ok(arg(loan, "loan")?.inner.data()))
}

/// Fills *out_info with the loaned sample's info. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_loan_info(loan: *const HddsReaderLoan, out_info: *mut HddsSampleInfo) -> HddsRet {
    guard("hdds_reader_loan_info", || out(out_info, "out_info", sample_info(arg(loan, "loan")?.inner.info())))
}

/// Stores in *out_shm whether the payload is read in place in a same-host writer's shared-memory
/// ring. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_loan_in_shared_memory(loan: *const HddsReaderLoan, out_shm: *mut bool) -> HddsRet {
    guard("hdds_reader_loan_in_shared_memory", || out(out_shm, "out_shm", arg(loan, "loan")?.inner.in_shared_memory()))
}

/// Gives a loan back. NULL is a no-op.
#[no_mangle]
pub extern "C" fn hdds_reader_return_loan(loan: *mut HddsReaderLoan) {
    guard_void("hdds_reader_return_loan", || {
        if !loan.is_null() {
            // SAFETY: a non-null loan came from Box::into_raw in hdds_reader_take_loan; the caller
            // gives up its last use of it here.
            drop(unsafe { Box::from_raw(loan) });
        }
    })
}
