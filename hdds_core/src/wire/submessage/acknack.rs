//! ACKNACK (RTPS 2.5 sections 8.3.7.1, 9.4.5.2): a reader acknowledges everything below the set's
//! base and asks for the sequence numbers in the set.

use super::{read_ids, Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::sequence_number::SequenceNumberSet;
use crate::wire::EntityId;

pub const FLAG_FINAL: u8 = 0x02;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AckNack {
    pub reader_id: EntityId,
    pub writer_id: EntityId,
    pub reader_sn_state: SequenceNumberSet,
    pub count: u32,
    /// F: the writer need not answer with a HEARTBEAT.
    pub final_flag: bool,
}

impl<'a> Body<'a> for AckNack {
    const ID: u8 = super::id::ACKNACK;

    fn parse(flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        let (reader_id, writer_id) = read_ids(r)?;
        let reader_sn_state = SequenceNumberSet::read(r)?;
        // A base of 0 is invalid by the letter of the spec, but some peers send it as "nothing
        // received yet" before the first HEARTBEAT; it is harmless, so it is accepted.
        if reader_sn_state.base.0 < 0 {
            return Err(DecodeError::new("ACKNACK readerSNState base is negative", 8));
        }
        Ok(AckNack { reader_id, writer_id, reader_sn_state, count: r.read_u32()?, final_flag: flags & FLAG_FINAL != 0 })
    }

    fn flags(&self) -> u8 {
        if self.final_flag {
            FLAG_FINAL
        } else {
            0
        }
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        w.write_bytes(&self.reader_id.0)?;
        w.write_bytes(&self.writer_id.0)?;
        self.reader_sn_state.write(w)?;
        w.write_u32(self.count)
    }
}
