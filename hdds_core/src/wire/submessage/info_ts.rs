//! INFO_TS (RTPS 2.5 sections 8.3.7.9, 9.4.5.9): the source timestamp of the submessages that
//! follow in the message, or (flag I) that they have none.

use super::{Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::time::Time;

pub const FLAG_INVALIDATE: u8 = 0x02;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct InfoTs {
    /// `None` when the I flag is set: later submessages carry no timestamp.
    pub timestamp: Option<Time>,
}

impl<'a> Body<'a> for InfoTs {
    const ID: u8 = super::id::INFO_TS;

    fn parse(flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        if flags & FLAG_INVALIDATE != 0 {
            return Ok(InfoTs { timestamp: None });
        }
        Ok(InfoTs { timestamp: Some(Time::read(r)?) })
    }

    fn flags(&self) -> u8 {
        if self.timestamp.is_none() {
            FLAG_INVALIDATE
        } else {
            0
        }
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        match self.timestamp {
            Some(t) => t.write(w),
            None => Ok(()),
        }
    }
}
