//! Shared-memory segments: files under /dev/shm, mapped read-write, with an owner header.
//!
//! - Names: `hdds_<guid prefix hex>_<entity id hex>`; a participant's doorbell uses its own
//!   participant GUID, a writer's ring the writer's GUID. Every segment of a participant thus
//!   starts with `hdds_<its prefix hex>_`, which is how a departed participant's leftovers are found.
//! - Created with `O_EXCL | O_NOFOLLOW` and mode 0600; opened only when the file belongs to this
//!   user and nobody else may read or write it (checked with fstat on the open descriptor).
//! - The header says who owns the segment: pid, the process start time (so that a reused pid is not
//!   taken for the owner) and the pid namespace (a pid means nothing in another one). A segment
//!   whose owner is dead is stale: [`reclaim_stale`] unlinks it.
//! - A process that exits normally (also through `exit()` after a signal handler, as rclcpp does on
//!   SIGTERM) removes the segments it created and still holds, from an `atexit` hook, even when
//!   its participants were never dropped.
//! - Pages of tmpfs are given out as they are touched; touching one when /dev/shm is full kills the
//!   process with SIGBUS. So the owner allocates ([`Segment::commit`], fallocate) every byte before
//!   anyone touches it, and an allocation failure is an error, never a signal.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, SystemTime};

use crate::error::{Error, ErrorKind, Result};
use crate::wire::{Guid, GuidPrefix};

/// Where the segments live (shm_open's directory on Linux).
pub const SHM_DIR: &str = "/dev/shm";
/// Every segment name starts with this.
pub const NAME_PREFIX: &str = "hdds_";
const MAGIC: u64 = u64::from_le_bytes(*b"HDDS-SHM");
/// Bumped whenever the layout of any segment kind changes: peers with another version do not attach.
pub const LAYOUT_VERSION: u32 = 5;
/// A file whose header never became valid (its creator died while creating it) is removed once it
/// is this old; younger ones may still be in creation.
const HALF_MADE_GRACE: Duration = Duration::from_secs(30);

/// What a segment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum SegmentKind {
    /// A participant's doorbell ([`super::doorbell`]).
    Doorbell = 1,
    /// A writer's ring of samples ([`super::ring`]).
    Ring = 2,
}

/// The first bytes of every segment. All fields are atomics: the memory is shared with other
/// processes, which may change it at any time. The fields up to `owner_pidns` keep their offsets
/// in every layout version, so that a participant of any version can tell whether another
/// version's segment still has a live owner ([`reclaim_stale`]).
#[repr(C)]
pub(crate) struct SegmentHeader {
    magic: AtomicU64,
    version: AtomicU32,
    kind: AtomicU32,
    owner_pid: AtomicU32,
    _pad: AtomicU32,
    owner_start: AtomicU64,
    owner_pidns: AtomicU64,
    len: AtomicU64,
}

/// The header's size, rounded to a cache line: what follows starts on its own line.
pub const HEADER_LEN: usize = 64;
const _: () = assert!(std::mem::size_of::<SegmentHeader>() <= HEADER_LEN);

/// The segment name of an entity (a participant's doorbell, a writer's ring).
pub fn segment_name(guid: Guid) -> String {
    let mut s = String::with_capacity(NAME_PREFIX.len() + 33);
    s.push_str(NAME_PREFIX);
    s.push_str(&prefix_hex(guid.prefix));
    s.push('_');
    for b in guid.entity_id.0 {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

fn prefix_hex(p: GuidPrefix) -> String {
    p.0.iter().map(|b| format!("{b:02x}")).collect()
}

/// The name prefix shared by all segments of participant `prefix`.
pub fn participant_name_prefix(prefix: GuidPrefix) -> String {
    format!("{NAME_PREFIX}{}_", prefix_hex(prefix))
}

/// Who created a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub pid: u32,
    /// Start time of the process, in clock ticks since boot (/proc/<pid>/stat field 22).
    pub start: u64,
    /// Inode of the pid namespace the pid belongs to.
    pub pidns: u64,
}

/// Whether a segment's owner still runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    Alive,
    Dead,
    /// Another pid namespace: we cannot tell, so we leave it alone.
    Unknown,
}

impl Owner {
    /// This process.
    pub fn me() -> Owner {
        static ME: OnceLock<Owner> = OnceLock::new();
        *ME.get_or_init(|| {
            let pid = std::process::id();
            Owner { pid, start: proc_stat(pid).map_or(0, |s| s.1), pidns: own_pidns() }
        })
    }

    pub fn liveness(&self) -> Liveness {
        if self.pidns != own_pidns() {
            return Liveness::Unknown;
        }
        match proc_stat(self.pid) {
            // A zombie (killed, not yet reaped) runs no more; a different start time is a new
            // process that got the pid.
            Some((state, start)) if state != 'Z' && state != 'X' && start == self.start => Liveness::Alive,
            _ => Liveness::Dead,
        }
    }
}

/// State and start time of a process, from /proc/<pid>/stat.
fn proc_stat(pid: u32) -> Option<(char, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces and parentheses: fields go on after the last ')'.
    let rest = &s[s.rfind(')')? + 1..];
    let mut f = rest.split_ascii_whitespace();
    let state = f.next()?.chars().next()?;
    // Field 22 overall is the 20th after the name (field 3 is the first).
    let start = f.nth(18)?.parse().ok()?;
    Some((state, start))
}

fn own_pidns() -> u64 {
    static NS: OnceLock<u64> = OnceLock::new();
    *NS.get_or_init(|| std::fs::metadata("/proc/self/ns/pid").map_or(0, |m| m.ino()))
}

pub(crate) fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The segments this process created and has not removed: what the exit hook removes.
static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn remember(path: &Path) {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        // SAFETY: registers a plain extern "C" function with no arguments; it may run on any thread
        // at exit and only touches CREATED (try_lock: never blocks) and the file system.
        unsafe {
            libc::atexit(remove_created_at_exit);
        }
    });
    CREATED.lock().unwrap_or_else(|p| p.into_inner()).push(path.to_owned());
}

fn forget(path: &Path) {
    CREATED.lock().unwrap_or_else(|p| p.into_inner()).retain(|p| p != path);
}

extern "C" fn remove_created_at_exit() {
    // A thread that held the lock when the process began to exit will never release it: then leave
    // the files to the next participant's clean-up rather than hang.
    if let Ok(paths) = CREATED.try_lock() {
        for p in paths.iter() {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("shared memory: {what} {}: {e}", path.display()))
}

/// A mapped segment. Dropping it unmaps it; only [`Segment::unlink`] removes the file.
pub(crate) struct Segment {
    base: NonNull<u8>,
    len: usize,
    file: File,
    path: PathBuf,
}

// SAFETY: the mapping is plain memory valid until drop; every access to it goes through atomics or
// raw copies whose races with other processes the users of a segment handle (ring.rs's seqlock).
unsafe impl Send for Segment {}
// SAFETY: as for Send: shared references only hand out atomics and raw pointers.
unsafe impl Sync for Segment {}

impl Segment {
    /// Creates segment `name` of `len` bytes (the header included), mode 0600, and allocates its
    /// first `commit` bytes. A leftover file of the same name whose owner is dead is replaced.
    pub(crate) fn create(name: &str, kind: SegmentKind, len: usize, commit: usize) -> Result<Segment> {
        let path = Path::new(SHM_DIR).join(name);
        let open = || {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&path)
        };
        let file = match open() {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && reclaim_one(&path) => {
                open().map_err(|e| io_error("creating", &path, e))?
            }
            Err(e) => return Err(io_error("creating", &path, e)),
        };
        let seg = (|| {
            file.set_len(len as u64).map_err(|e| io_error("sizing", &path, e))?;
            let seg = Segment::map(file, path.clone(), len)?;
            seg.commit(0, commit.max(HEADER_LEN).min(len))?;
            Ok(seg)
        })();
        let seg = match seg {
            Ok(s) => s,
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                return Err(e);
            }
        };
        let h = seg.header();
        let me = Owner::me();
        h.version.store(LAYOUT_VERSION, Ordering::Relaxed);
        h.kind.store(kind as u32, Ordering::Relaxed);
        h.owner_pid.store(me.pid, Ordering::Relaxed);
        h.owner_start.store(me.start, Ordering::Relaxed);
        h.owner_pidns.store(me.pidns, Ordering::Relaxed);
        h.len.store(len as u64, Ordering::Relaxed);
        // The magic goes last: a peer that sees it sees a complete header (and whatever the caller
        // initialised before publishing the segment's name through discovery).
        h.magic.store(MAGIC, Ordering::Release);
        remember(&seg.path);
        Ok(seg)
    }

    /// Opens an existing segment of this user, checking who may access it and what it holds.
    pub(crate) fn open(name: &str, kind: SegmentKind) -> Result<Segment> {
        let path = Path::new(SHM_DIR).join(name);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| io_error("opening", &path, e))?;
        let md = file.metadata().map_err(|e| io_error("inspecting", &path, e))?;
        if md.uid() != euid() || md.mode() & 0o077 != 0 || !md.file_type().is_file() {
            return Err(Error::new(
                ErrorKind::Io,
                format!(
                    "shared memory: {} belongs to uid {} with mode {:o}; only segments of this user (uid {}) with \
                     mode 0600 are attached",
                    path.display(),
                    md.uid(),
                    md.mode() & 0o7777,
                    euid()
                ),
            ));
        }
        let len = usize::try_from(md.len()).unwrap_or(0);
        if len < HEADER_LEN {
            return Err(Error::new(ErrorKind::Io, format!("shared memory: {} is too short", path.display())));
        }
        let seg = Segment::map(file, path, len)?;
        let h = seg.header();
        let ok = h.magic.load(Ordering::Acquire) == MAGIC
            && h.version.load(Ordering::Relaxed) == LAYOUT_VERSION
            && h.kind.load(Ordering::Relaxed) == kind as u32
            && h.len.load(Ordering::Relaxed) == len as u64;
        if !ok {
            return Err(Error::new(
                ErrorKind::Io,
                format!(
                    "shared memory: {} is not an hdds {kind:?} segment of layout version {LAYOUT_VERSION} (another \
                     hdds version, or not initialised yet)",
                    seg.path.display()
                ),
            ));
        }
        Ok(seg)
    }

    fn map(file: File, path: PathBuf, len: usize) -> Result<Segment> {
        // SAFETY: a fresh shared mapping of `len` bytes of an open regular file; the kernel picks
        // the address. Nothing aliases it in this process until we hand out pointers into it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io_error("mapping", &path, std::io::Error::last_os_error()));
        }
        let base = NonNull::new(p.cast::<u8>()).ok_or_else(|| Error::new(ErrorKind::Io, "mmap returned null"))?;
        Ok(Segment { base, len, file, path })
    }

    /// Allocates the pages of bytes `offset..offset+len` (tmpfs hands pages out lazily; see the
    /// module doc on SIGBUS). Fails with a message when /dev/shm is full.
    pub(crate) fn commit(&self, offset: usize, len: usize) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        // SAFETY: fallocate on our own descriptor; it touches no memory of this process.
        let r = unsafe { libc::fallocate(self.file.as_raw_fd(), 0, offset as libc::off_t, len as libc::off_t) };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            return Err(Error::new(
                ErrorKind::OutOfResources,
                format!(
                    "shared memory: cannot allocate {len} bytes in {} ({e}): /dev/shm is full or too small; free \
                     space there, enlarge it, or lower SharedMemoryConfig::arena_bytes",
                    self.path.display()
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn header(&self) -> &SegmentHeader {
        // SAFETY: the mapping is at least HEADER_LEN bytes (checked at create/open), page-aligned,
        // and lives as long as `self`; SegmentHeader holds only atomics, valid for any bit pattern.
        unsafe { &*self.base.as_ptr().cast::<SegmentHeader>() }
    }

    /// The owner recorded in the header.
    pub(crate) fn owner(&self) -> Owner {
        let h = self.header();
        Owner {
            pid: h.owner_pid.load(Ordering::Relaxed),
            start: h.owner_start.load(Ordering::Relaxed),
            pidns: h.owner_pidns.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn base(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file (the mappings stay valid until dropped).
    pub(crate) fn unlink(&self) {
        let _ = std::fs::remove_file(&self.path);
        forget(&self.path);
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping `map` made; no reference into it outlives `self`
        // (every accessor borrows `self`).
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.len);
        }
    }
}

/// Reads the header of a segment file without mapping it; `None` if it is not a valid hdds
/// segment.
fn read_owner(file: &File) -> Option<Owner> {
    let mut b = [0u8; 40];
    file.read_exact_at(&mut b, 0).ok()?;
    let u64_at = |i: usize| u64::from_ne_bytes(b[i..i + 8].try_into().unwrap_or_default());
    let u32_at = |i: usize| u32::from_ne_bytes(b[i..i + 4].try_into().unwrap_or_default());
    // Any layout version: the owner fields are where every version puts them. Taking another
    // version's live segment for a half-made one would unlink it under its owner's readers.
    if u64_at(0) != MAGIC {
        return None;
    }
    Some(Owner { pid: u32_at(16), start: u64_at(24), pidns: u64_at(32) })
}

/// Unlinks `path` if it is a stale segment of this user; true if it is gone.
fn reclaim_one(path: &Path) -> bool {
    let Ok(file) = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(path) else {
        return false;
    };
    let Ok(md) = file.metadata() else { return false };
    if md.uid() != euid() || !md.file_type().is_file() {
        return false;
    }
    let stale = match read_owner(&file) {
        Some(owner) => owner.liveness() == Liveness::Dead,
        None => md
            .modified()
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > HALF_MADE_GRACE),
    };
    stale && std::fs::remove_file(path).is_ok()
}

/// Unlinks the stale hdds segments of this user under /dev/shm whose names start with
/// `name_prefix` (all of ours with [`NAME_PREFIX`]); returns how many went.
pub fn reclaim_stale(name_prefix: &str) -> usize {
    let Ok(dir) = std::fs::read_dir(SHM_DIR) else { return 0 };
    dir.filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with(NAME_PREFIX) && n.starts_with(name_prefix)))
        .filter(|e| reclaim_one(&e.path()))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::EntityId;

    fn test_guid(n: u8) -> Guid {
        Guid::new(super::super::test_prefix(), EntityId([0, 0, n, 0x03]))
    }

    #[test]
    fn names_carry_the_guid() {
        let g = Guid::new(GuidPrefix([0x01, 0xf0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), EntityId([0, 0, 1, 0x03]));
        assert_eq!(segment_name(g), "hdds_01f002030405060708090a0b_00000103");
        assert!(segment_name(g).starts_with(&participant_name_prefix(g.prefix)));
    }

    #[test]
    fn create_open_mode_and_owner() {
        let name = segment_name(test_guid(1));
        let seg = Segment::create(&name, SegmentKind::Ring, 8192, 4096).unwrap();
        let md = std::fs::metadata(seg.path()).unwrap();
        assert_eq!(md.mode() & 0o777, 0o600);
        assert_eq!(seg.owner(), Owner::me());
        assert_eq!(Owner::me().liveness(), Liveness::Alive);
        let other = Segment::open(&name, SegmentKind::Ring).unwrap();
        assert_eq!(other.len(), 8192);
        // The wrong kind, or a live owner's name taken again, is refused.
        assert!(Segment::open(&name, SegmentKind::Doorbell).is_err());
        assert!(Segment::create(&name, SegmentKind::Ring, 8192, 0).is_err());
        seg.unlink();
        assert!(Segment::open(&name, SegmentKind::Ring).is_err());
    }

    #[test]
    fn open_refuses_a_segment_others_may_read() {
        let name = segment_name(test_guid(2));
        let seg = Segment::create(&name, SegmentKind::Ring, 4096, 4096).unwrap();
        std::fs::set_permissions(seg.path(), std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        let e = Segment::open(&name, SegmentKind::Ring).err().unwrap();
        assert!(e.message().contains("mode 0600"), "{e}");
        seg.unlink();
    }

    #[test]
    fn a_dead_owners_segment_is_reclaimed_and_a_live_ones_is_not() {
        let name = segment_name(test_guid(3));
        let seg = Segment::create(&name, SegmentKind::Ring, 4096, 4096).unwrap();
        assert_eq!(reclaim_stale(&name), 0);
        assert!(seg.path().exists());
        // Pretend the owner was a process that has ended (same pid, another start time).
        seg.header().owner_start.store(Owner::me().start + 1, Ordering::Relaxed);
        assert_eq!(reclaim_stale(&name), 1);
        assert!(!seg.path().exists());
    }

    /// A participant built with another layout version (an upgrade in progress on one host) must
    /// not take this version's live segments for half-made ones once they are older than the
    /// grace period: unlinking them left later joiners unable to attach while the writer, which
    /// had matched them, waited for them (the endurance run's writer stall).
    #[test]
    fn another_layout_versions_live_segment_is_kept_and_its_dead_one_reclaimed() {
        let name = segment_name(test_guid(5));
        let seg = Segment::create(&name, SegmentKind::Ring, 4096, 4096).unwrap();
        seg.header().version.store(LAYOUT_VERSION + 1, Ordering::Relaxed);
        let old = SystemTime::now() - HALF_MADE_GRACE - Duration::from_secs(60);
        File::options().write(true).open(seg.path()).unwrap().set_modified(old).unwrap();
        assert_eq!(reclaim_stale(&name), 0, "a live owner's segment of another version was unlinked");
        assert!(seg.path().exists());
        seg.header().owner_start.store(Owner::me().start + 1, Ordering::Relaxed);
        assert_eq!(reclaim_stale(&name), 1);
        assert!(!seg.path().exists());
    }

    #[test]
    fn a_stale_file_of_the_same_name_is_replaced_on_create() {
        let name = segment_name(test_guid(4));
        let old = Segment::create(&name, SegmentKind::Ring, 4096, 4096).unwrap();
        old.header().owner_start.store(Owner::me().start + 1, Ordering::Relaxed);
        let new = Segment::create(&name, SegmentKind::Ring, 4096, 4096).unwrap();
        assert_eq!(new.owner(), Owner::me());
        new.unlink();
    }

    #[test]
    fn zombies_and_missing_processes_are_dead() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Wait until it has exited but is not reaped: a zombie.
        let end = std::time::Instant::now() + Duration::from_secs(5);
        while proc_stat(pid).is_some_and(|s| s.0 != 'Z') && std::time::Instant::now() < end {
            std::thread::sleep(Duration::from_millis(2));
        }
        let start = proc_stat(pid).map_or(0, |s| s.1);
        let owner = Owner { pid, start, pidns: own_pidns() };
        assert_eq!(owner.liveness(), Liveness::Dead);
        child.wait().unwrap();
        assert_eq!(owner.liveness(), Liveness::Dead);
        assert_eq!(Owner { pidns: own_pidns() ^ 1, ..owner }.liveness(), Liveness::Unknown);
    }
}
