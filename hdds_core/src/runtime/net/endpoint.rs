//! The network side of one writer or reader, user or built-in: its RTPS state machine plus where
//! its matched remote peers are, and the routing of the machine's actions into an [`Outbox`].
//!
//! A port lives under its endpoint's lock (a user writer's state mutex, a reader's port mutex, a
//! built-in endpoint's own mutex). Everything here runs under that lock and never sends: the
//! caller flushes the outbox once the lock is released.

use crate::payload::Payload;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::send::{message_limit, Out, Outbox, MAX_MESSAGE};
use crate::rtps::{
    BestEffortReader, Delivery, Dest, FragmentHeader, Gap, Heartbeat, HeartbeatFrag, MatchedReader, ReaderAction,
    SampleMeta, StatefulReader, StatefulWriter, WriteBlocked, WriterAction,
};
use crate::wire::{EntityId, Guid, GuidPrefix};

/// How long a batched write may wait for more writes to share its message (see [`Batch`]).
pub(crate) const BATCH_DELAY: Duration = Duration::from_millis(1);

/// Writes held back to go out together (write batching, as Cyclone's `dds_write_set_batch`):
/// small samples written in a burst then share datagrams instead of costing one each. What a write
/// produces waits here until the next one would overflow a message (`send::message_limit` of the
/// readers' addresses: 14,720 bytes, or 64,000 when every reader is on loopback), until the port
/// does anything else (an ACKNACK, a timer: so nothing overtakes the batch), until [`BATCH_DELAY`]
/// has passed (the port's deadline), or until the writer is flushed.
#[derive(Debug, Default)]
struct Batch {
    items: Outbox,
    /// Upper bound of the encoded size of `items`, per destination address.
    bytes: usize,
    /// When the oldest item was batched.
    since: Option<Instant>,
}

/// A writer's state machine and its matched remote readers.
#[derive(Debug)]
pub(crate) struct WriterPort {
    pub(crate) rtps: StatefulWriter,
    /// The reader id put on submessages for every matched reader: ENTITYID_UNKNOWN for user
    /// writers, the well-known reader for built-in ones.
    all_reader_id: EntityId,
    readers: Vec<(Guid, SocketAddr)>,
    /// The distinct addresses of `readers`: a sample for all goes once to each.
    addrs: Vec<SocketAddr>,
    /// Actions of the machine, reused.
    actions: Vec<WriterAction>,
    /// Write batching, when on.
    batch: Option<Batch>,
}

impl WriterPort {
    pub(crate) fn new(rtps: StatefulWriter, all_reader_id: EntityId) -> Self {
        WriterPort { rtps, all_reader_id, readers: Vec::new(), addrs: Vec::new(), actions: Vec::new(), batch: None }
    }

    /// Turns write batching on (see [`Batch`]); it stays on.
    pub(crate) fn enable_batching(&mut self) {
        self.batch.get_or_insert_with(Batch::default);
    }

    /// Whether write batching is on. A batching port's datagrams go out in the order the writer's
    /// lock produced them: the writing thread, the timer and the receive thread all flush batches,
    /// and a batch sent out of turn could overtake an earlier one (a best-effort reader drops what
    /// arrives after a newer sample). See `WriterShared::send_in_turn`.
    pub(crate) fn batching(&self) -> bool {
        self.batch.is_some()
    }

    /// When the port needs the timer: the machine's deadline, or a batch's.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        let batch = self.batch.as_ref().and_then(|b| b.since).map(|t| t + BATCH_DELAY);
        match (self.rtps.next_deadline(), batch) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Moves what is batched into `out`, to be sent.
    pub(crate) fn flush_batch(&mut self, out: &mut Outbox) {
        if let Some(b) = &mut self.batch {
            out.items.append(&mut b.items.items);
            b.bytes = 0;
            b.since = None;
        }
    }

    /// Writes one sample: like `drive` with the machine's write, except that with batching on
    /// what the write produces joins the batch, which moves into `out` only once full. A blocked
    /// write flushes the batch: the readers must see everything before they can acknowledge it.
    #[link_section = ".text.hot.hdds"]
    pub(crate) fn write(
        &mut self,
        now: Instant,
        payload: Payload,
        meta: SampleMeta,
        out: &mut Outbox,
    ) -> Result<i64, WriteBlocked> {
        if self.batch.is_none() {
            return self.drive(out, |w, a| w.write(now, payload, meta, a));
        }
        let mut actions = std::mem::take(&mut self.actions);
        let r = self.rtps.write(now, payload, meta, &mut actions);
        let mut routed = Outbox::new();
        self.route(&mut actions, &mut routed);
        self.actions = actions;
        let per_addr = self.addrs.len().max(1);
        // The smallest message any of the readers' addresses takes: 64,000 bytes when they are
        // all loopback (a batch of 1 KiB samples then needs a quarter of the datagrams).
        let limit = self.addrs.iter().map(message_limit).min().unwrap_or(MAX_MESSAGE);
        let Some(b) = &mut self.batch else { unreachable!("checked above") };
        for (to, o) in routed.items.drain(..) {
            let size = o.size_bound();
            if b.bytes + size.div_ceil(per_addr) > limit && !b.items.is_empty() {
                out.items.append(&mut b.items.items);
                b.bytes = 0;
                b.since = None;
            }
            b.bytes += size.div_ceil(per_addr);
            b.since.get_or_insert(now);
            b.items.push(to, o);
        }
        if r.is_err() {
            self.flush_batch(out);
        }
        r
    }

    pub(crate) fn matched_count(&self) -> usize {
        self.readers.len()
    }

    pub(crate) fn is_matched(&self, reader: Guid) -> bool {
        self.readers.iter().any(|(g, _)| *g == reader)
    }

    pub(crate) fn match_reader(&mut self, now: Instant, r: MatchedReader, addr: SocketAddr, out: &mut Outbox) {
        if self.is_matched(r.guid) {
            return;
        }
        self.readers.push((r.guid, addr));
        if !self.addrs.contains(&addr) {
            self.addrs.push(addr);
        }
        let mut actions = std::mem::take(&mut self.actions);
        self.rtps.match_reader(now, r, &mut actions);
        self.route(&mut actions, out);
        self.actions = actions;
    }

    pub(crate) fn unmatch_reader(&mut self, reader: Guid) -> bool {
        let Some(i) = self.readers.iter().position(|(g, _)| *g == reader) else {
            return false;
        };
        let (_, addr) = self.readers.swap_remove(i);
        if !self.readers.iter().any(|(_, a)| *a == addr) {
            self.addrs.retain(|a| *a != addr);
        }
        self.rtps.unmatch_reader(reader);
        true
    }

    /// Runs `f` on the machine with the port's action buffer, then routes what it produced, after
    /// what was batched (nothing overtakes a batched write: a HEARTBEAT ahead of the DATA it
    /// announces would draw a NACK for it). When `f` produces nothing (an ACKNACK that only
    /// acknowledges, most of them) the batch stays and keeps filling.
    pub(crate) fn drive<R>(
        &mut self,
        out: &mut Outbox,
        f: impl FnOnce(&mut StatefulWriter, &mut Vec<WriterAction>) -> R,
    ) -> R {
        let mut actions = std::mem::take(&mut self.actions);
        let r = f(&mut self.rtps, &mut actions);
        if !actions.is_empty() {
            self.flush_batch(out);
            self.route(&mut actions, out);
        }
        self.actions = actions;
        r
    }

    /// Addresses the actions (draining them) into `out`.
    pub(crate) fn route(&self, actions: &mut Vec<WriterAction>, out: &mut Outbox) {
        let writer = self.rtps.guid().entity_id;
        for action in actions.drain(..) {
            match dest(&action) {
                Dest::All => {
                    let mut addrs = self.addrs.iter();
                    let Some(&last) = addrs.next_back() else { continue };
                    for &a in addrs {
                        let o = Out::Writer {
                            writer,
                            reader: self.all_reader_id,
                            dst: GuidPrefix::default(),
                            action: action.clone(),
                        };
                        out.push(a, o);
                    }
                    out.push(
                        last,
                        Out::Writer { writer, reader: self.all_reader_id, dst: GuidPrefix::default(), action },
                    );
                }
                Dest::Reader(g) => {
                    if let Some((_, a)) = self.readers.iter().find(|(r, _)| *r == g) {
                        out.push(*a, Out::Writer { writer, reader: g.entity_id, dst: g.prefix, action });
                    }
                }
            }
        }
    }
}

fn dest(a: &WriterAction) -> Dest {
    match a {
        WriterAction::Data { to, .. }
        | WriterAction::DataFrag { to, .. }
        | WriterAction::Gap { to, .. }
        | WriterAction::Heartbeat { to, .. }
        | WriterAction::HeartbeatFrag { to, .. } => *to,
    }
}

/// A reader's machine: reliable readers keep per-writer order and ask for repairs; best-effort
/// readers take what comes.
#[derive(Debug)]
pub(crate) enum ReaderMachine {
    Reliable(StatefulReader),
    BestEffort(BestEffortReader),
}

/// One submessage for a reader, already converted from the wire.
#[derive(Clone, Copy)]
pub(crate) enum ReaderInput<'a> {
    Data { sn: i64, meta: SampleMeta, payload: &'a [u8] },
    Frag { header: FragmentHeader, meta: SampleMeta, bytes: &'a [u8] },
    Heartbeat(Heartbeat),
    HeartbeatFrag(HeartbeatFrag),
    Gap(Gap),
}

/// How long after matching a remote reliable writer that has sent this reader nothing it counts
/// as knowing the reader anyway. A Fast DDS writer sends one HEARTBEAT when it matches a reader
/// and, with nothing written, need not answer the pre-emptive ACKNACK (a Fast DDS server in CI
/// did not); that first one is dropped when it arrives before the reader has matched the
/// writer, and then nothing would ever tell (a service client would wait for ever: seen under
/// ASan in test_service_interop).
pub(crate) const KNOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// A reader's state machine and its matched remote writers.
#[derive(Debug)]
pub(crate) struct ReaderPort {
    pub(crate) rtps: ReaderMachine,
    writers: Vec<(Guid, SocketAddr)>,
    actions: Vec<ReaderAction>,
    /// Samples the machine gave up on (SAMPLE_LOST) since [`ReaderPort::take_lost`].
    lost: u64,
}

impl ReaderPort {
    pub(crate) fn new(rtps: ReaderMachine) -> Self {
        ReaderPort { rtps, writers: Vec::new(), actions: Vec::new(), lost: 0 }
    }

    fn guid(&self) -> Guid {
        match &self.rtps {
            ReaderMachine::Reliable(r) => r.guid(),
            ReaderMachine::BestEffort(r) => r.guid(),
        }
    }

    pub(crate) fn matched_count(&self) -> usize {
        self.writers.len()
    }

    /// The samples lost since the last call.
    pub(crate) fn take_lost(&mut self) -> u64 {
        std::mem::take(&mut self.lost)
    }

    /// Samples the machine's reassembly gave up for its limits, since it started.
    pub(crate) fn reassembly_over_limit(&self) -> u64 {
        match &self.rtps {
            ReaderMachine::Reliable(r) => r.reassembly_over_limit(),
            ReaderMachine::BestEffort(r) => r.reassembly_over_limit(),
        }
    }

    pub(crate) fn is_matched(&self, writer: Guid) -> bool {
        self.writers.iter().any(|(g, _)| *g == writer)
    }

    /// Whether matched remote `writer` is known to have matched this reader too: a reliable one
    /// once it has sent us anything, or [`KNOWN_GRACE`] after the match; a best-effort one (which
    /// sends nothing but samples) at once.
    pub(crate) fn writer_knows_us(&self, writer: Guid, now: Instant) -> bool {
        self.is_matched(writer)
            && match &self.rtps {
                ReaderMachine::Reliable(r) => r
                    .writer(writer)
                    // Until the writer has spoken, `last_heard` is the match's time.
                    .is_some_and(|p| p.has_heard() || now.saturating_duration_since(p.last_heard) >= KNOWN_GRACE),
                ReaderMachine::BestEffort(_) => true,
            }
    }

    pub(crate) fn match_writer(&mut self, now: Instant, writer: Guid, addr: SocketAddr, out: &mut Outbox) {
        if self.is_matched(writer) {
            return;
        }
        self.writers.push((writer, addr));
        if let ReaderMachine::Reliable(r) = &mut self.rtps {
            let mut actions = std::mem::take(&mut self.actions);
            r.match_writer(now, writer, &mut actions);
            self.route(&mut actions, out, |_| {});
            self.actions = actions;
        }
    }

    pub(crate) fn unmatch_writer(&mut self, writer: Guid) -> bool {
        let Some(i) = self.writers.iter().position(|(g, _)| *g == writer) else {
            return false;
        };
        self.writers.swap_remove(i);
        match &mut self.rtps {
            ReaderMachine::Reliable(r) => {
                r.unmatch_writer(writer);
            }
            ReaderMachine::BestEffort(r) => r.forget_writer(writer),
        }
        true
    }

    /// Hands one submessage from `writer` (which must be matched) to the machine; deliveries go to
    /// `deliver`, ACKNACKs and NACK_FRAGs into `out`.
    pub(crate) fn input(
        &mut self,
        now: Instant,
        writer: Guid,
        input: ReaderInput<'_>,
        out: &mut Outbox,
        deliver: impl FnMut(Delivery),
    ) {
        let mut a = std::mem::take(&mut self.actions);
        match (&mut self.rtps, input) {
            (ReaderMachine::Reliable(r), ReaderInput::Data { sn, meta, payload }) => {
                r.on_data(now, writer, sn, &meta, payload, &mut a)
            }
            (ReaderMachine::Reliable(r), ReaderInput::Frag { header, meta, bytes }) => {
                r.on_data_frag(now, writer, &header, &meta, bytes, &mut a)
            }
            (ReaderMachine::Reliable(r), ReaderInput::Heartbeat(hb)) => r.on_heartbeat(now, writer, &hb, &mut a),
            (ReaderMachine::Reliable(r), ReaderInput::HeartbeatFrag(hb)) => {
                r.on_heartbeat_frag(now, writer, &hb, &mut a)
            }
            (ReaderMachine::Reliable(r), ReaderInput::Gap(g)) => r.on_gap(now, writer, &g, &mut a),
            (ReaderMachine::BestEffort(r), ReaderInput::Data { sn, meta, payload }) => {
                r.on_data(now, writer, sn, &meta, payload, &mut a)
            }
            (ReaderMachine::BestEffort(r), ReaderInput::Frag { header, meta, bytes }) => {
                r.on_data_frag(now, writer, &header, &meta, bytes, &mut a)
            }
            // A best-effort reader neither answers HEARTBEATs nor waits for GAPs.
            (ReaderMachine::BestEffort(_), _) => {}
        }
        self.route(&mut a, out, deliver);
        self.actions = a;
    }

    pub(crate) fn on_timer(&mut self, now: Instant, out: &mut Outbox) {
        if let ReaderMachine::Reliable(r) = &mut self.rtps {
            let mut a = std::mem::take(&mut self.actions);
            r.on_timer(now, &mut a);
            self.route(&mut a, out, |_| {});
            self.actions = a;
        }
    }

    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        match &self.rtps {
            ReaderMachine::Reliable(r) => r.next_deadline(),
            ReaderMachine::BestEffort(_) => None,
        }
    }

    fn route(&mut self, actions: &mut Vec<ReaderAction>, out: &mut Outbox, mut deliver: impl FnMut(Delivery)) {
        let reader = self.guid().entity_id;
        for a in actions.drain(..) {
            match a {
                ReaderAction::Deliver(d) => deliver(d),
                ReaderAction::AckNack { writer, acknack } => {
                    if let Some((_, addr)) = self.writers.iter().find(|(g, _)| *g == writer) {
                        out.push(*addr, Out::AckNack { reader, writer, acknack });
                    }
                }
                ReaderAction::NackFrag { writer, nack_frag } => {
                    if let Some((_, addr)) = self.writers.iter().find(|(g, _)| *g == writer) {
                        out.push(*addr, Out::NackFrag { reader, writer, nack_frag });
                    }
                }
                ReaderAction::Lost { count, .. } => self.lost = self.lost.saturating_add(count),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtps::BestEffortReaderConfig;
    use crate::wire::EntityKind;

    #[test]
    fn skipped_sequence_numbers_are_counted_lost_once() {
        let me = Guid::new(GuidPrefix::default(), EntityId::user(1, EntityKind::UserReaderNoKey));
        let w = Guid::new(GuidPrefix([7; 12]), EntityId::user(1, EntityKind::UserWriterNoKey));
        let mut port =
            ReaderPort::new(ReaderMachine::BestEffort(BestEffortReader::new(BestEffortReaderConfig::new(me))));
        port.match_writer(Instant::now(), w, "127.0.0.1:7411".parse().unwrap(), &mut Outbox::new());
        let mut delivered = 0;
        for sn in [1, 2, 5, 9] {
            let input = ReaderInput::Data { sn, meta: SampleMeta::default(), payload: &[0, 1, 0, 0] };
            port.input(Instant::now(), w, input, &mut Outbox::new(), |_| delivered += 1);
        }
        assert_eq!(delivered, 4);
        assert_eq!(port.take_lost(), 2 + 3, "3, 4 and 6..8 never came");
        assert_eq!(port.take_lost(), 0);
    }

    #[test]
    fn a_silent_reliable_writer_counts_as_knowing_the_reader_after_the_grace() {
        use crate::rtps::{ReaderConfig, StatefulReader};
        let t = Instant::now();
        let me = Guid::new(GuidPrefix::default(), EntityId::user(1, EntityKind::UserReaderNoKey));
        let w = Guid::new(GuidPrefix([7; 12]), EntityId::user(1, EntityKind::UserWriterNoKey));
        let w2 = Guid::new(GuidPrefix([8; 12]), EntityId::user(1, EntityKind::UserWriterNoKey));
        let mut port = ReaderPort::new(ReaderMachine::Reliable(StatefulReader::new(ReaderConfig::new(me))));
        let addr = "127.0.0.1:7411".parse().unwrap();
        port.match_writer(t, w, addr, &mut Outbox::new());
        port.match_writer(t, w2, addr, &mut Outbox::new());
        assert!(!port.writer_knows_us(w, t + KNOWN_GRACE / 2));
        assert!(port.writer_knows_us(w, t + KNOWN_GRACE));
        // A writer that speaks is known at once.
        let hb = Heartbeat { first_sn: 1, last_sn: 0, count: 1, final_flag: true, liveliness_flag: false };
        port.input(t, w2, ReaderInput::Heartbeat(hb), &mut Outbox::new(), |_| {});
        assert!(port.writer_knows_us(w2, t));
        assert!(!port.writer_knows_us(Guid::new(GuidPrefix([9; 12]), w.entity_id), t + KNOWN_GRACE));
    }

    /// The receive thread drives the writer's machine for every ACKNACK; one that only
    /// acknowledges must leave a batch filling (or each ACKNACK would cut a batch short), and one
    /// that answers must send the batch first (so that no HEARTBEAT overtakes the DATA it covers).
    #[test]
    fn a_batch_goes_out_ahead_of_what_the_machine_emits_and_only_then() {
        use crate::qos::Durability;
        use crate::rtps::WriterConfig;
        let now = Instant::now();
        let me = Guid::new(GuidPrefix([1; 12]), EntityId::user(1, EntityKind::UserWriterNoKey));
        let r = Guid::new(GuidPrefix([7; 12]), EntityId::user(1, EntityKind::UserReaderNoKey));
        let mut port = WriterPort::new(StatefulWriter::new(WriterConfig::new(me), now), EntityId::UNKNOWN);
        port.enable_batching();
        let reader = MatchedReader { guid: r, reliable: true, durability: Durability::Volatile };
        port.match_reader(now, reader, "127.0.0.1:7411".parse().unwrap(), &mut Outbox::new());
        let mut out = Outbox::new();
        port.write(now, Payload::from(&[0u8, 1, 0, 0][..]), SampleMeta::default(), &mut out).unwrap();
        assert!(out.is_empty(), "a small write waits in the batch");
        port.drive(&mut out, |_, _| ());
        assert!(out.is_empty(), "nothing emitted: the batch stays");
        let hb = Heartbeat { first_sn: 1, last_sn: 1, count: 9, final_flag: false, liveliness_flag: false };
        port.drive(&mut out, |_, a| a.push(WriterAction::Heartbeat { to: Dest::All, hb }));
        let kinds: Vec<_> = out
            .items
            .iter()
            .map(|(_, o)| match o {
                Out::Writer { action: WriterAction::Data { .. }, .. } => "data",
                Out::Writer { action: WriterAction::Heartbeat { .. }, .. } => "heartbeat",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["data", "heartbeat"]);
    }

    /// A batch fills up to the smallest message its readers' addresses take: 14,720 bytes over a
    /// network, 64,000 when every reader is on loopback (`send::message_limit`).
    #[test]
    fn a_batch_fills_up_to_the_readers_message_limit() {
        use crate::qos::Durability;
        use crate::rtps::WriterConfig;
        let now = Instant::now();
        let me = Guid::new(GuidPrefix([1; 12]), EntityId::user(1, EntityKind::UserWriterNoKey));
        let batched_before_send = |addrs: &[&str]| {
            let mut port = WriterPort::new(StatefulWriter::new(WriterConfig::new(me), now), EntityId::UNKNOWN);
            port.enable_batching();
            for (i, a) in addrs.iter().enumerate() {
                let r = Guid::new(GuidPrefix([7 + i as u8; 12]), EntityId::user(1, EntityKind::UserReaderNoKey));
                let reader = MatchedReader { guid: r, reliable: false, durability: Durability::Volatile };
                port.match_reader(now, reader, a.parse().unwrap(), &mut Outbox::new());
            }
            let mut out = Outbox::new();
            let mut written = 0;
            while out.is_empty() {
                port.write(now, Payload::from(vec![0u8; 1024]), SampleMeta::default(), &mut out).unwrap();
                written += 1;
            }
            written - 1
        };
        let network = batched_before_send(&["10.1.2.3:7411"]);
        let loopback = batched_before_send(&["127.0.0.1:7411"]);
        let mixed = batched_before_send(&["127.0.0.1:7411", "10.1.2.3:7411"]);
        assert!((10..=14).contains(&network), "{network} samples of 1 KiB batched to a network address");
        assert!((50..=62).contains(&loopback), "{loopback} samples of 1 KiB batched to loopback");
        assert!(mixed < loopback, "a reader on the network keeps the smaller limit ({mixed})");
    }
}
