//! Discovery events for C: participants and endpoints appearing and going, for the RMW layer's
//! graph cache and for services (which match clients and servers through endpoint USER_DATA).

use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;

use hdds_core::DiscoveryEvent;

use crate::participant::HddsParticipant;
use crate::qos::HddsQos;
use crate::ret::{arg, guard, HddsRet};

/// A participant appeared (alive), changed its USER_DATA (alive again) or left. Pointers are valid
/// during the callback only.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HddsParticipantEvent {
    pub guid: [u8; 16],
    pub vendor_id: [u8; 2],
    pub alive: bool,
    /// This participant itself (the others of this process are not local).
    pub local: bool,
    pub user_data: *const u8,
    pub user_data_len: usize,
}

/// A writer or reader appeared or left (an endpoint whose data changes is reported gone, then
/// alive). Pointers are valid during the callback only.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HddsEndpointEvent {
    pub guid: [u8; 16],
    pub participant_guid: [u8; 16],
    pub vendor_id: [u8; 2],
    pub is_reader: bool,
    pub alive: bool,
    /// One of this participant's own endpoints.
    pub local: bool,
    pub topic_name: *const c_char,
    pub type_name: *const c_char,
    pub qos: HddsQos,
    pub user_data: *const u8,
    pub user_data_len: usize,
}

pub type HddsParticipantCallback = Option<extern "C" fn(user: *const c_void, ev: *const HddsParticipantEvent)>;
pub type HddsEndpointCallback = Option<extern "C" fn(user: *const c_void, ev: *const HddsEndpointEvent)>;

/// The C side's listener: two callbacks and their user pointer.
struct CListener {
    on_participant: HddsParticipantCallback,
    on_endpoint: HddsEndpointCallback,
    user: *const c_void,
}

// SAFETY: the user pointer is only handed back to the caller's callbacks; the caller promises
// (hdds_participant_set_discovery_listener's contract) that they may run on any engine thread.
unsafe impl Send for CListener {}
// SAFETY: as above; the listener itself is immutable.
unsafe impl Sync for CListener {}

/// Names with an interior NUL cannot reach the engine (it refuses them), but a remote peer's
/// could: such a character is cut off rather than the event dropped.
fn c_string(s: &str) -> CString {
    let end = s.find('\0').unwrap_or(s.len());
    CString::new(&s[..end]).unwrap_or_default()
}

impl CListener {
    fn call(&self, ev: &DiscoveryEvent) {
        match ev {
            DiscoveryEvent::Participant { info, alive, local } => {
                let Some(cb) = self.on_participant else { return };
                let e = HddsParticipantEvent {
                    guid: info.guid.to_bytes(),
                    vendor_id: info.vendor_id,
                    alive: *alive,
                    local: *local,
                    user_data: info.user_data.as_ptr(),
                    user_data_len: info.user_data.len(),
                };
                cb(self.user, &e);
            }
            DiscoveryEvent::Endpoint { info, alive, local } => {
                let Some(cb) = self.on_endpoint else { return };
                let (topic, ty) = (c_string(&info.topic_name), c_string(&info.type_name));
                let e = HddsEndpointEvent {
                    guid: info.guid.to_bytes(),
                    participant_guid: info.participant_guid.to_bytes(),
                    vendor_id: info.vendor_id,
                    is_reader: info.is_reader,
                    alive: *alive,
                    local: *local,
                    topic_name: topic.as_ptr(),
                    type_name: ty.as_ptr(),
                    qos: HddsQos::from_core(&info.qos),
                    user_data: info.user_data.as_ptr(),
                    user_data_len: info.user_data.len(),
                };
                cb(self.user, &e);
            }
        }
    }
}

/// Sets the participant's discovery listener; both callbacks NULL clear it, and either may be
/// NULL alone. Before this returns, the new callbacks get every entity known alive: this
/// participant first, then the other participants, then the endpoints (this participant's own
/// first). Afterwards each change, in order:
/// - this participant's endpoints, on the thread that creates or destroys them;
/// - remote participants and endpoints, on the participant's receive thread (discovery data) or
///   timer thread (lease expiry); a participant that leaves has its endpoints reported gone first;
/// - the other participants of this process in the same domain, on their creating/destroying
///   thread.
///
/// When an event comes while another thread is inside a callback, that thread delivers it after
/// its own, so callbacks never run concurrently and always in order. No engine lock is held during
/// a callback: it may call any hdds_* function, but must not wait for another thread that is
/// setting this listener or destroying this participant (that thread waits for the callback to
/// return). After this function returns, the
/// previous callbacks are not called again (except when it is called from inside one of them).
/// hdds_participant_destroy clears the listener. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_participant_set_discovery_listener(
    participant: *const HddsParticipant,
    on_participant: HddsParticipantCallback,
    on_endpoint: HddsEndpointCallback,
    user: *const c_void,
) -> HddsRet {
    guard("hdds_participant_set_discovery_listener", || {
        let p = arg(participant, "participant")?;
        let listener: Option<hdds_core::DiscoveryListener> = if on_participant.is_none() && on_endpoint.is_none() {
            None
        } else {
            let l = CListener { on_participant, on_endpoint, user };
            Some(Arc::new(move |ev: &DiscoveryEvent| l.call(ev)))
        };
        p.inner.set_discovery_listener(listener);
        Ok(())
    })
}
