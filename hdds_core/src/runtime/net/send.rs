//! From the state machines' actions to datagrams: an [`Outbox`] of addressed submessages, filled
//! under an endpoint's lock and encoded and sent after the lock is released (no lock is ever held
//! across a socket send), and [`encode`], which packs them into as few RTPS messages as fit.
//!
//! Packing: the submessages for one address go into messages of at most [`MAX_MESSAGE`] bytes
//! (Cyclone's 14720), [`LOOPBACK_MESSAGE`] to a loopback address ([`message_limit`]), in order.
//! INFO_TS precedes a DATA / DATA_FRAG whenever the timestamp changes; INFO_DST precedes
//! submessages directed at one participant. A message never goes back from a directed submessage
//! to an undirected one (receivers differ on what INFO_DST with a zero prefix means), it ends
//! instead. A message with a resent DATA_FRAG in it stays within [`REPAIR_MESSAGE`]
//! bytes, one Ethernet frame: the repair of one fragment is then lost only with its own frame.
//! Packed to 14720 bytes (ten IP fragments), a repair arrives only if all ten do: 11 % of the time
//! at 20 % frame loss; the repairs came back as NACK_FRAGs and were resent, and the receiving
//! kernel's IP reassembly memory filled with the incomplete datagrams and then dropped every
//! fragment (test/fault's lossy_frag case: 10 of 400 8 KiB samples in 12 s before, all after).

use std::cell::RefCell;
use std::net::SocketAddr;

use crate::cdr::{EncodeError, Endian};
use crate::rtps::{self, SampleMeta, WriterAction};
use crate::time::Timestamp;
use crate::wire::parameter::{ParameterList, ParameterListWriter};
use crate::wire::pid;
use crate::wire::submessage::{self as sm, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, Header, MessageBuilder, SequenceNumber, Time, VENDOR_ID_HDDS};

/// The largest RTPS message we send: Cyclone's default, which every vendor receives.
pub(crate) const MAX_MESSAGE: usize = 14_720;

/// The largest RTPS message we send to a loopback address. Loopback's MTU is 64 KiB, so a datagram
/// there is never split into IP fragments, and what limits MAX_MESSAGE elsewhere (a datagram lost
/// with any one of its ten frames) does not hold: a 64 KiB sample's five DATA_FRAGs of ten
/// fragments go out in two datagrams instead of five (fewer sends, and fewer wake-ups of the
/// receiving thread). Below every vendor's receive size (Fast DDS's 65500 is the smallest we know
/// of). Measured (results/engine_vs_cyclone_notes.md, session 32): the 64 KiB loopback round trip.
pub(crate) const LOOPBACK_MESSAGE: usize = 64_000;

/// How large a message to `to` may be: [`LOOPBACK_MESSAGE`] to a loopback address, else
/// [`MAX_MESSAGE`].
pub(crate) fn message_limit(to: &SocketAddr) -> usize {
    if to.ip().is_loopback() {
        LOOPBACK_MESSAGE
    } else {
        MAX_MESSAGE
    }
}

/// The largest message that carries a resent DATA_FRAG: a UDP payload that fits a 1500-byte MTU
/// unfragmented (1500 - 20 IPv4 - 8 UDP). A fragment of the default 1344 bytes fits with its headers.
pub(crate) const REPAIR_MESSAGE: usize = 1_472;

/// One submessage to send, owned (payloads are shared `Arc`s, never copied before encoding).
#[derive(Debug, Clone)]
pub(crate) enum Out {
    /// A writer's submessage: `reader` is the reader id on the wire (ENTITYID_UNKNOWN for every
    /// matched reader there) and `dst` the participant it is for (zero: not directed).
    Writer {
        writer: EntityId,
        reader: EntityId,
        dst: GuidPrefix,
        action: WriterAction,
    },
    AckNack {
        reader: EntityId,
        writer: Guid,
        acknack: rtps::AckNack,
    },
    NackFrag {
        reader: EntityId,
        writer: Guid,
        nack_frag: rtps::NackFrag,
    },
}

impl Out {
    fn dst(&self) -> GuidPrefix {
        match self {
            Out::Writer { dst, .. } => *dst,
            Out::AckNack { writer, .. } | Out::NackFrag { writer, .. } => writer.prefix,
        }
    }

    /// The source timestamp a DATA / DATA_FRAG needs in force (`None` for other submessages).
    fn timestamp(&self) -> Option<Option<Timestamp>> {
        match self {
            Out::Writer { action: WriterAction::Data { data, .. }, .. } => Some(data.meta.source_timestamp),
            Out::Writer { action: WriterAction::DataFrag { frag, .. }, .. } => Some(frag.meta.source_timestamp),
            _ => None,
        }
    }

    fn is_fragment_repair(&self) -> bool {
        matches!(self, Out::Writer { action: WriterAction::DataFrag { resend: true, .. }, .. })
    }

    /// An upper bound of the encoded size, INFO_DST and INFO_TS included.
    pub(crate) fn size_bound(&self) -> usize {
        const INFO: usize = 16 + 12;
        // KEY_HASH 20, STATUS_INFO 8, two RELATED_SAMPLE_IDENTITY 28 each, sentinel 4.
        let inline = |m: &SampleMeta| if has_inline_qos(m) { 88 } else { 0 };
        match self {
            Out::Writer { action: WriterAction::Data { data, .. }, .. } => {
                INFO + 24 + inline(&data.meta) + data.payload.len() + 3
            }
            Out::Writer { action: WriterAction::DataFrag { frag, .. }, .. } => {
                INFO + 36 + inline(&frag.meta) + frag.bytes().len() + 3
            }
            _ => INFO + 64,
        }
    }
}

/// Addressed submessages waiting to be sent.
///
/// An outbox takes its list from the thread's spares when its first item comes, and a dropped one
/// gives it back: a writer's `write` or a receive thread's datagram then allocates no list of its
/// own, and one that sends nothing (a write with only same-process or same-host readers) touches
/// no spare at all.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    pub(crate) items: Vec<(SocketAddr, Out)>,
}

/// Lists kept per thread: a writing thread has about one outbox alive at a time, a receive
/// thread two (its own, and a listener's write).
const SPARE_OUTBOXES: usize = 4;

/// A spare list bigger than this (a large sample's fragments) is freed, not kept: at 192 bytes
/// an item, a thread keeps at most 48 KiB of spares.
const SPARE_ITEMS_MAX: usize = 64;

thread_local! {
    static SPARES: RefCell<Vec<Vec<(SocketAddr, Out)>>> = const { RefCell::new(Vec::new()) };
}

impl Outbox {
    pub(crate) fn new() -> Self {
        Outbox { items: Vec::new() }
    }

    pub(crate) fn push(&mut self, to: SocketAddr, out: Out) {
        if self.items.capacity() == 0 {
            self.items = SPARES.try_with(|s| s.borrow_mut().pop()).ok().flatten().unwrap_or_default();
        }
        self.items.push((to, out));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl Drop for Outbox {
    #[link_section = ".text.hot.hdds"]
    fn drop(&mut self) {
        let cap = self.items.capacity();
        if cap == 0 || cap > SPARE_ITEMS_MAX {
            return;
        }
        // Payloads are released now, not when the list is reused.
        self.items.clear();
        let items = std::mem::take(&mut self.items);
        // During the thread's teardown the spares are gone: the list is then simply freed.
        let _ = SPARES.try_with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < SPARE_OUTBOXES {
                s.push(items);
            }
        });
    }
}

/// Payloads from this size on are not copied into the message: the kernel gathers them from the
/// sample itself (`sendmsg` with one iovec per piece), as Cyclone sends. Below it a copy costs
/// less than the kernel's work per extra iovec. With the default fragment size (1344 B) every
/// whole DATA is copied and what is gathered are DATA_FRAG slices of several fragments: a batched
/// message of 14 samples of 1 KiB as one 14 KiB copy sent 1.0-1.2x the samples per second of the
/// same message as 29 pieces, over veth and loopback alike (results/engine_vs_cyclone_notes.md);
/// at 512, what session 5 chose, 1 KiB samples were gathered.
pub(crate) const GATHER_MIN: usize = 2048;

/// The most pieces a [`Datagram`] has: the encoded bytes around at most [`MAX_GATHERED`] payloads.
/// A 14720-byte message holds at most 7 payloads of [`GATHER_MIN`] bytes, a loopback one 31.
pub(crate) const MAX_PIECES: usize = 2 * MAX_GATHERED + 1;
const MAX_GATHERED: usize = 31;

/// Where a payload left out of the encoded bytes goes: at offset `at` of them, the payload of
/// `items[item]`.
#[derive(Debug, Clone, Copy)]
struct Cut {
    at: usize,
    item: usize,
}

/// One RTPS message as handed to the kernel: the encoded headers (and small payloads), with the
/// large payloads in place in the samples, inserted at their cuts.
pub(crate) struct Datagram<'a> {
    head: &'a [u8],
    cuts: &'a [Cut],
    items: &'a [(SocketAddr, Out)],
    len: usize,
}

impl<'a> Datagram<'a> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The bytes, when they are all in one piece (no payload was left out).
    pub(crate) fn contiguous(&self) -> Option<&'a [u8]> {
        self.cuts.is_empty().then_some(self.head)
    }

    /// The pieces in wire order, empty ones left out; at most [`MAX_PIECES`].
    pub(crate) fn pieces(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        let n = self.cuts.len();
        (0..=n)
            .flat_map(move |k| {
                let start = if k == 0 { 0 } else { self.cuts[k - 1].at };
                let end = if k < n { self.cuts[k].at } else { self.head.len() };
                let payload = (k < n).then(|| payload(&self.items[self.cuts[k].item].1));
                std::iter::once(&self.head[start..end]).chain(payload)
            })
            .filter(|p| !p.is_empty())
    }

    /// A datagram of bytes already encoded (tests).
    #[cfg(test)]
    pub(crate) fn of_bytes(head: &'a [u8]) -> Self {
        Datagram { head, cuts: &[], items: &[], len: head.len() }
    }

    /// The whole datagram copied out (tests, and transports that cannot gather).
    #[cfg(test)]
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len);
        self.pieces().for_each(|p| v.extend_from_slice(p));
        v
    }
}

/// The payload a DATA / DATA_FRAG carries on the wire (empty for other submessages).
fn payload(out: &Out) -> &[u8] {
    match out {
        Out::Writer { action: WriterAction::Data { data, .. }, .. } => &data.payload,
        Out::Writer { action: WriterAction::DataFrag { frag, .. }, .. } => frag.bytes(),
        _ => &[],
    }
}

/// What [`encode`] works in; kept per sending thread so that a steady stream allocates nothing.
#[derive(Default)]
struct EncodeBufs {
    /// The message being built (capacity [`MAX_MESSAGE`] once grown; more to a loopback address
    /// when payloads are copied into it).
    message: Vec<u8>,
    /// The distinct destinations of one call.
    addrs: Vec<SocketAddr>,
    /// The inline QoS of one DATA.
    scratch: Vec<u8>,
    /// The payloads left out of `message`.
    cuts: Vec<Cut>,
}

thread_local! {
    static ENCODE_BUFS: RefCell<EncodeBufs> = RefCell::new(EncodeBufs::default());
}

/// Encodes `items` into messages from `prefix` and hands each to `emit` with its destination.
/// Submessages that cannot be encoded (cannot happen with what the machines produce) are skipped
/// and counted in the return value.
pub(crate) fn encode(
    prefix: GuidPrefix,
    items: &[(SocketAddr, Out)],
    emit: impl FnMut(SocketAddr, &Datagram<'_>),
) -> u64 {
    encode_gathering(prefix, items, GATHER_MIN, emit)
}

/// [`encode`], leaving payloads of `gather_min` bytes and more out of the encoded bytes
/// (`usize::MAX`: none, every message contiguous).
fn encode_gathering(
    prefix: GuidPrefix,
    items: &[(SocketAddr, Out)],
    gather_min: usize,
    mut emit: impl FnMut(SocketAddr, &Datagram<'_>),
) -> u64 {
    let mut failed = 0;
    let header = Header::ours(prefix);
    ENCODE_BUFS.with(|cell| {
        // Taken out of the cell: `emit` may send from a listener that encodes again on this thread.
        let EncodeBufs { message: mut buf, mut addrs, mut scratch, mut cuts } = std::mem::take(&mut *cell.borrow_mut());
        if buf.capacity() < MAX_MESSAGE {
            buf.reserve(MAX_MESSAGE - buf.len());
        }
        addrs.clear();
        for (a, _) in items {
            if !addrs.contains(a) {
                addrs.push(*a);
            }
        }
        for &addr in &addrs {
            let mut b = MessageBuilder::with_buffer(buf, &header);
            cuts.clear();
            // Bytes of the payloads left out of `b`.
            let mut gathered = 0;
            let mut dst = GuidPrefix::default();
            let mut ts: Option<Option<Timestamp>> = None;
            let mut has_repair = false;
            for (i, (_, out)) in items.iter().enumerate().filter(|(_, (a, _))| *a == addr) {
                let out_dst = out.dst();
                let repair = out.is_fragment_repair();
                let limit = if has_repair || repair { REPAIR_MESSAGE } else { message_limit(&addr) };
                let full = b.len() + gathered + out.size_bound() > limit;
                let undirect = out_dst == GuidPrefix::default() && dst != GuidPrefix::default();
                if !b.is_empty() && (full || undirect) {
                    emit(addr, &Datagram { head: b.as_bytes(), cuts: &cuts, items, len: b.len() + gathered });
                    b = MessageBuilder::with_buffer(b.finish(), &header);
                    cuts.clear();
                    gathered = 0;
                    dst = GuidPrefix::default();
                    ts = None;
                    has_repair = false;
                }
                has_repair |= repair;
                if out_dst != dst {
                    let _ = b.add(&Submessage::InfoDst(sm::InfoDst { guid_prefix: out_dst }));
                    dst = out_dst;
                }
                if let Some(t) = out.timestamp() {
                    if ts != Some(t) {
                        let timestamp = t.map(Time::from_timestamp);
                        let _ = b.add(&Submessage::InfoTs(sm::InfoTs { timestamp }));
                        ts = Some(t);
                    }
                }
                let len = payload(out).len();
                let gather = len >= gather_min && cuts.len() < MAX_GATHERED;
                match add(&mut b, out, &mut scratch, gather) {
                    Ok(Some(at)) => {
                        cuts.push(Cut { at, item: i });
                        gathered += len;
                    }
                    Ok(None) => {}
                    Err(_) => failed += 1,
                }
            }
            if !b.is_empty() {
                emit(addr, &Datagram { head: b.as_bytes(), cuts: &cuts, items, len: b.len() + gathered });
            }
            buf = b.finish();
        }
        cuts.clear();
        *cell.borrow_mut() = EncodeBufs { message: buf, addrs, scratch, cuts };
    });
    failed
}

fn has_inline_qos(m: &SampleMeta) -> bool {
    m.key_hash.is_some() || m.status_info != 0 || m.related_sample_identity.is_some()
}

/// The inline QoS of a DATA: PID_KEY_HASH, PID_STATUS_INFO, and the related sample identity twice:
/// the standard PID_RELATED_SAMPLE_IDENTITY (0x0083, Fast DDS 2.10+) and Fast DDS's 0x800f (2.6 to
/// 2.9 read only that one; Cyclone skips a vendor-specific id of another vendor).
fn inline_qos<'s>(m: &SampleMeta, scratch: &'s mut Vec<u8>) -> Result<Option<ParameterList<'s>>, EncodeError> {
    if !has_inline_qos(m) {
        return Ok(None);
    }
    scratch.clear();
    let mut w = ParameterListWriter::new(scratch, Endian::Little);
    if let Some(k) = &m.key_hash {
        w.put(pid::PID_KEY_HASH, k)?;
    }
    if m.status_info != 0 {
        w.put(pid::PID_STATUS_INFO, &m.status_info.to_be_bytes())?;
    }
    if let Some(id) = &m.related_sample_identity {
        w.put_sample_identity(pid::PID_RELATED_SAMPLE_IDENTITY, &id.writer, SequenceNumber(id.sn))?;
        w.put_sample_identity(pid::fastdds::PID_CUSTOM_RELATED_SAMPLE_IDENTITY, &id.writer, SequenceNumber(id.sn))?;
    }
    // Not finished: `write_inline_qos` appends the sentinel.
    Ok(Some(ParameterList::written(scratch, Endian::Little, VENDOR_ID_HDDS)))
}

/// Adds `out` to `b`; with `gather`, a DATA / DATA_FRAG goes without its payload, and the offset
/// at which the payload belongs is returned.
fn add(b: &mut MessageBuilder, out: &Out, scratch: &mut Vec<u8>, gather: bool) -> Result<Option<usize>, EncodeError> {
    let left_out = payload(out).len();
    let sub = match out {
        Out::Writer { writer, reader, action, .. } => match action {
            WriterAction::Data { data, .. } => {
                // A disposal or unregistration carries the serialized key (flag K), if any.
                let key = data.meta.status_info != 0;
                let payload = if key && data.payload.is_empty() {
                    None
                } else if gather {
                    Some(&[][..])
                } else {
                    Some(&data.payload[..])
                };
                Submessage::Data(sm::Data {
                    extra_flags: 0,
                    reader_id: *reader,
                    writer_id: *writer,
                    writer_sn: SequenceNumber(data.sn),
                    inline_qos: inline_qos(&data.meta, scratch)?,
                    payload,
                    key_flag: key && payload.is_some(),
                    non_standard_payload: false,
                })
            }
            WriterAction::DataFrag { frag, .. } => {
                let h = &frag.header;
                // Inline QoS travels with the first fragment only, as Cyclone sends it.
                let iq = if h.fragment_start == 1 { inline_qos(&frag.meta, scratch)? } else { None };
                Submessage::DataFrag(sm::DataFrag {
                    extra_flags: 0,
                    reader_id: *reader,
                    writer_id: *writer,
                    writer_sn: SequenceNumber(h.sn),
                    fragment_starting_num: h.fragment_start,
                    fragments_in_submessage: h.fragments_in_submessage,
                    fragment_size: h.fragment_size,
                    sample_size: h.sample_size,
                    inline_qos: iq,
                    payload: if gather { &[] } else { frag.bytes() },
                    key_flag: false,
                    non_standard_payload: false,
                })
            }
            WriterAction::Gap { gap, .. } => Submessage::Gap(sm::Gap {
                reader_id: *reader,
                writer_id: *writer,
                gap_start: SequenceNumber(gap.start),
                gap_list: gap.list,
            }),
            WriterAction::Heartbeat { hb, .. } => Submessage::Heartbeat(sm::Heartbeat {
                reader_id: *reader,
                writer_id: *writer,
                first_sn: SequenceNumber(hb.first_sn),
                last_sn: SequenceNumber(hb.last_sn),
                count: hb.count as u32,
                final_flag: hb.final_flag,
                liveliness_flag: hb.liveliness_flag,
            }),
            WriterAction::HeartbeatFrag { hb, .. } => Submessage::HeartbeatFrag(sm::HeartbeatFrag {
                reader_id: *reader,
                writer_id: *writer,
                writer_sn: SequenceNumber(hb.sn),
                last_fragment_num: hb.last_fragment,
                count: hb.count as u32,
            }),
        },
        Out::AckNack { reader, writer, acknack } => Submessage::AckNack(sm::AckNack {
            reader_id: *reader,
            writer_id: writer.entity_id,
            reader_sn_state: acknack.state,
            count: acknack.count as u32,
            final_flag: acknack.final_flag,
        }),
        Out::NackFrag { reader, writer, nack_frag } => Submessage::NackFrag(sm::NackFrag {
            reader_id: *reader,
            writer_id: writer.entity_id,
            writer_sn: SequenceNumber(nack_frag.sn),
            fragment_number_state: nack_frag.missing,
            count: nack_frag.count as u32,
        }),
    };
    if gather {
        b.add_padded_without_payload(&sub, left_out).map(Some)
    } else {
        b.add_padded(&sub).map(|_| None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::Payload;
    use crate::rtps::{fragment, Data, Dest, Heartbeat};
    use crate::wire::{Message, ReceiverState};

    const W: EntityId = EntityId([0, 0, 1, 3]);

    fn data(sn: i64, len: usize, ts: i64) -> Out {
        let meta = SampleMeta { source_timestamp: Some(ts), ..SampleMeta::default() };
        let payload: Payload = vec![sn as u8; len].into();
        let action = WriterAction::Data { to: Dest::All, data: Data { sn, meta, payload }, resend: false };
        Out::Writer { writer: W, reader: EntityId::UNKNOWN, dst: GuidPrefix::default(), action }
    }

    fn decode_all(msgs: &[(SocketAddr, Vec<u8>)]) -> Vec<(SocketAddr, ReceiverState<'_>, Submessage<'_>)> {
        let mut v = Vec::new();
        for (a, m) in msgs {
            for r in Message::parse(m).unwrap().receive() {
                let r = r.unwrap();
                if !matches!(r.submessage, Submessage::InfoTs(_) | Submessage::InfoDst(_)) {
                    v.push((*a, r.state, r.submessage));
                }
            }
        }
        v
    }

    #[test]
    fn packs_per_address_with_timestamps_and_destinations() {
        let a: SocketAddr = "127.0.0.1:7411".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:7413".parse().unwrap();
        let reader = Guid::new(GuidPrefix([9; 12]), EntityId([0, 0, 2, 4]));
        let hb = Heartbeat { first_sn: 1, last_sn: 2, count: 1, final_flag: false, liveliness_flag: false };
        let items = vec![
            (a, data(1, 13, 1_000_000_000)),
            (b, data(1, 13, 1_000_000_000)),
            (a, data(2, 64, 2_000_000_000)),
            (
                a,
                Out::Writer {
                    writer: W,
                    reader: reader.entity_id,
                    dst: reader.prefix,
                    action: WriterAction::Heartbeat { to: Dest::Reader(reader), hb },
                },
            ),
        ];
        let mut msgs = Vec::new();
        assert_eq!(encode(GuidPrefix([1; 12]), &items, |to, d| msgs.push((to, d.to_vec()))), 0);
        assert_eq!(msgs.len(), 2, "one message per address");
        let subs = decode_all(&msgs);
        assert_eq!(subs.len(), 4);
        let (to, st, s) = &subs[0];
        assert_eq!(*to, a);
        assert_eq!(st.timestamp.and_then(|t| t.to_nanos()), Some(1_000_000_000));
        match s {
            Submessage::Data(d) => assert_eq!(&d.payload.unwrap()[..13], &[1u8; 13]),
            other => panic!("{other:?}"),
        }
        assert_eq!(subs[1].1.timestamp.and_then(|t| t.to_nanos()), Some(2_000_000_000));
        assert_eq!(subs[2].1.dest_guid_prefix, reader.prefix);
        assert!(matches!(subs[2].2, Submessage::Heartbeat(h) if h.reader_id == reader.entity_id));
        assert_eq!(subs[3].0, b);
    }

    /// First-time fragments fill messages up to the destination's limit: Cyclone's 14720 bytes over
    /// a network, 64000 to a loopback address (no IP fragmentation there).
    #[test]
    fn large_batches_split_below_the_message_limit() {
        let sample: Payload = vec![7u8; 100_000].into();
        let n = fragment::fragment_count(sample.len(), 1344);
        for (to, limit, per_message) in [("10.1.2.3:7411", MAX_MESSAGE, 9), ("127.0.0.1:7411", LOOPBACK_MESSAGE, 45)] {
            let a: SocketAddr = to.parse().unwrap();
            assert_eq!(message_limit(&a), limit);
            let items: Vec<_> = (1..=n)
                .map(|i| {
                    let frag = fragment::data_frag(1, SampleMeta::default(), &sample, 1344, i);
                    let action = WriterAction::DataFrag { to: Dest::All, frag, resend: false };
                    (a, Out::Writer { writer: W, reader: EntityId::UNKNOWN, dst: GuidPrefix::default(), action })
                })
                .collect();
            let mut msgs = Vec::new();
            encode(GuidPrefix([1; 12]), &items, |to, d| msgs.push((to, d.to_vec())));
            assert!(msgs.iter().all(|(_, m)| m.len() <= limit), "{to}: a message above {limit} bytes");
            let most = (n as usize).div_ceil(per_message);
            assert!(msgs.len() <= most, "{to}: {} messages for {n} fragments, at most {most}", msgs.len());
            let total: usize = decode_all(&msgs)
                .iter()
                .map(|(_, _, s)| match s {
                    Submessage::DataFrag(f) => f.fragment_bytes().len(),
                    _ => 0,
                })
                .sum();
            assert_eq!(total, 100_000, "{to}");
        }
    }

    #[test]
    fn fragment_repairs_go_one_ethernet_frame_each() {
        let a: SocketAddr = "127.0.0.1:7411".parse().unwrap();
        let sample: Payload = vec![7u8; 20_000].into();
        let n = fragment::fragment_count(sample.len(), 1344);
        let out = |i: u32, resend: bool| {
            let frag = fragment::data_frag(1, SampleMeta::default(), &sample, 1344, i);
            let action = WriterAction::DataFrag { to: Dest::All, frag, resend };
            (a, Out::Writer { writer: W, reader: EntityId::UNKNOWN, dst: GuidPrefix::default(), action })
        };
        // First sending of fragments 1-4, then repairs of every fragment, then a small DATA.
        let mut items: Vec<_> = (1..=4).map(|i| out(i, false)).collect();
        items.extend((1..=n).map(|i| out(i, true)));
        items.push((a, data(2, 10, 1)));
        let mut msgs = Vec::new();
        encode(GuidPrefix([1; 12]), &items, |to, d| msgs.push((to, d.to_vec())));
        let frags = |m: &[u8]| {
            let msg = Message::parse(m).unwrap();
            msg.receive().filter(|r| matches!(r.as_ref().unwrap().submessage, Submessage::DataFrag(_))).count()
        };
        assert_eq!(frags(&msgs[0].1), 4, "first sendings are packed as before");
        assert!(msgs[0].1.len() > REPAIR_MESSAGE);
        let rest = &msgs[1..];
        assert!(rest.iter().all(|(_, m)| m.len() <= REPAIR_MESSAGE && frags(m) == 1), "one repair per frame");
        assert_eq!(rest.len(), n as usize, "the DATA shares the short last fragment's frame");
    }
    /// Scatter-gather changes nothing on the wire: every datagram, gathered from its pieces, is
    /// byte for byte the contiguous encoding (odd lengths and their padding, inline QoS, key-only
    /// disposals, first-time and repaired fragments, small and large DATA mixed).
    #[test]
    fn gathered_datagrams_equal_the_contiguous_encoding() {
        let a: SocketAddr = "127.0.0.1:7411".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:7413".parse().unwrap();
        let keyed = SampleMeta { key_hash: Some([5; 16]), source_timestamp: Some(7), ..SampleMeta::default() };
        let with = |mut o: Out, meta: &SampleMeta| {
            if let Out::Writer { action: WriterAction::Data { data, .. }, .. } = &mut o {
                data.meta = *meta;
            }
            o
        };
        let disposal = {
            let meta = SampleMeta { status_info: 1, ..keyed };
            let action = WriterAction::Data {
                to: Dest::All,
                data: Data { sn: 9, meta, payload: Payload::from(&[][..]) },
                resend: false,
            };
            Out::Writer { writer: W, reader: EntityId::UNKNOWN, dst: GuidPrefix::default(), action }
        };
        let sample: Payload = (0..100_001u32).map(|i| i as u8).collect();
        let n = fragment::fragment_count(sample.len(), 1344);
        let frag = |i: u32, resend: bool| {
            let frag = fragment::data_frag(3, keyed, &sample, 1344, i);
            Out::Writer {
                writer: W,
                reader: EntityId::UNKNOWN,
                dst: GuidPrefix::default(),
                action: WriterAction::DataFrag { to: Dest::All, frag, resend },
            }
        };
        let mut items = vec![
            (a, data(1, 64, 1)),
            (a, data(2, 1001, 1)),
            (b, with(data(2, 2002, 2), &keyed)),
            (a, data(4, GATHER_MIN, 3)),
            (a, disposal),
        ];
        items.extend((1..=n).map(|i| (a, frag(i, false))));
        items.extend([3, 7, n].map(|i| (b, frag(i, true))));
        items.push((a, data(5, 513, 4)));
        let mut gathered = Vec::new();
        let mut pieces = 0;
        encode_gathering(GuidPrefix([1; 12]), &items, GATHER_MIN, |to, d| {
            assert!(d.pieces().count() <= MAX_PIECES);
            pieces += d.pieces().count();
            let v = d.to_vec();
            assert_eq!(v.len(), d.len());
            gathered.push((to, v, d.contiguous().is_some()));
        });
        let mut whole = Vec::new();
        encode_gathering(GuidPrefix([1; 12]), &items, usize::MAX, |to, d| {
            whole.push((to, d.contiguous().expect("nothing gathered").to_vec()));
        });
        assert!(gathered.iter().any(|(_, _, contiguous)| !contiguous), "some payloads were gathered");
        assert!(pieces > gathered.len());
        let gathered: Vec<_> = gathered.into_iter().map(|(to, v, _)| (to, v)).collect();
        assert_eq!(gathered.len(), whole.len());
        for (k, (g, w)) in gathered.iter().zip(&whole).enumerate() {
            assert_eq!(g, w, "datagram {k}");
        }
        assert!(decode_all(&gathered).len() >= items.len());
    }
    #[test]
    fn outbox_lists_are_reused_on_their_thread_up_to_a_size() {
        std::thread::spawn(|| {
            let a: SocketAddr = "127.0.0.1:7411".parse().unwrap();
            let spares = || SPARES.with(|s| s.borrow().len());
            let mut o = Outbox::new();
            o.push(a, data(1, 8, 1));
            let list = o.items.as_ptr();
            drop(o);
            assert_eq!(spares(), 1, "the dropped outbox's list is kept");
            let idle = Outbox::new();
            assert!(idle.is_empty());
            assert_eq!(spares(), 1, "an outbox nothing went into takes no list");
            drop(idle);
            let mut reused = Outbox::new();
            reused.push(a, data(2, 8, 1));
            assert_eq!(reused.items.as_ptr(), list, "the first push reuses the kept list");
            assert_eq!(reused.items.len(), 1, "the kept list came back empty");
            drop(reused);
            let mut big = Outbox::new();
            for sn in 0..=SPARE_ITEMS_MAX as i64 {
                big.push(a, data(sn, 8, 1));
            }
            drop(big);
            assert_eq!(spares(), 0, "a list over the limit is freed, not kept");
        })
        .join()
        .unwrap();
    }
    /// The inline QoS taken as written is the list a receiver parses back.
    #[test]
    fn inline_qos_as_written_is_what_parses_back() {
        let id = crate::rtps::SampleIdentity { writer: Guid::new(GuidPrefix([4; 12]), W), sn: 77 };
        let meta = SampleMeta {
            key_hash: Some([3; 16]),
            status_info: 2,
            related_sample_identity: Some(id),
            source_timestamp: None,
        };
        let mut scratch = Vec::new();
        let written = inline_qos(&meta, &mut scratch).unwrap().unwrap().as_bytes().to_vec();
        let mut finished = scratch.clone();
        ParameterListWriter::new(&mut finished, Endian::Little).finish();
        let (parsed, used) = ParameterList::parse(&finished, Endian::Little, VENDOR_ID_HDDS).unwrap();
        assert_eq!(used, finished.len());
        assert_eq!(parsed.as_bytes(), &written[..]);
        let iq = crate::discovery::inline_qos::InlineQos::parse(&parsed).unwrap();
        assert_eq!((iq.key_hash, iq.status_info.0), (Some([3; 16]), 2));
    }
}
