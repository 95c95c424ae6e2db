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
    /// The local readers of the writer the datagram's last submessage came from: a datagram
    /// usually holds many from one writer, and this saves a route lookup for each.
    route: Option<(Guid, Vec<Arc<ReaderShared>>)>,
    /// Readers that got samples with a thread waiting for them: woken once the datagram is done.
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
        ctx.route = None;
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
                    self.to_writer(a.writer_id, &mut ctx.out, |w, out| w.on_acknack(now, reader, &ack, out));
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
        self.flush(&mut ctx.out);
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
            ctx.route = None;
            for d in std::mem::take(&mut ctx.deliveries) {
                self.on_builtin_delivery(kind, d, now, &mut ctx.out);
            }
            return;
        }
        if ctx.route.as_ref().map_or(true, |(w, _)| *w != writer) {
            let readers = read(&self.routes).get(&writer).cloned().unwrap_or_default();
            ctx.route = Some((writer, readers));
        }
        let Some((_, readers)) = &ctx.route else { unreachable!("set above") };
        let mut any = false;
        for r in readers.iter().filter(|r| reader_id == EntityId::UNKNOWN || r.guid.entity_id == reader_id) {
            any = true;
            let mut wake = false;
            let next = r.net_input(now, ctx.received, writer, input, &mut ctx.out, &mut wake);
            self.timer.schedule(next);
            if wake && !ctx.to_wake.iter().any(|x| Arc::ptr_eq(x, r)) {
                ctx.to_wake.push(Arc::clone(r));
            }
        }
        if !any {
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
        let next = w.net_drive(out, f);
        self.timer.schedule(next);
    }
}
