//! hdds-udp-floor: the floor under any RTPS latency, a raw UDP ping/pong between two processes
//! (blocking sockets, one thread each, no DDS at all). A DDS round trip cannot beat it; the
//! benchmark reports the engine's round trip as a multiple of it.

use std::net::{SocketAddr, UdpSocket};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use hdds_tools::json::Object;
use hdds_tools::{usage_error, Args, LatencyStats};

const HELP: &str = "\
hdds-udp-floor: raw UDP ping/pong round-trip time, the floor under a DDS round trip

usage: hdds-udp-floor pong --bind ADDR:PORT [--duration SECS]
       hdds-udp-floor ping --to ADDR:PORT [--size BYTES] [--duration SECS] [--warmup SECS] [--json]
  pong            echo every datagram back to its sender
  ping            send a datagram, wait for its echo, repeat; report the round-trip time
  --bind ADDR     pong: where to listen, e.g. 127.0.0.1:7399
  --to ADDR       ping: the pong's address
  --size BYTES    datagram size, 8..65507 (default 64)
  --duration SECS ping: measure this long after the warm-up (default 5);
                  pong: stop after this long (default: until killed)
  --warmup SECS   ping: round trips of the first SECS are not counted (default 1)
  --timeout SECS  ping: give up when an echo is missing for this long (default 10)
  --json          ping: print the result as one JSON object";

fn main() -> ExitCode {
    let (mode, args) = Args::with_mode_from_env();
    if args.flag("help") || mode.is_none() {
        println!("{HELP}");
        return if mode.is_none() && !args.flag("help") { ExitCode::from(2) } else { ExitCode::SUCCESS };
    }
    args.check_known(&["bind", "to", "size", "duration", "warmup", "timeout"], &["json"]);
    let result = match mode.as_deref() {
        Some("pong") => {
            let bind: SocketAddr = args.maybe("bind").unwrap_or_else(|| usage_error("pong needs --bind ADDR:PORT"));
            pong(bind, args.maybe_seconds("duration"))
        }
        Some("ping") => {
            let to: SocketAddr = args.maybe("to").unwrap_or_else(|| usage_error("ping needs --to ADDR:PORT"));
            let size: usize = args.value("size", 64);
            if !(8..=65_507).contains(&size) {
                usage_error("--size must be 8..65507 (an 8-byte counter; the largest UDP/IPv4 payload)");
            }
            let o = PingOpts {
                to,
                size,
                duration: args.seconds("duration", 5.0),
                warmup: args.seconds("warmup", 1.0),
                timeout: args.seconds("timeout", 10.0),
            };
            ping(&o, args.flag("json"))
        }
        Some(other) => usage_error(&format!("unknown mode {other:?}: expected ping or pong")),
        None => unreachable!("handled above"),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn pong(bind: SocketAddr, duration: Option<Duration>) -> Result<(), String> {
    let sock = UdpSocket::bind(bind).map_err(|e| format!("binding {bind}: {e}"))?;
    // Wake up now and then to check the deadline.
    sock.set_read_timeout(Some(Duration::from_millis(200))).map_err(|e| e.to_string())?;
    let end = duration.map(|d| Instant::now() + d);
    let mut buf = vec![0u8; 65_536];
    let mut echoed = 0u64;
    while end.map_or(true, |e| Instant::now() < e) {
        match sock.recv_from(&mut buf) {
            Ok((n, from)) => {
                sock.send_to(&buf[..n], from).map_err(|e| format!("echoing to {from}: {e}"))?;
                echoed += 1;
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(e) => return Err(format!("receiving: {e}")),
        }
    }
    println!("[pong] echoed {echoed} datagrams");
    Ok(())
}

struct PingOpts {
    to: SocketAddr,
    size: usize,
    duration: Duration,
    warmup: Duration,
    timeout: Duration,
}

fn ping(o: &PingOpts, json: bool) -> Result<(), String> {
    let any: SocketAddr = if o.to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" }.parse().expect("literal address");
    let sock = UdpSocket::bind(any).map_err(|e| format!("binding: {e}"))?;
    sock.connect(o.to).map_err(|e| format!("connecting to {}: {e}", o.to))?;
    // A lost datagram (the pong not started yet) is resent after this long.
    sock.set_read_timeout(Some(Duration::from_millis(100))).map_err(|e| e.to_string())?;
    let mut out = vec![0u8; o.size];
    let mut buf = vec![0u8; 65_536];
    let start = Instant::now();
    let measure_from = start + o.warmup;
    let mut rtts = Vec::with_capacity(1 << 20);
    let mut timeouts = 0u64;
    let mut last_echo = start;
    let mut n = 0u64;
    loop {
        let now = Instant::now();
        if now >= measure_from + o.duration {
            break;
        }
        if now.duration_since(last_echo) >= o.timeout {
            return Err(format!("no echo from {} for {:?} (is `hdds-udp-floor pong` running?)", o.to, o.timeout));
        }
        n += 1;
        out[..8].copy_from_slice(&n.to_le_bytes());
        let t0 = Instant::now();
        sock.send(&out).map_err(|e| format!("sending to {}: {e}", o.to))?;
        loop {
            match sock.recv(&mut buf) {
                Ok(len) if len >= 8 && buf[..8] == n.to_le_bytes() => {
                    let t1 = Instant::now();
                    last_echo = t1;
                    if t0 >= measure_from {
                        rtts.push((t1 - t0).as_nanos() as i64);
                    }
                    break;
                }
                Ok(_) => {} // the echo of an earlier, timed-out datagram
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                    timeouts += 1;
                    break;
                }
                // ECONNREFUSED: the pong is not listening yet.
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                    std::thread::sleep(Duration::from_millis(10));
                    break;
                }
                Err(e) => return Err(format!("receiving: {e}")),
            }
        }
    }
    let stats = LatencyStats::new(rtts);
    if stats.is_empty() {
        return Err("no round trip measured".into());
    }
    if json {
        let mut o2 = Object::new();
        o2.str("tool", "hdds-udp-floor")
            .str("mode", "ping")
            .num("size", o.size as f64)
            .num("timeouts", timeouts as f64)
            .obj("rtt", &stats.to_json());
        println!("{o2}");
    } else {
        let p = |q| hdds_tools::us(stats.percentile(q));
        println!(
            "[ping] {} B: {} round trips, {timeouts} timeouts | rtt min {} p50 {} p90 {} p99 {} max {} us",
            o.size,
            stats.len(),
            p(0.0),
            p(50.0),
            p(90.0),
            p(99.0),
            p(100.0)
        );
    }
    Ok(())
}
