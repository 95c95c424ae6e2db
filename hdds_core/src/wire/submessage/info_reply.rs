//! INFO_REPLY (RTPS 2.5 sections 8.3.7.11, 9.4.5.12): where replies to the following submessages
//! should go (unicast locators, and multicast ones with flag M).

use super::{Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::locator::LocatorList;

pub const FLAG_MULTICAST: u8 = 0x02;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct InfoReply<'a> {
    pub unicast: LocatorList<'a>,
    pub multicast: Option<LocatorList<'a>>,
}

impl<'a> Body<'a> for InfoReply<'a> {
    const ID: u8 = super::id::INFO_REPLY;

    fn parse(flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        let unicast = LocatorList::read(r)?;
        let multicast = if flags & FLAG_MULTICAST != 0 { Some(LocatorList::read(r)?) } else { None };
        Ok(InfoReply { unicast, multicast })
    }

    fn flags(&self) -> u8 {
        if self.multicast.is_some() {
            FLAG_MULTICAST
        } else {
            0
        }
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        // Re-encoded locator by locator, so the lists follow this submessage's byte order.
        for list in std::iter::once(&self.unicast).chain(self.multicast.as_ref()) {
            w.write_sequence_len(list.len())?;
            list.iter().try_for_each(|l| l.write(w))?;
        }
        Ok(())
    }
}
