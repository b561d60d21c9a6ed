//! Support code for what `topology!` generates. Not a public API: names and signatures change
//! without notice.
//!
//! Every user closure is passed to one of the small `#[inline(always)]` generic functions
//! here, whose bound fixes the closure's input types (rustc infers closure parameter types from
//! the bound of the function a closure is passed to), and whose body rustc inlines.

#![allow(missing_docs, clippy::too_many_arguments)]

use std::io::Write as _;

use crate::record_error::record;

pub use crate::cache::{DirtyKeys, Update};

/// Timestamp extraction at the sources (`stream(.., timestamp(..))`).
pub mod event_time {
    pub use crate::event_time::*;
}
pub use crate::punctuation::next_punctuation;
pub use crate::record_error::{
    RecordError, RecordFailure, cache_key_error, default_on_error, handle_error, panic_message,
    panicked, process_error, store_error, timestamp_error,
};
pub use crate::serdes::{
    Encoded, Serde, SerdeContext, SerdeError, StartCheckError, Window, Windowed,
};
pub use crate::store::{
    BackendFactory, KeyValueStore, SessionStore, StoreBackend, StoreError, WindowRetention,
    WindowStore,
};
pub use crate::table::fk::{
    FkScratch, Resolved, fk_extract, fk_extract_with_key, fk_foreign_change, fk_hash, fk_join,
    fk_join_with_key, fk_left_join, fk_left_join_with_key, fk_receive, fk_resolve, fk_subscribe,
};
pub use crate::table::global::{
    GlobalStore, GlobalStores, GlobalTableInfo, global_get, global_key,
};
pub use crate::table::timestamped::{
    Prior, cache_mark, cache_prior, cached_source_put, get_timestamped, get_timestamped_bytes,
    restore_table, source_put,
};
pub use crate::table::versioned::{
    PutOutcome, VersionHistory, get_as_of, put_versioned, restore_versioned, versioned_put,
    versioned_table_put,
};
pub use crate::table::{
    Change, Changed, same_key, table_aggregate, table_delete, table_join, table_join_with_key,
    table_left_join, table_left_join_with_key, table_outer_join, table_outer_join_with_key,
    table_put, table_reduce, table_select,
};
pub use crate::task::{
    ErrorKind, ErrorResponse, Headers, InputRecord, OutgoingRecord, Partitioning, ProcessError,
    ProcessingError, RecordSink, SessionStoreRef, SinkError, StoreRef, Task, TaskError, TopicKind,
    TopicRef, Topology, WindowStoreRef,
};
pub use crate::topology::{
    CopartitionGroup, DerivedConfig, InternalTopicInfo, OffsetReset, SourceOffsetReset, StoreInfo,
    StoreKind, SubtopologyInfo, TopologyInfo, WindowedSink,
};
pub use crate::window::{
    Base, BufferLimits, ChangeParts, SessionSpan, SlidingStep, SuppressState, TimeIndex,
    WindowScratch, buffer_evict_next, buffer_put, limit_evict_next, limit_put, push_change_part,
    session_find, session_key, session_merge, session_merger, sliding_load, sliding_plan,
    sliding_store, split_change, split_session_key,
};

pub use crate::join::GraceBuffer;

/// The windowed stream-stream joins' stores and per-record support.
pub mod stream_join {
    pub use crate::join::*;
}

/// The topic a sink's chooser names for a record (`to(["a", "b"], |key, value| .., ..)`); the
/// closure's parameter types come from here.
#[inline(always)]
pub fn topic_named_by<K, V, R, F: FnOnce(&K, &V) -> R>(key: &K, value: &V, f: F) -> R {
    f(key, value)
}

/// Calls a topic chooser that also takes the record's context (its parameters' types inferred).
#[inline(always)]
pub fn topic_named_with_context<'a, K, V, R, F>(
    key: &K,
    value: &V,
    context: &crate::routing::RecordContext<'a>,
    f: F,
) -> R
where
    F: FnOnce(&K, &V, &crate::routing::RecordContext<'a>) -> R,
{
    f(key, value, context)
}

/// The declared topic (of `topics`) the chooser of sink `node` named; a name it does not declare
/// fails the record, with the declared ones in the message.
#[inline]
pub fn chosen_topic(
    topics: &[&'static str],
    named: &impl AsRef<str>,
    node: &'static str,
) -> Result<&'static str, RecordError> {
    let named = named.as_ref();
    topics.iter().copied().find(|t| *t == named).ok_or_else(|| {
        RecordError::new(
            ErrorKind::Processing,
            node,
            format!(
                "the topic chooser named `{named}`, which is not one of the topics {topics:?} its `to([..], ..)` declares (and the application checked at start): add it to the list, or return one of them"
            ),
        )
    })
}

#[inline(always)]
pub fn on_error<F: FnOnce(&ProcessingError) -> ErrorResponse>(
    e: &ProcessingError,
    f: F,
) -> ErrorResponse {
    f(e)
}

// ---- serdes -------------------------------------------------------------------------------

/// Whether a record's key or value `bytes` is null and serde `S` has no value for null (it is
/// not `Nullable<S>` or `Unit`): such a record takes the generated null path
/// (`macros/src/codegen/nulls.rs`), where Kafka Streams' operators forward, drop or fail it.
#[inline(always)]
pub fn is_absent<S: Serde>(bytes: Option<&[u8]>) -> bool {
    bytes.is_none() && matches!(S::deserialize(None), Err(SerdeError::Null))
}

/// Whether a typed value is null: `None` of an `Option` (the value type of a `Nullable<S>`
/// serde), never for other types. Autoref specialization, written by the macro as
/// `(&NullProbe(&value)).is_null()` with both traits in scope.
pub struct NullProbe<'a, T>(pub &'a T);

/// [`NullProbe`] of an `Option`: null is `None`.
pub trait NullProbeOption {
    fn is_null(&self) -> bool;
}

impl<T> NullProbeOption for NullProbe<'_, Option<T>> {
    #[inline(always)]
    fn is_null(&self) -> bool {
        self.0.is_none()
    }
}

/// [`NullProbe`] of any other type: never null.
pub trait NullProbeAny {
    fn is_null(&self) -> bool;
}

impl<T> NullProbeAny for &NullProbe<'_, T> {
    #[inline(always)]
    fn is_null(&self) -> bool {
        false
    }
}

#[inline(always)]
pub fn de_key<S: Serde>(bytes: Option<&[u8]>, node: &'static str) -> Result<S::Value, RecordError> {
    S::deserialize(bytes).map_err(|e| record(ErrorKind::KeyDeserialization, node, e))
}

#[inline(always)]
pub fn de_value<S: Serde>(
    bytes: Option<&[u8]>,
    node: &'static str,
) -> Result<S::Value, RecordError> {
    S::deserialize(bytes).map_err(|e| record(ErrorKind::ValueDeserialization, node, e))
}

/// Checks a key kept as the record's bytes (see [`Serde::BYTES_ROUND_TRIP`]): the same errors
/// as [`de_key`], no value.
#[inline(always)]
pub fn check_key<S: Serde>(bytes: Option<&[u8]>, node: &'static str) -> Result<(), RecordError> {
    S::check(bytes).map_err(|e| record(ErrorKind::KeyDeserialization, node, e))
}

/// Whether a key read with serde `From` and stored or sent with serde `To` can keep its record
/// bytes: the same serde, and one whose bytes round-trip. Constant once monomorphized.
#[inline(always)]
pub fn keeps_key_bytes<From: Serde, To: Serde>() -> bool {
    From::BYTES_ROUND_TRIP && core::any::TypeId::of::<From>() == core::any::TypeId::of::<To>()
}

/// Copies a key's record bytes into `buf` (cleared first), as [`ser`] would have written the
/// decoded key when [`keeps_key_bytes`] holds: a null key is [`Encoded::Null`].
#[inline(always)]
pub fn key_bytes(bytes: Option<&[u8]>, buf: &mut Vec<u8>) -> Encoded {
    buf.clear();
    match bytes {
        Some(bytes) => {
            buf.extend_from_slice(bytes);
            Encoded::Present
        }
        None => Encoded::Null,
    }
}

/// A key's record bytes as the store key, where [`keeps_key_bytes`] holds: what [`key_bytes`]
/// would copy, without the copy. A null key is [`Encoded::Null`] (and no bytes).
#[inline(always)]
pub fn key_slice(bytes: Option<&[u8]>) -> (Encoded, &[u8]) {
    match bytes {
        Some(bytes) => (Encoded::Present, bytes),
        None => (Encoded::Null, &[]),
    }
}

/// Checks a value nobody reads (see [`Serde::check`]): the same errors as [`de_value`], no value.
#[inline(always)]
pub fn check_value<S: Serde>(bytes: Option<&[u8]>, node: &'static str) -> Result<(), RecordError> {
    S::check(bytes).map_err(|e| record(ErrorKind::ValueDeserialization, node, e))
}

/// Serializes into `buf` (cleared first). Spanned at the user's serde: a value of another type
/// is a type error there.
#[inline(always)]
pub fn ser<S: Serde>(
    value: &S::Value,
    buf: &mut Vec<u8>,
    node: &'static str,
) -> Result<Encoded, RecordError> {
    buf.clear();
    S::serialize(value, buf).map_err(|e| record(ErrorKind::Serialization, node, e))
}

/// [`de_key`] of a record read from `topic` (a source or repartition topic): the serde gets
/// the topic and the role ([`Serde::deserialize_in`]).
#[inline(always)]
pub fn de_key_at<S: Serde>(
    topic: &'static str,
    bytes: Option<&[u8]>,
    node: &'static str,
) -> Result<S::Value, RecordError> {
    S::deserialize_in(SerdeContext::key(topic), bytes)
        .map_err(|e| record(ErrorKind::KeyDeserialization, node, e))
}

/// [`de_value`] of a record read from `topic`.
#[inline(always)]
pub fn de_value_at<S: Serde>(
    topic: &'static str,
    bytes: Option<&[u8]>,
    node: &'static str,
) -> Result<S::Value, RecordError> {
    S::deserialize_in(SerdeContext::value(topic), bytes)
        .map_err(|e| record(ErrorKind::ValueDeserialization, node, e))
}

/// [`check_key`] of a record read from `topic`.
#[inline(always)]
pub fn check_key_at<S: Serde>(
    topic: &'static str,
    bytes: Option<&[u8]>,
    node: &'static str,
) -> Result<(), RecordError> {
    S::check_in(SerdeContext::key(topic), bytes)
        .map_err(|e| record(ErrorKind::KeyDeserialization, node, e))
}

/// [`check_value`] of a record read from `topic`.
#[inline(always)]
pub fn check_value_at<S: Serde>(
    topic: &'static str,
    bytes: Option<&[u8]>,
    node: &'static str,
) -> Result<(), RecordError> {
    S::check_in(SerdeContext::value(topic), bytes)
        .map_err(|e| record(ErrorKind::ValueDeserialization, node, e))
}

/// [`ser`] of a key written to `topic` (a sink or repartition topic).
#[inline(always)]
pub fn ser_key_at<S: Serde>(
    topic: &'static str,
    value: &S::Value,
    buf: &mut Vec<u8>,
    node: &'static str,
) -> Result<Encoded, RecordError> {
    buf.clear();
    S::serialize_in(SerdeContext::key(topic), value, buf)
        .map_err(|e| record(ErrorKind::Serialization, node, e))
}

/// [`ser`] of a value written to `topic`.
#[inline(always)]
pub fn ser_value_at<S: Serde>(
    topic: &'static str,
    value: &S::Value,
    buf: &mut Vec<u8>,
    node: &'static str,
) -> Result<Encoded, RecordError> {
    buf.clear();
    S::serialize_in(SerdeContext::value(topic), value, buf)
        .map_err(|e| record(ErrorKind::Serialization, node, e))
}

/// Demands that a stream's key or value has the serde's type (spanned at the user's serde).
#[inline(always)]
pub fn same_type<S: Serde>(value: S::Value) -> S::Value {
    value
}

#[inline(always)]
pub fn bytes(encoded: Encoded, buf: &[u8]) -> Option<&[u8]> {
    match encoded {
        Encoded::Present => Some(buf),
        Encoded::Null => None,
    }
}

#[inline(always)]
pub fn send<S: RecordSink>(
    sink: &mut S,
    topic: &'static str,
    kind: TopicKind,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    timestamp: i64,
    headers: &Headers,
) -> Result<(), RecordError> {
    sink.send(OutgoingRecord {
        topic,
        kind,
        partitioning: Partitioning::ByKey,
        key,
        value,
        timestamp,
        headers,
    })?;
    Ok(())
}

/// The partition count of `topic` for a sink's partitioner (a failure is the sink's, as a
/// failed send).
#[inline]
pub fn partition_count<S: RecordSink>(
    sink: &mut S,
    topic: &'static str,
) -> Result<u32, RecordError> {
    Ok(sink.partition_count(topic)?)
}

/// Calls a `partitioner(..)` closure (its parameters' types inferred from the stream's).
#[inline(always)]
pub fn partitions_chosen_by<K, V, P, F: FnOnce(&K, &V, u32) -> P>(
    key: &K,
    value: &V,
    partitions: u32,
    f: F,
) -> P {
    f(key, value, partitions)
}

/// Calls a `partitioner(..)` closure that also takes the topic (Kafka Streams'
/// `StreamPartitioner#partitions(topic, key, value, numPartitions)`).
#[inline(always)]
pub fn partitions_chosen_for<K, V, P, F: FnOnce(&str, &K, &V, u32) -> P>(
    topic: &'static str,
    key: &K,
    value: &V,
    partitions: u32,
    f: F,
) -> P {
    f(topic, key, value, partitions)
}

/// A partitioner's choice, checked against the topic's `partitions`: a partition past them
/// fails the record.
#[inline]
pub fn checked_partitions(
    choice: impl crate::routing::PartitionChoice,
    partitions: u32,
    topic: &'static str,
    node: &'static str,
) -> Result<crate::routing::ChosenPartitions, RecordError> {
    let chosen = choice.into_chosen();
    match chosen.out_of_range(partitions) {
        None => Ok(chosen),
        Some(p) => Err(RecordError::new(
            ErrorKind::Processing,
            node,
            format!(
                "the partitioner chose partition {p} of {topic}, which has {partitions} (0 to {}): return a partition below the count it is given",
                partitions.saturating_sub(1)
            ),
        )),
    }
}

/// Sends a record to each partition a partitioner chose (none: dropped).
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn send_to_partitions<S: RecordSink>(
    sink: &mut S,
    topic: &'static str,
    kind: TopicKind,
    chosen: &crate::routing::ChosenPartitions,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    timestamp: i64,
    headers: &Headers,
) -> Result<(), RecordError> {
    use crate::routing::ChosenPartitions;
    let mut one = |partitioning| {
        sink.send(OutgoingRecord {
            topic,
            kind,
            partitioning,
            key,
            value,
            timestamp,
            headers,
        })
    };
    match chosen {
        ChosenPartitions::Default => one(Partitioning::ByKey)?,
        ChosenPartitions::One(p) => one(Partitioning::Exact(*p as i32))?,
        ChosenPartitions::Many(ps) => {
            for p in ps {
                one(Partitioning::Exact(*p as i32))?;
            }
        }
    }
    Ok(())
}

// ---- stores -------------------------------------------------------------------------------

#[inline(always)]
pub fn store_get<VS: Serde, B: StoreBackend>(
    store: &B,
    key: &[u8],
    node: &'static str,
) -> Result<Option<VS::Value>, RecordError> {
    match store.get(key).map_err(|e| store_error(node, e))? {
        Some(bytes) => VS::deserialize(Some(bytes))
            .map(Some)
            .map_err(|e| record(ErrorKind::Serialization, node, e)),
        None => Ok(None),
    }
}

/// Writes `value` under `key` and its changelog record (to the task's partition); returns
/// whether it is stored (a value that encodes as null deletes the key). On return `value_buf`
/// holds the encoded value.
#[inline(always)]
pub fn store_put<VS: Serde, B: StoreBackend, S: RecordSink>(
    store: &mut B,
    key: &[u8],
    value: &VS::Value,
    value_buf: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
) -> Result<bool, RecordError> {
    value_buf.clear();
    let encoded =
        VS::serialize(value, value_buf).map_err(|e| record(ErrorKind::Serialization, node, e))?;
    let value = match encoded {
        Encoded::Present => {
            store
                .put(key, value_buf)
                .map_err(|e| store_error(node, e))?;
            Some(value_buf.as_slice())
        }
        Encoded::Null => {
            store.delete(key).map_err(|e| store_error(node, e))?;
            None
        }
    };
    sink.send(OutgoingRecord::changelog(
        changelog, partition, key, value, timestamp,
    ))?;
    Ok(encoded == Encoded::Present)
}

/// Updates the value under `key` with one store lookup (where the backend can): decodes the
/// current value, computes the new one with `f`, writes it and its changelog record (to the
/// task's partition), and returns it with whether it is stored (a value that encodes as null
/// deletes the key) and whether the key had a value before. On return `value_buf` holds the
/// encoded value.
#[inline(always)]
pub fn store_update<VS: Serde, B: StoreBackend, S: RecordSink, F>(
    store: &mut B,
    key: &[u8],
    value_buf: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
    f: F,
) -> Result<(VS::Value, bool, bool), RecordError>
where
    F: FnOnce(Option<VS::Value>) -> VS::Value,
{
    let mut new = None;
    let mut present = false;
    let mut existed = false;
    let outcome: Result<(), RecordError> = store
        .update(key, value_buf, |old, buf| {
            existed = old.is_some();
            let old = match old {
                Some(bytes) => Some(
                    VS::deserialize(Some(bytes))
                        .map_err(|e| record(ErrorKind::Serialization, node, e))?,
                ),
                None => None,
            };
            let value = f(old);
            buf.clear();
            let encoded = VS::serialize(&value, buf)
                .map_err(|e| record(ErrorKind::Serialization, node, e))?;
            new = Some(value);
            present = encoded == Encoded::Present;
            Ok(present)
        })
        .map_err(|e| store_error(node, e))?;
    outcome?;
    let Some(value) = new else {
        return Err(record(
            ErrorKind::Serialization,
            node,
            "the store update wrote nothing",
        ));
    };
    // A value that encodes as null deleted the key: the changelog gets a tombstone.
    sink.send(OutgoingRecord::changelog(
        changelog,
        partition,
        key,
        present.then_some(value_buf.as_slice()),
        timestamp,
    ))?;
    Ok((value, present, existed))
}

/// [`store_update`] of a stream aggregation's store, which is Kafka Streams' timestamped store
/// (`TimestampedKeyValueStore`, `TimestampedWindowStore`): each entry is the aggregate's
/// timestamp (8 bytes big-endian) and then its bytes, and the new aggregate is stamped with the
/// larger of the record's timestamp and the stored one, as `KStreamAggregate`, `KStreamReduce`
/// and `KStreamWindowAggregate` stamp it. The changelog gets the plain value, stamped with that
/// timestamp. Returns the new aggregate, whether it is present and existed, and its timestamp;
/// the value's bytes are `value_buf[8..]`.
#[inline(always)]
pub fn store_update_stamped<VS: Serde, B: StoreBackend, S: RecordSink, F>(
    store: &mut B,
    key: &[u8],
    value_buf: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
    f: F,
) -> Result<(VS::Value, bool, bool, i64), RecordError>
where
    F: FnOnce(Option<VS::Value>) -> VS::Value,
{
    use crate::table::timestamped::{TIMESTAMP_LEN, split_timestamped, stamp};
    let mut new = None;
    let mut present = false;
    let mut existed = false;
    let mut stamped = timestamp;
    let outcome: Result<(), RecordError> = store
        .update(key, value_buf, |old, buf| {
            existed = old.is_some();
            let old = match old {
                Some(entry) => {
                    let (ts, bytes) = split_timestamped(entry).map_err(|e| store_error(node, e))?;
                    stamped = stamped.max(ts);
                    Some(
                        VS::deserialize(Some(bytes))
                            .map_err(|e| record(ErrorKind::Serialization, node, e))?,
                    )
                }
                None => None,
            };
            let value = f(old);
            stamp(buf, stamped);
            let encoded = VS::serialize(&value, buf)
                .map_err(|e| record(ErrorKind::Serialization, node, e))?;
            new = Some(value);
            present = encoded == Encoded::Present;
            Ok(present)
        })
        .map_err(|e| store_error(node, e))?;
    outcome?;
    let Some(value) = new else {
        return Err(record(
            ErrorKind::Serialization,
            node,
            "the store update wrote nothing",
        ));
    };
    sink.send(OutgoingRecord::changelog(
        changelog,
        partition,
        key,
        present.then(|| value_buf.get(TIMESTAMP_LEN..).unwrap_or_default()),
        stamped,
    ))?;
    Ok((value, present, existed, stamped))
}

/// The value's bytes of a stream aggregation's stored entry (after its 8-byte timestamp) and the
/// timestamp: what a record-cache flush forwards.
#[inline(always)]
pub fn split_stamped(entry: &[u8]) -> Result<(i64, &[u8]), StoreError> {
    crate::table::timestamped::split_timestamped(entry)
}

/// Applies a changelog record to a store.
#[inline]
pub fn restore<B: StoreBackend>(
    store: &mut B,
    key: &[u8],
    value: Option<&[u8]>,
) -> Result<(), TaskError> {
    match value {
        Some(value) => store.put(key, value)?,
        None => {
            store.delete(key)?;
        }
    }
    Ok(())
}

// ---- windows ------------------------------------------------------------------------------

/// The starts of the windows (`size`, `advance`) that contain `timestamp`, as Kafka Streams'
/// `TimeWindows.windowsFor` computes them.
#[derive(Debug, Clone, Copy)]
pub struct WindowStarts {
    next: i64,
    last: i64,
    advance: i64,
}

impl Iterator for WindowStarts {
    type Item = i64;
    #[inline]
    fn next(&mut self) -> Option<i64> {
        if self.next > self.last {
            return None;
        }
        let start = self.next;
        self.next = self.next.saturating_add(self.advance);
        Some(start)
    }
}

impl WindowStarts {
    /// Whether `start` is the last window start.
    #[inline]
    pub fn is_last(&self, start: i64) -> bool {
        start.saturating_add(self.advance) > self.last
    }
}

#[inline]
pub fn window_starts(timestamp: i64, size: i64, advance: i64) -> WindowStarts {
    if timestamp < 0 || size <= 0 || advance <= 0 {
        return WindowStarts {
            next: 1,
            last: 0,
            advance: 1,
        };
    }
    let first = (timestamp - size + advance).max(0) / advance * advance;
    WindowStarts {
        next: first,
        last: timestamp,
        advance,
    }
}

// ---- closures -----------------------------------------------------------------------------

#[inline(always)]
pub fn filter<K, V, F: FnOnce(&K, &V) -> bool>(k: &K, v: &V, f: F) -> bool {
    f(k, v)
}
#[inline(always)]
pub fn peek<K, V, F: FnOnce(&K, &V)>(k: &K, v: &V, f: F) {
    f(k, v)
}
// ---- print ---------------------------------------------------------------------------------

/// A key or value that `print(..)` writes: an `Option` (a `Nullable<S>` serde's value) as its
/// content or `null`, any other type with `Display` where it has one, otherwise with `Debug`.
/// Autoref specialization: the macro writes `(&&&&Printable(x)).print_to(out)` with the four
/// traits below in scope, and the first that applies (the one needing the fewest derefs) wins.
pub struct Printable<'a, T: ?Sized>(pub &'a T);

/// The output a record is printed to.
type Out = std::io::StdoutLock<'static>;

/// An `Option` of a `Display` type.
pub trait PrintOptionDisplay {
    fn print_to(&self, out: &mut Out);
}

impl<T: std::fmt::Display> PrintOptionDisplay for &&&Printable<'_, Option<T>> {
    #[inline]
    fn print_to(&self, out: &mut Out) {
        match self.0 {
            Some(v) => drop(write!(out, "{v}")),
            None => print_null(out),
        }
    }
}

/// An `Option` of any other `Debug` type.
pub trait PrintOptionDebug {
    fn print_to(&self, out: &mut Out);
}

impl<T: std::fmt::Debug> PrintOptionDebug for &&Printable<'_, Option<T>> {
    #[inline]
    fn print_to(&self, out: &mut Out) {
        match self.0 {
            Some(v) => drop(write!(out, "{v:?}")),
            None => print_null(out),
        }
    }
}

/// A `Display` type: its text (a string unquoted, as Java's `toString`).
pub trait PrintDisplay {
    fn print_to(&self, out: &mut Out);
}

impl<T: std::fmt::Display + ?Sized> PrintDisplay for &Printable<'_, T> {
    #[inline]
    fn print_to(&self, out: &mut Out) {
        let _ = write!(out, "{}", self.0);
    }
}

/// Any other `Debug` type.
pub trait PrintDebug {
    fn print_to(&self, out: &mut Out);
}

impl<T: std::fmt::Debug + ?Sized> PrintDebug for Printable<'_, T> {
    #[inline]
    fn print_to(&self, out: &mut Out) {
        let _ = write!(out, "{:?}", self.0);
    }
}

/// Locks standard output for one record and writes `[label]: `. A failed write (a closed
/// pipe) is ignored: printing is for watching, and must not fail the record.
#[inline]
pub fn print_start(label: &str) -> std::io::StdoutLock<'static> {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "[{label}]: ");
    out
}

/// `null`, for a missing key or value.
#[inline]
pub fn print_null(out: &mut std::io::StdoutLock<'static>) {
    let _ = out.write_all(b"null");
}

/// `, ` between key and value.
#[inline]
pub fn print_separator(out: &mut std::io::StdoutLock<'static>) {
    let _ = out.write_all(b", ");
}

/// The end of the record's line.
#[inline]
pub fn print_end(out: &mut std::io::StdoutLock<'static>) {
    let _ = out.write_all(b"\n");
}

#[inline(always)]
pub fn map<K, V, K2, V2, F: FnOnce(K, V) -> (K2, V2)>(k: K, v: V, f: F) -> (K2, V2) {
    f(k, v)
}
#[inline(always)]
pub fn map_values<V, V2, F: FnOnce(V) -> V2>(v: V, f: F) -> V2 {
    f(v)
}
#[inline(always)]
pub fn map_values_with_key<K, V, V2, F: FnOnce(&K, V) -> V2>(k: &K, v: V, f: F) -> V2 {
    f(k, v)
}
#[inline(always)]
pub fn try_map<K, V, K2, V2, F: FnOnce(K, V) -> Result<(K2, V2), ProcessError>>(
    k: K,
    v: V,
    node: &'static str,
    f: F,
) -> Result<(K2, V2), RecordError> {
    f(k, v).map_err(|e| process_error(node, e))
}
#[inline(always)]
pub fn try_map_values<V, V2, F: FnOnce(V) -> Result<V2, ProcessError>>(
    v: V,
    node: &'static str,
    f: F,
) -> Result<V2, RecordError> {
    f(v).map_err(|e| process_error(node, e))
}
#[inline(always)]
pub fn try_map_values_with_key<K, V, V2, F: FnOnce(&K, V) -> Result<V2, ProcessError>>(
    k: &K,
    v: V,
    node: &'static str,
    f: F,
) -> Result<V2, RecordError> {
    f(k, v).map_err(|e| process_error(node, e))
}
#[inline(always)]
pub fn flat_map<'a, K, V, I: IntoIterator, F: FnOnce(&'a K, &'a V) -> I>(
    k: &'a K,
    v: &'a V,
    f: F,
) -> I {
    f(k, v)
}
#[inline(always)]
pub fn flat_map_values<'a, V, I: IntoIterator, F: FnOnce(&'a V) -> I>(v: &'a V, f: F) -> I {
    f(v)
}
#[inline(always)]
pub fn flat_map_values_with_key<'a, K, V, I: IntoIterator, F: FnOnce(&'a K, &'a V) -> I>(
    k: &'a K,
    v: &'a V,
    f: F,
) -> I {
    f(k, v)
}
#[inline(always)]
pub fn select_key<K, V, K2, F: FnOnce(&K, &V) -> K2>(k: &K, v: &V, f: F) -> K2 {
    f(k, v)
}
#[inline(always)]
pub fn reduce<V, F: FnOnce(V, V) -> V>(aggregate: V, v: V, f: F) -> V {
    f(aggregate, v)
}
/// The initializer of `aggregate(..)`: it returns the value type of the aggregate serde, so a
/// mismatch is reported at the user's initializer, naming this bound.
#[inline(always)]
pub fn aggregate_initializer_returns_the_aggregate_serde_type<
    AS: Serde,
    F: FnOnce() -> AS::Value,
>(
    f: F,
) -> AS::Value {
    f()
}
/// A compile-time assertion of `merge(..)`: both merged streams' key serdes serialize one type
/// (a mismatch is reported at the `merge`, naming this bound). No code runs.
pub const fn merged_streams_need_one_key_type<A: Serde, B: Serde<Value = A::Value>>() {}
#[inline(always)]
pub fn aggregator<K, V, A, F: FnOnce(&K, V, A) -> A>(k: &K, v: V, aggregate: A, f: F) -> A {
    f(k, v, aggregate)
}
#[inline(always)]
pub fn join<V, T, R, F: FnOnce(V, T) -> R>(v: V, t: T, f: F) -> R {
    f(v, t)
}
#[inline(always)]
pub fn left_join<V, T, R, F: FnOnce(V, Option<T>) -> R>(v: V, t: Option<T>, f: F) -> R {
    f(v, t)
}
/// `join` with a joiner that also takes the record's key (Kafka Streams' `ValueJoinerWithKey`).
#[inline(always)]
pub fn join_with_key<K, V, T, R, F: FnOnce(&K, V, T) -> R>(k: &K, v: V, t: T, f: F) -> R {
    f(k, v, t)
}
/// `left_join` with a joiner that also takes the record's key.
#[inline(always)]
pub fn left_join_with_key<K, V, T, R, F: FnOnce(&K, V, Option<T>) -> R>(
    k: &K,
    v: V,
    t: Option<T>,
    f: F,
) -> R {
    f(k, v, t)
}
#[inline(always)]
pub fn process<C, K, V, I: IntoIterator, F: FnOnce(&mut C, K, V) -> Result<I, ProcessError>>(
    ctx: &mut C,
    k: K,
    v: V,
    node: &'static str,
    f: F,
) -> Result<I, RecordError> {
    f(ctx, k, v).map_err(|e| process_error(node, e))
}

pub use crate::forward::{ForwardRecord, ForwardValue, PlainValue, ValueItem};

/// The record the children of a `process(..)` node see for one forwarded record: the input's,
/// with the timestamp and headers the forward sets.
#[inline(always)]
pub fn forwarded<'b>(
    record: &InputRecord<'b>,
    timestamp: Option<i64>,
    headers: &'b Option<Headers>,
) -> InputRecord<'b> {
    InputRecord {
        timestamp: match timestamp {
            Some(t) => t,
            None => record.timestamp,
        },
        headers: match headers {
            Some(h) => h,
            None => record.headers,
        },
        ..*record
    }
}

/// Calls the closure of a `process_values(..)` node: the key borrowed, values returned.
#[inline(always)]
pub fn process_values<
    C,
    K,
    V,
    I: IntoIterator,
    F: FnOnce(&mut C, &K, V) -> Result<I, ProcessError>,
>(
    ctx: &mut C,
    k: &K,
    v: V,
    node: &'static str,
    f: F,
) -> Result<I, RecordError> {
    f(ctx, k, v).map_err(|e| process_error(node, e))
}

/// Calls a punctuation callback of a `process_values(..)` node, which forwards nothing (Kafka
/// Streams' `FixedKeyProcessorContext` forwards only records made from an input record).
#[inline]
pub fn punctuate_values<C, F: FnOnce(&mut C, i64) -> Result<(), ProcessError>>(
    ctx: &mut C,
    timestamp: i64,
    node: &'static str,
    f: F,
) -> Result<(), RecordError> {
    f(ctx, timestamp).map_err(|e| process_error(node, e))
}

/// Calls a punctuation callback of a `process(..)` node with its context and the punctuation's
/// time.
#[inline]
pub fn punctuate<C, I: IntoIterator, F: FnOnce(&mut C, i64) -> Result<I, ProcessError>>(
    ctx: &mut C,
    timestamp: i64,
    node: &'static str,
    f: F,
) -> Result<I, RecordError> {
    f(ctx, timestamp).map_err(|e| process_error(node, e))
}

/// The record context of a punctuation, as Kafka Streams sets it: the punctuation's time, no
/// topic (source `usize::MAX`), partition and offset `-1`, no key, value or headers.
#[inline]
pub fn punctuation_record(timestamp: i64) -> InputRecord<'static> {
    InputRecord {
        source: usize::MAX,
        partition: -1,
        offset: -1,
        key: None,
        value: None,
        timestamp,
        headers: Headers::empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_like_kafka_streams() {
        assert_eq!(
            window_starts(65_000, 60_000, 60_000).collect::<Vec<_>>(),
            [60_000]
        );
        assert_eq!(
            window_starts(65_000, 60_000, 30_000).collect::<Vec<_>>(),
            [30_000, 60_000]
        );
        assert_eq!(window_starts(10, 60_000, 30_000).collect::<Vec<_>>(), [0]);
        assert_eq!(window_starts(-1, 60_000, 30_000).count(), 0);
        let starts = window_starts(65_000, 60_000, 30_000);
        assert!(starts.is_last(60_000) && !starts.is_last(30_000));
    }
}
