//! The in-memory backend: state lives in the process and is rebuilt from the changelog
//! whenever a task starts.

use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::Arc;

use super::{BackendFactory, Entry, StoreBackend, StoreError, inverted};
use crate::fast_hash::FastHashMap;
use crate::topology::StoreInfo;

/// An in-memory map of bytes to bytes: a hash map for point operations and an ordered index
/// of the keys for range scans.
///
/// Point reads and writes (every aggregation update, join lookup and most processor calls) cost
/// one hash lookup (foldhash, randomly seeded: see `fast_hash`); a range scan walks the ordered key index. An update of an existing key
/// reuses the stored value's buffer, so it allocates only when the value grows; a new key
/// allocates its key (shared by both indexes) and its value.
#[derive(Debug, Default, Clone)]
pub struct MemoryBackend {
    map: FastHashMap<Arc<[u8]>, Vec<u8>>,
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
    map: &'a FastHashMap<Arc<[u8]>, Vec<u8>>,
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
}
