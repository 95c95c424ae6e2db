//! One-way latency between two processes of this host, over shared memory or over UDP loopback: a
//! quick check of the shared-memory path (the side-by-side benchmark is hdds_tools' business).
//!
//! `cargo run --release -p hdds_core --example shm_pingpong -- [--udp] [--busy] [--size BYTES]
//! [--count N]` starts itself again as the echo process, sends N pings (after 200 warm-up ones),
//! each once the previous pong arrived, and prints the round trip halved: median, p90, p99 in µs.
//! Both processes wait in `Reader::wait_for_data` (a sleeping reader); `--busy` makes the engine's
//! shared-memory thread poll instead of sleeping. `--floor` measures the floor instead: two
//! processes handing a counter back and forth through one shared page, each side sleeping in
//! `futex_wait` until the other's `futex_wake` (one wake-up per direction, no copy, no engine).
//! Loopback only, a domain tag of its own.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use hdds_core::transport::shm::futex;
use std::time::{Duration, Instant};

use hdds_core::qos::History;
use hdds_core::{NetworkConfig, Participant, ParticipantConfig, Qos, Reader, SharedMemoryConfig};

const T: &str = "hdds::bench::Bytes_";

fn participant(udp: bool, busy: bool, tag: &str) -> Participant {
    let shm = if udp { SharedMemoryConfig::disabled() } else { SharedMemoryConfig::default() };
    let mut pc = ParticipantConfig { domain_id: 199, ..Default::default() };
    if busy {
        pc.wait_spin = Duration::MAX;
    }
    if let Some(us) = std::env::var("SHM_SPIN_US").ok().and_then(|v| v.parse().ok()) {
        pc.wait_spin = Duration::from_micros(us);
    }
    let net = NetworkConfig {
        domain_tag: tag.to_owned(),
        spdp_period: Duration::from_millis(200),
        spdp_peer_max_index: 4,
        shared_memory: shm,
        ..NetworkConfig::localhost()
    };
    Participant::with_network(pc, net).expect("participant")
}

fn take_one(r: &Reader, timeout: Duration) -> Option<hdds_core::Sample> {
    let end = Instant::now() + timeout;
    loop {
        if let Some(s) = r.take() {
            return Some(s);
        }
        let left = end.checked_duration_since(Instant::now())?;
        r.wait_for_data(left);
    }
}

/// Two futex words in a page of /dev/shm shared by both processes.
struct FloorPage {
    ptr: *mut AtomicU32,
}

impl FloorPage {
    fn open(path: &str, create: bool) -> FloorPage {
        use std::os::fd::AsRawFd;
        let f = std::fs::OpenOptions::new().read(true).write(true).create(create).open(path).unwrap();
        f.set_len(4096).unwrap();
        // SAFETY: a fresh shared mapping of the 4096-byte file; the kernel picks the address, and
        // the mapping is never unmapped while the process runs (the example exits after using it).
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        FloorPage { ptr: p.cast() }
    }

    fn word(&self, i: usize) -> &AtomicU32 {
        // SAFETY: i is 0 or 1 (64 bytes apart, inside the page); the page stays mapped; atomics
        // are valid for any bit pattern.
        unsafe { &*self.ptr.add(i * 16) }
    }

    /// Waits until word `i` holds `want`, sleeping on the futex.
    fn await_value(&self, i: usize, want: u32) {
        let w = self.word(i);
        loop {
            let v = w.load(Ordering::Acquire);
            if v == want {
                return;
            }
            futex::wait(w, v, Some(Duration::from_secs(5)));
        }
    }

    fn post(&self, i: usize, v: u32) {
        self.word(i).store(v, Ordering::Release);
        futex::wake(self.word(i), 1);
    }
}

fn floor(args: &[String], count: usize) {
    if let Some(i) = args.iter().position(|a| a == "--floor-echo") {
        let page = FloorPage::open(&args[i + 1], false);
        for n in 1..=count as u32 + 200 {
            page.await_value(0, n);
            page.post(1, n);
        }
        return;
    }
    let path = format!("/dev/shm/hdds-floor-{}", std::process::id());
    let page = FloorPage::open(&path, true);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(args[1..].iter().cloned().chain(["--floor-echo".into(), path.clone()]))
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let mut one_way = Vec::with_capacity(count);
    for n in 1..=count as u32 + 200 {
        let t = Instant::now();
        page.post(0, n);
        page.await_value(1, n);
        if n > 200 {
            one_way.push(t.elapsed().as_secs_f64() * 1e6 / 2.0);
        }
    }
    let _ = child.wait();
    let _ = std::fs::remove_file(&path);
    report("floor", 4, &mut one_way, 0);
}

fn report(path: &str, size: usize, one_way: &mut [f64], shm_read: u64) {
    one_way.sort_by(|a, b| a.total_cmp(b));
    let q = |f: f64| one_way.get(((one_way.len() as f64 - 1.0) * f) as usize).copied().unwrap_or(f64::NAN);
    println!(
        "{path:8} size {size:>9} B  one-way µs: p50 {:8.1}  p90 {:8.1}  p99 {:8.1}  (n={}, shm read {shm_read})",
        q(0.5),
        q(0.9),
        q(0.99),
        one_way.len(),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let value = |f: &str, d: usize| {
        args.iter().position(|a| a == f).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(d)
    };
    let (udp, busy) = (flag("--udp"), flag("--busy"));
    let size = value("--size", 64).max(8);
    let count = value("--count", 2000);
    if flag("--floor") {
        return floor(&args, count);
    }
    let qos = Qos { history: History::KeepLast(4), ..Qos::default() };
    if flag("--echo") {
        let tag = args[args.iter().position(|a| a == "--tag").unwrap() + 1].clone();
        let p = participant(udp, busy, &tag);
        let r = p.create_reader("ping", T, qos).unwrap();
        let w = p.create_writer("pong", T, qos).unwrap();
        while let Some(s) = take_one(&r, Duration::from_secs(10)) {
            w.write(&s.data).unwrap();
        }
        return;
    }
    let tag = format!("hdds-pingpong-{}", std::process::id());
    let p = participant(udp, busy, &tag);
    let w = p.create_writer("ping", T, qos).unwrap();
    let r = p.create_reader("pong", T, qos).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(args[1..].iter().cloned().chain(["--echo".into(), "--tag".into(), tag]))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    while (w.matched_reader_count() == 0 || r.matched_writer_count() == 0) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut payload = vec![0u8; size];
    let mut one_way = Vec::with_capacity(count);
    for i in 0..count + 200 {
        payload[4..8].copy_from_slice(&(i as u32).to_le_bytes());
        let t = Instant::now();
        w.write(&payload).unwrap();
        let Some(s) = take_one(&r, Duration::from_secs(5)) else {
            eprintln!("no pong for ping {i}");
            break;
        };
        let rtt = t.elapsed();
        assert_eq!(s.data[4..8], payload[4..8]);
        if i >= 200 {
            one_way.push(rtt.as_secs_f64() * 1e6 / 2.0);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let path = if udp {
        "udp"
    } else if busy {
        "shm-busy"
    } else {
        "shm"
    };
    report(path, size, &mut one_way, p.network_stats().unwrap().shm_samples_read);
}
