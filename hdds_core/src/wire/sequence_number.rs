//! Sequence numbers, sequence-number sets and fragment-number sets (RTPS 2.5 sections 8.3.5.4,
//! 8.3.5.5, 8.3.5.7, 9.4.2.6, 9.4.2.7).
//!
//! The sets are fixed-size (numBits <= 256, i.e. 8 bitmap words) so that parsing an ACKNACK or a
//! NACK_FRAG never allocates, whatever the peer sends.

use crate::cdr::{CdrReader, CdrSink, CdrWriter, DecodeError, EncodeError};

/// A 64-bit sequence number, on the wire as a signed high word and an unsigned low word.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct SequenceNumber(pub i64);

impl SequenceNumber {
    /// SEQUENCENUMBER_UNKNOWN: high -1, low 0.
    pub const UNKNOWN: SequenceNumber = SequenceNumber(-1i64 << 32);
    pub const ZERO: SequenceNumber = SequenceNumber(0);

    pub const fn from_parts(high: i32, low: u32) -> Self {
        SequenceNumber(((high as i64) << 32) | low as i64)
    }

    pub const fn high(self) -> i32 {
        (self.0 >> 32) as i32
    }

    pub const fn low(self) -> u32 {
        self.0 as u32
    }

    pub fn read(r: &mut CdrReader<'_>) -> Result<Self, DecodeError> {
        let high = r.read_i32()?;
        let low = r.read_u32()?;
        Ok(SequenceNumber::from_parts(high, low))
    }

    pub fn write<S: CdrSink>(self, w: &mut CdrWriter<S>) -> Result<(), EncodeError> {
        w.write_i32(self.high())?;
        w.write_u32(self.low())
    }
}

/// The largest numBits the spec allows in a sequence- or fragment-number set.
pub const MAX_SET_BITS: u32 = 256;
const WORDS: usize = (MAX_SET_BITS / 32) as usize;

/// A bitmap of up to 256 bits starting at a base, shared by both set kinds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
struct Bitmap {
    num_bits: u32,
    words: [u32; WORDS],
}

impl Bitmap {
    fn read(r: &mut CdrReader<'_>) -> Result<Self, DecodeError> {
        let at = r.position();
        let num_bits = r.read_u32()?;
        if num_bits > MAX_SET_BITS {
            return Err(DecodeError::new("numBits of a number set is above 256", at));
        }
        let mut words = [0u32; WORDS];
        let n = num_bits.div_ceil(32) as usize;
        r.read_array_into(&mut words[..n])?;
        // Bits past numBits carry no meaning; clear them so equal sets compare equal.
        if num_bits % 32 != 0 {
            words[n - 1] &= !0u32 << (32 - num_bits % 32);
        }
        Ok(Bitmap { num_bits, words })
    }

    fn write<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), EncodeError> {
        w.write_u32(self.num_bits)?;
        w.write_array(&self.words[..self.num_bits.div_ceil(32) as usize])
    }

    /// Bit `i` (0 = the base), in the spec's order: most significant bit of word 0 first.
    fn get(&self, i: u32) -> bool {
        i < self.num_bits && self.words[(i / 32) as usize] & (1 << (31 - i % 32)) != 0
    }

    fn set(&mut self, i: u32) -> bool {
        if i >= MAX_SET_BITS {
            return false;
        }
        self.words[(i / 32) as usize] |= 1 << (31 - i % 32);
        self.num_bits = self.num_bits.max(i + 1);
        true
    }

    fn ones(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.num_bits).filter(move |&i| self.get(i))
    }
}

/// SequenceNumberSet: the base and which of the up to 256 numbers from it are in the set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct SequenceNumberSet {
    pub base: SequenceNumber,
    bitmap: Bitmap,
}

impl SequenceNumberSet {
    /// An empty set at `base` (numBits 0): "I have everything before base".
    pub fn new(base: SequenceNumber) -> Self {
        SequenceNumberSet { base, bitmap: Bitmap::default() }
    }

    pub fn num_bits(&self) -> u32 {
        self.bitmap.num_bits
    }

    /// Sets numBits (at most 256) without adding members, for sets that announce a window.
    pub fn set_num_bits(&mut self, n: u32) {
        self.bitmap.num_bits = n.min(MAX_SET_BITS).max(self.bitmap.num_bits);
    }

    /// The bitmap words as they go on the wire (only the first ceil(numBits/32) are sent).
    pub fn words(&self) -> &[u32] {
        &self.bitmap.words[..self.bitmap.num_bits.div_ceil(32) as usize]
    }

    pub fn contains(&self, sn: SequenceNumber) -> bool {
        let d = sn.0.wrapping_sub(self.base.0);
        (0..MAX_SET_BITS as i64).contains(&d) && self.bitmap.get(d as u32)
    }

    /// Adds `sn`; false if it is below the base or 256 or more past it.
    pub fn insert(&mut self, sn: SequenceNumber) -> bool {
        let d = sn.0.wrapping_sub(self.base.0);
        (0..MAX_SET_BITS as i64).contains(&d) && self.bitmap.set(d as u32)
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = SequenceNumber> + '_ {
        self.bitmap.ones().map(move |i| SequenceNumber(self.base.0 + i as i64))
    }

    pub fn read(r: &mut CdrReader<'_>) -> Result<Self, DecodeError> {
        let base = SequenceNumber::read(r)?;
        Ok(SequenceNumberSet { base, bitmap: Bitmap::read(r)? })
    }

    pub fn write<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), EncodeError> {
        self.base.write(w)?;
        self.bitmap.write(w)
    }
}

/// A fragment number (RTPS numbers fragments from 1).
pub type FragmentNumber = u32;

/// FragmentNumberSet: like [`SequenceNumberSet`] with a 32-bit base.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct FragmentNumberSet {
    pub base: FragmentNumber,
    bitmap: Bitmap,
}

impl FragmentNumberSet {
    pub fn new(base: FragmentNumber) -> Self {
        FragmentNumberSet { base, bitmap: Bitmap::default() }
    }

    pub fn num_bits(&self) -> u32 {
        self.bitmap.num_bits
    }

    pub fn words(&self) -> &[u32] {
        &self.bitmap.words[..self.bitmap.num_bits.div_ceil(32) as usize]
    }

    pub fn contains(&self, n: FragmentNumber) -> bool {
        n.checked_sub(self.base).is_some_and(|d| self.bitmap.get(d))
    }

    pub fn insert(&mut self, n: FragmentNumber) -> bool {
        n.checked_sub(self.base).is_some_and(|d| self.bitmap.set(d))
    }

    pub fn iter(&self) -> impl Iterator<Item = FragmentNumber> + '_ {
        self.bitmap.ones().map(move |i| self.base.wrapping_add(i))
    }

    pub fn read(r: &mut CdrReader<'_>) -> Result<Self, DecodeError> {
        let base = r.read_u32()?;
        Ok(FragmentNumberSet { base, bitmap: Bitmap::read(r)? })
    }

    pub fn write<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), EncodeError> {
        w.write_u32(self.base)?;
        self.bitmap.write(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdr::Endian;

    #[test]
    fn sequence_number_parts() {
        let sn = SequenceNumber::from_parts(1, 2);
        assert_eq!(sn.0, (1 << 32) + 2);
        assert_eq!((sn.high(), sn.low()), (1, 2));
        assert_eq!(SequenceNumber::UNKNOWN.high(), -1);
        assert_eq!(SequenceNumber::UNKNOWN.low(), 0);
        let big = SequenceNumber::from_parts(0, 0xffff_ffff);
        assert_eq!(big.0, 0xffff_ffff);
    }

    #[test]
    fn set_round_trip_and_members() {
        let mut s = SequenceNumberSet::new(SequenceNumber(10));
        assert!(s.insert(SequenceNumber(10)));
        assert!(s.insert(SequenceNumber(44)));
        assert!(!s.insert(SequenceNumber(9)));
        assert!(!s.insert(SequenceNumber(10 + 256)));
        assert_eq!(s.num_bits(), 35);
        assert_eq!(s.iter().map(|x| x.0).collect::<Vec<_>>(), vec![10, 44]);
        for endian in [Endian::Little, Endian::Big] {
            let mut w = CdrWriter::new(Vec::new(), endian);
            s.write(&mut w).unwrap();
            let v = w.into_inner();
            assert_eq!(v.len(), 8 + 4 + 8);
            let back = SequenceNumberSet::read(&mut CdrReader::new(&v, endian)).unwrap();
            assert_eq!(back, s);
        }
    }

    #[test]
    fn rejects_more_than_256_bits_and_short_bitmaps() {
        let mut v = vec![0u8; 8];
        v.extend_from_slice(&257u32.to_le_bytes());
        v.extend_from_slice(&[0; 36]);
        assert!(SequenceNumberSet::read(&mut CdrReader::new(&v, Endian::Little)).is_err());
        let mut v = vec![0u8; 4];
        v.extend_from_slice(&64u32.to_le_bytes());
        v.extend_from_slice(&[0xff; 4]);
        assert!(FragmentNumberSet::read(&mut CdrReader::new(&v, Endian::Little)).is_err());
    }

    #[test]
    fn fragment_set() {
        let mut f = FragmentNumberSet::new(3);
        assert!(f.insert(3) && f.insert(5) && !f.insert(2));
        assert!(f.contains(5) && !f.contains(4));
        assert_eq!(f.iter().collect::<Vec<_>>(), vec![3, 5]);
    }
}
