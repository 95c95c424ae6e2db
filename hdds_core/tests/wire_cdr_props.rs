//! Property tests of the CDR codec: whatever the writer writes, the reader reads back identically,
//! in both byte orders and both alignment versions, and the reader consumes exactly what was written.

use hdds_core::cdr::{CdrReader, CdrWriter, EncapsulationKind, Endian, XcdrVersion};
use proptest::prelude::*;

#[derive(Debug, Clone, PartialEq)]
enum V {
    U8(u8),
    I8(i8),
    Bool(bool),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(u32), // compared as bits so NaN round-trips
    F64(u64),
    Str(String),
    SeqU16(Vec<u16>),
    SeqI64(Vec<i64>),
    SeqF64(Vec<u64>),
    Bytes(Vec<u8>),
    ArrU32(Vec<u32>),
    Align(u8),
}

fn value() -> impl Strategy<Value = V> {
    prop_oneof![
        any::<u8>().prop_map(V::U8),
        any::<i8>().prop_map(V::I8),
        any::<bool>().prop_map(V::Bool),
        any::<u16>().prop_map(V::U16),
        any::<i16>().prop_map(V::I16),
        any::<u32>().prop_map(V::U32),
        any::<i32>().prop_map(V::I32),
        any::<u64>().prop_map(V::U64),
        any::<i64>().prop_map(V::I64),
        any::<u32>().prop_map(V::F32),
        any::<u64>().prop_map(V::F64),
        "[^\u{0}]{0,20}".prop_map(V::Str),
        prop::collection::vec(any::<u16>(), 0..8).prop_map(V::SeqU16),
        prop::collection::vec(any::<i64>(), 0..5).prop_map(V::SeqI64),
        prop::collection::vec(any::<u64>(), 0..5).prop_map(V::SeqF64),
        prop::collection::vec(any::<u8>(), 0..12).prop_map(V::Bytes),
        prop::collection::vec(any::<u32>(), 0..6).prop_map(V::ArrU32),
        prop_oneof![Just(1u8), Just(2), Just(4), Just(8)].prop_map(V::Align),
    ]
}

fn write_all(values: &[V], kind: EncapsulationKind) -> Vec<u8> {
    let mut w = CdrWriter::with_encapsulation(Vec::new(), kind).unwrap();
    for v in values {
        match v {
            V::U8(x) => w.write_u8(*x),
            V::I8(x) => w.write_i8(*x),
            V::Bool(x) => w.write_bool(*x),
            V::U16(x) => w.write_u16(*x),
            V::I16(x) => w.write_i16(*x),
            V::U32(x) => w.write_u32(*x),
            V::I32(x) => w.write_i32(*x),
            V::U64(x) => w.write_u64(*x),
            V::I64(x) => w.write_i64(*x),
            V::F32(x) => w.write_f32(f32::from_bits(*x)),
            V::F64(x) => w.write_f64(f64::from_bits(*x)),
            V::Str(s) => w.write_string(s),
            V::SeqU16(s) => w.write_sequence(s),
            V::SeqI64(s) => w.write_sequence(s),
            V::SeqF64(s) => {
                let f: Vec<f64> = s.iter().map(|b| f64::from_bits(*b)).collect();
                w.write_sequence(&f)
            }
            V::Bytes(b) => w.write_byte_sequence(b),
            V::ArrU32(a) => w.write_array(a),
            V::Align(n) => w.align(*n as usize),
        }
        .unwrap();
    }
    w.into_inner()
}

fn read_all(bytes: &[u8], schema: &[V]) -> Vec<V> {
    let (_, mut r) = CdrReader::for_payload(bytes).unwrap();
    let mut out = Vec::new();
    for v in schema {
        out.push(match v {
            V::U8(_) => V::U8(r.read_u8().unwrap()),
            V::I8(_) => V::I8(r.read_i8().unwrap()),
            V::Bool(_) => V::Bool(r.read_bool().unwrap()),
            V::U16(_) => V::U16(r.read_u16().unwrap()),
            V::I16(_) => V::I16(r.read_i16().unwrap()),
            V::U32(_) => V::U32(r.read_u32().unwrap()),
            V::I32(_) => V::I32(r.read_i32().unwrap()),
            V::U64(_) => V::U64(r.read_u64().unwrap()),
            V::I64(_) => V::I64(r.read_i64().unwrap()),
            V::F32(_) => V::F32(r.read_f32().unwrap().to_bits()),
            V::F64(_) => V::F64(r.read_f64().unwrap().to_bits()),
            V::Str(_) => V::Str(r.read_str().unwrap().to_owned()),
            V::SeqU16(_) => V::SeqU16(r.read_sequence().unwrap()),
            V::SeqI64(_) => V::SeqI64(r.read_sequence().unwrap()),
            V::SeqF64(_) => V::SeqF64(r.read_sequence::<f64>().unwrap().iter().map(|f| f.to_bits()).collect()),
            V::Bytes(_) => V::Bytes(r.read_byte_sequence().unwrap().to_vec()),
            V::ArrU32(a) => {
                let mut x = vec![0u32; a.len()];
                r.read_array_into(&mut x).unwrap();
                V::ArrU32(x)
            }
            V::Align(n) => {
                r.align(*n as usize).unwrap();
                V::Align(*n)
            }
        });
    }
    assert!(r.is_empty(), "reader left {} bytes", r.remaining());
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn cdr_round_trips(values in prop::collection::vec(value(), 0..24),
                       little in any::<bool>(), xcdr2 in any::<bool>()) {
        let endian = if little { Endian::Little } else { Endian::Big };
        let version = if xcdr2 { XcdrVersion::Xcdr2 } else { XcdrVersion::Xcdr1 };
        let kind = EncapsulationKind::plain(version, endian);
        let bytes = write_all(&values, kind);
        prop_assert_eq!(&bytes[..2], &kind.id().to_be_bytes()[..]);
        prop_assert_eq!(read_all(&bytes, &values), values);
    }

    #[test]
    fn reader_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64),
                                              ops in prop::collection::vec(0u8..12, 0..16)) {
        for endian in [Endian::Little, Endian::Big] {
            let mut r = CdrReader::new(&bytes, endian);
            for op in &ops {
                let _ = match op {
                    0 => r.read_u8().map(drop),
                    1 => r.read_u16().map(drop),
                    2 => r.read_u32().map(drop),
                    3 => r.read_u64().map(drop),
                    4 => r.read_str().map(drop),
                    5 => r.read_sequence::<u32>().map(drop),
                    6 => r.read_sequence::<u64>().map(drop),
                    7 => r.read_bool().map(drop),
                    8 => r.read_byte_sequence().map(drop),
                    9 => r.align(8),
                    10 => r.read_dheader().map(drop),
                    _ => r.read_f64().map(drop),
                };
            }
        }
    }
}

#[test]
fn empty_ros_message_is_one_byte_after_the_header() {
    // A ROS message with no fields (std_msgs/Empty) carries a single uint8 placeholder.
    let mut w = CdrWriter::with_encapsulation(Vec::new(), EncapsulationKind::CdrLe).unwrap();
    w.write_u8(0).unwrap();
    assert_eq!(w.into_inner(), [0, 1, 0, 0, 0]);
}
