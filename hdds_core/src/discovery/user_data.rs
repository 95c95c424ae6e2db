//! ROS 2's `key=value;` USER_DATA convention (rmw_dds_common's `parse_key_value`).
//!
//! - Participants carry `enclave=<path>;` (Cyclone sends `enclave=/;`, Fast DDS the same plus a
//!   trailing NUL).
//! - rmw_cyclonedds_cpp puts `clientid=<id>;` on a client's request writer and reply reader and
//!   `serviceid=<id>;` on a service's endpoints; the id is 16 bytes printed as Cyclone prints them
//!   (see [`Csid`]).
//! - Iron and later add `typehash=RIHS01_<64 hex digits>;` to endpoint USER_DATA.
//!
//! Parsing follows rmw_dds_common: an entry counts only when a `;` ends it, its key is the part
//! before the first `=` and must not be empty, and a repeated key keeps its last value. Anything
//! after the last `;` (such as Fast DDS's trailing NUL) is ignored.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

pub const KEY_ENCLAVE: &str = "enclave";
pub const KEY_CLIENT_ID: &str = "clientid";
pub const KEY_SERVICE_ID: &str = "serviceid";
pub const KEY_TYPE_HASH: &str = "typehash";

/// Parsed `key=value;` entries, in the order they appeared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserData {
    entries: Vec<(String, String)>,
}

impl UserData {
    pub fn new() -> UserData {
        UserData::default()
    }

    /// Parses USER_DATA bytes (never fails: what is not an entry is skipped, as ROS does).
    pub fn parse(bytes: &[u8]) -> UserData {
        let mut entries: Vec<(String, String)> = Vec::new();
        let mut rest = bytes;
        while let Some(end) = rest.iter().position(|&b| b == b';') {
            let item = &rest[..end];
            rest = &rest[end + 1..];
            let Some(eq) = item.iter().position(|&b| b == b'=') else { continue };
            if eq == 0 {
                continue;
            }
            let key = String::from_utf8_lossy(&item[..eq]).into_owned();
            let value = String::from_utf8_lossy(&item[eq + 1..]).into_owned();
            entries.retain(|(k, _)| *k != key);
            entries.push((key, value));
        }
        UserData { entries }
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The participant's security enclave (`enclave=`).
    pub fn enclave(&self) -> Option<&str> {
        self.get(KEY_ENCLAVE)
    }

    /// Cyclone's client id (`clientid=`), if present and well formed.
    pub fn client_id(&self) -> Option<Csid> {
        self.get(KEY_CLIENT_ID)?.parse().ok()
    }

    /// Cyclone's service id (`serviceid=`), if present and well formed.
    pub fn service_id(&self) -> Option<Csid> {
        self.get(KEY_SERVICE_ID)?.parse().ok()
    }

    /// The type hash (`typehash=RIHS01_...`, Iron and later).
    pub fn type_hash(&self) -> Option<&str> {
        self.get(KEY_TYPE_HASH)
    }

    /// Sets `key` (replacing an earlier value). Keys must be non-empty without `=` or `;`, values
    /// without `;`, or the result would not parse back.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        if key.is_empty() || key.contains(['=', ';']) {
            return Err(Error::bad_argument(format!(
                "USER_DATA key {key:?} is not usable: it must be non-empty and contain neither '=' nor ';'"
            )));
        }
        if value.contains(';') {
            return Err(Error::bad_argument(format!("USER_DATA value {value:?} for {key:?} must not contain ';'")));
        }
        self.entries.retain(|(k, _)| k != key);
        self.entries.push((key.to_owned(), value.to_owned()));
        Ok(())
    }

    /// Builder form of [`Self::set`].
    pub fn with(mut self, key: &str, value: &str) -> Result<UserData> {
        self.set(key, value)?;
        Ok(self)
    }

    /// `key=value;` for every entry, no trailing NUL (what Cyclone sends; both vendors accept it).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (k, v) in &self.entries {
            out.extend_from_slice(k.as_bytes());
            out.push(b'=');
            out.extend_from_slice(v.as_bytes());
            out.push(b';');
        }
        out
    }

    /// A participant's USER_DATA: `enclave=<path>;`.
    pub fn participant(enclave: &str) -> Result<UserData> {
        UserData::new().with(KEY_ENCLAVE, enclave)
    }

    /// A service client endpoint's USER_DATA as rmw_cyclonedds_cpp writes it: `clientid=<id>;`.
    pub fn client(id: &Csid) -> UserData {
        UserData { entries: vec![(KEY_CLIENT_ID.to_owned(), id.to_string())] }
    }

    /// A service server endpoint's USER_DATA as rmw_cyclonedds_cpp writes it: `serviceid=<id>;`.
    pub fn service(id: &Csid) -> UserData {
        UserData { entries: vec![(KEY_SERVICE_ID.to_owned(), id.to_string())] }
    }
}

/// A client/service id as rmw_cyclonedds_cpp uses it: 16 bytes, the node's participant GUID prefix
/// followed by a per-process counter. It is printed in Cyclone's own format: lower-case hex without
/// leading zeros, dot-separated, the first byte right-aligned in two columns (`" 1.10.96.21..."`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Csid(pub [u8; 16]);

impl fmt::Display for Csid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>2x}", self.0[0])?;
        for b in &self.0[1..] {
            write!(f, ".{b:x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Csid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Csid({self})")
    }
}

/// The reason a [`Csid`] did not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsidParseError;

impl fmt::Display for CsidParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a client/service id: expected 16 dot-separated hex bytes")
    }
}

impl std::error::Error for CsidParseError {}

impl FromStr for Csid {
    type Err = CsidParseError;
    /// Accepts Cyclone's format and the same with zero padding or surrounding white space.
    fn from_str(s: &str) -> std::result::Result<Csid, CsidParseError> {
        let mut out = [0u8; 16];
        let mut n = 0;
        for part in s.trim().split('.') {
            let part = part.trim();
            if n == 16 || part.is_empty() || part.len() > 2 {
                return Err(CsidParseError);
            }
            out[n] = u8::from_str_radix(part, 16).map_err(|_| CsidParseError)?;
            n += 1;
        }
        if n != 16 {
            return Err(CsidParseError);
        }
        Ok(Csid(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enclave_with_and_without_nul() {
        for bytes in [&b"enclave=/;"[..], b"enclave=/;\0", b"enclave=/;\0\0\0"] {
            let u = UserData::parse(bytes);
            assert_eq!(u.enclave(), Some("/"), "{bytes:?}");
            assert_eq!(u.entries().count(), 1);
        }
        assert_eq!(UserData::participant("/").unwrap().to_bytes(), b"enclave=/;");
        assert_eq!(UserData::parse(b"enclave=/my/enclave;").enclave(), Some("/my/enclave"));
    }

    #[test]
    fn ros_parsing_rules() {
        // No ';' at the end: not an entry (rmw_dds_common ignores it too).
        assert_eq!(UserData::parse(b"enclave=/").enclave(), None);
        // Empty key, missing '=', empty items are skipped; the last value of a key wins.
        let u = UserData::parse(b";=x;novalue;a=1;b=;a=2;");
        assert_eq!(u.get("a"), Some("2"));
        assert_eq!(u.get("b"), Some(""));
        assert_eq!(u.entries().collect::<Vec<_>>(), [("b", ""), ("a", "2")]);
        // '=' inside a value is part of the value.
        assert_eq!(UserData::parse(b"k=a=b;").get("k"), Some("a=b"));
        assert!(UserData::parse(b"").is_empty());
        assert!(UserData::parse(&[0xff, b'=', 0xfe, b';']).entries().count() == 1, "non-UTF-8 kept lossily");
    }

    #[test]
    fn building() {
        let u = UserData::new().with("enclave", "/").unwrap().with("typehash", "RIHS01_00").unwrap();
        assert_eq!(u.to_bytes(), b"enclave=/;typehash=RIHS01_00;");
        assert_eq!(UserData::parse(&u.to_bytes()), u);
        assert!(UserData::new().with("", "x").is_err());
        assert!(UserData::new().with("a=b", "x").is_err());
        assert!(UserData::new().with("a", "x;y").is_err());
    }

    #[test]
    fn csid_in_cyclones_format() {
        // Captured from rmw_cyclonedds_cpp (ros_cyclone_add_two_ints.pcap).
        let text = " 1.10.96.21.60.7e.e8.94.1.b6.c9.ba.0.0.0.7";
        let id: Csid = text.parse().unwrap();
        assert_eq!(id.0, [0x01, 0x10, 0x96, 0x21, 0x60, 0x7e, 0xe8, 0x94, 0x01, 0xb6, 0xc9, 0xba, 0, 0, 0, 7]);
        assert_eq!(id.to_string(), text);
        let u = UserData::parse(format!("serviceid={text};").as_bytes());
        assert_eq!(u.service_id(), Some(id));
        assert_eq!(u.client_id(), None);
        assert_eq!(UserData::client(&id).to_bytes(), format!("clientid={text};").into_bytes());
        assert_eq!(Csid([0xab; 16]).to_string(), "ab.ab.ab.ab.ab.ab.ab.ab.ab.ab.ab.ab.ab.ab.ab.ab");
        assert_eq!("01.10.96.21.60.7e.e8.94.01.b6.c9.ba.00.00.00.07".parse::<Csid>(), Ok(id));
        for bad in [
            "",
            "1.2.3",
            "1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17",
            "1..2.3.4.5.6.7.8.9.a.b.c.d.e.f",
            "100.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0",
            "g.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0",
        ] {
            assert!(bad.parse::<Csid>().is_err(), "{bad}");
        }
    }
}
