//! GAP (RTPS 2.5 sections 8.3.7.4, 9.4.5.5): a writer tells readers that the numbers from gapStart
//! up to gapList's base, and those in gapList, will never come (not relevant or no longer kept).

use super::{read_ids, Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::sequence_number::{SequenceNumber, SequenceNumberSet};
use crate::wire::EntityId;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Gap {
    pub reader_id: EntityId,
    pub writer_id: EntityId,
    pub gap_start: SequenceNumber,
    pub gap_list: SequenceNumberSet,
}

impl Gap {
    /// Every sequence number the GAP declares irrelevant, in order. Lazy: a peer can declare a
    /// range of billions, so callers clip it to the numbers they actually track.
    pub fn irrelevant(&self) -> impl Iterator<Item = SequenceNumber> + '_ {
        (self.gap_start.0..self.gap_list.base.0).map(SequenceNumber).chain(self.gap_list.iter())
    }
}

impl<'a> Body<'a> for Gap {
    const ID: u8 = super::id::GAP;

    fn parse(_flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        let (reader_id, writer_id) = read_ids(r)?;
        let gap_start = SequenceNumber::read(r)?;
        if gap_start.0 <= 0 {
            return Err(DecodeError::new("GAP gapStart is not positive", 8));
        }
        let gap_list = SequenceNumberSet::read(r)?;
        if gap_list.base.0 < gap_start.0 {
            return Err(DecodeError::new("GAP gapList base is below gapStart", 16));
        }
        // 2.5's optional group info (flag G) and filtered count (flag F) are ignored.
        Ok(Gap { reader_id, writer_id, gap_start, gap_list })
    }

    fn flags(&self) -> u8 {
        0
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        w.write_bytes(&self.reader_id.0)?;
        w.write_bytes(&self.writer_id.0)?;
        self.gap_start.write(w)?;
        self.gap_list.write(w)
    }
}
