//! Property tests of parameter lists: what ParameterListWriter writes, ParameterList reads back
//! (ids, values, typed helpers) in both byte orders, PID_PAD is skipped, and vendor-specific ids
//! are only handed out for the sender's vendor. Also sequence-number sets and locators.

use hdds_core::cdr::{CdrReader, CdrWriter, Endian};
use hdds_core::wire::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum P {
    U32(u16, u32),
    Str(u16, String),
    Guid(u16, [u8; 16]),
    Loc(u16, i32, u32, [u8; 16]),
    Dur(u16, i32, u32),
    Bytes(u16, Vec<u8>),
    Bool(u16, bool),
    Pad(usize),
}

fn pid() -> impl Strategy<Value = u16> {
    // Any id but PAD and SENTINEL, which have their own meaning.
    prop_oneof![2u16..0x100, 0x8000u16..0x8020, 0x4000u16..0x4020]
}

fn param() -> impl Strategy<Value = P> {
    prop_oneof![
        (pid(), any::<u32>()).prop_map(|(p, v)| P::U32(p, v)),
        (pid(), "[a-zA-Z0-9_:/]{0,40}").prop_map(|(p, s)| P::Str(p, s)),
        (pid(), any::<[u8; 16]>()).prop_map(|(p, g)| P::Guid(p, g)),
        (pid(), any::<i32>(), any::<u32>(), any::<[u8; 16]>()).prop_map(|(p, k, port, a)| P::Loc(p, k, port, a)),
        (pid(), any::<i32>(), any::<u32>()).prop_map(|(p, s, f)| P::Dur(p, s, f)),
        (pid(), prop::collection::vec(any::<u8>(), 0..30)).prop_map(|(p, b)| P::Bytes(p, b)),
        (pid(), any::<bool>()).prop_map(|(p, b)| P::Bool(p, b)),
        (0usize..3).prop_map(P::Pad),
    ]
}

fn encode(params: &[P], endian: Endian) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = ParameterListWriter::payload(&mut out, endian);
    for p in params {
        match p {
            P::U32(id, v) => w.put_u32(*id, *v),
            P::Str(id, s) => w.put_str(*id, s),
            P::Guid(id, g) => w.put_guid(*id, &Guid::from_bytes(g)),
            P::Loc(id, kind, port, address) => {
                w.put_locator(*id, &Locator { kind: *kind, port: *port, address: *address })
            }
            P::Dur(id, s, f) => w.put_duration(*id, Duration { seconds: *s, fraction: *f }),
            P::Bytes(id, b) => w.put_bytes_sequence(*id, b),
            P::Bool(id, b) => w.put_bool(*id, *b),
            P::Pad(n) => w.put(pid::PID_PAD, &vec![0; n * 4]),
        }
        .unwrap();
    }
    w.finish();
    out
}

fn check(p: &P, got: &Parameter<'_>) -> Result<(), TestCaseError> {
    match p {
        P::U32(id, v) => {
            prop_assert_eq!(got.pid, *id);
            prop_assert_eq!(got.as_u32().unwrap(), *v);
        }
        P::Str(id, s) => {
            prop_assert_eq!(got.pid, *id);
            prop_assert_eq!(got.as_str().unwrap(), s.as_str());
        }
        P::Guid(id, g) => {
            prop_assert_eq!(got.pid, *id);
            prop_assert_eq!(got.as_guid().unwrap().to_bytes(), *g);
        }
        P::Loc(id, kind, port, address) => {
            prop_assert_eq!(got.pid, *id);
            prop_assert_eq!(got.as_locator().unwrap(), Locator { kind: *kind, port: *port, address: *address });
        }
        P::Dur(id, s, f) => {
            prop_assert_eq!(got.pid, *id);
            prop_assert_eq!(got.as_duration().unwrap(), Duration { seconds: *s, fraction: *f });
        }
        P::Bytes(id, b) => {
            prop_assert_eq!(got.pid, *id);
            prop_assert_eq!(got.as_bytes_sequence().unwrap(), &b[..]);
        }
        P::Bool(id, b) => {
            prop_assert_eq!(got.pid, *id);
            prop_assert_eq!(got.as_bool().unwrap(), *b);
        }
        P::Pad(_) => unreachable!(),
    }
    prop_assert_eq!(got.value.len() % 4, 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parameter_lists_round_trip(params in prop::collection::vec(param(), 0..16), little in any::<bool>()) {
        let endian = if little { Endian::Little } else { Endian::Big };
        let bytes = encode(&params, endian);
        let list = ParameterList::parse_payload(&bytes, vendor::VENDOR_ID_FASTDDS).unwrap();
        let expected: Vec<&P> = params.iter().filter(|p| !matches!(p, P::Pad(_))).collect();
        let got: Vec<Parameter<'_>> = list.iter().collect();
        prop_assert_eq!(got.len(), expected.len());
        for (p, g) in expected.iter().zip(&got) {
            check(p, g)?;
            prop_assert_eq!(g.vendor, vendor::VENDOR_ID_FASTDDS);
        }
        // find() never returns vendor-specific ids; vendor_param() only for the sender's vendor.
        for g in &got {
            if g.is_vendor_specific() {
                prop_assert!(list.find(g.pid).is_none());
                prop_assert!(list.vendor_param(vendor::VENDOR_ID_FASTDDS, g.pid).is_some());
                prop_assert!(list.vendor_param(vendor::VENDOR_ID_CYCLONE, g.pid).is_none());
            } else {
                prop_assert_eq!(list.find(g.pid).unwrap().pid, g.pid);
            }
        }
        // As inline QoS (no encapsulation): the sentinel's end is reported exactly.
        let (inline, used) = ParameterList::parse(&bytes[4..], endian, vendor::VENDOR_ID_FASTDDS).unwrap();
        prop_assert_eq!(used, bytes.len() - 4);
        prop_assert_eq!(inline.iter().count(), expected.len());
    }

    #[test]
    fn sequence_number_sets_round_trip(base in 1i64..i64::MAX / 2, members in prop::collection::vec(0i64..256, 0..40),
                                       little in any::<bool>()) {
        let endian = if little { Endian::Little } else { Endian::Big };
        let mut set = SequenceNumberSet::new(SequenceNumber(base));
        for m in &members {
            prop_assert!(set.insert(SequenceNumber(base + m)));
        }
        let mut w = CdrWriter::new(Vec::new(), endian);
        set.write(&mut w).unwrap();
        let bytes = w.into_inner();
        prop_assert_eq!(bytes.len(), 12 + 4 * set.num_bits().div_ceil(32) as usize);
        let back = SequenceNumberSet::read(&mut CdrReader::new(&bytes, endian)).unwrap();
        prop_assert_eq!(back, set);
        let mut want: Vec<i64> = members.iter().map(|m| base + m).collect();
        want.sort();
        want.dedup();
        prop_assert_eq!(back.iter().map(|s| s.0).collect::<Vec<_>>(), want);
    }

    #[test]
    fn time_conversions_are_within_a_nanosecond(ns in -2_000_000_000_000_000_000i64..2_000_000_000_000_000_000) {
        let t = Time::from_nanos(ns);
        if let Some(back) = t.to_nanos() {
            prop_assert!((back - ns).abs() <= 1, "{} -> {:?} -> {}", ns, t, back);
        }
    }
}
