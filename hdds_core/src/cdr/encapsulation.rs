//! The encapsulation header (RTPS 2.5 section 10, DDS-XTypes 1.3 section 7.6.3.1.2): 2 bytes of
//! representation identifier (big endian, whatever the payload's byte order) and 2 bytes of options.
//!
//! The options are ignored on receive: XTypes puts the payload's trailing padding count in their low
//! two bits, older peers leave them zero, and none of it changes how the payload is read.

use super::{DecodeError, Endian, XcdrVersion};

/// The representation identifiers DDS-RTPS and DDS-XTypes define.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum EncapsulationKind {
    CdrBe,
    CdrLe,
    PlCdrBe,
    PlCdrLe,
    Cdr2Be,
    Cdr2Le,
    PlCdr2Be,
    PlCdr2Le,
    DCdr2Be,
    DCdr2Le,
}

impl EncapsulationKind {
    /// The identifier as it goes on the wire.
    pub const fn id(self) -> u16 {
        match self {
            EncapsulationKind::CdrBe => 0x0000,
            EncapsulationKind::CdrLe => 0x0001,
            EncapsulationKind::PlCdrBe => 0x0002,
            EncapsulationKind::PlCdrLe => 0x0003,
            EncapsulationKind::Cdr2Be => 0x0010,
            EncapsulationKind::Cdr2Le => 0x0011,
            EncapsulationKind::PlCdr2Be => 0x0012,
            EncapsulationKind::PlCdr2Le => 0x0013,
            EncapsulationKind::DCdr2Be => 0x0014,
            EncapsulationKind::DCdr2Le => 0x0015,
        }
    }

    /// The kind for an identifier; `None` for ones we cannot read (XML, JSON, vendor ids).
    pub const fn from_id(id: u16) -> Option<Self> {
        Some(match id {
            0x0000 => EncapsulationKind::CdrBe,
            0x0001 => EncapsulationKind::CdrLe,
            0x0002 => EncapsulationKind::PlCdrBe,
            0x0003 => EncapsulationKind::PlCdrLe,
            0x0010 => EncapsulationKind::Cdr2Be,
            0x0011 => EncapsulationKind::Cdr2Le,
            0x0012 => EncapsulationKind::PlCdr2Be,
            0x0013 => EncapsulationKind::PlCdr2Le,
            0x0014 => EncapsulationKind::DCdr2Be,
            0x0015 => EncapsulationKind::DCdr2Le,
            _ => return None,
        })
    }

    /// Every identifier's low bit is its byte order: 1 little, 0 big.
    pub const fn endian(self) -> Endian {
        if self.id() & 1 == 1 {
            Endian::Little
        } else {
            Endian::Big
        }
    }

    pub const fn version(self) -> XcdrVersion {
        if self.id() & 0x0010 != 0 {
            XcdrVersion::Xcdr2
        } else {
            XcdrVersion::Xcdr1
        }
    }

    /// PL_CDR / PL_CDR2: a parameter list (discovery data, mutable types).
    pub const fn is_parameter_list(self) -> bool {
        matches!(
            self,
            EncapsulationKind::PlCdrBe
                | EncapsulationKind::PlCdrLe
                | EncapsulationKind::PlCdr2Be
                | EncapsulationKind::PlCdr2Le
        )
    }

    /// Plain CDR of the given version and byte order.
    pub const fn plain(version: XcdrVersion, endian: Endian) -> Self {
        match (version, endian) {
            (XcdrVersion::Xcdr1, Endian::Big) => EncapsulationKind::CdrBe,
            (XcdrVersion::Xcdr1, Endian::Little) => EncapsulationKind::CdrLe,
            (XcdrVersion::Xcdr2, Endian::Big) => EncapsulationKind::Cdr2Be,
            (XcdrVersion::Xcdr2, Endian::Little) => EncapsulationKind::Cdr2Le,
        }
    }

    /// XCDR1 parameter list in the given byte order (what SPDP/SEDP data uses).
    pub const fn parameter_list(endian: Endian) -> Self {
        match endian {
            Endian::Big => EncapsulationKind::PlCdrBe,
            Endian::Little => EncapsulationKind::PlCdrLe,
        }
    }
}

/// A parsed encapsulation header.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Encapsulation {
    pub kind: EncapsulationKind,
    /// Kept for inspection only (see the module documentation).
    pub options: u16,
}

impl Encapsulation {
    pub const SIZE: usize = 4;

    /// What we put in front of user data: CDR little endian, XCDR1, options zero.
    pub const USER_DATA_HEADER: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

    pub const fn new(kind: EncapsulationKind) -> Self {
        Encapsulation { kind, options: 0 }
    }

    /// Splits a serialized payload into its header and the body that follows it (the CDR origin).
    pub fn parse(payload: &[u8]) -> Result<(Encapsulation, &[u8]), DecodeError> {
        if payload.len() < 4 {
            return Err(DecodeError::new("payload shorter than its 4-byte encapsulation header", 0));
        }
        let (head, body) = payload.split_at(4);
        let id = u16::from_be_bytes([head[0], head[1]]);
        let Some(kind) = EncapsulationKind::from_id(id) else {
            return Err(DecodeError::new("unknown encapsulation (representation identifier)", 0));
        };
        Ok((Encapsulation { kind, options: u16::from_be_bytes([head[2], head[3]]) }, body))
    }

    pub const fn to_bytes(self) -> [u8; 4] {
        let id = self.kind.id().to_be_bytes();
        let opt = self.options.to_be_bytes();
        [id[0], id[1], opt[0], opt[1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_properties() {
        for id in [0x0000u16, 1, 2, 3, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15] {
            let k = EncapsulationKind::from_id(id).unwrap();
            assert_eq!(k.id(), id);
            assert_eq!(k.endian() == Endian::Little, id & 1 == 1);
        }
        assert_eq!(EncapsulationKind::from_id(0x0004), None);
        assert!(EncapsulationKind::PlCdrLe.is_parameter_list());
        assert!(!EncapsulationKind::DCdr2Le.is_parameter_list());
        assert_eq!(EncapsulationKind::DCdr2Be.version(), XcdrVersion::Xcdr2);
        assert_eq!(EncapsulationKind::CdrLe.version(), XcdrVersion::Xcdr1);
    }

    #[test]
    fn parse_ignores_options_and_rejects_short_or_unknown() {
        let (e, body) = Encapsulation::parse(&[0, 1, 0, 3, 9, 9]).unwrap();
        assert_eq!(e.kind, EncapsulationKind::CdrLe);
        assert_eq!(e.options, 3);
        assert_eq!(body, &[9, 9]);
        assert!(Encapsulation::parse(&[0, 1, 0]).is_err());
        assert!(Encapsulation::parse(&[0x00, 0x05, 0, 0]).is_err());
        assert_eq!(Encapsulation::new(EncapsulationKind::CdrLe).to_bytes(), Encapsulation::USER_DATA_HEADER);
    }
}
