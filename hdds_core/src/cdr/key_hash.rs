//! The key hash of an instance of a keyed topic: the 16 bytes of PID_KEY_HASH that name the
//! instance on the wire (RTPS 2.5 section 9.6.4.8, DDS-XTypes 1.3 section 7.6.8).
//!
//! The rule: serialize the key members, in declaration order, as big-endian XCDR2 without an
//! encapsulation header ([`key_writer`] gives such a writer); when the largest serialized key the
//! type can have fits in 16 bytes, the hash is that serialization padded with zeros, otherwise it
//! is the MD5 digest of it ([`key_hash`]).
//!
//! For simple keys (integers, enums, fixed arrays of them, strings) that is all there is:
//!
//! ```
//! use hdds_core::cdr::key_hash::{key_hash, key_writer};
//! // struct KeyedBlob { @key unsigned long id; ... }: at most 4 bytes of key.
//! let mut w = key_writer();
//! w.write_u32(7).unwrap();
//! assert_eq!(key_hash(w.sink(), Some(4)), [0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
//! // @key string name (unbounded): always hashed.
//! let mut w = key_writer();
//! w.write_string("left").unwrap();
//! assert_ne!(key_hash(w.sink(), None)[..4], [0, 0, 0, 5]);
//! ```
//!
//! Where vendors differ: XCDR2 aligns 8-byte members to 4, XCDR1 to 8. Cyclone DDS (0.10 and
//! later) hashes with XCDR2, as the specification says; Fast DDS 2.9's generated code with XCDR1.
//! The two agree unless an 8-byte key member follows a shorter one; such a type's hashes differ
//! between those two vendors whatever we do. Nested keyed structs serialize only their key members.

use super::md5::md5;
use super::{CdrWriter, Endian, XcdrVersion};

/// A writer for the key members: big-endian XCDR2 into a `Vec`, alignment counted from its start.
pub fn key_writer() -> CdrWriter<Vec<u8>> {
    CdrWriter::with_version(Vec::with_capacity(16), Endian::Big, XcdrVersion::Xcdr2)
}

/// The key hash of the key members serialized in `key` (by [`key_writer`]). `max_key_size` is the
/// largest serialized key the *type* can have (`None`: unbounded, e.g. an unbounded string member),
/// not this instance's: a type whose keys can exceed 16 bytes hashes even its short ones.
pub fn key_hash(key: &[u8], max_key_size: Option<usize>) -> [u8; 16] {
    match max_key_size {
        Some(max) if max <= 16 && key.len() <= 16 => {
            let mut h = [0u8; 16];
            h[..key.len()].copy_from_slice(key);
            h
        }
        _ => md5(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_keys_are_padded() {
        let mut w = key_writer();
        w.write_u8(1).unwrap();
        w.write_u32(0x0a0b0c0d).unwrap();
        w.write_u64(0x1122334455667788).unwrap();
        // u8, 3 bytes of padding, u32, then the u64 aligned to 4 (XCDR2), not 8.
        assert_eq!(w.sink().len(), 16);
        assert_eq!(
            key_hash(w.sink(), Some(16)),
            [1, 0, 0, 0, 0x0a, 0x0b, 0x0c, 0x0d, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
        );
    }

    #[test]
    fn large_or_unbounded_keys_are_hashed() {
        let mut w = key_writer();
        w.write_string("ab").unwrap();
        assert_eq!(w.sink(), &[0, 0, 0, 3, b'a', b'b', 0]);
        assert_eq!(key_hash(w.sink(), None), md5(&[0, 0, 0, 3, b'a', b'b', 0]));
        // The type decides, not the instance: a short key of a large key type is hashed too.
        assert_eq!(key_hash(&[0, 0, 0, 1], Some(20)), md5(&[0, 0, 0, 1]));
        // A key longer than its declared bound is hashed rather than cut.
        assert_eq!(key_hash(&[7; 17], Some(16)), md5(&[7; 17]));
    }
}
