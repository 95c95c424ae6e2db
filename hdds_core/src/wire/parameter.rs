//! Parameter lists (RTPS 2.5 section 9.4.2.11): SPDP/SEDP data and the inline QoS of DATA and
//! DATA_FRAG. Each parameter is a u16 id, a u16 length (a multiple of 4) and the value; PID_PAD
//! entries are padding and PID_SENTINEL ends the list.
//!
//! Parsing walks the list once to validate every header and find its end (the payload of a DATA
//! starts right after the inline QoS sentinel), then hands out an infallible iterator of borrowed
//! `(pid, value)` pairs. Unknown ids are simply yielded for the caller to skip. Vendor-specific ids
//! (>= 0x8000) come with the sender's vendor id, and [`ParameterList::vendor_param`] returns one
//! only for the vendor whose meaning the caller knows.

use super::guid::Guid;
use super::header::ProtocolVersion;
use super::locator::Locator;
use super::pid::{self, ParameterId, PID_PAD, PID_SENTINEL};
use super::sequence_number::SequenceNumber;
use super::time::Duration;
use super::vendor::VendorId;
use crate::cdr::{CdrReader, CdrWriter, DecodeError, Encapsulation, EncapsulationKind, EncodeError, Endian};

/// One parameter: id and borrowed value (its length is the header's length, padding included).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Parameter<'a> {
    pub pid: ParameterId,
    pub value: &'a [u8],
    pub endian: Endian,
    /// Vendor of the participant that sent the list; what a vendor-specific id means depends on it.
    pub vendor: VendorId,
}

impl<'a> Parameter<'a> {
    /// A CDR reader over the value, origin at its first byte.
    pub fn reader(&self) -> CdrReader<'a> {
        CdrReader::new(self.value, self.endian)
    }

    pub fn is_vendor_specific(&self) -> bool {
        pid::is_vendor_specific(self.pid)
    }

    pub fn as_u32(&self) -> Result<u32, DecodeError> {
        self.reader().read_u32()
    }

    pub fn as_i32(&self) -> Result<i32, DecodeError> {
        self.reader().read_i32()
    }

    /// A boolean (one octet 0/1, then padding), e.g. PID_EXPECTS_INLINE_QOS.
    pub fn as_bool(&self) -> Result<bool, DecodeError> {
        self.reader().read_bool()
    }

    /// A CDR string (topic and type names, entity names).
    pub fn as_str(&self) -> Result<&'a str, DecodeError> {
        self.reader().read_str()
    }

    /// A sequence of octets (USER_DATA, TOPIC_DATA, GROUP_DATA), borrowed.
    pub fn as_bytes_sequence(&self) -> Result<&'a [u8], DecodeError> {
        self.reader().read_byte_sequence()
    }

    pub fn as_guid(&self) -> Result<Guid, DecodeError> {
        Ok(Guid::from_bytes(&self.reader().read_array::<16>()?))
    }

    pub fn as_locator(&self) -> Result<Locator, DecodeError> {
        Locator::read(&mut self.reader())
    }

    pub fn as_duration(&self) -> Result<Duration, DecodeError> {
        Duration::read(&mut self.reader())
    }

    pub fn as_protocol_version(&self) -> Result<ProtocolVersion, DecodeError> {
        let [major, minor] = self.reader().read_array::<2>()?;
        Ok(ProtocolVersion { major, minor })
    }

    pub fn as_vendor_id(&self) -> Result<VendorId, DecodeError> {
        self.reader().read_array::<2>()
    }

    /// PID_DATA_REPRESENTATION: a sequence of representation ids (see `pid::XCDR_DATA_REPRESENTATION`).
    /// The vector is bounded by the value's length.
    pub fn as_data_representation(&self) -> Result<Vec<i16>, DecodeError> {
        self.reader().read_sequence::<i16>()
    }

    /// A SampleIdentity (writer GUID, then sequence number as high/low): RELATED_SAMPLE_IDENTITY.
    pub fn as_sample_identity(&self) -> Result<(Guid, SequenceNumber), DecodeError> {
        let mut r = self.reader();
        let guid = Guid::from_bytes(&r.read_array::<16>()?);
        Ok((guid, SequenceNumber::read(&mut r)?))
    }
}

/// A validated parameter list (without its sentinel), borrowed from the message.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParameterList<'a> {
    bytes: &'a [u8],
    endian: Endian,
    vendor: VendorId,
}

impl<'a> ParameterList<'a> {
    /// The list a [`ParameterListWriter`] wrote into `bytes`, not finished (no sentinel): taken as
    /// it is, without the walk [`ParameterList::parse`] makes, since the writer only writes whole
    /// parameters (the inline QoS of every DATA we send).
    pub(crate) fn written(bytes: &'a [u8], endian: Endian, vendor: VendorId) -> Self {
        ParameterList { bytes, endian, vendor }
    }

    /// Parses a list that must end with PID_SENTINEL (inline QoS: the payload follows it). Returns
    /// the list and the number of bytes it occupies, sentinel included.
    pub fn parse(buf: &'a [u8], endian: Endian, vendor: VendorId) -> Result<(Self, usize), DecodeError> {
        Self::walk(buf, endian, vendor, true)
    }

    /// Parses a list that fills `buf`, where the sentinel may be missing at the very end (tolerated
    /// for discovery payloads: the data's end is unambiguous).
    pub fn parse_to_end(buf: &'a [u8], endian: Endian, vendor: VendorId) -> Result<Self, DecodeError> {
        Self::walk(buf, endian, vendor, false).map(|(l, _)| l)
    }

    /// Parses a serialized payload holding a parameter list (SPDP/SEDP data): the encapsulation
    /// must be PL_CDR_BE/LE (or PL_CDR2), whose byte order the list then uses.
    pub fn parse_payload(payload: &'a [u8], vendor: VendorId) -> Result<Self, DecodeError> {
        let (enc, body) = Encapsulation::parse(payload)?;
        if !enc.kind.is_parameter_list() {
            return Err(DecodeError::new("payload is not a parameter list (encapsulation is not PL_CDR)", 0));
        }
        Self::parse_to_end(body, enc.kind.endian(), vendor).map_err(|e| e.shifted(Encapsulation::SIZE))
    }

    fn walk(
        buf: &'a [u8],
        endian: Endian,
        vendor: VendorId,
        need_sentinel: bool,
    ) -> Result<(Self, usize), DecodeError> {
        let mut pos = 0usize;
        loop {
            let Some(head) = buf.get(pos..pos + 4) else {
                if !need_sentinel && pos == buf.len() {
                    return Ok((ParameterList { bytes: buf, endian, vendor }, pos));
                }
                return Err(DecodeError::new("parameter list ends without PID_SENTINEL", pos));
            };
            let (pid, len) = header(head, endian);
            if pid == PID_SENTINEL {
                // The sentinel's length field is ignored (RTPS 2.5 9.4.2.11).
                return Ok((ParameterList { bytes: &buf[..pos], endian, vendor }, pos + 4));
            }
            // Cyclone rejects the same; a length that is not a multiple of 4 means we lost step.
            if len % 4 != 0 {
                return Err(DecodeError::new("parameter length is not a multiple of 4", pos + 2));
            }
            if len > buf.len() - pos - 4 {
                return Err(DecodeError::new("parameter value runs past the end of the list", pos + 2));
            }
            pos += 4 + len;
        }
    }

    /// An empty list.
    pub fn empty(endian: Endian, vendor: VendorId) -> Self {
        ParameterList { bytes: &[], endian, vendor }
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    pub fn vendor(&self) -> VendorId {
        self.vendor
    }

    /// The list's raw bytes, without the sentinel.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Every parameter except padding, in order.
    pub fn iter(&self) -> ParameterIter<'a> {
        ParameterIter { bytes: self.bytes, pos: 0, endian: self.endian, vendor: self.vendor }
    }

    /// The first parameter with this (standard) id. Vendor-specific ids are not returned here, as
    /// their meaning depends on the vendor: use [`Self::vendor_param`].
    pub fn find(&self, pid: ParameterId) -> Option<Parameter<'a>> {
        if pid::is_vendor_specific(pid) {
            return None;
        }
        self.iter().find(|p| p.pid == pid)
    }

    /// Every parameter with this id (locators come one per parameter).
    pub fn find_all(&self, pid: ParameterId) -> impl Iterator<Item = Parameter<'a>> {
        self.iter().filter(move |p| p.pid == pid)
    }

    /// A vendor-specific parameter, only if the list came from `vendor`.
    pub fn vendor_param(&self, vendor: VendorId, pid: ParameterId) -> Option<Parameter<'a>> {
        if self.vendor != vendor {
            return None;
        }
        self.iter().find(|p| p.pid == pid)
    }
}

fn header(head: &[u8], endian: Endian) -> (ParameterId, usize) {
    let (p, l) = ([head[0], head[1]], [head[2], head[3]]);
    match endian {
        Endian::Little => (u16::from_le_bytes(p), u16::from_le_bytes(l) as usize),
        Endian::Big => (u16::from_be_bytes(p), u16::from_be_bytes(l) as usize),
    }
}

impl<'a> IntoIterator for ParameterList<'a> {
    type Item = Parameter<'a>;
    type IntoIter = ParameterIter<'a>;
    fn into_iter(self) -> ParameterIter<'a> {
        self.iter()
    }
}

/// Iterator over a validated list. It re-checks bounds anyway (cheap) so it cannot panic even if a
/// list were constructed some other way.
#[derive(Clone, Debug)]
pub struct ParameterIter<'a> {
    bytes: &'a [u8],
    pos: usize,
    endian: Endian,
    vendor: VendorId,
}

impl<'a> Iterator for ParameterIter<'a> {
    type Item = Parameter<'a>;
    fn next(&mut self) -> Option<Parameter<'a>> {
        loop {
            let head = self.bytes.get(self.pos..self.pos + 4)?;
            let (pid, len) = header(head, self.endian);
            let value = self.bytes.get(self.pos + 4..self.pos + 4 + len)?;
            self.pos += 4 + len;
            if pid != PID_PAD {
                return Some(Parameter { pid, value, endian: self.endian, vendor: self.vendor });
            }
        }
    }
}

/// Encodes a parameter list into a `Vec<u8>`; values are padded to 4 bytes, [`Self::finish`] adds
/// the sentinel.
#[derive(Debug)]
pub struct ParameterListWriter<'v> {
    out: &'v mut Vec<u8>,
    endian: Endian,
}

impl<'v> ParameterListWriter<'v> {
    /// A list appended to `out` (inline QoS: in the submessage's byte order).
    pub fn new(out: &'v mut Vec<u8>, endian: Endian) -> Self {
        ParameterListWriter { out, endian }
    }

    /// A discovery payload: PL_CDR encapsulation header in `endian`, then the list.
    pub fn payload(out: &'v mut Vec<u8>, endian: Endian) -> Self {
        out.extend_from_slice(&Encapsulation::new(EncapsulationKind::parameter_list(endian)).to_bytes());
        ParameterListWriter { out, endian }
    }

    fn put_header(&mut self, pid: ParameterId, len: u16) {
        let (p, l) = match self.endian {
            Endian::Little => (pid.to_le_bytes(), len.to_le_bytes()),
            Endian::Big => (pid.to_be_bytes(), len.to_be_bytes()),
        };
        self.out.extend_from_slice(&p);
        self.out.extend_from_slice(&l);
    }

    /// A parameter with a raw value (padded with zeros to a multiple of 4).
    pub fn put(&mut self, pid: ParameterId, value: &[u8]) -> Result<(), EncodeError> {
        let padded = value.len().div_ceil(4) * 4;
        let len = u16::try_from(padded).map_err(|_| EncodeError::new("parameter value longer than 65532 bytes"))?;
        self.put_header(pid, len);
        self.out.extend_from_slice(value);
        self.out.resize(self.out.len() + padded - value.len(), 0);
        Ok(())
    }

    /// A parameter whose value `f` writes as CDR (alignment origin at the value's start).
    pub fn put_with(
        &mut self,
        pid: ParameterId,
        f: impl FnOnce(&mut CdrWriter<&mut Vec<u8>>) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        let start = self.out.len();
        self.put_header(pid, 0);
        let mut w = CdrWriter::new(&mut *self.out, self.endian);
        f(&mut w)?;
        w.align(4)?;
        let len = self.out.len() - start - 4;
        let Ok(len) = u16::try_from(len) else {
            self.out.truncate(start);
            return Err(EncodeError::new("parameter value longer than 65532 bytes"));
        };
        let l = match self.endian {
            Endian::Little => len.to_le_bytes(),
            Endian::Big => len.to_be_bytes(),
        };
        self.out[start + 2..start + 4].copy_from_slice(&l);
        Ok(())
    }

    pub fn put_u32(&mut self, pid: ParameterId, v: u32) -> Result<(), EncodeError> {
        self.put_with(pid, |w| w.write_u32(v))
    }

    pub fn put_i32(&mut self, pid: ParameterId, v: i32) -> Result<(), EncodeError> {
        self.put_with(pid, |w| w.write_i32(v))
    }

    pub fn put_bool(&mut self, pid: ParameterId, v: bool) -> Result<(), EncodeError> {
        self.put_with(pid, |w| w.write_bool(v))
    }

    pub fn put_str(&mut self, pid: ParameterId, s: &str) -> Result<(), EncodeError> {
        self.put_with(pid, |w| w.write_string(s))
    }

    pub fn put_bytes_sequence(&mut self, pid: ParameterId, b: &[u8]) -> Result<(), EncodeError> {
        self.put_with(pid, |w| w.write_byte_sequence(b))
    }

    pub fn put_guid(&mut self, pid: ParameterId, g: &Guid) -> Result<(), EncodeError> {
        self.put(pid, &g.to_bytes())
    }

    pub fn put_locator(&mut self, pid: ParameterId, l: &Locator) -> Result<(), EncodeError> {
        self.put_with(pid, |w| l.write(w))
    }

    pub fn put_duration(&mut self, pid: ParameterId, d: Duration) -> Result<(), EncodeError> {
        self.put_with(pid, |w| d.write(w))
    }

    pub fn put_protocol_version(&mut self, v: ProtocolVersion) -> Result<(), EncodeError> {
        self.put(pid::PID_PROTOCOL_VERSION, &[v.major, v.minor])
    }

    pub fn put_vendor_id(&mut self, v: VendorId) -> Result<(), EncodeError> {
        self.put(pid::PID_VENDORID, &v)
    }

    pub fn put_sample_identity(&mut self, pid: ParameterId, g: &Guid, sn: SequenceNumber) -> Result<(), EncodeError> {
        self.put_with(pid, |w| {
            w.write_bytes(&g.to_bytes())?;
            sn.write(w)
        })
    }

    /// Ends the list with PID_SENTINEL (length 0).
    pub fn finish(mut self) {
        self.put_header(PID_SENTINEL, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::pid::*;
    use crate::wire::vendor::{VENDOR_ID_CYCLONE, VENDOR_ID_FASTDDS};
    use crate::wire::{EntityId, GuidPrefix};

    fn sample(endian: Endian) -> Vec<u8> {
        let mut v = Vec::new();
        let mut w = ParameterListWriter::new(&mut v, endian);
        w.put_str(PID_TOPIC_NAME, "rt/chatter").unwrap();
        w.put(PID_PAD, &[0; 4]).unwrap();
        w.put_u32(PID_DOMAIN_ID, 0).unwrap();
        w.put_bool(PID_EXPECTS_INLINE_QOS, true).unwrap();
        w.put_locator(PID_DEFAULT_UNICAST_LOCATOR, &Locator::udpv4([127, 0, 0, 1].into(), 7411)).unwrap();
        w.put(0x7777, &[1, 2, 3]).unwrap(); // unknown id: kept, skippable
        let g = Guid::new(GuidPrefix([1; 12]), EntityId([0, 0, 1, 3]));
        w.put_sample_identity(fastdds::PID_CUSTOM_RELATED_SAMPLE_IDENTITY, &g, SequenceNumber(5)).unwrap();
        w.finish();
        v
    }

    #[test]
    fn round_trip_both_endians() {
        for endian in [Endian::Little, Endian::Big] {
            let v = sample(endian);
            let (l, used) = ParameterList::parse(&v, endian, VENDOR_ID_FASTDDS).unwrap();
            assert_eq!(used, v.len());
            let pids: Vec<_> = l.iter().map(|p| p.pid).collect();
            assert_eq!(
                pids,
                [PID_TOPIC_NAME, PID_DOMAIN_ID, PID_EXPECTS_INLINE_QOS, PID_DEFAULT_UNICAST_LOCATOR, 0x7777, 0x800f]
            );
            assert_eq!(l.find(PID_TOPIC_NAME).unwrap().as_str().unwrap(), "rt/chatter");
            assert!(l.find(PID_EXPECTS_INLINE_QOS).unwrap().as_bool().unwrap());
            assert_eq!(l.find(PID_DEFAULT_UNICAST_LOCATOR).unwrap().as_locator().unwrap().port, 7411);
            assert_eq!(l.find(0x7777).unwrap().value, &[1, 2, 3, 0]);
            // Vendor-specific: only for the right vendor, never through find().
            assert!(l.find(0x800f).is_none());
            let (g, sn) = l.vendor_param(VENDOR_ID_FASTDDS, 0x800f).unwrap().as_sample_identity().unwrap();
            assert_eq!((g.entity_id, sn), (EntityId([0, 0, 1, 3]), SequenceNumber(5)));
            let as_cyclone = ParameterList::parse(&v, endian, VENDOR_ID_CYCLONE).unwrap().0;
            assert!(as_cyclone.vendor_param(VENDOR_ID_FASTDDS, 0x800f).is_none());
        }
    }

    #[test]
    fn rejects_malformed_lists() {
        let v = sample(Endian::Little);
        assert!(ParameterList::parse(&v[..v.len() - 4], Endian::Little, [0, 0]).is_err(), "no sentinel");
        assert!(ParameterList::parse_to_end(&v[..v.len() - 4], Endian::Little, [0, 0]).is_ok());
        assert!(ParameterList::parse(&v[..10], Endian::Little, [0, 0]).is_err(), "value cut");
        let mut odd = v.clone();
        odd[2] = 5; // first length not a multiple of 4
        assert_eq!(ParameterList::parse(&odd, Endian::Little, [0, 0]).unwrap_err().offset, 2);
        // Read with the wrong byte order: garbage lengths, caught, no panic.
        let _ = ParameterList::parse(&v, Endian::Big, [0, 0]);
    }

    #[test]
    fn payload_needs_pl_cdr() {
        let mut v = Vec::new();
        let mut w = ParameterListWriter::payload(&mut v, Endian::Big);
        w.put_u32(PID_BUILTIN_ENDPOINT_SET, 0x3f).unwrap();
        w.finish();
        assert_eq!(&v[..4], &[0, 2, 0, 0]);
        let l = ParameterList::parse_payload(&v, [0, 0]).unwrap();
        assert_eq!(l.find(PID_BUILTIN_ENDPOINT_SET).unwrap().as_u32().unwrap(), 0x3f);
        v[1] = 1;
        assert!(ParameterList::parse_payload(&v, [0, 0]).is_err());
    }
}
