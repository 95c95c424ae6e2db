//! Helpers shared by the wire tests (included with `#[path]`): golden vectors from tests/data/rtps
//! and a minimal pcap reader for the reference captures. Built on its own too, with no tests;
//! the helpers are tested from wire_golden.rs and wire_captures.rs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The golden vectors' directory.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rtps")
}

/// Loads `tests/data/rtps/<name>.hex`: hex digits, whitespace ignored, '#' lines are comments.
pub fn vector(name: &str) -> Vec<u8> {
    let path = data_dir().join(format!("{name}.hex"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_hex(&text)
}

pub fn parse_hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.bytes())
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    assert!(digits.len() % 2 == 0, "odd number of hex digits");
    digits.chunks(2).map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).expect("hex digit")).collect()
}

/// Every golden vector: (name, bytes).
pub fn all_vectors() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(data_dir())
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "hex").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .map(|n| {
            let b = vector(&n);
            (n, b)
        })
        .collect();
    v.sort();
    v
}

/// The reference captures' directory, `../shared/captures` beside the repository root (the
/// crate's parent); `None` (and a message) when it is not there, as in a lone clone.
pub fn captures_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/captures");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: no captures at {} (shared/ is expected beside the repository)", dir.display());
        None
    }
}

/// A frame's number (from 1, as tshark counts) and its link-layer bytes.
pub struct Frame<'a> {
    pub number: usize,
    pub bytes: &'a [u8],
}

/// Reads a classic pcap file (either byte order, micro- or nanosecond): returns the link type and
/// the frames. Panics on a malformed file: the captures are our own reference data.
pub fn pcap_frames(data: &[u8]) -> (u32, Vec<Frame<'_>>) {
    assert!(data.len() >= 24, "pcap shorter than its global header");
    let le = match data[..4] {
        [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => true,
        [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => false,
        _ => panic!("not a classic pcap file (pcapng is not supported)"),
    };
    let u32_at = |off: usize| {
        let b = [data[off], data[off + 1], data[off + 2], data[off + 3]];
        if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    let linktype = u32_at(20);
    let mut frames = Vec::new();
    let mut pos = 24;
    while pos + 16 <= data.len() {
        let incl = u32_at(pos + 8) as usize;
        let start = pos + 16;
        assert!(start + incl <= data.len(), "truncated pcap record");
        frames.push(Frame { number: frames.len() + 1, bytes: &data[start..start + incl] });
        pos = start + incl;
    }
    (linktype, frames)
}

/// The UDP payload of an Ethernet (link type 1) or Linux cooked (113) IPv4 frame; `None` for
/// anything else (ARP, IPv6, TCP, IP fragments after the first).
pub fn udp_payload(linktype: u32, frame: &[u8]) -> Option<&[u8]> {
    let (ip, ethertype) = match linktype {
        1 => (14, u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?])),
        113 => (16, u16::from_be_bytes([*frame.get(14)?, *frame.get(15)?])),
        0 => (4, 0x0800), // BSD loopback (the family word is assumed IPv4)
        _ => return None,
    };
    if ethertype != 0x0800 {
        return None;
    }
    let ihl = ((*frame.get(ip)? & 0x0f) as usize) * 4;
    let frag = u16::from_be_bytes([*frame.get(ip + 6)?, *frame.get(ip + 7)?]);
    if *frame.get(ip + 9)? != 17 || frag & 0x1fff != 0 || frag & 0x2000 != 0 {
        return None; // not UDP, or an IP fragment (the captures have none: loopback MTU is 64 KiB)
    }
    let udp = ip + ihl;
    let len = u16::from_be_bytes([*frame.get(udp + 4)?, *frame.get(udp + 5)?]) as usize;
    frame.get(udp + 8..udp + len)
}
