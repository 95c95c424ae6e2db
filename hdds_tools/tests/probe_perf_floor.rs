//! hdds-latency-probe, hdds-perf and hdds-udp-floor as two processes each over loopback
//! (localhost-only), short runs with --json: the output a benchmark reads is there and sane.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod support;
use support::finish;

const PROBE: &str = env!("CARGO_BIN_EXE_hdds-latency-probe");
const PERF: &str = env!("CARGO_BIN_EXE_hdds-perf");
const FLOOR: &str = env!("CARGO_BIN_EXE_hdds-udp-floor");

/// Ends a pong that has done its part.
fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Starts `exe` with this test process's own domain tag, so that other runs stay invisible.
fn start(exe: &str, args: &[&str]) -> Child {
    let tag = format!("hdds-tools-test-{}", std::process::id());
    Command::new(exe)
        .args(args)
        .args(["--tag", &tag, "--domain", "151"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the tool starts")
}

/// The number after `"key":` in a one-line JSON object.
fn number(json: &str, key: &str) -> f64 {
    let pat = format!("\"{key}\":");
    let at = json.find(&pat).unwrap_or_else(|| panic!("no {key} in {json}")) + pat.len();
    let rest = &json[at..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    rest[..end].parse().unwrap_or_else(|_| panic!("{key} is not a number in {json}"))
}

#[test]
fn latency_probe_ping_pong() {
    let pong = start(PROBE, &["pong", "--duration", "20"]);
    let ping = start(PROBE, &["ping", "--size", "1024", "--duration", "1", "--warmup", "0.2", "--json"]);
    let (ok, out) = finish(ping, Duration::from_secs(15));
    stop(pong);
    assert!(ok, "ping failed: {out}");
    assert!(out.contains(r#""tool":"hdds-latency-probe""#) && out.contains(r#""size":1024"#), "{out}");
    let (count, p50, p99) = (number(&out, "count"), number(&out, "p50_us"), number(&out, "p99_us"));
    assert!(count > 100.0, "{count} round trips in a second: {out}");
    assert!(p50 > 0.0 && p50 <= p99, "{out}");
}

#[test]
fn perf_pub_sub() {
    let sub = start(PERF, &["sub", "--duration", "10", "--warmup", "0.2", "--json"]);
    let publ = start(PERF, &["pub", "--size", "256", "--duration", "1", "--json"]);
    let (pub_ok, pub_out) = finish(publ, Duration::from_secs(20));
    let (sub_ok, sub_out) = finish(sub, Duration::from_secs(15));
    assert!(pub_ok && sub_ok, "pub: {pub_out}\nsub: {sub_out}");
    assert_eq!(number(&sub_out, "received"), number(&pub_out, "written"), "reliable KEEP_ALL delivers all");
    assert_eq!(number(&sub_out, "lost"), 0.0);
    assert!(number(&sub_out, "samples_per_s") > 1000.0, "{sub_out}");
}

#[test]
fn udp_floor_ping_pong() {
    let port = 20_000 + (std::process::id() % 20_000) as u16;
    let addr = format!("127.0.0.1:{port}");
    let pong = Command::new(FLOOR).args(["pong", "--bind", &addr, "--duration", "20"]).stdout(Stdio::piped()).spawn();
    let pong = pong.expect("pong starts");
    let ping = Command::new(FLOOR)
        .args(["ping", "--to", &addr, "--duration", "0.5", "--warmup", "0.1", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("ping starts");
    let (ok, out) = finish(ping, Duration::from_secs(10));
    stop(pong);
    assert!(ok, "{out}");
    assert!(number(&out, "count") > 100.0 && number(&out, "p50_us") > 0.0, "{out}");
}

/// The ddsperf of Debian's cyclonedds-tools, if installed.
fn ddsperf() -> Option<&'static str> {
    let found = Command::new("ddsperf").arg("help").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if !found {
        eprintln!("SKIPPED: ddsperf is not installed (apt-get install cyclonedds-tools)");
    }
    found.then_some("ddsperf")
}

/// One and the same `ddsperf ping` measures an hdds pong: ddsperf counts it as a peer (no match
/// error) and prints round trips for it.
#[test]
fn ddsperf_ping_measures_an_hdds_pong() {
    let Some(ddsperf) = ddsperf() else { return };
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../test/interop/config/cyclonedds_loopback.xml");
    // ddsperf has no domain tag: a domain of its own, loopback only (also for shared memory: none).
    let pong = Command::new(PROBE)
        .args(["pong", "--domain", "153", "--duration", "20", "--no-shm"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("pong starts");
    let ping = Command::new(ddsperf)
        .args(["-i", "153", "-D", "3", "ping", "size", "1k"])
        .env("CYCLONEDDS_URI", format!("file://{config}"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("ddsperf starts");
    let (ok, out) = finish(ping, Duration::from_secs(15));
    stop(pong);
    assert!(ok, "ddsperf ping failed (its exit status counts match errors):\n{out}");
    let counts: Vec<u64> = out
        .lines()
        .filter(|l| l.contains(" size 1024 mean "))
        .filter_map(|l| l.rsplit("cnt ").next()?.trim().parse().ok())
        .collect();
    assert!(counts.iter().sum::<u64>() > 100, "round trips per second {counts:?}:\n{out}");
}
