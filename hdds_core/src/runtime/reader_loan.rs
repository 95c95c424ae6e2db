//! Loaned samples on the reader's side: [`Reader::take_loan`] hands out a sample without copying
//! its payload, [`Reader::return_loan`] (or dropping the loan) gives it back.
//!
//! Where the payload is:
//! - a same-process writer's sample: the writer's buffer itself (shared, reference-counted);
//! - a UDP sample: the reassembled buffer the receive thread made;
//! - a same-host writer's sample: the writer's shared-memory ring, in place. Once a reader has
//!   taken a loan, its participant's shared-memory drain stops copying: each sample stays in the
//!   ring, pinned (transport/shm/ring.rs has the pin protocol), and the history holds the pin
//!   until the sample is taken. [`Reader::take`] copies it out then and unpins; a loan keeps the
//!   pin until it is returned. A reader holds at most `LOAN_WORDS` (8) pins per writer; samples
//!   beyond that are copied as before. Keyed readers always copy (they look into each payload).
//!
//! [`Reader::take_with`] (the ROS layer's take: it deserializes straight from the bytes) reads in
//! place the same way, for samples of [`PIN_FROM`] bytes and more only: a large payload is then
//! copied once (by the deserializer) instead of twice, while a small one is still copied out by
//! the drain, which costs less than a pin and keeps the pin words for the large ones. Until taken,
//! such a sample waits pinned in the history as a loaning reader's does (below: what that does to
//! the writer); the pin is let go as soon as the callback returns.
//!
//! What a held pin does to the writer: a KEEP_LAST (or best-effort) writer goes around the pinned
//! sample and keeps writing (the pinned one is never rewritten); a reliable KEEP_ALL writer counts
//! it as not yet taken and waits for it, up to max_blocking_time. So return loans soon. A loan
//! outlives its reader, writer and participant safely (it keeps the ring's mapping); the pins of
//! a process that dies are released by the writer when it needs the room.

use super::super::sample::{Sample, SampleInfo};
use super::Reader;
use std::sync::atomic::Ordering;

/// The payload size from which [`Reader::take_with`] leaves same-host samples in their writer's
/// ring: below it, copying (about 5 us per 64 KiB) costs as little as pinning and unpinning.
pub(crate) const PIN_FROM: usize = 64 << 10;

/// A sample taken by [`Reader::take_loan`]: its payload is borrowed, not copied. Return it with
/// [`Reader::return_loan`] or drop it.
#[derive(Debug)]
pub struct ReaderLoan {
    sample: Sample,
}

impl Reader {
    /// Takes the oldest sample as [`Reader::take`] does, without copying its payload. From the
    /// first call on, the reader's same-host samples stay in their writers' shared-memory rings
    /// until they are taken (the module comment says what that means for the writers).
    pub fn take_loan(&self) -> Option<ReaderLoan> {
        self.shared.pin_from.store(0, Ordering::Relaxed);
        self.pop().map(|sample| ReaderLoan { sample })
    }

    /// Takes the oldest sample as [`Reader::take`] does and hands `read` its payload (the full
    /// serialized payload, encapsulation header included) and info in place, without copying
    /// them: a same-host payload of [`PIN_FROM`] bytes or more is read in its writer's ring (the
    /// module comment says how, from the first call on). The sample is let go (unpinned) when
    /// `read` returns; `None` (and no call) when there is no sample.
    #[link_section = ".text.hot.hdds"]
    pub fn take_with<R>(&self, read: impl FnOnce(&[u8], &SampleInfo) -> R) -> Option<R> {
        self.shared.pin_from.fetch_min(PIN_FROM, Ordering::Relaxed);
        let sample = self.pop()?;
        Some(read(sample.payload(), &sample.info))
    }

    /// Gives a loan back (the same as dropping it).
    pub fn return_loan(&self, loan: ReaderLoan) {
        drop(loan);
    }
}

impl ReaderLoan {
    /// The serialized payload (encapsulation header included).
    pub fn data(&self) -> &[u8] {
        self.sample.payload()
    }

    pub fn info(&self) -> &SampleInfo {
        &self.sample.info
    }

    /// Whether the payload is read in place in a same-host writer's shared-memory ring.
    pub fn in_shared_memory(&self) -> bool {
        self.sample.pinned.is_some()
    }

    /// The sample, its payload copied out if it was in shared memory; the loan is returned.
    pub fn into_sample(mut self) -> Sample {
        self.sample.unpin();
        self.sample
    }
}
