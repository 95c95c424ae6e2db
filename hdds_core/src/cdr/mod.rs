//! CDR (OMG CDR / XCDR1) encoding of payloads and parameter lists, IO-free.
//!
//! - [`encapsulation`]: the 4-byte header in front of every serialized payload.
//! - [`CdrReader`]: a bounds-checked reader over `&[u8]`; every read returns a `Result` whose error
//!   says what was wrong and where, so that malformed input from the network is dropped, never a panic.
//! - [`CdrWriter`]: the matching writer, into a `Vec<u8>` or a caller's fixed buffer.
//! - [`key_hash`]: the 16-byte key hash that names an instance of a keyed topic.
//!
//! Alignment is counted from an origin, which for a payload is the byte after the encapsulation
//! header (XCDR1 and XCDR2 agree on that). XCDR1 aligns 8-byte values to 8; XCDR2 caps alignment at 4.
//! We send XCDR1 (`00 01 00 00`); XCDR2's alignment rule is recognised on receive so that a peer that
//! offers it can still be read for plain (final) types.

pub mod encapsulation;
mod error;
pub mod key_hash;
mod md5;
mod primitive;
pub mod reader;
pub mod writer;

pub use encapsulation::{Encapsulation, EncapsulationKind};
pub use error::{DecodeError, EncodeError};
pub use primitive::Primitive;
pub use reader::CdrReader;
pub use writer::{CdrSink, CdrWriter, SliceSink};

/// Byte order of a CDR stream or an RTPS submessage.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Endian {
    Big,
    Little,
}

impl Endian {
    /// The byte order of this machine: what we send, so that the common case needs no swapping.
    pub const NATIVE: Endian = if cfg!(target_endian = "big") { Endian::Big } else { Endian::Little };

    /// RTPS submessages carry their byte order in flag bit 0 (the E flag): set means little endian.
    pub const fn from_e_flag(flags: u8) -> Endian {
        if flags & 0x01 != 0 {
            Endian::Little
        } else {
            Endian::Big
        }
    }

    /// The E flag bit for this byte order.
    pub const fn e_flag(self) -> u8 {
        match self {
            Endian::Little => 0x01,
            Endian::Big => 0x00,
        }
    }
}

/// Which alignment rules a stream follows (see the module documentation).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum XcdrVersion {
    /// XCDR1 (classic CDR): primitives are aligned to their size, 8 at most.
    Xcdr1,
    /// XCDR2: primitives are aligned to their size, but never to more than 4.
    Xcdr2,
}

impl XcdrVersion {
    /// The largest alignment a primitive gets under this version.
    pub const fn max_align(self) -> usize {
        match self {
            XcdrVersion::Xcdr1 => 8,
            XcdrVersion::Xcdr2 => 4,
        }
    }
}

/// Padding needed to move `offset` (from the origin) to a multiple of `align` (a power of two).
#[inline]
pub(crate) const fn padding(offset: usize, align: usize) -> usize {
    (align - (offset & (align - 1))) & (align - 1)
}
