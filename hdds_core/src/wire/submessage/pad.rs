//! PAD (RTPS 2.5 sections 8.3.7.12, 9.4.5.13): padding, used to align the next submessage; its
//! body (if any) is ignored.

use super::{Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Pad;

impl<'a> Body<'a> for Pad {
    const ID: u8 = super::id::PAD;

    fn parse(_flags: u8, _r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        Ok(Pad)
    }

    fn flags(&self) -> u8 {
        0
    }

    fn write_body(&self, _w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        Ok(())
    }
}
