//! The QoS combinations of the same-host paths that intra_process.rs and shm_paths.rs leave out:
//! LIFESPAN on every path, a reliable KEEP_ALL writer blocking on a same-process reader that does
//! not take (then timing out, then going on), the KEEP_ALL history cap
//! ([`ParticipantConfig::keep_all_max_samples`]) on the TRANSIENT_LOCAL replay. "intra" is one participant without network; "shm" two loopback participants of this
//! process that meet as two processes would (`intra_process: false`); "udp" the same with shared
//! memory off. Each test has its own domain; every wait is bounded.

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::error::ErrorKind;
use hdds_core::qos::{Durability, History};
use hdds_core::{Participant, ParticipantConfig, Qos, Reader, SharedMemoryConfig, Writer};
use net_support::{net_participant_with, wait_until};

const T: &str = "hdds::test::Bytes_";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    Intra,
    Shm,
    Udp,
}

const PATHS: [Path; 3] = [Path::Intra, Path::Shm, Path::Udp];

/// A writer's and a reader's participant for `path` (the same one for intra).
fn pair(domain: u32, path: Path, keep_all_max_samples: usize) -> (Participant, Participant) {
    let pc = ParticipantConfig { domain_id: domain, keep_all_max_samples, ..Default::default() };
    match path {
        Path::Intra => {
            let p = Participant::new(pc).unwrap();
            (p.clone(), p)
        }
        Path::Shm | Path::Udp => {
            let shm = if path == Path::Shm { SharedMemoryConfig::default() } else { SharedMemoryConfig::disabled() };
            let a = net_participant_with(pc.clone(), |c| c.shared_memory = shm);
            let b = net_participant_with(pc, |c| c.shared_memory = shm);
            (a, b)
        }
    }
}

fn matched(w: &Writer, r: &Reader) -> bool {
    wait_until(Duration::from_secs(5), || w.matched_reader_count() >= 1 && r.matched_writer_count() >= 1)
}

fn payload(i: u32) -> Vec<u8> {
    let mut p = vec![0, 1, 0, 0];
    p.extend_from_slice(&i.to_le_bytes());
    p
}

/// Takes what arrives within `settle` after the last sample.
fn drain(r: &Reader, settle: Duration) -> Vec<i64> {
    let mut got = Vec::new();
    while r.wait_for_data(settle) {
        match r.take() {
            Some(s) => got.push(s.info.sequence_number),
            None => break,
        }
    }
    got
}

/// The lifespan of the LIFESPAN tests: long enough that a sample written just before a take is
/// still alive in a slow run (ThreadSanitizer, a loaded machine), short enough to wait out.
const LIFESPAN: Duration = Duration::from_millis(1500);

/// Runs `check` for every path at once, each in its own thread and domain (`first_domain + i`).
fn on_every_path(first_domain: u32, check: fn(u32, Path)) {
    let threads: Vec<_> = PATHS
        .into_iter()
        .enumerate()
        .map(|(i, path)| std::thread::spawn(move || check(first_domain + i as u32, path)))
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn lifespan_drops_expired_samples_on_every_path() {
    on_every_path(210, |domain, path| {
        let (a, b) = pair(domain, path, 1024);
        let q = Qos { lifespan: LIFESPAN, history: History::KeepAll, ..Qos::default() };
        let w = a.create_writer("t/lifespan", T, q).unwrap();
        let r = b.create_reader("t/lifespan", T, Qos { history: History::KeepAll, ..Qos::default() }).unwrap();
        assert!(matched(&w, &r), "{path:?}");
        for i in 0..3 {
            w.write(&payload(i)).unwrap();
        }
        assert!(wait_until(Duration::from_secs(5), || r.available() == 3), "{path:?}: the first three arrive");
        std::thread::sleep(LIFESPAN + Duration::from_millis(300));
        for i in 3..5 {
            w.write(&payload(i)).unwrap();
        }
        assert!(wait_until(Duration::from_secs(5), || r.available() == 5), "{path:?}");
        // The first three are older than the writer's lifespan: never handed out.
        assert_eq!(drain(&r, Duration::from_millis(100)), vec![4, 5], "{path:?}");
    });
}

#[test]
fn lifespan_applies_to_a_transient_local_late_joiner() {
    on_every_path(213, |domain, path| {
        let (a, b) = pair(domain, path, 1024);
        let q = Qos {
            lifespan: LIFESPAN,
            durability: Durability::TransientLocal,
            history: History::KeepLast(10),
            ..Qos::default()
        };
        let w = a.create_writer("t/lifespan_tl", T, q).unwrap();
        w.write(&payload(0)).unwrap();
        std::thread::sleep(LIFESPAN + Duration::from_millis(300));
        w.write(&payload(1)).unwrap();
        let r = b.create_reader("t/lifespan_tl", T, q).unwrap();
        assert!(matched(&w, &r), "{path:?}");
        assert!(wait_until(Duration::from_secs(5), || r.available() >= 1), "{path:?}");
        assert_eq!(drain(&r, Duration::from_millis(200)), vec![2], "{path:?}: only the one still alive");
    });
}

#[test]
fn reliable_keep_all_writer_waits_for_a_same_process_reader_then_times_out() {
    const CAP: usize = 8;
    let (p, _) = pair(216, Path::Intra, CAP);
    let q = Qos { history: History::KeepAll, max_blocking_time: Duration::from_millis(100), ..Qos::default() };
    let w = p.create_writer("t/block", T, q).unwrap();
    let r = p.create_reader("t/block", T, q).unwrap();
    for i in 0..CAP as u32 {
        w.write(&payload(i)).unwrap();
    }
    let t = Instant::now();
    let e = w.write(&payload(99)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(t.elapsed() >= Duration::from_millis(90), "blocked for max_blocking_time, not {:?}", t.elapsed());
    assert!(e.message().contains("has not taken"), "{e}");

    // A reader thread that takes lets a blocked write go on; nothing lost, nothing twice.
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        let end = Instant::now() + Duration::from_secs(10);
        while got.len() < 2 * CAP && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(2));
            if let Some(s) = r.take() {
                got.push(s.info.sequence_number);
            }
        }
        got
    });
    let blocked = Qos { max_blocking_time: Duration::from_secs(5), ..q };
    let w2 = p.create_writer("t/block", T, blocked).unwrap();
    for i in 0..CAP as u32 {
        w2.write(&payload(i)).unwrap();
    }
    let got = reader.join().unwrap();
    assert_eq!(got.len(), 2 * CAP);
    assert_eq!(got[..CAP].to_vec(), (1..=CAP as i64).collect::<Vec<_>>(), "the first writer's, in order");
    assert_eq!(got[CAP..].to_vec(), (1..=CAP as i64).collect::<Vec<_>>(), "then the second writer's");
}

#[test]
fn keep_all_cap_bounds_the_transient_local_replay() {
    const CAP: usize = 5;
    let (p, _) = pair(217, Path::Intra, CAP);
    let tl = Qos { durability: Durability::TransientLocal, history: History::KeepAll, ..Qos::default() };
    let w = p.create_writer("t/cap", T, tl).unwrap();
    for i in 0..20 {
        w.write(&payload(i)).unwrap();
    }
    let late = p.create_reader("t/cap", T, tl).unwrap();
    assert_eq!(drain(&late, Duration::from_millis(50)), (16..=20).collect::<Vec<_>>(), "the newest CAP samples");
}
