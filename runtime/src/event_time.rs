//! Event time: the timestamp a source gives each record it reads.
//!
//! By default a record's timestamp is the one Kafka stored with it. A source may extract its own
//! with `stream("topic", K, V, timestamp(..))` (Kafka Streams'
//! `Consumed.withTimestampExtractor`), one of:
//!
//! | `timestamp(..)` | Kafka Streams | a record's timestamp |
//! |---|---|---|
//! | `\|key: &K, value: &V, record_ts: i64, partition_time: i64\| -> i64` | a `TimestampExtractor` | what the closure returns |
//! | `WallClock` | `WallclockTimestampExtractor` | the system clock when the task reads it |
//! | `FailOnInvalid` | `FailOnInvalidTimestamp` (its default) | Kafka's; a negative one fails the record: `on_error`, kind [`ErrorKind::InvalidTimestamp`] |
//! | `LogAndSkipOnInvalid` | `LogAndSkipOnInvalidTimestamp` | Kafka's; a record with a negative one is skipped (below) |
//! | `UsePartitionTimeOnInvalid` | `UsePartitionTimeOnInvalidTimestamp` | Kafka's; a negative one is replaced by the partition time, and fails the record (`on_error`) while that is unknown |
//!
//! `partition_time` is the largest timestamp the task extracted so far, `-1` before the first
//! (Kafka Streams' partition time, which is the same for a task reading one topic).
//!
//! Whatever the extractor, a record whose extracted timestamp is negative is skipped with a
//! warning and counted in [`Task::invalid_timestamps_dropped`](crate::task::Task::invalid_timestamps_dropped)
//! (part of [`Task::records_dropped`](crate::task::Task::records_dropped), Kafka Streams'
//! `dropped-records`), as Kafka Streams' `RecordQueue` does; it does not move stream time.
//! Otherwise the extracted timestamp is the record's from then on: it moves stream time,
//! places the record in windows, and is the timestamp of what the record produces.
//!
//! As in Kafka Streams the extractor runs after the key and value are deserialized: a record
//! that does not deserialize goes to `on_error` first. A closure extractor needs them: a
//! record whose key or value is null and whose serde has no value for null (not
//! `Nullable::<S>`) keeps Kafka's timestamp (read the topic with `Nullable::<S>` to see such
//! records in the closure). A closure that panics fails the record (`on_error`, kind
//! `Processing`); Kafka Streams fails the application.
//!
//! ```
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::testing::TestDriver;
//!
//! topology! {
//!     pub Readings = "readings" {
//!         // The value is "<epoch millis>,<reading>": the reading's own time is its timestamp.
//!         stream(
//!             "readings",
//!             Utf8,
//!             Utf8,
//!             timestamp(|_sensor: &String, value: &String, _record_ts, _partition_time| {
//!                 value.split(',').next().and_then(|t| t.parse().ok()).unwrap_or(-1)
//!             }),
//!         )
//!         .to("timed-readings", Utf8, Utf8);
//!     }
//! }
//!
//! let driver = TestDriver::<Readings>::new();
//! let input = driver.input_topic(Readings::READINGS);
//! input.pipe_input_at("s1".to_owned(), "5000,21.5".to_owned(), 99);
//! input.pipe_input_at("s1".to_owned(), "garbage".to_owned(), 100); // -1: skipped
//! let out = driver.output_topic(Readings::TIMED_READINGS).read_records_to_list();
//! assert_eq!(out.iter().map(|r| r.timestamp).collect::<Vec<_>>(), [5000]);
//! assert_eq!(driver.records_dropped(), 1);
//! ```

// The functions below are for the code `topology!` generates (through `__private`).

use crate::record_error::{RecordError, record};
use crate::task::ErrorKind;

/// Calls a closure extractor; its bound fixes the closure's parameter types.
#[doc(hidden)]
#[inline(always)]
pub fn extract<K, V, F: FnOnce(&K, &V, i64, i64) -> i64>(
    key: &K,
    value: &V,
    record_ts: i64,
    partition_time: i64,
    f: F,
) -> i64 {
    f(key, value, record_ts, partition_time)
}

/// Kafka Streams' partition time from a task's stream time: `-1` while unknown.
#[doc(hidden)]
#[inline(always)]
pub fn partition_time(stream_time: i64) -> i64 {
    stream_time.max(-1)
}

/// `WallClock`: the system clock in milliseconds since the epoch.
#[doc(hidden)]
#[inline]
pub fn wall_clock() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// `FailOnInvalid`: the record's timestamp, or an [`ErrorKind::InvalidTimestamp`] failure of
/// node `node` when it is negative.
#[doc(hidden)]
#[inline(always)]
pub fn fail_on_invalid(record_ts: i64, node: &'static str) -> Result<i64, RecordError> {
    if record_ts < 0 {
        return Err(invalid(node, record_ts));
    }
    Ok(record_ts)
}

/// `UsePartitionTimeOnInvalid`: the record's timestamp, or the partition time when it is
/// negative; a failure while the partition time is unknown too.
#[doc(hidden)]
#[inline(always)]
pub fn use_partition_time_on_invalid(
    record_ts: i64,
    partition_time: i64,
    node: &'static str,
) -> Result<i64, RecordError> {
    if record_ts >= 0 {
        Ok(record_ts)
    } else if partition_time >= 0 {
        Ok(partition_time)
    } else {
        Err(record(
            ErrorKind::InvalidTimestamp,
            node,
            format!(
                "the record's timestamp {record_ts} is negative and the partition time is not known yet (no earlier record), so UsePartitionTimeOnInvalid cannot replace it: produce it with a valid timestamp, or use LogAndSkipOnInvalid to skip such records"
            ),
        ))
    }
}

#[cold]
fn invalid(node: &'static str, record_ts: i64) -> RecordError {
    record(
        ErrorKind::InvalidTimestamp,
        node,
        format!(
            "the record's timestamp {record_ts} is negative (FailOnInvalid): produce it with a valid timestamp, or read the topic with timestamp(LogAndSkipOnInvalid) or timestamp(UsePartitionTimeOnInvalid)"
        ),
    )
}

/// Logs a record skipped for its negative extracted timestamp (Kafka Streams' `RecordQueue`
/// warning).
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn skipped(topic: &'static str, partition: i32, offset: i64, timestamp: i64) {
    tracing::warn!(
        topic,
        partition,
        offset,
        timestamp,
        "skipping record due to negative extracted timestamp"
    );
}
