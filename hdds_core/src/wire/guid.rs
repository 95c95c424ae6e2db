//! GUIDs (RTPS 2.5 section 8.2.4): a 12-byte participant prefix and a 4-byte entity id.

use std::fmt;

/// The 12 bytes shared by a participant and all of its entities.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct GuidPrefix(pub [u8; 12]);

/// An entity's id inside its participant: a 3-byte key and a 1-byte kind.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct EntityId(pub [u8; 4]);

/// The kind byte of an [`EntityId`] (RTPS 2.5 table 9.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EntityKind {
    UserWriterWithKey,
    UserWriterNoKey,
    UserReaderWithKey,
    UserReaderNoKey,
}

impl EntityKind {
    pub const fn byte(self) -> u8 {
        match self {
            EntityKind::UserWriterWithKey => 0x02,
            EntityKind::UserWriterNoKey => 0x03,
            EntityKind::UserReaderNoKey => 0x04,
            EntityKind::UserReaderWithKey => 0x07,
        }
    }
}

impl EntityId {
    pub const UNKNOWN: EntityId = EntityId([0, 0, 0, 0]);
    pub const PARTICIPANT: EntityId = EntityId([0, 0, 1, 0xc1]);
    pub const SPDP_WRITER: EntityId = EntityId([0, 1, 0, 0xc2]);
    pub const SPDP_READER: EntityId = EntityId([0, 1, 0, 0xc7]);
    pub const SEDP_PUBLICATIONS_WRITER: EntityId = EntityId([0, 0, 3, 0xc2]);
    pub const SEDP_PUBLICATIONS_READER: EntityId = EntityId([0, 0, 3, 0xc7]);
    pub const SEDP_SUBSCRIPTIONS_WRITER: EntityId = EntityId([0, 0, 4, 0xc2]);
    pub const SEDP_SUBSCRIPTIONS_READER: EntityId = EntityId([0, 0, 4, 0xc7]);
    pub const P2P_MESSAGE_WRITER: EntityId = EntityId([0, 2, 0, 0xc2]);
    pub const P2P_MESSAGE_READER: EntityId = EntityId([0, 2, 0, 0xc7]);

    /// A user entity id from a participant-unique key (the low 24 bits are used).
    pub const fn user(key: u32, kind: EntityKind) -> EntityId {
        EntityId([(key >> 16) as u8, (key >> 8) as u8, key as u8, kind.byte()])
    }

    pub const fn kind_byte(self) -> u8 {
        self.0[3]
    }

    /// Readers have bit 2 set in the kind (0x04 no key, 0x07 with key, 0xc4/0xc7 built-in).
    pub const fn is_reader(self) -> bool {
        matches!(self.0[3] & 0x0f, 0x04 | 0x07)
    }

    /// Writers: kinds 0x02 and 0x03 and their built-in counterparts.
    pub const fn is_writer(self) -> bool {
        matches!(self.0[3] & 0x0f, 0x02 | 0x03)
    }

    /// Writers and readers of keyed topics: kinds 0x02 and 0x07 (and their built-in counterparts).
    pub const fn is_keyed(self) -> bool {
        matches!(self.0[3] & 0x0f, 0x02 | 0x07)
    }

    /// Built-in entities have the two top bits of the kind set to 11.
    pub const fn is_builtin(self) -> bool {
        self.0[3] & 0xc0 == 0xc0
    }
}

/// A globally unique entity id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Guid {
    pub prefix: GuidPrefix,
    pub entity_id: EntityId,
}

impl Guid {
    pub const UNKNOWN: Guid = Guid { prefix: GuidPrefix([0; 12]), entity_id: EntityId::UNKNOWN };

    pub const fn new(prefix: GuidPrefix, entity_id: EntityId) -> Guid {
        Guid { prefix, entity_id }
    }

    /// The 16 bytes as they go on the wire (and as ROS uses them for a gid).
    #[link_section = ".text.hot.hdds"]
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..12].copy_from_slice(&self.prefix.0);
        b[12..].copy_from_slice(&self.entity_id.0);
        b
    }

    pub fn from_bytes(b: &[u8; 16]) -> Guid {
        let mut prefix = [0u8; 12];
        prefix.copy_from_slice(&b[..12]);
        Guid { prefix: GuidPrefix(prefix), entity_id: EntityId([b[12], b[13], b[14], b[15]]) }
    }
}

fn hex(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    for b in bytes {
        write!(f, "{b:02x}")?;
    }
    Ok(())
}

impl fmt::Debug for GuidPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        hex(f, &self.0)
    }
}

impl fmt::Debug for EntityId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        hex(f, &self.0)
    }
}

/// Printed the way Cyclone and Fast DDS tools print GUIDs: `prefix:entity` in hex.
impl fmt::Debug for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        hex(f, &self.prefix.0)?;
        f.write_str(":")?;
        hex(f, &self.entity_id.0)
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_bytes_round_trip() {
        let g = Guid::new(GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), EntityId([0, 0, 7, 3]));
        assert_eq!(Guid::from_bytes(&g.to_bytes()), g);
        assert_eq!(format!("{g}"), "0102030405060708090a0b0c:00000703");
    }

    #[test]
    fn entity_kinds() {
        assert!(EntityId::SEDP_PUBLICATIONS_READER.is_reader());
        assert!(EntityId::SEDP_PUBLICATIONS_READER.is_builtin());
        assert!(EntityId::SPDP_WRITER.is_writer());
        let w = EntityId::user(0x010203, EntityKind::UserWriterNoKey);
        assert_eq!(w.0, [1, 2, 3, 0x03]);
        assert!(w.is_writer() && !w.is_reader() && !w.is_builtin());
        assert!(EntityId::user(5, EntityKind::UserReaderNoKey).is_reader());
        assert!(EntityId::user(5, EntityKind::UserReaderWithKey).is_reader());
    }
}
