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

/// A queue longer than this held a burst (its consumer fell behind, or a lost sample held back
/// those after it): when it empties, its buffer goes back to `STEADY_QUEUE_SLOTS`.
const BURST_QUEUE_SLOTS: usize = 64;
const STEADY_QUEUE_SLOTS: usize = 16;

/// Gives back a burst's buffer once `queue` is empty. A `VecDeque` otherwise keeps its largest
/// capacity for good: a KEEP_ALL reader starved for a moment kept up to `keep_all_max_samples`
/// slots of ~100 B, a reliable reader's order buffer up to `max_buffered`, which is what made the
/// endurance run's heap step up and stay. Costs one reallocation per burst, none in the steady
/// state.
pub(crate) fn release_burst<T>(queue: &mut std::collections::VecDeque<T>) {
    if queue.is_empty() && queue.capacity() > BURST_QUEUE_SLOTS {
        queue.shrink_to(STEADY_QUEUE_SLOTS);
    }
}
