//! Shared memory between two processes: this test binary starts itself as the publisher
//! (`child_publisher`, ignored when run directly) and subscribes in the test process, or as a
//! subscriber (`child_subscriber`) of a writer in the test process. Loopback only, a domain tag of
//! the parent's own, every wait bounded; a child never outlives its test.

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

/// Both sides: shared memory on, quick announcements (net_participant). The publisher that the
/// kill test kills announces a 1 s lease, so that it is noticed gone within a second or two; the
/// others keep the default: on a loaded machine (load 30-40 seen) a 1 s lease ran out in the middle
/// of an 80 MiB burst.
fn tweak(c: &mut NetworkConfig) {
    c.shared_memory = SharedMemoryConfig::default();
}

fn udp_only(c: &mut NetworkConfig) {
    c.shared_memory = SharedMemoryConfig::disabled();
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
    let shm_off = std::env::var("HDDS_SHM_OFF").is_ok();
    let p = net_participant(domain, |c| {
        tweak(c);
        c.domain_tag = tag;
        if shm_off {
            udp_only(c);
        }
        if mode == "stream" {
            c.lease_duration = Duration::from_secs(1);
        }
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

/// The subscriber process: takes `HDDS_SHM_CHILD_SUB` samples of 2000 bytes from `t/all`
/// (KEEP_ALL), checks they are 1..=n in order and intact and that nothing comes twice, and prints
/// how many came through shared memory.
#[test]
#[ignore = "the subscriber process that the other tests of this file start"]
fn child_subscriber() {
    let Ok(n) = std::env::var("HDDS_SHM_CHILD_SUB") else { return };
    let n: usize = n.parse().unwrap();
    let domain: u32 = std::env::var("HDDS_SHM_DOMAIN").unwrap().parse().unwrap();
    let tag = std::env::var("HDDS_SHM_TAG").unwrap();
    let p = net_participant(domain, |c| {
        tweak(c);
        c.domain_tag = tag;
    });
    let r = p.create_reader("t/all", T, keep_all()).unwrap();
    let got = take_n(&r, n, Duration::from_secs(30));
    assert_eq!(got.len(), n, "every sample arrives");
    for (i, s) in got.iter().enumerate() {
        assert_eq!(s.info.sequence_number, i as i64 + 1);
        assert!(s.data[..] == payload(i as u32, 2000)[..], "sample {i} intact");
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(r.take().is_none(), "nothing twice");
    println!("CHILD-SUB got={} shm_read={}", got.len(), p.network_stats().unwrap().shm_samples_read);
}

/// A child process (publisher or subscriber), killed if the test ends without waiting for it.
struct Publisher(Child);

impl Publisher {
    fn start(mode: &str, domain: u32) -> Publisher {
        Self::spawn("child_publisher", domain, &[("HDDS_SHM_CHILD", mode)])
    }

    fn spawn(test: &str, domain: u32, env: &[(&str, &str)]) -> Publisher {
        let child = Command::new(std::env::current_exe().unwrap())
            .args([test, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .envs(env.iter().copied())
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
    let got = take_burst(&small, &big);
    let out = child.finish(Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(50));
    assert!(small.take().is_none() && big.take().is_none(), "nothing twice");
    // Every sample came through shared memory, and the UDP traffic was discovery only.
    let s = p.network_stats().unwrap();
    assert_eq!(s.shm_samples_read, got as u64);
    let sent = child_udp_bytes(&out);
    // Discovery and heartbeats only: about 50 kB when the machine is idle, more when a slow run
    // lasts more announcement periods; the samples are 80 MiB.
    assert!(sent < 1 << 20, "the publisher sent {sent} UDP bytes while writing 64 KB + 80 MiB of samples");
}

#[test]
fn two_processes_with_shared_memory_off_exchange_the_same_over_udp() {
    let p = net_participant(173, |c| {
        tweak(c);
        udp_only(c);
    });
    let small = p.create_reader("t/small", T, keep_all()).unwrap();
    let big = p.create_reader("t/big", T, keep_all()).unwrap();
    let child = Publisher::spawn("child_publisher", 173, &[("HDDS_SHM_CHILD", "burst"), ("HDDS_SHM_OFF", "1")]);
    take_burst(&small, &big);
    let out = child.finish(Duration::from_secs(60));
    std::thread::sleep(Duration::from_millis(50));
    assert!(small.take().is_none() && big.take().is_none(), "nothing twice");
    assert_eq!(p.network_stats().unwrap().shm_samples_read, 0);
    let sent = child_udp_bytes(&out);
    assert!(sent > 80 << 20, "the samples went over UDP: {sent} bytes");
}

/// The publisher's UDP bytes while it wrote, from its `CHILD-STATS` line.
fn child_udp_bytes(out: &str) -> u64 {
    let line = out.lines().find(|l| l.contains("CHILD-STATS")).unwrap_or_else(|| panic!("no statistics in {out:?}"));
    line.split("bytes_sent=").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
}

/// Takes the `burst` child's 1000 small and 5 big samples and checks them; returns how many.
fn take_burst(small: &Reader, big: &Reader) -> usize {
    let got = take_n(small, 1000, Duration::from_secs(30));
    assert_eq!(got.len(), 1000);
    for (i, s) in got.iter().enumerate() {
        assert!(s.data[..] == payload(i as u32, SMALL)[..], "small sample {i}");
        assert_eq!(s.info.sequence_number, i as i64 + 1);
    }
    let mut bigs = Vec::new();
    let end = Instant::now() + Duration::from_secs(30);
    while bigs.len() < 5 && Instant::now() < end {
        bigs.extend(take_n(big, 1, Duration::from_millis(100)));
    }
    assert_eq!(bigs.len(), 5);
    for (i, s) in bigs.iter().enumerate() {
        assert!(s.data[..] == payload(i as u32, BIG)[..], "big sample {i}");
        assert_eq!(s.info.sequence_number, i as i64 + 1);
    }
    got.len() + bigs.len()
}

#[test]
fn one_writer_serves_same_process_other_process_and_udp_readers_each_once() {
    // `a` serves `local` without sockets, the child process through shared memory, and `c`
    // (shared memory off, as a participant on another host would be) over UDP.
    let a = subscriber(174);
    let c = net_participant(174, |c| {
        tweak(c);
        c.shared_memory = SharedMemoryConfig::disabled();
    });
    let w = a.create_writer("t/all", T, keep_all()).unwrap();
    let local = a.create_reader("t/all", T, keep_all()).unwrap();
    let udp = c.create_reader("t/all", T, keep_all()).unwrap();
    let child = Publisher::spawn("child_subscriber", 174, &[("HDDS_SHM_CHILD_SUB", "200")]);
    assert!(wait_until(Duration::from_secs(10), || w.matched_reader_count() == 3), "three readers");
    for i in 0..200 {
        w.write(&payload(i, 2000)).unwrap();
    }
    for (name, r) in [("local", &local), ("udp", &udp)] {
        let got = take_n(r, 200, Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(100));
        assert!(r.take().is_none(), "{name}: nothing twice");
        assert_eq!(got.iter().map(|s| s.info.sequence_number).collect::<Vec<_>>(), (1..=200).collect::<Vec<_>>());
    }
    let out = child.finish(Duration::from_secs(30));
    assert!(
        out.contains("CHILD-SUB got=200 shm_read=200"),
        "the other process read all 200 through shared memory: {out}"
    );
    assert_eq!(c.network_stats().unwrap().shm_samples_read, 0);
    assert_eq!(a.network_stats().unwrap().shm_samples_written, 200, "the ring carried each sample once");
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
