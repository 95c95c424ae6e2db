//! A global allocator that counts the bytes allocated and not yet freed, and the allocations made,
//! over every thread of the test process: memory tests compare them before and after what must
//! leave nothing behind, or must allocate at most so often. A test
//! binary that uses it runs its measurements one after the other (one #[test], or sequential
//! phases), since the count is process-wide.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

/// Bytes allocated and not yet freed, all threads.
static LIVE: AtomicIsize = AtomicIsize::new(0);

/// Calls to alloc, alloc_zeroed and realloc, all threads.
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// SAFETY: every call is forwarded to the system allocator with the caller's arguments; the
// counter only observes sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours (layout of non-zero size, checked by the caller).
        let p = unsafe { System.alloc(layout) };
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator with `layout` (caller's contract).
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; `new_size` is the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if !p.is_null() {
            LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes allocated and not yet freed, now.
#[allow(dead_code)] // not every test binary counts bytes
pub fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Allocations made so far (a realloc counts as one), all threads.
#[allow(dead_code)] // not every test binary counts allocations
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::Relaxed)
}
