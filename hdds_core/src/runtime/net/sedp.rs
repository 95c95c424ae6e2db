//! SEDP: the built-in endpoints, announcing our writers and readers, learning the remote ones and
//! matching them with ours.
//!
//! - Built-in writers (publications, subscriptions, participant message) are reliable,
//!   TRANSIENT_LOCAL StatefulWriters; SEDP keeps every announcement and disposal (KEEP_ALL), so a
//!   late-joining participant learns every live endpoint. Built-in readers are StatefulReaders.
//!   Each is matched with a remote participant's counterpart when its PID_BUILTIN_ENDPOINT_SET
//!   names it.
//! - A local endpoint is announced when created (topic, type, QoS, our default unicast locator) and
//!   disposed when deleted: PID_KEY_HASH + PID_STATUS_INFO inline (Fast DDS reads these) and the
//!   key with flag K (Cyclone reads that).
//! - A remote endpoint is matched against our endpoints on its topic with
//!   [`crate::discovery::check_match`]; a mismatch is recorded on our endpoint
//!   ([`crate::runtime::MatchStatus`]). It is sent to at its own unicast locator, or else at its
//!   participant's default one.
//!
//! All of it runs under the `discovery` lock, so that an endpoint created while a remote one is
//! being discovered is matched exactly once.

use crate::payload::Payload;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::endpoint::{ReaderMachine, ReaderPort, WriterPort};
use super::participant_message::{
    participant_message_kind, PMD_AUTOMATIC_LIVELINESS_UPDATE, PMD_MANUAL_LIVELINESS_UPDATE,
};
use super::send::{Out, Outbox};
use super::{bump, lock, min_deadline, read, write, Network};
use crate::discovery::inline_qos::{self, BuiltinTopic, StatusInfo};
use crate::discovery::sedp::{DurabilityKind, EndpointData, EndpointQos};
use crate::discovery::spdp::builtin_endpoints as bits;
use crate::discovery::{check_match, DiscoveredReaderData, DiscoveredWriterData};
use crate::qos::{Durability, Reliability};
use crate::rtps::{
    Delivery, HistoryKind, MatchedReader, ReaderConfig, SampleMeta, StatefulReader, StatefulWriter, WriterAction,
    WriterConfig,
};
use crate::runtime::discovery_events::EndpointInfo;
use crate::runtime::reader::ReaderShared;
use crate::runtime::writer::WriterShared;
use crate::wire::{EntityId, Guid, GuidPrefix};

/// The most announcements a built-in writer keeps: far more than a process creates endpoints.
const SEDP_HISTORY: usize = 1 << 20;

/// Our built-in discovery endpoints.
pub(crate) struct Builtin {
    pubs_writer: Mutex<WriterPort>,
    subs_writer: Mutex<WriterPort>,
    p2p_writer: Mutex<WriterPort>,
    pubs_reader: Mutex<ReaderPort>,
    subs_reader: Mutex<ReaderPort>,
    p2p_reader: Mutex<ReaderPort>,
}

/// What a built-in reader's data is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuiltinKind {
    Sedp(BuiltinTopic),
    /// Participant messages (liveliness, participant_message.rs): they renew the leases of the
    /// participant's MANUAL_BY_PARTICIPANT and AUTOMATIC writers.
    ParticipantMessage,
}

/// A discovery writer whose readers acknowledged everything sends no periodic HEARTBEAT (as
/// Cyclone DDS): each new sample carries one, and anything unacknowledged brings the fast period
/// back (backing off to about 10 s while no ACKNACK comes). An idle HEARTBEAT per builtin writer and
/// remote participant every second was the whole steady discovery traffic at scale: 50 participants
/// sent ~7,000 datagrams/s where Cyclone sends ~300 (bench/discovery_scale.py). Finite only
/// because deadlines are `Instant + period`.
const BUILTIN_IDLE_HEARTBEAT_PERIOD: std::time::Duration = std::time::Duration::from_secs(3600);

/// How far a discovery writer's HEARTBEATs back off while an announcement stays unacknowledged
/// (the fast period, 10 ms, doubled ten times): a participant that vanished without a goodbye
/// costs a HEARTBEAT every 10 s per built-in writer until its lease runs out, not ten a second,
/// which at scale (bench/discovery_scale.py) would be most of the discovery traffic.
const BUILTIN_UNACKED_HEARTBEAT_MAX: std::time::Duration = std::time::Duration::from_millis(10_240);

fn builtin_writer(
    prefix: GuidPrefix,
    id: EntityId,
    reader: EntityId,
    history: HistoryKind,
    now: Instant,
) -> Mutex<WriterPort> {
    let mut cfg = WriterConfig::new(Guid::new(prefix, id));
    cfg.history = history;
    cfg.durability = Durability::TransientLocal;
    cfg.heartbeat_period = BUILTIN_IDLE_HEARTBEAT_PERIOD;
    cfg.unacked_heartbeat_max = BUILTIN_UNACKED_HEARTBEAT_MAX;
    Mutex::new(WriterPort::new(StatefulWriter::new(cfg, now), reader))
}

fn builtin_reader(prefix: GuidPrefix, id: EntityId) -> Mutex<ReaderPort> {
    Mutex::new(ReaderPort::new(ReaderMachine::Reliable(StatefulReader::new(ReaderConfig::new(Guid::new(prefix, id))))))
}

impl Builtin {
    pub(crate) fn new(prefix: GuidPrefix, now: Instant) -> Builtin {
        let all = HistoryKind::KeepAll { max_samples: SEDP_HISTORY };
        Builtin {
            pubs_writer: builtin_writer(
                prefix,
                EntityId::SEDP_PUBLICATIONS_WRITER,
                EntityId::SEDP_PUBLICATIONS_READER,
                all,
                now,
            ),
            subs_writer: builtin_writer(
                prefix,
                EntityId::SEDP_SUBSCRIPTIONS_WRITER,
                EntityId::SEDP_SUBSCRIPTIONS_READER,
                all,
                now,
            ),
            p2p_writer: builtin_writer(
                prefix,
                EntityId::P2P_MESSAGE_WRITER,
                EntityId::P2P_MESSAGE_READER,
                HistoryKind::KeepLast(1),
                now,
            ),
            pubs_reader: builtin_reader(prefix, EntityId::SEDP_PUBLICATIONS_READER),
            subs_reader: builtin_reader(prefix, EntityId::SEDP_SUBSCRIPTIONS_READER),
            p2p_reader: builtin_reader(prefix, EntityId::P2P_MESSAGE_READER),
        }
    }

    /// (our writer, its remote reader, the bit saying the remote has that reader)
    fn writer_pairs(&self) -> [(&Mutex<WriterPort>, EntityId, u32); 3] {
        [
            (&self.pubs_writer, EntityId::SEDP_PUBLICATIONS_READER, bits::PUBLICATIONS_DETECTOR),
            (&self.subs_writer, EntityId::SEDP_SUBSCRIPTIONS_READER, bits::SUBSCRIPTIONS_DETECTOR),
            (&self.p2p_writer, EntityId::P2P_MESSAGE_READER, bits::PARTICIPANT_MESSAGE_DATA_READER),
        ]
    }

    /// Every matched remote reader acknowledged everything our built-in writers sent (the
    /// announcements and disposals of our endpoints).
    pub(crate) fn all_acked(&self) -> bool {
        self.writer_pairs().iter().all(|(port, _, _)| lock(port).rtps.all_acked())
    }

    /// (our reader, its remote writer, the bit saying the remote has that writer)
    fn reader_pairs(&self) -> [(&Mutex<ReaderPort>, EntityId, u32); 3] {
        [
            (&self.pubs_reader, EntityId::SEDP_PUBLICATIONS_WRITER, bits::PUBLICATIONS_ANNOUNCER),
            (&self.subs_reader, EntityId::SEDP_SUBSCRIPTIONS_WRITER, bits::SUBSCRIPTIONS_ANNOUNCER),
            (&self.p2p_reader, EntityId::P2P_MESSAGE_WRITER, bits::PARTICIPANT_MESSAGE_DATA_WRITER),
        ]
    }

    /// Our built-in writer with this entity id (where ACKNACKs for it go).
    pub(crate) fn writer(&self, id: EntityId) -> Option<&Mutex<WriterPort>> {
        match id {
            EntityId::SEDP_PUBLICATIONS_WRITER => Some(&self.pubs_writer),
            EntityId::SEDP_SUBSCRIPTIONS_WRITER => Some(&self.subs_writer),
            EntityId::P2P_MESSAGE_WRITER => Some(&self.p2p_writer),
            _ => None,
        }
    }

    /// Our built-in reader for a remote built-in writer's entity id.
    pub(crate) fn reader_for(&self, writer_id: EntityId) -> Option<(&Mutex<ReaderPort>, BuiltinKind)> {
        match writer_id {
            EntityId::SEDP_PUBLICATIONS_WRITER => {
                Some((&self.pubs_reader, BuiltinKind::Sedp(BuiltinTopic::Publication)))
            }
            EntityId::SEDP_SUBSCRIPTIONS_WRITER => {
                Some((&self.subs_reader, BuiltinKind::Sedp(BuiltinTopic::Subscription)))
            }
            EntityId::P2P_MESSAGE_WRITER => Some((&self.p2p_reader, BuiltinKind::ParticipantMessage)),
            _ => None,
        }
    }

    /// Matches our built-in endpoints with those a new participant has.
    pub(crate) fn match_participant(
        &self,
        now: Instant,
        prefix: GuidPrefix,
        remote_bits: u32,
        addr: SocketAddr,
        out: &mut Outbox,
    ) -> Option<Instant> {
        let mut next = None;
        for (port, reader, bit) in self.writer_pairs() {
            if remote_bits & bit != 0 {
                let r = MatchedReader {
                    guid: Guid::new(prefix, reader),
                    reliable: true,
                    durability: Durability::TransientLocal,
                };
                let mut p = lock(port);
                p.match_reader(now, r, addr, out);
                next = min_deadline(next, p.rtps.next_deadline());
            }
        }
        for (port, writer, bit) in self.reader_pairs() {
            if remote_bits & bit != 0 {
                let mut p = lock(port);
                p.match_writer(now, Guid::new(prefix, writer), addr, out);
                next = min_deadline(next, p.next_deadline());
            }
        }
        next
    }

    pub(crate) fn unmatch_participant(&self, prefix: GuidPrefix) {
        for (port, reader, _) in self.writer_pairs() {
            lock(port).unmatch_reader(Guid::new(prefix, reader));
        }
        for (port, writer, _) in self.reader_pairs() {
            lock(port).unmatch_writer(Guid::new(prefix, writer));
        }
    }

    /// Writes one ParticipantMessageData (participant_message.rs); the writer's next deadline.
    pub(crate) fn write_participant_message(
        &self,
        now: Instant,
        payload: Payload,
        meta: SampleMeta,
        out: &mut Outbox,
    ) -> Option<Instant> {
        write_builtin(&self.p2p_writer, now, payload, meta, out)
    }

    pub(crate) fn on_timer(&self, now: Instant, out: &mut Outbox) -> Option<Instant> {
        let mut next = None;
        for (port, _, _) in self.writer_pairs() {
            let mut p = lock(port);
            if p.rtps.next_deadline().is_some_and(|t| t <= now) {
                p.drive(out, |w, a| w.on_timer(now, a));
            }
            next = min_deadline(next, p.rtps.next_deadline());
        }
        for (port, _, _) in self.reader_pairs() {
            let mut p = lock(port);
            if p.next_deadline().is_some_and(|t| t <= now) {
                p.on_timer(now, out);
            }
            next = min_deadline(next, p.next_deadline());
        }
        next
    }
}

/// A remote endpoint and the local ones it is matched with.
pub(super) struct Remote<T> {
    pub(super) data: T,
    pub(super) addr: SocketAddr,
    pub(super) matched: Vec<EntityId>,
}

/// What discovery knows: our endpoints as announced, and the remote ones.
#[derive(Default)]
pub(crate) struct Db {
    local_writers: HashMap<EntityId, DiscoveredWriterData>,
    local_readers: HashMap<EntityId, DiscoveredReaderData>,
    remote_writers: HashMap<Guid, Remote<DiscoveredWriterData>>,
    pub(super) remote_readers: HashMap<Guid, Remote<DiscoveredReaderData>>,
    /// (local writer, remote reader) pairs whose reader asked for UDP before we discovered it: it
    /// could not attach to the writer's ring (shm_fallback.rs).
    pub(super) udp_readers: Vec<(EntityId, Guid)>,
}

pub(super) fn matched_reader(r: &DiscoveredReaderData) -> MatchedReader {
    MatchedReader {
        guid: r.guid,
        reliable: r.qos.reliability == Reliability::Reliable,
        durability: if r.qos.durability >= DurabilityKind::TransientLocal {
            Durability::TransientLocal
        } else {
            Durability::Volatile
        },
    }
}

/// A remote endpoint as discovery events report it.
fn endpoint_info(e: &EndpointData, is_reader: bool) -> Arc<EndpointInfo> {
    Arc::new(EndpointInfo {
        guid: e.guid,
        participant_guid: e.participant_guid,
        vendor_id: e.vendor_id,
        is_reader,
        topic_name: e.topic_name.clone(),
        type_name: e.type_name.clone(),
        qos: e.qos.to_qos(),
        user_data: Arc::from(&e.qos.user_data[..]),
    })
}

/// Writes one sample on a built-in writer; its next deadline.
fn write_builtin(
    port: &Mutex<WriterPort>,
    now: Instant,
    payload: Payload,
    meta: SampleMeta,
    out: &mut Outbox,
) -> Option<Instant> {
    let mut p = lock(port);
    // SEDP's history holds a million announcements, the participant message's one: neither
    // refuses a write.
    let _ = p.drive(out, |w, a| w.write(now, payload, meta, a));
    p.rtps.next_deadline()
}

fn dispose_meta(guid: Guid) -> SampleMeta {
    SampleMeta {
        key_hash: Some(guid.to_bytes()),
        status_info: StatusInfo::DISPOSED_UNREGISTERED.0,
        ..SampleMeta::default()
    }
}

impl Network {
    /// Writes one sample of our SEDP publications or subscriptions.
    fn sedp_write(&self, topic: BuiltinTopic, payload: Payload, meta: SampleMeta, out: &mut Outbox) {
        let port = match topic {
            BuiltinTopic::Publication => &self.builtin.pubs_writer,
            _ => &self.builtin.subs_writer,
        };
        let next = write_builtin(port, Instant::now(), payload, meta, out);
        self.timer.schedule(next);
    }

    fn dispose_local(&self, topic: BuiltinTopic, guid: Guid, out: &mut Outbox) {
        let key = inline_qos::encode_key_payload(topic, &guid);
        self.sedp_write(topic, key.into(), dispose_meta(guid), out);
    }

    /// A new local writer: announce it and match it with the remote readers of its topic.
    pub(crate) fn add_local_writer(&self, w: &Arc<WriterShared>) {
        let mut out = Outbox::new();
        let mut db = lock(&self.discovery);
        write(&self.writers).insert(w.guid.entity_id, Arc::clone(w));
        self.automatic_writer_added(&w.qos.liveliness);
        let mut data = DiscoveredWriterData::new(w.guid, &w.topic.name, &w.type_name, &w.qos);
        data.unicast_locators = self.default_locators.clone();
        data.qos.user_data = w.user_data.to_vec();
        data.qos.partition = w.partition.clone();
        match data.encode() {
            Ok(payload) => self.sedp_write(BuiltinTopic::Publication, payload.into(), SampleMeta::default(), &mut out),
            Err(_) => bump(&self.counters.malformed_discovery),
        }
        let now = Instant::now();
        let Db { remote_readers, udp_readers, .. } = &mut *db;
        for rr in remote_readers.values_mut().filter(|r| r.data.topic_name == data.topic_name) {
            match check_match(&data, &rr.data) {
                Ok(()) => {
                    let udp = self.asked_for_udp(udp_readers, w.guid.entity_id, rr.data.guid);
                    let next = self.match_remote_reader(w, now, matched_reader(&rr.data), rr.addr, udp, &mut out);
                    self.timer.schedule(next);
                    rr.matched.push(w.guid.entity_id);
                }
                Err(e) => w.record_mismatch(e),
            }
        }
        db.local_writers.insert(w.guid.entity_id, data);
        drop(db);
        self.flush(&mut out);
    }

    /// A new local reader: announce it and match it with the remote writers of its topic.
    pub(crate) fn add_local_reader(&self, r: &Arc<ReaderShared>) {
        let mut out = Outbox::new();
        let mut db = lock(&self.discovery);
        write(&self.readers).insert(r.guid.entity_id, Arc::clone(r));
        let mut data = DiscoveredReaderData::new(r.guid, &r.topic.name, &r.type_name, &r.qos);
        data.unicast_locators = self.default_locators.clone();
        data.qos.user_data = r.user_data.to_vec();
        data.qos.partition = r.partition.clone();
        match data.encode() {
            Ok(payload) => self.sedp_write(BuiltinTopic::Subscription, payload.into(), SampleMeta::default(), &mut out),
            Err(_) => bump(&self.counters.malformed_discovery),
        }
        let now = Instant::now();
        for (g, rw) in db.remote_writers.iter_mut().filter(|(_, w)| w.data.topic_name == data.topic_name) {
            match check_match(&rw.data, &data) {
                Ok(()) => {
                    self.match_reader_with(r, now, (*g, &rw.data.qos), rw.addr, &mut out);
                    rw.matched.push(r.guid.entity_id);
                }
                Err(e) => r.record_mismatch(e),
            }
        }
        db.local_readers.insert(r.guid.entity_id, data);
        drop(db);
        self.flush(&mut out);
    }

    /// `writer`: its GUID and QoS. Counted alive or not as its LIVELINESS lease says.
    fn match_reader_with(
        &self,
        r: &Arc<ReaderShared>,
        now: Instant,
        (writer, qos): (Guid, &EndpointQos),
        addr: SocketAddr,
        out: &mut Outbox,
    ) {
        r.note_writer_lifespan(writer, qos.lifespan);
        let heard = || self.heard_clock(writer.prefix);
        let via_shm = self.writer_leases.attach(writer, &qos.liveliness, heard, r, now, |alive| {
            if self.shm_attach(r, writer, alive) {
                return true;
            }
            let next = r.net_match_writer(now, writer, addr, alive, out);
            self.timer.schedule(next);
            false
        });
        if via_shm {
            return;
        }
        if self.shm_peer(writer.prefix) {
            // A same-host writer whose ring we could not attach to: UDP instead (shm_fallback.rs).
            self.reader_falls_back_to_udp(r, writer, addr, out);
        }
        let mut routes = write(&self.routes);
        let v = routes.entry(writer).or_default();
        if !v.iter().any(|x| Arc::ptr_eq(x, r)) {
            v.push(Arc::clone(r));
        }
    }

    /// A local writer is deleted: dispose it and forget its matches.
    pub(crate) fn remove_local_writer(&self, w: &Arc<WriterShared>) {
        let mut out = Outbox::new();
        let mut db = lock(&self.discovery);
        write(&self.writers).remove(&w.guid.entity_id);
        if db.local_writers.remove(&w.guid.entity_id).is_some() {
            for rr in db.remote_readers.values_mut() {
                rr.matched.retain(|e| *e != w.guid.entity_id);
            }
            self.dispose_local(BuiltinTopic::Publication, w.guid, &mut out);
        }
        drop(db);
        self.flush(&mut out);
    }

    /// A local reader is deleted: dispose it and take it off every route.
    pub(crate) fn remove_local_reader(&self, r: &Arc<ReaderShared>) {
        let mut out = Outbox::new();
        let mut db = lock(&self.discovery);
        write(&self.readers).remove(&r.guid.entity_id);
        if let Some(shm) = &self.shm {
            shm.detach_reader(r);
        }
        write(&self.routes).retain(|_, v| {
            v.retain(|x| !Arc::ptr_eq(x, r));
            !v.is_empty()
        });
        self.writer_leases.forget_reader(r);
        if db.local_readers.remove(&r.guid.entity_id).is_some() {
            for rw in db.remote_writers.values_mut() {
                rw.matched.retain(|e| *e != r.guid.entity_id);
            }
            self.dispose_local(BuiltinTopic::Subscription, r.guid, &mut out);
        }
        drop(db);
        self.flush(&mut out);
    }

    /// Addresses `action` (a writer's HEARTBEAT) of local writer `w` to the participants of the
    /// remote readers that read its ring: they hear nothing else from it but samples.
    pub(crate) fn send_to_shm_readers(&self, w: &WriterShared, action: WriterAction, out: &mut Outbox) {
        let Some(ring) = w.shm.as_ref().filter(|r| r.reader_count() > 0) else { return };
        let db = lock(&self.discovery);
        let mut addrs: Vec<SocketAddr> = Vec::new();
        for (g, rr) in &db.remote_readers {
            if rr.matched.contains(&w.guid.entity_id) && ring.has_reader(*g) && !addrs.contains(&rr.addr) {
                addrs.push(rr.addr);
            }
        }
        drop(db);
        for a in addrs {
            let o = Out::Writer {
                writer: w.guid.entity_id,
                reader: EntityId::UNKNOWN,
                dst: GuidPrefix::default(),
                action: action.clone(),
            };
            out.push(a, o);
        }
    }

    /// The goodbye: every local endpoint disposed.
    pub(crate) fn dispose_all_local(&self, out: &mut Outbox) {
        let db = lock(&self.discovery);
        for w in db.local_writers.values() {
            self.dispose_local(BuiltinTopic::Publication, w.guid, out);
        }
        for r in db.local_readers.values() {
            self.dispose_local(BuiltinTopic::Subscription, r.guid, out);
        }
    }

    /// A sample our built-in reader delivered (in order, once), from a remote built-in writer.
    pub(crate) fn on_builtin_delivery(&self, kind: BuiltinKind, d: Delivery, now: Instant, out: &mut Outbox) {
        let BuiltinKind::Sedp(topic) = kind else {
            // A participant speaks only for itself.
            match participant_message_kind(&d.payload, d.writer.prefix) {
                Some(PMD_MANUAL_LIVELINESS_UPDATE) => self.writer_leases.renew_participant(d.writer.prefix, true, now),
                Some(PMD_AUTOMATIC_LIVELINESS_UPDATE) => {
                    self.writer_leases.renew_participant(d.writer.prefix, false, now)
                }
                _ => {}
            }
            return;
        };
        let Some(header) = read(&self.participants).get(&d.writer.prefix).map(|p| p.header()) else { return };
        if !StatusInfo(d.meta.status_info).is_alive() {
            let guid = match d.meta.key_hash {
                Some(k) => Guid::from_bytes(&k),
                None => match inline_qos::decode_key(&d.payload, header.vendor_id) {
                    Ok(g) => g,
                    Err(_) => return bump(&self.counters.malformed_discovery),
                },
            };
            // A participant speaks only for its own endpoints.
            if guid.prefix == d.writer.prefix {
                let mut db = lock(&self.discovery);
                match topic {
                    BuiltinTopic::Publication => self.forget_remote_writer(&mut db, guid),
                    _ => self.forget_remote_reader(&mut db, guid),
                }
            }
            return;
        }
        match topic {
            BuiltinTopic::Publication => match DiscoveredWriterData::decode(&d.payload, &header) {
                Ok(w) if w.guid.prefix == d.writer.prefix => self.remote_writer_alive(w, now, out),
                Ok(_) => {}
                Err(_) => bump(&self.counters.malformed_discovery),
            },
            _ => match DiscoveredReaderData::decode(&d.payload, &header) {
                Ok(r) if r.guid.prefix == d.writer.prefix => self.remote_reader_alive(r, now, out),
                Ok(_) => {}
                Err(_) => bump(&self.counters.malformed_discovery),
            },
        }
    }

    fn endpoint_addr(&self, prefix: GuidPrefix, locators: &[crate::wire::Locator]) -> Option<SocketAddr> {
        let default = read(&self.participants).get(&prefix).map(|p| p.default_addr)?;
        Some(self.pick_address(locators).unwrap_or(default))
    }

    fn remote_writer_alive(&self, w: DiscoveredWriterData, now: Instant, out: &mut Outbox) {
        let mut db = lock(&self.discovery);
        // Checked under the discovery lock: a participant removed meanwhile stays removed.
        let Some(addr) = self.endpoint_addr(w.guid.prefix, &w.unicast_locators) else { return };
        match db.remote_writers.get(&w.guid) {
            Some(old) if old.data == w => return,
            Some(_) => self.forget_remote_writer(&mut db, w.guid),
            None if db.remote_writers.len() + db.remote_readers.len() >= self.cfg.max_remote_endpoints => {
                bump(&self.counters.endpoints_over_limit);
                return;
            }
            None => {}
        }
        let mut matched = Vec::new();
        for (eid, local) in db.local_readers.iter().filter(|(_, r)| r.topic_name == w.topic_name) {
            let Some(r) = read(&self.readers).get(eid).cloned() else { continue };
            match check_match(&w, local) {
                Ok(()) => {
                    self.match_reader_with(&r, now, (w.guid, &w.qos), addr, out);
                    matched.push(*eid);
                }
                Err(e) => r.record_mismatch(e),
            }
        }
        self.graph.endpoint_changed(endpoint_info(&w, false), true, false);
        db.remote_writers.insert(w.guid, Remote { data: w, addr, matched });
    }

    fn remote_reader_alive(&self, rd: DiscoveredReaderData, now: Instant, out: &mut Outbox) {
        let mut db = lock(&self.discovery);
        let Some(addr) = self.endpoint_addr(rd.guid.prefix, &rd.unicast_locators) else { return };
        match db.remote_readers.get(&rd.guid) {
            Some(old) if old.data == rd => return,
            Some(_) => self.forget_remote_reader(&mut db, rd.guid),
            None if db.remote_writers.len() + db.remote_readers.len() >= self.cfg.max_remote_endpoints => {
                bump(&self.counters.endpoints_over_limit);
                return;
            }
            None => {}
        }
        let mut matched = Vec::new();
        let Db { local_writers, udp_readers, .. } = &mut *db;
        for (eid, local) in local_writers.iter().filter(|(_, w)| w.topic_name == rd.topic_name) {
            let Some(w) = read(&self.writers).get(eid).cloned() else { continue };
            match check_match(local, &rd) {
                Ok(()) => {
                    let udp = self.asked_for_udp(udp_readers, *eid, rd.guid);
                    let next = self.match_remote_reader(&w, now, matched_reader(&rd), addr, udp, out);
                    self.timer.schedule(next);
                    matched.push(*eid);
                }
                Err(e) => w.record_mismatch(e),
            }
        }
        self.graph.endpoint_changed(endpoint_info(&rd, true), true, false);
        db.remote_readers.insert(rd.guid, Remote { data: rd, addr, matched });
    }

    fn forget_remote_writer(&self, db: &mut Db, guid: Guid) {
        let Some(rw) = db.remote_writers.remove(&guid) else { return };
        self.graph.endpoint_changed(endpoint_info(&rw.data, false), false, false);
        // The lease first: once it is gone, the writer's liveliness no longer changes.
        let alive = self.writer_leases.remove_writer(guid);
        if let Some(readers) = write(&self.routes).remove(&guid) {
            for r in readers {
                r.net_unmatch_writer(guid, alive);
            }
        }
        self.shm_detach_writer(guid, alive);
    }

    fn forget_remote_reader(&self, db: &mut Db, guid: Guid) {
        db.udp_readers.retain(|(_, r)| *r != guid);
        let Some(rr) = db.remote_readers.remove(&guid) else { return };
        self.graph.endpoint_changed(endpoint_info(&rr.data, true), false, false);
        for eid in rr.matched {
            if let Some(w) = read(&self.writers).get(&eid).cloned() {
                self.unmatch_remote_reader(&w, guid);
            }
        }
    }

    /// Everything a departed participant owned.
    pub(crate) fn remove_remote_endpoints_of(&self, db: &mut Db, prefix: GuidPrefix, _out: &mut Outbox) {
        let writers: Vec<Guid> = db.remote_writers.keys().filter(|g| g.prefix == prefix).copied().collect();
        for g in writers {
            self.forget_remote_writer(db, g);
        }
        db.udp_readers.retain(|(_, r)| r.prefix != prefix);
        let readers: Vec<Guid> = db.remote_readers.keys().filter(|g| g.prefix == prefix).copied().collect();
        for g in readers {
            self.forget_remote_reader(db, g);
        }
        // Remote endpoint data is ~0.5 KiB a slot: a moment with more participants than usual
        // must not stay in the heap.
        crate::capacity::release_peak(&mut db.remote_writers);
        crate::capacity::release_peak(&mut db.remote_readers);
        crate::capacity::release_peak(&mut write(&self.routes));
    }
}
