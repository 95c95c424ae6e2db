//! Discovery data, IO-free: what SPDP and SEDP say, how to encode and decode it so that Cyclone DDS
//! 0.10 and Fast DDS 2.9 understand us and we understand them, the well-known ports, and whether a
//! writer and a reader match (with the reason when they do not).
//!
//! - [`ports`]: the RTPS port formula and the SPDP multicast group.
//! - [`spdp`]: [`SpdpParticipantData`] (DCPSParticipant).
//! - [`sedp`]: [`DiscoveredWriterData`] / [`DiscoveredReaderData`] (DCPSPublication /
//!   DCPSSubscription) and their [`EndpointQos`], mapped to and from the engine's [`crate::Qos`].
//! - [`inline_qos`]: key hash and status info of built-in DATA, disposal keys, and
//!   [`decode_change`] (one built-in DATA to "alive" or "gone").
//! - [`user_data`]: ROS's `key=value;` USER_DATA (`enclave=`, `clientid=`, `serviceid=`, `typehash=`).
//! - [`matching`]: [`check_match`] and [`MatchError`].
//! - [`vendor_quirks`]: what we do differently per vendor.
//!
//! Golden tests against captured Cyclone and Fast DDS traffic live in `tests/discovery_*.rs`.
//!
//! Not here (runtime's job): announcing and lease timers, proxies, locator selection, sockets.
//! Missing in `wire` and therefore written here: the type-lookup and security bits of the built-in
//! endpoint set ([`spdp::builtin_endpoints`]), string- and i16-sequence parameter values.

pub mod inline_qos;
pub mod matching;
mod plist;
pub mod ports;
pub mod sedp;
pub mod spdp;
pub mod user_data;
pub mod vendor_quirks;

pub use inline_qos::{decode_change, BuiltinTopic, Change, InlineQos, SerializedPayload, StatusInfo};
pub use matching::{check_match, MatchError, QosPolicy};
pub use ports::{PortError, Ports, SPDP_MULTICAST_ADDRESS};
pub use sedp::{DiscoveredReaderData, DiscoveredWriterData, EndpointData, EndpointKind, EndpointQos};
pub use spdp::SpdpParticipantData;
pub use user_data::{Csid, UserData};
