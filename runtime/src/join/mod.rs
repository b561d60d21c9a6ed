//! Windowed stream-stream joins (`join`, `left_join`, `outer_join` of two streams), with Kafka
//! Streams 4.4's semantics (`KStreamImplJoin`, `KStreamKStreamJoin`):
//!
//! - each side keeps its records in a window store ([`window`]) for `before + after + grace`;
//! - a left record at `t` joins the right records with timestamps in `[t - before, t + after]`,
//!   a right record at `t` the left ones in `[t - after, t + before]` (inclusive, lower bound at
//!   least 0); a result carries the larger of the two timestamps;
//! - left and outer joins keep records without a partner in a shared store ([`outer`]) and emit
//!   `joiner(value, None)` only once their window has closed (stream time past `t + after +
//!   grace` for a left record, `t + before + grace` for a right one), never early; a record
//!   whose window closed already when it arrives is emitted at once.
//!
//! Two details differ from Kafka Streams, both only in when (not whether) an unmatched record
//! comes out: Kafka Streams looks for closed windows at most once per second of wall-clock time
//! (`__emit.interval.ms.kstreams.outer.join.spurious.results.fix__`, 1000 ms by default; its own
//! tests set it to 0), this runtime whenever a record at the stream time arrives, as Kafka
//! Streams with the interval 0; and Kafka Streams skips that look while its oldest waiting
//! record plus the *processing side's* window and grace has not passed, where this runtime
//! uses the smaller of the two sides' windows (the same for symmetric windows; with asymmetric
//! ones Kafka Streams can hold a closed record until a record of the other side arrives).
//!
//! The generated task holds one [`JoinState`] per join: the bookkeeping of both window stores,
//! the shared stream time, and the buffers every record reuses (no allocation of ours per record
//! once warm; the stores allocate for the records they keep).

pub mod grace;
pub mod outer;
pub mod window;

pub use grace::GraceBuffer;
pub use outer::{Changelog, ExpiredRecord, OuterBuffers, TimeTracker};
pub use window::{WindowBuffers, WindowState};

/// The state of one stream-stream join in a task.
#[derive(Debug)]
pub struct JoinState {
    /// The left side's window store bookkeeping.
    pub left: WindowState,
    /// The right side's window store bookkeeping.
    pub right: WindowState,
    /// The shared stream time of both sides.
    pub tracker: TimeTracker,
    /// Buffers, taken by the side that processes a record and put back after it.
    pub buffers: JoinBuffers,
}

/// The buffers a join reuses for every record.
#[derive(Debug, Default)]
pub struct JoinBuffers {
    /// The record's serialized key.
    pub key: Vec<u8>,
    /// The record's serialized value.
    pub value: Vec<u8>,
    /// The values of the partner records found, back to back.
    pub found_values: Vec<u8>,
    /// The partners found: timestamp and value range.
    pub found: Vec<(i64, usize, usize)>,
    /// Window store buffers.
    pub window: WindowBuffers,
    /// Outer store buffers.
    pub outer: OuterBuffers,
}

impl JoinState {
    /// The state of a join whose window stores keep `retention_ms` (before + after + grace).
    pub fn new(retention_ms: i64) -> Self {
        JoinState {
            left: WindowState::new(retention_ms),
            right: WindowState::new(retention_ms),
            tracker: TimeTracker::default(),
            buffers: JoinBuffers::default(),
        }
    }

    /// Forgets the stores' bookkeeping and the stream time (the task restores its stores).
    pub fn reset(&mut self) {
        self.left.reset();
        self.right.reset();
        self.tracker = TimeTracker::default();
    }
}

// ---- support for generated code -----------------------------------------------------------

use crate::record_error::RecordError;
use crate::serdes::Serde;
use crate::task::{ErrorKind, TaskError};

/// The joiner of an inner join takes both values (spanned at the user's closure: a closure
/// whose parameters disagree with the streams' value serdes is reported there, naming this).
#[doc(hidden)]
#[inline(always)]
pub fn join_closure_takes_the_left_and_right_values<L: Serde, R: Serde, O, F>(f: F) -> F
where
    F: FnMut(&L::Value, &R::Value) -> O,
{
    f
}

/// The joiner of a left join takes the left value and the right one if there is one.
#[doc(hidden)]
#[inline(always)]
pub fn left_join_closure_takes_the_left_value_and_an_optional_right_value<
    L: Serde,
    R: Serde,
    O,
    F,
>(
    f: F,
) -> F
where
    F: FnMut(&L::Value, Option<&R::Value>) -> O,
{
    f
}

/// The joiner of an outer join takes two options (at least one is `Some`).
#[doc(hidden)]
#[inline(always)]
pub fn outer_join_closure_takes_an_optional_left_and_an_optional_right_value<
    L: Serde,
    R: Serde,
    O,
    F,
>(
    f: F,
) -> F
where
    F: FnMut(Option<&L::Value>, Option<&R::Value>) -> O,
{
    f
}

/// The joiner of an inner join that also takes the key (`ValueJoinerWithKey`).
#[doc(hidden)]
#[inline(always)]
pub fn join_closure_takes_the_key_and_the_left_and_right_values<
    K: Serde,
    L: Serde,
    R: Serde,
    O,
    F,
>(
    f: F,
) -> F
where
    F: FnMut(&K::Value, &L::Value, &R::Value) -> O,
{
    f
}

/// The joiner of a left join that also takes the key.
#[doc(hidden)]
#[inline(always)]
pub fn left_join_closure_takes_the_key_the_left_value_and_an_optional_right_value<
    K: Serde,
    L: Serde,
    R: Serde,
    O,
    F,
>(
    f: F,
) -> F
where
    F: FnMut(&K::Value, &L::Value, Option<&R::Value>) -> O,
{
    f
}

/// The joiner of an outer join that also takes the key.
#[doc(hidden)]
#[inline(always)]
pub fn outer_join_closure_takes_the_key_and_an_optional_left_and_an_optional_right_value<
    K: Serde,
    L: Serde,
    R: Serde,
    O,
    F,
>(
    f: F,
) -> F
where
    F: FnMut(&K::Value, Option<&L::Value>, Option<&R::Value>) -> O,
{
    f
}

/// A compile-time assertion: both joined streams' key serdes serialize one type (a mismatch is
/// reported at the join, naming this bound). No code runs.
#[doc(hidden)]
pub const fn joined_streams_need_one_key_type<A: Serde, B: Serde<Value = A::Value>>() {}

#[doc(hidden)]
#[cold]
pub fn invalid_timestamp(node: &'static str, timestamp: i64) -> RecordError {
    RecordError::new(
        ErrorKind::InvalidTimestamp,
        node,
        format!(
            "the record's timestamp {timestamp} is negative, so it falls in no join window: give \
             the producer's records valid timestamps (milliseconds since the epoch)"
        ),
    )
}

/// Applies one changelog record of a join window store.
#[doc(hidden)]
pub fn restore_window<B: crate::store::StoreBackend>(
    store: &mut B,
    state: &mut WindowState,
    buffers: &mut JoinBuffers,
    key: &[u8],
    value: Option<&[u8]>,
) -> Result<(), TaskError> {
    window::restore(store, state, &mut buffers.window, key, value)?;
    Ok(())
}
