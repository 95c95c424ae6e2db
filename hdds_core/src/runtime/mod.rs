//! The engine's public API: participants, writers and readers. `hdds_ffi` wraps exactly this.
//!
//! Thread model (seed): a write runs entirely on the caller's thread. Same-process readers get the
//! sample from that thread through [`crate::transport::intra`]; a reader's waiters are woken through
//! its condition variable. No engine thread exists yet for the in-process path, and none is needed.

mod guid_gen;
pub mod participant;
pub mod reader;
pub mod sample;
pub mod writer;

pub use participant::{Participant, ParticipantConfig};
pub use reader::Reader;
pub use sample::{Sample, SampleInfo};
pub use writer::Writer;
