//! The RTPS protocol state machines (RTPS 2.5 section 8.4), IO-free.
//!
//! Every machine is driven from outside: it is handed `now` and one input (a sample to write, a
//! submessage that arrived, a timer that fired) and appends what should happen to a caller-owned
//! `Vec` of actions: submessages to send, samples to deliver. It never reads a clock, touches a
//! socket, spawns a thread or takes a lock; the runtime owns all of those (docs/engine.md). After
//! any call, `next_deadline()` says when the machine wants its `on_timer` called next.
//!
//! The action vectors belong to the caller so that the steady state allocates nothing per sample
//! beyond the payload `Arc`: clear and reuse them.
//!
//! - [`history_cache`]: a writer's kept samples, KEEP_LAST / KEEP_ALL.
//! - [`stateless_writer`]: best effort, each sample sent once; SPDP's periodic re-announcement.
//! - [`stateful_writer`] + [`reader_proxy`]: the reliable writer and what it knows of each reader.
//! - [`stateful_reader`] + [`writer_proxy`]: the reliable reader and its per-writer order buffer.
//! - [`best_effort_reader`]: in-order-or-drop delivery, no repair.
//! - [`fragment`]: DATA_FRAG split and bounded reassembly.
//! - [`messages`]: the rtps-level submessage contents the machines consume and produce.

pub mod best_effort_reader;
pub mod fragment;
pub mod history_cache;
pub mod messages;
pub mod reader_proxy;
mod sn_window;
pub mod stateful_reader;
pub mod stateful_writer;
pub mod stateless_writer;
pub mod writer_proxy;

pub use best_effort_reader::{BestEffortReader, BestEffortReaderConfig};
pub use fragment::{ReassemblyLimits, DEFAULT_FRAGMENT_SIZE};
pub use history_cache::{HistoryCache, HistoryKind};
pub use messages::{
    AckNack, Data, DataFrag, Delivery, Dest, FragmentHeader, Gap, Heartbeat, HeartbeatFrag, NackFrag, ReaderAction,
    SampleIdentity, SampleMeta, WriterAction,
};
pub use stateful_reader::{ReaderConfig, ReaderStats, StatefulReader};
pub use stateful_writer::{MatchedReader, StatefulWriter, WriteBlocked, WriterConfig, WriterStats};
pub use stateless_writer::{StatelessWriter, StatelessWriterConfig};
