//! DATA_FRAG: splitting a large sample into fragments, and putting received fragments back
//! together (RTPS 2.5 sections 8.3.7.3, 8.4.14.1).
//!
//! Sending: a sample longer than the fragment size goes out as DATA_FRAGs of up to ten fragments
//! first (Cyclone's 1344 bytes each by default, as Cyclone packs them), of one fragment when
//! repaired; every DATA_FRAG shares the sample's `Arc`, nothing is copied.
//!
//! Receiving: fragments of one sample are keyed by (writer, SN). Everything in a DATA_FRAG header is
//! checked before it is used, and the sample size is checked against a limit before any buffer is
//! allocated, so hostile fragment numbers or sizes are rejected with a reason and never panic or make
//! us allocate more than the limits allow. The buffer is an `Arc` slice from the start, filled in
//! place, so a complete sample is delivered without a final copy. It is not zeroed first (zeroing
//! a 64 KiB buffer was a quarter of a 64 KiB pong's instructions): every byte of it belongs to
//! exactly one fragment, and the sample is handed out only once every fragment was copied in.

use crate::payload::{Payload, UninitPayload};
use std::mem::MaybeUninit;

use super::messages::{DataFrag, FragmentHeader, SampleMeta};
use super::sn_window::{SnWindow, WINDOW_BITS};
use crate::wire::{FragmentNumberSet, Guid};

/// Cyclone DDS's default fragment size, which fits one fragment and its headers in a 1500-byte MTU.
pub const DEFAULT_FRAGMENT_SIZE: usize = 1344;

/// How many fragments a sample of `sample_size` bytes has.
pub fn fragment_count(sample_size: usize, fragment_size: usize) -> u32 {
    u32::try_from(sample_size.div_ceil(fragment_size.max(1))).unwrap_or(u32::MAX)
}

/// How many fragment bytes a first-time DATA_FRAG carries at most: ten fragments of 1344 bytes,
/// which with the headers fill a 14720-byte message, as Cyclone sends them. Repairs carry one.
pub const FRAGMENT_BYTES_PER_SUBMESSAGE: usize = 10 * DEFAULT_FRAGMENT_SIZE;

/// How many fragments of `fragment_size` a first-time DATA_FRAG carries (at least one).
pub fn fragments_per_submessage(fragment_size: usize) -> u32 {
    (FRAGMENT_BYTES_PER_SUBMESSAGE / fragment_size.max(1)).max(1) as u32
}

/// DATA_FRAG number `n` (from 1) of `sample`, one fragment per submessage.
pub fn data_frag(sn: i64, meta: SampleMeta, sample: &Payload, fragment_size: u16, n: u32) -> DataFrag {
    data_frags(sn, meta, sample, fragment_size, n, 1)
}

/// The DATA_FRAG of `count` fragments from number `first` (from 1) of `sample`; `count` is cut
/// at the sample's last fragment. One submessage instead of `count`: fewer headers to write and
/// to parse, and one reassembly step at the reader.
pub fn data_frags(sn: i64, meta: SampleMeta, sample: &Payload, fragment_size: u16, first: u32, count: u32) -> DataFrag {
    let total = fragment_count(sample.len(), fragment_size as usize);
    let count = count.min(total.saturating_sub(first) + 1).clamp(1, u16::MAX as u32);
    DataFrag {
        header: FragmentHeader {
            sn,
            fragment_start: first,
            fragments_in_submessage: count as u16,
            fragment_size,
            sample_size: sample.len() as u32,
        },
        meta,
        sample: Payload::clone(sample),
    }
}

/// The limits that bound what reassembly may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReassemblyLimits {
    /// The largest sample accepted; larger ones are rejected before anything is allocated.
    pub max_sample_size: usize,
    /// How many samples may be partially received at once (by one reader, from all its writers).
    pub max_concurrent: usize,
    /// How many of them may come from one writer: a writer that floods fragments of many samples
    /// cannot push out the samples of the reader's other writers.
    pub max_per_writer: usize,
    /// The bytes all partial samples together may occupy.
    pub max_total_bytes: usize,
}

impl Default for ReassemblyLimits {
    fn default() -> Self {
        ReassemblyLimits {
            max_sample_size: 64 << 20,
            max_concurrent: 32,
            max_per_writer: 16,
            max_total_bytes: 256 << 20,
        }
    }
}

/// Which partial sample gives way when the limits are reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvictPolicy {
    /// Reliable readers deliver in order: keep the lowest SNs, drop the highest (it will be resent).
    DropNewest,
    /// Best-effort readers only care about fresh data: drop the longest-waiting partial sample.
    DropOldest,
}

/// Why a fragment was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FragReject {
    ZeroFragmentNumber,
    ZeroFragmentSize,
    ZeroSampleSize,
    SampleTooLarge,
    BeyondLastFragment,
    /// The data is not as long as the header says the fragments are.
    SizeMismatch,
    /// Sample or fragment size differ from earlier fragments of the same sample.
    Inconsistent,
    /// The limits are reached and this sample is the one that gives way.
    NoRoom,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FragOutcome {
    Incomplete,
    /// Every fragment in the submessage had already been received.
    Duplicate,
    Complete {
        meta: SampleMeta,
        payload: Payload,
    },
    Rejected(FragReject),
}

#[derive(Debug)]
struct Partial {
    writer: Guid,
    sn: i64,
    sample_size: u32,
    fragment_size: u32,
    total: u32,
    received: u32,
    bits: Vec<u64>,
    /// Initialized where `bits` says a fragment was received.
    buf: UninitPayload,
    meta: SampleMeta,
    have_first: bool,
    stamp: u64,
}

impl Partial {
    fn has(&self, n: u32) -> bool {
        let i = (n - 1) as usize;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }
}

/// Partially received samples, keyed by (writer, SN).
#[derive(Debug)]
pub struct Reassembler {
    limits: ReassemblyLimits,
    policy: EvictPolicy,
    partials: Vec<Partial>,
    /// Received-fragment bitmaps of finished samples, reused so that steady reassembly allocates
    /// only the sample's own buffer.
    spare_bits: Vec<Vec<u64>>,
    total_bytes: usize,
    stamp: u64,
    /// Samples given up for the limits: refused, or evicted to make room for another.
    over_limit: u64,
    /// The sample refused last: its further fragments are refused without being counted again.
    last_refused: Option<(Guid, i64)>,
}

/// Tolerated trailing bytes after the last fragment: submessage padding to a 4-byte boundary that a
/// parser may leave on the data.
const MAX_PADDING: usize = 3;

impl Reassembler {
    pub fn new(limits: ReassemblyLimits, policy: EvictPolicy) -> Self {
        Reassembler {
            limits,
            policy,
            partials: Vec::new(),
            spare_bits: Vec::new(),
            total_bytes: 0,
            stamp: 0,
            over_limit: 0,
            last_refused: None,
        }
    }

    /// How many samples are partially received.
    pub fn len(&self) -> usize {
        self.partials.len()
    }

    pub fn is_empty(&self) -> bool {
        self.partials.is_empty()
    }

    fn find(&self, writer: Guid, sn: i64) -> Option<usize> {
        self.partials.iter().position(|p| p.writer == writer && p.sn == sn)
    }

    /// Samples given up for the limits so far (too large, no room, or evicted for another).
    pub fn over_limit(&self) -> u64 {
        self.over_limit
    }

    /// How many more samples of `writer` could start reassembly now without giving another up.
    pub fn room_for(&self, writer: Guid) -> usize {
        let own = self.partials.iter().filter(|p| p.writer == writer).count();
        let l = self.limits;
        l.max_per_writer.saturating_sub(own).min(l.max_concurrent.saturating_sub(self.partials.len()))
    }

    pub fn contains(&self, writer: Guid, sn: i64) -> bool {
        self.find(writer, sn).is_some()
    }

    /// Adds the fragments of one DATA_FRAG.
    pub fn add(&mut self, writer: Guid, h: &FragmentHeader, meta: &SampleMeta, data: &[u8]) -> FragOutcome {
        let (fs, size) = (h.fragment_size as u64, h.sample_size as u64);
        let first = h.fragment_start as u64;
        let reject = FragOutcome::Rejected;
        if first == 0 {
            return reject(FragReject::ZeroFragmentNumber);
        }
        if fs == 0 || h.fragments_in_submessage == 0 {
            return reject(FragReject::ZeroFragmentSize);
        }
        if size == 0 {
            return reject(FragReject::ZeroSampleSize);
        }
        if size > self.limits.max_sample_size as u64 {
            self.refused(writer, h.sn);
            return reject(FragReject::SampleTooLarge);
        }
        let total = size.div_ceil(fs);
        let last = first + h.fragments_in_submessage as u64 - 1;
        if last > total {
            return reject(FragReject::BeyondLastFragment);
        }
        let begin = (first - 1) * fs;
        let end = (last * fs).min(size);
        let expected = (end - begin) as usize;
        if data.len() < expected || data.len() > expected + MAX_PADDING {
            return reject(FragReject::SizeMismatch);
        }
        let i = match self.find(writer, h.sn) {
            Some(i) => {
                let p = &self.partials[i];
                if p.sample_size as u64 != size || p.fragment_size as u64 != fs {
                    return reject(FragReject::Inconsistent);
                }
                i
            }
            None => match self.start(writer, h, meta, total as u32) {
                Some(i) => i,
                None => {
                    self.refused(writer, h.sn);
                    return reject(FragReject::NoRoom);
                }
            },
        };
        let p = &mut self.partials[i];
        if h.fragment_start == 1 && !p.have_first {
            // The first fragment carries the inline QoS for some vendors: prefer its metadata.
            p.meta = *meta;
            p.have_first = true;
        }
        let Some(buf) = p.buf.bytes_mut() else {
            // The buffer is shared only once complete, and complete samples are removed at once.
            return reject(FragReject::Inconsistent);
        };
        let mut new = 0;
        for n in first..=last {
            let k = (n - 1) as usize;
            if p.bits[k / 64] & (1 << (k % 64)) != 0 {
                continue;
            }
            let from = ((n - 1) * fs) as usize;
            let to = ((n * fs).min(size)) as usize;
            let src = &data[from - begin as usize..to - begin as usize];
            // A plain copy once compiled (the loop is a memcpy idiom).
            for (d, s) in buf[from..to].iter_mut().zip(src) {
                *d = MaybeUninit::new(*s);
            }
            p.bits[k / 64] |= 1 << (k % 64);
            new += 1;
        }
        if new == 0 {
            return FragOutcome::Duplicate;
        }
        p.received += new;
        if p.received < p.total {
            return FragOutcome::Incomplete;
        }
        let p = self.remove_at(i);
        // SAFETY: `received == total` counts distinct fragments (one bit each), all of them were
        // copied in above, and fragments 1..=total cover every byte of the buffer (its length is
        // the sample size, checked equal for every fragment, which is at most total * fs and more
        // than (total - 1) * fs): every element is initialized.
        let len = p.buf.len();
        let payload = unsafe { p.buf.assume_init(len) };
        FragOutcome::Complete { meta: p.meta, payload }
    }

    /// Counts a sample refused for the limits, once however many of its fragments come.
    fn refused(&mut self, writer: Guid, sn: i64) {
        if self.last_refused != Some((writer, sn)) {
            self.last_refused = Some((writer, sn));
            self.over_limit += 1;
        }
    }

    /// Makes room under the limits and starts a partial sample; `None` when this one gives way.
    /// A writer at its own limit gives way among its own samples; otherwise all compete.
    fn start(&mut self, writer: Guid, h: &FragmentHeader, meta: &SampleMeta, total: u32) -> Option<usize> {
        let size = h.sample_size as usize;
        let l = self.limits;
        if size > l.max_total_bytes || l.max_concurrent == 0 || l.max_per_writer == 0 {
            return None;
        }
        loop {
            let own = self.partials.iter().filter(|p| p.writer == writer).count();
            let writer_full = own >= l.max_per_writer;
            if !writer_full && self.partials.len() < l.max_concurrent && self.total_bytes + size <= l.max_total_bytes {
                break;
            }
            let candidates = self.partials.iter().enumerate().filter(|(_, p)| !writer_full || p.writer == writer);
            let victim = match self.policy {
                EvictPolicy::DropNewest => {
                    let (i, p) = candidates.max_by_key(|(_, p)| p.sn)?;
                    if p.sn <= h.sn {
                        return None;
                    }
                    i
                }
                EvictPolicy::DropOldest => candidates.min_by_key(|(_, p)| p.stamp)?.0,
            };
            self.remove_at(victim);
            self.over_limit += 1;
        }
        let mut bits = self.spare_bits.pop().unwrap_or_default();
        bits.clear();
        bits.resize((total as usize).div_ceil(64), 0);
        self.stamp += 1;
        self.total_bytes += size;
        self.partials.push(Partial {
            writer,
            sn: h.sn,
            sample_size: h.sample_size,
            fragment_size: h.fragment_size as u32,
            total,
            received: 0,
            bits,
            // Allocated once at its final size, then filled in place (see the module comment).
            buf: Payload::uninit(size),
            meta: *meta,
            have_first: false,
            stamp: self.stamp,
        });
        Some(self.partials.len() - 1)
    }

    fn remove_at(&mut self, i: usize) -> Partial {
        let mut p = self.partials.swap_remove(i);
        self.total_bytes -= p.sample_size as usize;
        if self.spare_bits.len() < self.limits.max_concurrent.min(64) {
            self.spare_bits.push(std::mem::take(&mut p.bits));
        }
        p
    }

    /// The fragments of (writer, sn) still missing among `1..=up_to` (at most 256 from the first
    /// missing one), for a NACK_FRAG; `None` when nothing is partially received or nothing is missing.
    pub fn missing(&self, writer: Guid, sn: i64, up_to: u32) -> Option<FragmentNumberSet> {
        let p = &self.partials[self.find(writer, sn)?];
        let up_to = up_to.min(p.total);
        let first = (1..=up_to).find(|&n| !p.has(n))?;
        let mut w = SnWindow::new(first as i64);
        let last = (first as i64 + WINDOW_BITS - 1).min(up_to as i64) as u32;
        for n in first..=last {
            if !p.has(n) {
                w.insert(n as i64);
            }
        }
        Some(w.to_fragment_number_set())
    }

    /// The SNs of `writer` that are partially received, in no particular order.
    pub fn partial_sns(&self, writer: Guid) -> impl Iterator<Item = i64> + '_ {
        self.partials.iter().filter(move |p| p.writer == writer).map(|p| p.sn)
    }

    /// Forgets partial samples of `writer` for which `drop(sn)` holds (delivered, irrelevant, lost).
    pub fn discard_where(&mut self, writer: Guid, mut drop: impl FnMut(i64) -> bool) {
        let mut i = 0;
        while i < self.partials.len() {
            let p = &self.partials[i];
            if p.writer == writer && drop(p.sn) {
                self.remove_at(i);
            } else {
                i += 1;
            }
        }
    }

    /// Forgets everything from `writer` (it was unmatched).
    pub fn discard_writer(&mut self, writer: Guid) {
        self.discard_where(writer, |_| true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(sn: i64, start: u32, fs: u16, size: u32) -> FragmentHeader {
        FragmentHeader { sn, fragment_start: start, fragments_in_submessage: 1, fragment_size: fs, sample_size: size }
    }

    fn limits() -> ReassemblyLimits {
        ReassemblyLimits { max_sample_size: 1000, max_concurrent: 2, max_per_writer: 2, max_total_bytes: 1500 }
    }

    const W: Guid = Guid::UNKNOWN;

    #[test]
    fn split_and_reassemble_out_of_order_with_duplicates() {
        let sample: Payload = (0..2500u32).map(|i| i as u8).collect();
        assert_eq!(fragment_count(2500, 1000), 3);
        let frags: Vec<DataFrag> = (1..=3).map(|n| data_frag(7, SampleMeta::default(), &sample, 1000, n)).collect();
        assert_eq!(frags[2].bytes().len(), 500);
        let mut r = Reassembler::new(ReassemblyLimits::default(), EvictPolicy::DropNewest);
        let m = SampleMeta::default();
        assert_eq!(r.add(W, &frags[2].header, &m, frags[2].bytes()), FragOutcome::Incomplete);
        assert_eq!(r.add(W, &frags[2].header, &m, frags[2].bytes()), FragOutcome::Duplicate);
        let missing = r.missing(W, 7, 3).unwrap();
        assert_eq!(missing.iter().collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(r.missing(W, 7, 1).unwrap().iter().collect::<Vec<_>>(), vec![1]);
        assert_eq!(r.add(W, &frags[0].header, &m, frags[0].bytes()), FragOutcome::Incomplete);
        match r.add(W, &frags[1].header, &m, frags[1].bytes()) {
            FragOutcome::Complete { payload, .. } => assert_eq!(payload, sample),
            other => panic!("{other:?}"),
        }
        assert!(r.is_empty());
    }

    #[test]
    fn multi_fragment_submessages_overlapping_repairs_give_every_byte() {
        // 13 fragments of 100 bytes, the last of 50: every byte must come from its fragment (the
        // buffer is not zeroed first), whatever mix of runs and single repairs brought it.
        let sample: Payload = (0..1250u32).map(|i| (i * 7 + 3) as u8).collect();
        let m = SampleMeta::default();
        let tail = data_frags(9, m, &sample, 100, 11, 10);
        assert_eq!((tail.header.fragment_start, tail.header.fragments_in_submessage), (11, 3), "cut at the last");
        let mut r = Reassembler::new(ReassemblyLimits::default(), EvictPolicy::DropNewest);
        for f in [data_frag(9, m, &sample, 100, 5), tail, data_frags(9, m, &sample, 100, 4, 8)] {
            assert_eq!(r.add(W, &f.header, &m, f.bytes()), FragOutcome::Incomplete);
        }
        assert_eq!(r.missing(W, 9, 13).unwrap().iter().collect::<Vec<_>>(), vec![1, 2, 3]);
        match r.add(W, &data_frags(9, m, &sample, 100, 1, 10).header, &m, data_frags(9, m, &sample, 100, 1, 10).bytes())
        {
            FragOutcome::Complete { payload, .. } => assert_eq!(payload, sample),
            other => panic!("{other:?}"),
        }
        assert!(r.is_empty());
    }

    #[test]
    fn hostile_headers_are_rejected_without_allocating() {
        let mut r = Reassembler::new(limits(), EvictPolicy::DropNewest);
        let m = SampleMeta::default();
        let rej = |o| match o {
            FragOutcome::Rejected(why) => why,
            other => panic!("accepted: {other:?}"),
        };
        assert_eq!(rej(r.add(W, &hdr(1, 0, 100, 300), &m, &[0; 100])), FragReject::ZeroFragmentNumber);
        assert_eq!(rej(r.add(W, &hdr(1, 4, 100, 300), &m, &[0; 100])), FragReject::BeyondLastFragment);
        assert_eq!(rej(r.add(W, &hdr(1, u32::MAX, 100, 300), &m, &[0; 100])), FragReject::BeyondLastFragment);
        assert_eq!(rej(r.add(W, &hdr(1, 1, 0, 300), &m, &[])), FragReject::ZeroFragmentSize);
        assert_eq!(rej(r.add(W, &hdr(1, 1, 100, 0), &m, &[])), FragReject::ZeroSampleSize);
        assert_eq!(rej(r.add(W, &hdr(1, 1, 100, u32::MAX), &m, &[0; 100])), FragReject::SampleTooLarge);
        assert_eq!(rej(r.add(W, &hdr(1, 1, 100, 300), &m, &[0; 99])), FragReject::SizeMismatch);
        assert_eq!(rej(r.add(W, &hdr(1, 3, 100, 250), &m, &[0; 100])), FragReject::SizeMismatch);
        let mut many = hdr(1, 2, 100, 300);
        many.fragments_in_submessage = u16::MAX;
        assert_eq!(rej(r.add(W, &many, &m, &[0; 200])), FragReject::BeyondLastFragment);
        assert!(r.is_empty(), "nothing was started by a rejected fragment");
        // Padding after the last fragment is tolerated.
        assert_eq!(r.add(W, &hdr(1, 3, 100, 250), &m, &[0; 52]), FragOutcome::Incomplete);
        // A later fragment that disagrees with the first about the sizes is dropped.
        assert_eq!(rej(r.add(W, &hdr(1, 1, 100, 300), &m, &[0; 100])), FragReject::Inconsistent);
        assert_eq!(rej(r.add(W, &hdr(1, 1, 50, 250), &m, &[0; 50])), FragReject::Inconsistent);
    }

    #[test]
    fn limits_keep_the_lowest_sns_for_reliable_readers() {
        let mut r = Reassembler::new(limits(), EvictPolicy::DropNewest);
        let m = SampleMeta::default();
        assert_eq!(r.add(W, &hdr(5, 1, 100, 500), &m, &[0; 100]), FragOutcome::Incomplete);
        assert_eq!(r.add(W, &hdr(6, 1, 100, 500), &m, &[0; 100]), FragOutcome::Incomplete);
        assert_eq!(r.add(W, &hdr(7, 1, 100, 500), &m, &[0; 100]), FragOutcome::Rejected(FragReject::NoRoom));
        assert_eq!(r.add(W, &hdr(4, 1, 100, 500), &m, &[0; 100]), FragOutcome::Incomplete);
        let mut sns: Vec<i64> = r.partial_sns(W).collect();
        sns.sort();
        assert_eq!(sns, vec![4, 5]);
        // Byte limit: 1500 in total; a 1000-byte sample pushes out the highest SN.
        assert_eq!(r.add(W, &hdr(3, 1, 100, 1000), &m, &[0; 100]), FragOutcome::Incomplete);
        let mut sns: Vec<i64> = r.partial_sns(W).collect();
        sns.sort();
        assert_eq!(sns, vec![3, 4]);
        r.discard_where(W, |sn| sn < 4);
        assert_eq!(r.partial_sns(W).collect::<Vec<_>>(), vec![4]);
        r.discard_writer(W);
        assert!(r.is_empty());
    }

    #[test]
    fn best_effort_drops_the_oldest() {
        let mut r = Reassembler::new(limits(), EvictPolicy::DropOldest);
        let m = SampleMeta::default();
        for sn in 1..=3 {
            assert_eq!(r.add(W, &hdr(sn, 1, 100, 300), &m, &[0; 100]), FragOutcome::Incomplete);
        }
        let mut sns: Vec<i64> = r.partial_sns(W).collect();
        sns.sort();
        assert_eq!(sns, vec![2, 3]);
        assert_eq!(r.over_limit(), 1);
    }

    #[test]
    fn one_writer_cannot_push_out_the_others() {
        let limits = ReassemblyLimits { max_concurrent: 4, max_per_writer: 2, max_total_bytes: 10_000, ..limits() };
        let other = Guid::new(crate::wire::GuidPrefix([1; 12]), crate::wire::EntityId::UNKNOWN);
        let mut r = Reassembler::new(limits, EvictPolicy::DropOldest);
        let m = SampleMeta::default();
        assert_eq!(r.add(other, &hdr(1, 1, 100, 300), &m, &[0; 100]), FragOutcome::Incomplete);
        for sn in 1..=10 {
            assert_eq!(r.add(W, &hdr(sn, 1, 100, 300), &m, &[0; 100]), FragOutcome::Incomplete);
        }
        assert_eq!(r.partial_sns(other).collect::<Vec<_>>(), vec![1], "the other writer's sample stays");
        let mut sns: Vec<i64> = r.partial_sns(W).collect();
        sns.sort();
        assert_eq!(sns, vec![9, 10]);
        assert_eq!(r.over_limit(), 8);
        // Reliable readers keep the flooding writer's lowest SNs, and refuse the rest.
        let mut r = Reassembler::new(limits, EvictPolicy::DropNewest);
        for sn in 1..=5 {
            r.add(W, &hdr(sn, 1, 100, 300), &m, &[0; 100]);
            r.add(W, &hdr(sn, 2, 100, 300), &m, &[0; 100]);
        }
        let mut sns: Vec<i64> = r.partial_sns(W).collect();
        sns.sort();
        assert_eq!(sns, vec![1, 2]);
        assert_eq!(r.over_limit(), 3);
    }
}
