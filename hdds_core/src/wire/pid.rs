//! Parameter ids (RTPS 2.5 tables 9.13-9.18, DDS-XTypes 1.3 section 7.6.2.1, DDS-Security).
//!
//! Ids with bit 15 set are vendor-specific: the same number means different things for different
//! vendors (0x800f is RELATED_SAMPLE_IDENTITY for Fast DDS but SUBSCRIPTION_KEYS for Cyclone), so
//! the vendor constants below live in a module per vendor and are read only after checking the
//! sender's vendor id (see `ParameterList::vendor_param`).

/// A parameter id.
pub type ParameterId = u16;

/// Bit 15: the id is vendor-specific.
pub const VENDOR_SPECIFIC_FLAG: ParameterId = 0x8000;
/// Bit 14: a receiver that does not understand the id must treat the entity as incompatible.
pub const INCOMPATIBLE_IF_UNRECOGNIZED_FLAG: ParameterId = 0x4000;

pub const PID_PAD: ParameterId = 0x0000;
pub const PID_SENTINEL: ParameterId = 0x0001;

// Participant (SPDP) and endpoint (SEDP) data.
pub const PID_PARTICIPANT_LEASE_DURATION: ParameterId = 0x0002;
pub const PID_TIME_BASED_FILTER: ParameterId = 0x0004;
pub const PID_TOPIC_NAME: ParameterId = 0x0005;
pub const PID_OWNERSHIP_STRENGTH: ParameterId = 0x0006;
pub const PID_TYPE_NAME: ParameterId = 0x0007;
pub const PID_DOMAIN_ID: ParameterId = 0x000f;
pub const PID_PROTOCOL_VERSION: ParameterId = 0x0015;
pub const PID_VENDORID: ParameterId = 0x0016;
pub const PID_RELIABILITY: ParameterId = 0x001a;
pub const PID_LIVELINESS: ParameterId = 0x001b;
pub const PID_DURABILITY: ParameterId = 0x001d;
pub const PID_DURABILITY_SERVICE: ParameterId = 0x001e;
pub const PID_OWNERSHIP: ParameterId = 0x001f;
pub const PID_PRESENTATION: ParameterId = 0x0021;
pub const PID_DEADLINE: ParameterId = 0x0023;
pub const PID_DESTINATION_ORDER: ParameterId = 0x0025;
pub const PID_LATENCY_BUDGET: ParameterId = 0x0027;
pub const PID_PARTITION: ParameterId = 0x0029;
pub const PID_LIFESPAN: ParameterId = 0x002b;
pub const PID_USER_DATA: ParameterId = 0x002c;
pub const PID_GROUP_DATA: ParameterId = 0x002d;
pub const PID_TOPIC_DATA: ParameterId = 0x002e;
pub const PID_UNICAST_LOCATOR: ParameterId = 0x002f;
pub const PID_MULTICAST_LOCATOR: ParameterId = 0x0030;
pub const PID_DEFAULT_UNICAST_LOCATOR: ParameterId = 0x0031;
pub const PID_METATRAFFIC_UNICAST_LOCATOR: ParameterId = 0x0032;
pub const PID_METATRAFFIC_MULTICAST_LOCATOR: ParameterId = 0x0033;
pub const PID_PARTICIPANT_MANUAL_LIVELINESS_COUNT: ParameterId = 0x0034;
pub const PID_CONTENT_FILTER_PROPERTY: ParameterId = 0x0035;
pub const PID_HISTORY: ParameterId = 0x0040;
pub const PID_RESOURCE_LIMITS: ParameterId = 0x0041;
pub const PID_EXPECTS_INLINE_QOS: ParameterId = 0x0043;
/// Deprecated in favour of PID_BUILTIN_ENDPOINT_SET; some old peers still send it.
pub const PID_PARTICIPANT_BUILTIN_ENDPOINTS: ParameterId = 0x0044;
pub const PID_DEFAULT_MULTICAST_LOCATOR: ParameterId = 0x0048;
pub const PID_TRANSPORT_PRIORITY: ParameterId = 0x0049;
pub const PID_PARTICIPANT_GUID: ParameterId = 0x0050;
pub const PID_GROUP_GUID: ParameterId = 0x0052;
pub const PID_BUILTIN_ENDPOINT_SET: ParameterId = 0x0058;
pub const PID_PROPERTY_LIST: ParameterId = 0x0059;
pub const PID_ENDPOINT_GUID: ParameterId = 0x005a;
pub const PID_TYPE_MAX_SIZE_SERIALIZED: ParameterId = 0x0060;
pub const PID_ENTITY_NAME: ParameterId = 0x0062;
pub const PID_BUILTIN_ENDPOINT_QOS: ParameterId = 0x0077;
pub const PID_DOMAIN_TAG: ParameterId = 0x4014;

// XTypes.
pub const PID_DATA_REPRESENTATION: ParameterId = 0x0073;
pub const PID_TYPE_CONSISTENCY_ENFORCEMENT: ParameterId = 0x0074;
pub const PID_TYPE_INFORMATION: ParameterId = 0x0075;

/// Values in PID_DATA_REPRESENTATION's `sequence<short>` (DDS-XTypes 1.3 7.6.3.1.1).
pub const XCDR_DATA_REPRESENTATION: i16 = 0;
pub const XML_DATA_REPRESENTATION: i16 = 1;
pub const XCDR2_DATA_REPRESENTATION: i16 = 2;

// Inline QoS of DATA / DATA_FRAG.
pub const PID_CONTENT_FILTER_INFO: ParameterId = 0x0055;
pub const PID_COHERENT_SET: ParameterId = 0x0056;
pub const PID_DIRECTED_WRITE: ParameterId = 0x0057;
pub const PID_ORIGINAL_WRITER_INFO: ParameterId = 0x0061;
pub const PID_GROUP_COHERENT_SET: ParameterId = 0x0063;
pub const PID_GROUP_SEQ_NUM: ParameterId = 0x0064;
pub const PID_WRITER_GROUP_INFO: ParameterId = 0x0065;
pub const PID_KEY_HASH: ParameterId = 0x0070;
pub const PID_STATUS_INFO: ParameterId = 0x0071;
/// DDS-RPC's sample identity (writer GUID + sequence number) of the request a reply answers;
/// Fast DDS 2.10+ sends it besides its own 0x800f.
pub const PID_RELATED_SAMPLE_IDENTITY: ParameterId = 0x0083;

// DDS-Security (recognised so that they are not mistaken for unknown ids in logs).
pub const PID_IDENTITY_TOKEN: ParameterId = 0x1001;
pub const PID_PERMISSIONS_TOKEN: ParameterId = 0x1002;
pub const PID_ENDPOINT_SECURITY_INFO: ParameterId = 0x1004;
pub const PID_PARTICIPANT_SECURITY_INFO: ParameterId = 0x1005;

/// STATUS_INFO flags (in the last byte of the 4-byte value).
pub const STATUS_INFO_DISPOSED: u32 = 0x1;
pub const STATUS_INFO_UNREGISTERED: u32 = 0x2;
pub const STATUS_INFO_FILTERED: u32 = 0x4;

/// eProsima Fast DDS (vendor 01.0F) parameter ids, from its ParameterTypes.hpp.
pub mod fastdds {
    use super::ParameterId;
    pub const PID_PERSISTENCE_GUID: ParameterId = 0x8002;
    pub const PID_DISABLE_POSITIVE_ACKS: ParameterId = 0x8005;
    pub const PID_DATASHARING: ParameterId = 0x8006;
    /// RELATED_SAMPLE_IDENTITY as Fast DDS 2.6-2.9 sends it (GUID + sequence number, 24 bytes).
    pub const PID_CUSTOM_RELATED_SAMPLE_IDENTITY: ParameterId = 0x800f;
}

/// Eclipse Cyclone DDS (vendor 01.10) parameter ids, from its ddsi protocol header.
pub mod cyclone {
    use super::ParameterId;
    pub const PID_ADLINK_WRITER_DATA_LIFECYCLE: ParameterId = 0x8003;
    pub const PID_ADLINK_PARTICIPANT_VERSION_INFO: ParameterId = 0x8007;
    pub const PID_ADLINK_ENTITY_FACTORY: ParameterId = 0x800c;
    /// Not the same thing as Fast DDS's 0x800f.
    pub const PID_ADLINK_SUBSCRIPTION_KEYS: ParameterId = 0x800f;
    pub const PID_CYCLONE_RECEIVE_BUFFER_SIZE: ParameterId = 0x8019;
    pub const PID_CYCLONE_TYPE_INFORMATION: ParameterId = 0x801a;
    pub const PID_CYCLONE_TOPIC_GUID: ParameterId = 0x801b;
    pub const PID_CYCLONE_REQUESTS_KEYHASH: ParameterId = 0x801c;
    pub const PID_CYCLONE_REDUNDANT_NETWORKING: ParameterId = 0x801d;
}

/// Bits of PID_BUILTIN_ENDPOINT_SET (RTPS 2.5 section 9.3.2, DDS-Security).
pub mod builtin_endpoint {
    pub const PARTICIPANT_ANNOUNCER: u32 = 1 << 0;
    pub const PARTICIPANT_DETECTOR: u32 = 1 << 1;
    pub const PUBLICATIONS_ANNOUNCER: u32 = 1 << 2;
    pub const PUBLICATIONS_DETECTOR: u32 = 1 << 3;
    pub const SUBSCRIPTIONS_ANNOUNCER: u32 = 1 << 4;
    pub const SUBSCRIPTIONS_DETECTOR: u32 = 1 << 5;
    pub const PARTICIPANT_PROXY_ANNOUNCER: u32 = 1 << 6;
    pub const PARTICIPANT_PROXY_DETECTOR: u32 = 1 << 7;
    pub const PARTICIPANT_STATE_ANNOUNCER: u32 = 1 << 8;
    pub const PARTICIPANT_STATE_DETECTOR: u32 = 1 << 9;
    pub const PARTICIPANT_MESSAGE_DATA_WRITER: u32 = 1 << 10;
    pub const PARTICIPANT_MESSAGE_DATA_READER: u32 = 1 << 11;
    pub const TOPICS_ANNOUNCER: u32 = 1 << 28;
    pub const TOPICS_DETECTOR: u32 = 1 << 29;
}

/// Whether a receiver that does not know `pid` must still look at it (bit 14 on a non-vendor id).
pub const fn must_understand(pid: ParameterId) -> bool {
    pid & VENDOR_SPECIFIC_FLAG == 0 && pid & INCOMPATIBLE_IF_UNRECOGNIZED_FLAG != 0
}

pub const fn is_vendor_specific(pid: ParameterId) -> bool {
    pid & VENDOR_SPECIFIC_FLAG != 0
}
