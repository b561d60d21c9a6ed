//! Tables' stores as Kafka Streams' timestamped key-value stores: each stored value is the
//! timestamp of the update that wrote it (8 bytes, big-endian) followed by the value's bytes
//! (`ValueAndTimestampSerializer`'s layout), so table operators can stamp their results as Kafka
//! Streams does (a table-table join's result carries the larger of both sides' timestamps, a
//! re-grouped aggregation's the larger of the update's and the aggregate's).
//!
//! The changelog record carries the plain value, stamped with the stored timestamp
//! (`ChangeLoggingTimestampedKeyValueBytesStore`), and a restore takes the timestamp from the
//! changelog record (`RecordConverters.rawValueToTimestampedValue`), so changelog topics stay
//! byte-compatible with Kafka Streams' and a table read from its source topic restores the same
//! way. Interactive queries and the TestDriver's store handles return the plain value.

use crate::cache::{DirtyKeys, Update};
use crate::record::InputRecord;
use crate::record_error::{RecordError, record, store_error};
use crate::serdes::Serde;
use crate::store::{StoreBackend, StoreError};
use crate::task::ErrorKind;
use crate::task::TaskError;

/// The bytes of the timestamp before a table store's value.
pub(crate) const TIMESTAMP_LEN: usize = 8;

/// Splits a stored entry into its timestamp and the value's bytes.
///
/// # Errors
///
/// [`StoreError::Backend`] when the entry is shorter than a timestamp (a store written by
/// something else than a table operator).
#[inline]
pub(crate) fn split_timestamped(entry: &[u8]) -> Result<(i64, &[u8]), StoreError> {
    match entry.split_first_chunk::<TIMESTAMP_LEN>() {
        Some((ts, value)) => Ok((i64::from_be_bytes(*ts), value)),
        None => Err(StoreError::Backend(format!(
            "a table store's entry has {} bytes, fewer than its 8-byte timestamp: the store's \
             directory holds data of another layout; delete the application's state directory \
             so it is restored from the changelog",
            entry.len()
        ))),
    }
}

/// Clears `buf` and writes `timestamp` as the prefix of a stored value; the value's bytes are
/// serialized after it.
#[inline(always)]
pub(crate) fn stamp(buf: &mut Vec<u8>, timestamp: i64) {
    buf.clear();
    buf.extend_from_slice(&timestamp.to_be_bytes());
}

/// The value's bytes and timestamp stored under `key` of a table's store.
#[inline(always)]
pub fn get_timestamped_bytes<'a, B: StoreBackend>(
    store: &'a B,
    key: &[u8],
    node: &'static str,
) -> Result<Option<(&'a [u8], i64)>, RecordError> {
    match store.get(key).map_err(|e| store_error(node, e))? {
        Some(entry) => {
            let (ts, value) = split_timestamped(entry).map_err(|e| store_error(node, e))?;
            Ok(Some((value, ts)))
        }
        None => Ok(None),
    }
}

/// The value and timestamp stored under `key` of a table's store (Kafka Streams'
/// `ValueAndTimestamp`).
#[inline(always)]
pub fn get_timestamped<VS: Serde, B: StoreBackend>(
    store: &B,
    key: &[u8],
    node: &'static str,
) -> Result<Option<(VS::Value, i64)>, RecordError> {
    match get_timestamped_bytes(store, key, node)? {
        Some((bytes, ts)) => VS::deserialize(Some(bytes))
            .map(|v| Some((v, ts)))
            .map_err(|e| record(ErrorKind::Serialization, node, e)),
        None => Ok(None),
    }
}

/// A table source's record applied to its store: `value` (`None`: deleted) stamped with the
/// record's `timestamp`, as `KTableSource` puts it (the source topic is the changelog, so
/// nothing is written to it).
#[inline(always)]
pub fn source_put<B: StoreBackend>(
    store: &mut B,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
    buf: &mut Vec<u8>,
    node: &'static str,
) -> Result<(), RecordError> {
    restore_timestamped(store, key, value, timestamp, buf).map_err(|e| store_error(node, e))
}

/// What a table's store held under a key before an update, for the record cache: whether the
/// key was dirty already, and whether it had a value ([`cache_prior`]).
#[derive(Debug, Clone, Copy)]
pub struct Prior {
    existed: bool,
    /// The key was not dirty, had a value, and downstream needs it: the cache keeps it.
    keep: bool,
}

/// Reads what `store` holds under `key` before an update when the key is not dirty yet in
/// `cache`: whether it has a value and, if downstream needs old values (`keep_old`), the value's
/// bytes into `old` (cleared first). A key already dirty keeps the old value it had, so nothing is
/// read. Pass the result to [`cache_mark`] after the update.
#[inline]
pub fn cache_prior<B: StoreBackend>(
    store: &B,
    cache: &DirtyKeys,
    key: &[u8],
    keep_old: bool,
    old: &mut Vec<u8>,
    node: &'static str,
) -> Result<Prior, RecordError> {
    old.clear();
    let first = !cache.contains(key);
    let mut existed = false;
    if first && let Some(entry) = store.get(key).map_err(|e| store_error(node, e))? {
        existed = true;
        if keep_old {
            let (_, value) = split_timestamped(entry).map_err(|e| store_error(node, e))?;
            old.extend_from_slice(value);
        }
    }
    Ok(Prior {
        existed,
        keep: first && existed && keep_old,
    })
}

/// Marks `key` dirty after an update that left `value_len` bytes in the store, stamped
/// `timestamp`, from `record`; `prior` and `old` are [`cache_prior`]'s. The cache's flush forwards
/// the key's change once, whatever the number of updates in between, as Kafka Streams' caching
/// store in front of a table's processor does.
#[inline]
pub fn cache_mark(
    cache: &mut DirtyKeys,
    key: &[u8],
    prior: Prior,
    old: &[u8],
    value_len: usize,
    record: &InputRecord<'_>,
    timestamp: i64,
) {
    let update = Update {
        value_len,
        source: record.source,
        timestamp,
        offset: record.offset,
        existed: prior.existed,
    };
    cache.mark_with_old(key, update, prior.keep.then_some(old));
}

/// A table source's record with the record cache on (see `Task::flush_cache`): [`cache_prior`],
/// then the store updated (a null value deletes), then [`cache_mark`]. Nothing is forwarded.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn cached_source_put<B: StoreBackend>(
    store: &mut B,
    cache: &mut DirtyKeys,
    record: &InputRecord<'_>,
    key: &[u8],
    keep_old: bool,
    buf: &mut Vec<u8>,
    old: &mut Vec<u8>,
    node: &'static str,
) -> Result<(), RecordError> {
    let prior = cache_prior(store, cache, key, keep_old, old, node)?;
    restore_timestamped(store, key, record.value, record.timestamp, buf)
        .map_err(|e| store_error(node, e))?;
    let value_len = record.value.map_or(0, <[u8]>::len);
    cache_mark(cache, key, prior, old, value_len, record, record.timestamp);
    Ok(())
}

/// Applies a changelog record of a table's store: the value stamped with the record's
/// timestamp, or a delete.
#[inline]
pub(crate) fn restore_timestamped<B: StoreBackend>(
    store: &mut B,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
    buf: &mut Vec<u8>,
) -> Result<(), StoreError> {
    match value {
        Some(value) => {
            stamp(buf, timestamp);
            buf.extend_from_slice(value);
            store.put(key, buf)
        }
        None => store.delete(key).map(|_| ()),
    }
}

/// `restore_timestamped` for the generated `Task::restore`.
#[inline]
pub fn restore_table<B: StoreBackend>(
    store: &mut B,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
    buf: &mut Vec<u8>,
) -> Result<(), TaskError> {
    restore_timestamped(store, key, value, timestamp, buf)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryBackend;

    #[test]
    fn entries_are_kafka_streams_value_and_timestamp_bytes() {
        // ValueAndTimestampSerializer: the timestamp as 8 bytes big-endian, then the value.
        let mut store = MemoryBackend::default();
        let mut buf = Vec::new();
        restore_timestamped(&mut store, b"k", Some(b"v"), 1_000, &mut buf).unwrap();
        assert_eq!(
            store.get(b"k").unwrap(),
            Some(&[0, 0, 0, 0, 0, 0, 0x03, 0xe8, b'v'][..])
        );
        assert_eq!(
            get_timestamped_bytes(&store, b"k", "n").unwrap(),
            Some((&b"v"[..], 1_000))
        );
        restore_timestamped(&mut store, b"k", None, 2_000, &mut buf).unwrap();
        assert_eq!(store.get(b"k").unwrap(), None);
    }

    #[test]
    fn a_short_entry_is_an_error_that_names_the_fix() {
        let e = split_timestamped(b"short").unwrap_err();
        assert!(
            e.to_string()
                .contains("delete the application's state directory")
        );
    }
}
