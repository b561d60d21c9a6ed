//! Punctuation: callbacks a `process(..)` node schedules on stream time or on wall-clock time.
//!
//! A schedule is declared in the topology, next to the closure it belongs to:
//!
//! ```
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::testing::TestDriver;
//!
//! topology! {
//!     /// Sums values per key and emits every sum once per second of stream time.
//!     pub Sums = "sums" {
//!         store("sums", Utf8, I64);
//!         stream("in", Utf8, I64)
//!             .process(["sums"], |ctx, key, value| {
//!                 let sum = ctx.sums().get(&key)?.unwrap_or(0) + value;
//!                 ctx.sums().put(&key, &sum)?;
//!                 Ok(None::<(String, i64)>)
//!             }, schedule(Duration::from_secs(1), StreamTime, |ctx, _timestamp| {
//!                 Ok(ctx.sums().all()?)
//!             }))
//!             .to("out", Utf8, I64);
//!     }
//! }
//!
//! let driver = TestDriver::<Sums>::new();
//! let (input, output) = (driver.input_topic(Sums::IN), driver.output_topic(Sums::OUT));
//! input.pipe_input_at("a".to_owned(), 1, 0);      // stream time 0: the first punctuation
//! input.pipe_input_at("a".to_owned(), 2, 500);    // not due before 1000
//! assert_eq!(output.read_key_values_to_list(), [("a".to_owned(), 1)]);
//! input.pipe_input_at("b".to_owned(), 5, 3_200);  // 1000, 2000 and 3000 passed: fires once
//! assert_eq!(output.read_key_values_to_list(), [("a".to_owned(), 3), ("b".to_owned(), 5)]);
//! ```
//!
//! # Semantics (as Kafka Streams 4.4's `PunctuationSchedule` and `PunctuationQueue`)
//!
//! - **`StreamTime`** schedules are aligned to 0: the first punctuation fires as soon as the
//!   task's stream time is known (the first record), then whenever stream time reaches the next
//!   multiple of the interval. The callback gets the current stream time. When stream time
//!   jumps over several intervals the callback runs **once**, and the next punctuation is the
//!   first multiple of the interval after the current stream time.
//! - **`WallClock`** schedules start when the task starts: the first punctuation is due one
//!   interval later, and then every interval, also when no record arrives. A late punctuation
//!   (a long pause) runs once and the schedule skips the intervals it missed. The callback gets
//!   the wall-clock time in milliseconds since the epoch.
//! - Punctuations run on the task's thread, between records, never during one. Several due
//!   punctuations run in the order of their due times (declaration order for ties).
//! - A callback reads and writes the stores its `process(..)` lists and returns records, which
//!   go on to the operators after the `process(..)`, with the punctuation's time as their
//!   timestamp and no headers (Kafka Streams' punctuation record context). Their output and
//!   store writes are part of the task's next commit, in its transaction under exactly-once.
//! - A callback that fails (returns `Err` or panics) goes to `on_error` like a record of the
//!   topology, with topic `""`, partition and offset `-1` (Kafka Streams passes a null topic and
//!   `-1`): `Fail` fails the task, `Continue` skips the punctuation, `DeadLetter` writes a record
//!   without key and value to the dead-letter topic.
//! - Schedules are not stored: a task that restarts (after a rebalance, a crash or an aborted
//!   transaction) starts them again, as Kafka Streams does when it initializes a processor.
//! - An interval of zero is a compile error (Kafka Streams rejects intervals under 1 ms).

/// When a punctuation fires: written `StreamTime` or `WallClock` in `schedule(..)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PunctuationType {
    /// Driven by the task's stream time (record timestamps).
    StreamTime,
    /// Driven by the wall clock, also without input.
    WallClock,
}

/// The time of the punctuation after one that was due at `scheduled` and ran at `now`, for
/// `interval` (at least 1): one interval later, or, if `now` is already past that, the first
/// time `scheduled + n * interval` after `now` (Kafka Streams' `PunctuationSchedule.next`).
/// Saturates at `i64::MAX` (the end of time: never again).
pub fn next_punctuation(scheduled: i64, now: i64, interval: i64) -> i64 {
    let interval = interval.max(1);
    let next = scheduled.saturating_add(interval);
    if now < next {
        return next;
    }
    let missed = now.saturating_sub(scheduled) / interval;
    missed
        .checked_add(1)
        .and_then(|n| n.checked_mul(interval))
        .and_then(|d| scheduled.checked_add(d))
        .unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::next_punctuation;

    #[test]
    fn next_is_one_interval_later_or_skips_missed_ones() {
        // Aligned to 0, fired at stream time 5: next at 10.
        assert_eq!(next_punctuation(0, 5, 10), 10);
        // Due at 10, fired at 25 (10 and 20 passed): next at 30, not 20.
        assert_eq!(next_punctuation(10, 25, 10), 30);
        // Fired exactly on an interval boundary: the next one.
        assert_eq!(next_punctuation(10, 20, 10), 30);
        assert_eq!(next_punctuation(10, 10, 10), 20);
        // The end of time.
        assert_eq!(next_punctuation(i64::MAX - 5, i64::MAX, 10), i64::MAX);
    }
}
