//! hdds-perf: publish/subscribe throughput and latency through the hdds engine, in the wire
//! format of Cyclone's `ddsperf pub` / `ddsperf sub` (topic DDSPerfRDataKS, type KeyedSeq; see
//! hdds_tools::ddsperf), with a live progress line and `--json` for scripts.
//!
//! Threads: `pub` writes from the main thread (a reliable KEEP_ALL write waits while the history
//! is full of unacknowledged samples: that is the flow control); `sub` takes what the engine's
//! receive thread delivered in the reader's data listener, on that thread (`--mode listener`), or
//! on the main thread (`--mode waitset`).

use std::io::{IsTerminal, Write as _};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdds_core::qos::{History, Reliability};
use hdds_core::wire::Guid;
use hdds_core::{KeyHashFn, NetworkConfig, Qos, Reader, Writer};
use hdds_tools::ddsperf::{self, Topic};
use hdds_tools::json::Object;
use hdds_tools::net::{NET_FLAGS, NET_HELP, NET_OPTIONS};
use hdds_tools::{usage_error, Args, LatencyStats, NetOpts};

const HELP: &str = "\
hdds-perf: publish/subscribe throughput and latency through the hdds engine (ddsperf's wire format)

usage: hdds-perf pub [--size S] [--duration SECS] [--rate HZ] [--keep-last N] [--best-effort] [--json]
                     [--no-batching]
       hdds-perf sub [--duration SECS] [--idle SECS] [--warmup SECS] [--keep-last N] [--best-effort] [--json]
                     [--mode waitset|listener]
  pub             publish KeyedSeq samples on DDSPerfRDataKS (as `ddsperf pub`)
  sub             receive them and report throughput, losses and write-to-take latency
  --size S        serialized sample size in bytes, at least 12, as ddsperf's `size S` (default 64)
  --duration SECS pub: publish this long (default 5); sub: stop after this long (default 30)
  --rate HZ       pub: samples per second; 0 = as fast as the readers take them (default 0)
  --idle SECS     sub: stop when nothing arrived for this long after the first sample (default 1)
  --warmup SECS   sub: samples of the first SECS after the first one are not counted (default 1)
  --keep-last N   KEEP_LAST N instead of KEEP_ALL (the default, as ddsperf's)
  --mode M        sub: take on the main thread (waitset) or in the reader's data listener on the
                  engine's receive thread (listener, the default), as ddsperf's modes
  --timeout SECS  pub: give up when no subscriber matched within SECS (default 10)
  --best-effort   best-effort instead of reliable (topic DDSPerfUDataKS)
  --no-batching   pub: one datagram per sample; by default samples written in a burst share
                  datagrams (write batching, as ddsperf turns on)
  --json          print the result as one JSON object (the progress line goes to stderr)
network options:";

const OPTIONS: &[&str] = &["size", "duration", "rate", "idle", "warmup", "keep-last", "timeout", "mode"];
const FLAGS: &[&str] = &["json", "best-effort", "no-batching"];

fn main() -> ExitCode {
    let (mode, args) = Args::with_mode_from_env();
    if args.flag("help") || mode.is_none() {
        println!("{HELP}\n{NET_HELP}");
        return if mode.is_none() && !args.flag("help") { ExitCode::from(2) } else { ExitCode::SUCCESS };
    }
    args.check_known(&[OPTIONS, NET_OPTIONS].concat(), &[FLAGS, NET_FLAGS].concat());
    let reliable = !args.flag("best-effort");
    let history = match args.maybe::<u32>("keep-last") {
        Some(0) => usage_error("--keep-last needs at least 1"),
        Some(n) => History::KeepLast(n),
        None => History::KeepAll,
    };
    let qos = Qos {
        reliability: if reliable { Reliability::Reliable } else { Reliability::BestEffort },
        history,
        // ddsperf's data writer blocks up to 10 s when its history is full.
        max_blocking_time: Duration::from_secs(10),
        ..Qos::default()
    };
    let o = Opts {
        net: NetOpts::parse(&args),
        topic: ddsperf::topic_name(Topic::Data, reliable),
        qos,
        json: args.flag("json"),
        listener: ddsperf::listener_mode(&args),
    };
    match mode.as_deref() {
        Some("pub") => {
            let size = ddsperf::sample_size(&args);
            let p = PubOpts {
                size,
                duration: args.seconds("duration", 5.0),
                period: args.period("rate", 0.0),
                timeout: args.seconds("timeout", 10.0),
                batching: !args.flag("no-batching"),
            };
            publisher(&o, &p)
        }
        Some("sub") => {
            let s = SubOpts {
                duration: args.seconds("duration", 30.0),
                idle: args.seconds("idle", 1.0),
                warmup: args.seconds("warmup", 1.0),
            };
            subscriber(&o, &s)
        }
        Some(other) => usage_error(&format!("unknown mode {other:?}: expected pub or sub")),
        None => unreachable!("handled above"),
    }
}

struct Opts {
    net: NetOpts,
    topic: String,
    qos: Qos,
    json: bool,
    /// sub: take in the reader's data listener (on the receive thread), not on the main thread.
    listener: bool,
}

struct PubOpts {
    size: usize,
    duration: Duration,
    /// --rate as the time between two samples; None: as fast as possible.
    period: Option<Duration>,
    timeout: Duration,
    batching: bool,
}

struct SubOpts {
    duration: Duration,
    idle: Duration,
    warmup: Duration,
}

/// The once-a-second progress line on stderr: rewritten in place on a terminal, one line each
/// time otherwise (logs stay readable).
struct Progress {
    tty: bool,
    start: Instant,
    last: Instant,
    last_count: u64,
    last_bytes: u64,
}

impl Progress {
    fn new() -> Self {
        let now = Instant::now();
        Progress { tty: std::io::stderr().is_terminal(), start: now, last: now, last_count: 0, last_bytes: 0 }
    }

    /// Prints when a second has passed since the last line.
    fn tick(&mut self, what: &str, count: u64, bytes: u64, extra: &str) {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
        if dt < 1.0 {
            return;
        }
        let rate = (count - self.last_count) as f64 / dt;
        let mbit = (bytes - self.last_bytes) as f64 * 8.0 / dt / 1e6;
        let line = format!(
            "[{what}] {:6.1} s: {count} samples, {rate:.0} samples/s, {mbit:.1} Mb/s{extra}",
            now.duration_since(self.start).as_secs_f64()
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.tty { write!(err, "\r{line}\x1b[K") } else { writeln!(err, "{line}") };
        let _ = err.flush();
        (self.last, self.last_count, self.last_bytes) = (now, count, bytes);
    }

    fn finish(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

fn wait_matched(writer: &Writer, timeout: Duration) -> bool {
    let end = Instant::now() + timeout;
    while writer.matched_reader_count() == 0 {
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

fn publisher(o: &Opts, p: &PubOpts) -> ExitCode {
    let config = NetworkConfig { write_batching: p.batching, ..o.net.network_config() };
    let participant = o.net.participant_with(config, ddsperf::user_data(false));
    let writer = match participant.create_keyed_writer(&o.topic, ddsperf::TYPE_NAME, o.qos) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("[pub] error: creating the writer: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !wait_matched(&writer, p.timeout) {
        eprintln!(
            "[pub] error: no subscriber matched within {:?} (is `hdds-perf sub` or `ddsperf sub` running?)",
            p.timeout
        );
        return ExitCode::FAILURE;
    }
    let udp_drops_before = udp_receive_drops();
    let mut sample = ddsperf::sample(p.size);
    let key = ddsperf::key_hash(&sample, false).expect("a sample made by ddsperf::sample has a key");
    let period = p.period;
    let mut progress = Progress::new();
    let start = Instant::now();
    let end = start + p.duration;
    let mut written = 0u64;
    let mut seq = 0u32;
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        seq = seq.wrapping_add(1);
        ddsperf::set_seq(&mut sample, seq);
        if let Err(e) = writer.write_keyed(&sample, key) {
            progress.finish();
            eprintln!("[pub] error: write #{seq} failed: {e}");
            return ExitCode::FAILURE;
        }
        written += 1;
        // Every 256 writes is often enough for a once-a-second line.
        if written % 256 == 0 {
            progress.tick("pub", written, written * p.size as u64, "");
        }
        if let Some(period) = period {
            if let Some(wait) = (start + period * (written as u32)).checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
    writer.flush();
    let took = start.elapsed();
    progress.finish();
    let acked =
        o.qos.reliability == Reliability::BestEffort || writer.wait_for_acknowledgments(Duration::from_secs(10));
    let rate = written as f64 / took.as_secs_f64();
    if o.json {
        let mut out = Object::new();
        out.str("tool", "hdds-perf")
            .str("mode", "pub")
            .num("size", p.size as f64)
            .num("written", written as f64)
            .num("seconds", took.as_secs_f64())
            .num("samples_per_s", rate)
            .num("mbit_per_s", rate * p.size as f64 * 8.0 / 1e6)
            .obj("protocol", &writer_counters(&writer, &participant, udp_drops_before));
        println!("{out}");
    } else {
        println!("[pub] wrote {written} samples of {} B in {:.2} s: {rate:.0} samples/s", p.size, took.as_secs_f64());
    }
    if !acked {
        eprintln!("[pub] error: the subscribers did not acknowledge everything within 10 s");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// What a subscriber counts, batch by batch (what one take loop found), whoever takes.
struct Counter {
    received: u64,
    bytes: u64,
    /// Sequence numbers skipped (per writer, as ddsperf counts them).
    lost: u64,
    next_seq: Vec<(Guid, u32)>,
    /// Received within the measuring window, which opens after the warm-up, at the end of a
    /// batch (it counts whole batches), and closes with the last batch.
    window_received: u64,
    window_bytes: u64,
    window_first: Option<Instant>,
    window_last: Option<Instant>,
    first: Option<Instant>,
    last: Instant,
    latencies_ns: Vec<i64>,
    warmup: Duration,
    progress: Progress,
}

impl Counter {
    fn new(warmup: Duration) -> Counter {
        Counter {
            received: 0,
            bytes: 0,
            lost: 0,
            next_seq: Vec::new(),
            window_received: 0,
            window_bytes: 0,
            window_first: None,
            window_last: None,
            first: None,
            last: Instant::now(),
            latencies_ns: Vec::with_capacity(1 << 20),
            warmup,
            progress: Progress::new(),
        }
    }

    /// Takes everything `reader` holds, as one batch.
    fn take_batch(&mut self, reader: &Reader) {
        let now = Instant::now();
        let start = *self.first.get_or_insert(now);
        let counting = self.window_first.is_some();
        let mut any = false;
        while let Some(sample) = reader.take() {
            any = true;
            let Some(seq) = ddsperf::seq(&sample.data) else { continue };
            let writer = sample.info.writer_guid;
            match self.next_seq.iter_mut().find(|(w, _)| *w == writer) {
                Some((_, next)) => {
                    self.lost += u64::from(seq.wrapping_sub(*next).min(1 << 20));
                    *next = seq.wrapping_add(1);
                }
                None => self.next_seq.push((writer, seq.wrapping_add(1))),
            }
            let len = (sample.data.len() - 4) as u64;
            self.received += 1;
            self.bytes += len;
            if counting {
                self.window_received += 1;
                self.window_bytes += len;
                self.latencies_ns.push(hdds_core::time::now() - sample.info.source_timestamp);
            }
        }
        if !any {
            return;
        }
        self.last = Instant::now();
        if counting {
            self.window_last = Some(self.last);
        } else if now >= start + self.warmup {
            self.window_first = Some(self.last);
        }
        let lost = format!(", {} lost", self.lost);
        self.progress.tick("sub", self.received, self.bytes, &lost);
    }

    /// Whether to stop: the duration is over, or nothing came for `idle` after the first sample.
    fn finished(&self, s: &SubOpts, end: Instant) -> bool {
        let now = Instant::now();
        now >= end || self.first.is_some() && now.duration_since(self.last) >= s.idle
    }
}

fn subscriber(o: &Opts, s: &SubOpts) -> ExitCode {
    let participant = o.net.participant_with(o.net.network_config(), ddsperf::user_data(true));
    let key_hash_of: KeyHashFn = Arc::new(ddsperf::key_hash);
    let reader = match participant.create_keyed_reader(&o.topic, ddsperf::TYPE_NAME, o.qos, Some(key_hash_of)) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            eprintln!("[sub] error: creating the reader: {e}");
            return ExitCode::FAILURE;
        }
    };
    let udp_drops_before = udp_receive_drops();
    let c = match o.listener {
        false => receive_waitset(&reader, s),
        true => receive_listener(&reader, s),
    };
    c.progress.finish();
    let window = match (c.window_first, c.window_last) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => Duration::ZERO,
    };
    let secs = window.as_secs_f64();
    let rate = if secs > 0.0 { c.window_received as f64 / secs } else { 0.0 };
    let mbit = if secs > 0.0 { c.window_bytes as f64 * 8.0 / secs / 1e6 } else { 0.0 };
    let lat = LatencyStats::new(c.latencies_ns);
    if o.json {
        let mut out = Object::new();
        out.str("tool", "hdds-perf")
            .str("mode", "sub")
            .str("delivery", if o.listener { "listener" } else { "waitset" })
            .num("received", c.received as f64)
            .num("lost", c.lost as f64)
            .num("seconds", secs)
            .num("samples_per_s", rate)
            .num("mbit_per_s", mbit)
            .obj("latency", &lat.to_json())
            .obj("protocol", &reader_counters(&reader, &participant, udp_drops_before));
        println!("{out}");
    } else {
        println!(
            "[sub] received {} samples, {} lost | {rate:.0} samples/s, {mbit:.1} Mb/s over {secs:.2} s | latency p50 {} p99 {} us",
            c.received,
            c.lost,
            hdds_tools::us(lat.percentile(50.0)),
            hdds_tools::us(lat.percentile(99.0))
        );
    }
    if c.received == 0 {
        eprintln!("[sub] error: nothing received within {:?}", s.duration);
        return ExitCode::FAILURE;
    }
    if c.lost > 0 && o.qos.reliability == Reliability::Reliable && o.qos.history == History::KeepAll {
        eprintln!("[sub] error: {} samples lost on a reliable KEEP_ALL topic", c.lost);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn receive_waitset(reader: &Reader, s: &SubOpts) -> Counter {
    let mut c = Counter::new(s.warmup);
    let end = Instant::now() + s.duration;
    while !c.finished(s, end) {
        if reader.wait_for_data(Duration::from_millis(50)) {
            c.take_batch(reader);
        }
    }
    c
}

fn receive_listener(reader: &Arc<Reader>, s: &SubOpts) -> Counter {
    let shared = Arc::new(Mutex::new(Counter::new(s.warmup)));
    {
        let (shared, weak) = (Arc::clone(&shared), Arc::downgrade(reader));
        reader.set_data_listener(Some(Arc::new(move |_| {
            if let Some(reader) = weak.upgrade() {
                shared.lock().unwrap_or_else(|p| p.into_inner()).take_batch(&reader);
            }
        })));
    }
    let end = Instant::now() + s.duration;
    while !shared.lock().unwrap_or_else(|p| p.into_inner()).finished(s, end) {
        std::thread::sleep(Duration::from_millis(20));
    }
    reader.set_data_listener(None);
    let mut c = shared.lock().unwrap_or_else(|p| p.into_inner());
    std::mem::replace(&mut *c, Counter::new(s.warmup))
}

/// The host's (network namespace's) count of UDP datagrams dropped for a full socket receive
/// buffer (`Udp: RcvbufErrors` in /proc/net/snmp); None where the file is not there.
fn udp_receive_drops() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/net/snmp").ok()?;
    let mut udp = text.lines().filter(|l| l.starts_with("Udp: "));
    let (names, values) = (udp.next()?, udp.next()?);
    let i = names.split_whitespace().position(|n| n == "RcvbufErrors")?;
    values.split_whitespace().nth(i)?.parse().ok()
}

/// What the engine counted for a run, for `--json`: repairs, duplicates, socket drops. The
/// RcvbufErrors delta covers every socket of the namespace over the run (on loopback the
/// publisher's and the subscriber's; nothing else should run beside a benchmark).
fn net_counters(participant: &hdds_core::Participant, udp_drops_before: Option<u64>) -> Object {
    let mut o = Object::new();
    if let Some(n) = participant.network_stats() {
        o.num("datagrams_sent", n.datagrams_sent as f64)
            .num("datagrams_received", n.datagrams_received as f64)
            .num("send_errors", n.send_errors as f64)
            .num("unroutable_submessages", n.unroutable_submessages as f64)
            .num("history_over_limit", n.history_over_limit as f64);
    }
    if let (Some(a), Some(b)) = (udp_drops_before, udp_receive_drops()) {
        o.num("udp_rcvbuf_errors", b.saturating_sub(a) as f64);
    }
    o
}

fn writer_counters(writer: &Writer, participant: &hdds_core::Participant, udp_drops_before: Option<u64>) -> Object {
    let mut o = net_counters(participant, udp_drops_before);
    if let Some(w) = writer.protocol_stats() {
        o.num("data_sent", w.data_sent as f64)
            .num("data_resent", w.data_resent as f64)
            .num("gaps_sent", w.gaps_sent as f64)
            .num("heartbeats_sent", w.heartbeats_sent as f64)
            .num("acknacks_ignored", w.acknacks_ignored as f64)
            .num("writes_blocked", w.writes_blocked as f64);
    }
    o
}

fn reader_counters(reader: &Reader, participant: &hdds_core::Participant, udp_drops_before: Option<u64>) -> Object {
    let mut o = net_counters(participant, udp_drops_before);
    if let Some(r) = reader.protocol_stats() {
        o.num("delivered", r.delivered as f64)
            .num("duplicates", r.duplicates as f64)
            .num("beyond_window", r.beyond_window as f64)
            .num("acknacks_sent", r.acknacks_sent as f64)
            .num("lost", r.lost as f64);
    }
    o.num("history_refusals", reader.history_refusals() as f64);
    o
}
