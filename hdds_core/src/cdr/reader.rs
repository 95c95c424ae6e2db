//! A CDR reader over a borrowed buffer. It never panics: every read checks the remaining length
//! and returns a [`DecodeError`] naming the problem and its offset. Sequence lengths are checked
//! against the bytes left before anything is allocated, so input cannot make it allocate more than
//! the input's own size.

use super::encapsulation::Encapsulation;
use super::{padding, DecodeError, Endian, Primitive, XcdrVersion};

#[derive(Clone, Debug)]
pub struct CdrReader<'a> {
    buf: &'a [u8],
    pos: usize,
    endian: Endian,
    max_align: usize,
}

impl<'a> CdrReader<'a> {
    /// An XCDR1 reader whose alignment origin is the start of `buf`.
    pub fn new(buf: &'a [u8], endian: Endian) -> Self {
        Self::with_version(buf, endian, XcdrVersion::Xcdr1)
    }

    pub fn with_version(buf: &'a [u8], endian: Endian, version: XcdrVersion) -> Self {
        CdrReader { buf, pos: 0, endian, max_align: version.max_align() }
    }

    /// A reader for a whole serialized payload: parses the encapsulation header and takes the
    /// byte order and alignment rules from it, with the origin just after it. Parameter-list
    /// encapsulations are accepted too (the reader then reads the list's raw CDR).
    pub fn for_payload(payload: &'a [u8]) -> Result<(Encapsulation, CdrReader<'a>), DecodeError> {
        let (enc, body) = Encapsulation::parse(payload)?;
        Ok((enc, CdrReader::with_version(body, enc.kind.endian(), enc.kind.version())))
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Bytes consumed so far, counted from the origin.
    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// What is left, without consuming it.
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }

    fn err(&self, reason: &'static str) -> DecodeError {
        DecodeError::new(reason, self.pos)
    }

    /// Skips padding up to a multiple of `align` (1, 2, 4 or 8; capped by the version's maximum).
    /// Padding past the end of the buffer is an error, as the value after it could not be there.
    pub fn align(&mut self, align: usize) -> Result<(), DecodeError> {
        let align = align.clamp(1, self.max_align);
        if !align.is_power_of_two() {
            return Err(self.err("alignment is not a power of two"));
        }
        let pad = padding(self.pos, align);
        if pad > self.remaining() {
            return Err(self.err("alignment padding runs past the end of the data"));
        }
        self.pos += pad;
        Ok(())
    }

    /// `n` raw bytes, borrowed (no alignment).
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.err("data ends inside a value"));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// A fixed-size byte array (GUIDs, prefixes, addresses), no alignment.
    pub fn read_array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let b = self.read_bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<(), DecodeError> {
        self.read_bytes(n).map(|_| ())
    }

    /// Any primitive, aligned to its size.
    #[inline]
    pub fn read<T: Primitive>(&mut self) -> Result<T, DecodeError> {
        self.align(T::SIZE)?;
        let b = self.read_bytes(T::SIZE)?;
        Ok(T::decode(b, self.endian))
    }

    pub fn read_u8(&mut self) -> Result<u8, DecodeError> {
        self.read()
    }
    pub fn read_i8(&mut self) -> Result<i8, DecodeError> {
        self.read()
    }
    pub fn read_u16(&mut self) -> Result<u16, DecodeError> {
        self.read()
    }
    pub fn read_i16(&mut self) -> Result<i16, DecodeError> {
        self.read()
    }
    pub fn read_u32(&mut self) -> Result<u32, DecodeError> {
        self.read()
    }
    pub fn read_i32(&mut self) -> Result<i32, DecodeError> {
        self.read()
    }
    pub fn read_u64(&mut self) -> Result<u64, DecodeError> {
        self.read()
    }
    pub fn read_i64(&mut self) -> Result<i64, DecodeError> {
        self.read()
    }
    pub fn read_f32(&mut self) -> Result<f32, DecodeError> {
        self.read()
    }
    pub fn read_f64(&mut self) -> Result<f64, DecodeError> {
        self.read()
    }

    /// A CDR char (one octet).
    pub fn read_char(&mut self) -> Result<u8, DecodeError> {
        self.read()
    }

    /// A CDR boolean: one octet, 0 or 1. Anything else means we are out of step with the writer.
    pub fn read_bool(&mut self) -> Result<bool, DecodeError> {
        match self.read_u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::new("boolean is neither 0 nor 1", self.pos - 1)),
        }
    }

    /// A sequence's element count, checked against what is left: each element takes at least
    /// `min_element_size` bytes (use 1 for strings and nested types of unknown size), so a count
    /// that could not fit is rejected before anyone allocates for it.
    pub fn read_sequence_len(&mut self, min_element_size: usize) -> Result<usize, DecodeError> {
        let at = self.pos;
        let n = self.read_u32()? as usize;
        if n.saturating_mul(min_element_size.max(1)) > self.remaining() {
            return Err(DecodeError::new("sequence length exceeds the data left", at));
        }
        Ok(n)
    }

    /// A string's bytes without the terminating NUL, borrowed. The u32 length counts the NUL; a
    /// zero length (no room for the NUL), a length past the end or a missing NUL are errors
    /// (Cyclone rejects the same inputs).
    pub fn read_string_bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let at = self.pos;
        let len = self.read_u32()? as usize;
        if len == 0 {
            return Err(DecodeError::new("string length 0 (it must count the terminating NUL)", at));
        }
        if len > self.remaining() {
            return Err(DecodeError::new("string length exceeds the data left", at));
        }
        let bytes = self.read_bytes(len)?;
        match bytes.split_last() {
            Some((0, s)) => Ok(s),
            _ => Err(DecodeError::new("string is not NUL-terminated", at)),
        }
    }

    /// A string that must be UTF-8 (ROS strings, DDS names).
    pub fn read_str(&mut self) -> Result<&'a str, DecodeError> {
        let at = self.pos;
        let b = self.read_string_bytes()?;
        std::str::from_utf8(b).map_err(|_| DecodeError::new("string is not valid UTF-8", at))
    }

    /// `out.len()` primitives with no count in front (a CDR array), aligned once to the element.
    pub fn read_array_into<T: Primitive>(&mut self, out: &mut [T]) -> Result<(), DecodeError> {
        if out.is_empty() {
            return Ok(());
        }
        self.align(T::SIZE)?;
        let total = out.len().checked_mul(T::SIZE).ok_or_else(|| self.err("array too large"))?;
        let bytes = self.read_bytes(total)?;
        for (v, chunk) in out.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
            *v = T::decode(chunk, self.endian);
        }
        Ok(())
    }

    /// A sequence of primitives (u32 count, then the elements). Allocation is bounded by the input.
    pub fn read_sequence<T: Primitive>(&mut self) -> Result<Vec<T>, DecodeError> {
        let n = self.read_sequence_len(T::SIZE)?;
        if n == 0 {
            return Ok(Vec::new());
        }
        self.align(T::SIZE)?;
        let bytes = self.read_bytes(n * T::SIZE)?;
        Ok(bytes.chunks_exact(T::SIZE).map(|c| T::decode(c, self.endian)).collect())
    }

    /// A sequence of octets, borrowed (zero copy).
    pub fn read_byte_sequence(&mut self) -> Result<&'a [u8], DecodeError> {
        let n = self.read_sequence_len(1)?;
        self.read_bytes(n)
    }

    /// An XCDR2 DHEADER (u32 byte length of the appendable/mutable object that follows), checked.
    pub fn read_dheader(&mut self) -> Result<usize, DecodeError> {
        let at = self.pos;
        let n = self.read_u32()? as usize;
        if n > self.remaining() {
            return Err(DecodeError::new("DHEADER length exceeds the data left", at));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_aligned_primitives_little_and_big() {
        // u8, pad to 4, u32, u64 at offset 8
        let le = [7u8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
        let mut r = CdrReader::new(&le, Endian::Little);
        assert_eq!(r.read_u8().unwrap(), 7);
        assert_eq!(r.read_u32().unwrap(), 1);
        assert_eq!(r.read_u64().unwrap(), 2);
        assert!(r.is_empty());
        let be = [7u8, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2];
        let mut r = CdrReader::new(&be, Endian::Big);
        assert_eq!(r.read_u8().unwrap(), 7);
        assert_eq!(r.read_u32().unwrap(), 1);
        assert_eq!(r.read_u64().unwrap(), 2);
    }

    #[test]
    fn xcdr2_aligns_u64_to_four() {
        let b = [0u8, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0];
        let mut r = CdrReader::with_version(&b, Endian::Little, XcdrVersion::Xcdr2);
        assert_eq!(r.read_u32().unwrap(), 0);
        assert_eq!(r.read_u64().unwrap(), 5);
        let mut r = CdrReader::new(&b, Endian::Little);
        r.read_u32().unwrap();
        assert!(r.read_u64().is_err(), "XCDR1 pads to 8, leaving only 4 bytes");
    }

    #[test]
    fn strings() {
        let ok = [6u8, 0, 0, 0, b'h', b'e', b'l', b'l', b'o', 0];
        assert_eq!(CdrReader::new(&ok, Endian::Little).read_str().unwrap(), "hello");
        let no_nul = [5u8, 0, 0, 0, b'h', b'e', b'l', b'l', b'o'];
        let e = CdrReader::new(&no_nul, Endian::Little).read_str().unwrap_err();
        assert_eq!(e.reason, "string is not NUL-terminated");
        let long = [60u8, 0, 0, 0, b'h', 0];
        assert!(CdrReader::new(&long, Endian::Little).read_str().is_err());
        let zero = [0u8, 0, 0, 0];
        assert!(CdrReader::new(&zero, Endian::Little).read_str().is_err());
        let empty = [1u8, 0, 0, 0, 0];
        assert_eq!(CdrReader::new(&empty, Endian::Little).read_str().unwrap(), "");
    }

    #[test]
    fn sequence_length_is_bounded_by_input() {
        let huge = [0xffu8, 0xff, 0xff, 0x7f, 1, 2, 3, 4];
        assert!(CdrReader::new(&huge, Endian::Little).read_sequence::<u32>().is_err());
        let ok = [2u8, 0, 0, 0, 1, 0, 2, 0];
        assert_eq!(CdrReader::new(&ok, Endian::Little).read_sequence::<u16>().unwrap(), vec![1, 2]);
    }

    #[test]
    fn bool_and_errors() {
        assert!(CdrReader::new(&[2], Endian::Little).read_bool().is_err());
        assert!(CdrReader::new(&[1], Endian::Little).read_bool().unwrap());
        let e = CdrReader::new(&[1, 2], Endian::Little).read_u32().unwrap_err();
        assert_eq!(e.offset, 0);
    }
}
