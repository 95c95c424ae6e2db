//! hdds-demo: a publisher and a subscriber exchanging samples through the hdds engine, printing
//! what arrives and how fast. Needs no ROS.
//!
//! - `hdds-demo pub` / `hdds-demo sub`: one side each, in two processes, over UDP on loopback
//!   (localhost-only: nothing leaves the machine).
//! - `hdds-demo` (no mode): runs `sub` and `pub` as two child processes of itself.
//! - `hdds-demo --threads`: both sides in this process on two threads, through the same-process
//!   path (the TopicMerger), no socket.

use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use hdds_core::qos::{History, Reliability};
use hdds_core::{Participant, ParticipantConfig, Qos, Reader, Writer};
use hdds_tools::args::MAX_SAMPLE_SIZE;
use hdds_tools::{us, Args, LatencyStats, NetOpts};

const HELP: &str = "\
hdds-demo: publish samples and receive them through the hdds engine (no ROS needed)

usage: hdds-demo [pub|sub] [--count N] [--size BYTES] [--rate HZ] [--best-effort]
                 [--timeout SECS] [--topic NAME] [--type NAME] [--threads] [network options]
  pub            publish only (another process runs `sub`), over UDP on loopback
  sub            subscribe only, print what arrives and a summary line
  (no mode)      run `sub` and `pub` as two child processes of this program
  --threads      (no mode) both sides in this process on two threads, same-process path
  --count N      samples to publish (default 200000)
  --size BYTES   payload size, at least 8 (default 64)
  --rate HZ      publish at this rate; 0 = as fast as possible (default 0)
  --best-effort  best-effort instead of reliable
  --topic NAME   topic name (default demo/chatter)
  --type NAME    type name (default hdds::demo::Sample_); with --topic, talks to other DDS
                 programs, e.g. Cyclone's `ddsperf -T OU` (topic DDSPerfRDataOU, type OneULong)
  --timeout S    pub: wait this long for a subscriber and for its acknowledgments;
                 sub: give up after this long without a sample (default 10)
network options:";

struct Opts {
    net: NetOpts,
    topic: String,
    type_name: String,
    count: u64,
    size: usize,
    /// --rate as the time between two samples; None: as fast as possible.
    period: Option<Duration>,
    reliability: Reliability,
    timeout: Duration,
}

impl Opts {
    fn parse(args: &Args) -> Opts {
        Opts {
            net: NetOpts::parse(args),
            topic: args.value("topic", "demo/chatter".to_string()),
            type_name: args.value("type", "hdds::demo::Sample_".to_string()),
            count: args.value("count", 200_000),
            // A 4-byte encapsulation header + a 4-byte counter.
            size: args.value_in("size", 64, 8..=MAX_SAMPLE_SIZE),
            period: args.period("rate", 0.0),
            reliability: if args.flag("best-effort") { Reliability::BestEffort } else { Reliability::Reliable },
            timeout: args.seconds("timeout", 10.0),
        }
    }

    fn qos(&self) -> Qos {
        Qos { reliability: self.reliability, history: History::KeepAll, ..Qos::default() }
    }

    fn network_participant(&self) -> Participant {
        self.net.participant()
    }
}

fn main() -> ExitCode {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let mode = all.first().filter(|m| !m.starts_with("--")).cloned();
    let args = Args::new(all.iter().skip(usize::from(mode.is_some())).cloned().collect());
    if args.flag("help") {
        println!("{HELP}\n{}", hdds_tools::net::NET_HELP);
        return ExitCode::SUCCESS;
    }
    let opts = Opts::parse(&args);
    match mode.as_deref() {
        Some("pub") => publisher(&opts),
        Some("sub") => subscriber(&opts),
        Some(other) => hdds_tools::usage_error(&format!("unknown mode {other:?}: expected pub or sub")),
        None if args.flag("threads") => threads(&opts),
        None => two_processes(&all),
    }
}

/// Runs `sub` and `pub` as child processes with the same options; their output is ours.
fn two_processes(args: &[String]) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => hdds_tools::usage_error(&format!("cannot find this program to start it twice: {e}")),
    };
    let spawn = |mode: &str| {
        Command::new(&exe).arg(mode).args(args).spawn().unwrap_or_else(|e| {
            eprintln!("error: starting `hdds-demo {mode}`: {e}");
            std::process::exit(1)
        })
    };
    let mut sub = spawn("sub");
    let mut publ = spawn("pub");
    let p = publ.wait().map(|s| s.success()).unwrap_or(false);
    let s = sub.wait().map(|s| s.success()).unwrap_or(false);
    if p && s {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn payload_template(size: usize) -> Vec<u8> {
    let mut payload = vec![0u8; size];
    payload[..4].copy_from_slice(&[0x00, 0x01, 0x00, 0x00]); // CDR little endian
    payload
}

/// Publishes `count` samples at the configured rate; returns how long it took.
fn publish(writer: &Writer, o: &Opts) -> Result<Duration, String> {
    let mut payload = payload_template(o.size);
    let period = o.period;
    let start = Instant::now();
    for i in 0..o.count {
        payload[4..8].copy_from_slice(&(i as u32).to_le_bytes());
        writer.write(&payload).map_err(|e| format!("write #{i} failed: {e}"))?;
        if let Some(p) = period {
            let due = start + p * (i as u32 + 1);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                thread::sleep(wait);
            }
        }
    }
    Ok(start.elapsed())
}

fn print_published(tag: &str, count: u64, took: Duration) {
    println!(
        "{tag}published {count} in {:.3} s ({:.0} samples/s)",
        took.as_secs_f64(),
        count as f64 / took.as_secs_f64().max(1e-9)
    );
}

fn publisher(o: &Opts) -> ExitCode {
    let participant = o.network_participant();
    let writer = participant.create_writer(&o.topic, &o.type_name, o.qos()).expect("writer");
    println!(
        "[pub] participant {} in domain {}, writer {}: waiting up to {:?} for a subscriber",
        participant.guid(),
        o.net.domain_id,
        writer.guid(),
        o.timeout
    );
    let end = Instant::now() + o.timeout;
    while writer.matched_reader_count() == 0 {
        if Instant::now() >= end {
            eprintln!("[pub] error: no subscriber matched within {:?}", o.timeout);
            return ExitCode::FAILURE;
        }
        thread::sleep(Duration::from_millis(10));
    }
    println!("[pub] matched; publishing {} samples of {} B", o.count, o.size);
    let took = match publish(&writer, o) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("[pub] error: {e}");
            return ExitCode::FAILURE;
        }
    };
    print_published("[pub] ", o.count, took);
    if o.reliability == Reliability::Reliable && !writer.wait_for_acknowledgments(o.timeout) {
        eprintln!("[pub] error: the subscriber did not acknowledge everything within {:?}", o.timeout);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// What a subscriber saw.
struct Received {
    received: u64,
    out_of_order: u64,
    /// From the first sample to the last.
    span: Duration,
    latencies: LatencyStats,
}

/// Takes samples until `count` arrived, `done()` says the publisher finished and nothing is left,
/// or nothing arrived for `idle`.
fn receive(reader: &Reader, tag: &str, count: u64, idle: Duration, done: impl Fn() -> bool) -> Received {
    let mut latencies = Vec::with_capacity(count.min(10_000_000) as usize);
    let (mut received, mut next_expected, mut out_of_order) = (0u64, 0u32, 0u64);
    let mut first: Option<Instant> = None;
    let mut last = Instant::now();
    let mut last_report = Instant::now();
    while received < count {
        if !reader.wait_for_data(Duration::from_millis(100)) {
            if (done() && reader.available() == 0) || last.elapsed() >= idle {
                break;
            }
            continue;
        }
        while let Some(s) = reader.take() {
            // The counter after the encapsulation header; a foreign writer's shorter sample reads as 0.
            let n = s.data.get(4..8).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            // Counted from the first sample that arrives: a foreign publisher (or one that started
            // before we matched) need not start at 0. Missing samples show in the count.
            if received > 0 && n != next_expected {
                out_of_order += 1;
            }
            next_expected = n.wrapping_add(1);
            // Write-to-take latency: what an application sees, wake-up included.
            latencies.push(hdds_core::time::now() - s.info.source_timestamp);
            received += 1;
            last = Instant::now();
            first.get_or_insert(last);
            if received <= 3 {
                println!("{tag}received #{} (sequence number {}, {} B)", n, s.info.sequence_number, s.data.len());
            }
        }
        if last_report.elapsed() >= Duration::from_secs(1) {
            last_report = Instant::now();
            println!("{tag}... {received} received");
        }
    }
    let span = first.map_or(Duration::ZERO, |f| last - f);
    Received { received, out_of_order, span, latencies: LatencyStats::new(latencies) }
}

/// The summary line (the two-process test reads it); false when samples were lost or reordered.
fn summary(tag: &str, r: &Received, count: u64, size: usize) -> bool {
    let secs = r.span.as_secs_f64().max(1e-9);
    println!(
        "{tag}received {}/{count} in order: {} | {:.0} samples/s, {:.1} MB/s | latency p50 {} us, p99 {} us, max {} us",
        r.received,
        if r.out_of_order == 0 { "yes" } else { "NO" },
        r.received as f64 / secs,
        r.received as f64 * size as f64 / secs / 1e6,
        us(r.latencies.percentile(50.0)),
        us(r.latencies.percentile(99.0)),
        us(r.latencies.percentile(100.0)),
    );
    if r.received != count || r.out_of_order != 0 {
        eprintln!("{tag}error: {} samples lost, {} out of order", count - r.received, r.out_of_order);
        return false;
    }
    true
}

fn subscriber(o: &Opts) -> ExitCode {
    let participant = o.network_participant();
    let reader = participant.create_reader(&o.topic, &o.type_name, o.qos()).expect("reader");
    println!("[sub] participant {} in domain {}, reader {}", participant.guid(), o.net.domain_id, reader.guid());
    let r = receive(&reader, "[sub] ", o.count, o.timeout, || false);
    if summary("[sub] ", &r, o.count, o.size) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Both sides in this process, through the same-process path.
fn threads(o: &Opts) -> ExitCode {
    let participant = match Participant::new(ParticipantConfig { domain_id: o.net.domain_id, ..Default::default() }) {
        Ok(p) => p,
        Err(e) => hdds_tools::usage_error(&e.to_string()),
    };
    let reader = participant.create_reader(&o.topic, &o.type_name, o.qos()).expect("reader");
    let writer = participant.create_writer(&o.topic, &o.type_name, o.qos()).expect("writer");
    println!(
        "hdds-demo {}: participant {} in domain {}; writer {} matched {} reader(s) in this process",
        env!("CARGO_PKG_VERSION"),
        participant.guid(),
        o.net.domain_id,
        writer.guid(),
        writer.matched_reader_count()
    );
    println!(
        "publishing {} samples of {} B {}",
        o.count,
        o.size,
        o.period.map_or("as fast as possible".into(), |p| format!("at {} Hz", 1.0 / p.as_secs_f64()))
    );
    let done = Arc::new(AtomicBool::new(false));
    let (count, idle) = (o.count, o.timeout);
    let sub = {
        let done = Arc::clone(&done);
        thread::spawn(move || receive(&reader, "  ", count, idle, || done.load(Ordering::Acquire)))
    };
    let published = publish(&writer, o);
    done.store(true, Ordering::Release);
    let r = sub.join().expect("subscriber thread");
    match published {
        Ok(took) => print_published("", o.count, took),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    if summary("", &r, o.count, o.size) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
