//! Loaned samples: a writer lends a buffer that the caller fills in place, then publishes. When
//! same-host readers get the sample, the buffer is a slot of the writer's shared-memory ring, so
//! the bytes are written once (hdds_core::runtime::writer::WriterLoan).

use hdds_core::runtime::writer::{Writer, WriterLoan};

use crate::endpoint::{write_options, HddsWriteOptions, HddsWriter};
use crate::ret::{arg, guard, guard_ret, guard_void, out, out_handle, HddsRet};

/// A buffer lent by hdds_writer_loan. Publish it with hdds_loan_publish or give it back with
/// hdds_loan_return, before the writer is destroyed.
pub struct HddsLoan {
    inner: WriterLoan<'static>,
}

/// Lends a buffer of `len` bytes for the writer's next sample and stores the loan in *out_loan.
/// Its bytes are unspecified (zeros, or an earlier sample of this writer's in its shared-memory
/// ring): fill every byte you publish. Several loans may be out at once, and the writer may write
/// meanwhile; a loan's sample takes its sequence number when it is published. A loan in shared memory holds up the
/// reuse of the writer's ring beyond it until it is published or returned: do not keep it long.
/// A reliable KEEP_ALL writer waits for room up to max_blocking_time (then HDDS_RET_TIMEOUT). A
/// `len` above 4 GiB - 1 (the most RTPS can carry) is HDDS_RET_BAD_ARGUMENT, nothing allocated. The
/// loan must be published or returned before the writer is destroyed. Thread-safe with other
/// calls on the writer.
#[no_mangle]
pub extern "C" fn hdds_writer_loan(writer: *const HddsWriter, len: usize, out_loan: *mut *mut HddsLoan) -> HddsRet {
    guard_ret("hdds_writer_loan", || lend(writer, out_loan, |w| w.loan(len).map(Some)))
}

/// hdds_writer_loan where the loan is zero copy only: a buffer in the writer's shared-memory ring
/// (hdds_loan_in_shared_memory is true), or HDDS_RET_NO_DATA with *out_loan set to NULL and
/// nothing allocated when the sample would not go there (no same-host reader is matched): fill
/// memory of your own then, and write it. Otherwise as hdds_writer_loan.
#[no_mangle]
pub extern "C" fn hdds_writer_loan_in_shared_memory(
    writer: *const HddsWriter,
    len: usize,
    out_loan: *mut *mut HddsLoan,
) -> HddsRet {
    guard_ret("hdds_writer_loan_in_shared_memory", || lend(writer, out_loan, |w| w.loan_in_shared_memory(len)))
}

/// The body of the two loan calls: checks the arguments, lends with `f` and stores the loan (or
/// NULL, HDDS_RET_NO_DATA, when `f` lent nothing).
fn lend(
    writer: *const HddsWriter,
    out_loan: *mut *mut HddsLoan,
    f: impl FnOnce(&'static Writer) -> hdds_core::Result<Option<WriterLoan<'static>>>,
) -> Result<HddsRet, hdds_core::Error> {
    let w = arg(writer, "writer")?;
    if out_loan.is_null() {
        return Err(hdds_core::Error::bad_argument("out_loan is NULL"));
    }
    // SAFETY: the C caller promises (documented above) that the writer outlives the loan, so the
    // borrow may be extended to 'static; the loan never hands the writer out.
    let writer: &'static Writer = unsafe { &*(&w.inner as *const Writer) };
    out_handle(out_loan, "out_loan", f(writer)?.map(|loan| HddsLoan { inner: loan }))
}

/// Stores the loan's buffer in *out_data and its length in *out_len. The buffer is the caller's to
/// fill until the loan is published or returned. In shared memory (hdds_loan_in_shared_memory),
/// its byte 4, after the encapsulation header, starts a 64-byte line: a body laid out as a struct
/// can be filled in place. Not thread-safe with other uses of the loan.
#[no_mangle]
pub extern "C" fn hdds_loan_data(loan: *mut HddsLoan, out_data: *mut *mut u8, out_len: *mut usize) -> HddsRet {
    guard("hdds_loan_data", || {
        if loan.is_null() {
            return Err(hdds_core::Error::bad_argument("loan is NULL"));
        }
        // SAFETY: a non-null loan came from hdds_writer_loan and is not published or returned yet
        // (the caller's contract); the caller does not use it from another thread meanwhile.
        let l = unsafe { &mut *loan };
        let buf = l.inner.as_mut_slice();
        let (data, len) = (buf.as_mut_ptr(), buf.len());
        out(out_len, "out_len", len)?;
        out(out_data, "out_data", data)
    })
}

/// Stores in *out whether the buffer lies in shared memory (same-host readers get it without a
/// copy). Thread-safe with other reads of the loan.
#[no_mangle]
pub extern "C" fn hdds_loan_in_shared_memory(loan: *const HddsLoan, out_shm: *mut bool) -> HddsRet {
    guard("hdds_loan_in_shared_memory", || {
        let l = arg(loan, "loan")?;
        out(out_shm, "out_shm", l.inner.in_shared_memory())
    })
}

/// Publishes the filled buffer as hdds_writer_write_ex would (options may be NULL) and stores its
/// sequence number in *out_sequence_number (may be NULL). The loan is consumed whatever the
/// outcome; on an error nothing is published and the buffer goes back to the writer.
#[no_mangle]
pub extern "C" fn hdds_loan_publish(
    loan: *mut HddsLoan,
    options: *const HddsWriteOptions,
    out_sequence_number: *mut i64,
) -> HddsRet {
    guard("hdds_loan_publish", || {
        if loan.is_null() {
            return Err(hdds_core::Error::bad_argument("loan is NULL"));
        }
        // SAFETY: a non-null loan came from Box::into_raw in hdds_writer_loan; the caller gives up
        // its last use of it here.
        let l = unsafe { Box::from_raw(loan) };
        let opts = if options.is_null() {
            hdds_core::WriteOptions::default()
        } else {
            write_options(arg(options, "options")?)?
        };
        let sn = l.inner.publish_with(&opts)?;
        if !out_sequence_number.is_null() {
            out(out_sequence_number, "out_sequence_number", sn)?;
        }
        Ok(())
    })
}

/// Gives an unpublished loan back to its writer. NULL is a no-op.
#[no_mangle]
pub extern "C" fn hdds_loan_return(loan: *mut HddsLoan) {
    guard_void("hdds_loan_return", || {
        if !loan.is_null() {
            // SAFETY: a non-null loan came from Box::into_raw in hdds_writer_loan; the caller gives
            // up its last use of it here.
            drop(unsafe { Box::from_raw(loan) });
        }
    })
}
