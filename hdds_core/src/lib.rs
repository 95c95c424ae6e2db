//! hdds_core: the DDS engine behind rmw_hdds.
//!
//! The crate is layered the way DESIGN.md section 1 describes; each layer only uses the ones above it
//! in this list:
//! - [`cdr`]: XCDR1 encoding of payloads and parameter lists (IO-free).
//! - [`wire`]: RTPS 2.x messages, GUIDs, locators, parameter lists (IO-free, tolerant parsing).
//! - [`qos`]: the DDS QoS policies and the writer/reader compatibility rules.
//! - [`transport`]: how samples move: [`transport::intra`] (same process, no socket),
//!   `transport::shm` (other processes of the host, through /dev/shm), [`transport::udp`].
//! - [`runtime`]: participants, writers and readers: the public API that `hdds_ffi` wraps.
//!
//! [`payload`] is a sample's serialized bytes as every layer shares them (the body aligned for
//! in-place reads). `capacity` (giving back the memory of a burst or a peak) and [`spin`] (the bounded spin before
//! a wait sleeps) serve every layer, as does [`stream_copy`] (a large sample written around the
//! caches, for the reader that reads it next).

mod arc_bytes;
mod capacity;
pub mod cdr;
pub mod discovery;
pub mod error;
mod guid_hash;
pub mod payload;
pub mod qos;
pub mod rtps;
pub mod runtime;
pub mod spin;
pub mod stream_copy;
pub mod time;
pub mod transport;
pub mod wire;

pub use error::{Error, Result};
pub use payload::Payload;
pub use qos::Qos;
pub use rtps::ReassemblyLimits;
pub use runtime::{
    DiscoveryEvent, DiscoveryListener, EndpointInfo, EndpointOptions, GuardCondition, InstanceState, KeyHash,
    KeyHashFn, MatchStatus, NetStats, NetworkConfig, Participant, ParticipantConfig, ParticipantInfo, Reader,
    ReaderLoan, Sample, SampleFilter, SampleIdentity, SampleInfo, Status, StatusMask, Target, WaitEntry, WaitList,
    WaitSet, WriteOptions, Writer,
};
pub use transport::shm::SharedMemoryConfig;
