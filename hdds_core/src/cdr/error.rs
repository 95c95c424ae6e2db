//! Errors of the IO-free codecs (CDR here, RTPS in `wire`).
//!
//! They are small `Copy` values with a static reason and no allocation, because a receive thread
//! creates one per malformed datagram and only counts and maybe logs it.

use std::fmt;

/// Input that could not be decoded: what was wrong and at which byte offset (relative to the
/// buffer the decoder was given; message-level parsers shift it to the datagram's offset).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DecodeError {
    pub reason: &'static str,
    pub offset: usize,
}

impl DecodeError {
    pub const fn new(reason: &'static str, offset: usize) -> Self {
        DecodeError { reason, offset }
    }

    /// The same error with its offset moved by `base` (the position of the inner buffer).
    pub const fn shifted(self, base: usize) -> Self {
        DecodeError { reason: self.reason, offset: self.offset.saturating_add(base) }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed input at byte {}: {}", self.offset, self.reason)
    }
}

impl std::error::Error for DecodeError {}

/// A value that could not be encoded (a fixed buffer is full, a length does not fit its field).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EncodeError {
    pub reason: &'static str,
}

impl EncodeError {
    pub const fn new(reason: &'static str) -> Self {
        EncodeError { reason }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode: {}", self.reason)
    }
}

impl std::error::Error for EncodeError {}

impl From<DecodeError> for crate::Error {
    fn from(e: DecodeError) -> Self {
        crate::Error::bad_argument(e.to_string())
    }
}

impl From<EncodeError> for crate::Error {
    fn from(e: EncodeError) -> Self {
        crate::Error::new(crate::error::ErrorKind::OutOfResources, e.to_string())
    }
}
