//! hdds-latency-probe: round-trip latency through the hdds engine, by ping/pong, speaking the
//! protocol of Cyclone's `ddsperf` (topics DDSPerfRPingKS / DDSPerfRPongKS, keyed type KeyedSeq,
//! pongs in the pinger's partition; see hdds_tools::ddsperf). So `hdds-latency-probe ping` and
//! `ddsperf ping` measure the same thing, and each answers or pings the other.
//!
//! - `ping`: writes a ping, waits for its pong, measures the round trip on its own clock, and
//!   sends the next ping at once (ddsperf's default, "ping upon receiving all expected pongs").
//!   A ping without a pong within the retry time is counted as a timeout and replaced.
//! - `pong`: answers every ping with the same sample, in the pinger's partition, with the ping's
//!   source timestamp (`ddsperf ping` computes its latency from it).
//!
//! Threads (`--mode`, as ddsperf's): `waitset`, the main thread waits for samples
//! (`Reader::wait_for_data`), takes and writes; `listener`, the reader's data listener takes and
//! writes on the engine's receive thread, and the main thread only watches for timeouts.
//!
//! Either way the process is a whole ddsperf peer, as ddsperf checks: it has a ping writer, a ping
//! reader, a pong reader in its own partition, and a pong writer for every other ddsperf
//! participant, created by the discovery listener as soon as that participant is discovered.

use std::process::ExitCode;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use hdds_core::qos::{History, Reliability};
use hdds_core::wire::{EntityId, Guid, GuidPrefix};
use hdds_core::{DiscoveryEvent, EndpointOptions, KeyHashFn, Participant, Qos, Reader, Sample, WriteOptions, Writer};
use hdds_tools::ddsperf::{self, Topic};
use hdds_tools::json::Object;
use hdds_tools::net::{NET_FLAGS, NET_HELP, NET_OPTIONS};
use hdds_tools::{usage_error, Args, LatencyStats, NetOpts};

const HELP: &str = "\
hdds-latency-probe: round-trip latency through the hdds engine (ping/pong, ddsperf's protocol)

usage: hdds-latency-probe ping [--size S] [--duration SECS | --count N] [--warmup SECS] [--json]
                               [--mode waitset|listener] [--best-effort] [--timeout SECS] [network options]
       hdds-latency-probe pong [--duration SECS] [--mode waitset|listener] [--best-effort] [network options]
  ping            send pings, each as soon as the previous one's pong arrived, and report the
                  round-trip time: min, p50, p90, p99, max, mean (microseconds); pongs may come
                  from `hdds-latency-probe pong` or `ddsperf pong`
  pong            answer every ping, also those of Cyclone's `ddsperf ping`
  --size S        serialized sample size in bytes, at least 12, as ddsperf's `size S` (default 64)
  --mode M        waitset: take and answer on the main thread; listener: on the engine's receive
                  thread, in the reader's data listener (as ddsperf's modes; default listener)
  --duration SECS ping: measure this long after the warm-up (default 5);
                  pong: answer this long, then stop (default: until killed)
  --count N       ping: stop after N measured round trips instead
  --warmup SECS   ping: round trips in the first SECS after the first pong are not counted (default 1)
  --retry SECS    ping: a pong missing after this long counts as a timeout, and a new ping goes
                  out (default 1, as ddsperf)
  --timeout SECS  ping: give up when no pong comes for this long (default 10)
  --best-effort   best-effort instead of reliable (topics DDSPerfU...)
  --json          ping: print the result as one JSON object instead of text
network options:";

const OPTIONS: &[&str] = &["size", "duration", "count", "warmup", "retry", "timeout", "mode"];
const FLAGS: &[&str] = &["json", "best-effort"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Waitset,
    Listener,
}

fn main() -> ExitCode {
    let (mode, args) = Args::with_mode_from_env();
    if args.flag("help") || mode.is_none() {
        println!("{HELP}\n{NET_HELP}");
        return if mode.is_none() && !args.flag("help") { ExitCode::from(2) } else { ExitCode::SUCCESS };
    }
    args.check_known(&[OPTIONS, NET_OPTIONS].concat(), &[FLAGS, NET_FLAGS].concat());
    let reliable = !args.flag("best-effort");
    let net = NetOpts::parse(&args);
    let delivery = if ddsperf::listener_mode(&args) { Mode::Listener } else { Mode::Waitset };
    match mode.as_deref() {
        Some("ping") => {
            let size = ddsperf::sample_size(&args);
            let o = PingOpts {
                size,
                count: args.maybe("count"),
                duration: args.seconds("duration", 5.0),
                warmup: args.seconds("warmup", 1.0),
                retry: args.seconds("retry", 1.0),
                timeout: args.seconds("timeout", 10.0),
                reliable,
            };
            ping(&net, &o, delivery, args.flag("json"))
        }
        Some("pong") => {
            let duration = args.maybe_seconds("duration");
            pong(&net, reliable, delivery, duration)
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

/// Cyclone sends no key hash with its samples: the reader computes it from the payload.
fn key_hash_fn() -> Option<KeyHashFn> {
    Some(Arc::new(ddsperf::key_hash))
}

/// A participant that ddsperf counts as a peer (its USER_DATA).
fn participant(net: &NetOpts) -> Participant {
    net.participant_with(net.network_config(), ddsperf::user_data(false))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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

/// A run of pings, whoever drives it (the main thread, or the pong reader's listener).
struct PingRun {
    sample: Vec<u8>,
    key: [u8; 16],
    seq: u32,
    sent_at: Instant,
    /// When the warm-up ends; `None` until the first pong.
    measure_from: Option<Instant>,
    rtts_ns: Vec<i64>,
    timeouts: u64,
    /// Pings in a row that timed out.
    missed: u32,
    done: bool,
    error: Option<String>,
}

impl PingRun {
    fn new(size: usize) -> PingRun {
        let sample = ddsperf::sample(size);
        let key = ddsperf::key_hash(&sample, false).expect("a sample made by ddsperf::sample has a key");
        PingRun {
            sample,
            key,
            seq: 0,
            sent_at: Instant::now(),
            measure_from: None,
            rtts_ns: Vec::with_capacity(1 << 20),
            timeouts: 0,
            missed: 0,
            done: false,
            error: None,
        }
    }

    /// Sends the next ping (a failure ends the run).
    fn send(&mut self, writer: &Writer) {
        self.seq = self.seq.wrapping_add(1);
        ddsperf::set_seq(&mut self.sample, self.seq);
        self.sent_at = Instant::now();
        if let Err(e) = writer.write_keyed_with(&self.sample, self.key, &WriteOptions::default()) {
            self.error = Some(format!("write failed: {e}"));
            self.done = true;
        }
    }

    /// A pong arrived at `now`; true when it answers the ping in flight (older ones are dropped).
    fn on_pong(&mut self, pong: &Sample, now: Instant, o: &PingOpts) -> bool {
        if ddsperf::seq(&pong.data) != Some(self.seq) {
            return false;
        }
        let rtt = now.duration_since(self.sent_at);
        self.missed = 0;
        let from = *self.measure_from.get_or_insert(now + o.warmup);
        if self.sent_at >= from {
            self.rtts_ns.push(rtt.as_nanos() as i64);
        }
        self.done = match o.count {
            Some(n) => self.rtts_ns.len() as u64 >= n,
            None => now >= from + o.duration,
        };
        true
    }

    /// The ping in flight got no pong in time: count it, and give up after `timeout` of them.
    fn on_timeout(&mut self, o: &PingOpts) {
        if self.measure_from.is_some() {
            self.timeouts += 1;
        }
        self.missed += 1;
        let waited = if self.measure_from.is_some() { o.retry } else { first_retry(o) } * self.missed;
        if waited >= o.timeout {
            self.error = Some(if self.measure_from.is_none() {
                format!(
                    "no pong within {:?} (is `hdds-latency-probe pong` or `ddsperf pong` running in the same domain?)",
                    o.timeout
                )
            } else {
                format!("the pong stopped answering ({} pings in a row timed out)", self.missed)
            });
            self.done = true;
        }
    }

    /// How long to wait for the pong in flight.
    fn retry(&self, o: &PingOpts) -> Duration {
        if self.measure_from.is_some() {
            o.retry
        } else {
            first_retry(o)
        }
    }
}

/// Until the first pong, ping often: the pong side may still be matching.
fn first_retry(o: &PingOpts) -> Duration {
    o.retry.min(Duration::from_millis(50))
}

fn ping(net: &NetOpts, o: &PingOpts, mode: Mode, json: bool) -> ExitCode {
    let peer = match Peer::new(net, o.reliable) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("[ping] error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (participant, writer, reader) = (&peer.participant, &peer.ping_writer, &peer.pong_reader);
    if !json {
        println!("[ping] participant {} in domain {}: waiting for a pong", participant.guid(), net.domain_id);
    }
    let run = match mode {
        Mode::Waitset => ping_waitset(writer, reader, o),
        Mode::Listener => ping_listener(writer, reader, o),
    };
    if let Some(e) = &run.error {
        eprintln!("[ping] error: {e}");
        return ExitCode::FAILURE;
    }
    let measured_for = run.measure_from.map_or(Duration::ZERO, |f| Instant::now().saturating_duration_since(f));
    let stats = LatencyStats::new(run.rtts_ns);
    if json {
        let mut out = Object::new();
        out.str("tool", "hdds-latency-probe")
            .str("mode", "ping")
            .str("delivery", if mode == Mode::Waitset { "waitset" } else { "listener" })
            .num("size", o.size as f64)
            .str("reliability", if o.reliable { "reliable" } else { "best-effort" })
            .num("timeouts", run.timeouts as f64)
            .num("seconds", measured_for.as_secs_f64())
            .obj("rtt", &stats.to_json());
        println!("{out}");
    } else {
        let p = |q| hdds_tools::us(stats.percentile(q));
        println!(
            "[ping] size {} B: {} round trips in {:.1} s, {} timeouts | rtt min {} p50 {} p90 {} p99 {} max {} mean {} us",
            o.size,
            stats.len(),
            measured_for.as_secs_f64(),
            run.timeouts,
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

/// Waits up to `limit` for the pong of the ping in flight; true when it arrived.
fn await_pong(reader: &Reader, run: &mut PingRun, o: &PingOpts, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    loop {
        while let Some(s) = reader.take() {
            if run.on_pong(&s, Instant::now(), o) {
                return true;
            }
        }
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() || !reader.wait_for_data(left) {
            return false;
        }
    }
}

fn ping_waitset(writer: &Writer, reader: &Reader, o: &PingOpts) -> PingRun {
    let mut run = PingRun::new(o.size);
    while !run.done {
        run.send(writer);
        let retry = run.retry(o);
        if !run.done && !await_pong(reader, &mut run, o, retry) {
            run.on_timeout(o);
        }
    }
    run
}

fn ping_listener(writer: &Arc<Writer>, reader: &Arc<Reader>, o: &PingOpts) -> PingRun {
    let shared = Arc::new((Mutex::new(PingRun::new(o.size)), Condvar::new()));
    let opts = PingOpts { ..*o };
    {
        let (shared, writer, rd) = (Arc::clone(&shared), Arc::clone(writer), Arc::downgrade(reader));
        reader.set_data_listener(Some(Arc::new(move |_| {
            let Some(reader) = rd.upgrade() else { return };
            let (m, cv) = &*shared;
            let mut run = lock(m);
            while let Some(s) = reader.take() {
                if !run.done && run.on_pong(&s, Instant::now(), &opts) {
                    if run.done {
                        cv.notify_all();
                    } else {
                        // The next ping, from the receive thread, as ddsperf's listener does. The
                        // main thread is not woken: it only watches for timeouts, and finds the
                        // new ping's time when its own wait ends (a wake-up per round trip cost a
                        // context switch on the critical path's CPUs: 64 B round trips on loopback 25-29 -> 17-22 µs).
                        run.send(&writer);
                    }
                }
            }
        })));
    }
    let (m, cv) = &*shared;
    let mut run = lock(m);
    run.send(writer);
    while !run.done {
        let (seq, retry) = (run.seq, run.retry(o));
        let deadline = run.sent_at + retry;
        let left = deadline.saturating_duration_since(Instant::now());
        run = cv.wait_timeout(run, left).unwrap_or_else(|p| p.into_inner()).0;
        if !run.done && run.seq == seq && Instant::now() >= deadline {
            run.on_timeout(o);
            if !run.done {
                run.send(writer);
            }
        }
    }
    drop(run);
    // Breaks the cycle reader -> listener -> writer and stops the listener before we read.
    reader.set_data_listener(None);
    let run = std::mem::replace(&mut *lock(m), PingRun::new(ddsperf::FIXED_SIZE));
    run
}

/// A ddsperf peer: the endpoints every ddsperf participant has, and a pong writer for each other
/// ddsperf participant, in the partition named after it (where it reads its pongs).
struct Peer {
    participant: Participant,
    ping_writer: Arc<Writer>,
    ping_reader: Arc<Reader>,
    pong_reader: Arc<Reader>,
    pong_writers: Arc<PongWriters>,
}

struct PongWriters {
    participant: Participant,
    reliable: bool,
    /// One entry per pinger, a handful at most: a linear search costs less than hashing the
    /// prefix for every ping.
    by_pinger: Mutex<Vec<(GuidPrefix, Arc<Writer>)>>,
}

impl PongWriters {
    /// The pong writer for participant `pinger`, created on first use.
    fn get(&self, pinger: GuidPrefix) -> Result<Arc<Writer>, String> {
        let mut m = lock(&self.by_pinger);
        if let Some((_, w)) = m.iter().find(|(p, _)| *p == pinger) {
            return Ok(Arc::clone(w));
        }
        let partition = ddsperf::pong_partition(Guid::new(pinger, EntityId::PARTICIPANT));
        let options = EndpointOptions { partition: vec![partition], ..Default::default() };
        let topic = ddsperf::topic_name(Topic::Pong, self.reliable);
        let w = self
            .participant
            .create_keyed_writer_with(&topic, ddsperf::TYPE_NAME, qos(self.reliable), &options)
            .map_err(|e| format!("creating the pong writer: {e}"))?;
        let w = Arc::new(w);
        m.push((pinger, Arc::clone(&w)));
        Ok(w)
    }
}

impl Peer {
    fn new(net: &NetOpts, reliable: bool) -> Result<Peer, String> {
        let participant = participant(net);
        let q = qos(reliable);
        let (ping, pong) = (ddsperf::topic_name(Topic::Ping, reliable), ddsperf::topic_name(Topic::Pong, reliable));
        let err = |what: &str, e: hdds_core::Error| format!("creating the {what}: {e}");
        let ping_writer =
            participant.create_keyed_writer(&ping, ddsperf::TYPE_NAME, q).map_err(|e| err("ping writer", e))?;
        let ping_reader = participant
            .create_keyed_reader(&ping, ddsperf::TYPE_NAME, q, key_hash_fn())
            .map_err(|e| err("ping reader", e))?;
        // Pongs come in the partition named after this participant: only answers to our pings.
        let mine =
            EndpointOptions { partition: vec![ddsperf::pong_partition(participant.guid())], ..Default::default() };
        let pong_reader = participant
            .create_keyed_reader_with(&pong, ddsperf::TYPE_NAME, q, key_hash_fn(), &mine)
            .map_err(|e| err("pong reader", e))?;
        let pong_writers =
            Arc::new(PongWriters { participant: participant.clone(), reliable, by_pinger: Mutex::new(Vec::new()) });
        let weak = Arc::downgrade(&pong_writers);
        participant.set_discovery_listener(Some(Arc::new(move |ev: &DiscoveryEvent| {
            let DiscoveryEvent::Participant { info, alive: true, local: false } = ev else { return };
            let (Some(writers), true) = (weak.upgrade(), info.user_data.starts_with(b"DDSPerf:")) else { return };
            if let Err(e) = writers.get(info.guid.prefix) {
                eprintln!("[peer] error: {e}");
            }
        })));
        Ok(Peer {
            participant,
            ping_writer: Arc::new(ping_writer),
            ping_reader: Arc::new(ping_reader),
            pong_reader: Arc::new(pong_reader),
            pong_writers,
        })
    }

    /// Answers one ping with the same sample, in its pinger's partition, with its source timestamp
    /// (lowest bit set: ddsperf marks an answer to a ping so).
    fn answer(&self, ping: &Sample) -> Result<(), String> {
        let writer = self.pong_writers.get(ping.info.writer_guid.prefix)?;
        let key = ddsperf::key_hash(&ping.data, false).ok_or("a ping too short to hold its key")?;
        let options = WriteOptions { source_timestamp: Some(ping.info.source_timestamp | 1), ..Default::default() };
        writer.write_keyed_with(&ping.data, key, &options).map(|_| ()).map_err(|e| format!("answering: {e}"))
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.participant.set_discovery_listener(None);
    }
}

fn pong(net: &NetOpts, reliable: bool, mode: Mode, duration: Option<Duration>) -> ExitCode {
    let peer = match Peer::new(net, reliable) {
        Ok(p) => Arc::new(p),
        Err(e) => {
            eprintln!("[pong] error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("[pong] participant {} in domain {}: answering pings", peer.participant.guid(), net.domain_id);
    let end = duration.map(|d| Instant::now() + d);
    let result = match mode {
        Mode::Waitset => pong_waitset(&peer, end),
        Mode::Listener => pong_listener(&peer, end),
    };
    match result {
        Ok(answered) => {
            println!("[pong] answered {answered} pings");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("[pong] error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn pong_waitset(peer: &Peer, end: Option<Instant>) -> Result<u64, String> {
    let mut answered = 0u64;
    while end.map_or(true, |e| Instant::now() < e) {
        if !peer.ping_reader.wait_for_data(Duration::from_millis(100)) {
            continue;
        }
        while let Some(s) = peer.ping_reader.take() {
            peer.answer(&s)?;
            answered += 1;
        }
    }
    Ok(answered)
}

fn pong_listener(peer: &Arc<Peer>, end: Option<Instant>) -> Result<u64, String> {
    // The answered count and the first error, from the listener.
    let shared = Arc::new((Mutex::new((0u64, None::<String>)), Condvar::new()));
    {
        let (shared, weak) = (Arc::clone(&shared), Arc::downgrade(peer));
        peer.ping_reader.set_data_listener(Some(Arc::new(move |_| {
            let Some(peer) = weak.upgrade() else { return };
            let (m, cv) = &*shared;
            while let Some(s) = peer.ping_reader.take() {
                match peer.answer(&s) {
                    Ok(()) => lock(m).0 += 1,
                    Err(e) => {
                        lock(m).1.get_or_insert(e);
                        cv.notify_all();
                    }
                }
            }
        })));
    }
    let (m, cv) = &*shared;
    let mut st = lock(m);
    let result = loop {
        if let Some(e) = st.1.take() {
            break Err(e);
        }
        let left = end.map_or(Duration::from_millis(500), |e| e.saturating_duration_since(Instant::now()));
        if left.is_zero() {
            break Ok(st.0);
        }
        st = cv.wait_timeout(st, left.min(Duration::from_millis(500))).unwrap_or_else(|p| p.into_inner()).0;
    };
    drop(st);
    peer.ping_reader.set_data_listener(None);
    result
}
