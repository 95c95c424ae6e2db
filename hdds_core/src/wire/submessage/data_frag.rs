//! DATA_FRAG (RTPS 2.5 sections 8.3.7.3, 9.4.5.4): one or more consecutive fragments of a sample
//! too large for one message. Cyclone cuts samples into 1344-byte fragments and packs several per
//! 14720-byte message; Fast DDS uses fragments up to its message size.
//!
//! Layout: extraFlags u16, octetsToInlineQos u16, readerId, writerId, writerSN,
//! fragmentStartingNum u32, fragmentsInSubmessage u16, fragmentSize u16, sampleSize u32,
//! [inlineQos if Q], serializedPayload (the fragments' bytes).

use super::data::write_inline_qos;
use super::{Body, DataPrefix, DataPrefixRules, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::parameter::ParameterList;
use crate::wire::sequence_number::{FragmentNumber, SequenceNumber};
use crate::wire::EntityId;

pub const FLAG_INLINE_QOS: u8 = 0x02;
pub const FLAG_KEY: u8 = 0x04;
pub const FLAG_NON_STANDARD_PAYLOAD: u8 = 0x08;

const STANDARD_OCTETS_TO_INLINE_QOS: u16 = 28;

const PREFIX_RULES: DataPrefixRules = DataPrefixRules {
    min_octets_to_inline_qos: STANDARD_OCTETS_TO_INLINE_QOS,
    octets_below_min: "DATA_FRAG octetsToInlineQos is below 28",
    sn_not_positive: "DATA_FRAG writerSN is not positive",
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DataFrag<'a> {
    pub extra_flags: u16,
    pub reader_id: EntityId,
    pub writer_id: EntityId,
    pub writer_sn: SequenceNumber,
    /// Number of the first fragment here (from 1).
    pub fragment_starting_num: FragmentNumber,
    pub fragments_in_submessage: u16,
    /// Size of every fragment but the last.
    pub fragment_size: u16,
    /// Size of the whole serialized sample.
    pub sample_size: u32,
    pub inline_qos: Option<ParameterList<'a>>,
    /// The fragments' bytes as received (see [`Self::fragment_bytes`] for the trimmed part).
    pub payload: &'a [u8],
    pub key_flag: bool,
    pub non_standard_payload: bool,
}

impl<'a> DataFrag<'a> {
    /// Offset of this submessage's first fragment inside the sample. (Parsing guarantees
    /// fragmentStartingNum >= 1 and fragmentSize >= 1; the helpers saturate for hand-built values
    /// rather than panic.)
    pub fn sample_offset(&self) -> u64 {
        (self.fragment_starting_num as u64).saturating_sub(1) * self.fragment_size as u64
    }

    /// Number of fragments the whole sample has (0 if fragmentSize is 0).
    pub fn total_fragments(&self) -> u32 {
        if self.fragment_size == 0 {
            return 0;
        }
        (self.sample_size as u64).div_ceil(self.fragment_size as u64) as u32
    }

    /// The bytes that belong to the sample: the payload cut to what the declared fragments cover
    /// and to the sample's end (a sender may pad the last fragment).
    pub fn fragment_bytes(&self) -> &'a [u8] {
        let declared = self.fragments_in_submessage as u64 * self.fragment_size as u64;
        let to_end = (self.sample_size as u64).saturating_sub(self.sample_offset());
        let n = (self.payload.len() as u64).min(declared).min(to_end) as usize;
        &self.payload[..n]
    }
}

impl<'a> Body<'a> for DataFrag<'a> {
    const ID: u8 = super::id::DATA_FRAG;

    fn parse(flags: u8, r: &mut CdrReader<'a>, ctx: &ParseContext) -> Result<Self, DecodeError> {
        let DataPrefix { extra_flags, octets_to_inline_qos, reader_id, writer_id, writer_sn } =
            DataPrefix::read(r, &PREFIX_RULES)?;
        let frag_at = r.position();
        let fragment_starting_num = r.read_u32()?;
        let fragments_in_submessage = r.read_u16()?;
        let fragment_size = r.read_u16()?;
        let sample_size = r.read_u32()?;
        // Validity rules of RTPS 2.5 8.3.7.3.3; they also keep the offset arithmetic meaningful.
        if fragment_starting_num == 0 {
            return Err(DecodeError::new("DATA_FRAG fragmentStartingNum is 0", frag_at));
        }
        if fragment_size == 0 {
            return Err(DecodeError::new("DATA_FRAG fragmentSize is 0", frag_at + 6));
        }
        if (fragment_starting_num as u64 - 1) * fragment_size as u64 >= sample_size as u64 {
            return Err(DecodeError::new("DATA_FRAG fragment starts past the sample's end", frag_at));
        }
        r.skip((octets_to_inline_qos - STANDARD_OCTETS_TO_INLINE_QOS) as usize)?;
        let inline_qos = if flags & FLAG_INLINE_QOS != 0 {
            let start = r.position();
            let (list, used) = ParameterList::parse(r.rest(), r.endian(), ctx.vendor).map_err(|e| e.shifted(start))?;
            r.skip(used)?;
            Some(list)
        } else {
            None
        };
        Ok(DataFrag {
            extra_flags,
            reader_id,
            writer_id,
            writer_sn,
            fragment_starting_num,
            fragments_in_submessage,
            fragment_size,
            sample_size,
            inline_qos,
            payload: r.rest(),
            key_flag: flags & FLAG_KEY != 0,
            non_standard_payload: flags & FLAG_NON_STANDARD_PAYLOAD != 0,
        })
    }

    fn flags(&self) -> u8 {
        let mut f = 0;
        if self.inline_qos.is_some() {
            f |= FLAG_INLINE_QOS;
        }
        if self.key_flag {
            f |= FLAG_KEY;
        }
        if self.non_standard_payload {
            f |= FLAG_NON_STANDARD_PAYLOAD;
        }
        f
    }

    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        DataPrefix {
            extra_flags: self.extra_flags,
            octets_to_inline_qos: STANDARD_OCTETS_TO_INLINE_QOS,
            reader_id: self.reader_id,
            writer_id: self.writer_id,
            writer_sn: self.writer_sn,
        }
        .write(w)?;
        w.write_u32(self.fragment_starting_num)?;
        w.write_u16(self.fragments_in_submessage)?;
        w.write_u16(self.fragment_size)?;
        w.write_u32(self.sample_size)?;
        if let Some(q) = &self.inline_qos {
            write_inline_qos(q, w)?;
        }
        w.write_bytes(self.payload)
    }
}
