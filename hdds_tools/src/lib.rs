//! Shared pieces of the hdds command-line tools (hdds-demo, hdds-interop-peer, hdds-stress-peer,
//! hdds-scale-peer, hdds-liveliness-peer, hdds-latency-probe, hdds-perf, hdds-udp-floor,
//! hdds-samehost-bench): argument parsing, how a tool joins the network, latency statistics, JSON
//! output, stopping on a signal ([`stop`]), the interop peers' rules ([`interop`]), and the wire
//! layout of Cyclone's ddsperf samples that the probe and the perf tool speak ([`ddsperf`]).

pub mod args;
pub mod ddsperf;
pub mod interop;
pub mod json;
pub mod net;
pub mod stats;
pub mod stop;

pub use args::{usage_error, Args};
pub use net::NetOpts;
pub use stats::{us, LatencyStats};
pub use stop::{install_stop_handlers, request_stop, stopped};
