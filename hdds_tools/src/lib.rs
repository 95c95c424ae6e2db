//! Shared pieces of the hdds command-line tools.
