//! Whole datagrams through the RTPS message parser, as the receive thread would see them.
//! Beyond "no panic": whatever parses must re-encode to a message that parses back the same.
#![no_main]

use hdds_core::wire::{Message, MessageBuilder, ParameterList, Submessage};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = Message::parse(data) else { return };
    let mut rebuilt = MessageBuilder::new(&m.header);
    let mut parsed = Vec::new();
    for r in m.receive() {
        let Ok(r) = r else { break };
        if let Submessage::Data(d) = &r.submessage {
            for p in d.inline_qos.iter().flat_map(|q| q.iter()) {
                let _ = (p.as_u32(), p.as_str(), p.as_guid(), p.as_sample_identity());
            }
            if let Some(payload) = d.payload {
                if let Ok(l) = ParameterList::parse_payload(payload, r.state.source_vendor_id) {
                    for p in l.iter() {
                        let _ = (p.as_locator(), p.as_duration(), p.as_bytes_sequence(), p.as_bool());
                    }
                }
            }
        }
        if let Submessage::DataFrag(f) = &r.submessage {
            let _ = (f.fragment_bytes(), f.total_fragments(), f.sample_offset());
        }
        if rebuilt.set_endian(r.header.endian()).add(&r.submessage).is_err() {
            break;
        }
        parsed.push(r.submessage);
    }
    let bytes = rebuilt.finish();
    let (_, again) = Message::parse_all(&bytes).expect("a re-encoded message parses");
    assert_eq!(again, parsed);
});
