//! SPDP participant data (RTPS 2.5 section 8.5.3.2 and 9.6.2.2, the DCPSParticipant built-in topic).
//!
//! Encoding is PL_CDR_LE with exactly what Cyclone DDS 0.10 and Fast DDS 2.9 need to talk to us:
//! - Cyclone drops SPDP data without PID_PARTICIPANT_GUID or PID_BUILTIN_ENDPOINT_SET, ignores a
//!   participant whose PID_DOMAIN_ID (or PID_DOMAIN_TAG) differs from its own, and creates no proxy
//!   without a unicast default and metatraffic address (it falls back to the packet's source).
//! - Fast DDS takes a missing PID_PARTICIPANT_LEASE_DURATION as zero (the participant expires at
//!   once), drops a participant without metatraffic locators, and matches only the built-in
//!   endpoints the PID_BUILTIN_ENDPOINT_SET names. It reads enumerations from the first octet of
//!   their value, which only works for little-endian lists: we always send PL_CDR_LE.
//!
//! Decoding is tolerant: either byte order, unknown ids skipped (recorded in `ignored_pids`),
//! vendor-specific ids skipped (no vendor's SPDP extension is needed; see
//! [`super::vendor_quirks`]), unknown locator kinds
//! dropped, optional values defaulted as the specification says. A missing participant GUID or
//! built-in endpoint set is an error that names the parameter.

use std::time::Duration;

use super::inline_qos::BuiltinData;
use super::plist::{self, duration_from_wire, duration_to_wire};
use crate::cdr::{DecodeError, EncodeError, Endian};
use crate::wire::parameter::{ParameterList, ParameterListWriter};
use crate::wire::pid::{self, ParameterId};
use crate::wire::{EntityId, Guid, GuidPrefix, Header, Locator, ProtocolVersion, VendorId, VENDOR_ID_HDDS};

/// Bits of PID_BUILTIN_ENDPOINT_SET: RTPS's (re-exported from `wire`) plus the ones `wire` does not
/// list yet (XTypes type lookup service, and the DDS-Security range).
pub mod builtin_endpoints {
    pub use crate::wire::pid::builtin_endpoint::*;

    /// XTypes 1.3 section 7.6.3.3.4: type lookup service endpoints (Cyclone 0.10 announces them).
    pub const TYPE_LOOKUP_REQUEST_WRITER: u32 = 1 << 12;
    pub const TYPE_LOOKUP_REQUEST_READER: u32 = 1 << 13;
    pub const TYPE_LOOKUP_REPLY_WRITER: u32 = 1 << 14;
    pub const TYPE_LOOKUP_REPLY_READER: u32 = 1 << 15;
    /// Bits 16 to 27 are DDS-Security's secure built-in endpoints. Fast DDS 2.9 (built with
    /// security) sets several of them even when security is off; they mean nothing without an
    /// identity token (Cyclone masks them the same way).
    pub const SECURITY_MASK: u32 = 0x0fff_0000;

    /// What hdds announces: SPDP, SEDP publications and subscriptions, and the participant message
    /// (liveliness) writer and reader.
    pub const HDDS: u32 = PARTICIPANT_ANNOUNCER
        | PARTICIPANT_DETECTOR
        | PUBLICATIONS_ANNOUNCER
        | PUBLICATIONS_DETECTOR
        | SUBSCRIPTIONS_ANNOUNCER
        | SUBSCRIPTIONS_DETECTOR
        | PARTICIPANT_MESSAGE_DATA_WRITER
        | PARTICIPANT_MESSAGE_DATA_READER;
}

/// The lease a participant gets when its data has no PID_PARTICIPANT_LEASE_DURATION (RTPS 2.5
/// table 9.14; Cyclone uses the same, Fast DDS zero).
pub const SPEC_DEFAULT_LEASE_DURATION: Duration = Duration::from_secs(100);

/// The lease we announce by default (Fast DDS's default; Cyclone's is 10 s).
pub const HDDS_LEASE_DURATION: Duration = Duration::from_secs(20);

/// One participant's SPDP data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpdpParticipantData {
    pub guid_prefix: GuidPrefix,
    pub protocol_version: ProtocolVersion,
    pub vendor_id: VendorId,
    /// PID_DOMAIN_ID; `None` when absent, which means "the receiver's domain" (Fast DDS never sends it).
    pub domain_id: Option<u32>,
    /// PID_DOMAIN_TAG; empty is the default tag.
    pub domain_tag: String,
    pub expects_inline_qos: bool,
    pub metatraffic_unicast_locators: Vec<Locator>,
    pub metatraffic_multicast_locators: Vec<Locator>,
    pub default_unicast_locators: Vec<Locator>,
    pub default_multicast_locators: Vec<Locator>,
    /// How long the participant stays alive without news ([`crate::qos::INFINITE`] for infinite).
    pub lease_duration: Duration,
    /// PID_BUILTIN_ENDPOINT_SET bits (see [`builtin_endpoints`]).
    pub builtin_endpoints: u32,
    /// PID_USER_DATA (ROS: `enclave=<path>;`, see [`super::user_data`]).
    pub user_data: Vec<u8>,
    /// PID_ENTITY_NAME (Fast DDS sends the participant's name).
    pub entity_name: Option<String>,
    /// Ids skipped on decode: unknown ones and vendor-specific ones we do not read. Never encoded.
    pub ignored_pids: Vec<ParameterId>,
}

impl SpdpParticipantData {
    /// Our participant's data with the engine's defaults: current protocol version, hdds vendor id,
    /// [`builtin_endpoints::HDDS`], [`HDDS_LEASE_DURATION`], no locators yet.
    pub fn new(guid_prefix: GuidPrefix, domain_id: u32) -> SpdpParticipantData {
        SpdpParticipantData {
            guid_prefix,
            protocol_version: ProtocolVersion::CURRENT,
            vendor_id: VENDOR_ID_HDDS,
            domain_id: Some(domain_id),
            domain_tag: String::new(),
            expects_inline_qos: false,
            metatraffic_unicast_locators: Vec::new(),
            metatraffic_multicast_locators: Vec::new(),
            default_unicast_locators: Vec::new(),
            default_multicast_locators: Vec::new(),
            lease_duration: HDDS_LEASE_DURATION,
            builtin_endpoints: builtin_endpoints::HDDS,
            user_data: Vec::new(),
            entity_name: None,
            ignored_pids: Vec::new(),
        }
    }

    /// The participant's GUID (prefix + ENTITYID_PARTICIPANT).
    pub fn guid(&self) -> Guid {
        Guid::new(self.guid_prefix, EntityId::PARTICIPANT)
    }

    /// Whether the participant says it has `bits` (all of them) among its built-in endpoints.
    pub fn has_builtin(&self, bits: u32) -> bool {
        self.builtin_endpoints & bits == bits
    }

    /// Decodes the serialized payload of an SPDP DATA (encapsulation included). `header` is the
    /// RTPS header of the message: its vendor id decides which vendor-specific ids are read, and
    /// supplies protocol version and vendor id when the data lacks them.
    pub fn decode(payload: &[u8], header: &Header) -> Result<SpdpParticipantData, DecodeError> {
        let list = ParameterList::parse_payload(payload, header.vendor_id)?;
        let mut guid: Option<Guid> = None;
        let mut key_hash: Option<Guid> = None;
        let mut builtin: Option<u32> = None;
        let mut legacy_builtin: Option<u32> = None;
        let mut d = SpdpParticipantData {
            protocol_version: header.version,
            vendor_id: header.vendor_id,
            domain_id: None,
            lease_duration: SPEC_DEFAULT_LEASE_DURATION,
            builtin_endpoints: 0,
            ..SpdpParticipantData::new(GuidPrefix::default(), 0)
        };
        for p in list.iter() {
            match p.pid {
                pid::PID_PARTICIPANT_GUID => {
                    guid = Some(plist::read(&list, &p, "malformed PID_PARTICIPANT_GUID", |p| p.as_guid())?)
                }
                pid::PID_KEY_HASH => {
                    key_hash = Some(plist::read(&list, &p, "malformed PID_KEY_HASH", |p| p.as_guid())?)
                }
                pid::PID_PROTOCOL_VERSION => {
                    d.protocol_version =
                        plist::read(&list, &p, "malformed PID_PROTOCOL_VERSION", |p| p.as_protocol_version())?
                }
                pid::PID_VENDORID => {
                    d.vendor_id = plist::read(&list, &p, "malformed PID_VENDORID", |p| p.as_vendor_id())?
                }
                pid::PID_DOMAIN_ID => {
                    d.domain_id = Some(plist::read(&list, &p, "malformed PID_DOMAIN_ID", |p| p.as_u32())?)
                }
                pid::PID_DOMAIN_TAG => {
                    d.domain_tag = plist::read(&list, &p, "malformed PID_DOMAIN_TAG", |p| p.as_str())?.to_owned()
                }
                pid::PID_EXPECTS_INLINE_QOS => {
                    d.expects_inline_qos = plist::read(&list, &p, "malformed PID_EXPECTS_INLINE_QOS", |p| p.as_bool())?
                }
                pid::PID_METATRAFFIC_UNICAST_LOCATOR => {
                    plist::push_locator(&list, &p, &mut d.metatraffic_unicast_locators)?
                }
                pid::PID_METATRAFFIC_MULTICAST_LOCATOR => {
                    plist::push_locator(&list, &p, &mut d.metatraffic_multicast_locators)?
                }
                pid::PID_DEFAULT_UNICAST_LOCATOR => plist::push_locator(&list, &p, &mut d.default_unicast_locators)?,
                pid::PID_DEFAULT_MULTICAST_LOCATOR => {
                    plist::push_locator(&list, &p, &mut d.default_multicast_locators)?
                }
                pid::PID_PARTICIPANT_LEASE_DURATION => {
                    d.lease_duration =
                        duration_from_wire(plist::read(&list, &p, "malformed PID_PARTICIPANT_LEASE_DURATION", |p| {
                            p.as_duration()
                        })?)
                }
                pid::PID_BUILTIN_ENDPOINT_SET => {
                    builtin = Some(plist::read(&list, &p, "malformed PID_BUILTIN_ENDPOINT_SET", |p| p.as_u32())?)
                }
                pid::PID_PARTICIPANT_BUILTIN_ENDPOINTS => {
                    legacy_builtin =
                        Some(plist::read(&list, &p, "malformed PID_PARTICIPANT_BUILTIN_ENDPOINTS", |p| p.as_u32())?)
                }
                pid::PID_USER_DATA => {
                    d.user_data = plist::read(&list, &p, "malformed PID_USER_DATA", |p| p.as_bytes_sequence())?.to_vec()
                }
                pid::PID_ENTITY_NAME => {
                    d.entity_name =
                        Some(plist::read(&list, &p, "malformed PID_ENTITY_NAME", |p| p.as_str())?.to_owned())
                }
                // Known, not needed by discovery.
                pid::PID_PROPERTY_LIST
                | pid::PID_PARTICIPANT_MANUAL_LIVELINESS_COUNT
                | pid::PID_IDENTITY_TOKEN
                | pid::PID_PERMISSIONS_TOKEN
                | pid::PID_PARTICIPANT_SECURITY_INFO
                | pid::PID_BUILTIN_ENDPOINT_QOS => {}
                _ => plist::unknown(&list, &p, &mut d.ignored_pids)?,
            }
        }
        let guid = guid.or(key_hash).ok_or(DecodeError::new(
            "SPDP participant data has no PID_PARTICIPANT_GUID (0x0050) nor PID_KEY_HASH: it names no participant",
            0,
        ))?;
        if guid.entity_id != EntityId::PARTICIPANT {
            return Err(DecodeError::new(
                "SPDP participant GUID does not end in ENTITYID_PARTICIPANT (00 00 01 c1)",
                0,
            ));
        }
        d.guid_prefix = guid.prefix;
        d.builtin_endpoints = builtin.or(legacy_builtin).ok_or(DecodeError::new(
            "SPDP participant data has no PID_BUILTIN_ENDPOINT_SET (0x0058): its discovery endpoints are unknown",
            0,
        ))?;
        Ok(d)
    }

    /// The serialized payload (PL_CDR_LE encapsulation, parameters, sentinel).
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(256);
        self.encode_into(&mut out)?;
        Ok(out)
    }

    /// Appends the serialized payload to `out` (on error `out` may hold part of it).
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let mut w = ParameterListWriter::payload(out, Endian::Little);
        w.put_protocol_version(self.protocol_version)?;
        w.put_vendor_id(self.vendor_id)?;
        w.put_guid(pid::PID_PARTICIPANT_GUID, &self.guid())?;
        w.put_u32(pid::PID_BUILTIN_ENDPOINT_SET, self.builtin_endpoints)?;
        if let Some(domain_id) = self.domain_id {
            w.put_u32(pid::PID_DOMAIN_ID, domain_id)?;
        }
        if !self.domain_tag.is_empty() {
            w.put_str(pid::PID_DOMAIN_TAG, &self.domain_tag)?;
        }
        for l in &self.metatraffic_unicast_locators {
            w.put_locator(pid::PID_METATRAFFIC_UNICAST_LOCATOR, l)?;
        }
        for l in &self.metatraffic_multicast_locators {
            w.put_locator(pid::PID_METATRAFFIC_MULTICAST_LOCATOR, l)?;
        }
        for l in &self.default_unicast_locators {
            w.put_locator(pid::PID_DEFAULT_UNICAST_LOCATOR, l)?;
        }
        for l in &self.default_multicast_locators {
            w.put_locator(pid::PID_DEFAULT_MULTICAST_LOCATOR, l)?;
        }
        w.put_duration(pid::PID_PARTICIPANT_LEASE_DURATION, duration_to_wire(self.lease_duration))?;
        if !self.user_data.is_empty() {
            w.put_bytes_sequence(pid::PID_USER_DATA, &self.user_data)?;
        }
        if let Some(name) = &self.entity_name {
            w.put_str(pid::PID_ENTITY_NAME, name)?;
        }
        if self.expects_inline_qos {
            w.put_bool(pid::PID_EXPECTS_INLINE_QOS, true)?;
        }
        w.finish();
        Ok(())
    }
}

impl BuiltinData for SpdpParticipantData {
    fn decode(payload: &[u8], header: &Header) -> Result<Self, DecodeError> {
        SpdpParticipantData::decode(payload, header)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qos::INFINITE;
    use std::net::Ipv4Addr;

    fn ours() -> SpdpParticipantData {
        let mut d = SpdpParticipantData::new(GuidPrefix([1, 0xf0, 9, 9, 9, 9, 0, 0, 0, 42, 0, 1]), 0);
        d.metatraffic_unicast_locators.push(Locator::udpv4(Ipv4Addr::LOCALHOST, 7410));
        d.metatraffic_multicast_locators.push(Locator::udpv4(super::super::ports::SPDP_MULTICAST_ADDRESS, 7400));
        d.default_unicast_locators.push(Locator::udpv4(Ipv4Addr::LOCALHOST, 7411));
        d.user_data = b"enclave=/;".to_vec();
        d
    }

    fn header(vendor: VendorId) -> Header {
        Header { version: ProtocolVersion { major: 2, minor: 1 }, vendor_id: vendor, guid_prefix: GuidPrefix([0; 12]) }
    }

    #[test]
    fn round_trip() {
        let d = ours();
        let bytes = d.encode().unwrap();
        assert_eq!(&bytes[..4], &[0, 3, 0, 0], "PL_CDR_LE");
        assert_eq!(SpdpParticipantData::decode(&bytes, &header(VENDOR_ID_HDDS)).unwrap(), d);
        let mut e = d.clone();
        e.domain_tag = "tag".into();
        e.entity_name = Some("/".into());
        e.expects_inline_qos = true;
        e.lease_duration = INFINITE;
        e.domain_id = None;
        assert_eq!(SpdpParticipantData::decode(&e.encode().unwrap(), &header(VENDOR_ID_HDDS)).unwrap(), e);
    }

    #[test]
    fn defaults_and_errors() {
        let h = header([0x01, 0x99]);
        let mut v = Vec::new();
        let mut w = ParameterListWriter::payload(&mut v, Endian::Big);
        w.put_guid(pid::PID_PARTICIPANT_GUID, &Guid::new(GuidPrefix([7; 12]), EntityId::PARTICIPANT)).unwrap();
        w.put_u32(pid::PID_BUILTIN_ENDPOINT_SET, 0x3f).unwrap();
        w.put_locator(
            pid::PID_METATRAFFIC_UNICAST_LOCATOR,
            &Locator { kind: Locator::KIND_FASTDDS_SHM, port: 1, address: [0; 16] },
        )
        .unwrap();
        w.put(0x3001, &[1, 2, 3, 4]).unwrap();
        w.put(0x8007, &[1, 2, 3, 4]).unwrap();
        w.finish();
        let d = SpdpParticipantData::decode(&v, &h).unwrap();
        assert_eq!(d.protocol_version, ProtocolVersion { major: 2, minor: 1 }, "from the header");
        assert_eq!(d.vendor_id, [0x01, 0x99], "from the header");
        assert_eq!(d.lease_duration, SPEC_DEFAULT_LEASE_DURATION);
        assert_eq!(d.domain_id, None);
        assert!(d.metatraffic_unicast_locators.is_empty(), "SHM locator dropped");
        assert_eq!(d.ignored_pids, [0x3001, 0x8007]);

        // Must-understand id we do not know: the data is unusable.
        let mut m = v.clone();
        let n = m.len();
        m.truncate(n - 4);
        let mut w = ParameterListWriter::new(&mut m, Endian::Big);
        w.put(0x4abc, &[0; 4]).unwrap();
        w.finish();
        assert!(SpdpParticipantData::decode(&m, &h).unwrap_err().reason.contains("must-understand"));

        // Missing mandatory parameters.
        let mut v = Vec::new();
        let mut w = ParameterListWriter::payload(&mut v, Endian::Little);
        w.put_u32(pid::PID_BUILTIN_ENDPOINT_SET, 0x3f).unwrap();
        w.finish();
        assert!(SpdpParticipantData::decode(&v, &h).unwrap_err().reason.contains("PID_PARTICIPANT_GUID"));
        let mut v = Vec::new();
        let mut w = ParameterListWriter::payload(&mut v, Endian::Little);
        w.put_guid(pid::PID_PARTICIPANT_GUID, &Guid::new(GuidPrefix([7; 12]), EntityId::PARTICIPANT)).unwrap();
        w.finish();
        assert!(SpdpParticipantData::decode(&v, &h).unwrap_err().reason.contains("PID_BUILTIN_ENDPOINT_SET"));
        let mut v = Vec::new();
        let mut w = ParameterListWriter::payload(&mut v, Endian::Little);
        w.put_guid(pid::PID_PARTICIPANT_GUID, &Guid::new(GuidPrefix([7; 12]), EntityId::SPDP_WRITER)).unwrap();
        w.put_u32(pid::PID_BUILTIN_ENDPOINT_SET, 0x3f).unwrap();
        w.finish();
        assert!(SpdpParticipantData::decode(&v, &h).is_err(), "not a participant entity id");
    }

    #[test]
    fn encodes_only_standard_ids() {
        let mut e = ours();
        e.domain_tag = "t".into();
        e.entity_name = Some("n".into());
        let bytes = e.encode().unwrap();
        let l = ParameterList::parse_payload(&bytes, VENDOR_ID_HDDS).unwrap();
        assert!(l.iter().all(|p| !pid::is_vendor_specific(p.pid)));
        // Each non-locator parameter once (Cyclone rejects repeated ones).
        let mut seen = Vec::new();
        for p in l.iter().filter(|p| !matches!(p.pid, 0x31..=0x33 | 0x48)) {
            assert!(!seen.contains(&p.pid), "{:#x} twice", p.pid);
            seen.push(p.pid);
        }
    }
}
