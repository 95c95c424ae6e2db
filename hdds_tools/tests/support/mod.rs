//! What the tool tests share: running a tool as a child process with a time limit.

use std::io::Read;
use std::process::Child;
use std::time::{Duration, Instant};

/// Waits for `child` at most `limit`, killing it past that; returns (success, stdout).
pub fn finish(mut child: Child, limit: Duration) -> (bool, String) {
    let end = Instant::now() + limit;
    let ok = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break false;
            }
        }
    };
    let mut out = String::new();
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    (ok, out)
}
