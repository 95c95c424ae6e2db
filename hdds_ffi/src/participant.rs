//! Participants.

use hdds_core::{Participant, ParticipantConfig};

use crate::ret::{arg, guard, guard_void, out, HddsRet};

/// A domain participant. Owns nothing the C side must free except through hdds_participant_destroy.
pub struct HddsParticipant {
    pub(crate) inner: Participant,
}

/// Creates a participant in `domain_id` (0..232) and stores its handle in *out.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_participant_create(domain_id: u32, out_participant: *mut *mut HddsParticipant) -> HddsRet {
    guard("hdds_participant_create", || {
        if out_participant.is_null() {
            return Err(hdds_core::Error::bad_argument("out_participant is NULL"));
        }
        let p = Participant::new(ParticipantConfig { domain_id, ..Default::default() })?;
        out(out_participant, "out_participant", Box::into_raw(Box::new(HddsParticipant { inner: p })))
    })
}

/// Destroys a participant. Its writers and readers stay usable until they are destroyed
/// themselves. NULL is a no-op. Not thread-safe with other uses of the same handle.
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
