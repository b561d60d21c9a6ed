//! The in-memory backend: state lives in the process and is rebuilt from the changelog
//! whenever a task starts.

use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::Arc;

use super::key_order::{IndexKey, KeyBytes};
use super::{BackendFactory, Entry, StoreBackend, StoreError, inverted};
use crate::fast_hash::FastHashMap;
use crate::topology::{StoreInfo, StoreKind};

/// An in-memory map of bytes to bytes, in one of two layouts chosen when it is made:
///
/// - **indexed** ([`MemoryBackend::new`], every store but a join's window stores): a hash map
///   for point operations and an ordered index of the keys for range scans. Point reads and
///   writes (every aggregation update, join lookup and most processor calls) cost one hash
///   lookup (foldhash, randomly seeded: see `fast_hash`); a range scan walks the ordered key
///   index. An update of an existing key reuses the stored value's buffer, so it allocates only
///   when the value grows; a new key allocates its key (shared by both indexes) and its value.
/// - **ordered** ([`MemoryBackend::ordered`], a stream-stream join's window stores): one
///   ordered set whose every entry is key and value in one allocation. Those stores only ever
///   add entries with keys of their own (timestamp and sequence number), scan ranges and drop
///   whole segments; no point lookup needs the hash map, so the layout keeps a stored record in
///   one allocation of its key and value bytes plus its slot in the B-tree, where the indexed
///   layout spends two allocations (shared key, value), a hash slot and an index slot (the
///   `stream_join_allocations` test: 1.10 allocations per joined record, was 2). A point read
///   or update costs an ordered lookup here, and a put of an existing key allocates its new
///   entry.
#[derive(Debug, Clone)]
pub struct MemoryBackend {
    layout: Layout,
}

#[derive(Debug, Clone)]
enum Layout {
    Indexed {
        map: FastHashMap<Arc<[u8]>, Vec<u8>>,
        order: BTreeSet<IndexKey>,
    },
    Ordered(BTreeSet<Packed>),
}

impl Default for MemoryBackend {
    fn default() -> Self {
        MemoryBackend {
            layout: Layout::Indexed {
                map: FastHashMap::default(),
                order: BTreeSet::new(),
            },
        }
    }
}

impl MemoryBackend {
    /// An empty store with the indexed layout (hash map plus ordered key index).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store with the ordered layout: one allocation per entry, ordered lookups (for
    /// stores that add entries and scan ranges, as a join's window stores do).
    pub fn ordered() -> Self {
        MemoryBackend {
            layout: Layout::Ordered(BTreeSet::new()),
        }
    }
}

/// One entry of the ordered layout: `key length (u32 LE) ‖ key ‖ value` in one allocation,
/// ordered (and borrowed as) its key bytes.
#[derive(Clone)]
struct Packed(Box<[u8]>);

const LEN: usize = 4;

impl Packed {
    /// The entry of `key` and `value`; `None` when the key is longer than `u32::MAX` bytes.
    fn new(key: &[u8], value: &[u8]) -> Option<Packed> {
        let len = u32::try_from(key.len()).ok()?;
        let mut bytes = Vec::with_capacity(LEN + key.len() + value.len());
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(value);
        Some(Packed(bytes.into_boxed_slice()))
    }

    fn key_len(&self) -> usize {
        let mut len = [0u8; LEN];
        len.copy_from_slice(&self.0[..LEN]);
        u32::from_le_bytes(len) as usize
    }

    #[inline]
    fn key(&self) -> &[u8] {
        &self.0[LEN..LEN + self.key_len()]
    }

    #[inline]
    fn value(&self) -> &[u8] {
        &self.0[LEN + self.key_len()..]
    }
}

impl std::fmt::Debug for Packed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Packed")
            .field(&self.key())
            .field(&self.value())
            .finish()
    }
}

// Equality and order are the key bytes', as `Borrow<[u8]>` requires.
impl PartialEq for Packed {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Packed {}
impl PartialOrd for Packed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Packed {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(other.key())
    }
}
impl Borrow<[u8]> for Packed {
    fn borrow(&self) -> &[u8] {
        self.key()
    }
}

/// The iterator of [`MemoryBackend::range`].
#[derive(Debug)]
pub struct MemoryRange<'a> {
    inner: RangeInner<'a>,
}

#[derive(Debug)]
enum RangeInner<'a> {
    Empty,
    Indexed {
        keys: std::collections::btree_set::Range<'a, IndexKey>,
        map: &'a FastHashMap<Arc<[u8]>, Vec<u8>>,
    },
    Ordered(std::collections::btree_set::Range<'a, Packed>),
}

impl<'a> Iterator for MemoryRange<'a> {
    type Item = Entry<'a>;
    #[inline]
    fn next(&mut self) -> Option<Entry<'a>> {
        match &mut self.inner {
            RangeInner::Empty => None,
            RangeInner::Ordered(entries) => entries.next().map(|p| Ok((p.key(), p.value()))),
            RangeInner::Indexed { keys, map } => loop {
                let key = &keys.next()?.0;
                // Both indexes hold the same keys; a miss cannot happen, but is skipped, not a
                // panic.
                if let Some(value) = map.get(key) {
                    return Some(Ok((&key[..], value.as_slice())));
                }
            },
        }
    }
}

/// Replaces the stored value `dst` with `src`, reusing `dst`'s buffer. An 8-byte value over an
/// 8-byte value (a count or a sum: `I64`, `F64`, the most frequent update of an aggregation) is
/// one move of eight bytes instead of a call to `memcpy`.
#[inline(always)]
fn overwrite(dst: &mut Vec<u8>, src: &[u8]) {
    match (
        <&mut [u8; 8]>::try_from(dst.as_mut_slice()),
        <&[u8; 8]>::try_from(src),
    ) {
        (Ok(dst), Ok(src)) => *dst = *src,
        _ => {
            dst.clear();
            dst.extend_from_slice(src);
        }
    }
}

fn key_too_long(len: usize) -> StoreError {
    StoreError::KeyTooLong {
        len,
        max: u32::MAX as usize,
    }
}

impl StoreBackend for MemoryBackend {
    type Range<'a> = MemoryRange<'a>;

    #[inline]
    fn get(&self, key: &[u8]) -> Result<Option<&[u8]>, StoreError> {
        Ok(match &self.layout {
            Layout::Indexed { map, .. } => map.get(key).map(Vec::as_slice),
            Layout::Ordered(set) => set.get(key).map(Packed::value),
        })
    }

    #[inline]
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        match &mut self.layout {
            Layout::Indexed { map, order } => match map.get_mut(key) {
                Some(stored) => overwrite(stored, value),
                None => {
                    let key: Arc<[u8]> = Arc::from(key);
                    order.insert(IndexKey(Arc::clone(&key)));
                    map.insert(key, value.to_vec());
                }
            },
            Layout::Ordered(set) => {
                let entry = Packed::new(key, value).ok_or_else(|| key_too_long(key.len()))?;
                set.replace(entry);
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
        let present = match &mut self.layout {
            Layout::Indexed { map, .. } => match map.get_mut(key) {
                Some(stored) => {
                    let present = match update(Some(stored.as_slice()), buf) {
                        Ok(present) => present,
                        Err(e) => return Ok(Err(e)),
                    };
                    if present {
                        overwrite(stored, buf);
                        return Ok(Ok(()));
                    }
                    false
                }
                None => match update(None, buf) {
                    Ok(present) => present,
                    Err(e) => return Ok(Err(e)),
                },
            },
            Layout::Ordered(set) => match update(set.get(key).map(Packed::value), buf) {
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
        Ok(match &mut self.layout {
            Layout::Indexed { map, order } => {
                if map.remove(key).is_some() {
                    order.remove(KeyBytes::new(key));
                    true
                } else {
                    false
                }
            }
            Layout::Ordered(set) => set.remove(key),
        })
    }

    fn range<'a>(
        &'a self,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
    ) -> Result<MemoryRange<'a>, StoreError> {
        if inverted(&from, &to) {
            return Ok(MemoryRange {
                inner: RangeInner::Empty,
            });
        }
        let inner = match &self.layout {
            Layout::Indexed { map, order } => RangeInner::Indexed {
                keys: order.range::<KeyBytes, _>((from.map(KeyBytes::new), to.map(KeyBytes::new))),
                map,
            },
            Layout::Ordered(set) => RangeInner::Ordered(set.range::<[u8], _>((from, to))),
        };
        Ok(MemoryRange { inner })
    }

    fn clear(&mut self) -> Result<(), StoreError> {
        match &mut self.layout {
            Layout::Indexed { map, order } => {
                map.clear();
                order.clear();
            }
            Layout::Ordered(set) => set.clear(),
        }
        Ok(())
    }

    fn len(&self) -> usize {
        match &self.layout {
            Layout::Indexed { map, .. } => map.len(),
            Layout::Ordered(set) => set.len(),
        }
    }
}

/// Opens a [`MemoryBackend`] for every store: state lives in memory and is rebuilt from the
/// changelog whenever a task starts. A stream-stream join's window stores get the ordered
/// layout ([`MemoryBackend::ordered`]), every other store the indexed one.
#[derive(Debug, Default, Clone, Copy)]
pub struct MemoryStores;

impl BackendFactory for MemoryStores {
    type Backend = MemoryBackend;
    fn open(
        &mut self,
        _: &str,
        _: &str,
        _: i32,
        store: &StoreInfo,
    ) -> Result<MemoryBackend, StoreError> {
        Ok(match store.kind {
            StoreKind::JoinWindow { .. } => MemoryBackend::ordered(),
            _ => MemoryBackend::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overwrites_values_of_any_length() {
        let mut store = MemoryBackend::new();
        let eight = 7i64.to_be_bytes();
        let other = 9i64.to_be_bytes();
        let mut buf = Vec::new();
        for (old, new) in [
            (&eight[..], &other[..]),
            (&eight[..], &b"abc"[..]),
            (&b"abc"[..], &eight[..]),
            (&b"abcdefghij"[..], &b"xy"[..]),
        ] {
            store.put(b"k", old).expect("put");
            store.put(b"k", new).expect("put over");
            assert_eq!(store.get(b"k").expect("get"), Some(new));
            store.put(b"k", old).expect("put");
            let r: Result<(), ()> = store
                .update(b"k", &mut buf, |current, buf| {
                    assert_eq!(current, Some(old));
                    buf.clear();
                    buf.extend_from_slice(new);
                    Ok(true)
                })
                .expect("update");
            assert_eq!(r, Ok(()));
            assert_eq!(store.get(b"k").expect("get"), Some(new));
        }
    }

    fn contract(mut store: MemoryBackend) {
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
        assert_eq!(store.len(), 4, "a put of a present key replaces it");
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
        let values: Vec<Vec<u8>> = store
            .range(Bound::Unbounded, Bound::Unbounded)
            .expect("range")
            .map(|e| e.expect("entry").1.to_vec())
            .collect();
        assert_eq!(values, [&b"longer value"[..], b"v", b"v", b"v"]);
        assert!(store.delete(b"a").expect("delete"));
        assert!(!store.delete(b"a").expect("delete"));
        assert_eq!(store.get(b"a").expect("get"), None);
        store.put(b"", b"empty key").expect("put");
        assert_eq!(store.get(b"").expect("get"), Some(&b"empty key"[..]));
        store.clear().expect("clear");
        assert!(store.is_empty());
    }

    #[test]
    fn memory_range_is_byte_ordered_and_never_panics() {
        contract(MemoryBackend::new());
    }

    #[test]
    fn the_ordered_layout_keeps_the_same_contract() {
        contract(MemoryBackend::ordered());
    }
}
