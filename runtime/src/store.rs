//! State stores: a byte-ordered backend abstraction, the in-memory backend, and the typed view
//! that `process(...)` closures use.
//!
//! # Layout
//!
//! Every store keeps **serialized** keys and values, ordered by the key bytes, as Kafka Streams
//! does. That makes range scans return the same order on every backend (memory now, LMDB
//! later), lets restore apply changelog records without deserializing them, and lets a task
//! write the changelog record from the very bytes it stored.
//!
//! - Key-value stores: key = the serialized key.
//! - Window stores: key = the serialized key followed by the window start as 8 bytes
//!   big-endian, so all windows of one key are one ordered scan
//!   ([`window_key`]).
//!
//! # Why bytes and not typed maps in memory
//!
//! A typed `HashMap<K, V>` would save the key serialization on a lookup, but every store write
//! must be serialized anyway for the changelog, so the key bytes exist already; a range over
//! typed keys would have to be re-sorted by their bytes to agree with Kafka Streams and LMDB;
//! and restore would have to deserialize every changelog record. So stores keep bytes.
//!
//! Which map holds the bytes was measured (`cargo bench -p dekaf-streams-benches --bench
//! word_count`, group `store`: one count update — get, add one, put — on 500 warm keys, on a
//! busy 2-core machine): a bytes `BTreeMap<Vec<u8>, Vec<u8>>` took about 230–430 ns per
//! update (two ordered lookups, each a chain of `memcmp` calls), a typed `BTreeMap<String,
//! i64>` 130–240 ns, the [`MemoryBackend`] below (bytes in a `HashMap` plus an ordered key
//! index) 80–90 ns with get + put and one lookup with [`StoreBackend::update`], and a typed
//! `HashMap<String, i64>` 30–60 ns. The memory backend is therefore a hash map for point
//! operations (what aggregations, joins and most processors do per record) plus a `BTreeSet`
//! of the same keys (shared `Arc<[u8]>`, so a key is stored once) for ordered range scans. An
//! update of an existing key reuses the stored value's buffer, so a steady-state update
//! allocates nothing.
//!
//! # Backends
//!
//! A backend is chosen per application through a [`BackendFactory`]: [`MemoryStores`] opens
//! [`MemoryBackend`]s. The generated tasks are generic over the backend, so there is no
//! dispatch on the hot path.

use std::collections::{BTreeSet, HashMap};
use std::marker::PhantomData;
use std::ops::Bound;
use std::sync::Arc;

use crate::serdes::{Encoded, Serde, SerdeError};
use crate::task::{OutgoingRecord, Partitioning, RecordSink, SinkError, TopicKind};
use crate::topology::StoreInfo;

/// A failure of a store operation.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A key or value could not be (de)serialized.
    #[error("store serde: {0}")]
    Serde(#[from] SerdeError),
    /// The changelog record could not be sent.
    #[error("changelog: {0}")]
    Sink(#[from] SinkError),
    /// The backend failed (for example a disk error).
    #[error("store backend: {0}")]
    Backend(String),
}

/// One entry of a range scan: key bytes and value bytes.
pub type Entry<'a> = Result<(&'a [u8], &'a [u8]), StoreError>;

/// The bytes-level storage under one state store of one task.
///
/// Keys are ordered by their bytes (lexicographically, as `[u8]` compares). Implementations:
/// [`MemoryBackend`]; an LMDB backend follows the same contract.
pub trait StoreBackend {
    /// The iterator of [`StoreBackend::range`].
    type Range<'a>: Iterator<Item = Entry<'a>>
    where
        Self: 'a;

    /// The value stored under `key`.
    fn get(&self, key: &[u8]) -> Result<Option<&[u8]>, StoreError>;
    /// Stores `value` under `key`, replacing what was there.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError>;
    /// Removes `key`; says whether it was there.
    fn delete(&mut self, key: &[u8]) -> Result<bool, StoreError>;
    /// The entries whose keys lie between the bounds, in key-byte order. A range whose start
    /// lies after its end is empty.
    fn range<'a>(
        &'a self,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
    ) -> Result<Self::Range<'a>, StoreError>;
    /// Replaces the value under `key` by what `update` writes into `buf` given the current
    /// value; `update` returns whether it wrote a value (`false` deletes the key). The memory
    /// backend does this with one lookup; the default is `get` then `put` or `delete`. The
    /// outer error is the backend's, the inner one `update`'s.
    fn update<E>(
        &mut self,
        key: &[u8],
        buf: &mut Vec<u8>,
        update: impl FnOnce(Option<&[u8]>, &mut Vec<u8>) -> Result<bool, E>,
    ) -> Result<Result<(), E>, StoreError> {
        let present = match update(self.get(key)?, buf) {
            Ok(present) => present,
            Err(e) => return Ok(Err(e)),
        };
        if present {
            self.put(key, buf)?;
        } else {
            self.delete(key)?;
        }
        Ok(Ok(()))
    }
    /// Removes every entry (a task dropping uncommitted state before it restores).
    fn clear(&mut self) -> Result<(), StoreError>;
    /// The number of entries.
    fn len(&self) -> usize;
    /// Whether the store is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Opens the backend of one store of one task.
pub trait BackendFactory {
    /// The backend it opens.
    type Backend: StoreBackend;
    /// Opens (or creates) the backend of `store` for the task of `subtopology` on `partition`.
    fn open(
        &mut self,
        application_id: &str,
        subtopology: &str,
        partition: i32,
        store: &StoreInfo,
    ) -> Result<Self::Backend, StoreError>;
}

/// An in-memory map of bytes to bytes: a hash map for point operations and an ordered index
/// of the keys for range scans.
///
/// Point reads and writes (every aggregation update, join lookup and most processor calls) cost
/// one hash lookup; a range scan walks the ordered key index. An update of an existing key
/// reuses the stored value's buffer, so it allocates only when the value grows; a new key
/// allocates its key (shared by both indexes) and its value.
#[derive(Debug, Default, Clone)]
pub struct MemoryBackend {
    map: HashMap<Arc<[u8]>, Vec<u8>>,
    order: BTreeSet<Arc<[u8]>>,
}

impl MemoryBackend {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The iterator of [`MemoryBackend::range`].
#[derive(Debug)]
pub struct MemoryRange<'a> {
    keys: Option<std::collections::btree_set::Range<'a, Arc<[u8]>>>,
    map: &'a HashMap<Arc<[u8]>, Vec<u8>>,
}

impl<'a> Iterator for MemoryRange<'a> {
    type Item = Entry<'a>;
    #[inline]
    fn next(&mut self) -> Option<Entry<'a>> {
        loop {
            let key = self.keys.as_mut()?.next()?;
            // Both indexes hold the same keys; a miss cannot happen, but is skipped, not a panic.
            if let Some(value) = self.map.get(key) {
                return Some(Ok((&key[..], value.as_slice())));
            }
        }
    }
}

fn bound_value<'a>(bound: &Bound<&'a [u8]>) -> Option<&'a [u8]> {
    match bound {
        Bound::Included(b) | Bound::Excluded(b) => Some(b),
        Bound::Unbounded => None,
    }
}

/// Whether a range with these bounds is empty by construction (`BTreeSet::range` panics on
/// such bounds; we answer with an empty range instead).
fn inverted(from: &Bound<&[u8]>, to: &Bound<&[u8]>) -> bool {
    match (bound_value(from), bound_value(to)) {
        (Some(f), Some(t)) => {
            f > t
                || (f == t
                    && !(matches!(from, Bound::Included(_)) && matches!(to, Bound::Included(_))))
        }
        _ => false,
    }
}

impl StoreBackend for MemoryBackend {
    type Range<'a> = MemoryRange<'a>;

    #[inline]
    fn get(&self, key: &[u8]) -> Result<Option<&[u8]>, StoreError> {
        Ok(self.map.get(key).map(Vec::as_slice))
    }

    #[inline]
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        match self.map.get_mut(key) {
            Some(stored) => {
                stored.clear();
                stored.extend_from_slice(value);
            }
            None => {
                let key: Arc<[u8]> = Arc::from(key);
                self.order.insert(Arc::clone(&key));
                self.map.insert(key, value.to_vec());
            }
        }
        Ok(())
    }

    #[inline]
    fn update<E>(
        &mut self,
        key: &[u8],
        buf: &mut Vec<u8>,
        update: impl FnOnce(Option<&[u8]>, &mut Vec<u8>) -> Result<bool, E>,
    ) -> Result<Result<(), E>, StoreError> {
        let present = match self.map.get_mut(key) {
            Some(stored) => {
                let present = match update(Some(stored.as_slice()), buf) {
                    Ok(present) => present,
                    Err(e) => return Ok(Err(e)),
                };
                if present {
                    stored.clear();
                    stored.extend_from_slice(buf);
                    return Ok(Ok(()));
                }
                false
            }
            None => match update(None, buf) {
                Ok(present) => present,
                Err(e) => return Ok(Err(e)),
            },
        };
        if present {
            self.put(key, buf)?;
        } else {
            self.delete(key)?;
        }
        Ok(Ok(()))
    }

    #[inline]
    fn delete(&mut self, key: &[u8]) -> Result<bool, StoreError> {
        if self.map.remove(key).is_some() {
            self.order.remove(key);
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn range<'a>(
        &'a self,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
    ) -> Result<MemoryRange<'a>, StoreError> {
        if inverted(&from, &to) {
            return Ok(MemoryRange {
                keys: None,
                map: &self.map,
            });
        }
        Ok(MemoryRange {
            keys: Some(self.order.range::<[u8], _>((from, to))),
            map: &self.map,
        })
    }

    fn clear(&mut self) -> Result<(), StoreError> {
        self.map.clear();
        self.order.clear();
        Ok(())
    }

    fn len(&self) -> usize {
        self.map.len()
    }
}

/// Opens a [`MemoryBackend`] for every store: state lives in memory and is rebuilt from the
/// changelog whenever a task starts.
#[derive(Debug, Default, Clone, Copy)]
pub struct MemoryStores;

impl BackendFactory for MemoryStores {
    type Backend = MemoryBackend;
    fn open(
        &mut self,
        _: &str,
        _: &str,
        _: i32,
        _: &StoreInfo,
    ) -> Result<MemoryBackend, StoreError> {
        Ok(MemoryBackend::new())
    }
}

/// Appends the window-store key of (`key bytes`, `window start`) to `out`: the key bytes, then
/// the start as 8 bytes big-endian (so the windows of one key sort by start).
#[inline]
pub fn window_key(out: &mut Vec<u8>, start: i64) {
    out.extend_from_slice(&start.to_be_bytes());
}

/// Splits a window-store key into the key bytes and the window start.
pub fn split_window_key(bytes: &[u8]) -> Option<(&[u8], i64)> {
    let split = bytes.len().checked_sub(8)?;
    let (key, start) = bytes.split_at(split);
    let mut array = [0u8; 8];
    array.copy_from_slice(start);
    Some((key, i64::from_be_bytes(array)))
}

/// Serializes with `S` into `out` (cleared first); `None` for a null encoding.
#[inline]
pub(crate) fn encode<S: Serde>(value: &S::Value, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
    out.clear();
    S::serialize(value, out)
}

/// Decoded entries of a store with serdes `KS` and `VS`.
pub type Pairs<KS, VS> = Vec<(<KS as Serde>::Value, <VS as Serde>::Value)>;

/// The typed view of a key-value store inside a `process(...)` closure: every write goes to
/// the backend and, as one changelog record, to the task's changelog partition.
///
/// `KS` and `VS` are the serdes the store was declared with
/// (`store("seen", Utf8, I64)`): keys are `KS::Value`, values `VS::Value`.
pub struct KeyValueStore<'a, KS: Serde, VS: Serde, B: StoreBackend, S: RecordSink> {
    backend: &'a mut B,
    changelog: &'static str,
    partition: i32,
    timestamp: i64,
    key_buf: &'a mut Vec<u8>,
    value_buf: &'a mut Vec<u8>,
    sink: &'a mut S,
    serdes: PhantomData<fn() -> (KS, VS)>,
}

impl<'a, KS: Serde, VS: Serde, B: StoreBackend, S: RecordSink> KeyValueStore<'a, KS, VS, B, S> {
    /// A view of `backend` writing its changelog to `changelog` partition `partition` (used by
    /// generated code).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        backend: &'a mut B,
        changelog: &'static str,
        partition: i32,
        timestamp: i64,
        key_buf: &'a mut Vec<u8>,
        value_buf: &'a mut Vec<u8>,
        sink: &'a mut S,
    ) -> Self {
        KeyValueStore {
            backend,
            changelog,
            partition,
            timestamp,
            key_buf,
            value_buf,
            sink,
            serdes: PhantomData,
        }
    }

    /// The value stored under `key`.
    pub fn get(&mut self, key: &KS::Value) -> Result<Option<VS::Value>, StoreError> {
        encode::<KS>(key, self.key_buf)?;
        match self.backend.get(self.key_buf)? {
            Some(bytes) => Ok(Some(VS::deserialize(Some(bytes))?)),
            None => Ok(None),
        }
    }

    /// Stores `value` under `key` and writes the changelog record.
    pub fn put(&mut self, key: &KS::Value, value: &VS::Value) -> Result<(), StoreError> {
        encode::<KS>(key, self.key_buf)?;
        if encode::<VS>(value, self.value_buf)? == Encoded::Null {
            return self.delete_encoded();
        }
        self.backend.put(self.key_buf, self.value_buf)?;
        self.sink.send(OutgoingRecord {
            topic: self.changelog,
            kind: TopicKind::Changelog,
            partitioning: Partitioning::Exact(self.partition),
            key: Some(self.key_buf),
            value: Some(self.value_buf),
            timestamp: self.timestamp,
            headers: crate::task::Headers::empty(),
        })?;
        Ok(())
    }

    /// Removes `key` and writes a tombstone to the changelog if it was there.
    pub fn delete(&mut self, key: &KS::Value) -> Result<(), StoreError> {
        encode::<KS>(key, self.key_buf)?;
        self.delete_encoded()
    }

    fn delete_encoded(&mut self) -> Result<(), StoreError> {
        if self.backend.delete(self.key_buf)? {
            self.sink.send(OutgoingRecord {
                topic: self.changelog,
                kind: TopicKind::Changelog,
                partitioning: Partitioning::Exact(self.partition),
                key: Some(self.key_buf),
                value: None,
                timestamp: self.timestamp,
                headers: crate::task::Headers::empty(),
            })?;
        }
        Ok(())
    }

    /// The entries whose keys lie between the bounds, ordered by serialized key bytes (as Kafka
    /// Streams orders them: for `I64` keys that is numeric order of non-negative numbers, for
    /// `Utf8` keys byte order). Collects into a `Vec`.
    pub fn range(
        &mut self,
        from: Bound<&KS::Value>,
        to: Bound<&KS::Value>,
    ) -> Result<Pairs<KS, VS>, StoreError> {
        let from = encode_bound::<KS>(from, self.key_buf)?;
        let to = encode_bound::<KS>(to, self.value_buf)?;
        let from = as_slice_bound(&from, self.key_buf);
        let to = as_slice_bound(&to, self.value_buf);
        let mut out = Vec::new();
        for entry in self.backend.range(from, to)? {
            let (k, v) = entry?;
            out.push((KS::deserialize(Some(k))?, VS::deserialize(Some(v))?));
        }
        Ok(out)
    }

    /// Every entry, ordered by serialized key bytes.
    pub fn all(&mut self) -> Result<Pairs<KS, VS>, StoreError> {
        self.range(Bound::Unbounded, Bound::Unbounded)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.backend.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.backend.is_empty()
    }
}

fn encode_bound<S: Serde>(
    bound: Bound<&S::Value>,
    buf: &mut Vec<u8>,
) -> Result<Bound<()>, SerdeError> {
    Ok(match bound {
        Bound::Included(v) => {
            encode::<S>(v, buf)?;
            Bound::Included(())
        }
        Bound::Excluded(v) => {
            encode::<S>(v, buf)?;
            Bound::Excluded(())
        }
        Bound::Unbounded => Bound::Unbounded,
    })
}

fn as_slice_bound<'b>(bound: &Bound<()>, buf: &'b [u8]) -> Bound<&'b [u8]> {
    match bound {
        Bound::Included(()) => Bound::Included(buf),
        Bound::Excluded(()) => Bound::Excluded(buf),
        Bound::Unbounded => Bound::Unbounded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_range_is_byte_ordered_and_never_panics() {
        let mut store = MemoryBackend::new();
        for k in [&b"b"[..], b"a", b"ab", b"c"] {
            store.put(k, b"v").expect("put");
        }
        let keys: Vec<Vec<u8>> = store
            .range(Bound::Included(b"a"), Bound::Excluded(b"c"))
            .expect("range")
            .map(|e| e.expect("entry").0.to_vec())
            .collect();
        assert_eq!(keys, [b"a".to_vec(), b"ab".to_vec(), b"b".to_vec()]);
        assert_eq!(
            store
                .range(Bound::Included(b"c"), Bound::Included(b"a"))
                .expect("range")
                .count(),
            0
        );
        assert_eq!(
            store
                .range(Bound::Excluded(b"a"), Bound::Excluded(b"a"))
                .expect("range")
                .count(),
            0
        );
        store.put(b"a", b"longer value").expect("put");
        let updated: Result<(), ()> = store
            .update(b"a", &mut Vec::new(), |old, buf| {
                buf.extend_from_slice(old.unwrap_or_default());
                buf.extend_from_slice(b"!");
                Ok(true)
            })
            .expect("update");
        assert!(updated.is_ok());
        assert_eq!(store.get(b"a").expect("get"), Some(&b"longer value!"[..]));
        store.put(b"a", b"longer value").expect("put");
        let _: Result<(), ()> = store
            .update(b"z", &mut Vec::new(), |_, _| Ok(false))
            .expect("update");
        assert_eq!(store.get(b"z").expect("get"), None);
        assert_eq!(store.get(b"a").expect("get"), Some(&b"longer value"[..]));
        assert!(store.delete(b"a").expect("delete"));
        store.clear().expect("clear");
        assert!(store.is_empty());
    }

    #[test]
    fn window_keys_sort_by_key_then_start() {
        let mut a = b"k".to_vec();
        window_key(&mut a, 1_000);
        let mut b = b"k".to_vec();
        window_key(&mut b, 60_000);
        assert!(a < b);
        assert_eq!(split_window_key(&b), Some((&b"k"[..], 60_000)));
    }
}
