//! Shared memory between two processes: this test binary starts itself as the publisher
//! (`child_publisher`, ignored when run directly) and subscribes in the test process. Loopback only,
//! a domain tag of the parent's own, every wait bounded; a child never outlives its test.

mod net_support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hdds_core::qos::History;
use hdds_core::runtime::status::LIVELINESS_CHANGED;
use hdds_core::{NetworkConfig, Participant, Qos, Reader, SharedMemoryConfig};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";
const SMALL: usize = 64;
const BIG: usize = 16 << 20;

fn keep_all() -> Qos {
    Qos { history: History::KeepAll, max_blocking_time: Duration::from_secs(5), ..Qos::default() }
}

/// Both sides: shared memory on, quick announcements, and a short lease so that a killed peer is
/// noticed within a second or two.
fn tweak(c: &mut NetworkConfig) {
    c.shared_memory = SharedMemoryConfig::default();
    c.lease_duration = Duration::from_secs(1);
}

fn payload(i: u32, len: usize) -> Vec<u8> {
    let mut p = vec![0u8; len];
    p[..4].copy_from_slice(&[0, 1, 0, 0]);
    p[4..8].copy_from_slice(&i.to_le_bytes());
    for (k, b) in p[8..].iter_mut().enumerate() {
        *b = (i as usize).wrapping_mul(7).wrapping_add(k / 8) as u8;
    }
    p
}

/// The publisher process. `HDDS_SHM_CHILD` says what to do: `burst` writes 1000 small and 5 big
/// samples and waits until they are taken, `small` only the small ones; `stream` writes a 4 KiB
/// sample every millisecond until killed (or 60 s); `exit` writes one sample and calls `exit()`
/// with its participant and writer never dropped.
#[test]
#[ignore = "the publisher process that the other tests of this file start"]
fn child_publisher() {
    let Ok(mode) = std::env::var("HDDS_SHM_CHILD") else { return };
    let domain: u32 = std::env::var("HDDS_SHM_DOMAIN").unwrap().parse().unwrap();
    let tag = std::env::var("HDDS_SHM_TAG").unwrap();
    let p = net_participant(domain, |c| {
        tweak(c);
        c.domain_tag = tag;
    });
    let small = p.create_writer("t/small", T, keep_all()).unwrap();
    assert!(wait_until(Duration::from_secs(10), || small.matched_reader_count() == 1), "no subscriber");
    if mode == "exit" {
        small.write(&payload(0, SMALL)).unwrap();
        assert!(small.wait_for_acknowledgments(Duration::from_secs(10)));
        std::mem::forget(small);
        std::mem::forget(p);
        std::process::exit(0);
    }
    match mode.as_str() {
        "burst" | "small" => {
            let big = (mode == "burst").then(|| p.create_writer("t/big", T, keep_all()).unwrap());
            if let Some(big) = &big {
                assert!(wait_until(Duration::from_secs(10), || big.matched_reader_count() == 1));
            }
            // Past the burst of SPDP answers that follows discovery: from here on UDP carries the
            // periodic discovery traffic, and user data if any.
            std::thread::sleep(Duration::from_millis(1200));
            let before = p.network_stats().unwrap().bytes_sent;
            for i in 0..1000 {
                small.write(&payload(i, SMALL)).unwrap();
            }
            for i in 0..5 {
                if let Some(big) = &big {
                    big.write(&payload(i, BIG)).unwrap();
                }
            }
            assert!(small.wait_for_acknowledgments(Duration::from_secs(30)));
            assert!(big.map_or(true, |b| b.wait_for_acknowledgments(Duration::from_secs(30))));
            let s = p.network_stats().unwrap();
            println!("CHILD-STATS bytes_sent={} shm_written={}", s.bytes_sent - before, s.shm_samples_written);
        }
        _ => {
            let end = Instant::now() + Duration::from_secs(60);
            let mut i = 0;
            while Instant::now() < end {
                small.write(&payload(i, 4096)).unwrap();
                i += 1;
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// A child publisher, killed if the test ends without waiting for it.
struct Publisher(Child);

impl Publisher {
    fn start(mode: &str, domain: u32) -> Publisher {
        let child = Command::new(std::env::current_exe().unwrap())
            .args(["child_publisher", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env("HDDS_SHM_CHILD", mode)
            .env("HDDS_SHM_DOMAIN", domain.to_string())
            .env("HDDS_SHM_TAG", tag())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        Publisher(child)
    }

    /// Waits (bounded) for a normal exit; returns its output.
    fn finish(mut self, timeout: Duration) -> String {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if let Some(status) = self.0.try_wait().unwrap() {
                let mut out = String::new();
                if let Some(mut o) = self.0.stdout.take() {
                    std::io::Read::read_to_string(&mut o, &mut out).unwrap();
                }
                assert!(status.success(), "the publisher failed: {out}");
                return out;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the publisher did not finish within {timeout:?}");
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn tag() -> String {
    format!("hdds-test-{}", std::process::id())
}

fn subscriber(domain: u32) -> Participant {
    net_participant(domain, tweak)
}

fn take_n(r: &Reader, n: usize, timeout: Duration) -> Vec<hdds_core::Sample> {
    let end = Instant::now() + timeout;
    let mut got = Vec::new();
    while got.len() < n && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            while let Some(s) = r.take() {
                got.push(s);
            }
        }
    }
    got
}

fn segments_of(prefix: &[u8]) -> Vec<String> {
    let name: String = prefix.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::read_dir("/dev/shm")
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("hdds_{name}_")))
        .collect()
}

#[test]
fn two_processes_exchange_64_b_and_16_mib_samples_through_shared_memory() {
    let p = subscriber(170);
    let small = p.create_reader("t/small", T, keep_all()).unwrap();
    let big = p.create_reader("t/big", T, keep_all()).unwrap();
    let child = Publisher::start("burst", 170);
    let got = take_n(&small, 1000, Duration::from_secs(30));
    assert_eq!(got.len(), 1000);
    for (i, s) in got.iter().enumerate() {
        assert!(s.data[..] == payload(i as u32, SMALL)[..], "small sample {i}");
        assert_eq!(s.info.sequence_number, i as i64 + 1);
    }
    let mut bigs = Vec::new();
    let end = Instant::now() + Duration::from_secs(30);
    while bigs.len() < 5 && Instant::now() < end {
        bigs.extend(take_n(&big, 1, Duration::from_millis(100)));
    }
    assert_eq!(bigs.len(), 5);
    for (i, s) in bigs.iter().enumerate() {
        assert!(s.data[..] == payload(i as u32, BIG)[..], "big sample {i}");
    }
    let out = child.finish(Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(50));
    assert!(small.take().is_none() && big.take().is_none(), "nothing twice");
    // Every sample came through shared memory, and the UDP traffic was discovery only.
    let s = p.network_stats().unwrap();
    assert_eq!(s.shm_samples_read, 1005);
    let line = out.lines().find(|l| l.contains("CHILD-STATS")).unwrap_or_else(|| panic!("no statistics in {out:?}"));
    let sent: u64 = line.split("bytes_sent=").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(sent < 100_000, "the publisher sent {sent} UDP bytes while writing 64 KB + 80 MiB of samples");
}

#[test]
fn a_publisher_that_exits_without_dropping_anything_leaves_no_segment() {
    let p = subscriber(172);
    let r = p.create_reader("t/small", T, keep_all()).unwrap();
    let child = Publisher::start("exit", 172);
    let got = take_n(&r, 1, Duration::from_secs(20));
    assert_eq!(got.len(), 1);
    let prefix = got[0].info.writer_guid.prefix.0;
    child.finish(Duration::from_secs(20));
    assert!(segments_of(&prefix).is_empty(), "{:?}", segments_of(&prefix));
}

#[test]
fn a_killed_publisher_is_seen_gone_leaves_nothing_behind_and_a_new_one_works() {
    let p = subscriber(171);
    let r = p.create_reader("t/small", T, keep_all()).unwrap();
    let mut child = Publisher::start("stream", 171);
    let got = take_n(&r, 100, Duration::from_secs(20));
    assert!(got.len() >= 100, "the stream flows");
    let prefix = got[0].info.writer_guid.prefix.0;
    assert_eq!(r.matched_writer_count(), 1);
    assert_eq!(r.status(LIVELINESS_CHANGED).unwrap().current_count, 1, "one writer alive");
    let before = segments_of(&prefix);
    assert_eq!(before.len(), 2, "its doorbell and its writer's ring: {before:?}");

    // SIGKILL, mid-stream; not reaped yet (a zombie counts as dead).
    child.0.kill().unwrap();
    let killed = Instant::now();
    assert!(
        wait_until(Duration::from_secs(6), || r.matched_writer_count() == 0),
        "the writer is dropped when its participant's lease (1 s) runs out"
    );
    println!("writer gone after {:?}", killed.elapsed());
    let st = r.status(LIVELINESS_CHANGED).unwrap();
    assert_eq!(st.current_count, 0, "no writer alive");
    assert!(st.current_count_change < 0);
    assert!(wait_until(Duration::from_secs(2), || segments_of(&prefix).is_empty()), "{:?}", segments_of(&prefix));
    drop(child);
    while r.take().is_some() {}

    // A later publisher works.
    let child = Publisher::start("small", 171);
    let got = take_n(&r, 1000, Duration::from_secs(30));
    assert_eq!(got.len(), 1000);
    assert_eq!(got[999].info.sequence_number, 1000);
    assert_ne!(got[0].info.writer_guid.prefix.0, prefix);
    child.finish(Duration::from_secs(30));
}
