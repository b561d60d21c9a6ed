//! Reads of a versioned table's history (`versioned(..)`): Kafka Streams' `VersionedKeyQuery`
//! and `MultiVersionedKeyQuery` (KIP-960, KIP-968), on this instance.

use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;

use super::VersionedRecord;
use super::error::QueryError;
use super::registry::{Hosted, Registry, VersionedSnapshot, versioned_key, versioned_time};
use super::view::{key_bytes, partition_of};
use crate::task::StoreRef;

/// A read-only view of a versioned table's store on this instance, made by
/// [`Queries::versioned_store`](super::Queries::versioned_store): a key's latest value, its
/// value as of a time, and its versions over a time range.
///
/// As every view, it reads the state of the key's task **as of that task's last commit**, and
/// refuses a key hosted elsewhere ([`QueryError::NotLocal`]) or restoring here
/// ([`QueryError::Restoring`]). How far back a read reaches follows the table: a version is
/// readable while it was valid at or after the table's largest timestamp minus its history
/// retention; the latest value always is.
pub struct ReadOnlyVersionedKeyValueStore<K, V> {
    pub(crate) registry: Arc<Registry>,
    pub(crate) handle: StoreRef<K, V>,
}

impl<K, V> Clone for ReadOnlyVersionedKeyValueStore<K, V> {
    fn clone(&self) -> Self {
        ReadOnlyVersionedKeyValueStore {
            registry: Arc::clone(&self.registry),
            handle: self.handle,
        }
    }
}

impl<K, V> std::fmt::Debug for ReadOnlyVersionedKeyValueStore<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReadOnlyVersionedKeyValueStore({})", self.handle.name)
    }
}

/// One version of a key in a snapshot: its timestamp and value bytes (`None`: a tombstone).
type Found = (i64, Option<Bytes>);

impl<K, V> ReadOnlyVersionedKeyValueStore<K, V> {
    /// The store's name.
    pub fn name(&self) -> &'static str {
        self.handle.name
    }

    /// The key's latest value (`VersionedKeyQuery.withKey(key)`); `None` when the key is absent
    /// or deleted.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotLocal`], [`QueryError::Restoring`], [`QueryError::NotRunning`] as for
    /// every view; [`QueryError::UnknownStore`] when the store is not a versioned table's;
    /// [`QueryError::Serde`] when the key or the value does not convert.
    pub fn get(&self, key: &K) -> Result<Option<VersionedRecord<V>>, QueryError> {
        self.get_as_of(key, i64::MAX)
    }

    /// The key's version valid at `as_of` (`VersionedKeyQuery.withKey(key).asOf(..)`,
    /// milliseconds since the epoch): the latest value if it is not newer, else the past value
    /// valid then, with when it stopped being valid. `None` when the key had no value then,
    /// or the time lies before what the history reaches.
    ///
    /// # Errors
    ///
    /// As [`Self::get`].
    pub fn get_as_of(&self, key: &K, as_of: i64) -> Result<Option<VersionedRecord<V>>, QueryError> {
        let (bytes, snapshot) = self.snapshot(key)?;
        let versions = versions_of(&snapshot, &bytes);
        let Some(i) = versions.iter().rposition(|(ts, _)| *ts <= as_of) else {
            return Ok(None);
        };
        let latest = i + 1 == versions.len();
        if !latest && as_of < horizon(&snapshot) {
            return Ok(None);
        }
        let valid_to = versions.get(i + 1).map(|(ts, _)| *ts);
        self.record(&versions[i], valid_to)
    }

    /// The key's versions valid at some time in `from..=to` (`MultiVersionedKeyQuery` with
    /// `fromTime`/`toTime`), oldest first; deletes are no versions. A past version whose
    /// validity ended before what the history reaches is left out.
    ///
    /// # Errors
    ///
    /// As [`Self::get`].
    pub fn versions(
        &self,
        key: &K,
        from: i64,
        to: i64,
    ) -> Result<Vec<VersionedRecord<V>>, QueryError> {
        let (bytes, snapshot) = self.snapshot(key)?;
        let horizon = horizon(&snapshot);
        let versions = versions_of(&snapshot, &bytes);
        let mut out = Vec::new();
        for (i, version) in versions.iter().enumerate() {
            let valid_to = versions.get(i + 1).map(|(ts, _)| *ts);
            let overlaps = version.0 <= to && valid_to.is_none_or(|end| end > from);
            let reachable = valid_to.is_none_or(|end| end > horizon);
            if overlaps
                && reachable
                && let Some(record) = self.record(version, valid_to)?
            {
                out.push(record);
            }
        }
        Ok(out)
    }

    fn record(
        &self,
        (timestamp, value): &Found,
        valid_to: Option<i64>,
    ) -> Result<Option<VersionedRecord<V>>, QueryError> {
        let Some(value) = value else { return Ok(None) };
        Ok(Some(VersionedRecord {
            value: (self.handle.value_de)(Some(value))?,
            timestamp: *timestamp,
            valid_to,
        }))
    }

    /// The key's bytes and the versioned snapshot of its partition.
    fn snapshot(&self, key: &K) -> Result<(Vec<u8>, VersionedSnapshot), QueryError> {
        let name = self.handle.name;
        let bytes = key_bytes(self.handle.key_ser, key)?;
        let unknown = || QueryError::UnknownStore {
            store: name.to_owned(),
            kind: "versioned key-value",
        };
        let (sub, _) = self.registry.store(name).ok_or_else(unknown)?;
        let partitions =
            self.registry
                .partitions(sub.id)
                .ok_or_else(|| QueryError::NotRunning {
                    store: name.to_owned(),
                })?;
        let partition = partition_of(&bytes, partitions);
        match self.registry.hosted(name, partition) {
            Some(Hosted::Ready(_)) => self
                .registry
                .versioned(name, partition)
                .map(|snapshot| (bytes, snapshot))
                .ok_or_else(unknown),
            Some(Hosted::Restoring) => Err(QueryError::Restoring {
                store: name.to_owned(),
                partition,
            }),
            None => Err(QueryError::NotLocal {
                store: name.to_owned(),
                partition,
                stale: false,
            }),
        }
    }
}

/// The oldest time a past version can be read at.
fn horizon(snapshot: &VersionedSnapshot) -> i64 {
    snapshot.observed.saturating_sub(snapshot.retention)
}

/// The versions of `key` in `snapshot`, oldest first.
fn versions_of(snapshot: &VersionedSnapshot, key: &[u8]) -> Vec<Found> {
    let (mut lo, mut hi) = (Vec::new(), Vec::new());
    versioned_key(&mut lo, key, i64::MIN);
    versioned_key(&mut hi, key, i64::MAX);
    snapshot
        .versions
        .range::<_, [u8]>((Bound::Included(&lo[..]), Bound::Included(&hi[..])))
        .filter(|(k, _)| k.starts_with(key))
        .filter_map(|(k, v)| {
            let ts = versioned_time(k, key.len())?;
            let value = match v.split_first() {
                Some((1, rest)) => Some(v.slice_ref(rest)),
                _ => None,
            };
            Some((ts, value))
        })
        .collect()
}
