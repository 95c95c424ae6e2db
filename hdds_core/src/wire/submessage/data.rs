//! DATA (RTPS 2.5 sections 8.3.7.2, 9.4.5.3): one sample, or one key with a status (dispose,
//! unregister), from a writer to one or all readers.
//!
//! Layout: extraFlags u16, octetsToInlineQos u16, readerId, writerId, writerSN, [inlineQos if Q],
//! [serializedPayload if D or K]. octetsToInlineQos counts from the byte after itself; it is 16
//! today, and a larger value (a newer spec adding fields) is honoured by skipping the extra bytes.

use super::{Body, DataPrefix, DataPrefixRules, ParseContext};
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError};
use crate::wire::parameter::ParameterList;
use crate::wire::sequence_number::SequenceNumber;
use crate::wire::EntityId;

pub const FLAG_INLINE_QOS: u8 = 0x02;
pub const FLAG_DATA: u8 = 0x04;
pub const FLAG_KEY: u8 = 0x08;
pub const FLAG_NON_STANDARD_PAYLOAD: u8 = 0x10;

/// octetsToInlineQos for the fields this version of the spec defines.
const STANDARD_OCTETS_TO_INLINE_QOS: u16 = 16;

const PREFIX_RULES: DataPrefixRules = DataPrefixRules {
    min_octets_to_inline_qos: STANDARD_OCTETS_TO_INLINE_QOS,
    octets_below_min: "DATA octetsToInlineQos is below 16",
    sn_not_positive: "DATA writerSN is not positive",
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Data<'a> {
    pub extra_flags: u16,
    pub reader_id: EntityId,
    pub writer_id: EntityId,
    pub writer_sn: SequenceNumber,
    /// Inline QoS (flag Q), in this submessage's byte order.
    pub inline_qos: Option<ParameterList<'a>>,
    /// The serialized payload (encapsulation header first), borrowed; `None` without D or K.
    /// It runs to the end of the submessage, so it may include the writer's trailing padding.
    pub payload: Option<&'a [u8]>,
    /// K: the payload is the serialized key, not a sample (dispose/unregister of keyed topics).
    pub key_flag: bool,
    /// N: the payload is not formatted as CDR (RTPS 2.3+).
    pub non_standard_payload: bool,
}

impl<'a> Data<'a> {
    /// A DATA carrying `payload` (a sample).
    pub fn new(reader_id: EntityId, writer_id: EntityId, writer_sn: SequenceNumber, payload: &'a [u8]) -> Self {
        Data {
            extra_flags: 0,
            reader_id,
            writer_id,
            writer_sn,
            inline_qos: None,
            payload: Some(payload),
            key_flag: false,
            non_standard_payload: false,
        }
    }
}

impl<'a> Body<'a> for Data<'a> {
    const ID: u8 = super::id::DATA;

    fn parse(flags: u8, r: &mut CdrReader<'a>, ctx: &ParseContext) -> Result<Self, DecodeError> {
        let (q, d, k) = (flags & FLAG_INLINE_QOS != 0, flags & FLAG_DATA != 0, flags & FLAG_KEY != 0);
        if d && k {
            return Err(DecodeError::new("DATA has both the D and K flags set", 1));
        }
        let DataPrefix { extra_flags, octets_to_inline_qos, reader_id, writer_id, writer_sn } =
            DataPrefix::read(r, &PREFIX_RULES)?;
        r.skip((octets_to_inline_qos - STANDARD_OCTETS_TO_INLINE_QOS) as usize)?;
        let inline_qos = if q {
            let start = r.position();
            let (list, used) = ParameterList::parse(r.rest(), r.endian(), ctx.vendor).map_err(|e| e.shifted(start))?;
            r.skip(used)?;
            Some(list)
        } else {
            None
        };
        let payload = if d || k { Some(r.rest()) } else { None };
        Ok(Data {
            extra_flags,
            reader_id,
            writer_id,
            writer_sn,
            inline_qos,
            payload,
            key_flag: k,
            non_standard_payload: flags & FLAG_NON_STANDARD_PAYLOAD != 0,
        })
    }

    fn flags(&self) -> u8 {
        let mut f = 0;
        if self.inline_qos.is_some() {
            f |= FLAG_INLINE_QOS;
        }
        if self.payload.is_some() {
            f |= if self.key_flag { FLAG_KEY } else { FLAG_DATA };
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
        if let Some(q) = &self.inline_qos {
            write_inline_qos(q, w)?;
        }
        if let Some(p) = self.payload {
            w.write_bytes(p)?;
        }
        Ok(())
    }
}

/// Inline QoS is copied as received plus a sentinel; it must already be in the submessage's order,
/// as values cannot be byte-swapped without knowing their types.
pub(super) fn write_inline_qos(q: &ParameterList<'_>, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
    if q.endian() != w.endian() {
        return Err(EncodeError::new("inline QoS byte order differs from the submessage's"));
    }
    w.write_bytes(q.as_bytes())?;
    w.write_u16(crate::wire::pid::PID_SENTINEL)?;
    w.write_u16(0)
}
