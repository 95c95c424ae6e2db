//! RTPS submessages (RTPS 2.5 sections 8.3.7 and 9.4.5), one file per kind.
//!
//! Each submessage has a 4-byte header (id, flags, octetsToNextHeader) whose flag bit 0 gives the
//! byte order of that submessage only. [`Submessage::parse`] decodes a body the message parser has
//! already cut out; [`Submessage::write`] encodes header and body. Unknown ids decode to
//! [`Submessage::Unknown`], which receivers ignore (the spec requires skipping them).

mod acknack;
mod data;
mod data_frag;
mod gap;
mod heartbeat;
mod heartbeat_frag;
mod info_dst;
mod info_reply;
mod info_src;
mod info_ts;
mod nack_frag;
mod pad;

pub use acknack::AckNack;
pub use data::Data;
pub use data_frag::DataFrag;
pub use gap::Gap;
pub use heartbeat::Heartbeat;
pub use heartbeat_frag::HeartbeatFrag;
pub use info_dst::InfoDst;
pub use info_reply::InfoReply;
pub use info_src::InfoSrc;
pub use info_ts::InfoTs;
pub use nack_frag::NackFrag;
pub use pad::Pad;

use super::sequence_number::SequenceNumber;
use super::vendor::VendorId;
use crate::cdr::{CdrReader, CdrWriter, DecodeError, EncodeError, Endian};

/// Submessage ids (RTPS 2.5 table 9.14).
pub mod id {
    pub const PAD: u8 = 0x01;
    pub const ACKNACK: u8 = 0x06;
    pub const HEARTBEAT: u8 = 0x07;
    pub const GAP: u8 = 0x08;
    pub const INFO_TS: u8 = 0x09;
    pub const INFO_SRC: u8 = 0x0c;
    pub const INFO_REPLY_IP4: u8 = 0x0d;
    pub const INFO_DST: u8 = 0x0e;
    pub const INFO_REPLY: u8 = 0x0f;
    pub const NACK_FRAG: u8 = 0x12;
    pub const HEARTBEAT_FRAG: u8 = 0x13;
    pub const DATA: u8 = 0x15;
    pub const DATA_FRAG: u8 = 0x16;
}

/// The 4-byte submessage header.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SubmessageHeader {
    pub id: u8,
    pub flags: u8,
    pub octets_to_next_header: u16,
}

impl SubmessageHeader {
    pub const SIZE: usize = 4;

    pub fn endian(&self) -> Endian {
        Endian::from_e_flag(self.flags)
    }

    /// Decodes the header at the start of `b` (at least 4 bytes, else `None`).
    pub fn parse(b: &[u8]) -> Option<SubmessageHeader> {
        let h = b.get(..4)?;
        let len = match Endian::from_e_flag(h[1]) {
            Endian::Little => u16::from_le_bytes([h[2], h[3]]),
            Endian::Big => u16::from_be_bytes([h[2], h[3]]),
        };
        Some(SubmessageHeader { id: h[0], flags: h[1], octets_to_next_header: len })
    }
}

/// What a body decoder needs besides the bytes.
#[derive(Clone, Copy, Debug)]
pub struct ParseContext {
    /// The sender's vendor (from the RTPS header or the last INFO_SRC), attached to inline QoS
    /// parameter lists so that vendor-specific ids are interpreted for the right vendor.
    pub vendor: VendorId,
}

/// A submessage kind's body codec. Bodies are read and written with CDR rules whose origin is the
/// first byte after the submessage header.
pub(crate) trait Body<'a>: Sized {
    const ID: u8;
    /// Decodes a body; `flags` is the header's flags (E included), `r` covers exactly the body.
    fn parse(flags: u8, r: &mut CdrReader<'a>, ctx: &ParseContext) -> Result<Self, DecodeError>;
    /// The flags to send, without the E flag.
    fn flags(&self) -> u8;
    fn write_body(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError>;
}

/// A decoded submessage; variable-size parts are borrowed from the datagram.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Submessage<'a> {
    Pad(Pad),
    AckNack(AckNack),
    Heartbeat(Heartbeat),
    Gap(Gap),
    InfoTs(InfoTs),
    InfoSrc(InfoSrc),
    InfoDst(InfoDst),
    InfoReply(InfoReply<'a>),
    NackFrag(NackFrag),
    HeartbeatFrag(HeartbeatFrag),
    Data(Data<'a>),
    DataFrag(DataFrag<'a>),
    /// An id we do not know (vendor-specific 0x80-0xff, security, newer spec versions): skipped.
    Unknown {
        id: u8,
        flags: u8,
        body: &'a [u8],
    },
}

impl<'a> Submessage<'a> {
    /// Decodes the body of a submessage whose header is `header`.
    pub fn parse(header: SubmessageHeader, body: &'a [u8], ctx: &ParseContext) -> Result<Self, DecodeError> {
        fn p<'a, T: Body<'a>>(flags: u8, body: &'a [u8], ctx: &ParseContext) -> Result<T, DecodeError> {
            T::parse(flags, &mut CdrReader::new(body, Endian::from_e_flag(flags)), ctx)
        }
        let f = header.flags;
        Ok(match header.id {
            id::PAD => Submessage::Pad(p(f, body, ctx)?),
            id::ACKNACK => Submessage::AckNack(p(f, body, ctx)?),
            id::HEARTBEAT => Submessage::Heartbeat(p(f, body, ctx)?),
            id::GAP => Submessage::Gap(p(f, body, ctx)?),
            id::INFO_TS => Submessage::InfoTs(p(f, body, ctx)?),
            id::INFO_SRC => Submessage::InfoSrc(p(f, body, ctx)?),
            id::INFO_DST => Submessage::InfoDst(p(f, body, ctx)?),
            id::INFO_REPLY => Submessage::InfoReply(p(f, body, ctx)?),
            id::NACK_FRAG => Submessage::NackFrag(p(f, body, ctx)?),
            id::HEARTBEAT_FRAG => Submessage::HeartbeatFrag(p(f, body, ctx)?),
            id::DATA => Submessage::Data(p(f, body, ctx)?),
            id::DATA_FRAG => Submessage::DataFrag(p(f, body, ctx)?),
            other => Submessage::Unknown { id: other, flags: f, body },
        })
    }

    pub fn id(&self) -> u8 {
        match self {
            Submessage::Pad(_) => id::PAD,
            Submessage::AckNack(_) => id::ACKNACK,
            Submessage::Heartbeat(_) => id::HEARTBEAT,
            Submessage::Gap(_) => id::GAP,
            Submessage::InfoTs(_) => id::INFO_TS,
            Submessage::InfoSrc(_) => id::INFO_SRC,
            Submessage::InfoDst(_) => id::INFO_DST,
            Submessage::InfoReply(_) => id::INFO_REPLY,
            Submessage::NackFrag(_) => id::NACK_FRAG,
            Submessage::HeartbeatFrag(_) => id::HEARTBEAT_FRAG,
            Submessage::Data(_) => id::DATA,
            Submessage::DataFrag(_) => id::DATA_FRAG,
            Submessage::Unknown { id, .. } => *id,
        }
    }

    /// Appends header and body to `out` in byte order `endian` (an unknown submessage is copied
    /// as received, flags included). Fails if the body does not fit octetsToNextHeader's 16 bits.
    pub fn write(&self, out: &mut Vec<u8>, endian: Endian) -> Result<(), EncodeError> {
        match self {
            Submessage::Pad(s) => write_one(s, out, endian),
            Submessage::AckNack(s) => write_one(s, out, endian),
            Submessage::Heartbeat(s) => write_one(s, out, endian),
            Submessage::Gap(s) => write_one(s, out, endian),
            Submessage::InfoTs(s) => write_one(s, out, endian),
            Submessage::InfoSrc(s) => write_one(s, out, endian),
            Submessage::InfoDst(s) => write_one(s, out, endian),
            Submessage::InfoReply(s) => write_one(s, out, endian),
            Submessage::NackFrag(s) => write_one(s, out, endian),
            Submessage::HeartbeatFrag(s) => write_one(s, out, endian),
            Submessage::Data(s) => write_one(s, out, endian),
            Submessage::DataFrag(s) => write_one(s, out, endian),
            Submessage::Unknown { id, flags, body } => {
                let e = Endian::from_e_flag(*flags);
                let len =
                    u16::try_from(body.len()).map_err(|_| EncodeError::new("submessage body over 65535 bytes"))?;
                out.extend_from_slice(&[*id, *flags]);
                out.extend_from_slice(&match e {
                    Endian::Little => len.to_le_bytes(),
                    Endian::Big => len.to_be_bytes(),
                });
                out.extend_from_slice(body);
                Ok(())
            }
        }
    }
}

fn write_one<'a, T: Body<'a>>(s: &T, out: &mut Vec<u8>, endian: Endian) -> Result<(), EncodeError> {
    let start = out.len();
    out.extend_from_slice(&[T::ID, s.flags() | endian.e_flag(), 0, 0]);
    let mut w = CdrWriter::new(&mut *out, endian);
    let res = s.write_body(&mut w);
    let len = out.len() - start - SubmessageHeader::SIZE;
    let len = match (res, u16::try_from(len)) {
        (Ok(()), Ok(len)) => len,
        (Err(e), _) => {
            out.truncate(start);
            return Err(e);
        }
        (_, Err(_)) => {
            out.truncate(start);
            return Err(EncodeError::new("submessage body over 65535 bytes: fragment the sample"));
        }
    };
    out[start + 2..start + 4].copy_from_slice(&match endian {
        Endian::Little => len.to_le_bytes(),
        Endian::Big => len.to_be_bytes(),
    });
    Ok(())
}

/// Reads a reader id and a writer id, the first 8 bytes of most bodies.
pub(crate) fn read_ids(r: &mut CdrReader<'_>) -> Result<(super::EntityId, super::EntityId), DecodeError> {
    Ok((super::EntityId(r.read_array()?), super::EntityId(r.read_array()?)))
}

/// The fields DATA and DATA_FRAG both start with: extraFlags, octetsToInlineQos, readerId,
/// writerId, writerSN.
pub(crate) struct DataPrefix {
    pub extra_flags: u16,
    pub octets_to_inline_qos: u16,
    pub reader_id: super::EntityId,
    pub writer_id: super::EntityId,
    pub writer_sn: SequenceNumber,
}

/// What each kind calls the two ways its prefix can be invalid (reasons are static strings).
pub(crate) struct DataPrefixRules {
    /// octetsToInlineQos may not be below the size of the fields this spec version defines.
    pub min_octets_to_inline_qos: u16,
    pub octets_below_min: &'static str,
    pub sn_not_positive: &'static str,
}

impl DataPrefix {
    pub(crate) fn read(r: &mut CdrReader<'_>, rules: &DataPrefixRules) -> Result<DataPrefix, DecodeError> {
        let extra_flags = r.read_u16()?;
        let at = r.position();
        let octets_to_inline_qos = r.read_u16()?;
        if octets_to_inline_qos < rules.min_octets_to_inline_qos {
            return Err(DecodeError::new(rules.octets_below_min, at));
        }
        let (reader_id, writer_id) = read_ids(r)?;
        let sn_at = r.position();
        let writer_sn = SequenceNumber::read(r)?;
        if writer_sn.0 <= 0 {
            return Err(DecodeError::new(rules.sn_not_positive, sn_at));
        }
        Ok(DataPrefix { extra_flags, octets_to_inline_qos, reader_id, writer_id, writer_sn })
    }

    pub(crate) fn write(&self, w: &mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError> {
        w.write_u16(self.extra_flags)?;
        w.write_u16(self.octets_to_inline_qos)?;
        w.write_bytes(&self.reader_id.0)?;
        w.write_bytes(&self.writer_id.0)?;
        self.writer_sn.write(w)
    }
}
