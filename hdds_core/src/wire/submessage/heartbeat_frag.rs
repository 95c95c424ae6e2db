//! HEARTBEAT_FRAG (RTPS 2.5 sections 8.3.7.6, 9.4.5.7): a writer tells readers which fragments of
//! one sample (1..=lastFragmentNum) it has available.

use super::{read_ids, Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::sequence_number::{FragmentNumber, SequenceNumber};
use crate::wire::EntityId;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HeartbeatFrag {
    pub reader_id: EntityId,
    pub writer_id: EntityId,
    pub writer_sn: SequenceNumber,
    pub last_fragment_num: FragmentNumber,
    pub count: u32,
}

impl<'a> Body<'a> for HeartbeatFrag {
    const ID: u8 = super::id::HEARTBEAT_FRAG;

    fn parse(_flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        let (reader_id, writer_id) = read_ids(r)?;
        let writer_sn = SequenceNumber::read(r)?;
        if writer_sn.0 <= 0 {
            return Err(DecodeError::new("HEARTBEAT_FRAG writerSN is not positive", 8));
        }
        let last_fragment_num = r.read_u32()?;
        if last_fragment_num == 0 {
            return Err(DecodeError::new("HEARTBEAT_FRAG lastFragmentNum is 0", 16));
        }
        Ok(HeartbeatFrag { reader_id, writer_id, writer_sn, last_fragment_num, count: r.read_u32()? })
    }

    fn flags(&self) -> u8 {
        0
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        w.write_bytes(&self.reader_id.0)?;
        w.write_bytes(&self.writer_id.0)?;
        self.writer_sn.write(w)?;
        w.write_u32(self.last_fragment_num)?;
        w.write_u32(self.count)
    }
}
