//! What we do differently per vendor, in one table. Kept to behaviour we have seen in captures or
//! read in the vendors' sources (Cyclone DDS 0.10.2 `q_ddsi_discovery.c`/`ddsi_plist.c`, Fast DDS
//! 2.9.1 `*ProxyData.cpp`/`EDP.cpp`); everything else is plain RTPS and needs no entry.
//!
//! Two lists per vendor:
//! - `reads`: vendor-specific parameter ids (>= 0x8000) that we decode when, and only when, the
//!   data comes from that vendor (the same number means different things per vendor).
//! - `interprets_from_any_vendor`: vendor-specific ids that this vendor decodes *without* checking
//!   the sender's vendor id. We must never send these numbers with another meaning; the encoders in
//!   this module send no vendor-specific id at all (a test checks it).

use crate::wire::pid::{fastdds, ParameterId};
use crate::wire::vendor::{VendorId, VENDOR_ID_CYCLONE, VENDOR_ID_FASTDDS, VENDOR_ID_HDDS, VENDOR_ID_RTI};

/// How a vendor's ROS 2 services tie a reply to its request (DESIGN.md section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceForm {
    /// rmw_cyclonedds_cpp: a 16-byte header in front of the payload (client writer handle + sequence
    /// number) and `clientid=`/`serviceid=` endpoint USER_DATA.
    CycloneRequestHeader,
    /// rmw_fastrtps_cpp: RELATED_SAMPLE_IDENTITY in inline QoS (0x800f up to 2.9, 0x0083 too from 2.10).
    FastDdsSampleIdentity,
    /// Another vendor: no ROS service convention known.
    Unknown,
}

/// One vendor's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VendorQuirks {
    pub vendor: VendorId,
    pub name: &'static str,
    /// Vendor-specific ids we read in this vendor's SPDP/SEDP data.
    pub reads: &'static [ParameterId],
    /// Vendor-specific ids this vendor reads from anyone (so nobody else may reuse them).
    pub interprets_from_any_vendor: &'static [ParameterId],
    /// How its ROS services pair replies with requests.
    pub service_form: ServiceForm,
}

impl VendorQuirks {
    /// Whether we decode vendor-specific `pid` from this vendor.
    pub fn reads(&self, pid: ParameterId) -> bool {
        self.reads.contains(&pid)
    }
}

/// The table. Cyclone's own vendor-specific ids (0x8003 writer data lifecycle, 0x8007 version
/// info, 0x800c entity factory, 0x8019 receive buffer size) carry nothing we act on, so none is read.
pub const TABLE: &[VendorQuirks] = &[
    VendorQuirks {
        vendor: VENDOR_ID_CYCLONE,
        name: "Eclipse Cyclone DDS",
        reads: &[],
        interprets_from_any_vendor: &[],
        service_form: ServiceForm::CycloneRequestHeader,
    },
    VendorQuirks {
        vendor: VENDOR_ID_FASTDDS,
        name: "eProsima Fast DDS",
        // A Fast DDS reader with DISABLE_POSITIVE_ACKS does not match a writer without it.
        reads: &[fastdds::PID_DISABLE_POSITIVE_ACKS],
        // *ProxyData::readFromCDRMessage (SEDP) and the inline QoS reader do not look at the vendor.
        interprets_from_any_vendor: &[
            fastdds::PID_PERSISTENCE_GUID,
            fastdds::PID_DISABLE_POSITIVE_ACKS,
            fastdds::PID_DATASHARING,
            fastdds::PID_CUSTOM_RELATED_SAMPLE_IDENTITY,
        ],
        service_form: ServiceForm::FastDdsSampleIdentity,
    },
    VendorQuirks {
        vendor: VENDOR_ID_HDDS,
        name: "hdds",
        reads: &[],
        interprets_from_any_vendor: &[],
        // hdds to hdds uses the Fast DDS form (DESIGN.md section 3).
        service_form: ServiceForm::FastDdsSampleIdentity,
    },
    VendorQuirks {
        vendor: VENDOR_ID_RTI,
        name: "RTI Connext DDS",
        reads: &[],
        interprets_from_any_vendor: &[],
        service_form: ServiceForm::Unknown,
    },
];

/// Any other vendor: plain RTPS, no vendor-specific id read.
pub const GENERIC: VendorQuirks = VendorQuirks {
    vendor: [0, 0],
    name: "unknown vendor",
    reads: &[],
    interprets_from_any_vendor: &[],
    service_form: ServiceForm::Unknown,
};

/// The row for `vendor` ([`GENERIC`] for vendors not in the table).
pub fn quirks(vendor: VendorId) -> &'static VendorQuirks {
    TABLE.iter().find(|q| q.vendor == vendor).unwrap_or(&GENERIC)
}

/// Whether some vendor reads `pid` whatever the sender: we may send it only with that meaning.
pub fn is_claimed_by_any_vendor(pid: ParameterId) -> bool {
    TABLE.iter().any(|q| q.interprets_from_any_vendor.contains(&pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        assert_eq!(quirks(VENDOR_ID_CYCLONE).service_form, ServiceForm::CycloneRequestHeader);
        assert!(quirks(VENDOR_ID_FASTDDS).reads(fastdds::PID_DISABLE_POSITIVE_ACKS));
        assert!(!quirks(VENDOR_ID_CYCLONE).reads(fastdds::PID_DISABLE_POSITIVE_ACKS), "0x8005 means something else");
        assert_eq!(quirks([0x01, 0x99]), &GENERIC);
        assert!(is_claimed_by_any_vendor(0x800f));
        assert!(!is_claimed_by_any_vendor(0x8007));
        // One row per vendor.
        for (i, a) in TABLE.iter().enumerate() {
            assert!(TABLE[i + 1..].iter().all(|b| b.vendor != a.vendor));
        }
    }
}
