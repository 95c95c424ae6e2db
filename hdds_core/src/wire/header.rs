//! The 20-byte RTPS message header (RTPS 2.5 section 9.4.4): "RTPS", protocol version, vendor id,
//! sender's GUID prefix. Byte order does not apply: every field is a byte array.

use super::guid::GuidPrefix;
use super::vendor::{VendorId, VENDOR_ID_HDDS};
use crate::cdr::DecodeError;

/// RTPS protocol version (major, minor).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct ProtocolVersion {
    pub major: u8,
    pub minor: u8,
}

impl ProtocolVersion {
    /// What we send. Fast DDS 2.9 announces 2.3 (Cyclone 0.10 still says 2.1); 2.3 is what our message
    /// set corresponds to; newer minor versions are accepted on receive.
    pub const CURRENT: ProtocolVersion = ProtocolVersion { major: 2, minor: 3 };
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Header {
    pub version: ProtocolVersion,
    pub vendor_id: VendorId,
    pub guid_prefix: GuidPrefix,
}

impl Header {
    pub const SIZE: usize = 20;
    pub const MAGIC: [u8; 4] = *b"RTPS";

    /// Our header for messages from the participant `guid_prefix`.
    pub fn ours(guid_prefix: GuidPrefix) -> Header {
        Header { version: ProtocolVersion::CURRENT, vendor_id: VENDOR_ID_HDDS, guid_prefix }
    }

    /// Parses the header. Any 2.x version is accepted (the spec keeps 2.x messages compatible and
    /// asks receivers to ignore what they do not know); other majors are rejected, as their layout
    /// may differ.
    pub fn parse(buf: &[u8]) -> Result<Header, DecodeError> {
        if buf.len() < Self::SIZE {
            return Err(DecodeError::new("datagram shorter than the 20-byte RTPS header", 0));
        }
        if buf[..4] != Self::MAGIC {
            return Err(DecodeError::new("not an RTPS message (no \"RTPS\" magic)", 0));
        }
        let version = ProtocolVersion { major: buf[4], minor: buf[5] };
        if version.major != 2 {
            return Err(DecodeError::new("unsupported RTPS major version (only 2.x is understood)", 4));
        }
        let mut prefix = [0u8; 12];
        prefix.copy_from_slice(&buf[8..20]);
        Ok(Header { version, vendor_id: [buf[6], buf[7]], guid_prefix: GuidPrefix(prefix) })
    }

    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[..4].copy_from_slice(&Self::MAGIC);
        b[4] = self.version.major;
        b[5] = self.version.minor;
        b[6..8].copy_from_slice(&self.vendor_id);
        b[8..].copy_from_slice(&self.guid_prefix.0);
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejections() {
        let h = Header::ours(GuidPrefix([7; 12]));
        let b = h.to_bytes();
        assert_eq!(&b[..8], b"RTPS\x02\x03\x01\xf0");
        assert_eq!(Header::parse(&b).unwrap(), h);
        assert!(Header::parse(&b[..19]).is_err());
        let mut v1 = b;
        v1[4] = 1;
        assert_eq!(Header::parse(&v1).unwrap_err().offset, 4);
        let mut x = b;
        x[0] = b'X';
        assert!(Header::parse(&x).is_err());
        let mut v25 = b;
        v25[5] = 5;
        assert_eq!(Header::parse(&v25).unwrap().version, ProtocolVersion { major: 2, minor: 5 });
    }
}
