//! hdds-latency-probe: round-trip latency through the hdds engine, by ping/pong, in the wire
//! format of Cyclone's `ddsperf` (topics DDSPerfRPingKS / DDSPerfRPongKS, type KeyedSeq; see
//! hdds_tools::ddsperf), so that `hdds-latency-probe ping` and `ddsperf ping` measure the same thing.
//!
//! - `ping`: writes a ping, waits for its pong, measures the round trip on its own clock, and
//!   sends the next ping at once (ddsperf's default, "ping upon receiving all expected pongs").
//!   A ping without a pong within the retry time is counted as a timeout and replaced.
//! - `pong`: answers every ping with the same sample on the pong topic.
//!
//! Threads: the engine's receive thread delivers into the reader's history; the tool's main
//! thread waits on it (`Reader::wait_for_data`, ddsperf's "waitset" mode), takes and writes.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use hdds_core::qos::{History, Reliability};
use hdds_core::{Qos, Reader, Writer};
use hdds_tools::ddsperf::{self, Topic};
use hdds_tools::json::Object;
use hdds_tools::net::{NET_FLAGS, NET_HELP, NET_OPTIONS};
use hdds_tools::{usage_error, Args, LatencyStats, NetOpts};

const HELP: &str = "\
hdds-latency-probe: round-trip latency through the hdds engine (ping/pong, ddsperf's wire format)

usage: hdds-latency-probe ping [--size S] [--duration SECS | --count N] [--warmup SECS] [--json]
                               [--best-effort] [--timeout SECS] [network options]
       hdds-latency-probe pong [--duration SECS] [--best-effort] [network options]
  ping            send pings, each as soon as the previous one's pong arrived, and report the
                  round-trip time: min, p50, p90, p99, max, mean (microseconds)
  pong            answer every ping (also those of Cyclone's `ddsperf ping`)
  --size S        serialized sample size in bytes, at least 12, as ddsperf's `size S` (default 64)
  --duration SECS ping: measure this long after the warm-up (default 5);
                  pong: answer this long, then stop (default: until killed)
  --count N       ping: stop after N measured round trips instead
  --warmup SECS   ping: round trips in the first SECS after the first pong are not counted (default 1)
  --retry SECS    ping: a pong missing after this long counts as a timeout, and a new ping goes
                  out (default 1, as ddsperf)
  --timeout SECS  give up when no peer answers within SECS (default 10)
  --best-effort   best-effort instead of reliable (topics DDSPerfU...)
  --json          ping: print the result as one JSON object instead of text
network options:";

const OPTIONS: &[&str] = &["size", "duration", "count", "warmup", "retry", "timeout"];
const FLAGS: &[&str] = &["json", "best-effort"];

fn main() -> ExitCode {
    let (mode, args) = Args::with_mode_from_env();
    if args.flag("help") || mode.is_none() {
        println!("{HELP}\n{NET_HELP}");
        return if mode.is_none() && !args.flag("help") { ExitCode::from(2) } else { ExitCode::SUCCESS };
    }
    args.check_known(&[OPTIONS, NET_OPTIONS].concat(), &[FLAGS, NET_FLAGS].concat());
    let reliable = !args.flag("best-effort");
    let net = NetOpts::parse(&args);
    let timeout = Duration::from_secs_f64(args.value("timeout", 10.0));
    match mode.as_deref() {
        Some("ping") => {
            let size: usize = args.value("size", 64);
            if size < ddsperf::FIXED_SIZE {
                usage_error("--size must be at least 12 (KeyedSeq's seq, keyval and baggage length)");
            }
            let o = PingOpts {
                size,
                count: args.maybe("count"),
                duration: Duration::from_secs_f64(args.value("duration", 5.0)),
                warmup: Duration::from_secs_f64(args.value("warmup", 1.0)),
                retry: Duration::from_secs_f64(args.value("retry", 1.0)),
                timeout,
                reliable,
            };
            ping(&net, &o, args.flag("json"))
        }
        Some("pong") => {
            let duration = args.maybe::<f64>("duration").map(Duration::from_secs_f64);
            pong(&net, reliable, duration)
        }
        Some(other) => usage_error(&format!("unknown mode {other:?}: expected ping or pong")),
        None => unreachable!("handled above"),
    }
}

/// ddsperf's ping/pong QoS: keep-last 1.
fn qos(reliable: bool) -> Qos {
    let reliability = if reliable { Reliability::Reliable } else { Reliability::BestEffort };
    Qos { reliability, history: History::KeepLast(1), ..Qos::default() }
}

struct PingOpts {
    size: usize,
    count: Option<u64>,
    duration: Duration,
    warmup: Duration,
    retry: Duration,
    timeout: Duration,
    reliable: bool,
}

/// What a run of pings measured.
struct PingResult {
    rtts_ns: Vec<i64>,
    timeouts: u64,
    measured_for: Duration,
}

fn ping(net: &NetOpts, o: &PingOpts, json: bool) -> ExitCode {
    let participant = net.participant();
    let ping_topic = ddsperf::topic_name(Topic::Ping, o.reliable);
    let pong_topic = ddsperf::topic_name(Topic::Pong, o.reliable);
    let writer = participant.create_writer(&ping_topic, ddsperf::TYPE_NAME, qos(o.reliable));
    let reader = participant.create_reader(&pong_topic, ddsperf::TYPE_NAME, qos(o.reliable));
    let (writer, reader) = match (writer, reader) {
        (Ok(w), Ok(r)) => (w, r),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: creating the ping writer and pong reader: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !json {
        println!("[ping] participant {} in domain {}: waiting for a pong", participant.guid(), net.domain_id);
    }
    let r = match run_pings(&writer, &reader, o) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("[ping] error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let stats = LatencyStats::new(r.rtts_ns);
    if json {
        let mut out = Object::new();
        out.str("tool", "hdds-latency-probe")
            .str("mode", "ping")
            .num("size", o.size as f64)
            .str("reliability", if o.reliable { "reliable" } else { "best-effort" })
            .num("timeouts", r.timeouts as f64)
            .num("seconds", r.measured_for.as_secs_f64())
            .obj("rtt", &stats.to_json());
        println!("{out}");
    } else {
        let p = |q| hdds_tools::us(stats.percentile(q));
        println!(
            "[ping] size {} B: {} round trips in {:.1} s, {} timeouts | rtt min {} p50 {} p90 {} p99 {} max {} mean {} us",
            o.size,
            stats.len(),
            r.measured_for.as_secs_f64(),
            r.timeouts,
            p(0.0),
            p(50.0),
            p(90.0),
            p(99.0),
            p(100.0),
            hdds_tools::us(stats.mean())
        );
    }
    if stats.is_empty() {
        eprintln!("[ping] error: no round trip measured");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Waits up to `limit` for the pong of ping `seq`; true when it arrived. Pongs of earlier
/// (timed-out) pings are dropped.
fn await_pong(reader: &Reader, seq: u32, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    loop {
        while let Some(s) = reader.take() {
            if ddsperf::seq(&s.data) == Some(seq) {
                return true;
            }
        }
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() || !reader.wait_for_data(left) {
            return false;
        }
    }
}

fn run_pings(writer: &Writer, reader: &Reader, o: &PingOpts) -> Result<PingResult, String> {
    let mut sample = ddsperf::sample(o.size);
    let mut seq = 0u32;
    let give_up = Instant::now() + o.timeout;
    // Until the first pong: ping often, the pong side may still be matching.
    loop {
        if Instant::now() >= give_up {
            return Err(format!(
                "no pong within {:?} (is `hdds-latency-probe pong` or `ddsperf pong` running in the same domain?)",
                o.timeout
            ));
        }
        seq = seq.wrapping_add(1);
        ddsperf::set_seq(&mut sample, seq);
        writer.write(&sample).map_err(|e| format!("write failed: {e}"))?;
        if await_pong(reader, seq, Duration::from_millis(50)) {
            break;
        }
    }
    let measure_from = Instant::now() + o.warmup;
    let mut rtts = Vec::with_capacity(1 << 20);
    let mut timeouts = 0u64;
    let mut consecutive_timeouts = 0u32;
    loop {
        let now = Instant::now();
        let measuring = now >= measure_from;
        if measuring {
            let done = match o.count {
                Some(n) => rtts.len() as u64 >= n,
                None => now >= measure_from + o.duration,
            };
            if done {
                break;
            }
        }
        seq = seq.wrapping_add(1);
        ddsperf::set_seq(&mut sample, seq);
        let t0 = Instant::now();
        writer.write(&sample).map_err(|e| format!("write failed: {e}"))?;
        if await_pong(reader, seq, o.retry) {
            let rtt = t0.elapsed();
            consecutive_timeouts = 0;
            if measuring {
                rtts.push(rtt.as_nanos() as i64);
            }
        } else {
            timeouts += 1;
            consecutive_timeouts += 1;
            if o.retry * consecutive_timeouts >= o.timeout {
                return Err(format!("the pong stopped answering ({consecutive_timeouts} pings in a row timed out)"));
            }
        }
    }
    let measured_for = Instant::now().saturating_duration_since(measure_from);
    Ok(PingResult { rtts_ns: rtts, timeouts, measured_for })
}

fn pong(net: &NetOpts, reliable: bool, duration: Option<Duration>) -> ExitCode {
    let participant = net.participant();
    let ping_topic = ddsperf::topic_name(Topic::Ping, reliable);
    let pong_topic = ddsperf::topic_name(Topic::Pong, reliable);
    let reader = participant.create_reader(&ping_topic, ddsperf::TYPE_NAME, qos(reliable));
    let writer = participant.create_writer(&pong_topic, ddsperf::TYPE_NAME, qos(reliable));
    let (reader, writer) = match (reader, writer) {
        (Ok(r), Ok(w)) => (r, w),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: creating the ping reader and pong writer: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("[pong] participant {} in domain {}: answering pings", participant.guid(), net.domain_id);
    let end = duration.map(|d| Instant::now() + d);
    let mut answered = 0u64;
    while end.map_or(true, |e| Instant::now() < e) {
        if !reader.wait_for_data(Duration::from_millis(100)) {
            continue;
        }
        while let Some(s) = reader.take() {
            if let Err(e) = writer.write(&s.data) {
                eprintln!("[pong] error: answering ping {:?}: {e}", ddsperf::seq(&s.data));
                return ExitCode::FAILURE;
            }
            answered += 1;
        }
    }
    println!("[pong] answered {answered} pings");
    ExitCode::SUCCESS
}
