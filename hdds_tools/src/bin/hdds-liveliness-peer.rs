//! hdds-liveliness-peer: hdds's side of the LIVELINESS interop test (test/interop/run_liveliness.py),
//! with the same command line and output as test/interop/cyclone/cyclone_liveliness_peer.c:
//!
//! ```text
//! hdds-liveliness-peer writer|reader --domain D --topic T --lease-ms L [--kind topic|participant|automatic]
//!                      [--assert-ms P] [--assert-for S] [--timeout S] [network options]
//! ```
//!
//! - writer: one MANUAL_BY_TOPIC (or, `--kind participant`, MANUAL_BY_PARTICIPANT) reliable writer
//!   of hdds::interop::Blob; waits for a reader, asserts its liveliness every P ms for S s without
//!   writing (the writer's assert_liveliness: HEARTBEATs with the Liveliness flag, for both kinds;
//!   hdds has no participant-level assertion), stops for 3 leases, writes one sample, and half a
//!   lease later deletes the writer.
//!   Prints `MATCHED` / `ASSERTED_UNTIL` / `WROTE` / `DELETED t=<wall-clock seconds>`.
//!   `--kind automatic`: an AUTOMATIC writer waits for a reader, writes nothing for S s and 3
//!   leases (its participant must keep it alive), prints `IDLE_UNTIL`, then `KILLED` and ends
//!   the process at once (no goodbye, as a crash), so that only the lease can tell the reader.
//! - reader: prints each change of LIVELINESS_CHANGED as `LIVELINESS alive=A not_alive=N t=...`
//!   and stops once the writer it matched is gone (`GONE`; AUTOMATIC: once it is not alive), or at
//!   the timeout (exit 1).
//!
//! Network: the tools' options (hdds_tools::NetOpts); localhost-only unless given an interface.
//! Every wait is bounded by `--timeout`. Exit 2 on a usage or DDS error.

use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hdds_core::qos::{Liveliness, LivelinessKind};
use hdds_core::runtime::status::{LIVELINESS_CHANGED, SUBSCRIPTION_MATCHED};
use hdds_core::{Participant, Qos};
use hdds_tools::interop::{self, BLOB_TYPE};
use hdds_tools::net::{NET_FLAGS, NET_HELP, NET_OPTIONS};
use hdds_tools::{usage_error, Args, NetOpts};

const HELP: &str = "\
hdds-liveliness-peer writer|reader --topic T --lease-ms L [options] [network options]
  --lease-ms L      the liveliness lease in milliseconds (required)
  --kind K          topic (MANUAL_BY_TOPIC, default), participant (MANUAL_BY_PARTICIPANT) or
                    automatic (AUTOMATIC: the writer idles, then its process ends abruptly)
  --assert-ms P     writer: assert every P ms (default 100)
  --assert-for S    writer: assert for S seconds (default 2)
  --timeout S       give up after S seconds (default 20)
network options:";

const OPTIONS: &[&str] = &["topic", "lease-ms", "kind", "assert-ms", "assert-for", "timeout"];

struct Opts {
    writer: bool,
    topic: String,
    lease: Duration,
    kind: LivelinessKind,
    assert_every: Duration,
    assert_for: Duration,
    timeout: Duration,
}

/// A lease or assertion period of 0 would expire or assert without pause.
fn positive(name: &str, d: Duration) -> Duration {
    if d.is_zero() {
        usage_error(&format!("--{name} must be above 0 milliseconds"));
    }
    d
}

fn parse(mode: Option<&str>, args: &Args) -> Opts {
    let writer = match mode {
        Some("writer") => true,
        Some("reader") => false,
        Some(other) => usage_error(&format!("unknown role {other:?}: expected writer or reader")),
        None => usage_error("writer or reader?"),
    };
    let topic: String = args.maybe("topic").unwrap_or_else(|| usage_error("--topic is required"));
    let lease = args.maybe_millis("lease-ms").unwrap_or_else(|| usage_error("--lease-ms is required"));
    let kind = match args.value("kind", "topic".to_string()).as_str() {
        "topic" => LivelinessKind::ManualByTopic,
        "participant" => LivelinessKind::ManualByParticipant,
        "automatic" => LivelinessKind::Automatic,
        other => usage_error(&format!("--kind: topic, participant or automatic, not {other:?}")),
    };
    Opts {
        writer,
        topic,
        lease: positive("lease-ms", lease),
        kind,
        assert_every: positive("assert-ms", args.maybe_millis("assert-ms").unwrap_or(Duration::from_millis(100))),
        assert_for: args.seconds("assert-for", 2.0),
        timeout: args.seconds("timeout", 20.0),
    }
}

fn say(what: &str) {
    let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64();
    println!("{what} t={t:.6}");
}

fn main() -> ExitCode {
    let (mode, args) = Args::with_mode_from_env();
    if args.flag("help") {
        println!("{HELP}\n{NET_HELP}");
        return ExitCode::SUCCESS;
    }
    args.check_known(&[OPTIONS, NET_OPTIONS].concat(), NET_FLAGS);
    let o = parse(mode.as_deref(), &args);
    let p = NetOpts::parse(&args).participant();
    let end = Instant::now() + o.timeout;
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
    if o.kind == LivelinessKind::Automatic {
        thread::sleep(o.assert_for + o.lease * 3);
        say("IDLE_UNTIL");
        say("KILLED");
        // Without the participant's goodbye: only the writer's lease can tell its readers.
        std::process::exit(0);
    }
    thread::sleep(Duration::from_millis(300));
    let until = Instant::now() + o.assert_for;
    while Instant::now() < until {
        w.assert_liveliness();
        thread::sleep(o.assert_every);
    }
    w.assert_liveliness();
    say("ASSERTED_UNTIL");
    // Blob { seq: 1, data: [] }, as the Cyclone peer writes.
    let mut sample = Vec::new();
    interop::encode_sample(&mut sample, false, 0, 1, 0);
    thread::sleep(o.lease * 3);
    if let Err(e) = w.write(&sample) {
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
        let lost = o.kind == LivelinessKind::Automatic && was_matched && now.1 > 0;
        if lost || (was_matched && m.current_count == 0 && now == (0, 0)) {
            say("GONE");
            return 0;
        }
        while r.take().is_some() {}
        thread::sleep(Duration::from_millis(2));
    }
    eprintln!("hdds-liveliness-peer: reader: the writer did not come and go before the timeout");
    1
}
