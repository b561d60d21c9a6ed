//! Session windows, sliding windows and emit-final buffers: the store layouts and the per-record
//! algorithms that the code `topology!` generates calls (tumbling and hopping windows are in
//! [`crate::store::window_key`] and the generated code itself).
//!
//! # Layouts (all keys ordered by their bytes, as every store is)
//!
//! - **Session store**: key = key bytes ‖ session end (8 bytes big-endian) ‖ session start (8
//!   bytes big-endian), exactly what Kafka Streams' `SessionWindowedSerializer` writes (and its
//!   `SessionKeySchema` stores), so a session store's key *is* the output key on the wire; value
//!   = the aggregate. The sessions of one key sort by end (they never overlap, so by start too):
//!   the sessions a record may merge with are one range scan from `key ‖ t−gap`.
//! - **Sliding-window store**: key = key bytes ‖ window start (8 bytes big-endian), as time
//!   windows; value = the largest record timestamp in the window (8 bytes big-endian) ‖ the
//!   aggregate (Kafka Streams keeps a `ValueAndTimestamp` there too).
//! - **Emit-final buffer**: key = window end (8 bytes big-endian) ‖ the window store's key, so
//!   the windows that closed are a prefix scan; value = record timestamp (8 bytes) ‖ the
//!   aggregate.
//!
//! Timestamps are never negative here: a record with a negative timestamp goes to `on_error`
//! before it reaches a window, so big-endian bytes sort as the numbers do.
//!
//! # Allocation
//!
//! Every list and buffer a record needs lives in the task's [`WindowScratch`], cleared and
//! reused, so a steady-state record allocates nothing of ours.

#![allow(clippy::too_many_arguments)]

mod retention;
mod session;
mod sliding;
mod suppress;
mod time_limit;

pub use retention::TimeIndex;
pub use session::{SessionSpan, session_find, session_key, session_merge, split_session_key};
pub use sliding::{Base, SlidingStep, sliding_load, sliding_plan, sliding_store};
pub use suppress::{BufferLimits, SuppressState, buffer_evict_next, buffer_put};
pub use time_limit::{ChangeParts, limit_evict_next, limit_put, push_change_part, split_change};

/// The reusable lists and buffers of a task's windowed operators.
#[derive(Debug, Default)]
pub struct WindowScratch {
    /// Sessions found for the current record: `(start, end)`, in store order.
    pub sessions: Vec<(i64, i64)>,
    /// The steps of a sliding-window update, in Kafka Streams' order.
    pub steps: Vec<SlidingStep>,
    /// A sliding window's aggregate copied before the record updates it (left window).
    pub left: Vec<u8>,
    /// The same, for the record's right window.
    pub right: Vec<u8>,
    /// A range bound.
    pub lo: Vec<u8>,
    /// A range bound, or an evicted buffer key.
    pub hi: Vec<u8>,
    /// An evicted buffer value.
    pub value: Vec<u8>,
}

impl WindowScratch {
    /// Empty scratch space (buffers grow on first use, then are reused).
    pub fn new() -> Self {
        Self::default()
    }
}

/// Reads 8 big-endian bytes at `at` (the caller checked the length).
#[inline]
fn be_i64(bytes: &[u8], at: usize) -> i64 {
    let mut array = [0u8; 8];
    array.copy_from_slice(&bytes[at..at + 8]);
    i64::from_be_bytes(array)
}

/// The merger of a session-windowed `aggregate(..)`: combines two sessions' aggregates into the
/// merged session's (Kafka Streams' `Merger`), its bound fixing the closure's parameter types.
#[inline(always)]
pub fn session_merger<K, A, F: FnOnce(&K, A, A) -> A>(key: &K, a: A, b: A, f: F) -> A {
    f(key, a, b)
}
