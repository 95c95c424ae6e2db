//! The engine's error type. Every error carries a message written for the person who has to act on
//! it: what went wrong and, where there is one, what to do about it.

use std::fmt;

/// What kind of failure an [`Error`] is; the C ABI maps each kind to one return code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// An argument was out of range or malformed.
    BadArgument,
    /// A configured or built-in limit was reached.
    OutOfResources,
    /// The operation is valid but this build does not do it (yet).
    Unsupported,
    /// A blocking call ran out of time.
    Timeout,
    /// The entity was already deleted or belongs to a stopped participant.
    AlreadyDeleted,
    /// The operating system refused (sockets, shared memory, threads).
    Io,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }
    pub fn bad_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadArgument, message)
    }
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io, e.to_string())
    }
}
