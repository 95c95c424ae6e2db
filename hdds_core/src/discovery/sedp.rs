//! SEDP publication and subscription data (RTPS 2.5 sections 8.5.4 and 9.6.2.2, the
//! DCPSPublication / DCPSSubscription built-in topics).
//!
//! [`EndpointQos`] holds every policy SEDP carries that matching or delivery needs, with the
//! specification's defaults for absent parameters (a writer's reliability defaults to RELIABLE, a
//! reader's to BEST_EFFORT; durability VOLATILE; history KEEP_LAST 1; ...). It maps to and from the
//! engine's [`Qos`], which keeps the request/offered rules ([`super::matching`] reuses them).
//!
//! What the vendors send, from the captures: Cyclone 0.10 sends only policies that differ from the
//! defaults, no PID_PARTICIPANT_GUID (derived from the endpoint GUID) and no locators (the
//! participant's default locators apply); Fast DDS 2.9 sends nearly every policy, a PID_KEY_HASH
//! inside the data, but no PID_HISTORY and no PID_DATA_REPRESENTATION.
//!
//! What we send, and why: PL_CDR_LE (Fast DDS reads enumerations from the first octet); each
//! non-locator id at most once (Cyclone rejects repeated ones); exact value lengths (Fast DDS
//! rejects a whole list over one wrong length); reliability, durability and history always,
//! other policies when they differ from the default; DATA_REPRESENTATION `[XCDR1]`;
//! TYPE_CONSISTENCY only from readers (Fast DDS logs an error when a writer sends it); never
//! EXPECTS_INLINE_QOS true (Cyclone refuses such readers); no vendor-specific id.

use std::ops::{Deref, DerefMut};
use std::time::Duration;

use super::inline_qos::BuiltinData;
use super::plist::{self, duration_from_wire, duration_to_wire};
use super::vendor_quirks::quirks;
use crate::cdr::{DecodeError, EncodeError, Endian};
use crate::qos::{History, Liveliness, LivelinessKind, Qos, Reliability, INFINITE};
use crate::wire::parameter::{Parameter, ParameterList, ParameterListWriter};
use crate::wire::pid::{self, fastdds, ParameterId};
use crate::wire::{EntityId, Guid, Header, Locator, ProtocolVersion, VendorId, VENDOR_ID_HDDS};

/// Writer or reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndpointKind {
    Writer,
    Reader,
}

/// DURABILITY kinds in request/offered order. The engine's [`Qos`] knows the first two; the others
/// are carried so that matching stays exact against peers that use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DurabilityKind {
    Volatile = 0,
    TransientLocal = 1,
    Transient = 2,
    Persistent = 3,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OwnershipKind {
    Shared = 0,
    Exclusive = 1,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DestinationOrderKind {
    ByReceptionTimestamp = 0,
    BySourceTimestamp = 1,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PresentationAccessScope {
    Instance = 0,
    Topic = 1,
    Group = 2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Presentation {
    pub access_scope: PresentationAccessScope,
    pub coherent_access: bool,
    pub ordered_access: bool,
}

impl Default for Presentation {
    fn default() -> Self {
        Presentation { access_scope: PresentationAccessScope::Instance, coherent_access: false, ordered_access: false }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeConsistencyKind {
    DisallowTypeCoercion = 0,
    AllowTypeCoercion = 1,
}

/// TYPE_CONSISTENCY_ENFORCEMENT (DDS-XTypes 1.3 section 7.6.3.4), a reader policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypeConsistency {
    pub kind: TypeConsistencyKind,
    pub ignore_sequence_bounds: bool,
    pub ignore_string_bounds: bool,
    pub ignore_member_names: bool,
    pub prevent_type_widening: bool,
    pub force_type_validation: bool,
}

impl Default for TypeConsistency {
    /// XTypes' defaults (what Fast DDS sends and Cyclone assumes).
    fn default() -> Self {
        TypeConsistency {
            kind: TypeConsistencyKind::AllowTypeCoercion,
            ignore_sequence_bounds: true,
            ignore_string_bounds: true,
            ignore_member_names: false,
            prevent_type_widening: false,
            force_type_validation: false,
        }
    }
}

/// DataRepresentationId_t values (DDS-XTypes 1.3 section 7.6.3.1.1).
pub mod data_representation {
    pub const XCDR1: i16 = 0;
    pub const XML: i16 = 1;
    pub const XCDR2: i16 = 2;
    /// What hdds announces: XCDR1 only (DESIGN.md section 3).
    pub const HDDS: &[i16] = &[XCDR1];
}

/// An endpoint's policies as SEDP carries them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointQos {
    pub reliability: Reliability,
    pub max_blocking_time: Duration,
    pub durability: DurabilityKind,
    pub history: History,
    pub deadline: Duration,
    pub latency_budget: Duration,
    pub lifespan: Duration,
    pub liveliness: Liveliness,
    pub ownership: OwnershipKind,
    pub ownership_strength: i32,
    pub destination_order: DestinationOrderKind,
    pub presentation: Presentation,
    /// PARTITION names; empty is the default partition.
    pub partition: Vec<String>,
    pub user_data: Vec<u8>,
    pub topic_data: Vec<u8>,
    pub group_data: Vec<u8>,
    /// DATA_REPRESENTATION ids; empty when absent, which means XCDR1.
    pub data_representation: Vec<i16>,
    pub type_consistency: TypeConsistency,
    /// Fast DDS's DISABLE_POSITIVE_ACKS (vendor-specific 0x8005, read from Fast DDS only, never
    /// encoded: we send no vendor-specific id).
    pub disable_positive_acks: bool,
}

impl EndpointQos {
    /// The specification's defaults for an endpoint whose SEDP data omits everything.
    pub fn spec_default(kind: EndpointKind) -> EndpointQos {
        EndpointQos {
            reliability: match kind {
                EndpointKind::Writer => Reliability::Reliable,
                EndpointKind::Reader => Reliability::BestEffort,
            },
            max_blocking_time: Duration::from_millis(100),
            durability: DurabilityKind::Volatile,
            history: History::KeepLast(1),
            deadline: INFINITE,
            latency_budget: Duration::ZERO,
            lifespan: INFINITE,
            liveliness: Liveliness { kind: LivelinessKind::Automatic, lease_duration: INFINITE },
            ownership: OwnershipKind::Shared,
            ownership_strength: 0,
            destination_order: DestinationOrderKind::ByReceptionTimestamp,
            presentation: Presentation::default(),
            partition: Vec::new(),
            user_data: Vec::new(),
            topic_data: Vec::new(),
            group_data: Vec::new(),
            data_representation: Vec::new(),
            type_consistency: TypeConsistency::default(),
            disable_positive_acks: false,
        }
    }

    /// One of our endpoints with the engine's `qos`; the policies the engine does not have take
    /// their defaults, and DATA_REPRESENTATION is XCDR1.
    pub fn from_qos(qos: &Qos, kind: EndpointKind) -> EndpointQos {
        EndpointQos {
            reliability: qos.reliability,
            max_blocking_time: qos.max_blocking_time,
            durability: match qos.durability {
                crate::qos::Durability::Volatile => DurabilityKind::Volatile,
                crate::qos::Durability::TransientLocal => DurabilityKind::TransientLocal,
            },
            history: qos.history,
            deadline: qos.deadline,
            lifespan: qos.lifespan,
            liveliness: qos.liveliness,
            data_representation: data_representation::HDDS.to_vec(),
            ..EndpointQos::spec_default(kind)
        }
    }

    /// The engine's view. TRANSIENT and PERSISTENT become TRANSIENT_LOCAL (the most the engine
    /// does); matching checks the full durability order itself.
    pub fn to_qos(&self) -> Qos {
        Qos {
            reliability: self.reliability,
            max_blocking_time: self.max_blocking_time,
            durability: match self.durability {
                DurabilityKind::Volatile => crate::qos::Durability::Volatile,
                _ => crate::qos::Durability::TransientLocal,
            },
            history: self.history,
            deadline: self.deadline,
            lifespan: self.lifespan,
            liveliness: self.liveliness,
        }
    }

    /// The representation a writer uses: the first it lists, XCDR1 when it lists none.
    pub fn offered_representation(&self) -> i16 {
        self.data_representation.first().copied().unwrap_or(data_representation::XCDR1)
    }

    /// Whether a reader accepts `id`: an empty list means XCDR1 only.
    pub fn accepts_representation(&self, id: i16) -> bool {
        if self.data_representation.is_empty() {
            id == data_representation::XCDR1
        } else {
            self.data_representation.contains(&id)
        }
    }
}

/// What writer and reader data share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointData {
    pub guid: Guid,
    /// PID_PARTICIPANT_GUID, or the endpoint's prefix + ENTITYID_PARTICIPANT when absent (Cyclone).
    pub participant_guid: Guid,
    pub topic_name: String,
    pub type_name: String,
    pub qos: EndpointQos,
    /// Where to send to this endpoint; empty means the participant's default locators.
    pub unicast_locators: Vec<Locator>,
    pub multicast_locators: Vec<Locator>,
    /// PID_EXPECTS_INLINE_QOS (readers).
    pub expects_inline_qos: bool,
    /// PID_TYPE_INFORMATION, kept opaque (Cyclone sends it for plain DDS types).
    pub type_information: Option<Vec<u8>>,
    pub protocol_version: ProtocolVersion,
    pub vendor_id: VendorId,
    /// Ids skipped on decode: unknown ones and vendor-specific ones we do not read. Never encoded.
    pub ignored_pids: Vec<ParameterId>,
}

impl EndpointData {
    fn local(guid: Guid, topic_name: &str, type_name: &str, qos: &Qos, kind: EndpointKind) -> EndpointData {
        EndpointData {
            guid,
            participant_guid: Guid::new(guid.prefix, EntityId::PARTICIPANT),
            topic_name: topic_name.to_owned(),
            type_name: type_name.to_owned(),
            qos: EndpointQos::from_qos(qos, kind),
            unicast_locators: Vec::new(),
            multicast_locators: Vec::new(),
            expects_inline_qos: false,
            type_information: None,
            protocol_version: ProtocolVersion::CURRENT,
            vendor_id: VENDOR_ID_HDDS,
            ignored_pids: Vec::new(),
        }
    }

    /// Whether the topic is keyed, from the entity kind (0x02/0x07 keyed, 0x03/0x04 keyless), as
    /// Fast DDS decides it. ROS topics are keyless.
    pub fn keyed(&self) -> bool {
        matches!(self.guid.entity_id.kind_byte() & 0x0f, 0x02 | 0x07)
    }

    fn decode(payload: &[u8], header: &Header, kind: EndpointKind) -> Result<EndpointData, DecodeError> {
        let list = ParameterList::parse_payload(payload, header.vendor_id)?;
        let vendor_quirks = quirks(header.vendor_id);
        let mut guid: Option<Guid> = None;
        let mut key_hash: Option<Guid> = None;
        let mut participant_guid: Option<Guid> = None;
        let mut topic_name: Option<String> = None;
        let mut type_name: Option<String> = None;
        let mut d = EndpointData {
            protocol_version: header.version,
            vendor_id: header.vendor_id,
            qos: EndpointQos::spec_default(kind),
            ..EndpointData::local(Guid::UNKNOWN, "", "", &Qos::default(), kind)
        };
        let q = &mut d.qos;
        for p in list.iter() {
            let l = &list;
            match p.pid {
                pid::PID_ENDPOINT_GUID => {
                    guid = Some(plist::read(l, &p, "malformed PID_ENDPOINT_GUID", |p| p.as_guid())?)
                }
                pid::PID_KEY_HASH => key_hash = Some(plist::read(l, &p, "malformed PID_KEY_HASH", |p| p.as_guid())?),
                pid::PID_PARTICIPANT_GUID => {
                    participant_guid = Some(plist::read(l, &p, "malformed PID_PARTICIPANT_GUID", |p| p.as_guid())?)
                }
                pid::PID_TOPIC_NAME => {
                    topic_name = Some(plist::read(l, &p, "malformed PID_TOPIC_NAME", |p| p.as_str())?.to_owned())
                }
                pid::PID_TYPE_NAME => {
                    type_name = Some(plist::read(l, &p, "malformed PID_TYPE_NAME", |p| p.as_str())?.to_owned())
                }
                pid::PID_PROTOCOL_VERSION => {
                    d.protocol_version =
                        plist::read(l, &p, "malformed PID_PROTOCOL_VERSION", |p| p.as_protocol_version())?
                }
                pid::PID_VENDORID => d.vendor_id = plist::read(l, &p, "malformed PID_VENDORID", |p| p.as_vendor_id())?,
                pid::PID_UNICAST_LOCATOR => plist::push_locator(l, &p, &mut d.unicast_locators)?,
                pid::PID_MULTICAST_LOCATOR => plist::push_locator(l, &p, &mut d.multicast_locators)?,
                pid::PID_EXPECTS_INLINE_QOS if kind == EndpointKind::Reader => {
                    d.expects_inline_qos = plist::read(l, &p, "malformed PID_EXPECTS_INLINE_QOS", |p| p.as_bool())?
                }
                pid::PID_TYPE_INFORMATION => d.type_information = Some(p.value.to_vec()),
                pid::PID_RELIABILITY => {
                    let (k, mbt) = plist::read(l, &p, "malformed PID_RELIABILITY", kind_and_duration)?;
                    q.reliability = match k {
                        1 => Reliability::BestEffort,
                        2 => Reliability::Reliable,
                        _ => {
                            return Err(plist::bad(
                                l,
                                &p,
                                "PID_RELIABILITY kind is neither BEST_EFFORT (1) nor RELIABLE (2)",
                            ))
                        }
                    };
                    if let Some(mbt) = mbt {
                        q.max_blocking_time = mbt;
                    }
                }
                pid::PID_DURABILITY => {
                    q.durability = match plist::read(l, &p, "malformed PID_DURABILITY", |p| p.as_u32())? {
                        0 => DurabilityKind::Volatile,
                        1 => DurabilityKind::TransientLocal,
                        2 => DurabilityKind::Transient,
                        3 => DurabilityKind::Persistent,
                        _ => return Err(plist::bad(l, &p, "PID_DURABILITY kind is not one of 0..=3")),
                    }
                }
                pid::PID_HISTORY => {
                    let (k, depth) = plist::read(l, &p, "malformed PID_HISTORY", |p| {
                        let mut r = p.reader();
                        Ok((r.read_u32()?, r.read_i32()?))
                    })?;
                    q.history = match k {
                        // A depth below 1 is invalid; read it as 1 rather than drop the endpoint.
                        0 => History::KeepLast(depth.max(1) as u32),
                        1 => History::KeepAll,
                        _ => {
                            return Err(plist::bad(l, &p, "PID_HISTORY kind is neither KEEP_LAST (0) nor KEEP_ALL (1)"))
                        }
                    }
                }
                pid::PID_DEADLINE => q.deadline = read_duration(l, &p, "malformed PID_DEADLINE")?,
                pid::PID_LATENCY_BUDGET => q.latency_budget = read_duration(l, &p, "malformed PID_LATENCY_BUDGET")?,
                pid::PID_LIFESPAN => q.lifespan = read_duration(l, &p, "malformed PID_LIFESPAN")?,
                pid::PID_LIVELINESS => {
                    let (k, lease) = plist::read(l, &p, "malformed PID_LIVELINESS", kind_and_duration)?;
                    q.liveliness.kind = match k {
                        0 => LivelinessKind::Automatic,
                        1 => LivelinessKind::ManualByParticipant,
                        2 => LivelinessKind::ManualByTopic,
                        _ => return Err(plist::bad(l, &p, "PID_LIVELINESS kind is not one of 0..=2")),
                    };
                    if let Some(lease) = lease {
                        q.liveliness.lease_duration = lease;
                    }
                }
                pid::PID_OWNERSHIP => {
                    q.ownership = match plist::read(l, &p, "malformed PID_OWNERSHIP", |p| p.as_u32())? {
                        0 => OwnershipKind::Shared,
                        1 => OwnershipKind::Exclusive,
                        _ => {
                            return Err(plist::bad(l, &p, "PID_OWNERSHIP kind is neither SHARED (0) nor EXCLUSIVE (1)"))
                        }
                    }
                }
                pid::PID_OWNERSHIP_STRENGTH => {
                    q.ownership_strength = plist::read(l, &p, "malformed PID_OWNERSHIP_STRENGTH", |p| p.as_i32())?
                }
                pid::PID_DESTINATION_ORDER => {
                    q.destination_order = match plist::read(l, &p, "malformed PID_DESTINATION_ORDER", |p| p.as_u32())? {
                        0 => DestinationOrderKind::ByReceptionTimestamp,
                        1 => DestinationOrderKind::BySourceTimestamp,
                        _ => return Err(plist::bad(l, &p, "PID_DESTINATION_ORDER kind is neither 0 nor 1")),
                    }
                }
                pid::PID_PRESENTATION => {
                    let (scope, coherent, ordered) = plist::read(l, &p, "malformed PID_PRESENTATION", |p| {
                        let mut r = p.reader();
                        Ok((r.read_u32()?, r.read_bool()?, r.read_bool()?))
                    })?;
                    q.presentation = Presentation {
                        access_scope: match scope {
                            0 => PresentationAccessScope::Instance,
                            1 => PresentationAccessScope::Topic,
                            2 => PresentationAccessScope::Group,
                            _ => return Err(plist::bad(l, &p, "PID_PRESENTATION access scope is not one of 0..=2")),
                        },
                        coherent_access: coherent,
                        ordered_access: ordered,
                    };
                }
                pid::PID_PARTITION => {
                    q.partition = plist::read(l, &p, "malformed PID_PARTITION", plist::read_string_sequence)?
                }
                pid::PID_USER_DATA => {
                    q.user_data = plist::read(l, &p, "malformed PID_USER_DATA", |p| p.as_bytes_sequence())?.to_vec()
                }
                pid::PID_TOPIC_DATA => {
                    q.topic_data = plist::read(l, &p, "malformed PID_TOPIC_DATA", |p| p.as_bytes_sequence())?.to_vec()
                }
                pid::PID_GROUP_DATA => {
                    q.group_data = plist::read(l, &p, "malformed PID_GROUP_DATA", |p| p.as_bytes_sequence())?.to_vec()
                }
                pid::PID_DATA_REPRESENTATION => {
                    q.data_representation =
                        plist::read(l, &p, "malformed PID_DATA_REPRESENTATION", plist::read_i16_sequence)?
                }
                pid::PID_TYPE_CONSISTENCY_ENFORCEMENT if kind == EndpointKind::Reader => {
                    q.type_consistency =
                        plist::read(l, &p, "malformed PID_TYPE_CONSISTENCY_ENFORCEMENT", read_type_consistency)?
                }
                // Known, not needed for matching or delivery (the first two are reader policies:
                // a writer that sends them is ignored in that, as Fast DDS does).
                pid::PID_EXPECTS_INLINE_QOS
                | pid::PID_TYPE_CONSISTENCY_ENFORCEMENT
                | pid::PID_DURABILITY_SERVICE
                | pid::PID_RESOURCE_LIMITS
                | pid::PID_TIME_BASED_FILTER
                | pid::PID_TRANSPORT_PRIORITY
                | pid::PID_TYPE_MAX_SIZE_SERIALIZED
                | pid::PID_PROPERTY_LIST
                | pid::PID_ENTITY_NAME
                | pid::PID_GROUP_GUID
                | pid::PID_CONTENT_FILTER_PROPERTY
                | pid::PID_ENDPOINT_SECURITY_INFO => {}
                fastdds::PID_DISABLE_POSITIVE_ACKS if vendor_quirks.reads(fastdds::PID_DISABLE_POSITIVE_ACKS) => {
                    // One octet, any non-zero is true (Fast DDS writes 01 00 00 00).
                    q.disable_positive_acks =
                        plist::read(l, &p, "malformed DISABLE_POSITIVE_ACKS (Fast DDS 0x8005)", |p| {
                            Ok(p.reader().read_u8()? != 0)
                        })?
                }
                _ => plist::unknown(l, &p, &mut d.ignored_pids)?,
            }
        }
        d.guid = guid.or(key_hash).ok_or(DecodeError::new(
            "SEDP endpoint data has no PID_ENDPOINT_GUID (0x005a) nor PID_KEY_HASH: it names no endpoint",
            0,
        ))?;
        let kind_ok = match kind {
            EndpointKind::Writer => d.guid.entity_id.is_writer(),
            EndpointKind::Reader => d.guid.entity_id.is_reader(),
        };
        if !kind_ok {
            return Err(DecodeError::new(
                match kind {
                    EndpointKind::Writer => "SEDP publication data names an entity that is not a writer",
                    EndpointKind::Reader => "SEDP subscription data names an entity that is not a reader",
                },
                0,
            ));
        }
        d.participant_guid = participant_guid.unwrap_or(Guid::new(d.guid.prefix, EntityId::PARTICIPANT));
        d.topic_name = topic_name
            .ok_or(DecodeError::new("SEDP endpoint data has no PID_TOPIC_NAME (0x0005): it cannot be matched", 0))?;
        d.type_name = type_name
            .ok_or(DecodeError::new("SEDP endpoint data has no PID_TYPE_NAME (0x0007): it cannot be matched", 0))?;
        Ok(d)
    }

    fn encode_into(&self, out: &mut Vec<u8>, kind: EndpointKind) -> Result<(), EncodeError> {
        let q = &self.qos;
        let dflt = EndpointQos::spec_default(kind);
        let mut w = ParameterListWriter::payload(out, Endian::Little);
        w.put_guid(pid::PID_ENDPOINT_GUID, &self.guid)?;
        w.put_guid(pid::PID_PARTICIPANT_GUID, &self.participant_guid)?;
        w.put_str(pid::PID_TOPIC_NAME, &self.topic_name)?;
        w.put_str(pid::PID_TYPE_NAME, &self.type_name)?;
        w.put_protocol_version(self.protocol_version)?;
        w.put_vendor_id(self.vendor_id)?;
        w.put_with(pid::PID_RELIABILITY, |c| {
            c.write_u32(match q.reliability {
                Reliability::BestEffort => 1,
                Reliability::Reliable => 2,
            })?;
            duration_to_wire(q.max_blocking_time).write(c)
        })?;
        w.put_u32(pid::PID_DURABILITY, q.durability as u32)?;
        w.put_with(pid::PID_HISTORY, |c| match q.history {
            History::KeepLast(depth) => {
                c.write_u32(0)?;
                c.write_i32(depth.clamp(1, i32::MAX as u32) as i32)
            }
            History::KeepAll => {
                c.write_u32(1)?;
                c.write_i32(-1)
            }
        })?;
        if q.deadline != dflt.deadline {
            w.put_duration(pid::PID_DEADLINE, duration_to_wire(q.deadline))?;
        }
        if q.latency_budget != dflt.latency_budget {
            w.put_duration(pid::PID_LATENCY_BUDGET, duration_to_wire(q.latency_budget))?;
        }
        if q.liveliness != dflt.liveliness {
            w.put_with(pid::PID_LIVELINESS, |c| {
                c.write_u32(q.liveliness.kind as u32)?;
                duration_to_wire(q.liveliness.lease_duration).write(c)
            })?;
        }
        if q.lifespan != dflt.lifespan {
            w.put_duration(pid::PID_LIFESPAN, duration_to_wire(q.lifespan))?;
        }
        if q.ownership != dflt.ownership {
            w.put_u32(pid::PID_OWNERSHIP, q.ownership as u32)?;
        }
        if q.ownership_strength != dflt.ownership_strength {
            w.put_i32(pid::PID_OWNERSHIP_STRENGTH, q.ownership_strength)?;
        }
        if q.destination_order != dflt.destination_order {
            w.put_u32(pid::PID_DESTINATION_ORDER, q.destination_order as u32)?;
        }
        if q.presentation != dflt.presentation {
            w.put_with(pid::PID_PRESENTATION, |c| {
                c.write_u32(q.presentation.access_scope as u32)?;
                c.write_bool(q.presentation.coherent_access)?;
                c.write_bool(q.presentation.ordered_access)
            })?;
        }
        if !q.partition.is_empty() {
            w.put_with(pid::PID_PARTITION, |c| {
                c.write_sequence_len(q.partition.len())?;
                q.partition.iter().try_for_each(|s| c.write_string(s))
            })?;
        }
        if !q.user_data.is_empty() {
            w.put_bytes_sequence(pid::PID_USER_DATA, &q.user_data)?;
        }
        if !q.topic_data.is_empty() {
            w.put_bytes_sequence(pid::PID_TOPIC_DATA, &q.topic_data)?;
        }
        if !q.group_data.is_empty() {
            w.put_bytes_sequence(pid::PID_GROUP_DATA, &q.group_data)?;
        }
        if !q.data_representation.is_empty() {
            w.put_with(pid::PID_DATA_REPRESENTATION, |c| c.write_sequence(&q.data_representation))?;
        }
        if kind == EndpointKind::Reader && q.type_consistency != dflt.type_consistency {
            let t = &q.type_consistency;
            w.put_with(pid::PID_TYPE_CONSISTENCY_ENFORCEMENT, |c| {
                c.write_u16(t.kind as u16)?;
                for b in [
                    t.ignore_sequence_bounds,
                    t.ignore_string_bounds,
                    t.ignore_member_names,
                    t.prevent_type_widening,
                    t.force_type_validation,
                    false,
                ] {
                    c.write_bool(b)?;
                }
                Ok(())
            })?;
        }
        if let Some(ti) = &self.type_information {
            w.put(pid::PID_TYPE_INFORMATION, ti)?;
        }
        for l in &self.unicast_locators {
            w.put_locator(pid::PID_UNICAST_LOCATOR, l)?;
        }
        for l in &self.multicast_locators {
            w.put_locator(pid::PID_MULTICAST_LOCATOR, l)?;
        }
        if kind == EndpointKind::Reader && self.expects_inline_qos {
            w.put_bool(pid::PID_EXPECTS_INLINE_QOS, true)?;
        }
        w.finish();
        Ok(())
    }
}

/// A u32 kind followed by a Duration_t, the duration optional (some old peers send only the kind).
fn kind_and_duration(p: &Parameter<'_>) -> Result<(u32, Option<Duration>), DecodeError> {
    let mut r = p.reader();
    let k = r.read_u32()?;
    let d = if r.remaining() >= 8 { Some(duration_from_wire(crate::wire::Duration::read(&mut r)?)) } else { None };
    Ok((k, d))
}

fn read_duration(l: &ParameterList<'_>, p: &Parameter<'_>, what: &'static str) -> Result<Duration, DecodeError> {
    Ok(duration_from_wire(plist::read(l, p, what, |p| p.as_duration())?))
}

/// u16 kind, then up to five flags (shorter values keep the defaults for the missing ones, as Fast
/// DDS reads them; older peers send only the kind). Flags are octets, any non-zero is true.
fn read_type_consistency(p: &Parameter<'_>) -> Result<TypeConsistency, DecodeError> {
    let mut r = p.reader();
    let kind = match r.read_u16()? {
        0 => TypeConsistencyKind::DisallowTypeCoercion,
        1 => TypeConsistencyKind::AllowTypeCoercion,
        _ => return Err(DecodeError::new("TYPE_CONSISTENCY_ENFORCEMENT kind is neither 0 nor 1", 0)),
    };
    let mut t = TypeConsistency { kind, ..TypeConsistency::default() };
    let flags = [
        &mut t.ignore_sequence_bounds,
        &mut t.ignore_string_bounds,
        &mut t.ignore_member_names,
        &mut t.prevent_type_widening,
        &mut t.force_type_validation,
    ];
    for f in flags {
        if r.remaining() == 0 {
            break;
        }
        *f = r.read_u8()? != 0;
    }
    Ok(t)
}

/// DCPSPublication data: a writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredWriterData(pub EndpointData);

/// DCPSSubscription data: a reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredReaderData(pub EndpointData);

impl DiscoveredWriterData {
    /// One of our writers, as we announce it.
    pub fn new(guid: Guid, topic_name: &str, type_name: &str, qos: &Qos) -> DiscoveredWriterData {
        DiscoveredWriterData(EndpointData::local(guid, topic_name, type_name, qos, EndpointKind::Writer))
    }

    /// Decodes the serialized payload of an SEDP publications DATA (see
    /// [`super::spdp::SpdpParticipantData::decode`] for `header`).
    pub fn decode(payload: &[u8], header: &Header) -> Result<DiscoveredWriterData, DecodeError> {
        EndpointData::decode(payload, header, EndpointKind::Writer).map(DiscoveredWriterData)
    }

    /// The serialized payload (PL_CDR_LE).
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(256);
        self.0.encode_into(&mut out, EndpointKind::Writer)?;
        Ok(out)
    }

    /// Appends the serialized payload to `out` (on error `out` may hold part of it).
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.0.encode_into(out, EndpointKind::Writer)
    }
}

impl DiscoveredReaderData {
    /// One of our readers, as we announce it.
    pub fn new(guid: Guid, topic_name: &str, type_name: &str, qos: &Qos) -> DiscoveredReaderData {
        DiscoveredReaderData(EndpointData::local(guid, topic_name, type_name, qos, EndpointKind::Reader))
    }

    /// Decodes the serialized payload of an SEDP subscriptions DATA.
    pub fn decode(payload: &[u8], header: &Header) -> Result<DiscoveredReaderData, DecodeError> {
        EndpointData::decode(payload, header, EndpointKind::Reader).map(DiscoveredReaderData)
    }

    /// The serialized payload (PL_CDR_LE).
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(256);
        self.0.encode_into(&mut out, EndpointKind::Reader)?;
        Ok(out)
    }

    /// Appends the serialized payload to `out` (on error `out` may hold part of it).
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.0.encode_into(out, EndpointKind::Reader)
    }
}

impl Deref for DiscoveredWriterData {
    type Target = EndpointData;
    fn deref(&self) -> &EndpointData {
        &self.0
    }
}

impl DerefMut for DiscoveredWriterData {
    fn deref_mut(&mut self) -> &mut EndpointData {
        &mut self.0
    }
}

impl Deref for DiscoveredReaderData {
    type Target = EndpointData;
    fn deref(&self) -> &EndpointData {
        &self.0
    }
}

impl DerefMut for DiscoveredReaderData {
    fn deref_mut(&mut self) -> &mut EndpointData {
        &mut self.0
    }
}

impl BuiltinData for DiscoveredWriterData {
    fn decode(payload: &[u8], header: &Header) -> Result<Self, DecodeError> {
        DiscoveredWriterData::decode(payload, header)
    }
}

impl BuiltinData for DiscoveredReaderData {
    fn decode(payload: &[u8], header: &Header) -> Result<Self, DecodeError> {
        DiscoveredReaderData::decode(payload, header)
    }
}

#[cfg(test)]
#[path = "sedp_tests.rs"]
mod tests;
