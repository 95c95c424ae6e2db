//! RTPS well-known ports (RTPS 2.5 section 9.6.1.1) and the SPDP multicast group.
//!
//! ```text
//! SPDP multicast (metatraffic multicast)  PB + DG * domain + d0
//! SPDP/SEDP unicast (metatraffic unicast) PB + DG * domain + d1 + PG * index
//! user multicast (default multicast)      PB + DG * domain + d2
//! user unicast (default unicast)          PB + DG * domain + d3 + PG * index
//! ```
//!
//! with PB = 7400, DG = 250, PG = 2, d0 = 0, d1 = 10, d2 = 1, d3 = 11. Every port must fit in 16
//! bits, which bounds the domain id at 232 and, per domain, the participant index. Peers send to the
//! locators a participant advertises, which need not be these (Cyclone may pick random unicast
//! ports); these numbers are where SPDP announcements go when nothing else is known.

use std::fmt;
use std::net::Ipv4Addr;

/// Port base.
pub const PB: u32 = 7400;
/// Domain id gain.
pub const DG: u32 = 250;
/// Participant id gain.
pub const PG: u32 = 2;
/// Offset of the metatraffic (SPDP) multicast port.
pub const D0: u32 = 0;
/// Offset of the metatraffic unicast port.
pub const D1: u32 = 10;
/// Offset of the user-data multicast port.
pub const D2: u32 = 1;
/// Offset of the user-data unicast port.
pub const D3: u32 = 11;

/// The default SPDP multicast group, 239.255.0.1.
pub const SPDP_MULTICAST_ADDRESS: Ipv4Addr = Ipv4Addr::new(239, 255, 0, 1);

/// The highest domain id whose ports all fit in 16 bits (7400 + 250 * 232 + 11 = 65411).
pub const MAX_DOMAIN_ID: u32 = 232;

/// Why a port could not be computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortError {
    /// The domain id is above [`MAX_DOMAIN_ID`].
    DomainIdOutOfRange { domain_id: u32 },
    /// The participant index puts the unicast ports outside the domain's window or past 65535.
    ParticipantIndexOutOfRange { domain_id: u32, participant_index: u32, max: u32 },
}

impl fmt::Display for PortError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PortError::DomainIdOutOfRange { domain_id } => write!(
                f,
                "domain id {domain_id} is out of range: RTPS ports exist only for domain ids 0 to {MAX_DOMAIN_ID} \
                 (7400 + 250 * domain id must leave room below 65536); set ROS_DOMAIN_ID to a value in that range"
            ),
            PortError::ParticipantIndexOutOfRange { domain_id, participant_index, max } => write!(
                f,
                "participant index {participant_index} is out of range in domain {domain_id}: its unicast ports \
                 would run into the next domain's ports or past 65535; the highest usable index in this domain \
                 is {max}"
            ),
        }
    }
}

impl std::error::Error for PortError {}

impl From<PortError> for crate::Error {
    fn from(e: PortError) -> Self {
        crate::Error::bad_argument(e.to_string())
    }
}

fn check_domain(domain_id: u32) -> Result<u32, PortError> {
    if domain_id > MAX_DOMAIN_ID {
        return Err(PortError::DomainIdOutOfRange { domain_id });
    }
    Ok(PB + DG * domain_id)
}

/// The highest participant index in `domain_id`: its unicast ports must stay inside the domain's
/// 250-port window (index 120 of domain 0 would be domain 1's SPDP multicast port 7650) and fit in
/// 16 bits (which limits domain 232 to index 62).
pub fn max_participant_index(domain_id: u32) -> Result<u32, PortError> {
    let base = check_domain(domain_id)?;
    Ok(((DG - 1 - D3) / PG).min((u32::from(u16::MAX) - base - D3) / PG))
}

fn indexed(domain_id: u32, participant_index: u32, offset: u32) -> Result<u16, PortError> {
    let base = check_domain(domain_id)?;
    let max = max_participant_index(domain_id)?;
    if participant_index > max {
        return Err(PortError::ParticipantIndexOutOfRange { domain_id, participant_index, max });
    }
    // In range by construction: base + D3 + PG * max <= 65535.
    Ok((base + offset + PG * participant_index) as u16)
}

/// Where SPDP announcements are multicast: 7400 + 250 * domain.
pub fn spdp_multicast_port(domain_id: u32) -> Result<u16, PortError> {
    Ok((check_domain(domain_id)? + D0) as u16)
}

/// A participant's metatraffic (SPDP and SEDP) unicast port: 7410 + 250 * domain + 2 * index.
pub fn metatraffic_unicast_port(domain_id: u32, participant_index: u32) -> Result<u16, PortError> {
    indexed(domain_id, participant_index, D1)
}

/// The user-data multicast port: 7401 + 250 * domain.
pub fn user_multicast_port(domain_id: u32) -> Result<u16, PortError> {
    Ok((check_domain(domain_id)? + D2) as u16)
}

/// A participant's user-data unicast port: 7411 + 250 * domain + 2 * index.
pub fn user_unicast_port(domain_id: u32, participant_index: u32) -> Result<u16, PortError> {
    indexed(domain_id, participant_index, D3)
}

/// The four ports of one participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ports {
    pub spdp_multicast: u16,
    pub metatraffic_unicast: u16,
    pub user_multicast: u16,
    pub user_unicast: u16,
}

impl Ports {
    /// The well-known ports of participant `participant_index` in `domain_id`.
    pub fn new(domain_id: u32, participant_index: u32) -> Result<Ports, PortError> {
        Ok(Ports {
            spdp_multicast: spdp_multicast_port(domain_id)?,
            metatraffic_unicast: metatraffic_unicast_port(domain_id, participant_index)?,
            user_multicast: user_multicast_port(domain_id)?,
            user_unicast: user_unicast_port(domain_id, participant_index)?,
        })
    }
}

/// The metatraffic unicast ports of participant indices `0..=last_index` (clamped to the domain's
/// maximum): where to send unicast SPDP announcements to find peers that do not use multicast
/// (Cyclone on loopback announces to indices 0..8 of 127.0.0.1 this way).
pub fn spdp_unicast_peer_ports(domain_id: u32, last_index: u32) -> Result<impl Iterator<Item = u16>, PortError> {
    let last = last_index.min(max_participant_index(domain_id)?);
    let base = check_domain(domain_id)? + D1;
    Ok((0..=last).map(move |i| (base + PG * i) as u16))
}

/// What a port is, if it is one of the well-known ones: the inverse of the functions above, for
/// logs and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortKind {
    SpdpMulticast { domain_id: u32 },
    MetatrafficUnicast { domain_id: u32, participant_index: u32 },
    UserMulticast { domain_id: u32 },
    UserUnicast { domain_id: u32, participant_index: u32 },
}

/// Classifies a well-known port; `None` for ports outside the scheme (such as Cyclone's random ones).
pub fn classify_port(port: u16) -> Option<PortKind> {
    let p = u32::from(port).checked_sub(PB)?;
    let (domain_id, off) = (p / DG, p % DG);
    if domain_id > MAX_DOMAIN_ID {
        return None;
    }
    let kind = match off {
        D0 => PortKind::SpdpMulticast { domain_id },
        D2 => PortKind::UserMulticast { domain_id },
        o if o >= D1 && (o - D1) % PG == 0 => {
            PortKind::MetatrafficUnicast { domain_id, participant_index: (o - D1) / PG }
        }
        o if o >= D3 && (o - D3) % PG == 0 => PortKind::UserUnicast { domain_id, participant_index: (o - D3) / PG },
        _ => return None,
    };
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_zero() {
        let p = Ports::new(0, 0).unwrap();
        assert_eq!(
            p,
            Ports { spdp_multicast: 7400, metatraffic_unicast: 7410, user_multicast: 7401, user_unicast: 7411 }
        );
        let p = Ports::new(0, 1).unwrap();
        assert_eq!((p.metatraffic_unicast, p.user_unicast), (7412, 7413));
        assert_eq!(
            spdp_unicast_peer_ports(0, 8).unwrap().collect::<Vec<_>>(),
            (0..=8).map(|i| 7410 + 2 * i).collect::<Vec<_>>()
        );
    }

    #[test]
    fn other_domains_and_limits() {
        let p = Ports::new(42, 3).unwrap();
        assert_eq!(p.spdp_multicast, 7400 + 250 * 42);
        assert_eq!(p.metatraffic_unicast, 7410 + 250 * 42 + 6);
        assert_eq!(p.user_multicast, 7401 + 250 * 42);
        assert_eq!(p.user_unicast, 7411 + 250 * 42 + 6);
        // Domain 232: 65400 + 11 + 2 * 62 = 65535 exactly.
        assert_eq!(max_participant_index(232), Ok(62));
        assert_eq!(user_unicast_port(232, 62), Ok(65535));
        assert_eq!(
            user_unicast_port(232, 63),
            Err(PortError::ParticipantIndexOutOfRange { domain_id: 232, participant_index: 63, max: 62 })
        );
        assert_eq!(Ports::new(233, 0), Err(PortError::DomainIdOutOfRange { domain_id: 233 }));
        assert_eq!(spdp_multicast_port(u32::MAX), Err(PortError::DomainIdOutOfRange { domain_id: u32::MAX }));
        assert_eq!(max_participant_index(0), Ok(119));
        assert_eq!(user_unicast_port(0, 119), Ok(7411 + 238));
        assert!(metatraffic_unicast_port(0, 120).is_err(), "7650 is domain 1's SPDP multicast port");
        let msg = Ports::new(300, 0).unwrap_err().to_string();
        assert!(msg.contains("300") && msg.contains("ROS_DOMAIN_ID"), "{msg}");
        let msg = user_unicast_port(232, 100).unwrap_err().to_string();
        assert!(msg.contains("100") && msg.contains("62"), "{msg}");
        // Every domain and index in range yields ports in range, and classify inverts them.
        for d in 0..=MAX_DOMAIN_ID {
            let max = max_participant_index(d).unwrap();
            for i in [0, 1, max / 2, max] {
                let p = Ports::new(d, i).unwrap();
                assert_eq!(classify_port(p.spdp_multicast), Some(PortKind::SpdpMulticast { domain_id: d }));
                assert_eq!(classify_port(p.user_multicast), Some(PortKind::UserMulticast { domain_id: d }));
                assert_eq!(
                    classify_port(p.metatraffic_unicast),
                    Some(PortKind::MetatrafficUnicast { domain_id: d, participant_index: i })
                );
                assert_eq!(
                    classify_port(p.user_unicast),
                    Some(PortKind::UserUnicast { domain_id: d, participant_index: i })
                );
            }
        }
        assert_eq!(classify_port(7399), None);
        assert_eq!(classify_port(7402), None);
    }

    #[test]
    fn multicast_group() {
        assert!(SPDP_MULTICAST_ADDRESS.is_multicast());
        assert_eq!(SPDP_MULTICAST_ADDRESS.to_string(), "239.255.0.1");
    }
}
