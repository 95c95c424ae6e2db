//! How a participant uses the network: [`NetworkConfig`], and what it resolves to once the
//! machine's interfaces are known ([`Resolved`]).
//!
//! The engine reads no environment variable here: the caller (hdds_ffi, from ROS_LOCALHOST_ONLY and
//! friends) decides and says so explicitly.

use std::net::Ipv4Addr;
use std::time::Duration;

use super::spdp::DISPOSED_MEMORY;
use crate::discovery::spdp::HDDS_LEASE_DURATION;
use crate::error::{Error, Result};
pub use crate::rtps::ReassemblyLimits;
pub use crate::transport::shm::SharedMemoryConfig;

/// The network side of a participant; pass it to [`crate::Participant::with_network`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkConfig {
    /// Use the loopback interface only: advertise 127.0.0.1, join and send SPDP multicast on
    /// loopback only, and never send to an address outside 127.0.0.0/8 (ROS_LOCALHOST_ONLY=1).
    pub localhost_only: bool,
    /// The IPv4 addresses of the interfaces to use; empty means every non-loopback IPv4 address of
    /// the machine (or 127.0.0.1 in localhost-only mode).
    pub interfaces: Vec<Ipv4Addr>,
    /// Join the SPDP multicast group and announce to it. When joining fails the participant goes
    /// on with unicast discovery only ([`super::NetStats::multicast_active`] says which).
    pub multicast: bool,
    /// How often the participant re-announces itself (SPDP).
    pub spdp_period: Duration,
    /// How long peers keep us without news (SPDP lease; Fast DDS's default, 20 s).
    pub lease_duration: Duration,
    /// How long a remote participant that said goodbye is remembered, so that an announcement of
    /// its still in flight does not bring it back (10 s; see `spdp::DISPOSED_MEMORY`). Tests that
    /// churn participants quickly shorten it.
    pub disposed_participant_memory: Duration,
    /// Hosts to announce to by unicast at the metatraffic ports of participant indices
    /// `0..=spdp_peer_max_index`: peers that do not use multicast (Cyclone on loopback) find us so.
    /// Empty in localhost-only mode means 127.0.0.1.
    pub unicast_spdp_peers: Vec<Ipv4Addr>,
    /// The highest participant index probed on each unicast peer. Cyclone probes 0..=8 and takes
    /// indices up to 9 by default; 32 leaves room for many participants on one host.
    pub spdp_peer_max_index: u32,
    /// Serve the other participants of this process through the TopicMerger (true, the normal
    /// case). False makes the participant treat them like remote ones and reach them over UDP only
    /// (its own endpoints still meet each other without sockets): a test and benchmark aid, two
    /// "processes" in one test binary, never needed in production.
    pub intra_process: bool,
    /// SO_RCVBUF / SO_SNDBUF request (the kernel caps it at net.core.rmem_max / wmem_max).
    pub socket_buffer_bytes: usize,
    /// DDS domain tag (PID_DOMAIN_TAG): participants meet only those with the same tag. Empty is
    /// the default tag, what every ROS participant uses. Tests give each run its own tag, so that
    /// two runs on one host never meet.
    pub domain_tag: String,
    /// Write batching (Cyclone's `dds_write_set_batch`): samples written in a burst share
    /// datagrams. A batched sample goes out when the next would overflow a message, with the
    /// writer's next HEARTBEAT or repair, on [`crate::Writer::flush`], or at the latest 1 ms after
    /// it was written. For throughput; it costs latency, so it is off by default.
    pub write_batching: bool,
    /// At most this many remote participants are kept. An announcement from one more is dropped
    /// and counted ([`super::NetStats::participants_over_limit`]) until one of them leaves: a flood
    /// of participants (runaway launch, forged announcements) costs a counter, not memory.
    pub max_remote_participants: usize,
    /// At most this many remote writers and readers are kept, in all. One more is dropped and
    /// counted ([`super::NetStats::endpoints_over_limit`]); it is taken when its SEDP data comes
    /// again after another endpoint left.
    pub max_remote_endpoints: usize,
    /// What each reader may hold of samples received in fragments (DATA_FRAG) and not complete
    /// yet: the largest sample, samples in reassembly in all and per remote writer, bytes. A
    /// sample beyond them is dropped (a reliable writer sends it again) and counted
    /// ([`super::NetStats::fragments_over_limit`]).
    pub reassembly: ReassemblyLimits,
    /// Shared memory with the hdds participants of other processes on this host (on by default;
    /// `transport::shm` describes the path).
    pub shared_memory: SharedMemoryConfig,
}

/// Defaults of the discovery caps: far above a large ROS system (500 nodes of about 30 endpoints
/// each, parameter services included), far below what would exhaust a process.
pub const DEFAULT_MAX_REMOTE_PARTICIPANTS: usize = 4096;
pub const DEFAULT_MAX_REMOTE_ENDPOINTS: usize = 65536;

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            localhost_only: false,
            interfaces: Vec::new(),
            multicast: true,
            spdp_period: Duration::from_secs(3),
            lease_duration: HDDS_LEASE_DURATION,
            disposed_participant_memory: DISPOSED_MEMORY,
            unicast_spdp_peers: Vec::new(),
            spdp_peer_max_index: 32,
            intra_process: true,
            socket_buffer_bytes: 4 << 20,
            domain_tag: String::new(),
            write_batching: false,
            max_remote_participants: DEFAULT_MAX_REMOTE_PARTICIPANTS,
            max_remote_endpoints: DEFAULT_MAX_REMOTE_ENDPOINTS,
            reassembly: ReassemblyLimits::default(),
            shared_memory: SharedMemoryConfig::default(),
        }
    }
}

impl NetworkConfig {
    /// Localhost-only (ROS_LOCALHOST_ONLY=1): loopback interface, multicast on loopback, unicast
    /// SPDP to 127.0.0.1. Finds Fast DDS (multicast on loopback) and Cyclone (unicast probes).
    pub fn localhost() -> Self {
        NetworkConfig { localhost_only: true, ..NetworkConfig::default() }
    }
}

/// The configuration with interfaces and peers filled in and checked.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub(crate) localhost_only: bool,
    pub(crate) interfaces: Vec<Ipv4Addr>,
    pub(crate) multicast: bool,
    pub(crate) spdp_period: Duration,
    pub(crate) lease_duration: Duration,
    pub(crate) disposed_participant_memory: Duration,
    pub(crate) unicast_spdp_peers: Vec<Ipv4Addr>,
    pub(crate) spdp_peer_max_index: u32,
    pub(crate) intra_process: bool,
    pub(crate) socket_buffer_bytes: usize,
    pub(crate) domain_tag: String,
    pub(crate) write_batching: bool,
    pub(crate) max_remote_participants: usize,
    pub(crate) max_remote_endpoints: usize,
    pub(crate) reassembly: ReassemblyLimits,
    pub(crate) shared_memory: SharedMemoryConfig,
}

impl NetworkConfig {
    pub(crate) fn resolve(&self) -> Result<Resolved> {
        if self.spdp_period.is_zero() {
            return Err(Error::bad_argument(
                "spdp_period is zero: the participant would announce itself without pause",
            ));
        }
        let shm = &self.shared_memory;
        if shm.enabled && (shm.slots == 0 || shm.max_readers == 0 || shm.arena_bytes < 4096) {
            return Err(Error::bad_argument(format!(
                "shared memory needs at least 1 slot, 1 reader and a 4096-byte arena per writer (got {} slots, {} \
                 readers, {} bytes)",
                shm.slots, shm.max_readers, shm.arena_bytes
            )));
        }
        if self.lease_duration < Duration::from_millis(100) {
            return Err(Error::bad_argument(format!(
                "lease_duration {:?} is below 100 ms: peers would drop the participant between two announcements",
                self.lease_duration
            )));
        }
        if self.max_remote_participants == 0 || self.max_remote_endpoints == 0 {
            return Err(Error::bad_argument(format!(
                "max_remote_participants ({}) and max_remote_endpoints ({}) must be at least 1: the participant \
                 would discover nothing",
                self.max_remote_participants, self.max_remote_endpoints
            )));
        }
        let ra = &self.reassembly;
        if ra.max_sample_size == 0 || ra.max_concurrent == 0 || ra.max_per_writer == 0 || ra.max_total_bytes == 0 {
            return Err(Error::bad_argument(format!(
                "every reassembly limit must be at least 1 (got {ra:?}): no fragmented sample could be received"
            )));
        }
        let interfaces = if !self.interfaces.is_empty() {
            self.interfaces.clone()
        } else if self.localhost_only {
            vec![Ipv4Addr::LOCALHOST]
        } else {
            let found = machine_ipv4_addresses();
            if found.is_empty() {
                return Err(Error::bad_argument(
                    "no non-loopback IPv4 interface found (read from /proc/net/fib_trie): set the interfaces \
                     explicitly or use localhost-only mode",
                ));
            }
            found
        };
        let peers = if self.unicast_spdp_peers.is_empty() && self.localhost_only {
            vec![Ipv4Addr::LOCALHOST]
        } else {
            self.unicast_spdp_peers.clone()
        };
        if self.localhost_only {
            // The promise of localhost-only mode: nothing leaves the machine. Refuse a configuration
            // that would break it rather than quietly filter it.
            if let Some(bad) = interfaces.iter().chain(&peers).find(|a| !a.is_loopback()) {
                return Err(Error::bad_argument(format!(
                    "localhost-only mode allows loopback addresses only, but {bad} is configured"
                )));
            }
        }
        Ok(Resolved {
            localhost_only: self.localhost_only,
            interfaces,
            multicast: self.multicast,
            spdp_period: self.spdp_period,
            lease_duration: self.lease_duration,
            disposed_participant_memory: self.disposed_participant_memory,
            unicast_spdp_peers: peers,
            spdp_peer_max_index: self.spdp_peer_max_index,
            intra_process: self.intra_process,
            socket_buffer_bytes: self.socket_buffer_bytes,
            domain_tag: self.domain_tag.clone(),
            write_batching: self.write_batching,
            max_remote_participants: self.max_remote_participants,
            max_remote_endpoints: self.max_remote_endpoints,
            reassembly: self.reassembly,
            shared_memory: self.shared_memory,
        })
    }
}

/// The machine's non-loopback IPv4 addresses. Linux only (the kernel's FIB lists every local
/// address as `/32 host LOCAL`); elsewhere the interfaces must be configured.
fn machine_ipv4_addresses() -> Vec<Ipv4Addr> {
    std::fs::read_to_string("/proc/net/fib_trie").map(|s| parse_fib_trie(&s)).unwrap_or_default()
}

fn parse_fib_trie(text: &str) -> Vec<Ipv4Addr> {
    let mut out = Vec::new();
    let mut last: Option<Ipv4Addr> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(a) = t.strip_prefix("|-- ") {
            last = a.parse().ok();
        } else if t.starts_with("/32 host LOCAL") {
            if let Some(a) = last.take() {
                if !a.is_loopback() && !out.contains(&a) {
                    out.push(a);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fib_trie_local_addresses() {
        let text = "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 0.0.0.0\n        /0 universe UNICAST\n\
                    |-- 127.0.0.1\n              /32 host LOCAL\n           |-- 192.0.2.0\n\
                    /24 link UNICAST\n           |-- 192.0.2.2\n              /32 host LOCAL\n\
                    |-- 192.0.2.255\n           /32 link BROADCAST\nLocal:\n |-- 192.0.2.2\n /32 host LOCAL\n";
        assert_eq!(parse_fib_trie(text), vec![Ipv4Addr::new(192, 0, 2, 2)]);
    }

    #[test]
    fn localhost_only_is_enforced() {
        let r = NetworkConfig::localhost().resolve().unwrap();
        assert_eq!(r.interfaces, vec![Ipv4Addr::LOCALHOST]);
        assert_eq!(r.unicast_spdp_peers, vec![Ipv4Addr::LOCALHOST]);
        let bad = NetworkConfig { unicast_spdp_peers: vec![Ipv4Addr::new(10, 0, 0, 1)], ..NetworkConfig::localhost() };
        assert!(bad.resolve().unwrap_err().message().contains("10.0.0.1"));
        let bad = NetworkConfig { interfaces: vec![Ipv4Addr::new(10, 0, 0, 1)], ..NetworkConfig::localhost() };
        assert!(bad.resolve().is_err());
        let bad = NetworkConfig { spdp_period: Duration::ZERO, ..NetworkConfig::localhost() };
        assert!(bad.resolve().is_err());
    }
}
