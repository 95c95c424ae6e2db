//! Robustness: truncated and mutated golden vectors never panic the discovery decoders, and
//! whatever they accept re-encodes and decodes back to the same value. Bounded loops and a seeded
//! PRNG: the same inputs on every run.

#[path = "discovery_rtps_walk.rs"]
mod rtps_walk;

use hdds_core::discovery::inline_qos::decode_key;
use hdds_core::discovery::{
    decode_change, Csid, DiscoveredReaderData, DiscoveredWriterData, InlineQos, SerializedPayload, SpdpParticipantData,
    UserData,
};
use hdds_core::wire::{Header, ParameterList};
use rtps_walk::{all_golden, golden, walk, Rng};

/// Every payload (data or key) of every golden vector, with its header.
fn payloads() -> Vec<(String, Header, Vec<u8>)> {
    let mut v = Vec::new();
    for name in all_golden() {
        let g = golden(&name);
        let d = walk(&g).unwrap();
        for x in &d.data {
            if let Some(b) = x.bytes() {
                v.push((name.clone(), d.header, b.to_vec()));
            }
        }
    }
    v
}

/// Runs every decoder on `p`; for what decodes, checks encode -> decode gives it back. Returns how
/// many of the three data decoders accepted it.
fn exercise(p: &[u8], h: &Header) -> usize {
    let mut accepted = 0;
    if let Ok(d) = SpdpParticipantData::decode(p, h) {
        accepted += 1;
        let bytes = d.encode().expect("decoded SPDP data re-encodes");
        let back = SpdpParticipantData::decode(&bytes, h).expect("our encoding decodes");
        assert_eq!(back, SpdpParticipantData { ignored_pids: vec![], ..d });
    }
    if let Ok(mut w) = DiscoveredWriterData::decode(p, h) {
        accepted += 1;
        let bytes = w.encode().expect("decoded writer data re-encodes");
        let back = DiscoveredWriterData::decode(&bytes, h).expect("our encoding decodes");
        w.ignored_pids.clear();
        w.qos.disable_positive_acks = false; // vendor-specific: never encoded
        assert_eq!(back, w);
    }
    if let Ok(mut r) = DiscoveredReaderData::decode(p, h) {
        accepted += 1;
        let bytes = r.encode().expect("decoded reader data re-encodes");
        let back = DiscoveredReaderData::decode(&bytes, h).expect("our encoding decodes");
        r.ignored_pids.clear();
        r.qos.disable_positive_acks = false;
        assert_eq!(back, r);
    }
    let _ = decode_key(p, h.vendor_id);
    for payload in [SerializedPayload::Data(p), SerializedPayload::Key(p)] {
        let _ = decode_change::<SpdpParticipantData>(None, payload, h);
        let _ = decode_change::<DiscoveredWriterData>(None, payload, h);
    }
    let _ = UserData::parse(p);
    accepted
}

#[test]
fn every_truncation_of_every_payload() {
    let ps = payloads();
    assert!(ps.len() > 60, "{}", ps.len());
    for (_, h, p) in &ps {
        for n in 0..p.len() {
            let _ = exercise(&p[..n], h);
        }
    }
}

#[test]
fn mutated_payloads() {
    let mut rng = Rng(0x5eed_d15c_0000_0001);
    let ps = payloads();
    let (mut tried, mut accepted) = (0, 0);
    for (name, h, p) in &ps {
        for round in 0..150 {
            let mut m = p.clone();
            match round % 5 {
                // Flip a few bytes anywhere (parameter ids and lengths included).
                0 | 1 => {
                    for _ in 0..1 + rng.below(4) {
                        let i = rng.below(m.len());
                        m[i] = rng.next_u64() as u8;
                    }
                }
                // Set a parameter length field (or what happens to be at that place) to something odd.
                2 => {
                    let i = 4 + 2 * rng.below((m.len().saturating_sub(6)) / 2);
                    let v = [0u16, 1, 3, 4, 0xfffc, 0xffff, rng.next_u64() as u16][rng.below(7)];
                    if i + 2 <= m.len() {
                        m[i..i + 2].copy_from_slice(&v.to_le_bytes());
                    }
                }
                // Delete or duplicate a span.
                3 => {
                    let a = rng.below(m.len());
                    let b = (a + 1 + rng.below(32)).min(m.len());
                    m.drain(a..b);
                }
                _ => {
                    let a = rng.below(m.len());
                    let b = (a + 1 + rng.below(32)).min(m.len());
                    let span: Vec<u8> = m[a..b].to_vec();
                    m.splice(a..a, span);
                }
            }
            // Either byte order, as the encapsulation says.
            if rng.below(4) == 0 && m.len() > 1 {
                m[1] ^= 1;
            }
            let r = std::panic::catch_unwind(|| exercise(&m, h));
            assert!(r.is_ok(), "{name}, round {round}: input {m:02x?}");
            tried += 1;
            accepted += usize::from(r.unwrap() > 0);
        }
    }
    // Many mutants still decode, so the round-trip check above really runs on odd data.
    assert!(accepted > tried / 10, "{accepted} of {tried} mutants decoded");
    eprintln!("{accepted} of {tried} mutated payloads decoded and round-tripped");
}

#[test]
fn mutated_datagrams_and_inline_qos() {
    let mut rng = Rng(42);
    for name in all_golden() {
        let g = golden(&name);
        for _ in 0..200 {
            let mut m = g.clone();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(m.len());
                m[i] = rng.next_u64() as u8;
            }
            let Ok(d) = walk(&m) else { continue };
            for x in &d.data {
                if let Some(l) = &x.inline_qos {
                    let _ = InlineQos::parse(l);
                }
                let _ = decode_change::<SpdpParticipantData>(x.inline_qos.as_ref(), x.payload, &d.header);
                let _ = decode_change::<DiscoveredWriterData>(x.inline_qos.as_ref(), x.payload, &d.header);
                let _ = decode_change::<DiscoveredReaderData>(x.inline_qos.as_ref(), x.payload, &d.header);
            }
        }
        // Every truncation of the datagram.
        for n in 0..g.len() {
            if let Ok(d) = walk(&g[..n]) {
                for x in &d.data {
                    let _ = decode_change::<DiscoveredReaderData>(x.inline_qos.as_ref(), x.payload, &d.header);
                }
            }
        }
    }
}

#[test]
fn walk_rejects_without_panicking() {
    let g = golden("cyclone_spdp_talker.rtps");
    assert!(walk(&g[..10]).is_err());
    assert!(walk(&g[..g.len() - 1]).is_err());
    let mut rng = Rng(1);
    for _ in 0..2000 {
        let mut m = g.clone();
        let i = 20 + rng.below(m.len() - 20);
        m[i] = rng.next_u64() as u8;
        let _ = walk(&m);
    }
}

#[test]
fn random_bytes_and_strings() {
    let mut rng = Rng(7);
    let h = Header::ours(hdds_core::wire::GuidPrefix([0; 12]));
    for len in 0..200 {
        let mut b: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let _ = exercise(&b, &h);
        if b.len() >= 4 {
            b[..4].copy_from_slice(&[0, 3, 0, 0]);
            let _ = exercise(&b, &h);
            let _ = ParameterList::parse_payload(&b, [0, 0]).map(|l| InlineQos::parse(&l));
        }
        let s = String::from_utf8_lossy(&b);
        let _ = s.parse::<Csid>();
    }
}

#[test]
fn oversized_values_are_encode_errors_not_panics() {
    use hdds_core::wire::{EntityId, EntityKind, Guid, GuidPrefix};
    let g = Guid::new(GuidPrefix([1; 12]), EntityId::user(1, EntityKind::UserWriterNoKey));
    let long = "x".repeat(70_000);
    assert!(DiscoveredWriterData::new(g, &long, "T", &Default::default()).encode().is_err());
    let mut w = DiscoveredWriterData::new(g, "T", "T", &Default::default());
    w.qos.user_data = vec![0; 70_000];
    assert!(w.encode().is_err());
    let mut d = SpdpParticipantData::new(GuidPrefix([1; 12]), 0);
    d.entity_name = Some(long);
    assert!(d.encode().is_err());
}
