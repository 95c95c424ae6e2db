//! Every RTPS datagram of every reference capture in shared/captures parses without error and
//! re-encodes to the same bytes; discovery payloads parse as parameter lists; fragmented samples
//! add up. Skipped (with a message) when shared/ is not beside the repository.

#[path = "wire_support.rs"]
mod support;

use std::collections::{BTreeMap, HashMap};

use hdds_core::cdr::Encapsulation;
use hdds_core::wire::pid;
use hdds_core::wire::submessage::id;
use hdds_core::wire::*;

#[derive(Default)]
struct Fragments {
    sample_size: u32,
    seen: Vec<bool>,
    bytes: u64,
}

#[test]
fn every_captured_datagram_parses_and_re_encodes() {
    let Some(dir) = support::captures_dir() else { return };
    let mut pcaps: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pcap"))
        .collect();
    pcaps.sort();
    assert!(!pcaps.is_empty(), "no pcap in {}", dir.display());

    let mut kinds: BTreeMap<u8, usize> = BTreeMap::new();
    let (mut datagrams, mut plists, mut locators, mut representations) = (0usize, 0usize, 0usize, 0usize);
    let mut frags: HashMap<(GuidPrefix, EntityId, i64), Fragments> = HashMap::new();

    for path in &pcaps {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file = std::fs::read(path).unwrap();
        let (linktype, frames) = support::pcap_frames(&file);
        for frame in frames {
            let Some(udp) = support::udp_payload(linktype, frame.bytes) else { continue };
            if !udp.starts_with(b"RTPS") {
                continue;
            }
            datagrams += 1;
            let at = format!("{name} frame {}", frame.number);
            let m = Message::parse(udp).unwrap_or_else(|e| panic!("{at}: {e}"));
            let mut builder = MessageBuilder::new(&m.header);
            for r in m.receive() {
                let r = r.unwrap_or_else(|e| panic!("{at}: {e}"));
                *kinds.entry(r.submessage.id()).or_default() += 1;
                builder.set_endian(r.header.endian()).add(&r.submessage).unwrap();
                match r.submessage {
                    Submessage::Data(d) => {
                        let Some(payload) = d.payload else { continue };
                        let Ok((enc, _)) = Encapsulation::parse(payload) else { continue };
                        if !enc.kind.is_parameter_list() {
                            continue;
                        }
                        let l = ParameterList::parse_payload(payload, r.state.source_vendor_id)
                            .unwrap_or_else(|e| panic!("{at}: discovery data: {e}"));
                        plists += 1;
                        for p in l.iter() {
                            match p.pid {
                                pid::PID_TOPIC_NAME | pid::PID_TYPE_NAME => {
                                    p.as_str().unwrap_or_else(|e| panic!("{at}: {e}"));
                                }
                                pid::PID_PARTICIPANT_GUID | pid::PID_ENDPOINT_GUID => {
                                    p.as_guid().unwrap();
                                }
                                pid::PID_UNICAST_LOCATOR
                                | pid::PID_MULTICAST_LOCATOR
                                | pid::PID_DEFAULT_UNICAST_LOCATOR
                                | pid::PID_DEFAULT_MULTICAST_LOCATOR
                                | pid::PID_METATRAFFIC_UNICAST_LOCATOR
                                | pid::PID_METATRAFFIC_MULTICAST_LOCATOR => {
                                    let loc = p.as_locator().unwrap();
                                    // Fast DDS also announces shared memory (kind 16): kept, unusable.
                                    assert_eq!(loc.socket_addr().is_some(), loc.is_udp(), "{at}");
                                    locators += 1;
                                }
                                pid::PID_PARTICIPANT_LEASE_DURATION => {
                                    assert!(p.as_duration().unwrap().to_nanos().unwrap() > 0, "{at}");
                                }
                                pid::PID_USER_DATA => {
                                    p.as_bytes_sequence().unwrap();
                                }
                                pid::PID_DATA_REPRESENTATION => {
                                    // Cyclone's ddsperf offers [XCDR, XCDR2].
                                    let reps = p.as_data_representation().unwrap();
                                    assert!(reps.contains(&pid::XCDR_DATA_REPRESENTATION), "{at}: {reps:?}");
                                    representations += 1;
                                }
                                _ => {}
                            }
                        }
                    }
                    Submessage::DataFrag(f) => {
                        let e = frags.entry((r.state.source_guid_prefix, f.writer_id, f.writer_sn.0)).or_default();
                        e.sample_size = f.sample_size;
                        e.seen.resize(f.total_fragments() as usize, false);
                        for i in 0..f.fragments_in_submessage as usize {
                            let n = f.fragment_starting_num as usize - 1 + i;
                            if n < e.seen.len() && !e.seen[n] {
                                e.seen[n] = true;
                                let len = (f.sample_size as u64 - n as u64 * f.fragment_size as u64)
                                    .min(f.fragment_size as u64);
                                e.bytes += len;
                            }
                        }
                        assert!(f.fragment_bytes().len() as u64 <= f.sample_size as u64, "{at}");
                    }
                    _ => {}
                }
            }
            assert_eq!(builder.finish(), udp, "{at}: re-encoding differs");
        }
    }

    let complete: Vec<_> = frags.values().filter(|f| f.seen.iter().all(|s| *s)).collect();
    assert!(complete.iter().all(|f| f.bytes == f.sample_size as u64));
    println!(
        "{datagrams} datagrams from {} captures; {plists} discovery parameter lists, {locators} locators; \
         {} fragmented samples ({} complete); submessages by id: {kinds:x?}",
        pcaps.len(),
        frags.len(),
        complete.len()
    );
    assert!(datagrams > 1500, "expected the whole capture set, got {datagrams} datagrams");
    for k in [id::DATA, id::DATA_FRAG, id::HEARTBEAT, id::ACKNACK, id::GAP, id::INFO_TS, id::INFO_DST] {
        assert!(kinds.contains_key(&k), "no submessage {k:#x} in the captures");
    }
    assert!(!complete.is_empty(), "no complete fragmented sample");
    assert!(representations > 0, "no PID_DATA_REPRESENTATION seen");
}

#[test]
fn pcap_reader_finds_the_first_spdp_frame() {
    let Some(dir) = support::captures_dir() else { return };
    let data = std::fs::read(dir.join("ros_cyclone_talker_listener.pcap")).unwrap();
    let (lt, frames) = support::pcap_frames(&data);
    let udp = support::udp_payload(lt, frames[0].bytes).unwrap();
    assert_eq!(udp, &support::vector("cyclone_spdp_data_p")[..]);
}
