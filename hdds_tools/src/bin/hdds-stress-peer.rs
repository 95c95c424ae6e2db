//! hdds-stress-peer: the participant process of the fault tests (test/fault) and the endurance
//! test (test/endurance). One participant with reliable KEEP_ALL writers and readers on the given
//! topics; each writer writes a counter (8 bytes little-endian, then padding) at `--rate` Hz, and
//! each reader checks that every writer's counters arrive in order with no gap and no duplicate.
//! Each writer writes from a thread of its own (one blocked on a lagging reader does not slow the
//! others); the main thread drains the readers and prints the reports.
//!
//! Output lines (stdout, flushed), which the test scripts parse:
//!   MATCH ms=<unix ms> topic=T writers=N      a reader's matched-writer count changed
//!   STATS s=<secs> rss_kb=R pss_kb=P fds=F heap_kb=H   every `--report` seconds (H: malloc in use)
//!   WRITER topic=T written=N timeouts=K max_write_ms=M acked=0|1
//!   READER topic=T received=N writers=W first=F gaps=G dups=D   (F: lowest first counter)
//!   NET datagrams_sent=N datagrams_received=N send_errors=N receive_errors=N fragments_over_limit=N
//!       shm_attach_failures=N shm_segments_reclaimed=N shm_samples_read=N   (at exit)
//!   PROTO topic=T ...   (at exit: the RTPS writer's or reader's state, line by line)
//! A write that times out (`max_blocking_time`, `--max-blocking`) is retried with the same counter:
//! a sample is only counted written once the engine took it, so any gap a reader sees is a loss.
//!
//! Runs until `--duration` seconds pass, every writer wrote `--count` samples and (with
//! `--expect N`) every reader received N samples, or SIGINT/SIGTERM. Network: the tools' options
//! (hdds_tools::NetOpts: --interface, --peer, --domain, --tag, --no-shm), `--iface ADDR` (the same
//! as --interface; 127.0.0.1, the default, means localhost-only), `--lease`/`--spdp-period`
//! seconds. Exit 0 when every reader saw
//! no gap or duplicate and `--expect` was reached, 1 otherwise, 2 on a usage or DDS error.

use std::collections::HashMap;
use std::io::Write;
use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hdds_core::error::ErrorKind;
use hdds_core::qos::{History, Reliability};
use hdds_core::wire::Guid;
use hdds_core::{Qos, Reader, Writer};
use hdds_tools::args::MAX_SAMPLE_SIZE;
use hdds_tools::net::NET_HELP;
use hdds_tools::{Args, NetOpts};

const USAGE: &str = "hdds-stress-peer [--writers T1,T2] [--readers T1,T2] [--rate HZ] [--count N] [--expect N]
                 [--size BYTES] [--wait-matched N] [--duration S] [--max-blocking S] [--report S]
                 [--iface ADDR] [--lease S] [--spdp-period S] [network options]";

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn unix_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis())
}

fn topics(list: &str) -> Vec<String> {
    list.split(',').filter(|t| !t.is_empty()).map(str::to_owned).collect()
}

/// Bytes the allocator has handed out and not taken back (glibc's mallinfo2, every arena): what
/// the program holds, unlike RSS, which keeps the high-water mark of a burst.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn heap_in_use() -> u64 {
    // SAFETY: mallinfo2 takes no argument and returns a plain struct by value; it only reads the
    // allocator's statistics under the allocator's own locks.
    let m = unsafe { libc::mallinfo2() };
    (m.uordblks + m.hblkhd) as u64
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn heap_in_use() -> u64 {
    0
}

/// (rss, pss) in KiB from smaps_rollup, and the number of open file descriptors.
fn process_stats() -> (u64, u64, usize) {
    let mut rss = 0;
    let mut pss = 0;
    if let Ok(text) = std::fs::read_to_string("/proc/self/smaps_rollup") {
        for line in text.lines() {
            let kib = || line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0);
            if line.starts_with("Rss:") {
                rss = kib();
            } else if line.starts_with("Pss:") {
                pss = kib();
            }
        }
    }
    let fds = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count());
    (rss, pss, fds)
}

struct Pub {
    topic: String,
    writer: Writer,
    next: u64,
    timeouts: u64,
    max_write: Duration,
}

/// One reader's check: per writer, the last counter seen.
struct Sub {
    topic: String,
    reader: Reader,
    last: HashMap<Guid, u64>,
    /// The lowest first counter of any writer: 1 when the reader got every writer's stream whole.
    first: u64,
    received: u64,
    gaps: u64,
    dups: u64,
    matched: usize,
}

impl Sub {
    fn drain(&mut self) {
        while let Some(s) = self.reader.take() {
            if !s.info.valid_data || s.data.len() < 8 {
                continue;
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(&s.data[..8]);
            let n = u64::from_le_bytes(b);
            self.received += 1;
            match self.last.get(&s.info.writer_guid).copied() {
                Some(last) if n <= last => self.dups += 1,
                Some(last) if n > last + 1 => self.gaps += n - last - 1,
                _ => {}
            }
            if !self.last.contains_key(&s.info.writer_guid) {
                self.first = if self.first == 0 { n } else { self.first.min(n) };
            }
            let e = self.last.entry(s.info.writer_guid).or_insert(n);
            *e = (*e).max(n);
        }
        let m = self.reader.matched_writer_count();
        if m != self.matched {
            self.matched = m;
            say(&format!("MATCH ms={} topic={} writers={m}", unix_ms(), self.topic));
        }
    }
}

/// Writes `p`'s counter every `period` until `stop`, `deadline` or `count` samples; true in the
/// result when a write failed for another reason than its timeout.
fn write_loop(
    mut p: Pub,
    period: Duration,
    count: u64,
    size: usize,
    deadline: Instant,
    stop: &AtomicBool,
) -> (Pub, bool) {
    let mut buf = vec![0u8; size];
    let mut tick = Instant::now();
    while !stop.load(Ordering::SeqCst) && !hdds_tools::stopped() && (count == 0 || p.next <= count) {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        if now < tick {
            thread::sleep((tick - now).min(Duration::from_millis(1)));
            continue;
        }
        tick += period;
        buf[..8].copy_from_slice(&p.next.to_le_bytes());
        let t0 = Instant::now();
        let r = p.writer.write(&buf);
        p.max_write = p.max_write.max(t0.elapsed());
        match r {
            Ok(_) => p.next += 1,
            Err(e) if e.kind() == ErrorKind::Timeout => p.timeouts += 1,
            Err(e) => {
                eprintln!("hdds-stress-peer: write on {} failed: {e}", p.topic);
                hdds_tools::request_stop();
                return (p, true);
            }
        }
        // A writer that fell behind (blocked) resumes at the rate, not in a burst.
        if Instant::now() > tick + period * 10 {
            tick = Instant::now();
        }
    }
    (p, false)
}

fn main() -> ExitCode {
    let args = Args::from_env_skipping(1);
    if args.flag("help") {
        println!("{USAGE}\n{NET_HELP}");
        return ExitCode::SUCCESS;
    }
    let wtopics = topics(&args.value("writers", String::new()));
    let rtopics = topics(&args.value("readers", String::new()));
    let period = args
        .period("rate", 1000.0)
        .unwrap_or_else(|| hdds_tools::usage_error("--rate must be above 0: the writers pace"));
    let count: u64 = args.value("count", 0);
    let expect: u64 = args.value("expect", 0);
    let size = args.value_in("size", 64, 8..=MAX_SAMPLE_SIZE);
    let wait_matched: usize = args.value("wait-matched", 0);
    let duration = args.seconds("duration", 60.0);
    let max_blocking = args.seconds("max-blocking", 1.0);
    let report = args.seconds("report", 5.0);
    hdds_tools::install_stop_handlers();

    let mut net = NetOpts::parse(&args);
    // --iface: the one-interface spelling the test scripts use; loopback there means localhost-only.
    net.interfaces.extend(args.maybe::<Ipv4Addr>("iface").filter(|a| !a.is_loopback()));
    let mut config = net.network_config();
    config.lease_duration = args.seconds("lease", 20.0);
    config.spdp_period = args.seconds("spdp-period", 3.0);
    let participant = net.participant_with(config, Vec::new());
    let qos = Qos {
        reliability: Reliability::Reliable,
        history: History::KeepAll,
        max_blocking_time: max_blocking,
        ..Qos::default()
    };
    let mut pubs = Vec::new();
    for t in &wtopics {
        match participant.create_writer(t, "hdds::stress::Counter", qos) {
            Ok(writer) => pubs.push(Pub { topic: t.clone(), writer, next: 1, timeouts: 0, max_write: Duration::ZERO }),
            Err(e) => {
                eprintln!("hdds-stress-peer: cannot create the writer of {t}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut subs = Vec::new();
    for t in &rtopics {
        match participant.create_reader(t, "hdds::stress::Counter", qos) {
            Ok(reader) => subs.push(Sub {
                topic: t.clone(),
                reader,
                last: HashMap::new(),
                first: 0,
                received: 0,
                gaps: 0,
                dups: 0,
                matched: 0,
            }),
            Err(e) => {
                eprintln!("hdds-stress-peer: cannot create the reader of {t}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let start = Instant::now();
    let deadline = start + duration;
    // The prefix names this participant's /dev/shm segments (hdds_<prefix hex>_*): the endurance
    // test looks for leftovers by it.
    let prefix: String = participant.guid().prefix.0.iter().map(|b| format!("{b:02x}")).collect();
    say(&format!("READY ms={} pid={} prefix={prefix}", unix_ms(), std::process::id()));

    // Writers wait (bounded by --duration) for their readers before the first sample.
    while !hdds_tools::stopped()
        && Instant::now() < deadline
        && pubs.iter().any(|p| p.writer.matched_reader_count() < wait_matched)
    {
        subs.iter_mut().for_each(Sub::drain);
        thread::sleep(Duration::from_millis(5));
    }
    // One thread per writer: a writer blocked on a slow reader (up to max_blocking_time) does not
    // hold the others back. The main thread drains the readers and reports.
    let writers_stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<thread::JoinHandle<(Pub, bool)>> = pubs
        .drain(..)
        .map(|p| {
            let stop = Arc::clone(&writers_stop);
            thread::spawn(move || write_loop(p, period, count, size, deadline, &stop))
        })
        .collect();
    let mut next_report = Instant::now() + report;
    loop {
        let now = Instant::now();
        let writers_done = count > 0 && threads.iter().all(|t| t.is_finished());
        let readers_done = expect > 0 && subs.iter().all(|s| s.received >= expect);
        let finished = (count > 0 || expect > 0)
            && (threads.is_empty() || writers_done)
            && (subs.is_empty() || expect == 0 || readers_done);
        if hdds_tools::stopped() || now >= deadline || finished {
            break;
        }
        subs.iter_mut().for_each(Sub::drain);
        if now >= next_report {
            next_report += report;
            let (rss, pss, fds) = process_stats();
            let heap = heap_in_use() / 1024;
            say(&format!(
                "STATS s={:.1} rss_kb={rss} pss_kb={pss} fds={fds} heap_kb={heap}",
                start.elapsed().as_secs_f64()
            ));
        }
        thread::sleep(Duration::from_millis(1));
    }
    writers_stop.store(true, Ordering::SeqCst);
    let mut failed_write = false;
    for t in threads {
        match t.join() {
            Ok((p, failed)) => {
                failed_write |= failed;
                pubs.push(p);
            }
            Err(_) => failed_write = true,
        }
    }
    // Reliable: let the readers acknowledge (bounded), then report.
    let ack_until = Instant::now() + Duration::from_secs(5).min(max_blocking * 5);
    let mut acked = vec![false; pubs.len()];
    while Instant::now() < ack_until && acked.iter().any(|a| !a) {
        for (i, p) in pubs.iter().enumerate() {
            acked[i] = acked[i] || p.writer.wait_for_acknowledgments(Duration::from_millis(10));
        }
        subs.iter_mut().for_each(Sub::drain);
    }
    subs.iter_mut().for_each(Sub::drain);
    for (p, a) in pubs.iter().zip(&acked) {
        say(&format!(
            "WRITER topic={} written={} timeouts={} max_write_ms={:.1} acked={}",
            p.topic,
            p.next - 1,
            p.timeouts,
            p.max_write.as_secs_f64() * 1e3,
            u8::from(*a)
        ));
        // What the RTPS writer holds for each reader (acknowledged SN, repairs): the evidence of
        // a failed check here or at its readers.
        say_protocol_state(&p.topic, p.writer.protocol_state());
    }
    if let Some(n) = participant.network_stats() {
        say(&format!(
            "NET datagrams_sent={} datagrams_received={} send_errors={} receive_errors={} fragments_over_limit={} \
             shm_attach_failures={} shm_segments_reclaimed={} shm_samples_read={}",
            n.datagrams_sent,
            n.datagrams_received,
            n.send_errors,
            n.receive_errors,
            n.fragments_over_limit,
            n.shm_attach_failures,
            n.shm_segments_reclaimed,
            n.shm_samples_read
        ));
    }
    let mut ok = !failed_write;
    for s in &subs {
        say(&format!(
            "READER topic={} received={} writers={} first={} gaps={} dups={}",
            s.topic,
            s.received,
            s.last.len(),
            s.first,
            s.gaps,
            s.dups
        ));
        say_protocol_state(&s.topic, s.reader.protocol_state());
        ok &= s.gaps == 0 && s.dups == 0 && (expect == 0 || s.received >= expect);
    }
    ExitCode::from(u8::from(!ok))
}

/// The evidence for a failed check: the RTPS machine's state, one `PROTO topic=T ...` line per line.
fn say_protocol_state(topic: &str, state: Option<String>) {
    for line in state.unwrap_or_default().lines() {
        say(&format!("PROTO topic={topic} {line}"));
    }
}
