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
mod tests {
    use super::*;
    use crate::qos::Durability;
    use crate::wire::vendor::{VENDOR_ID_CYCLONE, VENDOR_ID_FASTDDS};
    use crate::wire::{EntityKind, GuidPrefix};
    use std::net::Ipv4Addr;

    fn prefix() -> GuidPrefix {
        GuidPrefix([1, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1])
    }

    fn header(vendor: VendorId) -> Header {
        Header { version: ProtocolVersion::CURRENT, vendor_id: vendor, guid_prefix: prefix() }
    }

    fn writer() -> DiscoveredWriterData {
        let g = Guid::new(prefix(), EntityId::user(0x12, EntityKind::UserWriterNoKey));
        DiscoveredWriterData::new(g, "rt/chatter", "std_msgs::msg::dds_::String_", &Qos::default())
    }

    fn reader() -> DiscoveredReaderData {
        let g = Guid::new(prefix(), EntityId::user(0x13, EntityKind::UserReaderNoKey));
        DiscoveredReaderData::new(g, "rt/chatter", "std_msgs::msg::dds_::String_", &Qos::default())
    }

    #[test]
    fn local_endpoints_round_trip() {
        let w = writer();
        assert_eq!(DiscoveredWriterData::decode(&w.encode().unwrap(), &header(VENDOR_ID_HDDS)).unwrap(), w);
        let r = reader();
        assert_eq!(DiscoveredReaderData::decode(&r.encode().unwrap(), &header(VENDOR_ID_HDDS)).unwrap(), r);
        assert!(!w.keyed() && !r.keyed());
        assert_eq!(w.qos.to_qos(), Qos::default());
        assert_eq!(w.qos.data_representation, [data_representation::XCDR1]);
    }

    #[test]
    fn every_policy_round_trips() {
        let mut w = writer();
        let q = &mut w.qos;
        q.reliability = Reliability::BestEffort;
        q.max_blocking_time = Duration::from_millis(250);
        q.durability = DurabilityKind::Persistent;
        q.history = History::KeepAll;
        q.deadline = Duration::from_secs(1);
        q.latency_budget = Duration::from_millis(5);
        q.lifespan = Duration::from_secs(30);
        q.liveliness = Liveliness { kind: LivelinessKind::ManualByTopic, lease_duration: Duration::from_secs(3) };
        q.ownership = OwnershipKind::Exclusive;
        q.ownership_strength = -7;
        q.destination_order = DestinationOrderKind::BySourceTimestamp;
        q.presentation =
            Presentation { access_scope: PresentationAccessScope::Group, coherent_access: true, ordered_access: true };
        q.partition = vec!["a".into(), "".into(), "b*".into()];
        q.user_data = b"typehash=RIHS01_00;".to_vec();
        q.topic_data = vec![1];
        q.group_data = vec![2, 3];
        q.data_representation = vec![data_representation::XCDR2, data_representation::XCDR1];
        w.unicast_locators.push(Locator::udpv4(Ipv4Addr::LOCALHOST, 7411));
        w.multicast_locators.push(Locator::udpv4(Ipv4Addr::new(239, 255, 0, 1), 7401));
        w.type_information = Some(vec![9, 9, 9, 9]);
        w.participant_guid = Guid::new(GuidPrefix([3; 12]), EntityId::PARTICIPANT);
        for endian_flip in [false, true] {
            let mut bytes = w.encode().unwrap();
            if endian_flip {
                bytes = to_big_endian(&bytes);
            }
            assert_eq!(DiscoveredWriterData::decode(&bytes, &header(VENDOR_ID_HDDS)).unwrap(), w);
        }

        let mut r = reader();
        r.qos.type_consistency = TypeConsistency {
            kind: TypeConsistencyKind::DisallowTypeCoercion,
            ignore_sequence_bounds: false,
            ignore_string_bounds: false,
            ignore_member_names: true,
            prevent_type_widening: true,
            force_type_validation: true,
        };
        r.expects_inline_qos = true;
        r.qos.history = History::KeepLast(1000);
        assert_eq!(DiscoveredReaderData::decode(&r.encode().unwrap(), &header(VENDOR_ID_HDDS)).unwrap(), r);
    }

    /// Re-writes a PL_CDR_LE payload of our encoder as PL_CDR_BE, value by value (the encoder only
    /// writes little endian), to check that decoding honours the big-endian encapsulation.
    fn to_big_endian(le: &[u8]) -> Vec<u8> {
        let list = ParameterList::parse_payload(le, VENDOR_ID_HDDS).unwrap();
        let mut out = Vec::new();
        let mut w = ParameterListWriter::payload(&mut out, Endian::Big);
        for p in list.iter() {
            let v = p.value;
            let u32s = |w: &mut ParameterListWriter<'_>, n: usize| {
                w.put_with(p.pid, |c| {
                    for i in 0..n {
                        c.write_u32(u32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap()))?;
                    }
                    Ok(())
                })
            };
            match p.pid {
                pid::PID_TOPIC_NAME | pid::PID_TYPE_NAME => w.put_str(p.pid, p.as_str().unwrap()).unwrap(),
                pid::PID_RELIABILITY | pid::PID_LIVELINESS => u32s(&mut w, 3).unwrap(),
                pid::PID_DURABILITY | pid::PID_OWNERSHIP | pid::PID_OWNERSHIP_STRENGTH | pid::PID_DESTINATION_ORDER => {
                    u32s(&mut w, 1).unwrap()
                }
                pid::PID_HISTORY | pid::PID_DEADLINE | pid::PID_LATENCY_BUDGET | pid::PID_LIFESPAN => {
                    u32s(&mut w, 2).unwrap()
                }
                pid::PID_PRESENTATION => w
                    .put_with(p.pid, |c| {
                        c.write_u32(u32::from_le_bytes(v[..4].try_into().unwrap()))?;
                        c.write_bytes(&v[4..6])
                    })
                    .unwrap(),
                pid::PID_PARTITION => w
                    .put_with(p.pid, |c| {
                        let ss = plist::read_string_sequence(&p).unwrap();
                        c.write_sequence_len(ss.len())?;
                        ss.iter().try_for_each(|s| c.write_string(s))
                    })
                    .unwrap(),
                pid::PID_USER_DATA | pid::PID_TOPIC_DATA | pid::PID_GROUP_DATA => {
                    w.put_bytes_sequence(p.pid, p.as_bytes_sequence().unwrap()).unwrap()
                }
                pid::PID_DATA_REPRESENTATION => {
                    w.put_with(p.pid, |c| c.write_sequence(&plist::read_i16_sequence(&p).unwrap())).unwrap()
                }
                pid::PID_UNICAST_LOCATOR | pid::PID_MULTICAST_LOCATOR => {
                    w.put_locator(p.pid, &p.as_locator().unwrap()).unwrap()
                }
                _ => w.put(p.pid, v).unwrap(), // byte arrays: GUIDs, versions, vendor, type information
            }
        }
        w.finish();
        out
    }

    #[test]
    fn spec_defaults_for_absent_policies() {
        let g = Guid::new(prefix(), EntityId::user(1, EntityKind::UserWriterWithKey));
        let mut v = Vec::new();
        let mut w = ParameterListWriter::payload(&mut v, Endian::Little);
        w.put_guid(pid::PID_ENDPOINT_GUID, &g).unwrap();
        w.put_str(pid::PID_TOPIC_NAME, "T").unwrap();
        w.put_str(pid::PID_TYPE_NAME, "X").unwrap();
        w.finish();
        let d = DiscoveredWriterData::decode(&v, &header(VENDOR_ID_CYCLONE)).unwrap();
        assert_eq!(d.qos, EndpointQos::spec_default(EndpointKind::Writer));
        assert_eq!(d.qos.reliability, Reliability::Reliable);
        assert_eq!(d.qos.max_blocking_time, Duration::from_millis(100));
        assert_eq!(d.qos.durability, DurabilityKind::Volatile);
        assert_eq!(d.qos.history, History::KeepLast(1));
        assert_eq!(d.participant_guid, Guid::new(prefix(), EntityId::PARTICIPANT));
        assert!(d.keyed());
        assert!(d.unicast_locators.is_empty());
        assert_eq!(d.qos.offered_representation(), data_representation::XCDR1);

        let g = Guid::new(prefix(), EntityId::user(1, EntityKind::UserReaderNoKey));
        v[8..24].copy_from_slice(&g.to_bytes());
        let r = DiscoveredReaderData::decode(&v, &header(VENDOR_ID_CYCLONE)).unwrap();
        assert_eq!(r.qos.reliability, Reliability::BestEffort);
        assert_eq!(r.qos.to_qos().durability, Durability::Volatile);
        assert!(r.qos.accepts_representation(data_representation::XCDR1));
        assert!(!r.qos.accepts_representation(data_representation::XCDR2));
        assert!(DiscoveredWriterData::decode(&v, &header(VENDOR_ID_CYCLONE)).is_err(), "a reader GUID in DATA(w)");
    }

    #[test]
    fn missing_mandatory_parameters_and_bad_values() {
        let g = Guid::new(prefix(), EntityId::user(1, EntityKind::UserWriterNoKey));
        let build = |skip: ParameterId, extra: Option<(ParameterId, &[u8])>| {
            let mut v = Vec::new();
            let mut w = ParameterListWriter::payload(&mut v, Endian::Little);
            if skip != pid::PID_ENDPOINT_GUID {
                w.put_guid(pid::PID_ENDPOINT_GUID, &g).unwrap();
            }
            if skip != pid::PID_TOPIC_NAME {
                w.put_str(pid::PID_TOPIC_NAME, "T").unwrap();
            }
            if skip != pid::PID_TYPE_NAME {
                w.put_str(pid::PID_TYPE_NAME, "X").unwrap();
            }
            if let Some((p, val)) = extra {
                w.put(p, val).unwrap();
            }
            w.finish();
            v
        };
        let h = header(VENDOR_ID_FASTDDS);
        for (skip, name) in [
            (pid::PID_ENDPOINT_GUID, "PID_ENDPOINT_GUID"),
            (pid::PID_TOPIC_NAME, "PID_TOPIC_NAME"),
            (pid::PID_TYPE_NAME, "PID_TYPE_NAME"),
        ] {
            let e = DiscoveredWriterData::decode(&build(skip, None), &h).unwrap_err();
            assert!(e.reason.contains(name), "{e}");
        }
        // KEY_HASH stands in for a missing ENDPOINT_GUID (as Fast DDS allows).
        let d =
            DiscoveredWriterData::decode(&build(pid::PID_ENDPOINT_GUID, Some((pid::PID_KEY_HASH, &g.to_bytes()))), &h);
        assert_eq!(d.unwrap().guid, g);
        for (p, val) in [
            (pid::PID_RELIABILITY, &[3u8, 0, 0, 0][..]),
            (pid::PID_DURABILITY, &[4, 0, 0, 0]),
            (pid::PID_HISTORY, &[2, 0, 0, 0, 1, 0, 0, 0]),
            (pid::PID_LIVELINESS, &[3, 0, 0, 0]),
            (pid::PID_OWNERSHIP, &[2, 0, 0, 0]),
            (pid::PID_DESTINATION_ORDER, &[2, 0, 0, 0]),
            (pid::PID_PRESENTATION, &[3, 0, 0, 0, 0, 0, 0, 0]),
            (pid::PID_DEADLINE, &[1, 0, 0, 0]),
            (pid::PID_PARTITION, &[9, 0, 0, 0]),
        ] {
            let e = DiscoveredWriterData::decode(&build(0, Some((p, val))), &h).unwrap_err();
            assert!(e.offset > 4, "{p:#x}: {e}");
        }
        // Reader policies in writer data are skipped; in reader data they are checked.
        let bad_tce: &[u8] = &[2, 0, 0, 0];
        assert!(
            DiscoveredWriterData::decode(&build(0, Some((pid::PID_TYPE_CONSISTENCY_ENFORCEMENT, bad_tce))), &h).is_ok()
        );
        let mut rd = build(0, Some((pid::PID_TYPE_CONSISTENCY_ENFORCEMENT, bad_tce)));
        let rg = Guid::new(prefix(), EntityId::user(1, EntityKind::UserReaderNoKey));
        rd[8..24].copy_from_slice(&rg.to_bytes());
        assert!(DiscoveredReaderData::decode(&rd, &h).unwrap_err().reason.contains("TYPE_CONSISTENCY"));
        // Tolerated: a reliability kind without its duration, a KEEP_LAST depth of 0.
        let d = DiscoveredWriterData::decode(&build(0, Some((pid::PID_RELIABILITY, &[1, 0, 0, 0]))), &h).unwrap();
        assert_eq!((d.qos.reliability, d.qos.max_blocking_time), (Reliability::BestEffort, Duration::from_millis(100)));
        let d =
            DiscoveredWriterData::decode(&build(0, Some((pid::PID_HISTORY, &[0, 0, 0, 0, 0, 0, 0, 0]))), &h).unwrap();
        assert_eq!(d.qos.history, History::KeepLast(1));
    }

    #[test]
    fn vendor_specific_ids_only_from_their_vendor() {
        let g = Guid::new(prefix(), EntityId::user(1, EntityKind::UserReaderNoKey));
        let mut v = Vec::new();
        let mut w = ParameterListWriter::payload(&mut v, Endian::Little);
        w.put_guid(pid::PID_ENDPOINT_GUID, &g).unwrap();
        w.put_str(pid::PID_TOPIC_NAME, "T").unwrap();
        w.put_str(pid::PID_TYPE_NAME, "X").unwrap();
        w.put(fastdds::PID_DISABLE_POSITIVE_ACKS, &[1, 0, 0, 0]).unwrap();
        w.finish();
        let fast = DiscoveredReaderData::decode(&v, &header(VENDOR_ID_FASTDDS)).unwrap();
        assert!(fast.qos.disable_positive_acks);
        assert!(fast.ignored_pids.is_empty());
        let cyc = DiscoveredReaderData::decode(&v, &header(VENDOR_ID_CYCLONE)).unwrap();
        assert!(!cyc.qos.disable_positive_acks);
        assert_eq!(cyc.ignored_pids, [0x8005]);
    }

    #[test]
    fn our_encoding_is_what_the_vendors_accept() {
        let mut r = reader();
        r.qos.partition = vec!["p".into()];
        r.qos.type_consistency.force_type_validation = true;
        r.unicast_locators.push(Locator::udpv4(Ipv4Addr::LOCALHOST, 7413));
        for bytes in [writer().encode().unwrap(), r.encode().unwrap()] {
            assert_eq!(&bytes[..4], &[0, 3, 0, 0], "PL_CDR_LE");
            let l = ParameterList::parse_payload(&bytes, VENDOR_ID_HDDS).unwrap();
            let mut seen = Vec::new();
            for p in l.iter() {
                assert!(!pid::is_vendor_specific(p.pid), "{:#x}", p.pid);
                assert!(
                    p.pid != pid::PID_UNICAST_LOCATOR && p.pid != pid::PID_MULTICAST_LOCATOR || p.value.len() == 24
                );
                if p.pid != pid::PID_UNICAST_LOCATOR && p.pid != pid::PID_MULTICAST_LOCATOR {
                    assert!(!seen.contains(&p.pid), "{:#x} twice", p.pid);
                    seen.push(p.pid);
                }
                // Fast DDS checks exact lengths.
                let exact = match p.pid {
                    pid::PID_RELIABILITY | pid::PID_LIVELINESS => Some(12),
                    pid::PID_DURABILITY | pid::PID_OWNERSHIP | pid::PID_PROTOCOL_VERSION | pid::PID_VENDORID => Some(4),
                    pid::PID_HISTORY | pid::PID_DEADLINE | pid::PID_PRESENTATION | pid::PID_DATA_REPRESENTATION => {
                        Some(8)
                    }
                    pid::PID_TYPE_CONSISTENCY_ENFORCEMENT => Some(8),
                    pid::PID_ENDPOINT_GUID | pid::PID_PARTICIPANT_GUID => Some(16),
                    _ => None,
                };
                if let Some(n) = exact {
                    assert_eq!(p.value.len(), n, "{:#x}", p.pid);
                }
                assert!(p.pid != pid::PID_EXPECTS_INLINE_QOS);
            }
            for must in [
                pid::PID_ENDPOINT_GUID,
                pid::PID_TOPIC_NAME,
                pid::PID_TYPE_NAME,
                pid::PID_RELIABILITY,
                pid::PID_DURABILITY,
                pid::PID_HISTORY,
                pid::PID_DATA_REPRESENTATION,
            ] {
                assert!(seen.contains(&must), "{must:#x} missing");
            }
        }
        assert!(
            ParameterList::parse_payload(&writer().encode().unwrap(), VENDOR_ID_HDDS)
                .unwrap()
                .find(pid::PID_TYPE_CONSISTENCY_ENFORCEMENT)
                .is_none(),
            "never from a writer"
        );
    }
}
