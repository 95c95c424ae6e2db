//! Reader loans over shared memory ([`Reader::take_loan`]): payloads read in place in the
//! writer's ring, never rewritten while loaned, safe to hold past their reader and writer, in one
//! process (two participants that meet as two processes' would) and across two processes, and a
//! killed loaning process does not hold a writer back.

mod net_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hdds_core::error::ErrorKind;
use hdds_core::qos::{History, Reliability};
use hdds_core::{NetworkConfig, Participant, Qos, Reader, ReaderLoan, SharedMemoryConfig, Writer};
use net_support::{net_participant, wait_until};

const T: &str = "hdds::test::Bytes_";

fn shm(slots: usize) -> impl FnOnce(&mut NetworkConfig) {
    move |c: &mut NetworkConfig| c.shared_memory = SharedMemoryConfig { slots, ..SharedMemoryConfig::default() }
}

/// A payload that names its sample in every byte: a rewritten one shows.
fn payload(i: u32, len: usize) -> Vec<u8> {
    let mut p = vec![0u8; len.max(8)];
    p[..4].copy_from_slice(&[0, 1, 0, 0]);
    p[4..8].copy_from_slice(&i.to_le_bytes());
    for (k, b) in p[8..].iter_mut().enumerate() {
        *b = (i as usize).wrapping_mul(31).wrapping_add(k) as u8;
    }
    p
}

fn index(data: &[u8]) -> u32 {
    u32::from_le_bytes(data[4..8].try_into().unwrap())
}

fn whole(data: &[u8]) -> bool {
    data == payload(index(data), data.len()).as_slice()
}

fn matched(w: &Writer, r: &Reader) -> bool {
    wait_until(Duration::from_secs(5), || w.matched_reader_count() >= 1 && r.matched_writer_count() >= 1)
}

/// Takes loans until `n` are held or `timeout` passes.
fn take_loans(r: &Reader, n: usize, timeout: Duration) -> Vec<ReaderLoan> {
    let end = Instant::now() + timeout;
    let mut got = Vec::new();
    while got.len() < n && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            while let Some(l) = r.take_loan() {
                got.push(l);
            }
        }
    }
    got
}

#[test]
fn loans_read_in_place_are_never_rewritten_while_a_keep_last_writer_goes_on() {
    // 16 slots: a reader pins 4 at most (two loans held, two samples waiting in its history).
    let a = net_participant(180, shm(16));
    let b = net_participant(180, shm(16));
    let q = Qos { history: History::KeepLast(2), ..Qos::default() };
    let w = a.create_writer("t/loan", T, q).unwrap();
    let r = b.create_reader("t/loan", T, q).unwrap();
    assert!(matched(&w, &r));
    assert!(r.take_loan().is_none(), "nothing yet; from now on the reader takes loans");
    for i in 0..2 {
        w.write(&payload(i, 3000)).unwrap();
    }
    let held = take_loans(&r, 2, Duration::from_secs(5));
    assert_eq!(held.iter().map(|l| index(l.data())).collect::<Vec<_>>(), vec![0, 1]);
    assert!(held.iter().all(|l| l.in_shared_memory()), "payloads are read in place");
    // The writer goes on far past its 16 slots while the two loans are held.
    let mut later = Vec::new();
    for i in 2..300 {
        w.write(&payload(i, 1000 + (i as usize * 97) % 3000)).unwrap();
        if i % 10 == 0 {
            for l in &held {
                assert!(whole(l.data()), "a loaned payload was rewritten");
            }
            while let Some(l) = r.take_loan() {
                assert!(whole(l.data()));
                later.push(index(l.data()));
            }
        }
    }
    assert!(held.iter().all(|l| whole(l.data())));
    for l in held {
        r.return_loan(l);
    }
    // Later samples keep coming, in order; the last one arrives.
    let end = Instant::now() + Duration::from_secs(5);
    while later.last() != Some(&299) && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            while let Some(l) = r.take_loan() {
                assert!(whole(l.data()));
                later.push(index(l.data()));
            }
        }
    }
    assert_eq!(later.last(), Some(&299));
    assert!(later.windows(2).all(|p| p[0] < p[1]), "in order");
    // A plain take of a sample that waited pinned in the history copies it out.
    w.write(&payload(300, 500)).unwrap();
    assert!(r.wait_for_data(Duration::from_secs(5)));
    let s = r.take().unwrap();
    assert!(whole(&s.data) && index(&s.data) == 300);
}

#[test]
fn a_loan_outlives_its_reader_writer_and_participants() {
    let a = net_participant(181, shm(8));
    let b = net_participant(181, shm(8));
    let w = a.create_writer("t/outlive", T, Qos::default()).unwrap();
    let r = b.create_reader("t/outlive", T, Qos::default()).unwrap();
    assert!(matched(&w, &r));
    r.take_loan();
    w.write(&payload(7, 4096)).unwrap();
    let l = take_loans(&r, 1, Duration::from_secs(5)).pop().unwrap();
    assert!(l.in_shared_memory());
    drop((w, r, a, b));
    assert!(whole(l.data()) && index(l.data()) == 7);
    let s = l.into_sample();
    assert!(whole(&s.data));
}

#[test]
fn a_keep_all_writer_waits_for_loans_as_for_untaken_samples() {
    // 8 slots: a reader pins 2 at most.
    let a = net_participant(182, shm(8));
    let b = net_participant(182, shm(8));
    let q = Qos { history: History::KeepAll, reliability: Reliability::Reliable, ..Qos::default() };
    let w = a.create_writer("t/keepall", T, Qos { max_blocking_time: Duration::from_millis(50), ..q }).unwrap();
    let r = b.create_reader("t/keepall", T, q).unwrap();
    assert!(matched(&w, &r));
    r.take_loan();
    w.write(&payload(0, 64)).unwrap();
    w.write(&payload(1, 64)).unwrap();
    let held = take_loans(&r, 2, Duration::from_secs(5));
    assert!(held.iter().all(|l| l.in_shared_memory()));
    // Six more fill the ring; the reader reads them all (copies: its pins are in use).
    for i in 2..8 {
        w.write(&payload(i, 64)).unwrap();
    }
    assert!(wait_until(Duration::from_secs(5), || r.available() == 6));
    assert_eq!(w.write(&payload(8, 64)).unwrap_err().kind(), ErrorKind::Timeout);
    drop(held);
    w.write(&payload(8, 64)).unwrap();
    let got = take_loans(&r, 7, Duration::from_secs(5));
    assert_eq!(got.iter().map(|l| index(l.data())).collect::<Vec<_>>(), (2..=8).collect::<Vec<_>>());
}

/// Whether `p` lies in a shared-memory mapping of this process (/dev/shm), per /proc/self/maps.
fn in_dev_shm(p: *const u8) -> bool {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let at = p as usize;
    maps.lines().any(|l| {
        let mut f = l.split_whitespace();
        let range = f.next().unwrap_or("");
        let path = f.nth(4).unwrap_or("");
        let (lo, hi) = range.split_once('-').unwrap_or(("0", "0"));
        let (lo, hi) = (usize::from_str_radix(lo, 16).unwrap(), usize::from_str_radix(hi, 16).unwrap());
        (lo..hi).contains(&at) && path.starts_with("/dev/shm/")
    })
}

#[test]
fn take_with_reads_large_samples_in_the_ring_and_lets_them_go() {
    // 8 slots: a reader pins 2 at most, and a reliable KEEP_ALL writer waits for a pinned slot.
    let a = net_participant(183, shm(8));
    let b = net_participant(183, shm(8));
    let q = Qos { history: History::KeepAll, reliability: Reliability::Reliable, ..Qos::default() };
    let w = a.create_writer("t/takewith", T, Qos { max_blocking_time: Duration::from_secs(1), ..q }).unwrap();
    let r = b.create_reader("t/takewith", T, q).unwrap();
    assert!(matched(&w, &r));
    assert!(r.take_with(|_, _| ()).is_none(), "nothing yet; from now on large samples stay in place");
    // Three times round the ring: were a pin kept after its take_with, the reader would copy from
    // the third sample on (out of pins) and the writer would time out at the ninth.
    for i in 0..24u32 {
        let len = if i % 3 == 2 { 100 } else { (256 << 10) + i as usize };
        w.write(&payload(i, len)).unwrap_or_else(|e| panic!("write {i}: {e}"));
        assert!(wait_until(Duration::from_secs(5), || r.available() == 1), "sample {i} arrives");
        let (got, len_got, ok, in_ring) =
            r.take_with(|d, _| (index(d), d.len(), whole(d), in_dev_shm(d.as_ptr()))).unwrap();
        assert_eq!((got, len_got, ok), (i, len, true));
        // A small sample is copied out by the drain (cheaper than a pin); a large one is read in
        // the writer's ring.
        assert_eq!(in_ring, len > 1000, "sample {i} ({len} bytes): read in the ring?");
    }
    assert!(r.take_with(|_, _| ()).is_none());
}

/// Writer::write_into with a same-host reader serializes into the ring slot: two threads writing
/// at once take turns (neither finds the slot lent and fails), a failing filler gives the slot
/// back, and every sample arrives whole, shorter-than-asked ones included.
#[test]
fn write_into_the_ring_from_two_threads_loses_and_tears_nothing() {
    use std::mem::MaybeUninit;
    let a = net_participant(184, shm(8));
    let b = net_participant(184, shm(8));
    let q = Qos { history: History::KeepAll, reliability: Reliability::Reliable, ..Qos::default() };
    let w = a.create_writer("t/writeinto", T, Qos { max_blocking_time: Duration::from_secs(5), ..q }).unwrap();
    let r = b.create_reader("t/writeinto", T, q).unwrap();
    assert!(matched(&w, &r));
    let opts = hdds_core::WriteOptions::default();
    // SAFETY (each write_into below): the filler initializes the bytes it reports, no more than
    // the buffer holds.
    let fill = |i: u32, n: usize| {
        move |buf: &mut [MaybeUninit<u8>]| {
            for (d, s) in buf.iter_mut().zip(payload(i, n)) {
                *d = MaybeUninit::new(s);
            }
            Ok(n)
        }
    };
    assert!(unsafe { w.write_into(64, &opts, |_| Err(hdds_core::Error::bad_argument("no"))) }.is_err());
    const PER_THREAD: u32 = 150;
    std::thread::scope(|s| {
        for t in 0..2u32 {
            let (w, opts) = (&w, &opts);
            s.spawn(move || {
                for k in 0..PER_THREAD {
                    let i = t * PER_THREAD + k;
                    let n = 100 + (i as usize * 997) % 70_000;
                    // Asks for more than it writes every other time.
                    unsafe { w.write_into(n + (i as usize % 2) * 50, opts, fill(i, n)) }
                        .unwrap_or_else(|e| panic!("write {i}: {e}"));
                }
            });
        }
        let mut seen = vec![false; 2 * PER_THREAD as usize];
        let end = Instant::now() + Duration::from_secs(20);
        let mut got = 0;
        while got < seen.len() && Instant::now() < end {
            if r.wait_for_data(Duration::from_millis(20)) {
                while let Some((i, ok)) = r.take_with(|d, _| (index(d), whole(d))) {
                    assert!(ok, "sample {i} arrived torn");
                    assert!(!std::mem::replace(&mut seen[i as usize], true), "sample {i} twice");
                    got += 1;
                }
            }
        }
        assert_eq!(got, seen.len(), "every sample arrives");
    });
}

/// The loaning process of the cross-process tests: `HDDS_LOAN_CHILD=hold` takes loans of the
/// first 8 samples on `t/xp`, says `GOT 8 in_shm m`, `HOLDING` and waits to be killed; `take`
/// takes 20 loans, checking and returning each, and says `GOT 20 in_shm m`.
#[test]
#[ignore = "run by the cross-process tests"]
fn child_loaner() {
    let Ok(mode) = std::env::var("HDDS_LOAN_CHILD") else { return };
    let domain: u32 = std::env::var("HDDS_LOAN_DOMAIN").unwrap().parse().unwrap();
    let p = child_participant(domain);
    let q = Qos { history: History::KeepAll, ..Qos::default() };
    let r = p.create_reader("t/xp", T, q).unwrap();
    r.take_loan();
    println!("READY");
    if mode == "hold" {
        let got = take_loans(&r, 8, Duration::from_secs(20));
        assert!(got.iter().all(|l| whole(l.data())));
        println!("GOT {} in_shm {}", got.len(), got.iter().filter(|l| l.in_shared_memory()).count());
        println!("HOLDING");
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    let (mut n, mut in_shm) = (0, 0);
    let end = Instant::now() + Duration::from_secs(20);
    while n < 20 && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            while let Some(l) = r.take_loan() {
                assert!(whole(l.data()) && index(l.data()) == n);
                in_shm += usize::from(l.in_shared_memory());
                n += 1;
            }
        }
    }
    println!("GOT {n} in_shm {in_shm}");
}

fn child_participant(domain: u32) -> Participant {
    let tag = std::env::var("HDDS_LOAN_TAG").unwrap();
    let mut cfg = NetworkConfig {
        intra_process: false,
        spdp_period: Duration::from_millis(200),
        spdp_peer_max_index: 8,
        domain_tag: tag,
        shared_memory: SharedMemoryConfig::default(),
        ..NetworkConfig::localhost()
    };
    cfg.localhost_only = true;
    Participant::with_network(hdds_core::ParticipantConfig { domain_id: domain, ..Default::default() }, cfg).unwrap()
}

struct Loaner {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Loaner {
    fn spawn(mode: &str, domain: u32) -> Loaner {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["child_loaner", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env("HDDS_LOAN_CHILD", mode)
            .env("HDDS_LOAN_DOMAIN", domain.to_string())
            .env("HDDS_LOAN_TAG", format!("hdds-test-{}", std::process::id()))
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Loaner { child, out }
    }

    /// The next line saying `prefix`, from there on (bounded by the child's own time limits).
    fn line(&mut self, prefix: &str) -> String {
        let mut l = String::new();
        loop {
            l.clear();
            assert!(self.out.read_line(&mut l).unwrap() > 0, "the child ended before saying {prefix}");
            // The test harness prints its own words first on the test's first line.
            if let Some(at) = l.find(prefix) {
                return l[at..].trim().to_owned();
            }
        }
    }
}

impl Drop for Loaner {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parent(domain: u32) -> (Participant, Writer) {
    // 8 slots: a reader pins 2 at most.
    let p = net_participant(domain, shm(8));
    let q = Qos { history: History::KeepAll, max_blocking_time: Duration::from_millis(200), ..Qos::default() };
    let w = p.create_writer("t/xp", T, q).unwrap();
    (p, w)
}

#[test]
fn loans_across_two_processes_are_read_in_place() {
    let (_p, w) = parent(183);
    let mut c = Loaner::spawn("take", 183);
    c.line("READY");
    assert!(wait_until(Duration::from_secs(10), || w.matched_reader_count() >= 1));
    for i in 0..20 {
        // KEEP_ALL with 8 slots: a write may wait for the child to take (and return) its loans.
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            match w.write(&payload(i, 2048)) {
                Ok(_) => break,
                Err(e) if e.kind() == ErrorKind::Timeout && Instant::now() < end => continue,
                Err(e) => panic!("write {i}: {e}"),
            }
        }
    }
    let got = c.line("GOT");
    assert!(got.starts_with("GOT 20 in_shm"), "{got}");
    let in_shm: usize = got.rsplit(' ').next().unwrap().parse().unwrap();
    // The writer runs ahead of the child: the child pins 2 samples at most (8 slots) and copies
    // the others it drains meanwhile.
    assert!(in_shm >= 2, "{got}: samples read in place");
}

#[test]
fn a_killed_loaning_process_does_not_pin_forever() {
    let (_p, w) = parent(184);
    let mut c = Loaner::spawn("hold", 184);
    c.line("READY");
    assert!(wait_until(Duration::from_secs(10), || w.matched_reader_count() >= 1));
    for i in 0..8 {
        w.write(&payload(i, 100)).unwrap();
    }
    assert_eq!(c.line("GOT"), "GOT 8 in_shm 2");
    c.line("HOLDING");
    // The two oldest samples are loaned: a reliable KEEP_ALL writer waits for them, and times out.
    assert_eq!(w.write(&payload(8, 100)).unwrap_err().kind(), ErrorKind::Timeout);
    c.child.kill().unwrap();
    c.child.wait().unwrap();
    // Dead: its pins are released as soon as the writer needs the room (before its lease ends).
    let start = Instant::now();
    w.write(&payload(8, 100)).unwrap();
    w.write(&payload(9, 100)).unwrap();
    assert!(start.elapsed() < Duration::from_secs(2));
}
