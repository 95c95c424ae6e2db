//! `HDDS_TRANSPORT`: which paths a participant may use for user data, read when a participant is
//! created with hdds_participant_create_with_config.
//!
//! A comma-separated list of `intra` (same process, no socket), `shm` (other processes of this
//! host, shared memory) and `udp` (RTPS over UDP; discovery always uses it). Unset or empty: all
//! three. A path left out is not used: `HDDS_TRANSPORT=udp` sends everything over UDP, as another
//! DDS would. `udp` must be listed for a participant on the network; an unknown word is an error.

use hdds_core::{Error, Result};

/// The environment variable.
pub const VARIABLE: &str = "HDDS_TRANSPORT";

/// The paths `HDDS_TRANSPORT` allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transports {
    pub intra: bool,
    pub shm: bool,
    pub udp: bool,
}

impl Default for Transports {
    fn default() -> Self {
        Transports { intra: true, shm: true, udp: true }
    }
}

/// Parses a value of `HDDS_TRANSPORT` (`None`: unset).
pub fn parse(value: Option<&str>) -> Result<Transports> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(Transports::default());
    };
    let mut t = Transports { intra: false, shm: false, udp: false };
    for word in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word.to_ascii_lowercase().as_str() {
            "intra" => t.intra = true,
            "shm" => t.shm = true,
            "udp" => t.udp = true,
            other => {
                return Err(Error::bad_argument(format!(
                    "{VARIABLE}={v:?}: unknown transport {other:?}; use a comma-separated list of intra, shm, udp \
                     (or leave it unset for all three)"
                )))
            }
        }
    }
    Ok(t)
}

/// Reads `HDDS_TRANSPORT` from the environment.
pub fn from_env() -> Result<Transports> {
    match std::env::var(VARIABLE) {
        Ok(v) => parse(Some(&v)),
        Err(std::env::VarError::NotPresent) => parse(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(Error::bad_argument(format!("{VARIABLE} is not valid UTF-8: use a list of intra, shm, udp")))
        }
    }
}

impl Transports {
    /// Checks that a participant with (`network`) or without network can work with these paths.
    pub fn check(&self, network: bool) -> Result<()> {
        if network && !self.udp {
            return Err(Error::bad_argument(format!(
                "{VARIABLE} leaves out udp, which discovery and peers on other hosts need: add udp to the list"
            )));
        }
        if !network && !self.intra {
            return Err(Error::bad_argument(format!(
                "{VARIABLE} leaves out intra, the only path of a participant without network: add intra, or \
                 create the participant with config->network = true"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_or_empty_is_everything() {
        assert_eq!(parse(None).unwrap(), Transports::default());
        assert_eq!(parse(Some(" ")).unwrap(), Transports::default());
    }

    #[test]
    fn lists_select_paths() {
        assert_eq!(parse(Some("udp")).unwrap(), Transports { intra: false, shm: false, udp: true });
        assert_eq!(parse(Some(" SHM , udp,")).unwrap(), Transports { intra: false, shm: true, udp: true });
        assert_eq!(parse(Some("intra,udp")).unwrap(), Transports { intra: true, shm: false, udp: true });
    }

    #[test]
    fn mistakes_are_named() {
        let e = parse(Some("udp,tcp")).unwrap_err();
        assert!(e.message().contains("\"tcp\""), "{e}");
        let e = parse(Some("intra,shm")).unwrap().check(true).unwrap_err();
        assert!(e.message().contains("add udp"), "{e}");
        assert!(parse(Some("udp")).unwrap().check(false).is_err());
        assert!(parse(Some("intra")).unwrap().check(false).is_ok());
    }
}
