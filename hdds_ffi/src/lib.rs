//! hdds_ffi: the C ABI of the hdds engine, one thin layer over `hdds_core::runtime`.
//!
//! Every entry point runs its body inside [`ret::guard`], which turns errors into an
//! [`ret::HddsRet`] plus a thread-local message and stops any panic at the boundary: no panic ever
//! crosses into C. The header `hdds/hdds.h` is generated from these files by cbindgen.

// The entry points are C functions: their pointer contracts are stated in each doc comment, which
// cbindgen copies into hdds/hdds.h. Marking them `unsafe fn` would say nothing to a C caller.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod condition;
pub mod config;
pub mod copy;
pub mod discovery;
pub mod endpoint;
pub mod filter;
pub mod loan;
pub mod participant;
pub mod qos;
pub mod reader_loan;
pub mod ret;
pub mod sample;
pub mod status;
pub mod waitset;

pub use condition::HddsGuardCondition;
pub use discovery::{HddsEndpointEvent, HddsParticipantEvent};
pub use endpoint::{HddsEndpointOptions, HddsLocator, HddsReader, HddsWriteOptions, HddsWriter};
pub use participant::{HddsParticipant, HddsParticipantConfig};
pub use qos::HddsQos;
pub use ret::HddsRet;
pub use sample::{HddsSample, HddsSampleInfo};
pub use status::HddsStatus;
pub use waitset::{HddsWaitEntry, HddsWaitSet};
