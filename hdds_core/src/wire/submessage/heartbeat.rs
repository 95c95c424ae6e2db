//! HEARTBEAT (RTPS 2.5 sections 8.3.7.5, 9.4.5.6): a writer tells readers which sequence numbers
//! it has (firstSN..=lastSN), asking for an ACKNACK unless the F flag is set.

use super::{read_ids, Body, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::sequence_number::SequenceNumber;
use crate::wire::EntityId;

pub const FLAG_FINAL: u8 = 0x02;
pub const FLAG_LIVELINESS: u8 = 0x04;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Heartbeat {
    pub reader_id: EntityId,
    pub writer_id: EntityId,
    pub first_sn: SequenceNumber,
    pub last_sn: SequenceNumber,
    pub count: u32,
    /// F: no reply required.
    pub final_flag: bool,
    /// L: asserts the writer's liveliness (MANUAL_BY_TOPIC).
    pub liveliness_flag: bool,
}

impl<'a> Body<'a> for Heartbeat {
    const ID: u8 = super::id::HEARTBEAT;

    fn parse(flags: u8, r: &mut CdrReader<'a>, _: &ParseContext) -> Result<Self, DecodeError> {
        let (reader_id, writer_id) = read_ids(r)?;
        let first_sn = SequenceNumber::read(r)?;
        let last_sn = SequenceNumber::read(r)?;
        // Validity (RTPS 2.5 8.3.7.5.3): firstSN >= 1 and lastSN >= firstSN - 1 (equal: empty).
        if first_sn.0 <= 0 {
            return Err(DecodeError::new("HEARTBEAT firstSN is not positive", 8));
        }
        if last_sn.0 < first_sn.0 - 1 {
            return Err(DecodeError::new("HEARTBEAT lastSN is below firstSN - 1", 16));
        }
        // Anything after count (2.5's group info with the G flag) is ignored.
        let count = r.read_u32()?;
        Ok(Heartbeat {
            reader_id,
            writer_id,
            first_sn,
            last_sn,
            count,
            final_flag: flags & FLAG_FINAL != 0,
            liveliness_flag: flags & FLAG_LIVELINESS != 0,
        })
    }

    fn flags(&self) -> u8 {
        (if self.final_flag { FLAG_FINAL } else { 0 }) | (if self.liveliness_flag { FLAG_LIVELINESS } else { 0 })
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        w.write_bytes(&self.reader_id.0)?;
        w.write_bytes(&self.writer_id.0)?;
        self.first_sn.write(w)?;
        self.last_sn.write(w)?;
        w.write_u32(self.count)
    }
}
