//! Test support for the discovery golden tests: loads the captured datagrams under
//! `tests/data/discovery/` and walks them just far enough to find their DATA submessages (wire's
//! message parser is not on this branch yet). Included by the other `discovery_*` tests as a
//! module (its own tests are in `discovery_golden.rs` and `discovery_robustness.rs`, so that they
//! do not run once per including test).
//!
//! RTPS walk: 20-byte header, then submessages (id u8, flags u8, octetsToNextHeader u16 in the
//! flags' byte order; 0 means "to the end of the message"). DATA (0x15): extraFlags u16,
//! octetsToInlineQos u16, readerId, writerId, writerSN (high i32, low u32), inline QoS from
//! octetsToInlineQos if flag Q (0x02), then the serialized payload if flag D (0x04) or K (0x08).

#![allow(dead_code)]

use hdds_core::cdr::Endian;
use hdds_core::discovery::SerializedPayload;
use hdds_core::wire::{EntityId, Header, ParameterList};

pub const SUBMSG_PAD: u8 = 0x01;
pub const SUBMSG_INFO_TS: u8 = 0x09;
pub const SUBMSG_DATA: u8 = 0x15;
pub const FLAG_Q: u8 = 0x02;
pub const FLAG_D: u8 = 0x04;
pub const FLAG_K: u8 = 0x08;

/// One DATA submessage, borrowed from the datagram.
#[derive(Debug, Clone, Copy)]
pub struct Data<'a> {
    pub flags: u8,
    pub endian: Endian,
    pub reader_id: EntityId,
    pub writer_id: EntityId,
    pub sn: i64,
    pub inline_qos: Option<ParameterList<'a>>,
    pub payload: SerializedPayload<'a>,
}

impl<'a> Data<'a> {
    /// The payload bytes, whether data or key.
    pub fn bytes(&self) -> Option<&'a [u8]> {
        match self.payload {
            SerializedPayload::Data(b) | SerializedPayload::Key(b) => Some(b),
            SerializedPayload::None => None,
        }
    }
}

/// A parsed datagram: its header and its DATA submessages, in order.
#[derive(Debug, Clone)]
pub struct Datagram<'a> {
    pub header: Header,
    pub data: Vec<Data<'a>>,
}

fn u16_at(b: &[u8], at: usize, e: Endian) -> Option<u16> {
    let x: [u8; 2] = b.get(at..at + 2)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u16::from_le_bytes(x),
        Endian::Big => u16::from_be_bytes(x),
    })
}

fn u32_at(b: &[u8], at: usize, e: Endian) -> Option<u32> {
    let x: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u32::from_le_bytes(x),
        Endian::Big => u32::from_be_bytes(x),
    })
}

fn entity(b: &[u8], at: usize) -> Option<EntityId> {
    Some(EntityId(b.get(at..at + 4)?.try_into().ok()?))
}

/// Walks a datagram. Never panics; a malformed datagram is an `Err` with a reason.
pub fn walk(buf: &[u8]) -> Result<Datagram<'_>, String> {
    let header = Header::parse(buf).map_err(|e| e.to_string())?;
    let mut data = Vec::new();
    let mut pos = Header::SIZE;
    while pos < buf.len() {
        let (id, flags) = (buf[pos], *buf.get(pos + 1).ok_or("submessage header cut")?);
        let endian = Endian::from_e_flag(flags);
        let len = u16_at(buf, pos + 2, endian).ok_or("submessage header cut")? as usize;
        let start = pos + 4;
        let end = if len == 0 && id != SUBMSG_PAD && id != SUBMSG_INFO_TS { buf.len() } else { start + len };
        let body =
            buf.get(start..end).ok_or_else(|| format!("submessage {id:#04x} at {pos} runs past the datagram"))?;
        if id == SUBMSG_DATA {
            data.push(parse_data(body, flags, header.vendor_id).ok_or_else(|| format!("malformed DATA at {pos}"))?);
        }
        pos = end;
    }
    Ok(Datagram { header, data })
}

fn parse_data(body: &[u8], flags: u8, vendor: [u8; 2]) -> Option<Data<'_>> {
    let endian = Endian::from_e_flag(flags);
    let to_qos = u16_at(body, 2, endian)? as usize;
    let reader_id = entity(body, 4)?;
    let writer_id = entity(body, 8)?;
    let sn = ((u32_at(body, 12, endian)? as i32 as i64) << 32) | u32_at(body, 16, endian)? as i64;
    let mut at = 4 + to_qos;
    let inline_qos = if flags & FLAG_Q != 0 {
        let (l, used) = ParameterList::parse(body.get(at..)?, endian, vendor).ok()?;
        at += used;
        Some(l)
    } else {
        None
    };
    let rest = body.get(at..)?;
    let payload = if flags & FLAG_D != 0 {
        SerializedPayload::Data(rest)
    } else if flags & FLAG_K != 0 {
        SerializedPayload::Key(rest)
    } else {
        SerializedPayload::None
    };
    Some(Data { flags, endian, reader_id, writer_id, sn, inline_qos, payload })
}

/// The bytes of a golden vector.
pub fn golden(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/discovery/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read golden vector {path}: {e}"))
}

/// Every golden vector's file name.
pub fn all_golden() -> Vec<String> {
    let dir = format!("{}/tests/data/discovery", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".rtps"))
        .collect();
    v.sort();
    v
}

/// A small deterministic PRNG (xorshift64*) so that the robustness tests need no dependency and
/// fail the same way every time.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}
