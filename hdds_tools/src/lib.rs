//! Shared pieces of the hdds command-line tools (hdds-demo, hdds-latency-probe, hdds-perf,
//! hdds-udp-floor): argument parsing, how a tool joins the network, latency statistics, JSON
//! output, and the wire layout of Cyclone's ddsperf samples that the probe and the perf tool speak.

pub mod args;
pub mod ddsperf;
pub mod json;
pub mod net;
pub mod stats;

pub use args::{usage_error, Args};
pub use net::NetOpts;
pub use stats::{us, LatencyStats};
