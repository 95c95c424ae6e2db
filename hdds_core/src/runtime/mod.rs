//! The engine's public API: participants, writers and readers. `hdds_ffi` wraps exactly this.
//!
//! Thread model: a write runs on the caller's thread. Same-process readers get the sample from that
//! thread through [`crate::transport::intra`]; a reader's waiters are woken through its condition
//! variable. A participant on the network ([`Participant::with_network`]) adds one receive thread
//! and one timer thread ([`net`]); docs/engine.md describes the whole model.

mod guid_gen;
pub mod instances;
pub(crate) mod net;
pub mod participant;
pub mod reader;
pub mod sample;
pub mod status;
pub mod writer;

pub use instances::{InstanceState, KeyHash, KeyHashFn};
pub use net::{NetStats, NetworkConfig};
pub use participant::{Participant, ParticipantConfig};
pub use reader::Reader;
pub use sample::{Sample, SampleInfo};
pub use status::MatchStatus;
pub use writer::Writer;
