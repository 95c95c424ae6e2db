//! A bad time or rate on a tool's command line ends it with a message that names the option and
//! exit status 2, before it joins any network: never a panic (Duration::from_secs_f64 panics on
//! a negative, NaN or infinite number, so every user value goes through hdds_tools::args first).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `exe args`, waits at most 10 s; returns (exit code, stderr).
fn run(exe: &str, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(exe)
        .args(args)
        .env("ROS_LOCALHOST_ONLY", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool starts");
    let end = Instant::now() + Duration::from_secs(10);
    let status = loop {
        match child.try_wait().expect("try_wait") {
            Some(s) => break s,
            None if Instant::now() < end => std::thread::sleep(Duration::from_millis(10)),
            None => {
                let _ = child.kill();
                break child.wait().expect("wait");
            }
        }
    };
    let mut err = String::new();
    child.stderr.take().expect("piped").read_to_string(&mut err).expect("stderr");
    (status.code(), err)
}

fn assert_usage_error(exe: &str, args: &[&str], expected: &str) {
    let (code, err) = run(exe, args);
    assert!(!err.contains("panicked"), "{exe} {args:?} panicked:\n{err}");
    assert_eq!(code, Some(2), "{exe} {args:?}: exit status; stderr:\n{err}");
    assert!(err.contains(expected), "{exe} {args:?}: expected {expected:?} in stderr:\n{err}");
}

#[test]
fn negative_nan_infinite_and_huge_times_are_usage_errors() {
    let secs = "needs a number of seconds from 0 to 1e9";
    let perf = env!("CARGO_BIN_EXE_hdds-perf");
    assert_usage_error(perf, &["pub", "--duration", "-1"], &format!("--duration {secs}, not \"-1\""));
    assert_usage_error(perf, &["pub", "--duration", "nan"], &format!("--duration {secs}, not \"nan\""));
    assert_usage_error(perf, &["sub", "--idle", "inf"], &format!("--idle {secs}"));
    let probe = env!("CARGO_BIN_EXE_hdds-latency-probe");
    assert_usage_error(probe, &["ping", "--warmup", "-0.5"], &format!("--warmup {secs}"));
    assert_usage_error(probe, &["pong", "--duration", "nan"], &format!("--duration {secs}"));
    let stress = env!("CARGO_BIN_EXE_hdds-stress-peer");
    assert_usage_error(stress, &["--duration", "-1"], &format!("--duration {secs}"));
    assert_usage_error(stress, &["--max-blocking", "1e300"], &format!("--max-blocking {secs}"));
    let scale = env!("CARGO_BIN_EXE_hdds-scale-peer");
    assert_usage_error(scale, &["--timeout", "NaN"], &format!("--timeout {secs}"));
    let floor = env!("CARGO_BIN_EXE_hdds-udp-floor");
    assert_usage_error(floor, &["pong", "--bind", "127.0.0.1:0", "--duration", "-inf"], &format!("--duration {secs}"));
    let demo = env!("CARGO_BIN_EXE_hdds-demo");
    assert_usage_error(demo, &["pub", "--timeout", "-3"], &format!("--timeout {secs}"));
    let live = env!("CARGO_BIN_EXE_hdds-liveliness-peer");
    let live_args = ["writer", "--topic", "t", "--lease-ms"];
    assert_usage_error(live, &[&live_args[..], &["nan"]].concat(), "--lease-ms needs a number of milliseconds");
    assert_usage_error(live, &[&live_args[..], &["0"]].concat(), "--lease-ms must be above 0 milliseconds");
    let interop = env!("CARGO_BIN_EXE_hdds-interop-peer");
    let peer = ["pub", "--topic", "t", "--type", "blob", "--size", "8", "--count", "1"];
    assert_usage_error(interop, &[&peer[..], &["--timeout", "-1"]].concat(), &format!("--timeout {secs}"));
}

#[test]
fn bad_rates_are_usage_errors() {
    let rate = "--rate needs a rate per second: 0 (no pacing) or from 1e-9 up";
    let perf = env!("CARGO_BIN_EXE_hdds-perf");
    assert_usage_error(perf, &["pub", "--rate", "-1"], rate);
    assert_usage_error(perf, &["pub", "--rate", "nan"], rate);
    let demo = env!("CARGO_BIN_EXE_hdds-demo");
    assert_usage_error(demo, &["pub", "--rate", "1e-320"], rate);
    let stress = env!("CARGO_BIN_EXE_hdds-stress-peer");
    assert_usage_error(stress, &["--rate", "inf"], rate);
    assert_usage_error(stress, &["--rate", "0"], "--rate must be above 0");
    let interop = env!("CARGO_BIN_EXE_hdds-interop-peer");
    let peer = ["pub", "--topic", "t", "--type", "blob", "--size", "8", "--count", "1"];
    assert_usage_error(interop, &[&peer[..], &["--rate", "-1"]].concat(), rate);
    assert_usage_error(interop, &[&peer[..], &["--rate", "nan"]].concat(), rate);
}

#[test]
fn sizes_past_memory_are_usage_errors() {
    let huge = "18446744073709551615";
    let perf = env!("CARGO_BIN_EXE_hdds-perf");
    assert_usage_error(perf, &["pub", "--size", huge], "--size must be from 12 to 1073741824");
    let demo = env!("CARGO_BIN_EXE_hdds-demo");
    assert_usage_error(demo, &["pub", "--size", huge], "--size must be from 8 to 1073741824");
    let stress = env!("CARGO_BIN_EXE_hdds-stress-peer");
    assert_usage_error(stress, &["--size", "4"], "--size must be from 8 to 1073741824");
}
