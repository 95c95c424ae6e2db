//! A CDR writer. It appends to a [`CdrSink`]: a `Vec<u8>` (grows, never fails) or a caller's fixed
//! buffer through [`SliceSink`] (fails with [`EncodeError`] when full, so a pooled buffer is never
//! overrun). Alignment is counted from the sink's length when the writer was made, which lets a
//! caller put an RTPS header or an encapsulation header in front and still get CDR alignment right.

use super::encapsulation::{Encapsulation, EncapsulationKind};
use super::{padding, EncodeError, Endian, Primitive, XcdrVersion};

/// Where encoded bytes go.
pub trait CdrSink {
    /// Bytes written so far.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError>;
    /// Appends `n` zero bytes (padding).
    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        const Z: [u8; 8] = [0; 8];
        let mut left = n;
        while left > 0 {
            let k = left.min(Z.len());
            self.put(&Z[..k])?;
            left -= k;
        }
        Ok(())
    }
}

impl CdrSink for Vec<u8> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        self.resize(Vec::len(self) + n, 0);
        Ok(())
    }
}

impl<S: CdrSink + ?Sized> CdrSink for &mut S {
    fn len(&self) -> usize {
        (**self).len()
    }
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        (**self).put(bytes)
    }
    fn put_zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        (**self).put_zeros(n)
    }
}

/// A caller's fixed buffer as a sink.
#[derive(Debug)]
pub struct SliceSink<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> SliceSink<'b> {
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceSink { buf, len: 0 }
    }
    /// The bytes written.
    pub fn written(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl CdrSink for SliceSink<'_> {
    fn len(&self) -> usize {
        self.len
    }
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let end = self.len.checked_add(bytes.len()).ok_or(EncodeError::new("buffer full"))?;
        let dst = self.buf.get_mut(self.len..end).ok_or(EncodeError::new("buffer full"))?;
        dst.copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }
}

#[derive(Debug)]
pub struct CdrWriter<S: CdrSink> {
    sink: S,
    origin: usize,
    endian: Endian,
    max_align: usize,
}

impl<S: CdrSink> CdrWriter<S> {
    /// An XCDR1 writer whose alignment origin is the sink's current end.
    pub fn new(sink: S, endian: Endian) -> Self {
        Self::with_version(sink, endian, XcdrVersion::Xcdr1)
    }

    pub fn with_version(sink: S, endian: Endian, version: XcdrVersion) -> Self {
        let origin = sink.len();
        CdrWriter { sink, origin, endian, max_align: version.max_align() }
    }

    /// Writes the encapsulation header for `kind` (options zero) and starts the origin after it.
    pub fn with_encapsulation(mut sink: S, kind: EncapsulationKind) -> Result<Self, EncodeError> {
        sink.put(&Encapsulation::new(kind).to_bytes())?;
        Ok(Self::with_version(sink, kind.endian(), kind.version()))
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Bytes written since the origin.
    pub fn position(&self) -> usize {
        self.sink.len() - self.origin
    }

    pub fn sink(&self) -> &S {
        &self.sink
    }

    pub fn into_inner(self) -> S {
        self.sink
    }

    /// Pads with zeros to a multiple of `align` (capped by the version's maximum).
    pub fn align(&mut self, align: usize) -> Result<(), EncodeError> {
        let align = align.clamp(1, self.max_align);
        if !align.is_power_of_two() {
            return Err(EncodeError::new("alignment is not a power of two"));
        }
        let pad = padding(self.position(), align);
        self.sink.put_zeros(pad)
    }

    /// Raw bytes, no alignment, no length.
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.sink.put(bytes)
    }

    /// Any primitive, aligned to its size.
    #[inline]
    pub fn write<T: Primitive>(&mut self, v: T) -> Result<(), EncodeError> {
        self.align(T::SIZE)?;
        let b = v.encode(self.endian);
        self.sink.put(&b[..T::SIZE])
    }

    pub fn write_u8(&mut self, v: u8) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_i8(&mut self, v: i8) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_u16(&mut self, v: u16) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_i16(&mut self, v: i16) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_u32(&mut self, v: u32) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_i32(&mut self, v: i32) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_u64(&mut self, v: u64) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_i64(&mut self, v: i64) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_f32(&mut self, v: f32) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_f64(&mut self, v: f64) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_char(&mut self, v: u8) -> Result<(), EncodeError> {
        self.write(v)
    }
    pub fn write_bool(&mut self, v: bool) -> Result<(), EncodeError> {
        self.write(v as u8)
    }

    fn write_len(&mut self, n: usize) -> Result<(), EncodeError> {
        let n = u32::try_from(n).map_err(|_| EncodeError::new("length does not fit in 32 bits"))?;
        self.write_u32(n)
    }

    /// A string: u32 length counting the NUL, the bytes, the NUL.
    pub fn write_string(&mut self, s: &str) -> Result<(), EncodeError> {
        self.write_string_bytes(s.as_bytes())
    }

    /// A string from raw octets (no UTF-8 requirement; CDR strings are octets).
    pub fn write_string_bytes(&mut self, s: &[u8]) -> Result<(), EncodeError> {
        self.write_len(s.len() + 1)?;
        self.sink.put(s)?;
        self.sink.put(&[0])
    }

    /// A sequence's element count (the elements follow, written by the caller).
    pub fn write_sequence_len(&mut self, n: usize) -> Result<(), EncodeError> {
        self.write_len(n)
    }

    /// An array of primitives (no count), aligned once to the element.
    pub fn write_array<T: Primitive>(&mut self, values: &[T]) -> Result<(), EncodeError> {
        if values.is_empty() {
            return Ok(());
        }
        self.align(T::SIZE)?;
        for v in values {
            let b = v.encode(self.endian);
            self.sink.put(&b[..T::SIZE])?;
        }
        Ok(())
    }

    /// A sequence of primitives: u32 count, then the elements.
    pub fn write_sequence<T: Primitive>(&mut self, values: &[T]) -> Result<(), EncodeError> {
        self.write_len(values.len())?;
        self.write_array(values)
    }

    /// A sequence of octets in one copy.
    pub fn write_byte_sequence(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.write_len(bytes.len())?;
        self.sink.put(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_aligned_and_after_encapsulation() {
        let mut w = CdrWriter::with_encapsulation(Vec::new(), EncapsulationKind::CdrLe).unwrap();
        w.write_u8(7).unwrap();
        w.write_u64(2).unwrap();
        w.write_string("hi").unwrap();
        let v = w.into_inner();
        assert_eq!(v, [0, 1, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, b'h', b'i', 0]);
    }

    #[test]
    fn slice_sink_reports_full() {
        let mut buf = [0u8; 6];
        let mut w = CdrWriter::new(SliceSink::new(&mut buf), Endian::Big);
        w.write_u32(0x01020304).unwrap();
        assert!(w.write_u32(5).is_err());
        assert_eq!(w.sink().written(), &[1, 2, 3, 4]);
    }

    #[test]
    fn origin_is_the_sinks_end() {
        let mut v = vec![0xaa; 3];
        let mut w = CdrWriter::new(&mut v, Endian::Little);
        w.write_u16(1).unwrap();
        assert_eq!(v, [0xaa, 0xaa, 0xaa, 1, 0]);
    }
}
