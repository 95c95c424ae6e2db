//! hdds-demo: a publisher and a subscriber exchanging samples through the hdds engine, printing
//! what arrives and how fast. Needs no ROS.
//!
//! Today both run in this process, on two threads, through the same-process path (the
//! TopicMerger); the network path adds the two-process mode.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use hdds_core::qos::History;
use hdds_core::{Participant, ParticipantConfig, Qos};
use hdds_tools::{us, Args, LatencyStats};

const HELP: &str = "\
hdds-demo: publish samples and receive them through the hdds engine (no ROS needed)

usage: hdds-demo [--count N] [--size BYTES] [--rate HZ] [--domain ID]
  --count N      samples to publish (default 200000)
  --size BYTES   payload size, at least 8 (default 64)
  --rate HZ      publish at this rate; 0 = as fast as possible (default 0)
  --domain ID    DDS domain id, 0..232 (default: ROS_DOMAIN_ID or 0)";

fn main() {
    let args = Args::from_env_skipping(1);
    if args.flag("help") {
        println!("{HELP}");
        return;
    }
    let count: u64 = args.value("count", 200_000);
    let size: usize = args.value("size", 64);
    let rate: f64 = args.value("rate", 0.0);
    let env_domain = std::env::var("ROS_DOMAIN_ID").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let domain_id: u32 = args.value("domain", env_domain);
    if size < 8 {
        hdds_tools::usage_error("--size must be at least 8 (4-byte encapsulation header + 4-byte counter)");
    }

    let participant = match Participant::new(ParticipantConfig { domain_id }) {
        Ok(p) => p,
        Err(e) => hdds_tools::usage_error(&e.to_string()),
    };
    let qos = Qos { history: History::KeepAll, ..Qos::default() };
    let reader = participant.create_reader("demo/chatter", "hdds::demo::Sample_", qos).expect("reader");
    let writer = participant.create_writer("demo/chatter", "hdds::demo::Sample_", qos).expect("writer");
    println!(
        "hdds-demo {}: participant {} in domain {domain_id}; writer {} matched {} reader(s)",
        env!("CARGO_PKG_VERSION"),
        participant.guid(),
        writer.guid(),
        writer.matched_reader_count()
    );
    println!("publishing {count} samples of {size} B {}", if rate > 0.0 { format!("at {rate} Hz") } else { "as fast as possible".into() });

    let done = Arc::new(AtomicBool::new(false));
    let subscriber = {
        let done = Arc::clone(&done);
        thread::spawn(move || {
            let mut latencies = Vec::with_capacity(count as usize);
            let mut received = 0u64;
            let mut next_expected = 0u32;
            let mut out_of_order = 0u64;
            let start = Instant::now();
            let mut last_report = start;
            while received < count {
                if !reader.wait_for_data(Duration::from_millis(200)) {
                    if done.load(Ordering::Acquire) && reader.available() == 0 {
                        break;
                    }
                    continue;
                }
                while let Some(s) = reader.take() {
                    let n = u32::from_le_bytes([s.data[4], s.data[5], s.data[6], s.data[7]]);
                    if n != next_expected {
                        out_of_order += 1;
                    }
                    next_expected = n + 1;
                    // Write-to-take latency: what an application sees, wake-up included.
                    latencies.push(hdds_core::time::now() - s.info.source_timestamp);
                    received += 1;
                    if received <= 3 {
                        println!("  received #{} (sequence number {}, {} B)", n, s.info.sequence_number, s.data.len());
                    }
                }
                if last_report.elapsed() >= Duration::from_secs(1) {
                    last_report = Instant::now();
                    println!("  ... {received} received");
                }
            }
            (received, out_of_order, start.elapsed(), LatencyStats::new(latencies))
        })
    };

    let mut payload = vec![0u8; size];
    payload[..4].copy_from_slice(&[0x00, 0x01, 0x00, 0x00]); // CDR little endian
    let period = if rate > 0.0 { Some(Duration::from_secs_f64(1.0 / rate)) } else { None };
    let start = Instant::now();
    for i in 0..count {
        payload[4..8].copy_from_slice(&(i as u32).to_le_bytes());
        if let Err(e) = writer.write(&payload) {
            eprintln!("write failed: {e}");
            std::process::exit(1);
        }
        if let Some(p) = period {
            let due = start + p * (i as u32 + 1);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                thread::sleep(wait);
            }
        }
    }
    let publish_time = start.elapsed();
    done.store(true, Ordering::Release);
    let (received, out_of_order, receive_time, lat) = subscriber.join().expect("subscriber thread");

    let secs = receive_time.as_secs_f64().max(1e-9);
    println!("published {count} in {:.3} s ({:.0} samples/s)", publish_time.as_secs_f64(), count as f64 / publish_time.as_secs_f64().max(1e-9));
    println!(
        "received {received}/{count} in order: {} | {:.0} samples/s, {:.1} MB/s | latency p50 {} us, p99 {} us, max {} us",
        if out_of_order == 0 { "yes" } else { "NO" },
        received as f64 / secs,
        received as f64 * size as f64 / secs / 1e6,
        us(lat.percentile(50.0)),
        us(lat.percentile(99.0)),
        us(lat.percentile(100.0)),
    );
    if received != count || out_of_order != 0 {
        eprintln!("error: {} samples lost, {out_of_order} out of order", count - received);
        std::process::exit(1);
    }
}
