//! hdds-scale-peer: one participant of the discovery-at-scale benchmark (bench/discovery_scale.py)
//! and of the endurance test's joining/leaving peers. It creates `--writers` writers and
//! `--readers` readers on the topics `<prefix>0..` (writer i and reader i on topic i, so that every
//! endpoint of every peer matches the opposite endpoints of all the others), prints
//! `MATCHED ms=<unix ms>` once every writer sees `--expect` readers and every reader `--expect`
//! writers, then idles until SIGINT/SIGTERM or `--timeout` (the benchmark measures it idle).
//!
//! Network: the tools' options (hdds_tools::NetOpts), and `--iface ADDR` (default 127.0.0.1), an
//! interface with SPDP multicast and no unicast SPDP probes, the same discovery as the Cyclone
//! scale peer's config; `--spdp-period` and `--lease` in seconds
//! (Cyclone 0.10's effective defaults: 8 s and 10 s). Exit 0 when matched, 1 when `--timeout`
//! came first, 2 on a usage or DDS error.

use std::io::Write;
use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hdds_core::qos::Reliability;
use hdds_core::Qos;
use hdds_tools::net::NET_HELP;
use hdds_tools::{Args, NetOpts};

const USAGE: &str = "hdds-scale-peer [--writers N] [--readers N] [--expect N] [--prefix NAME]
                [--iface ADDR] [--spdp-period S] [--lease S] [--timeout S] [network options]";

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn unix_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis())
}

fn main() -> ExitCode {
    let args = Args::from_env_skipping(1);
    if args.flag("help") {
        println!("{USAGE}\n{NET_HELP}");
        return ExitCode::SUCCESS;
    }
    let writers: usize = args.value("writers", 10);
    let readers: usize = args.value("readers", 10);
    let expect: usize = args.value("expect", 1);
    let prefix: String = args.value("prefix", "scale_t".to_string());
    let period = args.seconds("spdp-period", 8.0);
    let lease = args.seconds("lease", 10.0);
    let timeout = args.seconds("timeout", 600.0);
    hdds_tools::install_stop_handlers();
    let deadline = Instant::now() + timeout;

    let mut net = NetOpts::parse(&args);
    // --iface (default 127.0.0.1): loopback is an interface here, not localhost-only: multicast on
    // it and no unicast SPDP probes, the discovery of the Cyclone scale peer's config.
    net.interfaces.extend(args.maybe::<Ipv4Addr>("iface"));
    if net.interfaces.is_empty() {
        net.interfaces.push(Ipv4Addr::LOCALHOST);
    }
    let mut config = net.network_config();
    config.spdp_period = period;
    config.lease_duration = lease;
    let participant = net.participant_with(config, Vec::new());
    let qos = Qos { reliability: Reliability::Reliable, ..Qos::default() };
    let mut ws = Vec::with_capacity(writers);
    let mut rs = Vec::with_capacity(readers);
    for i in 0..writers {
        match participant.create_writer(&format!("{prefix}{i}"), "hdds::interop::Blob", qos) {
            Ok(w) => ws.push(w),
            Err(e) => {
                eprintln!("hdds-scale-peer: cannot create writer {i}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    for i in 0..readers {
        match participant.create_reader(&format!("{prefix}{i}"), "hdds::interop::Blob", qos) {
            Ok(r) => rs.push(r),
            Err(e) => {
                eprintln!("hdds-scale-peer: cannot create reader {i}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    // The prefix names this participant's /dev/shm segments (hdds_<prefix hex>_*): the benchmark
    // checks that none is left behind.
    let guid_prefix: String = participant.guid().prefix.0.iter().map(|b| format!("{b:02x}")).collect();
    say(&format!("READY ms={} pid={} prefix={guid_prefix}", unix_ms(), std::process::id()));
    let matched = || {
        ws.iter().all(|w| w.matched_reader_count() >= expect) && rs.iter().all(|r| r.matched_writer_count() >= expect)
    };
    let mut reported = false;
    while !hdds_tools::stopped() && Instant::now() < deadline {
        if !reported && matched() {
            say(&format!("MATCHED ms={}", unix_ms()));
            reported = true;
        }
        thread::sleep(Duration::from_millis(if reported { 100 } else { 5 }));
    }
    if !reported {
        let w_min = ws.iter().map(|w| w.matched_reader_count()).min().unwrap_or(0);
        let r_min = rs.iter().map(|r| r.matched_writer_count()).min().unwrap_or(0);
        eprintln!("hdds-scale-peer: not fully matched (fewest readers per writer {w_min}, fewest writers per reader {r_min}, expected {expect})");
    }
    ExitCode::from(u8::from(!reported))
}
