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
//! What a held pin does to the writer: a KEEP_LAST (or best-effort) writer goes around the pinned
//! sample and keeps writing (the pinned one is never rewritten); a reliable KEEP_ALL writer counts
//! it as not yet taken and waits for it, up to max_blocking_time. So return loans soon. A loan
//! outlives its reader, writer and participant safely (it keeps the ring's mapping); the pins of
//! a process that dies are released by the writer when it needs the room.

use super::super::sample::{Sample, SampleInfo};
use super::Reader;
use std::sync::atomic::Ordering;

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
        self.shared.loans.store(true, Ordering::Relaxed);
        self.pop().map(|sample| ReaderLoan { sample })
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
