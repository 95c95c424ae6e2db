//! The writer liveliness protocol (RTPS 2.x 8.4.13): ParticipantMessageData on the built-in
//! participant-message endpoints.
//!
//! - **Sent**: while our participant has an AUTOMATIC writer with a finite lease, an
//!   AUTOMATIC_LIVELINESS_UPDATE every third of the shortest such lease, from the timer thread's
//!   sweep, while any remote participant is known. Without it, a remote reader (Cyclone DDS counts
//!   any datagram of ours, Fast DDS this message) would count an idle AUTOMATIC writer not alive
//!   between our SPDP announcements, which come every few seconds. A third leaves two chances to
//!   lose one. The ROS 2 default, an infinite lease, sends nothing. And a MANUAL_LIVELINESS_UPDATE
//!   each time a MANUAL_BY_PARTICIPANT writer asserts its liveliness (`Writer::assert_liveliness`):
//!   Fast DDS 2.9 asserts such a writer only by that message (or a sample), not by the writer's
//!   HEARTBEAT with the Liveliness flag, which Cyclone DDS counts.
//! - **Received** (sedp.rs, `on_builtin_delivery`): MANUAL_LIVELINESS_UPDATE renews the sender's
//!   MANUAL_BY_PARTICIPANT and AUTOMATIC writers, AUTOMATIC_LIVELINESS_UPDATE its AUTOMATIC ones
//!   (writer_leases.rs). A participant speaks only for itself.
//!
//! The message is what Cyclone DDS 0.10 sends: CDR_BE, the participant's GUID prefix, the kind,
//! an empty data sequence, and PID_KEY_HASH (prefix and kind) inline.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::send::Outbox;
use super::{lock, read, Network};
use crate::qos::{Liveliness, LivelinessKind, INFINITE};
use crate::rtps::SampleMeta;
use crate::wire::GuidPrefix;

/// The kind by which a participant asserts its AUTOMATIC writers (RTPS 2.x 9.6.2.1).
pub(crate) const PMD_AUTOMATIC_LIVELINESS_UPDATE: [u8; 4] = [0, 0, 0, 1];
/// The kind by which a participant asserts its MANUAL_BY_PARTICIPANT writers.
pub(crate) const PMD_MANUAL_LIVELINESS_UPDATE: [u8; 4] = [0, 0, 0, 2];

/// When our next AUTOMATIC_LIVELINESS_UPDATE is due (`None`: none is planned).
#[derive(Default)]
pub(crate) struct Assertions {
    next_automatic: Mutex<Option<Instant>>,
}

/// The kind of a ParticipantMessageData (encapsulation header, participant GUID prefix, kind,
/// opaque data) sent by participant `from`; `None` if malformed or about another participant.
pub(crate) fn participant_message_kind(payload: &[u8], from: GuidPrefix) -> Option<[u8; 4]> {
    let body = payload.get(4..)?;
    let prefix: [u8; 12] = body.get(..12)?.try_into().ok()?;
    if GuidPrefix(prefix) != from {
        return None;
    }
    body.get(12..16)?.try_into().ok()
}

/// Our ParticipantMessageData of `kind`, and its key hash.
fn encode(prefix: GuidPrefix, kind: [u8; 4]) -> (Vec<u8>, [u8; 16]) {
    let mut payload = Vec::with_capacity(24);
    payload.extend_from_slice(&[0, 0, 0, 0]); // CDR_BE, options 0
    payload.extend_from_slice(&prefix.0);
    payload.extend_from_slice(&kind);
    payload.extend_from_slice(&[0, 0, 0, 0]); // data: an empty sequence
    let mut key = [0u8; 16];
    key[..12].copy_from_slice(&prefix.0);
    key[12..].copy_from_slice(&kind);
    (payload, key)
}

/// The shorter of `shortest` and the lease of an AUTOMATIC writer with LIVELINESS `l`.
pub(crate) fn shortest_automatic_lease(shortest: Option<Duration>, l: &Liveliness) -> Option<Duration> {
    if l.kind != LivelinessKind::Automatic || l.lease_duration == INFINITE || l.lease_duration.is_zero() {
        return shortest;
    }
    Some(shortest.map_or(l.lease_duration, |s| s.min(l.lease_duration)))
}

impl Network {
    /// The timer's part: sends an AUTOMATIC_LIVELINESS_UPDATE when one is due, `lease` being the
    /// shortest lease of our AUTOMATIC writers; when to come back.
    pub(crate) fn assert_automatic_on_timer(
        &self,
        now: Instant,
        lease: Option<Duration>,
        out: &mut Outbox,
    ) -> Option<Instant> {
        let mut next = lock(&self.assertions.next_automatic);
        let Some(period) = lease.map(|l| (l / 3).max(Duration::from_millis(1))) else {
            *next = None;
            return None;
        };
        let latest = now.checked_add(period)?;
        if next.is_some_and(|t| t > now) {
            // A writer with a shorter lease may have come since the last one was planned.
            let t = next.map_or(latest, |t| t.min(latest));
            *next = Some(t);
            return Some(t);
        }
        if !read(&self.participants).is_empty() {
            self.write_participant_message(PMD_AUTOMATIC_LIVELINESS_UPDATE, now, out);
        }
        *next = Some(latest);
        Some(latest)
    }

    /// A new AUTOMATIC writer with LIVELINESS `l`: the timer sweeps now, so that
    /// `assert_automatic_on_timer` plans for its lease (the first assertion, or a sooner one).
    pub(crate) fn automatic_writer_added(&self, l: &Liveliness) {
        if shortest_automatic_lease(None, l).is_some() {
            self.timer.schedule(Some(Instant::now()));
        }
    }

    /// A MANUAL_BY_PARTICIPANT writer asserted its liveliness: so does the participant, with a
    /// MANUAL_LIVELINESS_UPDATE to the remote participants.
    pub(crate) fn assert_participant(&self, out: &mut Outbox) {
        if !read(&self.participants).is_empty() {
            self.write_participant_message(PMD_MANUAL_LIVELINESS_UPDATE, Instant::now(), out);
        }
    }

    fn write_participant_message(&self, kind: [u8; 4], now: Instant, out: &mut Outbox) {
        let (payload, key) = encode(self.prefix, kind);
        let meta = SampleMeta { key_hash: Some(key), ..SampleMeta::default() };
        let next = self.builtin.write_participant_message(now, payload.into(), meta, out);
        self.timer.schedule(next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn participant_message_kind_is_read_for_its_own_participant_only() {
        let from = GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        // CDR_BE, as Cyclone DDS sends it: prefix, kind, empty data sequence.
        let mut pmd = vec![0, 0, 0, 0];
        pmd.extend_from_slice(&from.0);
        pmd.extend_from_slice(&PMD_MANUAL_LIVELINESS_UPDATE);
        pmd.extend_from_slice(&[0, 0, 0, 0]);
        assert_eq!(participant_message_kind(&pmd, from), Some(PMD_MANUAL_LIVELINESS_UPDATE));
        assert_eq!(participant_message_kind(&pmd, GuidPrefix([9; 12])), None, "about another participant");
        assert_eq!(participant_message_kind(&pmd[..19], from), None, "truncated");
        assert_eq!(participant_message_kind(&[], from), None);
    }

    #[test]
    fn our_message_is_read_back_as_what_it_says() {
        let me = GuidPrefix([7; 12]);
        let (payload, key) = encode(me, PMD_AUTOMATIC_LIVELINESS_UPDATE);
        assert_eq!(payload.len(), 24);
        assert_eq!(participant_message_kind(&payload, me), Some(PMD_AUTOMATIC_LIVELINESS_UPDATE));
        assert_eq!(&key[..12], &me.0);
        assert_eq!(&key[12..], &PMD_AUTOMATIC_LIVELINESS_UPDATE);
    }

    #[test]
    fn only_automatic_writers_with_a_finite_lease_set_the_pace() {
        let l = |kind, ms| Liveliness { kind, lease_duration: Duration::from_millis(ms) };
        let inf = Liveliness { kind: LivelinessKind::Automatic, lease_duration: INFINITE };
        assert_eq!(shortest_automatic_lease(None, &inf), None);
        assert_eq!(shortest_automatic_lease(None, &l(LivelinessKind::ManualByTopic, 100)), None);
        assert_eq!(shortest_automatic_lease(None, &l(LivelinessKind::Automatic, 0)), None);
        let a = shortest_automatic_lease(None, &l(LivelinessKind::Automatic, 900));
        assert_eq!(a, Some(Duration::from_millis(900)));
        assert_eq!(shortest_automatic_lease(a, &l(LivelinessKind::Automatic, 300)), Some(Duration::from_millis(300)));
        assert_eq!(shortest_automatic_lease(a, &l(LivelinessKind::Automatic, 5000)), a);
    }
}
