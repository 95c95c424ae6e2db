//! The interop peers' shared rules, for hdds's own peer (`hdds-interop-peer`): the command line,
//! the two types and their XCDR1 encoding, the deterministic payload, and the subscriber's
//! bookkeeping. They mirror `test/interop/common/peer_common.c` (the Cyclone and Fast DDS peers)
//! and `test/interop/python/peer.py`, line for line where it matters; `--help` is the same text.

use std::time::Duration;

use crate::args::{duration_of, period_of_rate};
use hdds_core::cdr::key_hash::{key_hash, key_writer};
use hdds_core::KeyHash;

/// Wire type names of `test/interop/idl/interop.idl`.
pub const BLOB_TYPE: &str = "hdds::interop::Blob";
pub const KEYED_TYPE: &str = "hdds::interop::KeyedBlob";

pub const USAGE: &str = "\
usage: hdds-interop-peer pub|sub --topic NAME --type blob|keyed --size BYTES --count N [options]

Interop peer for hdds (hdds engine). Types from test/interop/idl/interop.idl:
  blob  = hdds::interop::Blob      { unsigned long seq; sequence<octet> data; }
  keyed = hdds::interop::KeyedBlob { @key unsigned long id; unsigned long seq; sequence<octet> data; }
Samples are seq = 1..N; keyed: id = (seq-1) % K; data[i] = (seq*131 + i*7 + id) & 0xff,
length = --size, so a receiver verifies every byte without the sender.

QoS (same flags for pub and sub):
  --reliable | --best-effort          default --reliable
  --volatile | --transient-local      default --volatile
  --keep-all | --depth N              default --keep-all (--depth N = KEEP_LAST N)
  --keys K                            keyed: cycle id over 0..K-1 (default 1)
Run:
  --domain ID          DDS domain (default 100; keep >= 100 to stay off real ROS graphs)
  --timeout SECONDS    hard bound on the whole run, linger included (default 30)
  --config FILE        accepted for the common command line; hdds needs none (always
                       localhost-only: loopback interface, unicast discovery to 127.0.0.1)
Publisher:
  --wait-matched N     wait (bounded by --timeout) until N readers matched before writing
  --start-file PATH    then wait (bounded by --timeout) until PATH exists: a subscriber's
                       --ready-file, so that sample 1 goes out after the reader knows the writer
  --settle SECONDS     pause after that match so the readers also matched the writer
                       (default 0.5 when --wait-matched > 0, else 0)
  --rate HZ            write at most HZ samples/s (default: as fast as the writer accepts)
  --linger SECONDS     keep the writer alive after writing (transient-local late joiners;
                       default 0); SIGINT/SIGTERM ends the linger early
  prints 'WRITTEN written=<n>' when done writing, then 'SUMMARY written=<n> matched=<n>'
  (matched = most readers matched at any time); exit 0 when all N were written, the
  --wait-matched count was reached and, if reliable, every matched reader acknowledged.
Subscriber:
  prints 'RECV seq=<n> id=<k> len=<l> ok=<0|1>' per sample (ok = content verified, and on keyed
  topics the key hash the writer sent matches the id), or with --quiet only 'SUMMARY
  received=<n> verified=<n> in_order=<0|1> duplicates=<n> first_seq=<n> last_seq=<n>' (the
  summary is printed in both modes).
  --ready-file PATH    create PATH once --wait-matched writers (default 1) matched the reader
  --linger SECONDS     keep the reader alive this long after the last sample so that its
                       final acknowledgements reach the writer (default 0.5)
  Success rule (exit 0):
    strict (reader --reliable and --keep-all): exactly N distinct seqs 1..N received before
      --timeout, every one verified, in order per key, no duplicates.
    lenient (reader --best-effort or --depth N): at least --min-count (default 1) distinct
      samples, every one verified, in order per key, no duplicates; the reader stops at N
      distinct samples, after --idle SECONDS (default 2) without data once one arrived, or at
      --timeout.
  SIGINT/SIGTERM stop the subscriber early (summary printed, success rule applied).
  exit 1 otherwise; exit 2 on bad usage or a DDS error.";

/// The parsed command line (the defaults of peer_common.c).
#[derive(Debug, Clone, PartialEq)]
pub struct PeerOpts {
    pub is_pub: bool,
    pub topic: String,
    pub keyed: bool,
    pub size: u32,
    pub count: u32,
    pub reliable: bool,
    pub transient_local: bool,
    /// `None`: KEEP_ALL; `Some(n)`: KEEP_LAST n.
    pub depth: Option<u32>,
    pub keys: u32,
    pub domain: u32,
    pub timeout: Duration,
    pub wait_matched: u32,
    pub settle: Duration,
    /// --rate as the time between two samples; None: as fast as possible.
    pub period: Option<Duration>,
    pub linger: Duration,
    pub idle: Duration,
    pub min_count: u32,
    pub quiet: bool,
    pub ready_file: Option<String>,
    pub start_file: Option<String>,
}

/// What parsing says: options to run with, or the help text to print.
#[derive(Debug)]
pub enum Parsed {
    Run(PeerOpts),
    Help,
}

fn u32_of(opt: &str, v: &str) -> Result<u32, String> {
    v.parse::<u32>().map_err(|_| format!("bad value for {opt} {v}"))
}

/// Parses the arguments after the program name.
pub fn parse_args(args: &[String]) -> Result<Parsed, String> {
    let mut o = PeerOpts {
        is_pub: false,
        topic: String::new(),
        keyed: false,
        size: 0,
        count: 0,
        reliable: true,
        transient_local: false,
        depth: None,
        keys: 1,
        domain: 100,
        timeout: Duration::from_secs(30),
        wait_matched: 0,
        settle: Duration::ZERO,
        period: None,
        linger: Duration::ZERO,
        idle: Duration::from_secs(2),
        min_count: 1,
        quiet: false,
        ready_file: None,
        start_file: None,
    };
    let (mut mode, mut have_type, mut have_size, mut have_count) = (false, false, false, false);
    let (mut settle, mut linger) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut next = || it.next().cloned().ok_or_else(|| format!("missing value for {a}"));
        match a.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "pub" | "sub" => {
                if mode {
                    return Err(format!("pub or sub given twice: {a}"));
                }
                o.is_pub = a == "pub";
                mode = true;
            }
            "--topic" => o.topic = next()?,
            "--type" => {
                o.keyed = match next()?.as_str() {
                    "blob" => false,
                    "keyed" => true,
                    t => return Err(format!("--type must be blob or keyed, not {t}")),
                };
                have_type = true;
            }
            "--size" => {
                o.size = u32_of(a, &next()?)?;
                have_size = true;
            }
            "--count" => {
                o.count = u32_of(a, &next()?)?;
                have_count = true;
            }
            "--reliable" => o.reliable = true,
            "--best-effort" => o.reliable = false,
            "--transient-local" => o.transient_local = true,
            "--volatile" => o.transient_local = false,
            "--keep-all" => o.depth = None,
            "--depth" => match u32_of(a, &next()?)? {
                d @ 1..=0x7fff_ffff => o.depth = Some(d),
                _ => return Err("--depth must be >= 1".into()),
            },
            "--keys" => {
                o.keys = u32_of(a, &next()?)?;
                if o.keys < 1 {
                    return Err("--keys must be >= 1".into());
                }
            }
            "--domain" => {
                o.domain = u32_of(a, &next()?)?;
                if o.domain > 232 {
                    return Err("--domain must be <= 232".into());
                }
            }
            "--timeout" => o.timeout = duration_of(a, &next()?, 1.0)?,
            "--wait-matched" => o.wait_matched = u32_of(a, &next()?)?,
            "--settle" => settle = Some(duration_of(a, &next()?, 1.0)?),
            "--rate" => o.period = period_of_rate(a, &next()?)?,
            "--linger" => linger = Some(duration_of(a, &next()?, 1.0)?),
            "--idle" => o.idle = duration_of(a, &next()?, 1.0)?,
            "--min-count" => o.min_count = u32_of(a, &next()?)?,
            "--quiet" => o.quiet = true,
            "--config" => {
                next()?;
            }
            "--ready-file" => o.ready_file = Some(next()?),
            "--start-file" => o.start_file = Some(next()?),
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if !mode {
        return Err("first say pub or sub".into());
    }
    if o.topic.is_empty() {
        return Err("--topic is required".into());
    }
    if !have_type {
        return Err("--type is required".into());
    }
    if !have_size {
        return Err("--size is required".into());
    }
    if !have_count || o.count < 1 {
        return Err("--count N (N >= 1) is required".into());
    }
    if !o.keyed && o.keys != 1 {
        return Err("--keys needs --type keyed".into());
    }
    o.settle = settle.unwrap_or(if o.wait_matched > 0 { Duration::from_millis(500) } else { Duration::ZERO });
    o.linger = linger.unwrap_or(if o.is_pub { Duration::ZERO } else { Duration::from_millis(500) });
    Ok(Parsed::Run(o))
}

impl PeerOpts {
    pub fn type_name(&self) -> &'static str {
        if self.keyed {
            KEYED_TYPE
        } else {
            BLOB_TYPE
        }
    }

    /// Strict subscriber mode: reliable and keep-all.
    pub fn strict(&self) -> bool {
        self.reliable && self.depth.is_none()
    }

    /// The id of sample `seq` (1-based).
    pub fn id_for_seq(&self, seq: u32) -> u32 {
        if self.keyed {
            (seq - 1) % self.keys
        } else {
            0
        }
    }
}

/// `data[i] = (seq * 131 + i * 7 + id) & 0xff`, `len` bytes.
pub fn payload_fill(buf: &mut [u8], seq: u32, id: u32) {
    let base = seq.wrapping_mul(131).wrapping_add(id);
    let mut period = [0u8; 256];
    for (i, b) in period.iter_mut().enumerate() {
        *b = base.wrapping_add(i as u32 * 7) as u8;
    }
    for chunk in buf.chunks_mut(256) {
        chunk.copy_from_slice(&period[..chunk.len()]);
    }
}

/// Whether `data` is exactly the payload of (seq, id) of length `expected_len`.
pub fn payload_check(data: &[u8], expected_len: u32, seq: u32, id: u32) -> bool {
    if data.len() != expected_len as usize {
        return false;
    }
    let base = seq.wrapping_mul(131).wrapping_add(id);
    let mut period = [0u8; 256];
    for (i, b) in period.iter_mut().enumerate() {
        *b = base.wrapping_add(i as u32 * 7) as u8;
    }
    data.chunks(256).all(|c| c == &period[..c.len()])
}

/// The key hash of a KeyedBlob instance: its `unsigned long id`, 4 bytes of key at most.
pub fn keyed_blob_hash(id: u32) -> KeyHash {
    let mut w = key_writer();
    // Writing 4 bytes into a Vec cannot fail.
    let _ = w.write_u32(id);
    key_hash(w.sink(), Some(4))
}

/// Serializes one sample, XCDR1 little endian with its encapsulation header, into `out`
/// (reused: a 4 MiB sample is built once per write, not reallocated).
pub fn encode_sample(out: &mut Vec<u8>, keyed: bool, id: u32, seq: u32, size: u32) {
    out.clear();
    out.extend_from_slice(&[0x00, 0x01, 0x00, 0x00]);
    if keyed {
        out.extend_from_slice(&id.to_le_bytes());
    }
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    let start = out.len();
    out.resize(start + size as usize, 0);
    payload_fill(&mut out[start..], seq, id);
}

/// The serialized key of a KeyedBlob (what a disposal carries with flag K).
pub fn encode_key(id: u32) -> [u8; 8] {
    let mut k = [0x00, 0x01, 0x00, 0x00, 0, 0, 0, 0];
    k[4..].copy_from_slice(&id.to_le_bytes());
    k
}

/// A received sample, decoded: `(id, seq, data)`.
pub type Decoded<'a> = (u32, u32, &'a [u8]);

fn encapsulation_little_endian(payload: &[u8]) -> Result<bool, &'static str> {
    match payload.get(..2) {
        // CDR_BE / CDR_LE, and XCDR2's PLAIN_CDR2 (same layout for these final types).
        Some([0x00, 0x00]) | Some([0x00, 0x06]) => Ok(false),
        Some([0x00, 0x01]) | Some([0x00, 0x07]) => Ok(true),
        Some(_) => Err("unknown encapsulation"),
        None => Err("shorter than the encapsulation header"),
    }
}

fn u32_at(payload: &[u8], at: usize, le: bool) -> Option<u32> {
    let b: [u8; 4] = payload.get(at..at + 4)?.try_into().ok()?;
    Some(if le { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) })
}

/// Decodes a Blob or KeyedBlob payload. Up to 3 bytes after the data are padding (senders may
/// round a payload up to a multiple of 4); anything longer is an error.
pub fn decode_sample(payload: &[u8], keyed: bool) -> Result<Decoded<'_>, &'static str> {
    let le = encapsulation_little_endian(payload)?;
    let mut at = 4;
    let id = if keyed {
        at += 4;
        u32_at(payload, 4, le).ok_or("truncated id")?
    } else {
        0
    };
    let seq = u32_at(payload, at, le).ok_or("truncated seq")?;
    let len = u32_at(payload, at + 4, le).ok_or("truncated data length")? as usize;
    let data = payload.get(at + 8..).ok_or("truncated data")?;
    if data.len() < len {
        return Err("data shorter than its length");
    }
    if data.len() - len > 3 {
        return Err("bytes after the data beyond padding");
    }
    Ok((id, seq, &data[..len]))
}

/// The key hash of a KeyedBlob payload: a whole sample, or (`key_only`) a serialized key alone.
pub fn keyed_blob_hash_of(payload: &[u8], key_only: bool) -> Option<KeyHash> {
    let le = encapsulation_little_endian(payload).ok()?;
    let _ = key_only; // the id comes first in both forms
    Some(keyed_blob_hash(u32_at(payload, 4, le)?))
}

/// The subscriber's bookkeeping (peer_rx of peer_common.c).
pub struct Rx {
    pub received: u32,
    pub verified: u32,
    pub distinct: u32,
    pub duplicates: u32,
    pub in_order: bool,
    pub first_seq: u32,
    pub last_seq: u32,
    seen: Vec<bool>,
    last_per_key: Vec<u32>,
}

impl Rx {
    pub fn new(o: &PeerOpts) -> Rx {
        Rx {
            received: 0,
            verified: 0,
            distinct: 0,
            duplicates: 0,
            in_order: true,
            first_seq: 0,
            last_seq: 0,
            seen: vec![false; o.count as usize + 1],
            last_per_key: vec![0; o.keys as usize],
        }
    }

    /// Records one delivered sample; `ok` is whether its content (and key) checked out. Returns
    /// the RECV line.
    pub fn record(&mut self, o: &PeerOpts, seq: u32, id: u32, len: usize, content_ok: bool) -> String {
        let in_range = seq >= 1 && seq <= o.count;
        let ok = in_range && id == o.id_for_seq(seq) && content_ok;
        self.received += 1;
        if ok {
            self.verified += 1;
        }
        if self.received == 1 {
            self.first_seq = seq;
        }
        self.last_seq = seq;
        let mut dup = false;
        if in_range {
            if self.seen[seq as usize] {
                self.duplicates += 1;
                dup = true;
            } else {
                self.seen[seq as usize] = true;
                self.distinct += 1;
            }
        }
        if !dup && id < o.keys {
            let last = &mut self.last_per_key[id as usize];
            if seq <= *last {
                self.in_order = false;
            } else {
                *last = seq;
            }
        }
        format!("RECV seq={seq} id={id} len={len} ok={}", u8::from(ok))
    }

    pub fn summary(&self) -> String {
        format!(
            "SUMMARY received={} verified={} in_order={} duplicates={} first_seq={} last_seq={}",
            self.received,
            self.verified,
            u8::from(self.in_order),
            self.duplicates,
            self.first_seq,
            self.last_seq
        )
    }

    /// The success rule of `--help`.
    pub fn success(&self, o: &PeerOpts) -> bool {
        let clean = self.verified == self.received && self.in_order && self.duplicates == 0;
        let enough = if o.strict() { self.distinct == o.count } else { self.distinct >= o.min_count };
        clean && enough
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn opts(s: &str) -> PeerOpts {
        match parse_args(&args(s)).unwrap() {
            Parsed::Run(o) => o,
            Parsed::Help => panic!("help"),
        }
    }

    #[test]
    fn command_line_defaults_and_errors() {
        let o = opts("sub --topic t --type keyed --size 64 --count 10 --keys 4 --best-effort --depth 3");
        assert!(!o.is_pub && o.keyed && !o.reliable && !o.strict());
        assert_eq!((o.depth, o.keys, o.domain), (Some(3), 4, 100));
        assert_eq!((o.settle, o.linger), (Duration::ZERO, Duration::from_millis(500)));
        let o = opts("pub --topic t --type blob --size 0 --count 1 --wait-matched 1 --transient-local");
        assert!(o.is_pub && o.strict() && o.transient_local);
        assert_eq!((o.settle, o.linger), (Duration::from_millis(500), Duration::ZERO));
        for bad in [
            "--topic t --type blob --size 1 --count 1",
            "pub --type blob --size 1 --count 1",
            "pub --topic t --type other --size 1 --count 1",
            "pub --topic t --type blob --size 1 --count 0",
            "pub --topic t --type blob --size 1 --count 1 --keys 2",
            "pub --topic t --type blob --size 1 --count 1 --domain 233",
            "pub --topic t --type blob --size 1 --count 1 --depth 0",
            "pub --topic t --type blob --size 1 --count 1 --bogus",
            "pub --topic t --type blob --size 1 --count",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
        assert!(matches!(parse_args(&args("--help")), Ok(Parsed::Help)));
    }

    #[test]
    fn samples_round_trip_and_are_checked_byte_for_byte() {
        let mut buf = Vec::new();
        encode_sample(&mut buf, true, 3, 7, 300);
        assert_eq!(buf.len(), 4 + 12 + 300);
        let (id, seq, data) = decode_sample(&buf, true).unwrap();
        assert_eq!((id, seq), (3, 7));
        assert!(payload_check(data, 300, 7, 3));
        assert!(!payload_check(data, 300, 7, 2));
        assert!(!payload_check(&data[..299], 300, 7, 3));
        assert_eq!(data[1], ((7u32 * 131 + 7 + 3) & 0xff) as u8);
        // Padding after the data is tolerated, more is not.
        buf.extend_from_slice(&[0, 0, 0]);
        assert!(decode_sample(&buf, true).is_ok());
        buf.push(0);
        assert!(decode_sample(&buf, true).is_err());
        // Big endian, keyless.
        let mut be = vec![0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 2, 0xaa, 0xbb];
        assert_eq!(decode_sample(&be, false).unwrap(), (0, 9, &[0xaa, 0xbb][..]));
        be.truncate(13);
        assert!(decode_sample(&be, false).is_err());
        assert!(decode_sample(&[0, 9, 0, 0], false).is_err());
    }

    #[test]
    fn key_hashes() {
        assert_eq!(keyed_blob_hash(0x01020304), [1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let mut s = Vec::new();
        encode_sample(&mut s, true, 5, 1, 4);
        assert_eq!(keyed_blob_hash_of(&s, false), Some(keyed_blob_hash(5)));
        assert_eq!(keyed_blob_hash_of(&encode_key(5), true), Some(keyed_blob_hash(5)));
        assert_eq!(keyed_blob_hash_of(&[0, 1], true), None);
    }

    #[test]
    fn receive_bookkeeping() {
        let o = opts("sub --topic t --type keyed --size 4 --count 4 --keys 2");
        let mut rx = Rx::new(&o);
        assert_eq!(rx.record(&o, 1, 0, 4, true), "RECV seq=1 id=0 len=4 ok=1");
        rx.record(&o, 2, 1, 4, true);
        rx.record(&o, 4, 1, 4, true);
        rx.record(&o, 3, 0, 4, true); // in order per key
        assert!(rx.success(&o));
        rx.record(&o, 3, 0, 4, true);
        assert_eq!(rx.duplicates, 1);
        assert!(!rx.success(&o));
        let mut rx = Rx::new(&o);
        rx.record(&o, 3, 0, 4, true);
        rx.record(&o, 1, 0, 4, true);
        assert!(!rx.in_order);
        let mut rx = Rx::new(&o);
        for s in 1..=4 {
            rx.record(&o, s, o.id_for_seq(s), 4, s != 2);
        }
        assert_eq!((rx.verified, rx.success(&o)), (3, false));
        assert_eq!(rx.summary(), "SUMMARY received=4 verified=3 in_order=1 duplicates=0 first_seq=1 last_seq=4");
    }
}
