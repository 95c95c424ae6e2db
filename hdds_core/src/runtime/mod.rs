//! The engine's public API: participants, writers and readers. `hdds_ffi` wraps exactly this.
//!
//! Thread model: a write runs on the caller's thread. Same-process readers get the sample from that
//! thread through [`crate::transport::intra`]; a reader's waiters are woken through its condition
//! variable. A participant on the network ([`Participant::with_network`]) adds one receive thread
//! and one timer thread ([`net`]); DEADLINE and liveliness leases have one process-wide QoS timer
//! thread (`watchdog`). Wait sets, statuses and listeners: [`waitset`] (the wake-up model) and
//! [`events`] (listeners run with no engine lock held). docs/engine.md describes the whole model.

pub mod condition;
mod deadline;
pub mod discovery_events;
pub mod events;
mod guid_gen;
pub(crate) mod handoff;
pub mod instances;
mod listener;
mod liveliness;
pub(crate) mod net;
pub mod participant;
pub mod reader;
pub mod sample;
pub mod status;
pub mod waitset;
pub mod wake_slice;
mod watchdog;
pub mod writer;

pub use condition::GuardCondition;
pub use discovery_events::{DiscoveryEvent, DiscoveryListener, EndpointInfo, ParticipantInfo};
pub use instances::{InstanceState, KeyHash, KeyHashFn};
pub use net::{NetStats, NetworkConfig};
pub use participant::{EndpointOptions, Participant, ParticipantConfig};
pub use reader::{Reader, ReaderLoan, SampleFilter};
pub use sample::{Sample, SampleIdentity, SampleInfo, WriteOptions};
pub use status::{MatchStatus, Status, StatusMask};
pub use waitset::{Target, WaitEntry, WaitList, WaitSet};
pub use writer::Writer;
