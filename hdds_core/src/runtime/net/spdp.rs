//! SPDP: announcing our participant, and the table of remote participants with their leases.
//!
//! - Announcements go every `spdp_period` (the first five every 100 ms, so that a lost datagram
//!   delays discovery little) to the SPDP multicast group, to the unicast probe list (each
//!   configured peer at the metatraffic ports of participant indices `0..=N`), and to every known
//!   participant's metatraffic address. A participant seen for the first time gets our
//!   announcement at once by unicast: discovery takes one round trip, not one period. So does
//!   each announcement of a participant discovered less than `ANSWER_WINDOW` ago (at most one
//!   answer per `ANSWER_MIN_GAP`, or two of our participants would answer each other's answers
//!   in a loop): a peer that is still starting up may drop the first answer (Fast DDS does), and
//!   would otherwise learn of us only at our next periodic announcement, seconds later.
//! - Any datagram from a known participant renews its lease (as Cyclone does); when the lease runs
//!   out, or the participant disposes itself, it is removed with everything it owns.
//! - Our own announcements (multicast loops back) and participants of this process that reach us
//!   through the TopicMerger are ignored.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::config::Resolved;
use super::send::{Out, Outbox};
use super::{bump, is_local_intra, lock, read, write, Network};
use crate::discovery::inline_qos::{self, BuiltinTopic, StatusInfo};
use crate::discovery::{decode_change, Change, SerializedPayload, SpdpParticipantData};
use crate::error::{Error, Result};
use crate::qos::INFINITE;
use crate::rtps::{Dest, SampleMeta, StatelessWriter, StatelessWriterConfig, WriterAction};
use crate::runtime::discovery_events::ParticipantInfo;
use crate::wire::submessage::Data as WireData;
use crate::wire::{EntityId, Guid, GuidPrefix, Header, Locator};

/// Fast announcements after start (Fast DDS's initial announcements: 5 every 100 ms).
const INITIAL_ANNOUNCEMENTS: u32 = 5;
const INITIAL_PERIOD: Duration = Duration::from_millis(100);
/// How long after discovering a participant we still answer each of its announcements by unicast
/// (its initial burst: Fast DDS sends 5 in 500 ms).
const ANSWER_WINDOW: Duration = Duration::from_secs(1);
/// At most one answer per participant in this time. Two of our own participants answer each
/// other's answers: without a pause they would ping-pong for the whole window (thousands of
/// datagrams). Fast DDS's burst is 100 ms apart, so every announcement of it still gets one.
const ANSWER_MIN_GAP: Duration = Duration::from_millis(90);

/// How long a participant that said goodbye is remembered. Its announcements may still be in
/// flight (sent by multicast and unicast, from several threads) when its disposal arrives: without
/// this, a late one brings it back, and a node deleted a moment ago stays in the ROS graph for a
/// whole lease. Cyclone DDS keeps deleted participants for the same purpose. A participant never
/// comes back under the same GUID prefix, so nothing real is refused. The default of
/// [`super::NetworkConfig::disposed_participant_memory`].
pub(crate) const DISPOSED_MEMORY: Duration = Duration::from_secs(10);

/// Our SPDP writer and where its announcements go.
pub(crate) struct Spdp {
    writer: StatelessWriter,
    /// The multicast group, then the unicast probes (our own ports left out).
    targets: Vec<SocketAddr>,
    period: Duration,
    initial_left: u32,
    actions: Vec<WriterAction>,
}

impl Spdp {
    /// Our SPDP writer for participant `me` (its GUID prefix and USER_DATA).
    pub(crate) fn new(
        me: &ParticipantInfo,
        domain_id: u32,
        cfg: &Resolved,
        meta_locators: Vec<Locator>,
        default_locators: Vec<Locator>,
        multicast: Option<SocketAddr>,
        own_meta_port: u16,
    ) -> Result<Spdp> {
        let prefix = me.guid.prefix;
        let mut data = SpdpParticipantData::new(prefix, domain_id);
        data.user_data = me.user_data.to_vec();
        data.metatraffic_unicast_locators = meta_locators;
        if let Some(m) = multicast {
            data.metatraffic_multicast_locators.push(Locator::from_socket_addr(m));
        }
        data.default_unicast_locators = default_locators;
        data.lease_duration = cfg.lease_duration;
        data.domain_tag = cfg.domain_tag.clone();
        let mut targets: Vec<SocketAddr> = multicast.into_iter().collect();
        for ip in &cfg.unicast_spdp_peers {
            for port in crate::discovery::ports::spdp_unicast_peer_ports(domain_id, cfg.spdp_peer_max_index)? {
                let own = port == own_meta_port && (ip.is_loopback() || cfg.interfaces.contains(ip));
                if !own {
                    targets.push(SocketAddr::from((*ip, port)));
                }
            }
        }
        let payload = data.encode().map_err(|e| Error::bad_argument(format!("encoding our SPDP data: {e}")))?;
        let mut sw = StatelessWriterConfig::new(Guid::new(prefix, EntityId::SPDP_WRITER));
        sw.resend_period = Some(INITIAL_PERIOD);
        let mut writer = StatelessWriter::new(sw);
        let mut actions = Vec::new();
        // Written now, sent by `announce_participant` once the threads run.
        writer.write(Instant::now(), payload.into(), SampleMeta::default(), &mut actions);
        Ok(Spdp { writer, targets, period: cfg.spdp_period, initial_left: INITIAL_ANNOUNCEMENTS, actions })
    }
}

/// When we last heard from a remote participant (any datagram): nanoseconds since the timer's
/// epoch, shared by its table entry (its SPDP lease) and the leases of its AUTOMATIC writers
/// (writer_leases.rs), and kept when its data changes.
#[derive(Debug, Clone)]
pub(crate) struct Heard {
    last: Arc<AtomicU64>,
    epoch: Instant,
}

impl Heard {
    /// `ns`: [`Network::since_epoch`] of when.
    fn new(epoch: Instant, ns: u64) -> Heard {
        Heard { last: Arc::new(AtomicU64::new(ns)), epoch }
    }

    fn set(&self, ns: u64) {
        self.last.store(ns, Ordering::Relaxed);
    }

    pub(crate) fn last(&self) -> Instant {
        self.epoch + Duration::from_nanos(self.last.load(Ordering::Relaxed))
    }
}

/// A participant we discovered.
#[derive(Debug)]
pub(crate) struct RemoteParticipant {
    pub(crate) data: SpdpParticipantData,
    /// Where its SPDP and SEDP traffic goes.
    pub(crate) meta_addr: SocketAddr,
    /// Where user data goes for endpoints that advertise no locator of their own.
    pub(crate) default_addr: SocketAddr,
    /// When we last heard from it.
    last_heard: Heard,
    /// When we discovered it, in nanoseconds since the timer's epoch.
    discovered: u64,
    /// When we last answered it by unicast, in nanoseconds since the timer's epoch.
    last_answered: AtomicU64,
}

impl RemoteParticipant {
    /// When its lease runs out, if it has a finite one.
    fn expires(&self) -> Option<Instant> {
        if self.data.lease_duration >= INFINITE / 2 {
            return None;
        }
        self.last_heard.last().checked_add(self.data.lease_duration)
    }

    /// The header its discovery data is decoded with (vendor-specific ids are read per vendor).
    pub(crate) fn header(&self) -> Header {
        Header {
            version: self.data.protocol_version,
            vendor_id: self.data.vendor_id,
            guid_prefix: self.data.guid_prefix,
        }
    }
}

fn participant_info(p: &SpdpParticipantData) -> Arc<ParticipantInfo> {
    Arc::new(ParticipantInfo { guid: p.guid(), vendor_id: p.vendor_id, user_data: Arc::from(&p.user_data[..]) })
}

impl Network {
    fn timer_epoch(&self) -> Instant {
        self.timer.epoch()
    }

    fn since_epoch(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.timer_epoch()).as_nanos() as u64
    }

    /// The metatraffic addresses of the participants we know: announcements go there too. Taken
    /// before the SPDP lock (lock order: maps before endpoints).
    fn known_meta_addrs(&self) -> Vec<SocketAddr> {
        read(&self.participants).values().map(|p| p.meta_addr).collect()
    }

    /// Sends the announcement written at start.
    pub(crate) fn announce_participant(&self) {
        let mut out = Outbox::new();
        let next = {
            let mut s = lock(&self.spdp);
            let mut actions = std::mem::take(&mut s.actions);
            self.route_spdp(&s, &mut actions, &[], &mut out);
            s.actions = actions;
            s.writer.next_deadline()
        };
        self.flush(&mut out);
        self.timer.schedule(next);
    }

    /// Addresses SPDP actions: to all targets and `known` participants, or directed to the one
    /// participant at `known[0]`.
    fn route_spdp(&self, s: &Spdp, actions: &mut Vec<WriterAction>, known: &[SocketAddr], out: &mut Outbox) {
        let writer = EntityId::SPDP_WRITER;
        let reader = EntityId::SPDP_READER;
        for action in actions.drain(..) {
            let to = match &action {
                WriterAction::Data { to, .. } | WriterAction::DataFrag { to, .. } => *to,
                _ => continue,
            };
            match to {
                Dest::All => {
                    let mut all = s.targets.clone();
                    for a in known {
                        if !all.contains(a) {
                            all.push(*a);
                        }
                    }
                    for a in all {
                        let dst = GuidPrefix::default();
                        out.push(a, Out::Writer { writer, reader, dst, action: action.clone() });
                    }
                }
                Dest::Reader(g) => {
                    if let Some(a) = known.first() {
                        out.push(*a, Out::Writer { writer, reader, dst: g.prefix, action });
                    }
                }
            }
        }
    }

    /// The known participants our multicast announcements do not reach: all of them when we do not
    /// announce by multicast, else those that listen to no metatraffic multicast locator (Cyclone on
    /// loopback). Repeating every announcement by unicast to peers that get the multicast one made
    /// SPDP traffic grow with the square of the participant count (50 participants: 2,500
    /// datagrams per period instead of 50).
    fn unicast_announce_addrs(&self) -> Vec<SocketAddr> {
        let all = !self.multicast_active;
        read(&self.participants)
            .values()
            .filter(|p| all || p.data.metatraffic_multicast_locators.is_empty())
            .map(|p| p.meta_addr)
            .collect()
    }

    /// Periodic announcements; returns the next one's time.
    pub(crate) fn spdp_on_timer(&self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let known = self.unicast_announce_addrs();
        let mut s = lock(&self.spdp);
        if s.writer.next_deadline().is_some_and(|t| t <= now) {
            let mut actions = std::mem::take(&mut s.actions);
            s.writer.on_timer(now, &mut actions);
            self.route_spdp(&s, &mut actions, &known, out);
            s.actions = actions;
            if s.initial_left > 0 {
                s.initial_left -= 1;
                if s.initial_left == 0 {
                    let period = s.period;
                    s.writer.set_resend_period(Some(period), now);
                }
            }
        }
        s.writer.next_deadline()
    }

    /// When we last heard from participant `prefix`, kept up to date, if we know it.
    pub(crate) fn heard_clock(&self, prefix: GuidPrefix) -> Option<Heard> {
        read(&self.participants).get(&prefix).map(|p| p.last_heard.clone())
    }

    /// Renews the lease of the participant a datagram came from, if we know it.
    pub(crate) fn heard_from(&self, prefix: GuidPrefix, now: Instant) {
        if let Some(p) = read(&self.participants).get(&prefix) {
            p.last_heard.set(self.since_epoch(now));
        }
    }

    /// An SPDP DATA.
    pub(crate) fn on_spdp(&self, header: &Header, d: &WireData<'_>, now: Instant, out: &mut Outbox) {
        let payload = match d.payload {
            Some(p) if d.key_flag => SerializedPayload::Key(p),
            Some(p) => SerializedPayload::Data(p),
            None => SerializedPayload::None,
        };
        match decode_change::<SpdpParticipantData>(d.inline_qos.as_ref(), payload, header) {
            Ok(Change::Alive(p)) => self.participant_alive(p, now, out),
            Ok(Change::NotAlive { guid, .. }) => {
                self.remember_disposed(guid.prefix, now);
                if self.remove_participant(guid.prefix, out) {
                    bump(&self.counters.participants_disposed);
                }
            }
            Err(_) => bump(&self.counters.malformed_discovery),
        }
    }

    fn participant_alive(&self, p: SpdpParticipantData, now: Instant, out: &mut Outbox) {
        if p.guid_prefix == self.prefix {
            return;
        }
        let other_domain = p.domain_id.is_some_and(|d| d != self.domain_id) || p.domain_tag != self.cfg.domain_tag;
        if other_domain || (self.cfg.intra_process && is_local_intra(p.guid_prefix)) {
            bump(&self.counters.ignored_participants);
            return;
        }
        let db = lock(&self.discovery);
        let known = read(&self.participants).get(&p.guid_prefix).cloned();
        if let Some(known) = known {
            known.last_heard.set(self.since_epoch(now));
            // An announcement asserts the participant: its AUTOMATIC writers, if not alive, are again.
            self.writer_leases.renew_participant(p.guid_prefix, false, now);
            let t = self.since_epoch(now);
            let in_window = t.saturating_sub(known.discovered) < ANSWER_WINDOW.as_nanos() as u64;
            let last = known.last_answered.load(Ordering::Relaxed);
            if in_window
                && t.saturating_sub(last) >= ANSWER_MIN_GAP.as_nanos() as u64
                && known.last_answered.compare_exchange(last, t, Ordering::Relaxed, Ordering::Relaxed).is_ok()
            {
                self.answer_spdp(p.guid_prefix, known.meta_addr, out);
            }
            if known.data.lease_duration != p.lease_duration || known.data.user_data != p.user_data {
                let updated = RemoteParticipant {
                    data: p,
                    meta_addr: known.meta_addr,
                    default_addr: known.default_addr,
                    last_heard: known.last_heard.clone(),
                    discovered: known.discovered,
                    last_answered: AtomicU64::new(known.last_answered.load(Ordering::Relaxed)),
                };
                self.graph.participant_changed(participant_info(&updated.data), true, false);
                write(&self.participants).insert(updated.data.guid_prefix, Arc::new(updated));
            }
            return;
        }
        if self.was_disposed(p.guid_prefix, now) {
            bump(&self.counters.ignored_participants);
            return;
        }
        if read(&self.participants).len() >= self.cfg.max_remote_participants {
            bump(&self.counters.participants_over_limit);
            return;
        }
        // Without an address we can reach, there is no talking to it (a peer on another host in
        // localhost-only mode, or one announcing only transports we do not speak).
        let Some(meta_addr) = self.pick_address(&p.metatraffic_unicast_locators) else {
            bump(&self.counters.ignored_participants);
            return;
        };
        let default_addr = self.pick_address(&p.default_unicast_locators).unwrap_or(meta_addr);
        let prefix = p.guid_prefix;
        let builtins = p.builtin_endpoints;
        let rp = Arc::new(RemoteParticipant {
            data: p,
            meta_addr,
            default_addr,
            last_heard: Heard::new(self.timer_epoch(), self.since_epoch(now)),
            discovered: self.since_epoch(now),
            last_answered: AtomicU64::new(self.since_epoch(now)),
        });
        let expires = rp.expires();
        self.graph.participant_changed(participant_info(&rp.data), true, false);
        write(&self.participants).insert(prefix, rp);
        bump(&self.counters.participants_discovered);
        self.answer_spdp(prefix, meta_addr, out);
        let next = self.builtin.match_participant(now, prefix, builtins, meta_addr, out);
        drop(db);
        self.timer.schedule(next);
        self.timer.schedule(expires);
    }

    /// Remembers a goodbye for `disposed_participant_memory`; forgets older ones, and holds at
    /// most as many as remote participants may be known (a flood of goodbyes cannot grow it
    /// without bound).
    fn remember_disposed(&self, prefix: GuidPrefix, now: Instant) {
        let t = self.since_epoch(now);
        let keep = self.cfg.disposed_participant_memory.as_nanos() as u64;
        let mut d = lock(&self.disposed);
        d.retain(|_, at| t.saturating_sub(*at) < keep);
        if d.len() < self.cfg.max_remote_participants {
            d.insert(prefix, t);
        }
        drop(d);
        self.timer.schedule(now.checked_add(self.cfg.disposed_participant_memory));
    }

    /// Forgets the goodbyes older than `disposed_participant_memory` (timer sweep: when the churn
    /// stops, the memory of the last departures goes too, map included); returns when the next
    /// one may be forgotten.
    fn forget_disposed(&self, now: Instant) -> Option<Instant> {
        let t = self.since_epoch(now);
        let keep = self.cfg.disposed_participant_memory.as_nanos() as u64;
        let mut d = lock(&self.disposed);
        d.retain(|_, at| t.saturating_sub(*at) < keep);
        if d.is_empty() {
            d.shrink_to_fit();
        }
        let oldest = d.values().min()?;
        Some(self.timer_epoch() + Duration::from_nanos(oldest.saturating_add(keep)))
    }

    fn was_disposed(&self, prefix: GuidPrefix, now: Instant) -> bool {
        let keep = self.cfg.disposed_participant_memory.as_nanos() as u64;
        lock(&self.disposed).get(&prefix).is_some_and(|at| self.since_epoch(now).saturating_sub(*at) < keep)
    }

    /// Our latest announcement, by unicast to one participant's metatraffic address.
    fn answer_spdp(&self, prefix: GuidPrefix, meta_addr: SocketAddr, out: &mut Outbox) {
        let mut s = lock(&self.spdp);
        let mut actions = std::mem::take(&mut s.actions);
        s.writer.send_latest_to(Guid::new(prefix, EntityId::SPDP_READER), &mut actions);
        self.route_spdp(&s, &mut actions, &[meta_addr], out);
        s.actions = actions;
        bump(&self.counters.spdp_answers);
    }

    /// Removes a participant and everything it owns; false if it was not known.
    pub(crate) fn remove_participant(&self, prefix: GuidPrefix, out: &mut Outbox) -> bool {
        let mut db = lock(&self.discovery);
        {
            let mut known = write(&self.participants);
            if known.remove(&prefix).is_none() {
                return false;
            }
            crate::capacity::release_peak(&mut known);
        }
        self.builtin.unmatch_participant(prefix);
        self.remove_remote_endpoints_of(&mut db, prefix, out);
        // Its endpoints were reported gone just above; any the database did not hold go here.
        self.graph.participant_left(Guid::new(prefix, EntityId::PARTICIPANT));
        drop(db);
        self.shm_peer_gone(prefix);
        true
    }

    /// Removes the participants whose lease ran out; returns the next expiry.
    pub(crate) fn expire_leases(&self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut next = self.forget_disposed(now);
        let mut expired = Vec::new();
        for (prefix, p) in read(&self.participants).iter() {
            match p.expires() {
                Some(t) if t <= now => expired.push(*prefix),
                Some(t) => next = Some(next.map_or(t, |n| n.min(t))),
                None => {}
            }
        }
        for prefix in expired {
            if self.remove_participant(prefix, out) {
                bump(&self.counters.participants_lost_by_lease);
            }
        }
        next
    }

    /// Our goodbye: the SPDP disposal (key hash + status inline, and the key with flag K, so that
    /// both Cyclone and Fast DDS understand it), to everyone our announcements go to.
    pub(crate) fn dispose_participant(&self, out: &mut Outbox) {
        let guid = Guid::new(self.prefix, EntityId::PARTICIPANT);
        let known = self.known_meta_addrs();
        let s = lock(&self.spdp);
        let Some(latest) = s.writer.history().latest() else { return };
        let meta = SampleMeta {
            key_hash: Some(guid.to_bytes()),
            status_info: StatusInfo::DISPOSED_UNREGISTERED.0,
            ..SampleMeta::default()
        };
        let data = crate::rtps::Data {
            sn: latest.sn + 1,
            meta,
            payload: inline_qos::encode_key_payload(BuiltinTopic::Participant, &guid).into(),
        };
        let mut actions = vec![WriterAction::Data { to: Dest::All, data, resend: false }];
        self.route_spdp(&s, &mut actions, &known, out);
    }
}
