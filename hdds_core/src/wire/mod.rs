//! The RTPS 2.x wire format: IO-free encoding and decoding of messages and the values they carry.
//!
//! Parsing is tolerant in the ways DESIGN.md section 3 lists (unknown parameter ids and locator
//! kinds are skipped, vendor-specific ids are read only for known vendors); a malformed message is
//! rejected with a reason, never a panic.
//!
//! - [`message`]: a datagram as a [`Header`] plus borrowed submessages, the receiver state that
//!   INFO_* submessages set, and [`MessageBuilder`] to encode one.
//! - [`submessage`]: one module per submessage kind, and the [`Submessage`] enum.
//! - [`parameter`] and [`pid`]: parameter lists (SPDP/SEDP data, inline QoS) and their ids.
//! - [`header`], [`guid`], [`locator`], [`sequence_number`], [`time`], [`vendor`]: the values.
//!
//! A receive loop: `for r in Message::parse(datagram)?.receive() { let r = r?; ... }`, where each
//! item has the submessage and the [`ReceiverState`] (source, destination, timestamp) for it.

pub mod guid;
pub mod header;
pub mod locator;
pub mod message;
pub mod parameter;
pub mod pid;
pub mod sequence_number;
pub mod submessage;
pub mod time;
pub mod vendor;

pub use crate::cdr::{DecodeError, EncodeError, Endian};
pub use guid::{EntityId, EntityKind, Guid, GuidPrefix};
pub use header::{Header, ProtocolVersion};
pub use locator::{Locator, LocatorList};
pub use message::{Message, MessageBuilder, Received, Receiver, ReceiverState, SubmessageIter};
pub use parameter::{Parameter, ParameterList, ParameterListWriter};
pub use sequence_number::{FragmentNumber, FragmentNumberSet, SequenceNumber, SequenceNumberSet};
pub use submessage::{Submessage, SubmessageHeader};
pub use time::{Duration, Time};
pub use vendor::{VendorId, VENDOR_ID_HDDS};
