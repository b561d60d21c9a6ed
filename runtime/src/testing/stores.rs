//! The typed views of a [`TestDriver`]'s state stores: key-value, window (time and sliding) and
//! session stores, read through the handles the `topology!` macro generates.

use super::TestDriver;
use crate::query::VersionedRecord;
use crate::serdes::Windowed;
use crate::store::split_window_key;
use crate::task::{SessionStoreRef, StoreRef, Topology, WindowStoreRef};
use crate::window::split_session_key;

/// A key-value store of a [`TestDriver`], read through its typed handle.
pub struct TestKeyValueStore<'d, T: Topology, K, V> {
    pub(super) driver: &'d TestDriver<T>,
    pub(super) store: StoreRef<K, V>,
}

impl<T: Topology, K, V> TestKeyValueStore<'_, T, K, V> {
    /// The value under `key`.
    pub fn get(&self, key: &K) -> Option<V> {
        let mut buf = Vec::new();
        if let Err(e) = (self.store.key_ser)(key, &mut buf) {
            panic!("the key does not serialize: {e}");
        }
        self.driver
            .store_get(self.store.name, &buf)
            .map(|v| self.value(&v))
    }

    /// All entries in key-byte order (over all partitions).
    pub fn all(&self) -> Vec<(K, V)> {
        let mut out = Vec::new();
        for (k, v) in self.driver.store_entries(self.store.name) {
            match (self.store.key_de)(Some(&k)) {
                Ok(k) => out.push((k, self.value(&v))),
                Err(e) => panic!(
                    "a key of store {} does not deserialize: {e}",
                    self.store.name
                ),
            }
        }
        out
    }

    /// The number of entries (over all partitions).
    pub fn len(&self) -> usize {
        self.driver.store_entries(self.store.name).len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn value(&self, bytes: &[u8]) -> V {
        match self.store.decode_value(bytes) {
            Ok(v) => v,
            Err(e) => panic!(
                "a value of store {} does not deserialize: {e}",
                self.store.name
            ),
        }
    }
}

impl<T: Topology, K, V> TestKeyValueStore<'_, T, K, V> {
    /// The version of `key` valid at `as_of` in a versioned table's store (`versioned(..)`):
    /// Kafka Streams' `VersionedKeyValueStore#get(key, asOfTimestamp)`. `None` when the key had
    /// no value then, or `as_of` is older than the history retention reaches.
    ///
    /// # Panics
    ///
    /// When the store is not versioned, or the key does not serialize.
    pub fn get_as_of(&self, key: &K, as_of: i64) -> Option<VersionedRecord<V>> {
        let mut buf = Vec::new();
        if let Err(e) = (self.store.key_ser)(key, &mut buf) {
            panic!("the key does not serialize: {e}");
        }
        let found = self.driver.versioned_get(self.store.name, &buf, as_of)?;
        let value = match (self.store.value_de)(Some(&found.value)) {
            Ok(v) => v,
            Err(e) => panic!(
                "a value of store {} does not deserialize: {e}",
                self.store.name
            ),
        };
        Some(VersionedRecord {
            value,
            timestamp: found.timestamp,
            valid_to: found.valid_to,
        })
    }
}

/// A window store of a [`TestDriver`], read through its typed handle.
pub struct TestWindowStore<'d, T: Topology, K, V> {
    pub(super) driver: &'d TestDriver<T>,
    pub(super) store: WindowStoreRef<K, V>,
}

impl<T: Topology, K, V> TestWindowStore<'_, T, K, V> {
    /// The value of `key` in the window starting at `start`.
    pub fn fetch(&self, key: &K, start: i64) -> Option<V> {
        let mut buf = Vec::new();
        if let Err(e) = (self.store.key_ser)(key, &mut buf) {
            panic!("the key does not serialize: {e}");
        }
        crate::store::window_key(&mut buf, start);
        self.driver
            .store_get(self.store.name, &buf)
            .map(|v| self.value(&v))
    }

    /// All windows in store order (key bytes, then window start; over all partitions).
    pub fn all(&self) -> Vec<(Windowed<K>, V)> {
        let mut out = Vec::new();
        for (k, v) in self.driver.store_entries(self.store.name) {
            let Some((key, start)) = split_window_key(&k) else {
                continue;
            };
            match (self.store.key_de)(Some(key)) {
                Ok(key) => out.push((
                    Windowed::new(key, start, start + self.store.size_ms),
                    self.value(&v),
                )),
                Err(e) => panic!(
                    "a key of store {} does not deserialize: {e}",
                    self.store.name
                ),
            }
        }
        out
    }

    fn value(&self, bytes: &[u8]) -> V {
        match self.store.decode_value(bytes) {
            Ok(v) => v,
            Err(e) => panic!(
                "a value of store {} does not deserialize: {e}",
                self.store.name
            ),
        }
    }
}

/// A session-window store of a [`TestDriver`], read through its typed handle: per key its
/// sessions `[start, end]` (both inclusive), as Kafka Streams' `SessionStore` holds them.
pub struct TestSessionStore<'d, T: Topology, K, V> {
    pub(super) driver: &'d TestDriver<T>,
    pub(super) store: SessionStoreRef<K, V>,
}

impl<T: Topology, K, V> TestSessionStore<'_, T, K, V> {
    /// The sessions of `key`, by end (Kafka Streams' `SessionStore.fetch(key)`).
    pub fn fetch(&self, key: &K) -> Vec<(Windowed<K>, V)> {
        let wanted = self.key_bytes(key);
        self.sessions(|k| k == wanted.as_slice())
    }

    /// The aggregate of `key`'s session `[start, end]`, if the store holds exactly that
    /// session (Kafka Streams' `SessionStore.fetchSession(key, start, end)`).
    pub fn fetch_session(&self, key: &K, start: i64, end: i64) -> Option<V> {
        let mut buf = self.key_bytes(key);
        crate::window::session_key(&mut buf, start, end);
        self.driver
            .store_get(self.store.name, &buf)
            .map(|v| self.value(&v))
    }

    /// Every session in store order (key bytes, then session end; over all partitions).
    pub fn all(&self) -> Vec<(Windowed<K>, V)> {
        self.sessions(|_| true)
    }

    /// The number of sessions (over all partitions).
    pub fn len(&self) -> usize {
        self.driver.store_entries(self.store.name).len()
    }

    /// Whether the store holds no session.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn key_bytes(&self, key: &K) -> Vec<u8> {
        let mut buf = Vec::new();
        if let Err(e) = (self.store.key_ser)(key, &mut buf) {
            panic!("the key does not serialize: {e}");
        }
        buf
    }

    /// The sessions whose key bytes pass `keep`.
    fn sessions(&self, keep: impl Fn(&[u8]) -> bool) -> Vec<(Windowed<K>, V)> {
        let mut out = Vec::new();
        for (k, v) in self.driver.store_entries(self.store.name) {
            let Some((key, start, end)) = split_session_key(&k) else {
                continue;
            };
            if !keep(key) {
                continue;
            }
            match (self.store.key_de)(Some(key)) {
                Ok(key) => out.push((Windowed::new(key, start, end), self.value(&v))),
                Err(e) => panic!(
                    "a key of store {} does not deserialize: {e}",
                    self.store.name
                ),
            }
        }
        out
    }

    fn value(&self, bytes: &[u8]) -> V {
        match (self.store.value_de)(Some(bytes)) {
            Ok(v) => v,
            Err(e) => panic!(
                "a value of store {} does not deserialize: {e}",
                self.store.name
            ),
        }
    }
}
