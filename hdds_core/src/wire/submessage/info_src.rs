//! INFO_SRC (RTPS 2.5 sections 8.3.7.10, 9.4.5.11): the following submessages come from another
//! participant than the message header says (relays, forwarded messages).

use super::{Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::header::ProtocolVersion;
use crate::wire::vendor::VendorId;
use crate::wire::GuidPrefix;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct InfoSrc {
    pub version: ProtocolVersion,
    pub vendor_id: VendorId,
    pub guid_prefix: GuidPrefix,
}

impl<'a> Body<'a> for InfoSrc {
    const ID: u8 = super::id::INFO_SRC;

    fn parse(_flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        r.skip(4)?; // "unused" (was the IPv4 address in RTPS 1.x)
        let [major, minor] = r.read_array()?;
        Ok(InfoSrc {
            version: ProtocolVersion { major, minor },
            vendor_id: r.read_array()?,
            guid_prefix: GuidPrefix(r.read_array()?),
        })
    }

    fn flags(&self) -> u8 {
        0
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        w.write_u32(0)?;
        w.write_bytes(&[self.version.major, self.version.minor])?;
        w.write_bytes(&self.vendor_id)?;
        w.write_bytes(&self.guid_prefix.0)
    }
}
