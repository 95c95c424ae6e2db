//! Robustness: truncated, bit-flipped and randomly mutated versions of every golden vector (about
//! 200k inputs from a seeded PRNG, so a failure reproduces) go through the message parser, the
//! parameter-list parser and the CDR reader. None may panic, none may allocate much more than the
//! input's size, and whatever parses must re-encode to something that parses back the same.

#[path = "wire_support.rs"]
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use hdds_core::cdr::{CdrReader, Endian, XcdrVersion};
use hdds_core::wire::*;

/// Records the largest single allocation made by this thread while armed, so the test can check
/// that input lengths never drive allocation sizes.
struct Tracking;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call unchanged to the system allocator; the bookkeeping only touches
// const-initialised thread-locals (no allocation, no destructor) and ignores a torn-down thread.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ARMED.try_with(|a| {
            if a.get() {
                let _ = LARGEST.try_with(|m| m.set(m.get().max(layout.size())));
            }
        });
        // SAFETY: same contract as ours, passed through.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

const INTERESTING: [u8; 9] = [0x00, 0x01, 0x03, 0x04, 0x7f, 0x80, 0xfe, 0xff, 0x10];

fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        if v.is_empty() {
            v.push(rng.next() as u8);
            continue;
        }
        let i = rng.below(v.len());
        match rng.below(8) {
            0 => v[i] ^= 1 << rng.below(8),
            1 => v[i] = rng.next() as u8,
            2 => v[i] = INTERESTING[rng.below(INTERESTING.len())],
            3 => v.truncate(i),
            4 => {
                // a 16-bit length field (submessage or parameter) set to something odd
                let x = [0u16, 1, 2, 3, 4, 0x7fff, 0xffff, rng.next() as u16][rng.below(8)];
                if i + 2 <= v.len() {
                    v[i..i + 2].copy_from_slice(&x.to_le_bytes());
                }
            }
            5 => {
                // a 32-bit count (sequence length, numBits, string length)
                let x = [0u32, 1, 255, 256, 257, 0x7fff_ffff, u32::MAX, rng.next() as u32][rng.below(8)];
                if i + 4 <= v.len() {
                    v[i..i + 4].copy_from_slice(&x.to_le_bytes());
                }
            }
            6 => {
                let n = 1 + rng.below(8);
                v.drain(i..(i + n).min(v.len()));
            }
            _ => {
                let b = rng.next() as u8;
                v.insert(i, b);
            }
        }
    }
    v
}

/// Exercises everything a receiver would do with a datagram.
fn exercise_message(input: &[u8]) {
    let Ok(m) = Message::parse(input) else { return };
    let mut rebuilt = MessageBuilder::new(&m.header);
    let mut parsed = Vec::new();
    for r in m.receive() {
        let Ok(r) = r else { break };
        let sub = r.submessage;
        match sub {
            Submessage::Data(d) => {
                if let Some(q) = d.inline_qos {
                    exercise_parameters(q);
                }
                if let Some(p) = d.payload {
                    exercise_payload(p, r.state.source_vendor_id);
                }
            }
            Submessage::DataFrag(f) => {
                let _ = f.fragment_bytes();
                let _ = f.total_fragments();
                if let Some(q) = f.inline_qos {
                    exercise_parameters(q);
                }
            }
            Submessage::AckNack(a) => assert!(a.reader_sn_state.iter().count() <= 256),
            Submessage::Gap(g) => {
                let _ = g.irrelevant().take(300).count();
            }
            Submessage::InfoReply(i) => {
                let _ = i.unicast.iter().count();
            }
            _ => {}
        }
        if rebuilt.set_endian(r.header.endian()).add(&sub).is_ok() {
            parsed.push(sub);
        } else {
            break;
        }
    }
    // What parsed re-encodes to a message that parses back to the same submessages.
    let bytes = rebuilt.finish();
    let (_, again) = Message::parse_all(&bytes).expect("re-encoded message must parse");
    assert_eq!(again, parsed);
}

fn exercise_parameters(l: ParameterList<'_>) {
    for p in l.iter() {
        let _ = (p.as_u32(), p.as_bool(), p.as_str(), p.as_guid(), p.as_locator(), p.as_duration());
        let _ = (p.as_bytes_sequence(), p.as_sample_identity(), p.as_protocol_version(), p.as_vendor_id());
        if let Ok(d) = p.as_duration() {
            let _ = d.to_nanos();
        }
    }
}

fn exercise_payload(payload: &[u8], vendor: VendorId) {
    if let Ok(l) = ParameterList::parse_payload(payload, vendor) {
        exercise_parameters(l);
    }
    exercise_cdr(payload);
}

/// Reads a payload as a mix of CDR values; the op sequence comes from the bytes themselves.
fn exercise_cdr(payload: &[u8]) {
    let readers = match CdrReader::for_payload(payload) {
        Ok((_, r)) => vec![r],
        Err(_) => vec![
            CdrReader::new(payload, Endian::Little),
            CdrReader::with_version(payload, Endian::Big, XcdrVersion::Xcdr2),
        ],
    };
    for mut r in readers {
        for (i, op) in payload.iter().take(24).enumerate() {
            let _ = match (op.wrapping_add(i as u8)) % 11 {
                0 => r.read_u8().map(drop),
                1 => r.read_u16().map(drop),
                2 => r.read_u32().map(drop),
                3 => r.read_u64().map(drop),
                4 => r.read_str().map(drop),
                5 => r.read_sequence::<u32>().map(drop),
                6 => r.read_sequence::<f64>().map(drop),
                7 => r.read_bool().map(drop),
                8 => r.read_byte_sequence().map(drop),
                9 => r.read_dheader().map(drop),
                _ => r.align(8),
            };
        }
    }
}

fn exercise(input: &[u8]) {
    ARMED.with(|a| a.set(true));
    exercise_message(input);
    // The payload-level parsers on their own, from the start of each would-be body.
    for off in [20usize, 24, 44, 48] {
        if let Some(rest) = input.get(off..) {
            for endian in [Endian::Little, Endian::Big] {
                if let Ok((l, _)) = ParameterList::parse(rest, endian, [1, 15]) {
                    exercise_parameters(l);
                }
            }
            exercise_cdr(rest);
        }
    }
    ARMED.with(|a| a.set(false));
    let largest = LARGEST.with(|m| m.replace(0));
    // parse_all's Vec holds at most one Submessage per 4 input bytes; nothing else grows with input.
    let bound = 4096 + input.len() / 4 * std::mem::size_of::<Submessage<'_>>() * 2;
    assert!(largest <= bound, "allocation of {largest} bytes for a {}-byte input", input.len());
}

#[test]
fn mutated_golden_vectors_never_panic() {
    let vectors = support::all_vectors();
    let mut rng = Rng(0x4844_4453_5749_5245); // "HDDSWIRE"
    let mut count = 0usize;
    for (_, v) in &vectors {
        // Every truncation (for the large fragment vector, a sample of them).
        let step = (v.len() / 400).max(1);
        for n in (0..=v.len()).step_by(step) {
            exercise(&v[..n]);
            count += 1;
        }
        // Every single bit flip in the first 256 bytes (headers, ids, lengths, parameter ids).
        for i in 0..v.len().min(256) {
            for bit in 0..8 {
                let mut m = v.clone();
                m[i] ^= 1 << bit;
                exercise(&m);
                count += 1;
            }
        }
    }
    // Random mutations to reach ~200k inputs; the big vector gets fewer (it costs the most).
    let per_vector = (200_000usize.saturating_sub(count)) / vectors.len();
    for (_, v) in &vectors {
        let n = if v.len() > 4096 { per_vector / 20 } else { per_vector };
        for _ in 0..n {
            exercise(&mutate(&mut rng, v));
            count += 1;
        }
    }
    // And noise behind a valid header.
    for _ in 0..5_000 {
        let mut m = b"RTPS\x02\x03\x01\x0f".to_vec();
        let n = rng.below(200);
        m.extend((0..12 + n).map(|_| rng.next() as u8));
        exercise(&m);
        count += 1;
    }
    println!("{count} inputs exercised");
    assert!(count >= 150_000, "{count}");
}
