//! Parameter lists (discovery data, inline QoS). Input: one flags byte (bit 0: little endian,
//! bit 1: sentinel required), then the list. What parses is re-encoded and must read back equal.
#![no_main]

use hdds_core::cdr::Endian;
use hdds_core::wire::vendor::VENDOR_ID_FASTDDS;
use hdds_core::wire::{ParameterList, ParameterListWriter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, list)) = data.split_first() else { return };
    let endian = if flags & 1 != 0 { Endian::Little } else { Endian::Big };
    let parsed = if flags & 2 != 0 {
        ParameterList::parse(list, endian, VENDOR_ID_FASTDDS).map(|(l, _)| l)
    } else {
        ParameterList::parse_to_end(list, endian, VENDOR_ID_FASTDDS)
    };
    let Ok(l) = parsed else { return };
    let mut out = Vec::new();
    let mut w = ParameterListWriter::new(&mut out, endian);
    for p in l.iter() {
        let _ = (p.as_u32(), p.as_i32(), p.as_bool(), p.as_str(), p.as_guid(), p.as_locator());
        let _ = (p.as_duration(), p.as_bytes_sequence(), p.as_sample_identity(), p.as_vendor_id());
        w.put(p.pid, p.value).expect("a parsed value fits");
    }
    w.finish();
    let (again, used) = ParameterList::parse(&out, endian, VENDOR_ID_FASTDDS).expect("re-encoded list parses");
    assert_eq!(used, out.len());
    assert!(again.iter().eq(l.iter()));
});
