//! Versioned tables (Kafka Streams' versioned key-value stores, KIP-889): a table that keeps,
//! besides each key's latest value, the values it had over the last *history retention*, so a
//! stream record can be joined with the table **as it was at the record's timestamp** (KIP-914)
//! and a query can ask for a key's value as of a time.
//!
//! # Layout
//!
//! The latest value of each key stays in the table's ordinary store (the backend, timestamped as
//! every table store: [`super::timestamped`]), so everything that reads a table's current state
//! (table-table joins, foreign-key joins, aggregations, queries of the latest value) reads a
//! versioned table unchanged. The older versions, and tombstones, are kept by a
//! [`VersionHistory`] next to it, in memory: a task with a versioned table rebuilds it by a
//! restore from its changelog's start (which holds every version the history needs: Kafka
//! Streams declares a versioned store's changelog with `min.compaction.lag.ms` of the history
//! retention plus a day, and so do we).
//!
//! # Semantics (Kafka Streams' `RocksDBVersionedStore`)
//!
//! - The store's *observed stream time* is the largest timestamp put into it. A put older than
//!   that minus the history retention is not stored ([`PutOutcome::Expired`]; the table counts
//!   it dropped), and a read as of such a time answers the latest value if it is not newer,
//!   else nothing.
//! - A put at or after the key's latest timestamp becomes the latest value
//!   ([`PutOutcome::Latest`]); the previous latest moves to the history, valid until the new
//!   timestamp. A put at the same timestamp replaces the value.
//! - A put before the key's latest timestamp is inserted in the history
//!   ([`PutOutcome::OutOfOrder`]), valid until the next version's timestamp. A table forwards
//!   it downstream too, marked not latest (Kafka Streams' `Change.isLatest`): `to_stream()`,
//!   filters and mappers pass it on, table-table and foreign-key joins drop it (counted) and a
//!   re-grouping drops it silently.
//! - A null value is a tombstone: a version that says "absent from here on".
//!
//! Versions no read can reach any more (valid only before the observed stream time minus the
//! history retention) are dropped as the stream time moves on.

use std::collections::HashMap;

use crate::record_error::{RecordError, record, store_error};
use crate::serdes::Encoded;
use crate::serdes::Serde;
use crate::store::{StoreBackend, StoreError};
use crate::task::{ErrorKind, OutgoingRecord, RecordSink, TaskError};

use super::Change;
use super::timestamped::get_timestamped;

use super::timestamped::{restore_timestamped, split_timestamped};

/// What a put did to a versioned table ([`versioned_put`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutOutcome {
    /// The value is the key's latest now: a table forwards it.
    Latest,
    /// The value went into the key's history, before its latest version: not forwarded.
    OutOfOrder,
    /// The value is older than the history retention allows: not stored, not forwarded.
    Expired,
}

/// One past version of a key: from its timestamp on, until the next version's, the key had
/// this value (`None`: it was absent, a tombstone).
type Past = (i64, Option<Box<[u8]>>);

/// The past versions of a versioned table's keys, of one task (see the module `table::versioned`). The
/// latest value of each key is not here but in the table's store.
#[derive(Debug)]
pub struct VersionHistory {
    retention_ms: i64,
    observed: i64,
    /// Per key, its past versions in timestamp order, each older than the key's latest value.
    keys: HashMap<Box<[u8]>, Vec<Past>>,
    /// The observed stream time at which expired versions are swept next.
    next_sweep: i64,
}

impl VersionHistory {
    /// An empty history that keeps versions for `retention_ms` behind the observed stream time.
    pub fn new(retention_ms: i64) -> Self {
        VersionHistory {
            retention_ms,
            observed: i64::MIN,
            keys: HashMap::new(),
            next_sweep: i64::MIN,
        }
    }

    /// The history retention in milliseconds.
    pub fn retention_ms(&self) -> i64 {
        self.retention_ms
    }

    /// The largest timestamp put so far (`i64::MIN` before the first).
    pub fn observed_stream_time(&self) -> i64 {
        self.observed
    }

    /// The oldest time a read can still be answered for: the observed stream time minus the
    /// history retention.
    fn horizon(&self) -> i64 {
        self.observed.saturating_sub(self.retention_ms)
    }

    /// Forgets everything (the task is restored from its changelog's start).
    pub fn clear(&mut self) {
        self.keys.clear();
        self.observed = i64::MIN;
        self.next_sweep = i64::MIN;
    }

    /// The number of past versions kept, tombstones included.
    pub fn len(&self) -> usize {
        self.keys.values().map(Vec::len).sum()
    }

    /// Whether no past version is kept.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The past versions of `key` in timestamp order (value bytes, `None` for a tombstone).
    pub fn versions(&self, key: &[u8]) -> impl Iterator<Item = (i64, Option<&[u8]>)> {
        self.keys
            .get(key)
            .into_iter()
            .flatten()
            .map(|(ts, v)| (*ts, v.as_deref()))
    }

    /// The keys with past versions (in no order).
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.keys.keys().map(|k| &**k)
    }

    fn insert(&mut self, key: &[u8], timestamp: i64, value: Option<&[u8]>) {
        let value = value.map(Box::from);
        match self.keys.get_mut(key) {
            Some(versions) => match versions.binary_search_by_key(&timestamp, |(ts, _)| *ts) {
                Ok(i) => versions[i].1 = value,
                Err(i) => versions.insert(i, (timestamp, value)),
            },
            None => {
                self.keys.insert(Box::from(key), vec![(timestamp, value)]);
            }
        }
    }

    /// The newest past version of `key`, if any.
    fn newest(&self, key: &[u8]) -> Option<&Past> {
        self.keys.get(key).and_then(|v| v.last())
    }

    fn remove_newest(&mut self, key: &[u8]) {
        if let Some(versions) = self.keys.get_mut(key) {
            versions.pop();
            if versions.is_empty() {
                self.keys.remove(key);
            }
        }
    }

    /// Drops the versions no read can reach: those valid only before the horizon (the next
    /// version starts at or before it), and a key's last tombstone at or before it (a later put
    /// comes after it anyway). `latest`: the key's latest timestamp in the store, if any.
    fn trim(versions: &mut Vec<Past>, horizon: i64, latest: Option<i64>) {
        // Versions [0, keep_from) end at or before the horizon.
        let mut keep_from = 0;
        for i in 0..versions.len() {
            let valid_to = versions.get(i + 1).map(|(ts, _)| *ts).or(latest);
            match valid_to {
                Some(to) if to <= horizon => keep_from = i + 1,
                _ => break,
            }
        }
        versions.drain(..keep_from);
        if latest.is_none()
            && let [(ts, None)] = versions[..]
            && ts <= horizon
        {
            versions.clear();
        }
    }

    /// Advances the observed stream time to `timestamp` and, about twice per retention, sweeps
    /// the versions that fell behind the horizon.
    fn observe<B: StoreBackend>(&mut self, store: &B, timestamp: i64) -> Result<(), StoreError> {
        self.observed = self.observed.max(timestamp);
        if self.observed < self.next_sweep {
            return Ok(());
        }
        let horizon = self.horizon();
        let mut result = Ok(());
        self.keys.retain(|key, versions| {
            let latest = match store.get(key) {
                Ok(entry) => entry
                    .and_then(|e| split_timestamped(e).ok())
                    .map(|(ts, _)| ts),
                Err(e) => {
                    result = Err(e);
                    return true;
                }
            };
            Self::trim(versions, horizon, latest);
            !versions.is_empty()
        });
        self.next_sweep = self
            .observed
            .saturating_add((self.retention_ms / 2).max(1_000));
        result
    }
}

/// Puts `value` (`None`: a tombstone) for `key` at `timestamp` into a versioned table: its
/// latest value in `store` (stamped, as every table store), older versions in `history`. See
/// the module `table::versioned` for what [`PutOutcome`] says. `buf` is scratch space.
///
/// # Errors
///
/// [`StoreError::Backend`] when the store cannot be read or written.
pub fn put_versioned<B: StoreBackend>(
    store: &mut B,
    history: &mut VersionHistory,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
    buf: &mut Vec<u8>,
) -> Result<PutOutcome, StoreError> {
    if timestamp < history.horizon() {
        return Ok(PutOutcome::Expired);
    }
    history.observe(store, timestamp)?;
    // One lookup of the latest value: it becomes a past one, valid until `timestamp`, when the
    // put is newer.
    let latest = match store.get(key)? {
        Some(entry) => {
            let (latest_ts, latest_value) = split_timestamped(entry)?;
            if timestamp > latest_ts {
                history.insert(key, latest_ts, Some(latest_value));
            }
            Some(latest_ts)
        }
        None => None,
    };
    match latest {
        Some(latest_ts) if timestamp >= latest_ts => {
            if value.is_none() {
                history.insert(key, timestamp, None);
            }
            restore_timestamped(store, key, value, timestamp, buf)?;
            Ok(PutOutcome::Latest)
        }
        Some(_) => {
            history.insert(key, timestamp, value);
            Ok(PutOutcome::OutOfOrder)
        }
        None => match history.newest(key) {
            Some((newest, _)) if timestamp < *newest => {
                history.insert(key, timestamp, value);
                Ok(PutOutcome::OutOfOrder)
            }
            newest => {
                // At or after the newest past version (a tombstone: the key is absent now).
                if newest.is_some_and(|(ts, _)| *ts == timestamp) {
                    history.remove_newest(key);
                }
                match value {
                    Some(_) => restore_timestamped(store, key, value, timestamp, buf)?,
                    None => history.insert(key, timestamp, None),
                }
                let horizon = history.horizon();
                if let Some(versions) = history.keys.get_mut(key) {
                    let latest = value.is_some().then_some(timestamp);
                    VersionHistory::trim(versions, horizon, latest);
                    if versions.is_empty() {
                        history.keys.remove(key);
                    }
                }
                Ok(PutOutcome::Latest)
            }
        },
    }
}

/// One version of a key (Kafka Streams' `VersionedRecord`): its value, the timestamp it became
/// valid at, and the one it stopped being valid at (`None`: it is the latest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Version<'a> {
    /// The value's bytes.
    pub value: &'a [u8],
    /// When this value was put.
    pub timestamp: i64,
    /// When the next version replaced it; `None` for the latest value.
    pub valid_to: Option<i64>,
}

/// A versioned table's version of `key` as of `as_of` (Kafka Streams'
/// `VersionedKeyValueStore#get(key, asOfTimestamp)`): the latest value if it is not newer than
/// `as_of` (whatever the history retention), else the past version valid then. `None` when the
/// key had no value then (absent, deleted), or no latest value old enough and `as_of` lies
/// before the observed stream time minus the history retention.
///
/// # Errors
///
/// [`StoreError::Backend`] when the store cannot be read.
pub(crate) fn get_as_of_bytes<'a, B: StoreBackend>(
    store: &'a B,
    history: &'a VersionHistory,
    key: &[u8],
    as_of: i64,
) -> Result<Option<Version<'a>>, StoreError> {
    let latest = match store.get(key)? {
        Some(entry) => Some(split_timestamped(entry)?),
        None => None,
    };
    if let Some((ts, value)) = latest
        && ts <= as_of
    {
        return Ok(Some(Version {
            value,
            timestamp: ts,
            valid_to: None,
        }));
    }
    if as_of < history.horizon() {
        return Ok(None);
    }
    let Some(versions) = history.keys.get(key) else {
        return Ok(None);
    };
    let at = versions.partition_point(|(ts, _)| *ts <= as_of);
    let Some(i) = at.checked_sub(1) else {
        return Ok(None);
    };
    let valid_to = versions
        .get(i + 1)
        .map(|(ts, _)| *ts)
        .or(latest.map(|(ts, _)| ts));
    Ok(versions[i].1.as_deref().map(|value| Version {
        value,
        timestamp: versions[i].0,
        valid_to,
    }))
}

/// `get_as_of_bytes` deserialized with `VS`, for a stream-table join on a versioned table
/// (`node` names the operator in errors).
#[inline]
pub fn get_as_of<VS: Serde, B: StoreBackend>(
    store: &B,
    history: &VersionHistory,
    key: &[u8],
    as_of: i64,
    node: &'static str,
) -> Result<Option<(VS::Value, i64)>, RecordError> {
    match get_as_of_bytes(store, history, key, as_of).map_err(|e| store_error(node, e))? {
        Some(version) => VS::deserialize(Some(version.value))
            .map(|v| Some((v, version.timestamp)))
            .map_err(|e| record(ErrorKind::Serialization, node, e)),
        None => Ok(None),
    }
}

/// [`put_versioned`] for generated code: a versioned table's record (from its source topic or a
/// `to_table(..)`), with errors naming `node`.
#[inline]
pub fn versioned_put<B: StoreBackend>(
    store: &mut B,
    history: &mut VersionHistory,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
    buf: &mut Vec<u8>,
    node: &'static str,
) -> Result<PutOutcome, RecordError> {
    put_versioned(store, history, key, value, timestamp, buf).map_err(|e| store_error(node, e))
}

/// `to_table(..)` into a versioned table: `value` (`None`, or a value that encodes as null:
/// a tombstone) put at `timestamp`, the changelog record sent whatever the put did (as Kafka
/// Streams' `ChangeLoggingVersionedKeyValueBytesStore` logs every put, expired ones too), and
/// the change (its old value the latest before the put, read when `want_old`) with what the put
/// did: a table forwards it unless it expired.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn versioned_table_put<VS: Serde, B: StoreBackend, S: RecordSink>(
    store: &mut B,
    history: &mut VersionHistory,
    key: &[u8],
    value: Option<VS::Value>,
    want_old: bool,
    value_buf: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    sink: &mut S,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    node: &'static str,
) -> Result<(Change<VS::Value>, PutOutcome), RecordError> {
    let old = if want_old {
        get_timestamped::<VS, B>(store, key, node)?.map(|(v, _)| v)
    } else {
        None
    };
    let new = match value {
        Some(v) => match crate::store::encode::<VS>(&v, value_buf)
            .map_err(|e| record(ErrorKind::Serialization, node, e))?
        {
            Encoded::Present => Some(v),
            Encoded::Null => None,
        },
        None => None,
    };
    let present = new.is_some().then_some(&value_buf[..]);
    let outcome = put_versioned(store, history, key, present, timestamp, scratch)
        .map_err(|e| store_error(node, e))?;
    // Every put, not the last one per key and commit: a restore replays the versions in
    // order, and an out-of-order put last in a commit would otherwise be all it sees of the key.
    sink.send(OutgoingRecord::append_only_changelog(
        changelog, partition, key, present, timestamp,
    ))?;
    Ok((Change { new, old }, outcome))
}

/// Applies a changelog record of a versioned table (the generated `Task::restore`): the same
/// put as processing made, so the history and the observed stream time come back as they were.
#[inline]
pub fn restore_versioned<B: StoreBackend>(
    store: &mut B,
    history: &mut VersionHistory,
    key: &[u8],
    value: Option<&[u8]>,
    timestamp: i64,
    buf: &mut Vec<u8>,
) -> Result<(), TaskError> {
    put_versioned(store, history, key, value, timestamp, buf)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryBackend;

    struct Table {
        store: MemoryBackend,
        history: VersionHistory,
    }

    impl Table {
        fn new(retention: i64) -> Self {
            Table {
                store: MemoryBackend::default(),
                history: VersionHistory::new(retention),
            }
        }
        fn put(&mut self, key: &str, value: Option<&str>, ts: i64) -> PutOutcome {
            put_versioned(
                &mut self.store,
                &mut self.history,
                key.as_bytes(),
                value.map(str::as_bytes),
                ts,
                &mut Vec::new(),
            )
            .unwrap()
        }
        fn get(&self, key: &str, as_of: i64) -> Option<(String, i64)> {
            get_as_of_bytes(&self.store, &self.history, key.as_bytes(), as_of)
                .unwrap()
                .map(|v| (String::from_utf8(v.value.to_vec()).unwrap(), v.timestamp))
        }
    }

    fn at(v: &str, ts: i64) -> Option<(String, i64)> {
        Some((v.to_owned(), ts))
    }

    #[test]
    fn reads_as_of_a_time_see_the_version_valid_then() {
        let mut t = Table::new(1_000);
        assert_eq!(t.put("k", Some("a"), 10), PutOutcome::Latest);
        assert_eq!(t.put("k", Some("b"), 20), PutOutcome::Latest);
        assert_eq!(t.get("k", 5), None);
        assert_eq!(t.get("k", 10), at("a", 10));
        assert_eq!(t.get("k", 19), at("a", 10));
        assert_eq!(t.get("k", 20), at("b", 20));
        assert_eq!(t.get("k", i64::MAX), at("b", 20));
    }

    #[test]
    fn an_out_of_order_put_goes_into_the_history_only() {
        let mut t = Table::new(1_000);
        t.put("k", Some("a"), 10);
        t.put("k", Some("c"), 30);
        assert_eq!(t.put("k", Some("b"), 20), PutOutcome::OutOfOrder);
        assert_eq!(t.get("k", 25), at("b", 20));
        assert_eq!(t.get("k", 15), at("a", 10));
        assert_eq!(t.get("k", 30), at("c", 30));
        // Before every version, out of order too.
        assert_eq!(t.put("k", Some("z"), 5), PutOutcome::OutOfOrder);
        assert_eq!(t.get("k", 7), at("z", 5));
        // The same timestamp replaces.
        assert_eq!(t.put("k", Some("b2"), 20), PutOutcome::OutOfOrder);
        assert_eq!(t.get("k", 20), at("b2", 20));
        assert_eq!(t.put("k", Some("c2"), 30), PutOutcome::Latest);
        assert_eq!(t.get("k", 31), at("c2", 30));
        assert_eq!(t.get("k", 29), at("b2", 20));
    }

    #[test]
    fn tombstones_are_versions() {
        let mut t = Table::new(1_000);
        t.put("k", Some("a"), 10);
        assert_eq!(t.put("k", None, 20), PutOutcome::Latest);
        assert_eq!(t.get("k", 25), None);
        assert_eq!(t.get("k", 15), at("a", 10));
        // Before the tombstone: out of order, valid until it.
        assert_eq!(t.put("k", Some("b"), 15), PutOutcome::OutOfOrder);
        assert_eq!(t.get("k", 17), at("b", 15));
        assert_eq!(t.get("k", 21), None);
        // After it: the latest again.
        assert_eq!(t.put("k", Some("c"), 30), PutOutcome::Latest);
        assert_eq!(t.get("k", 30), at("c", 30));
        assert_eq!(t.get("k", 25), None);
        // A tombstone of a key never seen, then an older put: before the tombstone.
        assert_eq!(t.put("x", None, 50), PutOutcome::Latest);
        assert_eq!(t.put("x", Some("old"), 40), PutOutcome::OutOfOrder);
        assert_eq!(t.get("x", 45), at("old", 40));
        assert_eq!(t.get("x", 50), None);
    }

    #[test]
    fn history_older_than_the_retention_is_neither_stored_nor_read() {
        let mut t = Table::new(100);
        t.put("k", Some("a"), 10);
        t.put("k", Some("b"), 500);
        // Observed stream time 500: reads before 400 answer nothing (but the latest value when it
        // is not newer), puts before it are dropped.
        assert_eq!(t.get("k", 399), None);
        assert_eq!(t.get("k", 400), at("a", 10));
        assert_eq!(t.put("k", Some("late"), 399), PutOutcome::Expired);
        assert_eq!(t.put("k", Some("ok"), 400), PutOutcome::OutOfOrder);
        assert_eq!(t.get("k", 450), at("ok", 400));
        // A put to another key moves the stream time for all keys.
        t.put("other", Some("x"), 5_000);
        assert_eq!(t.get("k", 4_899), at("b", 500), "the latest is not newer");
        assert_eq!(t.get("k", 499), None, "before the horizon, not the latest");
        assert_eq!(t.get("k", 4_900), at("b", 500));
        assert_eq!(t.put("k", Some("late"), 4_000), PutOutcome::Expired);
    }

    #[test]
    fn unreachable_versions_are_swept() {
        let mut t = Table::new(100);
        for ts in 0..50 {
            t.put("k", Some("v"), ts * 10);
        }
        t.put("gone", Some("v"), 10);
        t.put("gone", None, 20);
        assert!(t.history.len() > 40);
        t.put("other", Some("x"), 10_000);
        t.put("other", Some("y"), 20_000);
        // Only the versions a read at or after 19,900 can reach are left: none of "k"'s past
        // ones, none of "gone"'s; "other"'s first is valid until 20,000.
        assert_eq!(t.history.versions(b"k").count(), 0);
        assert_eq!(t.history.versions(b"gone").count(), 0);
        assert_eq!(t.history.versions(b"other").count(), 1);
        assert_eq!(t.get("k", 19_950), at("v", 490));
        assert_eq!(t.get("other", 19_950), at("x", 10_000));
    }
}
