//! Shared memory: samples reach readers in other processes of the same host through /dev/shm, with
//! no socket, no fragmentation and no daemon. On by default ([`SharedMemoryConfig`]).
//!
//! Pieces:
//! - [`segment`]: files under /dev/shm (mode 0600, this user only), with an owner header that
//!   lets anyone find and remove the leftovers of a dead process;
//! - [`ring`]: one segment per writer: a ring of sample descriptors, the cursors of the readers it
//!   serves, and an arena of variable-size payloads (up to the arena size, 128 MiB by default);
//! - [`doorbell`]: one segment per participant: a futex word its readers' writers ring;
//! - [`futex`]: the syscall, wrapped;
//! - [`writer`]: a writer's side (publish, match readers, ring their doorbells).
//!
//! The reader side lives in `runtime/net/shm.rs`: one thread per participant drains the rings of
//! the writers its readers are matched with into the readers' histories.
//!
//! **Same-host peers.** A participant with shared memory on announces, in SPDP, one more default
//! unicast locator of a vendor-specific kind ([`LOCATOR_KIND_SHM`]; other vendors skip kinds they
//! do not know) whose address holds this host's key and the user id. Two hdds participants that
//! both announce it with the same host key and user talk through shared memory: both sides decide
//! alike, so a pair never uses UDP for user data as well (a sample reaches a reader by exactly one
//! path: same-process, shared memory or UDP). The host key hashes the boot id with the identity of
//! /dev/shm, so containers that do not share /dev/shm are different hosts.
//!
//! **Wake-up model.** A writer publishes under its state lock (copy into the arena, stamp the
//! descriptor, advance `head`), then rings the doorbell of every participant it serves (a syscall
//! only when that participant's thread sleeps). The reader's thread drains every ring it attached,
//! delivering into the readers' histories (which wakes wait sets and runs listeners), then spins on
//! its doorbell for at most the participant's `wait_spin` (as every wait does, `crate::spin`: only
//! while samples come often) and sleeps in `futex_wait` until the next ring or 1 s (1 ms while
//! a KEEP_ALL reader's queue is full). `wait_spin = Duration::MAX` polls without ever sleeping.
//! An application thread waiting for one of the participant's readers (a wait set,
//! `Reader::wait_for_data`) registers on the doorbell and drains the rings itself; writers then
//! wake it instead of the reader thread: a sample wakes exactly one thread ([`doorbell`]).
//!
//! **History.** The ring is transport buffering; history depth is applied in the reader's history
//! as on the other paths. A KEEP_LAST (or best-effort) writer never blocks: when its ring is full
//! it replaces its oldest sample. A reliable KEEP_ALL writer blocks up to max_blocking_time while
//! a reliable reader has not taken its samples: the reader's thread stops draining a ring into a
//! KEEP_ALL reader once that reader holds `keep_all_max_samples` (1024 by default) untaken samples, so the ring
//! fills and the writer waits, then fails with a time-out.
//!
//! **Cleanup.** A writer removes its ring when deleted, a participant its doorbell. After a crash
//! (SIGKILL), readers detach when the dead participant's lease runs out and then remove its
//! segments; a participant starting up removes every stale segment of this user.

pub mod doorbell;
pub mod futex;
pub mod ring;
pub mod segment;
pub mod writer;

use std::sync::OnceLock;
use std::time::Duration;

use crate::wire::Locator;

/// The locator kind that says "shared memory, hdds layout". Read only from hdds participants
/// (vendor id 01.f0).
pub const LOCATOR_KIND_SHM: i32 = Locator::KIND_HDDS_SHM;

/// How a participant uses shared memory with the other processes of its host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedMemoryConfig {
    /// Use shared memory with same-host hdds participants (true by default).
    pub enabled: bool,
    /// Sample slots per writer ring: how many samples can be in flight to the slowest reader.
    pub slots: usize,
    /// Payload bytes per writer ring (virtual: pages are taken as used, starting at the front).
    /// The largest sample a writer can send through shared memory.
    pub arena_bytes: usize,
    /// Readers on this host one writer can serve through shared memory.
    pub max_readers: usize,
    /// How long a sample may wait in a ring for the application thread that drains it: while
    /// application threads wait on the participant's readers in a loop (one left a wait less than
    /// 10 ms ago), a sample that arrives between two of their waits is left for the thread to
    /// drain when it comes back, and the participant's reader thread (which delivers to
    /// histories and listeners when no application thread waits) wakes only after this long
    /// (`transport/shm/doorbell.rs`, hand-off). A ping-pong then costs one wake-up per sample,
    /// not two. `Duration::ZERO`: the reader thread is woken for every such sample at once.
    pub handoff: Duration,
}

/// The default [`SharedMemoryConfig::handoff`].
pub const HANDOFF: Duration = Duration::from_millis(1);

impl Default for SharedMemoryConfig {
    fn default() -> Self {
        SharedMemoryConfig { enabled: true, slots: 64, arena_bytes: 128 << 20, max_readers: 64, handoff: HANDOFF }
    }
}

impl SharedMemoryConfig {
    /// Shared memory off: same-host peers are reached over UDP.
    pub fn disabled() -> Self {
        SharedMemoryConfig { enabled: false, ..Self::default() }
    }
}

/// FNV-1a, 64 bits: a stable hash needing no seed.
fn fnv1a64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// This host's key: the same for every process that shares this kernel and this /dev/shm.
pub fn host_key() -> u64 {
    use std::os::unix::fs::MetadataExt;
    static KEY: OnceLock<u64> = OnceLock::new();
    *KEY.get_or_init(|| {
        let boot = std::fs::read("/proc/sys/kernel/random/boot_id")
            .or_else(|_| std::fs::read("/etc/machine-id"))
            .unwrap_or_default();
        let shm = std::fs::metadata(segment::SHM_DIR).map(|m| (m.dev(), m.ino())).unwrap_or_default();
        fnv1a64(&[&boot, &shm.0.to_le_bytes(), &shm.1.to_le_bytes()])
    })
}

/// The locator a participant with shared memory on announces in SPDP.
pub fn locator() -> Locator {
    let mut address = [0u8; 16];
    address[..8].copy_from_slice(&host_key().to_be_bytes());
    address[8..12].copy_from_slice(&segment::euid().to_be_bytes());
    Locator { kind: LOCATOR_KIND_SHM, port: segment::LAYOUT_VERSION, address }
}

/// Whether a peer announcing `locators` can be reached through shared memory from here: it
/// announces our locator exactly (same host, same user, same layout).
pub fn reachable(locators: &[Locator]) -> bool {
    let mine = locator();
    locators.contains(&mine)
}

/// A GUID prefix no other test (or test run) uses, for segment names in unit tests.
#[cfg(test)]
pub(crate) fn test_prefix() -> crate::wire::GuidPrefix {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let mut p = [0u8; 12];
    p[0..2].copy_from_slice(&[0x7e, 0x57]);
    p[2..6].copy_from_slice(&std::process::id().to_be_bytes());
    p[6..10].copy_from_slice(&N.fetch_add(1, Ordering::Relaxed).to_be_bytes());
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    p[10..12].copy_from_slice(&(nanos as u16).to_be_bytes());
    crate::wire::GuidPrefix(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_locator_is_reachable_and_others_are_not() {
        let me = locator();
        assert!(reachable(&[Locator::udpv4(std::net::Ipv4Addr::LOCALHOST, 7411), me]));
        let mut other_host = me;
        other_host.address[0] ^= 1;
        let mut other_user = me;
        other_user.address[11] ^= 1;
        let other_layout = Locator { port: me.port + 1, ..me };
        assert!(!reachable(&[other_host, other_user, other_layout]));
        assert!(me.socket_addr().is_none(), "never taken for a UDP address");
    }
}
