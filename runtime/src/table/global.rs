//! Global tables (`global_table("topic", K, V)`): a table replicated in full in every instance,
//! as Kafka Streams' `GlobalKTable`.
//!
//! Every partition of the table's topic is read into one [`GlobalStore`] per instance (read
//! committed), before any task processes a record, and then kept up to date by a dedicated
//! reader (the Kafka runtime's global thread, or the [`TestDriver`](crate::testing::TestDriver)
//! when a record is piped into the topic). Every task of the instance that joins the table holds
//! a handle to the same store and reads it by the key its key mapper returns, so a stream joins a
//! global table without co-partitioning or repartitioning.
//!
//! As Kafka Streams' `KTableSource` of a global table, a record with a null key is skipped and
//! counted ([`GlobalStore::null_keys_dropped`], and the `dekaf.streams.global.dropped` counter
//! of the Kafka runtime, as Kafka Streams' `dropped-records` sensor counts it), and a record with
//! a null value (a tombstone) deletes its key. The store keeps no changelog: the topic is its
//! changelog, read from the beginning at every start.
//!
//! Interactive queries read a global store as Kafka Streams' `store()` does for one: every
//! instance answers every key from its own copy (`Queries::store` with the store's handle).

use std::collections::HashMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::record_error::{RecordError, record};
use crate::serdes::Serde;
use crate::task::ErrorKind;

/// What a topology declares about one of its global tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalTableInfo {
    /// The topic the table is read from (every partition).
    pub topic: &'static str,
    /// The store's name, as Kafka Streams names it (`<topic>-STATE-STORE-0000000000` unless
    /// named).
    pub store: &'static str,
}

/// The store of one global table, shared by the reader that writes it and every task that reads
/// it. Cloning gives another handle to the same store.
#[derive(Debug, Clone, Default)]
pub struct GlobalStore {
    map: Arc<RwLock<HashMap<Vec<u8>, Vec<u8>>>>,
    /// Records of the topic skipped for their null key.
    null_keys: Arc<AtomicU64>,
}

impl GlobalStore {
    /// A new, empty store.
    pub fn new() -> Self {
        Self::default()
    }

    // A panic while the lock was held cannot leave the map half-updated (every update is one
    // map operation): a poisoned lock is used as it is.
    fn read(&self) -> RwLockReadGuard<'_, HashMap<Vec<u8>, Vec<u8>>> {
        self.map.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, HashMap<Vec<u8>, Vec<u8>>> {
        self.map.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Applies one record of the table's topic: a value replaces the key's value, a tombstone
    /// (`None`) deletes the key.
    pub fn apply(&self, key: &[u8], value: Option<&[u8]>) {
        let mut map = self.write();
        match value {
            Some(value) => match map.get_mut(key) {
                Some(old) => {
                    old.clear();
                    old.extend_from_slice(value);
                }
                None => {
                    map.insert(key.to_vec(), value.to_vec());
                }
            },
            None => {
                map.remove(key);
            }
        }
    }

    /// Applies one record of the table's topic as [`GlobalStore::apply`] does; a record without
    /// a key is skipped and counted (Kafka Streams' `KTableSource` drops it and records it in
    /// its `dropped-records` sensor). Says whether it was applied.
    pub fn apply_record(&self, key: Option<&[u8]>, value: Option<&[u8]>) -> bool {
        match key {
            Some(key) => {
                self.apply(key, value);
                true
            }
            None => {
                self.null_keys.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// How many records of the table's topic were skipped for their null key since the store
    /// was made.
    pub fn null_keys_dropped(&self) -> u64 {
        self.null_keys.load(Ordering::Relaxed)
    }

    /// The entries whose keys lie between the bounds, in key-byte order, copied (an interactive
    /// query's range over the store).
    pub fn range(&self, from: Bound<&[u8]>, to: Bound<&[u8]>) -> Vec<(Vec<u8>, Vec<u8>)> {
        let map = self.read();
        let mut out: Vec<(Vec<u8>, Vec<u8>)> = map
            .iter()
            .filter(|(k, _)| within(k, from, to))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Calls `f` with the value of `key` (`None`: absent), under the store's read lock.
    pub fn with<R>(&self, key: &[u8], f: impl FnOnce(Option<&[u8]>) -> R) -> R {
        let map = self.read();
        f(map.get(key).map(Vec::as_slice))
    }

    /// The value of `key`, copied.
    pub fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.with(key, |v| v.map(<[u8]>::to_vec))
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every key.
    pub fn clear(&self) {
        self.write().clear();
    }
}

/// Whether `key` lies between the bounds.
fn within(key: &[u8], from: Bound<&[u8]>, to: Bound<&[u8]>) -> bool {
    let after = match from {
        Bound::Included(f) => key >= f,
        Bound::Excluded(f) => key > f,
        Bound::Unbounded => true,
    };
    let before = match to {
        Bound::Included(t) => key <= t,
        Bound::Excluded(t) => key < t,
        Bound::Unbounded => true,
    };
    after && before
}

/// The global tables' stores of one instance (one Kafka Streams instance, or one test driver),
/// by store name.
#[derive(Debug, Clone, Default)]
pub struct GlobalStores {
    stores: Vec<(GlobalTableInfo, GlobalStore)>,
}

impl GlobalStores {
    /// An empty store for every global table in `tables`.
    pub fn new(tables: &[GlobalTableInfo]) -> Self {
        GlobalStores {
            stores: tables.iter().map(|t| (*t, GlobalStore::new())).collect(),
        }
    }

    /// The store named `name`, if there is one.
    pub fn store(&self, name: &str) -> Option<&GlobalStore> {
        self.stores
            .iter()
            .find(|(t, _)| t.store == name)
            .map(|(_, s)| s)
    }

    /// The store of the table read from `topic`, if there is one.
    pub fn for_topic(&self, topic: &str) -> Option<&GlobalStore> {
        self.stores
            .iter()
            .find(|(t, _)| t.topic == topic)
            .map(|(_, s)| s)
    }

    /// Applies a record of `topic` to the global table read from it; returns whether there is
    /// one. A record with a null key is skipped and counted (Kafka Streams' `KTableSource` drops
    /// it).
    pub fn apply(&self, topic: &str, key: Option<&[u8]>, value: Option<&[u8]>) -> bool {
        let Some(store) = self.for_topic(topic) else {
            return false;
        };
        store.apply_record(key, value);
        true
    }

    /// Every global table with its store.
    pub fn iter(&self) -> impl Iterator<Item = &(GlobalTableInfo, GlobalStore)> {
        self.stores.iter()
    }

    /// Whether there is no global table.
    pub fn is_empty(&self) -> bool {
        self.stores.is_empty()
    }
}

/// The value of `key` in a global table's store, deserialized with the table's value serde. A
/// value that does not deserialize is an error of the record that looked it up (as in a task's
/// own stores).
#[inline(always)]
pub fn global_get<VS: Serde>(
    store: &GlobalStore,
    key: &[u8],
    node: &'static str,
) -> Result<Option<VS::Value>, RecordError> {
    store.with(key, |bytes| match bytes {
        Some(bytes) => VS::deserialize(Some(bytes))
            .map(Some)
            .map_err(|e| record(ErrorKind::Serialization, node, e)),
        None => Ok(None),
    })
}

/// Fixes the type of a global join's key mapper: `|key, value| global_key`.
#[inline(always)]
pub fn global_key<K, V, GK, F: FnOnce(&K, &V) -> GK>(key: &K, value: &V, f: F) -> GK {
    f(key, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tombstone_deletes_and_a_value_replaces() {
        let stores = GlobalStores::new(&[GlobalTableInfo {
            topic: "customers",
            store: "customers-STATE-STORE-0000000000",
        }]);
        let store = stores.for_topic("customers").expect("declared");
        store.apply(b"c1", Some(b"alice"));
        store.apply(b"c1", Some(b"alicia"));
        store.apply(b"c2", Some(b"bob"));
        assert_eq!(store.get(b"c1").as_deref(), Some(&b"alicia"[..]));
        store.apply(b"c2", None);
        assert_eq!(store.get(b"c2"), None);
        assert_eq!(store.len(), 1);
        // Another handle sees the same store.
        let other = stores
            .store("customers-STATE-STORE-0000000000")
            .expect("named")
            .clone();
        store.apply(b"c3", Some(b"carol"));
        assert_eq!(other.get(b"c3").as_deref(), Some(&b"carol"[..]));
    }

    #[test]
    fn null_keys_are_skipped_and_counted() {
        let stores = GlobalStores::new(&[GlobalTableInfo {
            topic: "customers",
            store: "customers-store",
        }]);
        assert!(stores.apply("customers", None, Some(b"nobody")));
        assert!(stores.apply("customers", Some(b"c1"), Some(b"alice")));
        assert!(stores.apply("customers", None, None));
        let store = stores.store("customers-store").expect("declared");
        assert_eq!(store.null_keys_dropped(), 2);
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn a_range_is_ordered_by_key_bytes() {
        let store = GlobalStore::new();
        for k in [&b"c"[..], b"a", b"b", b"d"] {
            store.apply(k, Some(k));
        }
        let keys = |r: Vec<(Vec<u8>, Vec<u8>)>| r.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(
            keys(store.range(Bound::Included(b"b"), Bound::Excluded(b"d"))),
            [b"b".to_vec(), b"c".to_vec()]
        );
        assert_eq!(
            keys(store.range(Bound::Unbounded, Bound::Unbounded)).len(),
            4
        );
    }
}
