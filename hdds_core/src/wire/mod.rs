//! The RTPS 2.x wire format: IO-free encoding and decoding of messages and the values they carry.
//!
//! Parsing is tolerant in the ways DESIGN.md section 3 lists (unknown parameter ids and locator
//! kinds are skipped, vendor-specific ids are read only for known vendors); a malformed message is
//! rejected with a reason, never a panic.

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
