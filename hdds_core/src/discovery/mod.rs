//! Discovery data, IO-free: what SPDP and SEDP say, how to encode and decode it so that Cyclone DDS
//! 0.10 and Fast DDS 2.9 understand us and we understand them, the well-known ports, and whether a
//! writer and a reader match (with the reason when they do not).
//!
//! - [`ports`]: the RTPS port formula and the SPDP multicast group.
//! - [`user_data`]: ROS's `key=value;` USER_DATA (`enclave=`, `clientid=`, `serviceid=`, `typehash=`).
//! - [`vendor_quirks`]: what we do differently per vendor.

pub mod ports;
pub mod user_data;
pub mod vendor_quirks;

pub use ports::{PortError, Ports, SPDP_MULTICAST_ADDRESS};
pub use user_data::{Csid, UserData};
