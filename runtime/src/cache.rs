//! The record cache of aggregations: which keys of a store changed since their results were
//! last forwarded.
//!
//! Kafka Streams puts a record cache (`statestore.cache.max.bytes`, 10 MiB by default) in front
//! of every aggregation's store: an update is written to the cache, and the aggregation's
//! result is forwarded downstream only when the cache is flushed (at every commit, or when it is
//! full), once per changed key, with the key's latest value. A hot key updated a thousand times
//! between two commits produces one output record instead of a thousand.
//!
//! dekaf-streams does the same with less: the store itself is always up to date (so joins,
//! processors and queries read the latest value), and what the cache keeps is the set of
//! **dirty keys** of each aggregation, in the order they first changed, with what the flush
//! needs to forward each one: the timestamp, source topic and offset of the key's last update,
//! whether the key had a value before it became dirty, and the size of its latest value. At a
//! flush the generated task walks the dirty keys, reads each key's current value from the store
//! and runs the aggregation's downstream operators on it (see
//! [`Task::flush_cache`](crate::task::Task::flush_cache)).
//!
//! A table read from a topic (`table(..)`) is cached the same way: Kafka Streams materializes it
//! (its store is named) and puts the cache in front of its store, so a key updated several
//! times between two flushes is forwarded once, as the change from its value at the last flush
//! to its latest one. That old value is the one thing the store no longer has at the flush, so
//! the cache keeps it, from the moment the key became dirty ([`DirtyKeys::mark_with_old`]).
//!
//! [`DirtyKeys`] keeps the key bytes (and old values) in arenas and indexes them with a hash
//! table of entry numbers; all keep their capacity across flushes, so once the cache has held its
//! largest set of keys, marking a key allocates nothing.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

/// What one entry costs beyond its key and value bytes (the entry, its index slot, slack),
/// counted against the cache budget.
pub(crate) const ENTRY_OVERHEAD: usize = 64;

/// One dirty key of an aggregation: where its bytes are, and the context of its last update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirtyEntry {
    start: usize,
    len: usize,
    /// The encoded size of the key's latest value (0 after a deletion).
    pub value_len: usize,
    /// The source index ([`InputRecord::source`](crate::record::InputRecord::source)) of the
    /// record that last updated the key.
    pub source: usize,
    /// That record's timestamp: the timestamp of the forwarded result.
    pub timestamp: i64,
    /// That record's offset (reported to `on_error` if forwarding the result fails).
    pub offset: i64,
    /// Whether the key had a value in the store when it became dirty. A key that had none and
    /// has none at the flush (created and deleted in one interval) forwards nothing, as in Kafka
    /// Streams.
    pub existed: bool,
    /// Where the key's value as of the last flush is in the old-value arena, if it was kept
    /// ([`DirtyKeys::mark_with_old`]).
    old: Option<(usize, usize)>,
}

/// The dirty keys of one aggregation, in first-dirty order. Not thread-safe; one per task and
/// aggregation.
#[derive(Debug, Default, Clone)]
pub struct DirtyKeys {
    arena: Vec<u8>,
    olds: Vec<u8>,
    entries: Vec<DirtyEntry>,
    index: HashTable<usize>,
    hasher: DefaultHashBuilder,
    bytes: usize,
}

/// The context of an update, as [`DirtyKeys::mark`] records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Update {
    /// The encoded size of the new value (0 for a deletion).
    pub value_len: usize,
    /// The source index of the updating record.
    pub source: usize,
    /// Its timestamp.
    pub timestamp: i64,
    /// Its offset.
    pub offset: i64,
    /// Whether the key had a value before this update.
    pub existed: bool,
}

impl DirtyKeys {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks `key` dirty with the context of its latest `update`. A key already dirty keeps its
    /// place in the order and whether it existed before; the rest of its context is replaced.
    #[inline]
    pub fn mark(&mut self, key: &[u8], update: Update) {
        self.mark_with_old(key, update, None);
    }

    /// [`mark`](Self::mark), keeping `old` (the key's value before this update) if the key was
    /// not dirty yet: the value forwarded at the flush as the change's old value. A key already
    /// dirty keeps the old value it had.
    #[inline]
    pub fn mark_with_old(&mut self, key: &[u8], update: Update, old: Option<&[u8]>) {
        let hash = self.hasher.hash_one(key);
        let DirtyKeys {
            arena,
            olds,
            entries,
            index,
            hasher,
            bytes,
        } = self;
        let found = index.find(hash, |&i| {
            entries
                .get(i)
                .and_then(|e| arena.get(e.start..e.start + e.len))
                == Some(key)
        });
        if let Some(&i) = found
            && let Some(e) = entries.get_mut(i)
        {
            *bytes = bytes.saturating_sub(e.value_len) + update.value_len;
            e.value_len = update.value_len;
            e.source = update.source;
            e.timestamp = update.timestamp;
            e.offset = update.offset;
            return;
        }
        let start = arena.len();
        arena.extend_from_slice(key);
        let old = old.map(|old| {
            let at = olds.len();
            olds.extend_from_slice(old);
            (at, old.len())
        });
        let i = entries.len();
        entries.push(DirtyEntry {
            start,
            len: key.len(),
            value_len: update.value_len,
            source: update.source,
            timestamp: update.timestamp,
            offset: update.offset,
            existed: update.existed,
            old,
        });
        index.insert_unique(hash, i, |&j| {
            let key = entries
                .get(j)
                .and_then(|e| arena.get(e.start..e.start + e.len))
                .unwrap_or_default();
            hasher.hash_one(key)
        });
        *bytes += key.len() + old.map_or(0, |(_, len)| len) + update.value_len + ENTRY_OVERHEAD;
    }

    /// The value `entry`'s key had at the last flush, if it was kept
    /// ([`mark_with_old`](Self::mark_with_old)).
    #[inline]
    pub fn old(&self, entry: &DirtyEntry) -> Option<&[u8]> {
        let (at, len) = entry.old?;
        self.olds.get(at..at + len)
    }

    /// Whether `key` is dirty.
    pub fn contains(&self, key: &[u8]) -> bool {
        let hash = self.hasher.hash_one(key);
        self.index
            .find(hash, |&i| self.entry_key(i) == Some(key))
            .is_some()
    }

    fn entry_key(&self, i: usize) -> Option<&[u8]> {
        let e = self.entries.get(i)?;
        self.arena.get(e.start..e.start + e.len)
    }

    /// The `i`-th dirty key (in first-dirty order) and its entry.
    #[inline]
    pub fn get(&self, i: usize) -> Option<(&[u8], DirtyEntry)> {
        let e = *self.entries.get(i)?;
        Some((self.arena.get(e.start..e.start + e.len)?, e))
    }

    /// How many keys are dirty.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key is dirty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What the set counts against the cache budget: key bytes, latest value sizes and
    /// [`ENTRY_OVERHEAD`] per key.
    #[inline]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets every key, keeping the memory for the next interval.
    pub fn clear(&mut self) {
        self.arena.clear();
        self.olds.clear();
        self.entries.clear();
        self.index.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(value_len: usize, timestamp: i64, existed: bool) -> Update {
        Update {
            value_len,
            source: 0,
            timestamp,
            offset: timestamp,
            existed,
        }
    }

    #[test]
    fn keeps_first_dirty_order_and_the_last_context() {
        let mut d = DirtyKeys::new();
        d.mark(b"b", update(8, 1, false));
        d.mark(b"a", update(8, 2, true));
        d.mark(b"b", update(4, 3, true));
        assert_eq!(d.len(), 2);
        let (k, e) = d.get(0).expect("first");
        assert_eq!(
            (k, e.timestamp, e.existed, e.value_len),
            (&b"b"[..], 3, false, 4)
        );
        let (k, e) = d.get(1).expect("second");
        assert_eq!((k, e.timestamp, e.existed), (&b"a"[..], 2, true));
        assert!(d.get(2).is_none());
        assert!(d.contains(b"a") && !d.contains(b"c"));
        assert_eq!(d.bytes(), 2 + 4 + 8 + 2 * ENTRY_OVERHEAD);
        d.clear();
        assert!(d.is_empty() && d.bytes() == 0 && !d.contains(b"a"));
    }

    #[test]
    fn keeps_the_old_value_of_the_first_update_only() {
        let mut d = DirtyKeys::new();
        d.mark_with_old(b"a", update(2, 1, true), Some(b"v0"));
        d.mark_with_old(b"b", update(2, 2, false), None);
        d.mark_with_old(b"a", update(2, 3, true), Some(b"v1"));
        let (k, e) = d.get(0).expect("a");
        assert_eq!(
            (k, d.old(&e), e.timestamp),
            (&b"a"[..], Some(&b"v0"[..]), 3)
        );
        let (_, e) = d.get(1).expect("b");
        assert_eq!(d.old(&e), None);
        assert_eq!(d.bytes(), 2 + 2 + 2 + 2 + 2 * ENTRY_OVERHEAD);
        d.clear();
        d.mark_with_old(b"c", update(1, 4, true), Some(b"w"));
        let (_, e) = d.get(0).expect("c");
        assert_eq!(d.old(&e), Some(&b"w"[..]));
    }

    #[test]
    fn many_keys_survive_growth() {
        let mut d = DirtyKeys::new();
        for i in 0..10_000u32 {
            d.mark(&i.to_be_bytes(), update(8, i64::from(i), false));
        }
        for i in (0..10_000u32).rev() {
            d.mark(&i.to_be_bytes(), update(8, -1, true));
        }
        assert_eq!(d.len(), 10_000);
        for i in 0..10_000u32 {
            let (k, e) = d.get(i as usize).expect("entry");
            assert_eq!(
                (k, e.timestamp, e.existed),
                (&i.to_be_bytes()[..], -1, false)
            );
        }
    }
}
