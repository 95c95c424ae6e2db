//! Loaned samples: a writer lends a buffer, the caller fills it in place and publishes it. When
//! same-host readers will get the sample, the buffer is the next slot of the writer's
//! shared-memory ring, so the payload is written once and never copied on the way to them.

use std::mem::MaybeUninit;
use std::time::Instant;

use super::super::events::run_listeners;
use super::super::instances::WriteChange;
use super::super::sample::WriteOptions;
use super::Writer;
use crate::error::{Error, Result};
use crate::qos::Durability;
use crate::transport::shm::ring::LentId;

/// A sample buffer lent by [`Writer::loan`]: fill it, then [`WriterLoan::publish`]. Dropping it
/// unpublished gives the buffer back.
pub struct WriterLoan<'a> {
    writer: &'a Writer,
    buf: Buf,
    published: bool,
}

enum Buf {
    /// Bytes of the writer's ring, lent to this loan alone.
    Ring {
        ptr: *mut u8,
        len: usize,
        id: LentId,
    },
    Heap(Vec<u8>),
}

impl Writer {
    /// Lends a buffer of `len` bytes for the next sample: a slot of the writer's shared-memory
    /// ring when same-host readers (or a TRANSIENT_LOCAL history) will get it, else ordinary
    /// memory. Its bytes are unspecified (zeros, or an earlier sample of this writer's in the
    /// ring): fill every byte you publish. Lending costs the same at every size, as publishing
    /// does; zeroing a slot the caller then fills would be a second pass over it (4 MiB: tens of
    /// microseconds), which a caller that wants zeros can make itself. Several loans may be out
    /// at once, and the writer may write meanwhile; each loan's sample takes its sequence number
    /// when it is published. A loan in the ring holds up
    /// the reuse of the ring's memory beyond it until it is published or dropped, so do not keep
    /// one long. A reliable KEEP_ALL writer waits for room up to max_blocking_time, as a write
    /// does. A `len` above [`super::MAX_SAMPLE_BYTES`] fails with [`ErrorKind::BadArgument`].
    pub fn loan(&self, len: usize) -> Result<WriterLoan<'_>> {
        // loan_in_shared_memory refuses a `len` beyond a sample before the heap buffer below.
        Ok(match self.loan_in_shared_memory(len)? {
            Some(loan) => loan,
            // Zeros from the allocator (fresh pages for a large one): no cheaper unspecified bytes.
            None => WriterLoan { writer: self, buf: Buf::Heap(vec![0; len]), published: false },
        })
    }

    /// [`Writer::loan`] where it is zero copy only: a slot of the writer's shared-memory
    /// ring, or `None` (nothing allocated) when the sample would not go there (no same-host
    /// reader, or samples pinned by readers' loans leave no room in the ring): the caller then
    /// fills memory of its own and writes it, which costs no more than a heap loan.
    pub fn loan_in_shared_memory(&self, len: usize) -> Result<Option<WriterLoan<'_>>> {
        super::check_sample_len(len, "a loan")?;
        let Some(shm) = &self.shared.shm else { return Ok(None) };
        let deadline = Instant::now().checked_add(self.shared.qos.max_blocking_time);
        let Some(l) = shm.lend(len, deadline)? else { return Ok(None) };
        Ok(Some(WriterLoan { writer: self, buf: Buf::Ring { ptr: l.ptr, len: l.len, id: l.id }, published: false }))
    }

    /// [`Writer::write_with`] of a sample serialized straight into the buffer the sample will own
    /// (the one same-process readers share): `fill` gets `len` uninitialized bytes, writes the
    /// serialized sample (encapsulation header included) at their start and returns how many
    /// bytes it wrote. Nothing is written when `fill` fails. Saves the copy [`Writer::write`]
    /// makes of a sample serialized elsewhere. When same-host readers will get the sample (and
    /// the writer is VOLATILE), the buffer is the writer's shared-memory ring slot, as for
    /// [`Writer::loan`]: no copy on the way to them either; other threads' writes of this writer
    /// wait for it meanwhile (their turn at the ring, [`ShmWriter::turn`]; so `fill` must not
    /// write with this writer itself).
    ///
    /// [`ShmWriter::turn`]: crate::transport::shm::writer::ShmWriter::turn
    ///
    /// # Safety
    /// When `fill` returns `Ok(n)`, it has initialized the first `n` bytes of its buffer (n may
    /// be less than `len`; more is an error).
    #[link_section = ".text.hot.hdds"]
    pub unsafe fn write_into(
        &self,
        len: usize,
        options: &WriteOptions,
        fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<usize>,
    ) -> Result<i64> {
        super::check_sample_len(len, "write_into: a buffer")?;
        // A TRANSIENT_LOCAL writer keeps a heap copy anyway (its history), and replays that
        // history into the ring when a late joiner matches, which a slot lent here would refuse.
        let volatile = self.shared.qos.durability != Durability::TransientLocal;
        // Without same-host readers (as yet) the ring lends nothing: no turn to take for it (a
        // reader that comes meanwhile gets the sample by copy, as from Writer::write).
        let ring = self.shared.shm.as_ref().filter(|s| volatile && s.reader_count() > 0);
        if let Some(shm) = ring {
            // Same-host readers: serialize straight into the ring slot they will read (no copy on
            // the way to them). The turn keeps other threads' writes of this writer waiting
            // meanwhile, as any write does.
            let turn = shm.turn();
            let deadline = Instant::now().checked_add(self.shared.qos.max_blocking_time);
            if let Some(lent) = shm.lend(len, deadline)? {
                // SAFETY: the ring lent these `len` bytes (inside its committed arena, mapped as
                // long as the writer lives) to this call alone until publish_lent or give_back, and
                // no reader looks at them before they are published; `MaybeUninit<u8>` has the
                // layout of `u8`, and the slice claims nothing about their values.
                let bytes = unsafe { std::slice::from_raw_parts_mut(lent.ptr.cast::<MaybeUninit<u8>>(), lent.len) };
                let r = filled(fill(bytes), len).and_then(|written| {
                    // SAFETY: as above; `fill` initialized the first `written` bytes (this
                    // function's contract), which are read (not written) until published.
                    let payload = unsafe { std::slice::from_raw_parts(lent.ptr.cast_const(), written) };
                    self.write_core(payload, None, options, WriteChange::default(), Some(lent.id))
                });
                if r.is_err() {
                    // Not published: the slot is free again (a no-op if it was published).
                    shm.give_back(lent.id);
                }
                drop(turn);
                run_listeners();
                return r;
            }
        }
        // SAFETY: `fill` initialized the first `written` bytes (this function's contract). A
        // shorter sample stays in its buffer.
        let data = unsafe { self.shared.buffer(len).fill(|bytes| filled(fill(bytes), len)) }?;
        let bytes = data.clone();
        self.write_inner(&bytes, Some(data), options, WriteChange::default(), None)
    }
}

/// What a [`Writer::write_into`] filler returned, checked against the buffer's `len`.
#[link_section = ".text.hot.hdds"]
fn filled(r: Result<usize>, len: usize) -> Result<usize> {
    match r? {
        written if written > len => Err(Error::bad_argument(format!(
            "write_into: the sample filler says it wrote {written} bytes into a {len}-byte buffer"
        ))),
        written => Ok(written),
    }
}

impl WriterLoan<'_> {
    /// The buffer to fill (the serialized sample, encapsulation header included).
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        match &mut self.buf {
            // SAFETY: the ring lent these bytes to this loan alone (see Writer::loan); the mapping
            // lives as long as the writer, which this loan borrows; `&mut self` makes this the only
            // reference for its lifetime. They are initialized: a mapped file's bytes always are
            // (zeros, or what an earlier sample left), and no one else writes them meanwhile.
            Buf::Ring { ptr, len, .. } => unsafe { std::slice::from_raw_parts_mut(*ptr, *len) },
            Buf::Heap(v) => v,
        }
    }

    pub fn len(&self) -> usize {
        match &self.buf {
            Buf::Ring { len, .. } => *len,
            Buf::Heap(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the buffer lies in the writer's shared-memory ring (zero copy to same-host readers).
    pub fn in_shared_memory(&self) -> bool {
        matches!(self.buf, Buf::Ring { .. })
    }

    /// Publishes the filled buffer as [`Writer::write`] would; returns its sequence number.
    pub fn publish(self) -> Result<i64> {
        self.publish_with(&WriteOptions::default())
    }

    /// [`WriterLoan::publish`] with [`WriteOptions`], as [`Writer::write_with`]. On an error the
    /// buffer goes back to the writer.
    pub fn publish_with(mut self, options: &WriteOptions) -> Result<i64> {
        let r = match &self.buf {
            Buf::Ring { ptr, len, id } => {
                // SAFETY: as in as_mut_slice; shared for the duration of the write only.
                let bytes = unsafe { std::slice::from_raw_parts(*ptr as *const u8, *len) };
                self.writer.write_inner(bytes, None, options, WriteChange::default(), Some(*id))
            }
            Buf::Heap(v) => self.writer.write_inner(v, None, options, WriteChange::default(), None),
        };
        self.published = r.is_ok();
        r
    }
}

impl Drop for WriterLoan<'_> {
    fn drop(&mut self) {
        if let (false, Buf::Ring { id, .. }, Some(shm)) = (self.published, &self.buf, &self.writer.shared.shm) {
            shm.give_back(*id);
        }
    }
}
