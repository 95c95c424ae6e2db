//! Same-host latency of the engine and of its floors, one measurement per run: the Rust half of
//! bench/same_host.py (which interleaves the runs, repeats them, adds Cyclone's ddsperf and writes
//! results/same_host.*). It lives in hdds_tools, next to the other measuring tools, because it is a
//! program with a command line that starts itself again as the second process; hdds_core's
//! examples/shm_pingpong stays the quick manual check.
//!
//! `hdds-samehost-bench MODE [--size BYTES] [--count N] [--busy] [--spin-us N] [--no-yield] [--gap-us N]
//! [--fill] [--cpus A,B] [--network]` (`--no-yield`: `ParticipantConfig::yield_after_wake` off; `--network`, intra
//! modes: the participant on loopback with shared memory on, as an rmw_hdds node's) prints one
//! JSON line:
//! `{"mode", "size", "n", "p50_us", "p99_us", "cpu_us_per_msg", ...}`. Modes:
//! - `intra`: two threads of one process, a sleeping reader each, ping-pong over two topics of one
//!   participant with no network (write-to-take across threads with a wake-up); one-way = RTT/2;
//! - `intra-floor`: the same ping-pong over crossbeam channels, each hop doing what any DDS write
//!   must: take one mutex, read one timestamp, and hand the payload (the same buffer, moved) off;
//! - `intra-floor-condvar`: the same with a std mutex + condition variable mailbox instead of a
//!   channel (information: the floor is the crossbeam one);
//! - `intra-same-thread`: write then take on the same thread (no wake-up), per pair;
//! - `shm`: two processes, ping-pong through shared memory, each side waiting in
//!   `Reader::take_timeout` (`--busy`: `ParticipantConfig::busy_polling()`, the readers poll and
//!   take straight from the ring; `--spin-us N`: `ParticipantConfig::wait_spin`, the engine's
//!   default otherwise; `--spin-us 0`: they sleep at once on the doorbell);
//! - `floor-futex`, `floor-cacheline`, `floor-futex-copy`, `floor-cacheline-copy`: two processes
//!   handing a counter back and forth through one shared mapping: sleeping on a futex; spinning on
//!   a cache line; sleeping on a futex with the payload copied into the mapping by the sender and
//!   out of it by the receiver (two copies per direction, as a copying shared-memory transport
//!   must do); spinning, with those copies (the payload's lines cross besides the counter's: what
//!   a busy-polling transport's sample must at least cost);
//! - `loan`: two processes; the writer borrows a loan, fills it, stamps CLOCK_MONOTONIC into it as
//!   the last byte it writes, publishes; the reader takes a loan (`Reader::take_loan`: the payload
//!   read in place in the writer's ring) and reads the clock as soon as it holds it (one-way
//!   measured directly, filling and reading not counted); a 64 B pong paces the pings. The
//!   writer writes only the stamp and one byte (the engine lends a slot as an earlier sample left
//!   it, unzeroed); `--fill`: every byte first, as an application fills its sample.
//!
//! `--cpus A,B` (two-process modes): the first process runs on CPU A, the echo on CPU B. A
//! wake-up costs 2-5 µs when the scheduler puts both processes on one vCPU and 15-28 µs when it
//! crosses to the other, and which one a run gets is the scheduler's choice, not the code's: pinned,
//! every row of a comparison gets the same placement.
//!
//! Ping-pong modes report one-way = RTT/2. CPU is getrusage(RUSAGE_SELF) of both processes (every
//! thread, the engine's included) over the measured loop, divided by the messages sent (two per
//! round trip). Warm-up round trips are not measured. Loopback only, a domain tag of its own.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdds_core::qos::History;
use hdds_core::transport::shm::futex;
use hdds_core::{NetworkConfig, Participant, ParticipantConfig, Qos, Reader, SharedMemoryConfig};

const T: &str = "hdds::bench::Bytes_";
const WARMUP: usize = 100;

struct Args {
    all: Vec<String>,
    mode: String,
    size: usize,
    count: usize,
    busy: bool,
    /// `--spin-us N`: the participants' `wait_spin` (default: the engine's default).
    spin: Option<Duration>,
    /// `--no-yield`: the participants' `yield_after_wake` off.
    no_yield: bool,
    /// `loan`: the pinger works (spins) this long before each loan, leaving the echo idle as
    /// filling a large loan does (a diagnosis of the size dependence; 0 by default).
    gap: Duration,
    /// `--fill` (`loan`): the pinger writes every byte of each loan before the stamp, as an
    /// application filling its sample does (by default it writes only the bytes it reads back).
    fill: bool,
    /// `--network` (intra modes): the participant is on the network (loopback, shared memory on),
    /// as an rmw_hdds node's is, so each write also runs the RTPS machine and the ring's checks.
    network: bool,
}

impl Args {
    fn parse() -> Args {
        let all: Vec<String> = std::env::args().collect();
        let value = |f: &str| all.iter().position(|a| a == f).and_then(|i| all.get(i + 1)).cloned();
        let num = |f: &str, d: usize| value(f).and_then(|v| v.parse().ok()).unwrap_or(d);
        Args {
            mode: all.get(1).cloned().unwrap_or_default(),
            size: num("--size", 64).max(16),
            count: num("--count", 2000).max(1),
            busy: all.iter().any(|a| a == "--busy"),
            spin: value("--spin-us").and_then(|v| v.parse().ok()).map(Duration::from_micros),
            no_yield: all.iter().any(|a| a == "--no-yield"),
            gap: Duration::from_micros(num("--gap-us", 0) as u64),
            network: all.iter().any(|a| a == "--network"),
            fill: all.iter().any(|a| a == "--fill"),
            all: all.clone(),
        }
    }

    /// The participant configuration of `domain_id`, with `--busy`, `--spin-us` and `--no-yield`
    /// applied.
    fn participant_config(&self, domain_id: u32) -> ParticipantConfig {
        let pc = ParticipantConfig { domain_id, yield_after_wake: !self.no_yield, ..Default::default() };
        let pc = if self.busy { pc.busy_polling() } else { pc };
        ParticipantConfig { wait_spin: self.spin.unwrap_or(pc.wait_spin), ..pc }
    }

    fn value(&self, f: &str) -> Option<&str> {
        self.all.iter().position(|a| a == f).and_then(|i| self.all.get(i + 1)).map(String::as_str)
    }
}

/// CPU time (user + system) of this process so far, all threads.
fn cpu_s() -> f64 {
    // SAFETY: getrusage writes one rusage into the zeroed struct we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to our struct; RUSAGE_SELF needs nothing else.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// CLOCK_MONOTONIC in nanoseconds: the same clock in every process of the host.
fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into ours.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted.get(((sorted.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(f64::NAN)
}

/// Prints the result line. `one_way_us` unsorted; `cpu_s` of both processes; `messages` sent.
fn report(a: &Args, mut one_way_us: Vec<f64>, cpu_s: f64, messages: usize, extra: &str) {
    one_way_us.sort_by(f64::total_cmp);
    println!(
        "{{\"mode\": \"{}\", \"size\": {}, \"busy\": {}, \"n\": {}, \"p50_us\": {:.3}, \"p99_us\": {:.3}, \
         \"cpu_us_per_msg\": {:.3}{extra}}}",
        a.mode,
        a.size,
        a.busy,
        one_way_us.len(),
        quantile(&one_way_us, 0.5),
        quantile(&one_way_us, 0.99),
        cpu_s * 1e6 / messages.max(1) as f64,
    );
}

fn qos() -> Qos {
    Qos { history: History::KeepLast(4), ..Qos::default() }
}

/// `Reader::take_timeout` as a loan.
fn take_loan_one(r: &Reader, timeout: Duration) -> Option<hdds_core::ReaderLoan> {
    let end = Instant::now() + timeout;
    loop {
        if let Some(l) = r.take_loan() {
            return Some(l);
        }
        let left = end.checked_duration_since(Instant::now())?;
        r.wait_for_data(left);
    }
}

// ---------------------------------------------------------------- intra-process

/// The participant of the intra modes: with no network, or (`--network`) on loopback.
fn intra_participant(a: &Args) -> Participant {
    if a.network {
        participant(a, "intra")
    } else {
        Participant::new(a.participant_config(198)).expect("participant")
    }
}

fn intra(a: &Args) {
    let p = intra_participant(a);
    let (w_ping, r_ping) = (p.create_writer("ping", T, qos()).unwrap(), p.create_reader("ping", T, qos()).unwrap());
    let (w_pong, r_pong) = (p.create_writer("pong", T, qos()).unwrap(), p.create_reader("pong", T, qos()).unwrap());
    let total = a.count + WARMUP;
    let echo = std::thread::spawn(move || {
        for _ in 0..total {
            let s = r_ping.take_timeout(Duration::from_secs(5)).expect("ping");
            w_pong.write(&s.data).unwrap();
        }
    });
    let payload = vec![7u8; a.size];
    let mut lat = Vec::with_capacity(a.count);
    let mut cpu0 = 0.0;
    for i in 0..total {
        if i == WARMUP {
            cpu0 = cpu_s();
        }
        let t = Instant::now();
        w_ping.write(&payload).unwrap();
        r_pong.take_timeout(Duration::from_secs(5)).expect("pong");
        if i >= WARMUP {
            lat.push(t.elapsed().as_secs_f64() * 1e6 / 2.0);
        }
    }
    let cpu = cpu_s() - cpu0;
    echo.join().unwrap();
    drop(w_ping);
    report(a, lat, cpu, 2 * a.count, "");
}

/// One hop of the intra-process floor: the bookkeeping a write must do (one mutex, one
/// timestamp), then the hand-off of the payload itself (moved, not copied: the floor is the least
/// any same-process delivery can cost).
fn floor_hop(book: &Mutex<Instant>, payload: Vec<u8>, tx: &crossbeam_channel::Sender<Vec<u8>>) {
    *book.lock().unwrap() = Instant::now();
    tx.send(payload).unwrap();
}

fn intra_floor(a: &Args) {
    let (tx_ping, rx_ping) = crossbeam_channel::unbounded::<Vec<u8>>();
    let (tx_pong, rx_pong) = crossbeam_channel::unbounded::<Vec<u8>>();
    let book = Arc::new(Mutex::new(Instant::now()));
    let total = a.count + WARMUP;
    let book2 = Arc::clone(&book);
    let echo = std::thread::spawn(move || {
        for _ in 0..total {
            let v = rx_ping.recv().unwrap();
            floor_hop(&book2, v, &tx_pong);
        }
    });
    let mut payload = vec![7u8; a.size];
    let mut lat = Vec::with_capacity(a.count);
    let mut cpu0 = 0.0;
    for i in 0..total {
        if i == WARMUP {
            cpu0 = cpu_s();
        }
        let t = Instant::now();
        floor_hop(&book, payload, &tx_ping);
        payload = rx_pong.recv().unwrap();
        if i >= WARMUP {
            lat.push(t.elapsed().as_secs_f64() * 1e6 / 2.0);
        }
    }
    let cpu = cpu_s() - cpu0;
    echo.join().unwrap();
    report(a, lat, cpu, 2 * a.count, "");
}

/// A one-slot mailbox: the payload and a condition variable, as a plain std hand-off.
struct Mailbox {
    slot: Mutex<Option<Vec<u8>>>,
    cv: std::sync::Condvar,
}

impl Mailbox {
    fn new() -> Arc<Mailbox> {
        Arc::new(Mailbox { slot: Mutex::new(None), cv: std::sync::Condvar::new() })
    }

    fn put(&self, v: Vec<u8>) {
        *self.slot.lock().unwrap() = Some(v);
        self.cv.notify_one();
    }

    fn get(&self) -> Vec<u8> {
        let mut g = self.slot.lock().unwrap();
        loop {
            if let Some(v) = g.take() {
                return v;
            }
            g = self.cv.wait_timeout(g, Duration::from_secs(5)).unwrap().0;
        }
    }
}

/// A second intra-process floor: the payload handed over through a std mutex + condition
/// variable (one timestamp per hop as well): the wake-up the engine's `wait_for_data` uses.
fn intra_floor_condvar(a: &Args) {
    let (ping, pong) = (Mailbox::new(), Mailbox::new());
    let total = a.count + WARMUP;
    let (ping2, pong2) = (Arc::clone(&ping), Arc::clone(&pong));
    let echo = std::thread::spawn(move || {
        for _ in 0..total {
            let v = ping2.get();
            std::hint::black_box(Instant::now());
            pong2.put(v);
        }
    });
    let mut payload = vec![7u8; a.size];
    let mut lat = Vec::with_capacity(a.count);
    let mut cpu0 = 0.0;
    for i in 0..total {
        if i == WARMUP {
            cpu0 = cpu_s();
        }
        let t = Instant::now();
        std::hint::black_box(Instant::now());
        ping.put(payload);
        payload = pong.get();
        if i >= WARMUP {
            lat.push(t.elapsed().as_secs_f64() * 1e6 / 2.0);
        }
    }
    let cpu = cpu_s() - cpu0;
    echo.join().unwrap();
    report(a, lat, cpu, 2 * a.count, "");
}

fn intra_same_thread(a: &Args) {
    let p = intra_participant(a);
    let (w, r) = (p.create_writer("same", T, qos()).unwrap(), p.create_reader("same", T, qos()).unwrap());
    let payload = vec![7u8; a.size];
    let mut lat = Vec::with_capacity(a.count);
    let mut cpu0 = 0.0;
    for i in 0..a.count + WARMUP {
        if i == WARMUP {
            cpu0 = cpu_s();
        }
        let t = Instant::now();
        w.write(&payload).unwrap();
        r.take().expect("same-thread take");
        if i >= WARMUP {
            lat.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    report(a, lat, cpu_s() - cpu0, a.count, "");
}

// ---------------------------------------------------------------- two processes, engine

fn participant(a: &Args, tag: &str) -> Participant {
    let net = NetworkConfig {
        domain_tag: tag.to_owned(),
        spdp_period: Duration::from_millis(100),
        spdp_peer_max_index: 4,
        shared_memory: SharedMemoryConfig::default(),
        ..NetworkConfig::localhost()
    };
    Participant::with_network(a.participant_config(197), net).expect("participant")
}

/// Starts this program again as the echo side (`--echo TAG`); returns the child and its stdout.
fn spawn_echo(a: &Args, tag: &str) -> (std::process::Child, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(a.all[1..].iter().cloned().chain(["--echo".into(), tag.to_owned()]))
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the echo process");
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, out)
}

/// The echo's CPU seconds, its latencies (`loan`) and how many measured loans it read in place.
fn echo_result(mut child: std::process::Child, out: BufReader<std::process::ChildStdout>) -> (f64, Vec<f64>, usize) {
    let mut cpu = f64::NAN;
    let mut lat = Vec::new();
    let mut in_shm = 0;
    for line in out.lines().map_while(|l| l.ok()) {
        if let Some(v) = line.strip_prefix("cpu ") {
            cpu = v.trim().parse().unwrap_or(f64::NAN);
        } else if let Some(v) = line.strip_prefix("lat ") {
            lat = v.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        } else if let Some(v) = line.strip_prefix("inshm ") {
            in_shm = v.trim().parse().unwrap_or(0);
        }
    }
    let _ = child.wait();
    (cpu, lat, in_shm)
}

fn wait_matched(w: &hdds_core::Writer, r: &Reader) {
    let end = Instant::now() + Duration::from_secs(15);
    while (w.matched_reader_count() == 0 || r.matched_writer_count() == 0) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(w.matched_reader_count() > 0 && r.matched_writer_count() > 0, "the echo process was not discovered");
}

fn shm_echo(a: &Args, tag: &str) {
    let p = participant(a, tag);
    let r = p.create_reader("ping", T, qos()).unwrap();
    let w = p.create_writer("pong", T, qos()).unwrap();
    let mut cpu0 = 0.0;
    let mut lat = Vec::new();
    let loan = a.mode == "loan";
    let pong = [0u8; 64];
    let mut in_shm = 0;
    if loan {
        // From here on the reader takes loans: its samples stay in the writer's ring.
        let _ = r.take_loan();
    }
    for i in 0..a.count + WARMUP {
        if i == WARMUP {
            cpu0 = cpu_s();
        }
        if loan {
            let Some(l) = take_loan_one(&r, Duration::from_secs(10)) else {
                eprintln!("echo: no ping {i}");
                break;
            };
            let now = mono_ns();
            let d = l.data();
            let sent = u64::from_le_bytes(d[d.len() - 8..].try_into().unwrap());
            if i >= WARMUP {
                lat.push(now.saturating_sub(sent) as f64 / 1e3);
                in_shm += usize::from(l.in_shared_memory());
            }
            r.return_loan(l);
            w.write(&pong).unwrap();
            continue;
        }
        let Some(s) = r.take_timeout(Duration::from_secs(10)) else {
            eprintln!("echo: no ping {i}");
            break;
        };
        w.write(&s.data).unwrap();
    }
    println!("cpu {}", cpu_s() - cpu0);
    if loan {
        println!("inshm {in_shm}");
        let v: Vec<String> = lat.iter().map(|x| format!("{x:.3}")).collect();
        println!("lat {}", v.join(" "));
    }
    // Keep the participant until the pinger has its last pong.
    std::thread::sleep(Duration::from_millis(100));
}

fn shm(a: &Args) {
    if let Some(tag) = a.value("--echo") {
        return shm_echo(a, tag);
    }
    let tag = format!("hdds-samehost-bench-{}", std::process::id());
    let p = participant(a, &tag);
    let w = p.create_writer("ping", T, qos()).unwrap();
    let r = p.create_reader("pong", T, qos()).unwrap();
    let (child, out) = spawn_echo(a, &tag);
    wait_matched(&w, &r);
    let loan = a.mode == "loan";
    let mut payload = vec![0u8; a.size];
    let mut lat = Vec::with_capacity(a.count);
    let mut cpu0 = 0.0;
    let mut in_shm = true;
    for i in 0..a.count + WARMUP {
        if i == WARMUP {
            cpu0 = cpu_s();
        }
        let t = Instant::now();
        if loan {
            let busy_until = Instant::now() + a.gap;
            while Instant::now() < busy_until {
                std::hint::spin_loop();
            }
            let mut l = w.loan(a.size).unwrap();
            in_shm &= l.in_shared_memory();
            let buf = l.as_mut_slice();
            if a.fill {
                buf.fill(i as u8);
            }
            buf[4] = i as u8;
            let n = buf.len();
            buf[n - 8..].copy_from_slice(&mono_ns().to_le_bytes());
            l.publish().unwrap();
        } else {
            payload[4..8].copy_from_slice(&(i as u32).to_le_bytes());
            w.write(&payload).unwrap();
        }
        let Some(s) = r.take_timeout(Duration::from_secs(10)) else {
            eprintln!("no pong for ping {i}");
            std::process::exit(2);
        };
        if !loan {
            assert_eq!(s.data[4..8], payload[4..8], "pong out of order");
        }
        if i >= WARMUP && !loan {
            lat.push(t.elapsed().as_secs_f64() * 1e6 / 2.0);
        }
    }
    let cpu = cpu_s() - cpu0;
    let (echo_cpu, echo_lat, read_in_place) = echo_result(child, out);
    let stats = p.network_stats().unwrap();
    let extra = format!(
        ", \"shm_samples_read\": {}, \"shm_direct_takes\": {}, \"shm_reader_thread_wakeups\": {}, \"loan_in_shm\": {}, \"reader_loans_in_shm\": {}",
        stats.shm_samples_read,
        stats.shm_direct_takes,
        stats.shm_reader_thread_wakeups,
        loan && in_shm,
        read_in_place
    );
    report(a, if loan { echo_lat } else { lat }, cpu + echo_cpu, 2 * a.count, &extra);
}

// ---------------------------------------------------------------- two processes, floors

/// A shared mapping under /dev/shm: two futex words (64 bytes apart) and, for the copying floor,
/// a ping buffer and a pong buffer of `size` bytes each.
struct FloorMap {
    ptr: *mut u8,
    size: usize,
}

const FLOOR_HEADER: usize = 4096;

impl FloorMap {
    fn open(path: &str, size: usize, create: bool) -> FloorMap {
        use std::os::fd::AsRawFd;
        let f = std::fs::OpenOptions::new().read(true).write(true).create(create).open(path).expect("floor file");
        let len = FLOOR_HEADER + 2 * size;
        f.set_len(len as u64).unwrap();
        // SAFETY: a fresh shared mapping of the whole file; the kernel picks the address; it is
        // never unmapped while the process runs (the program exits after using it).
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED, "mmap of the floor file");
        FloorMap { ptr: p.cast(), size }
    }

    fn word(&self, i: usize) -> &AtomicU32 {
        // SAFETY: i is 0 or 1: offsets 0 and 64, inside the mapped header page, aligned; the
        // mapping stays; any bit pattern is a valid atomic.
        unsafe { &*self.ptr.add(i * 64).cast::<AtomicU32>() }
    }

    /// Buffer `i` (0: ping, 1: pong). Each side only writes a buffer before posting its word and
    /// only reads one after seeing the other side's post (Release/Acquire), so they never race.
    fn buf(&self, i: usize) -> *mut u8 {
        // SAFETY: inside the mapping (header + 2 buffers of `size`).
        unsafe { self.ptr.add(FLOOR_HEADER + i * self.size) }
    }

    fn copy_in(&self, i: usize, src: &[u8]) {
        // SAFETY: see buf(); src.len() == size; the other process does not touch buffer i until
        // our post.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.buf(i), src.len()) }
    }

    fn copy_out(&self, i: usize, dst: &mut [u8]) {
        // SAFETY: see buf(); dst.len() == size; the other process posted buffer i and does not
        // write it again before our next post.
        unsafe { std::ptr::copy_nonoverlapping(self.buf(i), dst.as_mut_ptr(), dst.len()) }
    }

    fn await_value(&self, i: usize, want: u32, spin: bool) {
        let w = self.word(i);
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let v = w.load(Ordering::Acquire);
            if v == want {
                return;
            }
            if spin {
                std::hint::spin_loop();
                if v & 0xfff == 0 && Instant::now() > end {
                    panic!("floor: the other process stopped");
                }
            } else {
                futex::wait(w, v, Some(Duration::from_secs(10)));
                assert!(Instant::now() < end, "floor: the other process stopped");
            }
        }
    }

    fn post(&self, i: usize, v: u32, spin: bool) {
        self.word(i).store(v, Ordering::Release);
        if !spin {
            futex::wake(self.word(i), 1);
        }
    }
}

fn floor(a: &Args) {
    let spin = a.mode.starts_with("floor-cacheline");
    let copy = a.mode.ends_with("-copy");
    let size = if copy { a.size } else { 0 };
    let total = (a.count + WARMUP) as u32;
    let mut private = vec![0u8; size];
    if let Some(path) = a.value("--echo") {
        let m = FloorMap::open(path, size, false);
        println!("ready");
        let mut cpu0 = 0.0;
        for n in 1..=total {
            if n as usize == WARMUP + 1 {
                cpu0 = cpu_s();
            }
            m.await_value(0, n, spin);
            if copy {
                m.copy_out(0, &mut private);
                m.copy_in(1, &private);
            }
            m.post(1, n, spin);
        }
        println!("cpu {}", cpu_s() - cpu0);
        return;
    }
    let path = format!("/dev/shm/hdds-samehost-floor-{}", std::process::id());
    let m = FloorMap::open(&path, size, true);
    let (child, mut out) = spawn_echo(a, &path);
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready", "floor echo did not start");
    let payload = vec![7u8; size];
    let mut lat = Vec::with_capacity(a.count);
    let mut cpu0 = 0.0;
    for n in 1..=total {
        if n as usize == WARMUP + 1 {
            cpu0 = cpu_s();
        }
        let t = Instant::now();
        if copy {
            m.copy_in(0, &payload);
        }
        m.post(0, n, spin);
        m.await_value(1, n, spin);
        if copy {
            m.copy_out(1, &mut private);
        }
        if n as usize > WARMUP {
            lat.push(t.elapsed().as_secs_f64() * 1e6 / 2.0);
        }
    }
    let cpu = cpu_s() - cpu0;
    let (echo_cpu, _, _) = echo_result(child, out);
    let _ = std::fs::remove_file(&path);
    report(a, lat, cpu + echo_cpu, 2 * a.count, "");
}

/// `--cpus A,B`: pins this process (before it starts any thread, so every thread it starts
/// inherits the mask) to A, or to B when it is the echo. Both must be CPUs the first process may
/// run on (checked there, before the echo is started).
fn pin(a: &Args) {
    let Some(cpus) = a.value("--cpus") else { return };
    let fail = |why: String| -> ! {
        eprintln!("--cpus {cpus}: {why}");
        std::process::exit(2);
    };
    // Every part must be a number: "0,x,1" is refused, not read as "0,1".
    let parsed: Option<Vec<usize>> = cpus.split(',').map(|c| c.trim().parse().ok()).collect();
    let Some([first, echo]) = parsed.as_deref() else { fail("takes two CPU numbers, A,B".into()) };
    let (first, echo) = (*first, *echo);
    let is_echo = a.value("--echo").is_some();
    // SAFETY: a zeroed cpu_set_t is the empty set; sched_getaffinity fills the set we own.
    let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer and size are those of our set.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed) } != 0 {
        fail(format!("cannot read the CPU mask: {}", std::io::Error::last_os_error()));
    }
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    for cpu in [first, echo] {
        // The echo inherits the first process's pinned mask: only that one checks the machine's.
        // SAFETY: cpu < max, inside the set.
        if cpu >= max || (!is_echo && !unsafe { libc::CPU_ISSET(cpu, &allowed) }) {
            fail(format!("this process may not run on CPU {cpu}"));
        }
    }
    let mine = if is_echo { echo } else { first };
    // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET writes inside it (mine < max, checked
    // above), and sched_setaffinity reads the set we own.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(mine, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc != 0 {
        fail(format!("cannot run on CPU {mine}: {}", std::io::Error::last_os_error()));
    }
}

fn main() {
    let a = Args::parse();
    pin(&a);
    match a.mode.as_str() {
        "intra" => intra(&a),
        "intra-floor" => intra_floor(&a),
        "intra-floor-condvar" => intra_floor_condvar(&a),
        "intra-same-thread" => intra_same_thread(&a),
        "shm" | "loan" => shm(&a),
        "floor-futex" | "floor-cacheline" | "floor-futex-copy" | "floor-cacheline-copy" => floor(&a),
        _ => {
            eprintln!(
                "usage: hdds-samehost-bench intra|intra-floor|intra-floor-condvar|intra-same-thread|shm|loan|floor-futex|\
                 floor-cacheline|floor-futex-copy|floor-cacheline-copy [--size BYTES] [--count N] [--busy] [--cpus A,B]"
            );
            std::process::exit(2);
        }
    }
}
