//! hdds-interop-peer: hdds's side of the interop tests. Same command line, payload, output and
//! success rule as the Cyclone DDS, Fast DDS and cyclonedds-Python peers of test/interop (see
//! `--help` and [`hdds_tools::interop`]); keyed topics use the engine's keyed writer and reader.
//!
//! Always localhost-only: loopback interface, SPDP multicast on loopback and unicast probes to
//! 127.0.0.1 (which is how the peers' loopback configs find us). Every wait is bounded by
//! `--timeout`; SIGINT/SIGTERM end a publisher's linger or a subscriber's wait (the summary is
//! still printed and the success rule applied).

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use hdds_core::qos::{Durability, History, Reliability};
use hdds_core::{KeyHashFn, NetworkConfig, Participant, ParticipantConfig, Qos, Reader, Writer};
use hdds_tools::interop::{self, Parsed, PeerOpts, Rx};

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Exit 2: bad usage or a DDS error, as the other peers.
fn fail(msg: &str) -> ExitCode {
    eprintln!("hdds-interop-peer: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match interop::parse_args(&args) {
        Ok(Parsed::Run(o)) => o,
        Ok(Parsed::Help) => {
            println!("{}", interop::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => return fail(&format!("{e} (try --help)")),
    };
    hdds_tools::install_stop_handlers();
    let deadline = Instant::now() + o.timeout;
    let participant = match Participant::with_network(
        ParticipantConfig { domain_id: o.domain, ..Default::default() },
        NetworkConfig::localhost(),
    ) {
        Ok(p) => p,
        Err(e) => return fail(&format!("cannot create the participant: {e}")),
    };
    let qos = Qos {
        reliability: if o.reliable { Reliability::Reliable } else { Reliability::BestEffort },
        durability: if o.transient_local { Durability::TransientLocal } else { Durability::Volatile },
        history: o.depth.map_or(History::KeepAll, History::KeepLast),
        max_blocking_time: o.timeout,
        ..Qos::default()
    };
    let code = if o.is_pub {
        let writer = if o.keyed {
            participant.create_keyed_writer(&o.topic, o.type_name(), qos)
        } else {
            participant.create_writer(&o.topic, o.type_name(), qos)
        };
        match writer {
            Ok(w) => publisher(&o, &w, deadline),
            Err(e) => return fail(&format!("cannot create the writer: {e}")),
        }
    } else {
        let reader = if o.keyed {
            let key_of: KeyHashFn = Arc::new(interop::keyed_blob_hash_of);
            participant.create_keyed_reader(&o.topic, o.type_name(), qos, Some(key_of))
        } else {
            participant.create_reader(&o.topic, o.type_name(), qos)
        };
        match reader {
            Ok(r) => subscriber(&o, &r, deadline),
            Err(e) => return fail(&format!("cannot create the reader: {e}")),
        }
    };
    ExitCode::from(code)
}

/// Sleeps until `until` (or the stop signal), checking the match count on the way.
fn pause(until: Instant, watch: impl Fn()) {
    while !hdds_tools::stopped() {
        watch();
        let now = Instant::now();
        if now >= until {
            return;
        }
        thread::sleep((until - now).min(Duration::from_millis(10)));
    }
}

fn publisher(o: &PeerOpts, w: &Writer, deadline: Instant) -> u8 {
    // The most readers matched at once, sampled whenever the publisher waits or writes.
    let most = std::cell::Cell::new(0usize);
    let watch = || most.set(most.get().max(w.matched_reader_count()));
    let mut ok = true;
    if o.wait_matched > 0 {
        while (w.matched_reader_count() as u32) < o.wait_matched && Instant::now() < deadline && !hdds_tools::stopped()
        {
            watch();
            thread::sleep(Duration::from_millis(5));
        }
        watch();
        if (most.get() as u32) < o.wait_matched {
            eprintln!("hdds-interop-peer: {} of {} readers matched before --timeout", most.get(), o.wait_matched);
            ok = false;
        }
    }
    if ok {
        if let Some(path) = &o.start_file {
            while !std::path::Path::new(path).exists() && Instant::now() < deadline && !hdds_tools::stopped() {
                watch();
                thread::sleep(Duration::from_millis(10));
            }
            if !std::path::Path::new(path).exists() {
                eprintln!("hdds-interop-peer: --start-file {path} did not appear before --timeout");
                ok = false;
            }
        }
    }
    let mut written = 0u32;
    if ok {
        pause((Instant::now() + o.settle).min(deadline), watch);
        let period = o.period;
        let start = Instant::now();
        let mut buf = Vec::new();
        for seq in 1..=o.count {
            if hdds_tools::stopped() || Instant::now() >= deadline {
                break;
            }
            let id = o.id_for_seq(seq);
            interop::encode_sample(&mut buf, o.keyed, id, seq, o.size);
            let r = if o.keyed { w.write_keyed(&buf, interop::keyed_blob_hash(id)) } else { w.write(&buf) };
            if let Err(e) = r {
                eprintln!("hdds-interop-peer: write of seq {seq} failed: {e}");
                break;
            }
            written += 1;
            watch();
            if let Some(p) = period {
                pause((start + p * seq).min(deadline), watch);
            }
        }
    }
    say(&format!("WRITTEN written={written}"));
    let mut acked = true;
    if o.reliable && written > 0 {
        // In slices, so that a stop signal and the match count are seen.
        acked = false;
        while !acked && Instant::now() < deadline && !hdds_tools::stopped() {
            acked = w.wait_for_acknowledgments(Duration::from_millis(20));
            watch();
        }
        if !acked {
            eprintln!("hdds-interop-peer: the matched readers did not acknowledge every sample before --timeout");
        }
    }
    pause((Instant::now() + o.linger).min(deadline), watch);
    say(&format!("SUMMARY written={written} matched={}", most.get()));
    u8::from(!(ok && written == o.count && acked))
}

fn subscriber(o: &PeerOpts, r: &Reader, deadline: Instant) -> u8 {
    let mut rx = Rx::new(o);
    let need = o.wait_matched.max(1) as usize;
    let mut ready = o.ready_file.is_none();
    let mut last_rx: Option<Instant> = None;
    let done = |rx: &Rx, last_rx: Option<Instant>| {
        rx.distinct >= o.count || (!o.strict() && last_rx.is_some_and(|t| t.elapsed() >= o.idle))
    };
    while !hdds_tools::stopped() && Instant::now() < deadline && !done(&rx, last_rx) {
        if !ready && r.matched_writer_count() >= need {
            if let Some(path) = &o.ready_file {
                if let Err(e) = std::fs::write(path, format!("matched={}\n", r.matched_writer_count())) {
                    eprintln!("hdds-interop-peer: cannot create --ready-file {path}: {e}");
                    return 2;
                }
            }
            ready = true;
        }
        if !r.wait_for_data(Duration::from_millis(10)) {
            continue;
        }
        while let Some(s) = r.take() {
            if !s.info.valid_data {
                continue; // a disposal or unregistration: not one of the N samples
            }
            let line = match interop::decode_sample(&s.data, o.keyed) {
                Ok((id, seq, data)) => {
                    let key_ok = !o.keyed || s.info.key_hash == Some(interop::keyed_blob_hash(id));
                    let ok = key_ok && interop::payload_check(data, o.size, seq, id);
                    rx.record(o, seq, id, data.len(), ok)
                }
                Err(why) => {
                    eprintln!("hdds-interop-peer: undecodable sample (sn {}): {why}", s.info.sequence_number);
                    rx.record(o, 0, 0, s.data.len(), false)
                }
            };
            last_rx = Some(Instant::now());
            if !o.quiet {
                say(&line);
            }
        }
    }
    if done(&rx, last_rx) && !hdds_tools::stopped() {
        pause((Instant::now() + o.linger).min(deadline), || {});
    }
    say(&rx.summary());
    u8::from(!rx.success(o))
}
