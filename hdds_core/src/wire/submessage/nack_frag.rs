//! NACK_FRAG (RTPS 2.5 sections 8.3.7.7, 9.4.5.8): a reader asks for missing fragments of one sample.

use super::{read_ids, Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::sequence_number::{FragmentNumberSet, SequenceNumber};
use crate::wire::EntityId;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct NackFrag {
    pub reader_id: EntityId,
    pub writer_id: EntityId,
    pub writer_sn: SequenceNumber,
    pub fragment_number_state: FragmentNumberSet,
    pub count: u32,
}

impl<'a> Body<'a> for NackFrag {
    const ID: u8 = super::id::NACK_FRAG;

    fn parse(_flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        let (reader_id, writer_id) = read_ids(r)?;
        let writer_sn = SequenceNumber::read(r)?;
        if writer_sn.0 <= 0 {
            return Err(DecodeError::new("NACK_FRAG writerSN is not positive", 8));
        }
        let fragment_number_state = FragmentNumberSet::read(r)?;
        if fragment_number_state.base == 0 {
            return Err(DecodeError::new("NACK_FRAG fragmentNumberState base is 0", 16));
        }
        Ok(NackFrag { reader_id, writer_id, writer_sn, fragment_number_state, count: r.read_u32()? })
    }

    fn flags(&self) -> u8 {
        0
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        w.write_bytes(&self.reader_id.0)?;
        w.write_bytes(&self.writer_id.0)?;
        self.writer_sn.write(w)?;
        self.fragment_number_state.write(w)?;
        w.write_u32(self.count)
    }
}
