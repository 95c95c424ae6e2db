//! Participant GUID prefixes: `[vendor id (2)][host id (4)][process id (4)][counter (2)]`.
//!
//! The host id lets same-host peers recognise each other (the shared-memory path keys on it); the
//! process id and a per-process counter make prefixes unique across the participants of a host.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::OnceLock;

use crate::wire::{GuidPrefix, VENDOR_ID_HDDS};

/// FNV-1a: a stable hash that needs no dependency and no seed.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// A 32-bit id of this host: from /etc/machine-id where there is one, else the host name.
pub(crate) fn host_id() -> u32 {
    static HOST: OnceLock<u32> = OnceLock::new();
    *HOST.get_or_init(|| {
        let source = std::fs::read("/etc/machine-id")
            .ok()
            .filter(|b| !b.is_empty())
            .or_else(|| std::fs::read("/proc/sys/kernel/hostname").ok())
            .unwrap_or_default();
        fnv1a(&source)
    })
}

pub(crate) fn new_prefix() -> GuidPrefix {
    static COUNTER: AtomicU16 = AtomicU16::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut p = [0u8; 12];
    p[0..2].copy_from_slice(&VENDOR_ID_HDDS);
    p[2..6].copy_from_slice(&host_id().to_be_bytes());
    p[6..10].copy_from_slice(&std::process::id().to_be_bytes());
    p[10..12].copy_from_slice(&n.to_be_bytes());
    GuidPrefix(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_unique_and_carry_vendor_and_host() {
        let a = new_prefix();
        let b = new_prefix();
        assert_ne!(a, b);
        assert_eq!(a.0[0..2], VENDOR_ID_HDDS);
        assert_eq!(a.0[2..10], b.0[2..10]);
    }
}
