//! Participants.

use std::ffi::c_char;

use hdds_core::{NetworkConfig, Participant, ParticipantConfig};

use crate::ret::{arg, bytes_or_empty, guard, guard_void, out, HddsRet};

/// A domain participant. Owns nothing the C side must free except through hdds_participant_destroy.
pub struct HddsParticipant {
    pub(crate) inner: Participant,
}

/// Creates a participant in `domain_id` (0..232), reaching this process's participants only, and
/// stores its handle in *out. HDDS_CONFIG and HDDS_TRANSPORT are read as for
/// hdds_participant_create_with_config. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_participant_create(domain_id: u32, out_participant: *mut *mut HddsParticipant) -> HddsRet {
    guard("hdds_participant_create", || {
        if out_participant.is_null() {
            return Err(hdds_core::Error::bad_argument("out_participant is NULL"));
        }
        let mut pc = ParticipantConfig { domain_id, ..Default::default() };
        crate::config::from_env()?.apply(&mut pc, None)?;
        let p = Participant::new(pc)?;
        out(out_participant, "out_participant", Box::into_raw(Box::new(HddsParticipant { inner: p })))
    })
}

/// How to create a participant: fill it with hdds_participant_config_default() and change what
/// differs.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HddsParticipantConfig {
    /// The DDS domain, 0 to 232 (ROS_DOMAIN_ID).
    pub domain_id: u32,
    /// true: on the network (SPDP/SEDP discovery, RTPS over UDP, one receive and one timer
    /// thread); false: this process's participants only, as hdds_participant_create.
    pub network: bool,
    /// ROS_LOCALHOST_ONLY=1: the loopback interface only; nothing is sent to another address.
    pub localhost_only: bool,
    /// USER_DATA announced in SPDP (ROS: "enclave=/;"); NULL with length 0 for none. Copied.
    pub user_data: *const u8,
    pub user_data_len: usize,
    /// DDS domain tag: participants meet only those with the same tag. NULL or "" is the default
    /// (every ROS participant's). Copied.
    pub domain_tag: *const c_char,
}

/// Fills *config with the defaults: domain 0, network on, all interfaces, no USER_DATA, default
/// domain tag. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_participant_config_default(config: *mut HddsParticipantConfig) -> HddsRet {
    guard("hdds_participant_config_default", || {
        let c = HddsParticipantConfig {
            domain_id: 0,
            network: true,
            localhost_only: false,
            user_data: std::ptr::null(),
            user_data_len: 0,
            domain_tag: std::ptr::null(),
        };
        out(config, "config", c)
    })
}

/// Creates a participant as *config says and stores its handle in *out_participant. With the
/// network on, this opens the sockets and starts the participant's threads; it fails with
/// HDDS_RET_ERROR (and a message naming the cause) when no socket can be opened. The file named by
/// HDDS_CONFIG (shared-memory sizes, transports, limits; README.md lists its keys) is read here, and
/// HDDS_TRANSPORT (a comma-separated list of intra, shm, udp; unset: all, or the file's
/// `transport`) says which paths user data may take. A file that cannot be read, a key or value it
/// does not know, or transports the participant cannot work with are HDDS_RET_BAD_ARGUMENT with a
/// message naming the file, line and key. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_participant_create_with_config(
    config: *const HddsParticipantConfig,
    out_participant: *mut *mut HddsParticipant,
) -> HddsRet {
    guard("hdds_participant_create_with_config", || {
        let c = arg(config, "config")?;
        if out_participant.is_null() {
            return Err(hdds_core::Error::bad_argument("out_participant is NULL"));
        }
        let user_data = bytes_or_empty(c.user_data, c.user_data_len, "config->user_data")?.to_vec();
        let mut pc = ParticipantConfig { domain_id: c.domain_id, user_data, ..Default::default() };
        let settings = crate::config::from_env()?;
        let p = if c.network {
            let mut net = if c.localhost_only { NetworkConfig::localhost() } else { NetworkConfig::default() };
            settings.apply(&mut pc, Some(&mut net))?;
            if !c.domain_tag.is_null() {
                net.domain_tag = crate::ret::str_arg(c.domain_tag, "config->domain_tag")?.to_owned();
            }
            Participant::with_network(pc, net)?
        } else {
            if !c.domain_tag.is_null() && !crate::ret::str_arg(c.domain_tag, "config->domain_tag")?.is_empty() {
                return Err(hdds_core::Error::bad_argument(
                    "config->domain_tag is set but config->network is false: a domain tag only applies on the \
                     network",
                ));
            }
            settings.apply(&mut pc, None)?;
            Participant::new(pc)?
        };
        out(out_participant, "out_participant", Box::into_raw(Box::new(HddsParticipant { inner: p })))
    })
}

/// Destroys a participant. Its discovery listener is cleared first (a callback running on another
/// thread is waited for; none is called afterwards). Its writers and readers stay usable until
/// they are destroyed themselves. A participant on the network, when it goes, waits up to 1 s for
/// remote readers to acknowledge its open writers' last samples and its endpoints' disposals (one
/// round trip on a working link; the full second while a matched peer no longer answers). NULL is
/// a no-op. Not thread-safe with other uses of the same handle.
#[no_mangle]
pub extern "C" fn hdds_participant_destroy(participant: *mut HddsParticipant) {
    guard_void("hdds_participant_destroy", || {
        if !participant.is_null() {
            // SAFETY: a non-null handle came from Box::into_raw in hdds_participant_create and the
            // caller gives up its last use of it here.
            drop(unsafe { Box::from_raw(participant) });
        }
    })
}

/// Writes the participant's GUID (16 bytes) to guid_out, which must have room for 16 bytes.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_participant_guid(participant: *const HddsParticipant, guid_out: *mut u8) -> HddsRet {
    guard("hdds_participant_guid", || {
        let p = arg(participant, "participant")?;
        out(guid_out.cast::<[u8; 16]>(), "guid_out", p.inner.guid().to_bytes())
    })
}
