//! The inline QoS of SPDP/SEDP DATA (key hash, status info), the key-only payloads of disposals,
//! and [`decode_change`], which turns one built-in DATA into "alive with this data" or "this GUID
//! is gone".
//!
//! The vendors dispose differently, and both forms must be understood:
//! - Cyclone 0.10: flags K (serialized key), inline QoS with only STATUS_INFO = 3, and a PL_CDR
//!   payload holding just PID_PARTICIPANT_GUID (SPDP) or PID_ENDPOINT_GUID (SEDP).
//! - Fast DDS 2.9: no payload, inline QoS with PID_KEY_HASH (the GUID) and STATUS_INFO = 3 (plus
//!   its RELATED_SAMPLE_IDENTITY 0x800f on SPDP).
//!
//! To be understood by both when we dispose, send KEY_HASH + STATUS_INFO inline *and* the
//! serialized key with the K flag ([`encode_dispose_inline_qos`], [`encode_key_payload`]): Cyclone
//! in strict mode ignores key hashes, and Fast DDS takes the key hash when it is there.

use crate::cdr::{DecodeError, EncodeError, Endian};
use crate::wire::parameter::{ParameterList, ParameterListWriter};
use crate::wire::pid::{self, PID_ENDPOINT_GUID, PID_KEY_HASH, PID_PARTICIPANT_GUID, PID_STATUS_INFO};
use crate::wire::{Guid, Header, VendorId};

/// STATUS_INFO flags (RTPS 2.5 9.6.3.9): four octets, flags in the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct StatusInfo(pub u32);

impl StatusInfo {
    pub const ALIVE: StatusInfo = StatusInfo(0);
    pub const DISPOSED: StatusInfo = StatusInfo(pid::STATUS_INFO_DISPOSED);
    pub const UNREGISTERED: StatusInfo = StatusInfo(pid::STATUS_INFO_UNREGISTERED);
    pub const DISPOSED_UNREGISTERED: StatusInfo = StatusInfo(pid::STATUS_INFO_DISPOSED | pid::STATUS_INFO_UNREGISTERED);

    pub const fn disposed(self) -> bool {
        self.0 & pid::STATUS_INFO_DISPOSED != 0
    }
    pub const fn unregistered(self) -> bool {
        self.0 & pid::STATUS_INFO_UNREGISTERED != 0
    }
    pub const fn filtered(self) -> bool {
        self.0 & pid::STATUS_INFO_FILTERED != 0
    }
    /// Neither disposed nor unregistered: for built-in topics, the entity is alive.
    pub const fn is_alive(self) -> bool {
        !self.disposed() && !self.unregistered()
    }
    /// The four octets as they go on the wire (an octet array: no byte order applies).
    pub const fn to_bytes(self) -> [u8; 4] {
        self.0.to_be_bytes()
    }
}

/// What the inline QoS of a built-in DATA tells discovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InlineQos {
    /// PID_KEY_HASH: for SPDP/SEDP it is the 16 GUID bytes.
    pub key_hash: Option<[u8; 16]>,
    /// PID_STATUS_INFO ([`StatusInfo::ALIVE`] when absent).
    pub status_info: StatusInfo,
}

impl InlineQos {
    /// Extracts key hash and status info; other parameters are skipped. A key hash shorter than 16
    /// bytes or a status info shorter than 4 is an error (both vendors reject the same).
    pub fn parse(list: &ParameterList<'_>) -> Result<InlineQos, DecodeError> {
        let mut out = InlineQos::default();
        for p in list.iter() {
            match p.pid {
                PID_KEY_HASH => {
                    let b: [u8; 16] =
                        p.reader().read_array().map_err(|_| short(list, &p, "PID_KEY_HASH shorter than 16 bytes"))?;
                    out.key_hash = Some(b);
                }
                PID_STATUS_INFO => {
                    let b: [u8; 4] =
                        p.reader().read_array().map_err(|_| short(list, &p, "PID_STATUS_INFO shorter than 4 bytes"))?;
                    out.status_info = StatusInfo(u32::from_be_bytes(b));
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The key hash as a GUID.
    pub fn key_guid(&self) -> Option<Guid> {
        self.key_hash.as_ref().map(Guid::from_bytes)
    }
}

fn short(list: &ParameterList<'_>, p: &crate::wire::Parameter<'_>, why: &'static str) -> DecodeError {
    DecodeError::new(why, (p.value.as_ptr() as usize).saturating_sub(list.as_bytes().as_ptr() as usize))
}

/// Writes an inline QoS list (sentinel included) for a built-in DATA about `guid`: PID_KEY_HASH and,
/// unless alive, PID_STATUS_INFO. `endian` must be the DATA submessage's.
pub fn encode_dispose_inline_qos(
    out: &mut Vec<u8>,
    endian: Endian,
    guid: &Guid,
    status: StatusInfo,
) -> Result<(), EncodeError> {
    let mut w = ParameterListWriter::new(out, endian);
    w.put(PID_KEY_HASH, &guid.to_bytes())?;
    if status != StatusInfo::ALIVE {
        w.put(PID_STATUS_INFO, &status.to_bytes())?;
    }
    w.finish();
    Ok(())
}

/// The three built-in discovery topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinTopic {
    /// SPDP: DCPSParticipant, keyed by PID_PARTICIPANT_GUID.
    Participant,
    /// SEDP publications: DCPSPublication, keyed by PID_ENDPOINT_GUID.
    Publication,
    /// SEDP subscriptions: DCPSSubscription, keyed by PID_ENDPOINT_GUID.
    Subscription,
}

/// The serialized key of a built-in sample (sent with the K flag on a disposal): PL_CDR_LE with the
/// GUID parameter and the sentinel.
pub fn encode_key_payload(topic: BuiltinTopic, guid: &Guid) -> Vec<u8> {
    let mut out = Vec::with_capacity(28);
    let mut w = ParameterListWriter::payload(&mut out, Endian::Little);
    let pid = match topic {
        BuiltinTopic::Participant => PID_PARTICIPANT_GUID,
        BuiltinTopic::Publication | BuiltinTopic::Subscription => PID_ENDPOINT_GUID,
    };
    // A 16-byte value cannot exceed the parameter length limit.
    let _ = w.put_guid(pid, guid);
    w.finish();
    out
}

/// The GUID a built-in key (or full data) payload names: PID_PARTICIPANT_GUID, PID_ENDPOINT_GUID,
/// or failing both PID_KEY_HASH (Fast DDS puts one in its SEDP data).
pub fn decode_key(payload: &[u8], vendor: VendorId) -> Result<Guid, DecodeError> {
    let list = ParameterList::parse_payload(payload, vendor)?;
    for pid in [PID_PARTICIPANT_GUID, PID_ENDPOINT_GUID, PID_KEY_HASH] {
        if let Some(p) = list.find(pid) {
            return p.as_guid().map_err(|_| short(&list, &p, "key GUID shorter than 16 bytes"));
        }
    }
    Err(DecodeError::new("built-in key payload holds no PARTICIPANT_GUID, ENDPOINT_GUID or KEY_HASH", 0))
}

/// The serialized payload of a DATA, by its flags: D (data), K (key only) or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SerializedPayload<'a> {
    None,
    Data(&'a [u8]),
    Key(&'a [u8]),
}

/// What one built-in DATA means.
#[derive(Debug, Clone, PartialEq)]
pub enum Change<T> {
    /// New or updated data.
    Alive(T),
    /// The entity with this GUID is gone (disposed and/or unregistered).
    NotAlive { guid: Guid, status: StatusInfo },
}

/// Built-in topic data that [`decode_change`] can decode.
pub trait BuiltinData: Sized {
    /// Decodes a full (D flag) payload; `header` is the RTPS header of the message it came in.
    fn decode(payload: &[u8], header: &Header) -> Result<Self, DecodeError>;
}

/// Interprets one DATA of a built-in writer: a disposal (by key hash, else by the key or data
/// payload) or an alive sample.
pub fn decode_change<T: BuiltinData>(
    inline_qos: Option<&ParameterList<'_>>,
    payload: SerializedPayload<'_>,
    header: &Header,
) -> Result<Change<T>, DecodeError> {
    let iq = match inline_qos {
        Some(l) => InlineQos::parse(l)?,
        None => InlineQos::default(),
    };
    if !iq.status_info.is_alive() {
        let guid = match (iq.key_guid(), payload) {
            (Some(g), _) => g,
            (None, SerializedPayload::Key(b) | SerializedPayload::Data(b)) => decode_key(b, header.vendor_id)?,
            (None, SerializedPayload::None) => {
                return Err(DecodeError::new("built-in disposal carries neither a key hash nor a key", 0))
            }
        };
        return Ok(Change::NotAlive { guid, status: iq.status_info });
    }
    match payload {
        SerializedPayload::Data(b) => Ok(Change::Alive(T::decode(b, header)?)),
        SerializedPayload::Key(_) => {
            Err(DecodeError::new("built-in DATA has only a key but no dispose/unregister status", 0))
        }
        SerializedPayload::None => {
            Err(DecodeError::new("built-in DATA has no payload and no dispose/unregister status", 0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{EntityId, GuidPrefix};

    fn guid() -> Guid {
        Guid::new(GuidPrefix([1, 0xf0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), EntityId([0, 0, 0x12, 0x03]))
    }

    #[test]
    fn status_info_flags() {
        assert!(StatusInfo::ALIVE.is_alive());
        assert!(!StatusInfo::DISPOSED.is_alive() && StatusInfo::DISPOSED.disposed());
        assert!(!StatusInfo::UNREGISTERED.is_alive() && StatusInfo::UNREGISTERED.unregistered());
        assert!(StatusInfo(4).filtered() && StatusInfo(4).is_alive());
        assert_eq!(StatusInfo::DISPOSED_UNREGISTERED.to_bytes(), [0, 0, 0, 3]);
    }

    #[test]
    fn inline_qos_round_trip_both_endians() {
        for endian in [Endian::Little, Endian::Big] {
            let mut v = Vec::new();
            encode_dispose_inline_qos(&mut v, endian, &guid(), StatusInfo::DISPOSED_UNREGISTERED).unwrap();
            let (l, used) = ParameterList::parse(&v, endian, [0, 0]).unwrap();
            assert_eq!(used, v.len());
            let iq = InlineQos::parse(&l).unwrap();
            assert_eq!(iq.key_guid(), Some(guid()));
            assert_eq!(iq.status_info, StatusInfo::DISPOSED_UNREGISTERED);
        }
        let mut v = Vec::new();
        encode_dispose_inline_qos(&mut v, Endian::Little, &guid(), StatusInfo::ALIVE).unwrap();
        assert_eq!(v.len(), 4 + 16 + 4, "no STATUS_INFO when alive");
    }

    #[test]
    fn short_values_are_errors() {
        let mut v = Vec::new();
        let mut w = ParameterListWriter::new(&mut v, Endian::Little);
        w.put(PID_KEY_HASH, &[1; 8]).unwrap();
        w.finish();
        let (l, _) = ParameterList::parse(&v, Endian::Little, [0, 0]).unwrap();
        assert!(InlineQos::parse(&l).is_err());
    }

    #[test]
    fn key_payloads() {
        for topic in [BuiltinTopic::Participant, BuiltinTopic::Publication, BuiltinTopic::Subscription] {
            let k = encode_key_payload(topic, &guid());
            assert_eq!(&k[..4], &[0, 3, 0, 0]);
            assert_eq!(decode_key(&k, [0, 0]).unwrap(), guid());
        }
        assert!(decode_key(&[0, 3, 0, 0, 1, 0, 0, 0], [0, 0]).is_err(), "no GUID");
        assert!(decode_key(&[0, 1, 0, 0], [0, 0]).is_err(), "not a parameter list");
    }

    struct Nothing;
    impl BuiltinData for Nothing {
        fn decode(_: &[u8], _: &Header) -> Result<Self, DecodeError> {
            Ok(Nothing)
        }
    }

    #[test]
    fn changes() {
        let h = Header::ours(GuidPrefix([0; 12]));
        let mut v = Vec::new();
        encode_dispose_inline_qos(&mut v, Endian::Little, &guid(), StatusInfo::DISPOSED).unwrap();
        let (l, _) = ParameterList::parse(&v, Endian::Little, [0, 0]).unwrap();
        match decode_change::<Nothing>(Some(&l), SerializedPayload::None, &h).unwrap() {
            Change::NotAlive { guid: g, status } => assert_eq!((g, status), (guid(), StatusInfo::DISPOSED)),
            Change::Alive(_) => panic!("alive"),
        }
        // Cyclone's form: status only, key in the payload.
        let mut s = Vec::new();
        let mut w = ParameterListWriter::new(&mut s, Endian::Little);
        w.put(PID_STATUS_INFO, &[0, 0, 0, 3]).unwrap();
        w.finish();
        let (l, _) = ParameterList::parse(&s, Endian::Little, [0, 0]).unwrap();
        let key = encode_key_payload(BuiltinTopic::Publication, &guid());
        assert!(matches!(
            decode_change::<Nothing>(Some(&l), SerializedPayload::Key(&key), &h).unwrap(),
            Change::NotAlive { guid: g, .. } if g == guid()
        ));
        assert!(decode_change::<Nothing>(Some(&l), SerializedPayload::None, &h).is_err());
        assert!(matches!(decode_change::<Nothing>(None, SerializedPayload::Data(&key), &h).unwrap(), Change::Alive(_)));
        assert!(decode_change::<Nothing>(None, SerializedPayload::Key(&key), &h).is_err());
        assert!(decode_change::<Nothing>(None, SerializedPayload::None, &h).is_err());
    }
}
