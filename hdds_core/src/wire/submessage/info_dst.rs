//! INFO_DST (RTPS 2.5 sections 8.3.7.8, 9.4.5.10): the participant the following submessages are
//! for (a zero prefix means "everyone").

use super::{Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::GuidPrefix;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct InfoDst {
    pub guid_prefix: GuidPrefix,
}

impl<'a> Body<'a> for InfoDst {
    const ID: u8 = super::id::INFO_DST;

    fn parse(_flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        Ok(InfoDst { guid_prefix: GuidPrefix(r.read_array()?) })
    }

    fn flags(&self) -> u8 {
        0
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        w.write_bytes(&self.guid_prefix.0)
    }
}
