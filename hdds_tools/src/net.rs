//! How a tool joins the network: localhost-only unless told which interface to use.

use std::net::Ipv4Addr;

use hdds_core::{NetworkConfig, Participant, ParticipantConfig};

use crate::{usage_error, Args};

/// The network options every tool takes; `NET_HELP` documents them.
pub struct NetOpts {
    pub domain_id: u32,
    pub tag: String,
    /// Empty: localhost-only (nothing leaves the machine).
    pub interfaces: Vec<Ipv4Addr>,
    /// Hosts to announce to by unicast (SPDP); with peers given, multicast is off.
    pub peers: Vec<Ipv4Addr>,
    /// Shared memory with same-host hdds participants (the engine's default), or UDP only.
    pub shared_memory: bool,
}

pub const NET_OPTIONS: &[&str] = &["domain", "tag", "interface", "peer"];
pub const NET_FLAGS: &[&str] = &["no-shm"];

pub const NET_HELP: &str = "\
  --domain ID       DDS domain id, 0..232 (default: ROS_DOMAIN_ID or 0)
  --tag NAME        DDS domain tag: only participants with the same tag meet (default none)
  --interface IP    use this IPv4 interface (repeatable); without it the tool is
                    localhost-only: loopback only, nothing leaves the machine
  --peer IP         announce to this host by unicast (repeatable); turns multicast off
  --no-shm          UDP only: no shared memory with hdds participants on this host (which the
                    engine otherwise uses for them, even across network namespaces)";

impl NetOpts {
    pub fn parse(args: &Args) -> NetOpts {
        let env_domain = std::env::var("ROS_DOMAIN_ID").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
        let o = NetOpts {
            domain_id: args.value("domain", env_domain),
            tag: args.value("tag", String::new()),
            interfaces: args.values("interface"),
            peers: args.values("peer"),
            shared_memory: !args.flag("no-shm"),
        };
        if o.interfaces.is_empty() && o.peers.iter().any(|p| !p.is_loopback()) {
            usage_error("--peer outside 127.0.0.0/8 needs --interface (the default is localhost-only)");
        }
        o
    }

    pub fn network_config(&self) -> NetworkConfig {
        let base = if self.interfaces.is_empty() { NetworkConfig::localhost() } else { NetworkConfig::default() };
        let mut shared_memory = base.shared_memory;
        shared_memory.enabled = self.shared_memory;
        NetworkConfig {
            shared_memory,
            domain_tag: self.tag.clone(),
            interfaces: self.interfaces.clone(),
            multicast: self.peers.is_empty() && base.multicast,
            unicast_spdp_peers: self.peers.clone(),
            ..base
        }
    }

    /// A participant on the network, or the end of the program with the engine's message.
    pub fn participant(&self) -> Participant {
        self.participant_with(self.network_config(), Vec::new())
    }

    /// A participant with `config` (made from [`NetOpts::network_config`] and adjusted) and
    /// USER_DATA `user_data`.
    pub fn participant_with(&self, config: NetworkConfig, user_data: Vec<u8>) -> Participant {
        Participant::with_network(
            ParticipantConfig { domain_id: self.domain_id, user_data, ..Default::default() },
            config,
        )
        .unwrap_or_else(|e| usage_error(&e.to_string()))
    }
}
