//! hdds-demo as two processes over UDP on loopback (localhost-only), each test in its own domain.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod support;
use support::finish;

const DEMO: &str = env!("CARGO_BIN_EXE_hdds-demo");

/// Runs hdds-demo with this test process's own domain tag, so that another run of the tests on
/// this host (same domains) stays invisible.
fn demo(args: &[&str]) -> Child {
    let tag = format!("hdds-demo-test-{}", std::process::id());
    Command::new(DEMO).args(args).args(["--tag", &tag]).stdout(Stdio::piped()).spawn().expect("hdds-demo starts")
}

#[test]
fn pub_and_sub_processes_exchange_samples() {
    let common = ["--domain", "150", "--count", "3000", "--size", "256", "--timeout", "10"];
    let sub = demo(&[&["sub"][..], &common].concat());
    let publ = demo(&[&["pub"][..], &common].concat());
    let (pub_ok, pub_out) = finish(publ, Duration::from_secs(15));
    let (sub_ok, sub_out) = finish(sub, Duration::from_secs(15));
    assert!(pub_ok, "pub failed:\n{pub_out}");
    assert!(sub_ok, "sub failed:\n{sub_out}");
    assert!(sub_out.contains("[sub] received 3000/3000 in order: yes"), "sub said:\n{sub_out}");
}

#[test]
fn plain_demo_runs_both_sides_as_child_processes() {
    let (ok, out) = finish(
        demo(&["--domain", "151", "--count", "1000", "--size", "4096", "--timeout", "10"]),
        Duration::from_secs(15),
    );
    // The children write into the same pipe as their parent.
    assert!(ok, "hdds-demo failed:\n{out}");
    assert!(out.contains("[sub] received 1000/1000 in order: yes"), "{out}");
    assert!(out.contains("[pub] published 1000"), "{out}");
}
