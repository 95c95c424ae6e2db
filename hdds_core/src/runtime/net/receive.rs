//! The receive thread's work: one datagram at a time, parsed in place and dispatched.
//!
//! - DATA / DATA_FRAG / HEARTBEAT / HEARTBEAT_FRAG / GAP go to the reader named by readerId, or,
//!   when it is ENTITYID_UNKNOWN, to every local reader matched with the writer; SPDP data goes to
//!   the participant table and built-in writers' submessages to the built-in readers.
//! - ACKNACK / NACK_FRAG go to the writer named by writerId.
//! - A datagram that does not parse is dropped and counted; a submessage that does not parse ends
//!   its datagram (the ones before it were handled). Nothing here panics on what arrives.
//! - Submessages for another participant (INFO_DST) are skipped.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::endpoint::ReaderInput;
use super::send::Outbox;
use super::{bump, lock, read, Network};
use crate::discovery::inline_qos::InlineQos;
use crate::rtps::{self, Delivery, FragmentHeader, SampleIdentity, SampleMeta};
use crate::runtime::reader::ReaderShared;
use crate::time::Timestamp;
use crate::wire::parameter::ParameterList;
use crate::wire::pid;
use crate::wire::submessage::Submessage;
use crate::wire::vendor::VENDOR_ID_FASTDDS;
use crate::wire::{EntityId, Guid, GuidPrefix, Header, Message, ReceiverState};

/// The receive thread's reusable buffers, and what it learns while handling one datagram.
#[derive(Default)]
pub(crate) struct Context {
    out: Outbox,
    deliveries: Vec<Delivery>,
    /// When the datagram arrived (wall clock): the reception timestamp of its samples.
    received: Timestamp,
    /// The local readers of the writer the datagram's last submessage came from (`route_writer`):
    /// a datagram usually holds many from one writer, and this saves a route lookup for each. The
    /// list keeps its capacity from datagram to datagram (no allocation per datagram) and is
    /// emptied after each, so that it keeps no deleted reader alive.
    route_writer: Option<Guid>,
    route: Vec<Arc<ReaderShared>>,
    /// Readers that got samples: their waiters are woken once the datagram is done.
    to_wake: Vec<Arc<ReaderShared>>,
}

/// What travels with a payload, from the inline QoS and the receiver state.
fn sample_meta(state: &ReceiverState<'_>, inline_qos: Option<&ParameterList<'_>>) -> SampleMeta {
    let mut meta = SampleMeta { source_timestamp: state.timestamp.and_then(|t| t.to_nanos()), ..SampleMeta::default() };
    if let Some(list) = inline_qos {
        // A malformed key hash or status leaves the sample plain data; the rest is still usable.
        if let Ok(iq) = InlineQos::parse(list) {
            meta.key_hash = iq.key_hash;
            meta.status_info = iq.status_info.0;
        }
        let rsi = list
            .find(pid::PID_RELATED_SAMPLE_IDENTITY)
            .or_else(|| list.vendor_param(VENDOR_ID_FASTDDS, pid::fastdds::PID_CUSTOM_RELATED_SAMPLE_IDENTITY));
        if let Some(Ok((writer, sn))) = rsi.map(|p| p.as_sample_identity()) {
            meta.related_sample_identity = Some(SampleIdentity { writer, sn: sn.0 });
        }
    }
    meta
}

impl Network {
    /// One datagram from `from`.
    pub(crate) fn on_datagram(&self, buf: &[u8], _from: SocketAddr, ctx: &mut Context) {
        bump(&self.counters.datagrams_received);
        self.counters.bytes_received.fetch_add(buf.len() as u64, Ordering::Relaxed);
        let Ok(msg) = Message::parse(buf) else {
            return bump(&self.counters.malformed_datagrams);
        };
        if msg.header.guid_prefix == self.prefix {
            return bump(&self.counters.own_datagrams);
        }
        let now = Instant::now();
        ctx.received = crate::time::now();
        // Routes may change between datagrams (matching runs on other threads), not within one.
        ctx.route_writer = None;
        self.heard_from(msg.header.guid_prefix, now);
        for r in msg.receive() {
            let r = match r {
                Ok(r) => r,
                Err(_) => {
                    bump(&self.counters.malformed_submessages);
                    break;
                }
            };
            let st = &r.state;
            if st.dest_guid_prefix != GuidPrefix::default() && st.dest_guid_prefix != self.prefix {
                continue;
            }
            let src = st.source_guid_prefix;
            match r.submessage {
                Submessage::Data(d) => {
                    if d.writer_id == EntityId::SPDP_WRITER {
                        let header =
                            Header { version: st.source_version, vendor_id: st.source_vendor_id, guid_prefix: src };
                        self.on_spdp(&header, &d, now, &mut ctx.out);
                        continue;
                    }
                    let meta = sample_meta(st, d.inline_qos.as_ref());
                    let payload = d.payload.unwrap_or(&[]);
                    let input = ReaderInput::Data { sn: d.writer_sn.0, meta, payload };
                    self.to_readers(src, d.reader_id, d.writer_id, input, now, ctx);
                }
                Submessage::DataFrag(f) => {
                    let header = FragmentHeader {
                        sn: f.writer_sn.0,
                        fragment_start: f.fragment_starting_num,
                        fragments_in_submessage: f.fragments_in_submessage,
                        fragment_size: f.fragment_size,
                        sample_size: f.sample_size,
                    };
                    let meta = sample_meta(st, f.inline_qos.as_ref());
                    let input = ReaderInput::Frag { header, meta, bytes: f.fragment_bytes() };
                    self.to_readers(src, f.reader_id, f.writer_id, input, now, ctx);
                }
                Submessage::Heartbeat(h) => {
                    let hb = rtps::Heartbeat {
                        first_sn: h.first_sn.0,
                        last_sn: h.last_sn.0,
                        count: h.count as i32,
                        final_flag: h.final_flag,
                        liveliness_flag: h.liveliness_flag,
                    };
                    self.to_readers(src, h.reader_id, h.writer_id, ReaderInput::Heartbeat(hb), now, ctx);
                }
                Submessage::HeartbeatFrag(h) => {
                    let hb = rtps::HeartbeatFrag {
                        sn: h.writer_sn.0,
                        last_fragment: h.last_fragment_num,
                        count: h.count as i32,
                    };
                    self.to_readers(src, h.reader_id, h.writer_id, ReaderInput::HeartbeatFrag(hb), now, ctx);
                }
                Submessage::Gap(g) => {
                    let gap = rtps::Gap { start: g.gap_start.0, list: g.gap_list };
                    self.to_readers(src, g.reader_id, g.writer_id, ReaderInput::Gap(gap), now, ctx);
                }
                Submessage::AckNack(a) => {
                    let ack =
                        rtps::AckNack { state: a.reader_sn_state, count: a.count as i32, final_flag: a.final_flag };
                    let reader = Guid::new(src, a.reader_id);
                    let mut known = false;
                    self.to_writer(a.writer_id, &mut ctx.out, |w, out| {
                        known = w.reader(reader).is_some();
                        w.on_acknack(now, reader, &ack, out);
                    });
                    // Only from a reader the writer does not serve over UDP (shm_fallback.rs).
                    if !known && self.acknack_over_udp(a.writer_id, reader, &mut ctx.out) {
                        self.to_writer(a.writer_id, &mut ctx.out, |w, out| w.on_acknack(now, reader, &ack, out));
                    }
                }
                Submessage::NackFrag(n) => {
                    let nf =
                        rtps::NackFrag { sn: n.writer_sn.0, missing: n.fragment_number_state, count: n.count as i32 };
                    let reader = Guid::new(src, n.reader_id);
                    self.to_writer(n.writer_id, &mut ctx.out, |w, out| w.on_nack_frag(now, reader, &nf, out));
                }
                Submessage::Unknown { .. } => bump(&self.counters.unknown_submessages),
                Submessage::Pad(_)
                | Submessage::InfoTs(_)
                | Submessage::InfoSrc(_)
                | Submessage::InfoDst(_)
                | Submessage::InfoReply(_) => {}
            }
        }
        for r in ctx.to_wake.drain(..) {
            r.wake();
        }
        ctx.route.clear();
        // Listener calls queued by deliveries and discovery, now that no lock is held; then what
        // the datagram asked of us (ACKNACKs, repairs). In that order because a listener that
        // answers (a pong, a service) sends its reply first, as Cyclone's does (its ACKNACKs leave
        // from another thread): one datagram less before the reply, 64 KiB round trips over veth
        // 0.92-0.95x Cyclone's pong instead of 1.00x. It holds back nothing a listener could wait
        // for: acknowledgments to this process come in on this thread, behind the listener anyway.
        crate::runtime::events::run_listeners();
        self.flush(&mut ctx.out);
        self.graph.dispatch();
    }

    /// A writer-to-reader submessage from writer `(src, writer_id)`.
    fn to_readers(
        &self,
        src: GuidPrefix,
        reader_id: EntityId,
        writer_id: EntityId,
        input: ReaderInput<'_>,
        now: Instant,
        ctx: &mut Context,
    ) {
        let writer = Guid::new(src, writer_id);
        if writer_id.is_builtin() {
            let Some((port, kind)) = self.builtin.reader_for(writer_id) else {
                // Type lookup, security, ...: services we do not offer.
                return bump(&self.counters.unroutable_submessages);
            };
            let next = {
                let mut p = lock(port);
                if !p.is_matched(writer) {
                    return bump(&self.counters.unroutable_submessages);
                }
                let deliveries = &mut ctx.deliveries;
                p.input(now, writer, input, &mut ctx.out, |d| deliveries.push(d));
                p.next_deadline()
            };
            self.timer.schedule(next);
            // Processed once the port's lock is released: discovery takes its own locks. It may
            // change routes: the cached one is dropped.
            ctx.route_writer = None;
            for d in std::mem::take(&mut ctx.deliveries) {
                self.on_builtin_delivery(kind, d, now, &mut ctx.out);
            }
            return;
        }
        if ctx.route_writer != Some(writer) {
            ctx.route.clear();
            if let Some(readers) = read(&self.routes).get(&writer) {
                ctx.route.extend(readers.iter().cloned());
            }
            ctx.route_writer = Some(writer);
        }
        let readers = &ctx.route;
        // Samples and HEARTBEATs with the Liveliness flag renew a manual LIVELINESS lease, also of a
        // writer whose readers here all read its shared-memory ring (and so are not in `routes`).
        let asserts = match input {
            ReaderInput::Data { .. } | ReaderInput::Frag { .. } => true,
            ReaderInput::Heartbeat(hb) => hb.liveliness_flag,
            ReaderInput::HeartbeatFrag(_) | ReaderInput::Gap(_) => false,
        };
        let leased = asserts && self.writer_leases.renew(writer, now);
        let mut any = false;
        for r in readers.iter().filter(|r| reader_id == EntityId::UNKNOWN || r.guid.entity_id == reader_id) {
            any = true;
            let mut delivered = false;
            let next = r.net_input(now, ctx.received, writer, input, &mut ctx.out, &mut delivered, &self.counters);
            self.timer.schedule(next);
            if delivered && !ctx.to_wake.iter().any(|x| Arc::ptr_eq(x, r)) {
                ctx.to_wake.push(Arc::clone(r));
            }
        }
        if !any && !leased {
            bump(&self.counters.unroutable_submessages);
        }
    }

    /// A reader-to-writer submessage for our writer `writer_id`.
    fn to_writer(
        &self,
        writer_id: EntityId,
        out: &mut Outbox,
        f: impl FnOnce(&mut rtps::StatefulWriter, &mut Vec<rtps::WriterAction>),
    ) {
        if writer_id.is_builtin() {
            let Some(port) = self.builtin.writer(writer_id) else {
                return bump(&self.counters.unroutable_submessages);
            };
            let next = {
                let mut p = lock(port);
                p.drive(out, f);
                p.rtps.next_deadline()
            };
            self.timer.schedule(next);
            return;
        }
        let Some(w) = read(&self.writers).get(&writer_id).map(Arc::clone) else {
            return bump(&self.counters.unroutable_submessages);
        };
        let next = w.net_drive(self, out, f);
        self.timer.schedule(next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtps::{Data, Dest, WriterAction};
    use crate::wire::SequenceNumber;

    /// The first DATA's related sample identity, as the receive path reads it.
    fn identity_of(datagram: &[u8]) -> Option<SampleIdentity> {
        let msg = Message::parse(datagram).unwrap();
        msg.receive().map(|r| r.unwrap()).find_map(|r| match r.submessage {
            Submessage::Data(d) => Some(sample_meta(&r.state, d.inline_qos.as_ref()).related_sample_identity),
            _ => None,
        })?
    }

    fn hex_vector(text: &str) -> Vec<u8> {
        let hex: String = text.lines().filter(|l| !l.starts_with('#')).collect::<String>();
        let hex: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
        hex.chunks(2).map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap()).collect()
    }

    #[test]
    fn fast_dds_service_reply_identity_is_read_from_pid_0x800f() {
        // Fast DDS 2.9 sends only the vendor-specific id (ros_fastrtps_add_two_ints.pcap, frame 81).
        let reply = hex_vector(include_str!("../../../tests/data/rtps/fastdds_service_reply.hex"));
        let id = identity_of(&reply).expect("PID 0x800f read for Fast DDS's vendor id");
        assert_eq!(id.writer.to_bytes(), [1, 15, 127, 1, 246, 97, 184, 233, 0, 0, 0, 0, 0, 0, 0x12, 0x04]);
        assert_eq!(id.sn, 1);
        let request = hex_vector(include_str!("../../../tests/data/rtps/fastdds_service_request.hex"));
        assert_eq!(identity_of(&request).map(|i| i.sn), Some(SequenceNumber::UNKNOWN.0));
        // The same bytes from another vendor mean something else (Cyclone: SUBSCRIPTION_KEYS).
        let mut other = reply.clone();
        other[6..8].copy_from_slice(&crate::wire::vendor::VENDOR_ID_CYCLONE);
        assert_eq!(identity_of(&other), None);
    }

    #[test]
    fn our_identity_goes_out_under_both_ids_and_comes_back() {
        let id = SampleIdentity { writer: Guid::from_bytes(&[7; 16]), sn: 42 };
        let meta = SampleMeta { source_timestamp: Some(1), related_sample_identity: Some(id), ..SampleMeta::default() };
        let data = Data { sn: 1, meta, payload: crate::Payload::from(&[0u8, 1, 0, 0, 9][..]) };
        let action = WriterAction::Data { to: Dest::All, data, resend: false };
        let out = super::super::send::Out::Writer {
            writer: EntityId([0, 0, 1, 3]),
            reader: EntityId::UNKNOWN,
            dst: GuidPrefix::default(),
            action,
        };
        let mut sent = Vec::new();
        let to: SocketAddr = "127.0.0.1:7411".parse().unwrap();
        super::super::send::encode(GuidPrefix([1; 12]), &[(to, out)], |_, d| sent.push(d.to_vec()));
        assert_eq!(identity_of(&sent[0]), Some(id));
        let msg = Message::parse(&sent[0]).unwrap();
        let d = msg
            .receive()
            .find_map(|r| match r.unwrap().submessage {
                Submessage::Data(d) => Some(d),
                _ => None,
            })
            .unwrap();
        let q = d.inline_qos.unwrap();
        let standard = q.find(pid::PID_RELATED_SAMPLE_IDENTITY).unwrap();
        assert_eq!(standard.value.len(), 24);
        assert_eq!(standard.as_sample_identity().unwrap(), (id.writer, SequenceNumber(42)));
        // What Fast DDS 2.9 reads: the vendor-specific id, also 24 bytes.
        let raw = q.iter().find(|p| p.pid == pid::fastdds::PID_CUSTOM_RELATED_SAMPLE_IDENTITY).unwrap();
        assert_eq!(raw.value.len(), 24);
        assert_eq!(&raw.value[..16], &[7; 16]);
    }
}
