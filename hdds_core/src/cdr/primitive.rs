//! The fixed-size CDR primitives, so that reader and writer handle them (and arrays and sequences
//! of them) with one generic function each instead of one per type.

use super::Endian;

/// A fixed-size CDR primitive: aligned to its size (capped by the stream's version).
pub trait Primitive: Copy + Sized {
    /// Size on the wire, which is also the natural alignment.
    const SIZE: usize;
    /// Decodes from exactly `SIZE` bytes. Callers pass a slice of the right length; a wrong length
    /// yields the type's default rather than a panic.
    fn decode(bytes: &[u8], endian: Endian) -> Self;
    /// The encoding, in the first `SIZE` bytes of the returned array.
    fn encode(self, endian: Endian) -> [u8; 8];
}

macro_rules! primitive {
    ($($t:ty),*) => {$(
        impl Primitive for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn decode(bytes: &[u8], endian: Endian) -> Self {
                let Ok(arr) = <[u8; std::mem::size_of::<$t>()]>::try_from(bytes) else {
                    return <$t>::default();
                };
                match endian {
                    Endian::Little => <$t>::from_le_bytes(arr),
                    Endian::Big => <$t>::from_be_bytes(arr),
                }
            }
            #[inline]
            fn encode(self, endian: Endian) -> [u8; 8] {
                let b = match endian {
                    Endian::Little => self.to_le_bytes(),
                    Endian::Big => self.to_be_bytes(),
                };
                let mut out = [0u8; 8];
                for (o, i) in out.iter_mut().zip(b) {
                    *o = i;
                }
                out
            }
        }
    )*};
}

primitive!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);
