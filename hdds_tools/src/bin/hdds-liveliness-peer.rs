//! hdds-liveliness-peer: hdds's side of the LIVELINESS interop test (test/interop/run_liveliness.py),
//! with the same command line and output as test/interop/cyclone/cyclone_liveliness_peer.c:
//!
//! ```text
//! hdds-liveliness-peer writer|reader --domain D --topic T --lease-ms L [--kind topic|participant]
//!                      [--assert-ms P] [--assert-for S] [--timeout S]
//! ```
//!
//! - writer: one MANUAL_BY_TOPIC (or, `--kind participant`, MANUAL_BY_PARTICIPANT) reliable writer
//!   of hdds::interop::Blob; waits for a reader, asserts its liveliness every P ms for S s without
//!   writing (the writer's assert_liveliness: HEARTBEATs with the Liveliness flag, for both kinds;
//!   hdds has no participant-level assertion), stops for 3 leases, writes one sample, and half a
//!   lease later deletes the writer.
//!   Prints `MATCHED` / `ASSERTED_UNTIL` / `WROTE` / `DELETED t=<wall-clock seconds>`.
//! - reader: prints each change of LIVELINESS_CHANGED as `LIVELINESS alive=A not_alive=N t=...`
//!   and stops once the writer it matched is gone (`GONE`), or at the timeout (exit 1).
//!
//! Localhost-only, every wait bounded by `--timeout`.

use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hdds_core::qos::{Liveliness, LivelinessKind};
use hdds_core::runtime::status::{LIVELINESS_CHANGED, SUBSCRIPTION_MATCHED};
use hdds_core::{NetworkConfig, Participant, ParticipantConfig, Qos};
use hdds_tools::interop::BLOB_TYPE;

const USAGE: &str = "usage: hdds-liveliness-peer writer|reader --domain D --topic T --lease-ms L \
                     [--kind topic|participant] [--assert-ms P] [--assert-for S] [--timeout S]";

/// A Blob { seq: 1, data: [] } in XCDR1 little endian.
const ONE_SAMPLE: &[u8] = &[0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];

struct Opts {
    writer: bool,
    domain: u32,
    topic: String,
    lease: Duration,
    kind: LivelinessKind,
    assert_every: Duration,
    assert_for: Duration,
    timeout: Duration,
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let role = args.first().ok_or("writer or reader?")?;
    let writer = match role.as_str() {
        "writer" => true,
        "reader" => false,
        r => return Err(format!("unknown role {r:?}")),
    };
    let mut o = Opts {
        writer,
        domain: 0,
        topic: String::new(),
        lease: Duration::ZERO,
        kind: LivelinessKind::ManualByTopic,
        assert_every: Duration::from_millis(100),
        assert_for: Duration::from_secs(2),
        timeout: Duration::from_secs(20),
    };
    let mut it = args[1..].iter();
    while let Some(k) = it.next() {
        let v = it.next().ok_or_else(|| format!("{k} needs a value"))?;
        let num = |v: &str| v.parse::<f64>().map_err(|_| format!("{k}: not a number: {v:?}"));
        match k.as_str() {
            "--domain" => o.domain = v.parse().map_err(|_| format!("--domain: {v:?}"))?,
            "--topic" => o.topic = v.clone(),
            "--lease-ms" => o.lease = Duration::from_secs_f64(num(v)? / 1000.0),
            "--assert-ms" => o.assert_every = Duration::from_secs_f64(num(v)? / 1000.0),
            "--assert-for" => o.assert_for = Duration::from_secs_f64(num(v)?),
            "--timeout" => o.timeout = Duration::from_secs_f64(num(v)?),
            "--kind" => {
                o.kind = match v.as_str() {
                    "topic" => LivelinessKind::ManualByTopic,
                    "participant" => LivelinessKind::ManualByParticipant,
                    _ => return Err(format!("--kind: topic or participant, not {v:?}")),
                }
            }
            _ => return Err(format!("unknown option {k}")),
        }
    }
    if o.topic.is_empty() || o.lease.is_zero() || o.assert_every.is_zero() {
        return Err("--topic and --lease-ms are required, --assert-ms must be > 0".into());
    }
    Ok(o)
}

fn say(what: &str) {
    let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64();
    println!("{what} t={t:.6}");
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("hdds-liveliness-peer: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let end = Instant::now() + o.timeout;
    let p = match Participant::with_network(
        ParticipantConfig { domain_id: o.domain, ..Default::default() },
        NetworkConfig::localhost(),
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("hdds-liveliness-peer: cannot create the participant: {e}");
            return ExitCode::from(2);
        }
    };
    let qos = Qos { liveliness: Liveliness { kind: o.kind, lease_duration: o.lease }, ..Qos::default() };
    let code = if o.writer { writer(&o, &p, qos, end) } else { reader(&o, &p, qos, end) };
    ExitCode::from(code)
}

fn writer(o: &Opts, p: &Participant, qos: Qos, end: Instant) -> u8 {
    let w = match p.create_writer(&o.topic, BLOB_TYPE, qos) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("hdds-liveliness-peer: cannot create the writer: {e}");
            return 2;
        }
    };
    while w.matched_reader_count() == 0 {
        if Instant::now() >= end {
            eprintln!("hdds-liveliness-peer: writer: no reader matched before the timeout");
            return 1;
        }
        thread::sleep(Duration::from_millis(10));
    }
    say("MATCHED");
    thread::sleep(Duration::from_millis(300));
    let until = Instant::now() + o.assert_for;
    while Instant::now() < until {
        w.assert_liveliness();
        thread::sleep(o.assert_every);
    }
    w.assert_liveliness();
    say("ASSERTED_UNTIL");
    thread::sleep(o.lease * 3);
    if let Err(e) = w.write(ONE_SAMPLE) {
        eprintln!("hdds-liveliness-peer: write failed: {e}");
        return 2;
    }
    say("WROTE");
    thread::sleep(o.lease / 2);
    drop(w);
    say("DELETED");
    // The disposal goes out.
    thread::sleep(Duration::from_secs(1));
    0
}

fn reader(o: &Opts, p: &Participant, qos: Qos, end: Instant) -> u8 {
    let r = match p.create_reader(&o.topic, BLOB_TYPE, qos) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("hdds-liveliness-peer: cannot create the reader: {e}");
            return 2;
        }
    };
    let mut last = (0, 0);
    let mut was_matched = false;
    while Instant::now() < end {
        let (Ok(l), Ok(m)) = (r.status(LIVELINESS_CHANGED), r.status(SUBSCRIPTION_MATCHED)) else {
            eprintln!("hdds-liveliness-peer: cannot read the reader's statuses");
            return 2;
        };
        let now = (l.current_count, l.total_count);
        if now != last {
            say(&format!("LIVELINESS alive={} not_alive={}", now.0, now.1));
            last = now;
        }
        was_matched |= m.current_count > 0;
        if was_matched && m.current_count == 0 && now == (0, 0) {
            say("GONE");
            return 0;
        }
        while r.take().is_some() {}
        thread::sleep(Duration::from_millis(2));
    }
    eprintln!("hdds-liveliness-peer: reader: the writer did not come and go before the timeout");
    1
}
