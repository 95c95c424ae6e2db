//! The CDR reader over a serialized payload. Input: a byte n, then n operation codes, then the
//! payload (encapsulation header first). Each code reads one kind of value; errors are fine,
//! panics and allocations beyond the input's size are not (the reader bounds them).
#![no_main]

use hdds_core::cdr::{CdrReader, Endian};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else { return };
    let n = (n as usize % 64).min(rest.len());
    let (ops, payload) = rest.split_at(n);
    let mut r = match CdrReader::for_payload(payload) {
        Ok((_, r)) => r,
        Err(_) => CdrReader::new(payload, Endian::Little),
    };
    for op in ops {
        let res = match op % 16 {
            0 => r.read_u8().map(drop),
            1 => r.read_u16().map(drop),
            2 => r.read_u32().map(drop),
            3 => r.read_u64().map(drop),
            4 => r.read_f32().map(drop),
            5 => r.read_f64().map(drop),
            6 => r.read_bool().map(drop),
            7 => r.read_str().map(drop),
            8 => r.read_string_bytes().map(drop),
            9 => r.read_sequence::<u16>().map(drop),
            10 => r.read_sequence::<u64>().map(drop),
            11 => r.read_byte_sequence().map(drop),
            12 => r.read_array::<24>().map(drop),
            13 => r.read_dheader().map(drop),
            14 => r.read_sequence_len(1).map(drop),
            _ => r.align(8),
        };
        assert!(r.position() <= payload.len());
        if res.is_err() && op & 0x80 != 0 {
            break;
        }
    }
});
