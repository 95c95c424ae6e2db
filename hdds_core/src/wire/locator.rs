//! Locators (RTPS 2.5 section 9.3.2.1): kind (i32), port (u32), 16-byte address.
//!
//! Kinds other than UDPv4/UDPv6 (Fast DDS announces shared memory as kind 16, TCP exists too) are
//! decoded like any other and reported as not usable by [`Locator::socket_addr`]; callers skip them.
//! They are never an error: a peer that offers more transports than we speak is normal.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

use crate::cdr::{CdrReader, CdrSink, CdrWriter, DecodeError, EncodeError};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Locator {
    pub kind: i32,
    pub port: u32,
    pub address: [u8; 16],
}

impl Locator {
    pub const KIND_INVALID: i32 = -1;
    pub const KIND_RESERVED: i32 = 0;
    pub const KIND_UDPV4: i32 = 1;
    pub const KIND_UDPV6: i32 = 2;
    /// Fast DDS's shared-memory transport (vendor-defined; ignored by us).
    pub const KIND_FASTDDS_SHM: i32 = 16;
    /// Our shared-memory transport (vendor-defined, ASCII "HDDS"; `transport::shm` says what the
    /// address holds). Other vendors skip kinds they do not know.
    pub const KIND_HDDS_SHM: i32 = 0x4844_4453;
    pub const PORT_INVALID: u32 = 0;
    pub const SIZE: usize = 24;
    pub const INVALID: Locator = Locator { kind: Self::KIND_INVALID, port: Self::PORT_INVALID, address: [0; 16] };

    /// A UDPv4 locator: the IPv4 address sits in the last 4 bytes.
    pub fn udpv4(ip: Ipv4Addr, port: u16) -> Locator {
        let mut address = [0u8; 16];
        address[12..].copy_from_slice(&ip.octets());
        Locator { kind: Self::KIND_UDPV4, port: port as u32, address }
    }

    pub fn udpv6(ip: Ipv6Addr, port: u16) -> Locator {
        Locator { kind: Self::KIND_UDPV6, port: port as u32, address: ip.octets() }
    }

    pub fn from_socket_addr(a: SocketAddr) -> Locator {
        match a {
            SocketAddr::V4(a) => Self::udpv4(*a.ip(), a.port()),
            SocketAddr::V6(a) => Self::udpv6(*a.ip(), a.port()),
        }
    }

    /// Whether this is a kind we can send to (UDPv4 or UDPv6).
    pub fn is_udp(&self) -> bool {
        self.kind == Self::KIND_UDPV4 || self.kind == Self::KIND_UDPV6
    }

    /// The UDP socket address, or `None` for other kinds and ports that do not fit in 16 bits.
    pub fn socket_addr(&self) -> Option<SocketAddr> {
        let port = u16::try_from(self.port).ok()?;
        match self.kind {
            Self::KIND_UDPV4 => {
                let a = &self.address;
                Some(SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(a[12], a[13], a[14], a[15]), port)))
            }
            Self::KIND_UDPV6 => Some(SocketAddr::V6(SocketAddrV6::new(Ipv6Addr::from(self.address), port, 0, 0))),
            _ => None,
        }
    }

    pub fn read(r: &mut CdrReader<'_>) -> Result<Self, DecodeError> {
        Ok(Locator { kind: r.read_i32()?, port: r.read_u32()?, address: r.read_array()? })
    }

    pub fn write<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), EncodeError> {
        w.write_i32(self.kind)?;
        w.write_u32(self.port)?;
        w.write_bytes(&self.address)
    }
}

/// A LocatorList as INFO_REPLY carries it (u32 count, then locators), kept borrowed so that parsing
/// allocates nothing; iterate to decode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LocatorList<'a> {
    bytes: &'a [u8],
    endian: crate::cdr::Endian,
}

impl<'a> LocatorList<'a> {
    pub const EMPTY: LocatorList<'static> = LocatorList { bytes: &[], endian: crate::cdr::Endian::Little };

    /// Reads the count and takes the locators' bytes after checking that they are all there.
    pub fn read(r: &mut CdrReader<'a>) -> Result<Self, DecodeError> {
        let n = r.read_sequence_len(Locator::SIZE)?;
        let endian = r.endian();
        Ok(LocatorList { bytes: r.read_bytes(n * Locator::SIZE)?, endian })
    }

    pub fn len(&self) -> usize {
        self.bytes.len() / Locator::SIZE
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = Locator> + 'a {
        let endian = self.endian;
        // Each chunk is exactly Locator::SIZE bytes, which `read` checked, so decoding cannot fail.
        self.bytes.chunks_exact(Locator::SIZE).filter_map(move |c| Locator::read(&mut CdrReader::new(c, endian)).ok())
    }

    /// Encodes a list of locators (count, then each).
    pub fn write<S: CdrSink>(locators: &[Locator], w: &mut CdrWriter<S>) -> Result<(), EncodeError> {
        w.write_sequence_len(locators.len())?;
        locators.iter().try_for_each(|l| l.write(w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdr::Endian;

    #[test]
    fn udpv4_round_trip_and_unknown_kinds() {
        let l = Locator::udpv4(Ipv4Addr::new(127, 0, 0, 1), 7410);
        assert_eq!(l.socket_addr(), Some("127.0.0.1:7410".parse().unwrap()));
        let mut w = CdrWriter::new(Vec::new(), Endian::Big);
        l.write(&mut w).unwrap();
        let v = w.into_inner();
        assert_eq!(&v[..8], &[0, 0, 0, 1, 0, 0, 0x1c, 0xf2]);
        assert_eq!(Locator::read(&mut CdrReader::new(&v, Endian::Big)).unwrap(), l);
        let shm = Locator { kind: Locator::KIND_FASTDDS_SHM, port: 1, address: [0; 16] };
        assert!(!shm.is_udp() && shm.socket_addr().is_none());
    }

    #[test]
    fn list() {
        let ls = [Locator::udpv4(Ipv4Addr::LOCALHOST, 1), Locator::udpv6(Ipv6Addr::LOCALHOST, 2)];
        let mut w = CdrWriter::new(Vec::new(), Endian::Little);
        LocatorList::write(&ls, &mut w).unwrap();
        let v = w.into_inner();
        let list = LocatorList::read(&mut CdrReader::new(&v, Endian::Little)).unwrap();
        assert_eq!(list.iter().collect::<Vec<_>>(), ls);
        let mut bad = v.clone();
        bad[0] = 3;
        assert!(LocatorList::read(&mut CdrReader::new(&bad, Endian::Little)).is_err());
    }
}
