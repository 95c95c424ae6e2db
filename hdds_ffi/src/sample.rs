//! Samples taken from a reader: a payload the caller reads in place and its sample info.

use hdds_core::error::Error;
use hdds_core::{Sample, SampleInfo};

use crate::ret::{arg, guard, guard_void, out, HddsRet};

/// A taken sample. Free it with hdds_sample_free.
pub struct HddsSample {
    pub(crate) inner: Sample,
}

/// What is known about a sample besides its payload.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HddsSampleInfo {
    /// When the writer wrote it: nanoseconds since the UNIX epoch, on the writer's clock.
    pub source_timestamp_ns: i64,
    /// When this reader received it: nanoseconds since the UNIX epoch, on the reader's clock.
    pub reception_timestamp_ns: i64,
    /// The writer's GUID.
    pub writer_guid: [u8; 16],
    /// The writer's sequence number for the sample (from 1).
    pub sequence_number: i64,
    /// The writer gave a related sample identity (a service reply names its request).
    pub has_related_sample_identity: bool,
    /// The related sample identity's writer GUID and sequence number (zero when absent).
    pub related_writer_guid: [u8; 16],
    pub related_sequence_number: i64,
}

/// The serialized payload (CDR encapsulation header first): stores its length in *out_len and
/// returns a pointer valid until hdds_sample_free. Returns NULL (and sets the last error) if an
/// argument is NULL. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_sample_data(sample: *const HddsSample, out_len: *mut usize) -> *const u8 {
    payload_ptr("hdds_sample_data", out_len, || Ok(&arg(sample, "sample")?.inner.data))
}

/// The shape of the payload getters: the bytes `payload` finds, their length stored in *out_len;
/// NULL (with the last error set) if an argument is NULL.
pub(crate) fn payload_ptr<'a>(
    function: &str,
    out_len: *mut usize,
    payload: impl FnOnce() -> Result<&'a [u8], Error>,
) -> *const u8 {
    let mut data = std::ptr::null();
    let ret = guard(function, || {
        let d = payload()?;
        out(out_len, "out_len", d.len())?;
        data = d.as_ptr();
        Ok(())
    });
    if ret == HddsRet::Ok {
        data
    } else {
        std::ptr::null()
    }
}

/// Fills *out_info with the sample's info. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_sample_info(sample: *const HddsSample, out_info: *mut HddsSampleInfo) -> HddsRet {
    guard("hdds_sample_info", || {
        let i = &arg(sample, "sample")?.inner.info;
        out(out_info, "out_info", sample_info(i))
    })
}

/// The C view of a sample's info (also for loaned samples, reader_loan.rs).
pub(crate) fn sample_info(i: &SampleInfo) -> HddsSampleInfo {
    HddsSampleInfo {
        source_timestamp_ns: i.source_timestamp,
        reception_timestamp_ns: i.reception_timestamp,
        writer_guid: i.writer_guid.to_bytes(),
        sequence_number: i.sequence_number,
        has_related_sample_identity: i.related_sample_identity.is_some(),
        related_writer_guid: i.related_sample_identity.map_or([0; 16], |r| r.writer.to_bytes()),
        related_sequence_number: i.related_sample_identity.map_or(0, |r| r.sn),
    }
}

/// Frees a taken sample. NULL is a no-op.
#[no_mangle]
pub extern "C" fn hdds_sample_free(sample: *mut HddsSample) {
    guard_void("hdds_sample_free", || {
        if !sample.is_null() {
            // SAFETY: the handle came from Box::into_raw in hdds_reader_take; this is its last use.
            drop(unsafe { Box::from_raw(sample) });
        }
    })
}
