//! A global allocator that counts allocations, for the micro-benchmarks that report
//! "allocations per record". A bench installs it with
//! `#[global_allocator] static GLOBAL: CountingAllocator = CountingAllocator;` and reads
//! [`allocations`] before and after the measured loop.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// Counts heap allocations (and reallocations); forwards everything to the system allocator.
pub struct CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `CountingAllocator` upholds `GlobalAlloc`'s contract exactly as `System` does.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// The allocations counted so far (by a [`CountingAllocator`] installed as the global
/// allocator; 0 otherwise).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}
