//! Shared helpers of the `net_*` tests: localhost-only participants that reach each other over UDP
//! only (shared memory off: the `shm_*` tests cover it), and bounded waiting.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use hdds_core::qos::History;
use hdds_core::{NetworkConfig, Participant, ParticipantConfig, Qos, Reader, SharedMemoryConfig};

/// A localhost-only participant in `domain_id` that uses neither the same-process path nor shared
/// memory, so that two of them in one test process talk over UDP. Discovery is quick (announcements every 200 ms). The
/// domain tag is this process's own: another run of the tests on this host (same domains) stays
/// invisible.
pub fn net_participant(domain_id: u32, tweak: impl FnOnce(&mut NetworkConfig)) -> Participant {
    net_participant_with(ParticipantConfig { domain_id, ..Default::default() }, tweak)
}

/// [`net_participant`] with a full participant configuration (USER_DATA).
pub fn net_participant_with(config: ParticipantConfig, tweak: impl FnOnce(&mut NetworkConfig)) -> Participant {
    let domain_id = config.domain_id;
    assert!(domain_id >= 100, "tests use domains >= 100");
    let mut cfg = NetworkConfig {
        intra_process: false,
        spdp_period: Duration::from_millis(200),
        spdp_peer_max_index: 8,
        domain_tag: format!("hdds-test-{}", std::process::id()),
        shared_memory: SharedMemoryConfig::disabled(),
        ..NetworkConfig::localhost()
    };
    tweak(&mut cfg);
    assert!(cfg.localhost_only, "tests stay on loopback");
    Participant::with_network(config, cfg).expect("participant")
}

/// Polls `cond` until it holds or `timeout` passes.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Reliable KEEP_ALL (the default QoS otherwise).
pub fn keep_all() -> Qos {
    Qos { history: History::KeepAll, ..Qos::default() }
}

/// A 32-byte CDR payload (little-endian encapsulation) carrying counter `i`.
pub fn counter_payload(i: u32) -> Vec<u8> {
    let mut p = vec![0u8; 32];
    p[..4].copy_from_slice(&[0, 1, 0, 0]);
    p[4..8].copy_from_slice(&i.to_le_bytes());
    p
}

/// Takes from `r` until `n` samples came or `timeout` passed; how many came.
pub fn count_taken(r: &Reader, n: usize, timeout: Duration) -> usize {
    let end = Instant::now() + timeout;
    let mut got = 0;
    while got < n && Instant::now() < end {
        if r.wait_for_data(Duration::from_millis(20)) {
            while r.take().is_some() {
                got += 1;
            }
        }
    }
    got
}
