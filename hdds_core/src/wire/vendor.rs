//! Vendor ids: ours, defined here and nowhere else, and the ones whose vendor-specific parameters
//! we know how to read.

/// An RTPS vendor id (two bytes, big-endian on the wire as a byte pair).
pub type VendorId = [u8; 2];

/// hdds' vendor id. Not in the OMG's published list as far as we know; peers treat an unknown
/// vendor as generic RTPS, which is exactly what we want. Never send another vendor's id.
pub const VENDOR_ID_HDDS: VendorId = [0x01, 0xF0];

/// Eclipse Cyclone DDS.
pub const VENDOR_ID_CYCLONE: VendorId = [0x01, 0x10];
/// eProsima Fast DDS.
pub const VENDOR_ID_FASTDDS: VendorId = [0x01, 0x0F];
/// RTI Connext DDS.
pub const VENDOR_ID_RTI: VendorId = [0x01, 0x01];
/// Unknown vendor (the spec's VENDORID_UNKNOWN).
pub const VENDOR_ID_UNKNOWN: VendorId = [0x00, 0x00];
