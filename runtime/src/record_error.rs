//! Why one record failed inside a task, and what the task does about it.
//!
//! Four names, four things, from the operator outwards:
//!
//! | name | what | who sees it |
//! |---|---|---|
//! | [`RecordError`] ([`RecordFailure`] inside) | an operator could not handle the record: a user closure panicked or returned an error, a serde or store failed, or the sink refused the output | the generated task code, on the per-record path (one word on success) |
//! | [`ProcessError`] | what a user `process(..)` closure returns to fail a record | the user |
//! | [`ProcessingError`] | the failed record as `on_error` sees it: kind, node, topic, partition, offset, message (Kafka Streams' `ErrorHandlerContext` and exception) | the user's `on_error` |
//! | [`TaskError`] | what ends the record's processing for the task: `on_error` chose `Fail`, or the sink failed | the processing thread |
//!
//! [`handle_error`] turns a [`RecordError`] into the task's answer: a sink failure always fails
//! the task; any other failure goes to `on_error`, which fails, skips (counted as a dropped
//! record), or sends the record to a dead-letter topic with Kafka Streams' KIP-1034 headers.
//!
//! The generated code reaches this module through `__private`; the runtime's operators (tables,
//! windows, joins) use it directly.

use std::fmt::Display;

use crate::store::StoreError;
use crate::task::{
    ErrorKind, ErrorResponse, Headers, InputRecord, OutgoingRecord, Partitioning, ProcessError,
    ProcessingError, RecordSink, SinkError, TaskError, TopicKind,
};

/// Why one record stopped inside a task: a [`RecordFailure`] behind one pointer.
///
/// Every operator of the per-record path returns `Result<_, RecordError>`, and the result of a
/// whole record crosses `catch_unwind`, which moves it through memory. Boxed, the error path
/// pays one allocation (it already formats a message) and the `Ok` of `Result<(), RecordError>`
/// is one word (a null pointer) in a register instead of a 48-byte value copied between stack
/// slots on every record.
#[derive(Debug)]
pub struct RecordError(Box<RecordFailure>);

// The point of the box: a record's `Ok(())` is one word.
const _: () =
    assert!(std::mem::size_of::<Result<(), RecordError>>() == std::mem::size_of::<usize>());

/// What [`RecordError`] holds.
#[derive(Debug)]
pub enum RecordFailure {
    /// The sink failed: the task fails, whatever `on_error` says.
    Sink(SinkError),
    /// A suppression's buffer is over its limits and may not emit early
    /// (`shut_down_when_full()`): the task fails, whatever `on_error` says, as Kafka Streams'
    /// `StreamsException` does.
    BufferFull {
        /// The suppression's node.
        node: &'static str,
        /// What is full and what to change.
        message: String,
    },
    /// The record failed: `on_error` decides.
    Record {
        /// What kind of failure (Kafka Streams' exception classes, as `on_error` sees them).
        kind: ErrorKind,
        /// The node (processor name) it failed in.
        node: &'static str,
        /// What went wrong, for the log and the dead-letter headers.
        message: String,
    },
}

impl RecordError {
    /// The record failed (`on_error` decides).
    #[cold]
    #[inline(never)]
    pub fn new(kind: ErrorKind, node: &'static str, message: String) -> Self {
        RecordError(Box::new(RecordFailure::Record {
            kind,
            node,
            message,
        }))
    }

    /// What went wrong.
    pub fn into_failure(self) -> RecordFailure {
        *self.0
    }
}

impl From<SinkError> for RecordError {
    #[cold]
    #[inline(never)]
    fn from(e: SinkError) -> Self {
        RecordError(Box::new(RecordFailure::Sink(e)))
    }
}

/// A user closure of node `node` panicked with `payload`.
#[cold]
#[inline(never)]
pub fn panicked(node: &'static str, payload: Box<dyn std::any::Any + Send>) -> RecordError {
    RecordError::new(ErrorKind::Processing, node, panic_message(payload))
}

/// A failed record of `kind` in node `node`.
#[cold]
pub(crate) fn record(kind: ErrorKind, node: &'static str, message: impl Display) -> RecordError {
    RecordError::new(kind, node, message.to_string())
}

/// A store failed in node `node`: a sink failure under it fails the task, anything else is the
/// record's (`on_error` decides).
#[cold]
pub fn store_error(node: &'static str, e: StoreError) -> RecordError {
    match e {
        StoreError::Sink(s) => RecordError::from(s),
        other => record(ErrorKind::Serialization, node, other),
    }
}

/// The buffer of suppression `node` holds `records` of at most `max_records` entries and
/// `bytes` of at most `max_bytes` bytes after a put, and its config (`config`) says
/// `shut_down_when_full()`.
#[cold]
#[inline(never)]
pub(crate) fn buffer_full(
    node: &'static str,
    records: u64,
    max_records: u64,
    bytes: u64,
    max_bytes: u64,
    config: &'static str,
) -> RecordError {
    RecordError(Box::new(RecordFailure::BufferFull {
        node,
        message: format!(
            "{node} buffer exceeded its max capacity. Currently [{records}/{max_records}] records and [{bytes}/{max_bytes}] bytes. Its buffer config `{config}` says shut_down_when_full(): raise its max_records(..)/max_bytes(..), or let it emit early (emit_early_when_full(), suppress_until_time_limit only)"
        ),
    }))
}

/// A user `process(..)` closure of node `node` failed the record.
#[cold]
pub fn process_error(node: &'static str, e: ProcessError) -> RecordError {
    match e {
        ProcessError::Sink(s) => RecordError::from(s),
        ProcessError::Record(m) => RecordError::new(ErrorKind::Processing, node, m),
    }
}

/// A window-store key in the record cache without its 8-byte window start (cannot happen: the
/// task wrote it).
#[cold]
pub fn cache_key_error(node: &'static str) -> RecordError {
    record(
        ErrorKind::KeyDeserialization,
        node,
        "a cached window-store key is shorter than its 8-byte window start",
    )
}

/// A record with a negative timestamp reached a windowed operator.
#[cold]
pub fn timestamp_error(node: &'static str, timestamp: i64) -> RecordError {
    record(
        ErrorKind::InvalidTimestamp,
        node,
        format!(
            "the record's timestamp {timestamp} is negative, so it belongs to no window: produce it with a valid timestamp (milliseconds since the epoch)"
        ),
    )
}

/// The message of a caught panic's payload (`panicked: <message>`).
#[cold]
pub fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_owned()
    }
}

/// Turns a record error into the task's answer, consulting `on_error`.
#[inline(never)]
pub fn handle_error<S: RecordSink>(
    error: RecordError,
    topic: &'static str,
    record: &InputRecord<'_>,
    on_error: fn(&ProcessingError) -> ErrorResponse,
    skipped: &mut u64,
    sink: &mut S,
) -> Result<(), TaskError> {
    match error.into_failure() {
        RecordFailure::Sink(e) => Err(TaskError::Sink(e)),
        RecordFailure::BufferFull { node, message } => Err(TaskError::BufferFull { node, message }),
        RecordFailure::Record {
            kind,
            node,
            message,
        } => {
            let error = ProcessingError {
                kind,
                node,
                topic,
                partition: record.partition,
                offset: record.offset,
                message,
            };
            match on_error(&error) {
                ErrorResponse::Fail => Err(TaskError::Failed(error)),
                ErrorResponse::Continue => {
                    *skipped += 1;
                    Ok(())
                }
                ErrorResponse::DeadLetter(dead_letter_topic) => {
                    *skipped += 1;
                    let headers = dead_letter_headers(record.headers, &error);
                    sink.send(OutgoingRecord {
                        topic: dead_letter_topic,
                        kind: TopicKind::DeadLetter,
                        partitioning: Partitioning::ByKey,
                        key: record.key,
                        value: record.value,
                        timestamp: record.timestamp,
                        headers: &headers,
                    })?;
                    Ok(())
                }
            }
        }
    }
}

/// The headers of a dead letter: the record's own, then Kafka Streams' dead-letter headers
/// (KIP-1034) naming the error and where the record came from.
#[cold]
fn dead_letter_headers(original: &Headers, error: &ProcessingError) -> Headers {
    let mut headers = original.clone();
    headers
        .add("__streams.errors.exception", Some(error.kind.to_string()))
        .add("__streams.errors.message", Some(error.to_string()))
        .add("__streams.errors.topic", Some(error.topic))
        .add(
            "__streams.errors.partition",
            Some(error.partition.to_string()),
        )
        .add("__streams.errors.offset", Some(error.offset.to_string()));
    headers
}

/// The `on_error` of a topology that gives none: fail, as Kafka Streams' default processing
/// exception handler does.
pub fn default_on_error(_: &ProcessingError) -> ErrorResponse {
    ErrorResponse::Fail
}
