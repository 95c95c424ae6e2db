//! Whole RTPS messages (one UDP datagram): parsing into a header and borrowed submessages, the
//! receiver state that INFO_* submessages set for the ones after them, and a builder.
//!
//! Parsing allocates nothing and never panics. Rules from RTPS 2.5 section 8.3.4.1 / 9.4.5.1:
//! - octetsToNextHeader always finds the next submessage, also for known ids with longer bodies
//!   (extensions); 0 means "to the end of the message", except for PAD and INFO_TS where it is a
//!   real zero length.
//! - unknown submessage ids are skipped (yielded as [`Submessage::Unknown`] for statistics);
//! - a header whose length runs past the datagram, or a known submessage that is invalid, ends the
//!   message: the iterator yields one error and then stops (earlier submessages stay valid).

use super::header::{Header, ProtocolVersion};
use super::locator::LocatorList;
use super::submessage::{id, ParseContext, Submessage, SubmessageHeader};
use super::time::Time;
use super::vendor::VendorId;
use super::GuidPrefix;
use crate::cdr::{DecodeError, EncodeError, Endian};

/// A parsed message: its header and the bytes of its submessages (decoded lazily).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Message<'a> {
    pub header: Header,
    datagram: &'a [u8],
}

impl<'a> Message<'a> {
    /// Checks the header; the submessages are decoded when iterated.
    pub fn parse(datagram: &'a [u8]) -> Result<Message<'a>, DecodeError> {
        Ok(Message { header: Header::parse(datagram)?, datagram })
    }

    /// The whole datagram.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.datagram
    }

    /// The submessages with their headers, in order.
    pub fn submessages(&self) -> SubmessageIter<'a> {
        SubmessageIter {
            buf: self.datagram,
            pos: Header::SIZE,
            ctx: ParseContext { vendor: self.header.vendor_id },
            done: false,
        }
    }

    /// The submessages with the receiver state that applies to each (see [`ReceiverState`]).
    pub fn receive(&self) -> Receiver<'a> {
        Receiver { inner: self.submessages(), state: ReceiverState::new(&self.header) }
    }

    /// Parses a datagram completely: header and every submessage, or the first error. The vector
    /// holds at most one entry per 4 bytes of input.
    pub fn parse_all(datagram: &'a [u8]) -> Result<(Header, Vec<Submessage<'a>>), DecodeError> {
        let m = Message::parse(datagram)?;
        let subs = m.submessages().map(|r| r.map(|(_, s)| s)).collect::<Result<Vec<_>, _>>()?;
        Ok((m.header, subs))
    }
}

/// Iterator over a message's submessages; yields at most one error, then ends.
#[derive(Clone, Debug)]
pub struct SubmessageIter<'a> {
    buf: &'a [u8],
    pos: usize,
    ctx: ParseContext,
    done: bool,
}

impl<'a> SubmessageIter<'a> {
    /// Byte offset of the next submessage in the datagram.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn fail(&mut self, e: DecodeError) -> Option<Result<(SubmessageHeader, Submessage<'a>), DecodeError>> {
        self.done = true;
        Some(Err(e))
    }
}

impl<'a> Iterator for SubmessageIter<'a> {
    type Item = Result<(SubmessageHeader, Submessage<'a>), DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.buf.len() {
            return None;
        }
        let at = self.pos;
        let Some(header) = SubmessageHeader::parse(&self.buf[at..]) else {
            return self.fail(DecodeError::new("message ends inside a submessage header", at));
        };
        let body_start = at + SubmessageHeader::SIZE;
        let left = self.buf.len() - body_start;
        let body_len = match header.octets_to_next_header {
            0 if header.id != id::PAD && header.id != id::INFO_TS => left,
            n => n as usize,
        };
        if body_len > left {
            return self.fail(DecodeError::new("submessage length runs past the end of the message", at + 2));
        }
        let body = &self.buf[body_start..body_start + body_len];
        self.pos = body_start + body_len;
        match Submessage::parse(header, body, &self.ctx) {
            Ok(sub) => {
                // INFO_SRC changes whose vendor-specific parameter ids the later inline QoS uses.
                if let Submessage::InfoSrc(s) = &sub {
                    self.ctx.vendor = s.vendor_id;
                }
                Some(Ok((header, sub)))
            }
            Err(e) => self.fail(e.shifted(body_start)),
        }
    }
}

/// The state of RTPS's message receiver (RTPS 2.5 section 8.3.4), as it applies to a submessage:
/// set from the message header, then changed by INFO_SRC, INFO_DST, INFO_REPLY and INFO_TS for the
/// submessages after them in the same message.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ReceiverState<'a> {
    pub source_version: ProtocolVersion,
    pub source_vendor_id: VendorId,
    pub source_guid_prefix: GuidPrefix,
    /// The participant the submessage is for; all zeros (GUIDPREFIX_UNKNOWN) means whoever
    /// received it, which is how the spec's initial value (the receiver's own prefix) looks to IO-free
    /// code that does not know the receiver.
    pub dest_guid_prefix: GuidPrefix,
    /// Where to reply, if an INFO_REPLY said so; `None` means the datagram's source address.
    pub unicast_reply: Option<LocatorList<'a>>,
    pub multicast_reply: Option<LocatorList<'a>>,
    /// The source timestamp from the last INFO_TS (`None`: none, or invalidated).
    pub timestamp: Option<Time>,
}

impl<'a> ReceiverState<'a> {
    pub fn new(h: &Header) -> Self {
        ReceiverState {
            source_version: h.version,
            source_vendor_id: h.vendor_id,
            source_guid_prefix: h.guid_prefix,
            dest_guid_prefix: GuidPrefix::default(),
            unicast_reply: None,
            multicast_reply: None,
            timestamp: None,
        }
    }

    /// Applies an INFO_* submessage (others leave the state as it is).
    pub fn apply(&mut self, sub: &Submessage<'a>) {
        match sub {
            Submessage::InfoTs(ts) => self.timestamp = ts.timestamp,
            Submessage::InfoDst(d) => self.dest_guid_prefix = d.guid_prefix,
            Submessage::InfoSrc(s) => {
                self.source_version = s.version;
                self.source_vendor_id = s.vendor_id;
                self.source_guid_prefix = s.guid_prefix;
                // The spec resets these: they described the previous source.
                self.unicast_reply = None;
                self.multicast_reply = None;
                self.timestamp = None;
            }
            Submessage::InfoReply(r) => {
                self.unicast_reply = Some(r.unicast);
                self.multicast_reply = r.multicast;
            }
            _ => {}
        }
    }
}

/// One submessage with the receiver state in force for it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Received<'a> {
    pub state: ReceiverState<'a>,
    pub header: SubmessageHeader,
    pub submessage: Submessage<'a>,
}

/// Iterator of [`Received`] submessages; like [`SubmessageIter`] it stops after an error.
#[derive(Clone, Debug)]
pub struct Receiver<'a> {
    inner: SubmessageIter<'a>,
    state: ReceiverState<'a>,
}

impl<'a> Receiver<'a> {
    pub fn state(&self) -> &ReceiverState<'a> {
        &self.state
    }
}

impl<'a> Iterator for Receiver<'a> {
    type Item = Result<Received<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.inner.next()?.map(|(header, submessage)| {
            self.state.apply(&submessage);
            Received { state: self.state, header, submessage }
        }))
    }
}

/// Encodes a message: the header, then submessages in the builder's byte order (little endian by
/// default, as Cyclone and Fast DDS send on x86 and ARM).
#[derive(Debug)]
pub struct MessageBuilder {
    buf: Vec<u8>,
    endian: Endian,
}

impl MessageBuilder {
    pub fn new(header: &Header) -> Self {
        Self::with_buffer(Vec::new(), header)
    }

    /// Builds into a reused buffer (cleared first), so a pooled buffer keeps its capacity.
    pub fn with_buffer(mut buf: Vec<u8>, header: &Header) -> Self {
        buf.clear();
        buf.extend_from_slice(&header.to_bytes());
        MessageBuilder { buf, endian: Endian::Little }
    }

    /// The byte order for the submessages added from now on.
    pub fn set_endian(&mut self, endian: Endian) -> &mut Self {
        self.endian = endian;
        self
    }

    /// Appends a submessage; on error the message is left as it was.
    pub fn add(&mut self, sub: &Submessage<'_>) -> Result<&mut Self, EncodeError> {
        sub.write(&mut self.buf, self.endian)?;
        Ok(self)
    }

    /// Appends a submessage padded with zeros to a multiple of 4 bytes (the padding counted in its
    /// octetsToNextHeader), so that the next submessage starts aligned as RTPS requires. Only
    /// serialized payloads (DATA, DATA_FRAG) can have an odd length; receivers see the padding as
    /// trailing bytes of the payload, as they do with Cyclone's and Fast DDS's.
    pub fn add_padded(&mut self, sub: &Submessage<'_>) -> Result<&mut Self, EncodeError> {
        self.add_padded_leaving_out(sub, 0)?;
        Ok(self)
    }

    /// Appends a DATA or DATA_FRAG whose payload is not copied in: `sub` carries an empty payload,
    /// `payload_len` is the length of the real one, which the caller sends from where it lies
    /// (scatter-gather). The submessage length counts that payload and its padding to 4 bytes,
    /// and the padding is appended here. Returns the offset at which the payload goes on the wire;
    /// with the payload inserted there, the bytes are those [`MessageBuilder::add_padded`] writes.
    pub fn add_padded_without_payload(
        &mut self,
        sub: &Submessage<'_>,
        payload_len: usize,
    ) -> Result<usize, EncodeError> {
        self.add_padded_leaving_out(sub, payload_len)
    }

    /// [`MessageBuilder::add_padded`] of `sub` followed by `left_out` bytes that are not appended:
    /// the length field counts them and the padding after them; returns where they belong.
    fn add_padded_leaving_out(&mut self, sub: &Submessage<'_>, left_out: usize) -> Result<usize, EncodeError> {
        let start = self.buf.len();
        sub.write(&mut self.buf, self.endian)?;
        let at = self.buf.len();
        let unpadded = at - start + left_out;
        let pad = (4 - unpadded % 4) % 4;
        // What `sub.write` put in the length field is right unless bytes were left out or added.
        if pad > 0 || left_out > 0 {
            let Ok(len) = u16::try_from(unpadded - SubmessageHeader::SIZE + pad) else {
                self.buf.truncate(start);
                return Err(EncodeError::new("submessage body over 65535 bytes once padded"));
            };
            self.buf.resize(at + pad, 0);
            self.buf[start + 2..start + 4].copy_from_slice(&match self.endian {
                Endian::Little => len.to_le_bytes(),
                Endian::Big => len.to_be_bytes(),
            });
        }
        Ok(at)
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when no submessage has been added yet.
    pub fn is_empty(&self) -> bool {
        self.buf.len() <= Header::SIZE
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::submessage::{Data, Heartbeat};
    use crate::wire::{EntityId, SequenceNumber};

    #[test]
    fn padded_payload_keeps_the_next_submessage_aligned() {
        let mut b = MessageBuilder::new(&Header::ours(GuidPrefix([3; 12])));
        let payload = [0u8, 1, 0, 0, 7];
        b.add_padded(&Submessage::Data(Data::new(
            EntityId::UNKNOWN,
            EntityId([0, 0, 1, 3]),
            SequenceNumber(1),
            &payload,
        )))
        .unwrap();
        assert_eq!(b.len() % 4, 0);
        let hb = Heartbeat {
            reader_id: EntityId::UNKNOWN,
            writer_id: EntityId([0, 0, 1, 3]),
            first_sn: SequenceNumber(1),
            last_sn: SequenceNumber(1),
            count: 1,
            final_flag: false,
            liveliness_flag: false,
        };
        b.add_padded(&Submessage::Heartbeat(hb)).unwrap();
        let bytes = b.finish();
        let (_, subs) = Message::parse_all(&bytes).unwrap();
        match subs[0] {
            Submessage::Data(d) => assert_eq!(d.payload, Some(&[0u8, 1, 0, 0, 7, 0, 0, 0][..])),
            other => panic!("{other:?}"),
        }
        assert_eq!(subs[1], Submessage::Heartbeat(hb));
    }
    #[test]
    fn payload_left_out_reads_back_as_the_contiguous_encoding() {
        let header = Header::ours(GuidPrefix([3; 12]));
        for n in [0usize, 1, 2, 3, 4, 5, 1000, 1001] {
            let payload: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let data = |p| Submessage::Data(Data::new(EntityId::UNKNOWN, EntityId([0, 0, 1, 3]), SequenceNumber(1), p));
            let mut whole = MessageBuilder::new(&header);
            whole.add_padded(&data(&payload)).unwrap();
            let mut gathered = MessageBuilder::new(&header);
            let at = gathered.add_padded_without_payload(&data(&[]), n).unwrap();
            let mut bytes = gathered.finish();
            bytes.splice(at..at, payload.iter().copied());
            assert_eq!(bytes, whole.finish(), "payload of {n} bytes");
        }
    }
}
