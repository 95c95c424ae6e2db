//! One-way latency between two processes of this host, over shared memory or over UDP loopback: a
//! quick check of the shared-memory path (the side-by-side benchmark is hdds_tools' business).
//!
//! `cargo run --release -p hdds_core --example shm_pingpong -- [--udp] [--busy] [--size BYTES]
//! [--count N]` starts itself again as the echo process, sends N pings (after 200 warm-up ones),
//! each once the previous pong arrived, and prints the round trip halved: median, p90, p99 in µs.
//! Both processes wait in `Reader::wait_for_data` (a sleeping reader); `--busy` makes the engine's
//! shared-memory thread poll instead of sleeping. Loopback only, a domain tag of its own.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hdds_core::qos::History;
use hdds_core::{NetworkConfig, Participant, ParticipantConfig, Qos, Reader, SharedMemoryConfig};

const T: &str = "hdds::bench::Bytes_";

fn participant(udp: bool, busy: bool, tag: &str) -> Participant {
    let mut shm = if udp { SharedMemoryConfig::disabled() } else { SharedMemoryConfig::default() };
    if busy {
        shm.spin = Duration::MAX;
    }
    let net = NetworkConfig {
        domain_tag: tag.to_owned(),
        spdp_period: Duration::from_millis(200),
        spdp_peer_max_index: 4,
        shared_memory: shm,
        ..NetworkConfig::localhost()
    };
    Participant::with_network(ParticipantConfig { domain_id: 199, ..Default::default() }, net).expect("participant")
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let value = |f: &str, d: usize| {
        args.iter().position(|a| a == f).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(d)
    };
    let (udp, busy) = (flag("--udp"), flag("--busy"));
    let size = value("--size", 64).max(8);
    let count = value("--count", 2000);
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
    one_way.sort_by(|a, b| a.total_cmp(b));
    let q = |f: f64| one_way.get(((one_way.len() as f64 - 1.0) * f) as usize).copied().unwrap_or(f64::NAN);
    let path = if udp {
        "udp"
    } else if busy {
        "shm-busy"
    } else {
        "shm"
    };
    let s = p.network_stats().unwrap();
    println!(
        "{path:8} size {size:>9} B  one-way µs: p50 {:8.1}  p90 {:8.1}  p99 {:8.1}  (n={}, shm read {})",
        q(0.5),
        q(0.9),
        q(0.99),
        one_way.len(),
        s.shm_samples_read
    );
}
