//! Support for tables' change records in generated code: a table operator receives, per key,
//! the new value and the old one ([`Change`]), as Kafka Streams' `Change<V>` carries them
//! between `KTable` processors, and the helpers that fix the types of the user's closures.
//!
//! Every table of the DSL is materialized at its source (`table(..)` and `to_table(..)` keep a
//! store), so, as in Kafka Streams with a materialized parent, old values are always available
//! downstream (`sendOldValues`): a filter forwards a tombstone only for a key it had forwarded.

// Support for generated code (re-exported by `__private`): the task's buffers and stores are passed one by one.
#![allow(clippy::too_many_arguments)]

mod changed;
pub(crate) mod fk;
pub(crate) mod global;
pub(crate) mod timestamped;
pub(crate) mod versioned;

pub use changed::Changed;

use crate::record_error::{RecordError, record, store_error};
use crate::serdes::{Encoded, Serde};
use crate::store::StoreBackend;
use crate::task::{ErrorKind, OutgoingRecord, RecordSink};
use timestamped::{TIMESTAMP_LEN, get_timestamped, stamp};

/// One update of a table: the key's new value (`None`: deleted) and its previous one (`None`:
/// absent, or not needed downstream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change<V> {
    /// The value after the update.
    pub new: Option<V>,
    /// The value before the update.
    pub old: Option<V>,
}

impl<V> Change<V> {
    /// Whether there is nothing to say: no new and no old value.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.new.is_none() && self.old.is_none()
    }
}

/// `to_table(..)`: reads the old value (when `want_old`), writes `value` under `key` stamped
/// with the record's `timestamp` (a value that encodes as null deletes the key, as Kafka
/// Streams' `toTable` deletes on a null value) with its changelog record (to the task's
/// partition), and returns the change.
#[inline(always)]
pub fn table_put<VS: Serde, B: StoreBackend, S: RecordSink>(
    store: &mut B,
    key: &[u8],
    value: VS::Value,
    want_old: bool,
    value_buf: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
) -> Result<Change<VS::Value>, RecordError> {
    let old = if want_old {
        get_timestamped::<VS, B>(store, key, node)?.map(|(v, _)| v)
    } else {
        None
    };
    stamp(value_buf, timestamp);
    let encoded =
        VS::serialize(&value, value_buf).map_err(|e| record(ErrorKind::Serialization, node, e))?;
    let (bytes, new) = match encoded {
        Encoded::Present => {
            store
                .put(key, value_buf)
                .map_err(|e| store_error(node, e))?;
            (Some(&value_buf[TIMESTAMP_LEN..]), Some(value))
        }
        Encoded::Null => {
            store.delete(key).map_err(|e| store_error(node, e))?;
            (None, None)
        }
    };
    sink.send(OutgoingRecord::changelog(
        changelog, partition, key, bytes, timestamp,
    ))?;
    Ok(Change { new, old })
}

/// `to_table` of a record with a null value whose serde has no null: the key is deleted
/// (Kafka Streams' `KStreamToTable` is a `KTableSource`), the changelog gets a tombstone, and the
/// change (no new value, the old one if wanted) is returned.
pub fn table_delete<VS: Serde, B: StoreBackend, S: RecordSink>(
    store: &mut B,
    key: &[u8],
    want_old: bool,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
) -> Result<Change<VS::Value>, RecordError> {
    let old = if want_old {
        get_timestamped::<VS, B>(store, key, node)?.map(|(v, _)| v)
    } else {
        None
    };
    store.delete(key).map_err(|e| store_error(node, e))?;
    sink.send(OutgoingRecord::changelog(
        changelog, partition, key, None, timestamp,
    ))?;
    Ok(Change { new: None, old })
}

/// `join` of two tables: the joiner on both present values.
#[inline(always)]
pub fn table_join<A, B, R, F: FnOnce(&A, &B) -> R>(a: &A, b: &B, f: F) -> R {
    f(a, b)
}

/// `left_join` of two tables: the joiner on the left value and the right one if present.
#[inline(always)]
pub fn table_left_join<A, B, R, F: FnOnce(&A, Option<&B>) -> R>(a: &A, b: Option<&B>, f: F) -> R {
    f(a, b)
}

/// `outer_join` of two tables: the joiner on whichever values are present.
#[inline(always)]
pub fn table_outer_join<A, B, R, F: FnOnce(Option<&A>, Option<&B>) -> R>(
    a: Option<&A>,
    b: Option<&B>,
    f: F,
) -> R {
    f(a, b)
}

/// `join` of two tables with a joiner that also takes the key.
#[inline(always)]
pub fn table_join_with_key<K, A, B, R, F: FnOnce(&K, &A, &B) -> R>(k: &K, a: &A, b: &B, f: F) -> R {
    f(k, a, b)
}

/// `left_join` of two tables with a joiner that also takes the key.
#[inline(always)]
pub fn table_left_join_with_key<K, A, B, R, F: FnOnce(&K, &A, Option<&B>) -> R>(
    k: &K,
    a: &A,
    b: Option<&B>,
    f: F,
) -> R {
    f(k, a, b)
}

/// `outer_join` of two tables with a joiner that also takes the key.
#[inline(always)]
pub fn table_outer_join_with_key<K, A, B, R, F: FnOnce(&K, Option<&A>, Option<&B>) -> R>(
    k: &K,
    a: Option<&A>,
    b: Option<&B>,
    f: F,
) -> R {
    f(k, a, b)
}

/// `group_by` of a table: the mapper on one value.
#[inline(always)]
pub fn table_select<K, V, K2, V2, F: FnOnce(&K, V) -> (K2, V2)>(k: &K, v: V, f: F) -> (K2, V2) {
    f(k, v)
}

/// Whether a re-grouped update keeps its key (Kafka Streams compares with `equals`).
#[inline(always)]
pub fn same_key<K: PartialEq>(a: &K, b: &K) -> bool {
    a == b
}

/// Writes `new` stamped with `timestamp` (or deletes the key when `None` or when it encodes as
/// null) with its changelog record.
#[inline(always)]
fn write_aggregate<AS: Serde, B: StoreBackend, S: RecordSink>(
    store: &mut B,
    key: &[u8],
    new: Option<AS::Value>,
    value_buf: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
) -> Result<Option<AS::Value>, RecordError> {
    let new = match new {
        Some(a) => {
            stamp(value_buf, timestamp);
            match AS::serialize(&a, value_buf)
                .map_err(|e| record(ErrorKind::Serialization, node, e))?
            {
                Encoded::Present => Some(a),
                Encoded::Null => None,
            }
        }
        None => None,
    };
    let bytes = match &new {
        Some(_) => {
            store
                .put(key, value_buf)
                .map_err(|e| store_error(node, e))?;
            Some(&value_buf[TIMESTAMP_LEN..])
        }
        None => {
            store.delete(key).map_err(|e| store_error(node, e))?;
            None
        }
    };
    sink.send(OutgoingRecord::changelog(
        changelog, partition, key, bytes, timestamp,
    ))?;
    Ok(new)
}

/// `KTableAggregate#process`: subtracts the old value from the key's aggregate (if both
/// exist), then adds the new one (to the initializer's value if there is no aggregate), stores
/// the result (none: deleted) and returns the change, its old value decoded again when
/// `want_old`, with the result's timestamp (`aggregate_timestamp`).
#[inline(always)]
pub fn table_aggregate<K, V, AS: Serde, B: StoreBackend, S: RecordSink, FI, FA, FS>(
    store: &mut B,
    key: &[u8],
    value_buf: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
    want_old: bool,
    k: &K,
    change: Change<V>,
    init: FI,
    add: FA,
    subtract: FS,
) -> Result<(Change<AS::Value>, i64), RecordError>
where
    FI: FnOnce() -> AS::Value,
    FA: FnOnce(&K, V, AS::Value) -> AS::Value,
    FS: FnOnce(&K, V, AS::Value) -> AS::Value,
{
    combine::<AS, V, B, S>(
        store,
        key,
        value_buf,
        sink,
        changelog,
        partition,
        timestamp,
        node,
        want_old,
        change,
        |v, a| add(k, v, a.unwrap_or_else(init)),
        |v, a| subtract(k, v, a),
    )
}

/// What [`table_aggregate`] and [`table_reduce`] share: `subtract` takes a value from the
/// aggregate, `add` adds one to the aggregate (none: the first value).
#[inline(always)]
fn combine<AS: Serde, V, B: StoreBackend, S: RecordSink>(
    store: &mut B,
    key: &[u8],
    value_buf: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
    want_old: bool,
    change: Change<V>,
    add: impl FnOnce(V, Option<AS::Value>) -> AS::Value,
    subtract: impl FnOnce(V, AS::Value) -> AS::Value,
) -> Result<(Change<AS::Value>, i64), RecordError> {
    let (old_agg, stored) = split(get_timestamped::<AS, B>(store, key, node)?);
    let old = if want_old && old_agg.is_some() {
        get_timestamped::<AS, B>(store, key, node)?.map(|(v, _)| v)
    } else {
        None
    };
    let timestamp = aggregate_timestamp(timestamp, stored, &change);
    let intermediate = match (change.old, old_agg) {
        (Some(v), Some(a)) => Some(subtract(v, a)),
        (_, a) => a,
    };
    let new = match change.new {
        Some(v) => Some(add(v, intermediate)),
        None => intermediate,
    };
    let new = write_aggregate::<AS, B, S>(
        store, key, new, value_buf, sink, changelog, partition, timestamp, node,
    )?;
    Ok((Change { new, old }, timestamp))
}

fn split<V>(stored: Option<(V, i64)>) -> (Option<V>, Option<i64>) {
    match stored {
        Some((v, ts)) => (Some(v), Some(ts)),
        None => (None, None),
    }
}

/// The timestamp of a re-grouped table's aggregation result, as `KTableAggregate` and
/// `KTableReduce` compute it: the larger of the update's and the stored aggregate's when the
/// update subtracts from or adds to an existing aggregate, else the update's.
#[inline(always)]
pub(crate) fn aggregate_timestamp<V>(
    timestamp: i64,
    stored: Option<i64>,
    change: &Change<V>,
) -> i64 {
    match stored {
        Some(agg) if !change.is_empty() => timestamp.max(agg),
        _ => timestamp,
    }
}

/// `KTableReduce#process`: as [`table_aggregate`], but the first value becomes the aggregate
/// as it is.
#[inline(always)]
pub fn table_reduce<VS: Serde, B: StoreBackend, S: RecordSink, FA, FS>(
    store: &mut B,
    key: &[u8],
    value_buf: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
    want_old: bool,
    change: Change<VS::Value>,
    add: FA,
    subtract: FS,
) -> Result<(Change<VS::Value>, i64), RecordError>
where
    FA: FnOnce(VS::Value, VS::Value) -> VS::Value,
    FS: FnOnce(VS::Value, VS::Value) -> VS::Value,
{
    combine::<VS, VS::Value, B, S>(
        store,
        key,
        value_buf,
        sink,
        changelog,
        partition,
        timestamp,
        node,
        want_old,
        change,
        |v, a| match a {
            Some(a) => add(a, v),
            None => v,
        },
        |v, a| subtract(a, v),
    )
}
